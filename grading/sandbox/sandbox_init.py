"""The first program in every sandbox, before the kernel: caps its scratch file systems, sets its limits, drops.

Run inside bubblewrap as ``python -I -S sandbox_init.py SPEC -- COMMAND...`` (grading/sandbox/kernels.py):

- remounts each scratch tmpfs (/tmp, /home/student, /dev/shm) with an inode cap (``nr_inodes``),
  which bubblewrap's --tmpfs cannot set (it sets the size only);
- sets the rlimits. They are set here, inside the sandbox, not around bubblewrap: graded as an
  ordinary user, the sandbox has a user namespace of its own, and the kernel counts RLIMIT_NPROC
  per user namespace, so each sandbox's process limit is its own, though every sandbox runs as
  the instructor's one uid;
- as root, gives the working folder to the sandbox's uid (the student may write there; the copies
  of the assignment's files stay read-only mounts) and becomes that uid; with no capabilities left,
  no_new_privs, then runs COMMAND;
- installs a seccomp filter (``seccomp_filter``): no new user namespace (in one of its own, student
  code could mount a tmpfs that none of these caps bounds), no memfd and no System V shared memory
  (memory that no cap and no address-space limit counts).

The fork server (grading/sandbox/forkserver.py) builds its sandboxes itself and uses ``set_limits_and_drop``.
No student code has run when this runs; it fails closed (exit 126) with the reason on stderr.
"""

import ctypes
import json
import os
import sys

MS_NOSUID, MS_NODEV, MS_REMOUNT = 2, 4, 32
PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, PR_SET_SECCOMP = 38, 47, 4, 22
SECCOMP_MODE_FILTER, CLONE_NEWUSER, EPERM, ENOSYS = 2, 0x10000000, 1, 38
# The audit arch and the syscalls the filter looks at, by machine (linux/audit.h, the syscall tables)
SYSCALLS = {"x86_64": {"arch": 0xC000003E, "clone": 56, "unshare": 272, "clone3": 435, "memfd_create": 319,
                       "memfd_secret": 447, "shmget": 29},
            "aarch64": {"arch": 0xC00000B7, "clone": 220, "unshare": 97, "clone3": 435, "memfd_create": 279,
                        "memfd_secret": 447, "shmget": 194}}
RLIMITS = {"--nproc": "RLIMIT_NPROC", "--fsize": "RLIMIT_FSIZE", "--as": "RLIMIT_AS", "--cpu": "RLIMIT_CPU",
           "--nofile": "RLIMIT_NOFILE"}

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result, what):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def cap_inodes(path, inodes):
    """Remount the tmpfs at ``path`` with at most ``inodes`` files and folders (its size is kept)."""
    _check(_libc.mount(None, path.encode(), None, ctypes.c_ulong(MS_REMOUNT | MS_NOSUID | MS_NODEV),
                       f"nr_inodes={inodes}".encode()), f"remount {path}")


def set_limits_and_drop(limits, uid=None):
    """Set ``limits`` ({prlimit option: value}); as root, become ``uid``; no capabilities, no_new_privs,
    and the seccomp filter (``seccomp_filter``)."""
    import resource

    for option, value in limits.items():
        limit = getattr(resource, RLIMITS[option])
        resource.setrlimit(limit, (value, value))
    if uid is not None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # from root to a uid of its own: every capability is dropped
    _check(_libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear ambient capabilities")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    seccomp_filter()


class _Filter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Filter))]


def seccomp_filter():
    """Install the sandbox's seccomp filter (inherited by every process it starts):

    - clone or unshare with CLONE_NEWUSER fails (EPERM); clone3, whose flags a filter cannot read,
      fails with ENOSYS (the C library then uses clone): in a user namespace of its own, student code
      could mount a tmpfs that no cap bounds;
    - memfd_create, memfd_secret and shmget fail with ENOSYS: memory held there (a memfd, a System V
      segment that outlives its mapping) is under no file system's cap and no process's address space;
    - a foreign ABI (32-bit or x32 calls) fails with EPERM; everything else is allowed.
    """
    native = SYSCALLS[os.uname().machine]
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    allow, deny, nosys = 0x7FFF0000, 0x00050000 | EPERM, 0x00050000 | ENOSYS
    unavailable = [native[name] for name in ("clone3", "memfd_create", "memfd_secret", "shmget")]
    n = len(unavailable)
    program = [(ld, 0, 0, 4),                           # the calling ABI
               (jeq, 1, 0, native["arch"]),             # native: skip the next
               (ret, 0, 0, deny),
               (ld, 0, 0, 0),                           # the syscall number
               (jge, n + 6, 0, 0x40000000)]             # x32: to the last (deny)
    program += [(jeq, n - k + 4, 0, nr) for k, nr in enumerate(unavailable)]  # each: to "nosys"
    program += [(jeq, 1, 0, native["clone"]),           # clone or unshare: look at the flags
                (jeq, 0, 2, native["unshare"]),
                (ld, 0, 0, 16),                         # flags: the first argument's low 32 bits
                (jset, 2, 0, CLONE_NEWUSER),            # a new user namespace: to the last (deny)
                (ret, 0, 0, allow),
                (ret, 0, 0, nosys),
                (ret, 0, 0, deny)]
    filters = (_Filter * len(program))(*[_Filter(*f) for f in program])
    prog = _Program(len(program), filters)
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0), "seccomp")


def main(argv):
    spec, command = json.loads(argv[1]), argv[3:]
    assert argv[2] == "--" and command, "usage: sandbox_init.py SPEC -- COMMAND..."
    for path, inodes in spec["inodes"]:
        cap_inodes(path, inodes)
    if spec.get("uid") is not None:
        os.chown(spec["workdir"], spec["uid"], spec["uid"])
    set_limits_and_drop(spec["limits"], spec.get("uid"))
    os.execv(command[0], command)  # a non-root uid and no ambient capabilities: the command has none


if __name__ == "__main__":
    try:
        main(sys.argv)
    except BaseException as exc:  # noqa: BLE001 - no student code has run; say why and stop
        sys.stderr.write(f"the sandbox could not start: {exc}\n")
        os._exit(126)
