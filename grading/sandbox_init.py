"""The first program in every sandbox, before the kernel: caps its scratch file systems, sets its limits, drops.

Run inside bubblewrap as ``python -I -S sandbox_init.py SPEC -- COMMAND...`` (grading/sandbox.py):

- remounts each scratch tmpfs (/tmp, /home/student, /dev/shm) with an inode cap (``nr_inodes``),
  which bubblewrap's --tmpfs cannot set (it sets the size only);
- sets the rlimits. They are set here, inside the sandbox, not around bubblewrap: graded as an
  ordinary user, the sandbox has a user namespace of its own, and the kernel counts RLIMIT_NPROC
  per user namespace, so each sandbox's process limit is its own, though every sandbox runs as
  the instructor's one uid;
- as root, gives the working folder to the sandbox's uid (the student may write there; the copies
  of the assignment's files stay read-only mounts) and becomes that uid; with no capabilities left,
  no_new_privs, then runs COMMAND.

The fork server (grading/forkserver.py) builds its sandboxes itself and uses ``set_limits_and_drop``.
No student code has run when this runs; it fails closed (exit 126) with the reason on stderr.
"""

import ctypes
import json
import os
import sys

MS_NOSUID, MS_NODEV, MS_REMOUNT = 2, 4, 32
PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 38, 47, 4
RLIMITS = {"--nproc": "RLIMIT_NPROC", "--fsize": "RLIMIT_FSIZE", "--as": "RLIMIT_AS", "--cpu": "RLIMIT_CPU"}

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
    """Set ``limits`` ({prlimit option: value}); as root, become ``uid``; no capabilities, no_new_privs."""
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
