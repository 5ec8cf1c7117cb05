"""The grading sandbox: every kernel that runs student code runs in bubblewrap.

What the student's kernel gets (``bwrap_command``):

- a read-only system (/usr) and Python environment (the venv and its base Python);
- a private working folder (``/home/student/work``, on a tmpfs capped in size and in
  inodes) holding read-only copies of the assignment's files, but no notebook; the
  student may write new files there or in /tmp (each a tmpfs capped likewise), and
  they are thrown away with the sandbox;
- a read-only /dev (null, zero, full, random, urandom, tty) with a small capped /dev/shm;
- no source/, gradebook, submitted/, autograded/, feedback/, nbgrader config,
  grading/ package or other kernels' connection files: they are simply not mounted;
- no network (its own empty network namespace); the kernel's channels are Unix
  sockets in a private folder that only this kernel and the grader see (as root, a tmpfs
  of its own, capped in size and inodes: the connection file, the sockets, the kernel's log);
- its own PID, IPC and UTS namespaces; it dies with the grader (--die-with-parent);
- an unprivileged user: run as root, the grader gives each sandbox a uid of its
  own (never 0), so one sandbox's processes do not count against another's limit;
  run as another user, bwrap maps that user into a user namespace;
- limits: process count, file size, address space and CPU seconds (rlimits, set inside the
  sandbox by grading/sandbox/sandbox_init.py: as an ordinary user the sandbox's user namespace is its
  own, and the process count is counted per user namespace, so it is per sandbox there too);
- a cgroup of its own where one can be made (grading/sandbox/cgroups.py): memory, and processes and threads, per
  sandbox, whatever its uid; ``limits_note`` says at start-up whether it is so here, and why not;
- an empty environment but for a few variables (no secrets from the grader's);
- its stdout and stderr go to a log file in its private folder, not the grader's.

``check()`` tries the sandbox once and returns a message naming the fix when it
cannot start. ``SandboxedKernelManager`` is the jupyter_client kernel manager that
nbgrader's Execute preprocessor uses to start each notebook's kernel in it as a new
process (--cold-kernels). By default, ``ForkedSandboxedKernelManager`` forks the kernel
from the fork server instead (grading/sandbox/forkserver.py), which builds the same sandbox from
``sandbox_spec``; ``kernel_manager_class()`` picks one.
"""

import json
import os
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from queue import Empty

import zmq
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from traitlets import Any, Dict, Integer, Type, Unicode

from grading.sandbox import cgroups

HARNESS = Path(__file__).resolve().parent / "kernel_harness.py"
WORKDIR = "/home/student/work"
GRADER_DIR = "/grader"  # the kernel harness and the trusted helpers, read-only
UNSAFE_ENV = "GRADER_UNSAFE_NO_SANDBOX"
COLD_ENV = "GRADER_COLD_KERNELS"  # "1": start every kernel as a new process (--cold-kernels), not forked

LIMITS = {  # prlimit option: value
    "--nproc": 256,                # processes and threads of the sandbox's own uid
    "--fsize": 64 * 2**20,         # bytes per file
    "--as": 6 * 2**30,             # address space per process
    "--cpu": 300,                  # CPU seconds per process
    # open files per process: each Unix socket pair can hold ~0.3 MiB of kernel memory in its buffers, which
    # only a cgroup counts; without one, 20,000 inherited fds let one process hold ~2.8 GiB (red team)
    "--nofile": 1024,
}
TMPFS_BYTES = 64 * 2**20
TMPFS_INODES = 8192                # files and folders per scratch tmpfs (300,000 empty files: ENOSPC)
# Every place a sandbox can write: (path, bytes, inodes, mode). bubblewrap sets the size;
# grading/sandbox/sandbox_init.py the inode cap; the fork server both (grading/sandbox/forkserver.py).
SCRATCH = (("/tmp", TMPFS_BYTES, TMPFS_INODES, "1777"),
           ("/home/student", TMPFS_BYTES, TMPFS_INODES, "1777"),
           ("/dev/shm", 16 * 2**20, 256, "1777"))
# The private folder (connection file, sockets, kernel.log): as root, a tmpfs of its own at its host path.
PRIVATE_BYTES, PRIVATE_INODES = 16 * 2**20, 64
INIT = Path(__file__).resolve().parent / "sandbox_init.py"
# Every grading kernel, sandboxed or not: one torch thread (the workers already use every core).
KERNEL_ENV = {"OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}


class SandboxUnavailable(RuntimeError):
    pass


def unsafe():
    """True when the grader runs kernels without the sandbox (--unsafe-no-sandbox)."""
    return os.environ.get(UNSAFE_ENV) == "1"


def cold():
    """True when kernels are started cold, as new processes, not forked from the fork server.

    That is with --cold-kernels, and whenever the grader is not root: a forked child builds its
    namespaces itself, which needs root; bubblewrap can map another user into a user namespace.
    """
    return os.environ.get(COLD_ENV) == "1" or os.geteuid() != 0


def _python_roots():
    """The folders the kernel's Python needs: the venv and the Python it was made from."""
    roots = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), Path(sys.executable).resolve().parent.parent}
    return sorted(str(r) for r in roots if r != Path("/usr") and not str(r).startswith("/usr/"))


def _python_aliases():
    """(real folder, the path Python runs it from) when the environment is reached through a symlink.

    A `.venv` that is a symlink: the sandbox binds the real folder (``_python_roots``), but the
    kernel is started as ``<symlink>/bin/python``, so the real folder is bound there too.
    """
    aliases = {Path(sys.prefix).absolute(), Path(sys.executable).absolute().parent.parent}
    return sorted((str(alias.resolve()), str(alias)) for alias in aliases if alias.resolve() != alias)


def _parents(path):
    """Every ancestor of ``path`` below /, outermost first."""
    parts = Path(path).parts[1:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def bwrap_command(inner, *, private_dir, files=(), grader_files=(), uid=None, env=None, limits=LIMITS,
                  private_files=(), cgroup=None):
    """The argv that runs ``inner`` in a fresh sandbox (in ``cgroup``, a grading.sandbox.cgroups.SandboxCgroup, if given).

    ``private_dir`` (connection file, sockets, log) is, as root, bound read-write at the same path (it is a
    capped tmpfs, ``make_private_dir``). As an ordinary user the grader cannot mount a tmpfs it also sees:
    the sandbox gets a capped tmpfs of its own at that path, holding read-only binds of ``private_files``
    (the connection file), and the grader reaches it through /proc (``SandboxedKernelManager``).
    ``files`` is a list of (host path, path relative to the working folder), bound read-only;
    ``grader_files`` a list of (host path, name) bound read-only into /grader.
    """
    bwrap = shutil.which("bwrap")
    if not bwrap:
        raise SandboxUnavailable("bubblewrap is not installed")
    args = [bwrap, "--ro-bind", "/usr", "/usr"]
    for link in ("bin", "sbin", "lib", "lib64", "lib32", "libx32"):
        if os.path.islink(f"/{link}"):
            args += ["--symlink", os.readlink(f"/{link}"), f"/{link}"]
    for extra in ("/etc/ld.so.cache", "/etc/localtime", "/etc/fonts", "/etc/ssl/certs"):
        if os.path.exists(extra):
            args += ["--ro-bind", extra, extra]
    args += ["--perms", "0755", "--dir", GRADER_DIR]
    for host, name in [(INIT, "sandbox_init.py"), *grader_files]:
        args += ["--ro-bind", str(host), f"{GRADER_DIR}/{name}"]
    # The scratch file systems first: a venv or private folder under /tmp is then bound on top of them.
    # /dev: the few devices a kernel needs, on a small tmpfs made read-only below. Not bwrap's --dev: its
    # devpts makes bwrap add a second user namespace, where sandbox_init.py could no longer remount.
    from grading.sandbox.forkserver import DEVICES

    args += ["--proc", "/proc", "--perms", "0755", "--size", str(64 * 2**10), "--tmpfs", "/dev"]
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            args += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        args += ["--symlink", target, f"/dev/{name}"]
    for path, size, _, mode in SCRATCH:
        args += ["--perms", mode, "--size", str(size), "--tmpfs", path]
    args += ["--remount-ro", "/dev", "--perms", "0755", "--dir", WORKDIR]
    made = set()
    for root in _python_roots() + [alias for _, alias in _python_aliases()] + [str(private_dir)]:
        for parent in _parents(root):
            if parent not in made and parent != "/tmp":
                made.add(parent)
                args += ["--perms", "0755", "--dir", parent]
    for root in _python_roots():
        args += ["--ro-bind", root, root]
    for real, alias in _python_aliases():
        args += ["--ro-bind", real, alias]
    for host, rel in files:
        args += ["--ro-bind", str(host), f"{WORKDIR}/{rel}"]
    own_private = os.geteuid() != 0
    if own_private:
        args += ["--perms", "0700", "--size", str(PRIVATE_BYTES), "--tmpfs", str(private_dir)]
        for host in private_files:
            args += ["--ro-bind", str(host), str(host)]
    else:
        args += ["--bind", str(private_dir), str(private_dir)]
    args += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
             "--die-with-parent", "--hostname", "sandbox", "--chdir", WORKDIR, "--clearenv"]
    for key, value in sandbox_env(env).items():
        args += ["--setenv", key, str(value)]
    if os.geteuid() == 0:
        uid = uid or sandbox_uid()
        caps = ("CAP_SYS_ADMIN", "CAP_CHOWN", "CAP_SETUID", "CAP_SETGID")  # for sandbox_init.py, which drops them
    else:
        # One user namespace of the sandbox's own, where it keeps the grader's uid: with another --uid (or
        # --dev) bwrap adds a second namespace, which could no longer remount its file systems (sandbox_init.py).
        uid, caps = None, ("CAP_SYS_ADMIN",)  # in the sandbox's own user namespace only
        args += ["--unshare-user"]
    for cap in caps:
        args += ["--cap-add", cap]
    inodes = [(path, inodes) for path, _, inodes, _ in SCRATCH] + ([(str(private_dir), PRIVATE_INODES)] if own_private else [])
    spec = {"inodes": inodes, "limits": dict(limits), "uid": uid, "workdir": WORKDIR}
    args += ["--", sys.executable, "-I", "-S", f"{GRADER_DIR}/sandbox_init.py", json.dumps(spec), "--", *inner]
    # A shell that enters the cgroup, then becomes bubblewrap: every process of the sandbox is in it from
    # the start (a pid written after the spawn would race bubblewrap's own forks).
    return cgroup.enter_command(args) if cgroup else args


def sandbox_env(extra=None):
    """The whole environment of a sandboxed process: a few fixed variables and ``extra``."""
    return {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": "/home/student", "LANG": "C.UTF-8",
            "MPLCONFIGDIR": "/tmp", "PYTHONDONTWRITEBYTECODE": "1", **KERNEL_ENV, **(extra or {})}


def sandbox_uid():
    """A fresh unprivileged uid for one sandbox (not in /etc/passwd, never 0)."""
    return 200_000 + secrets.randbelow(800_000)


def make_private_dir(uid):
    """A folder for one kernel's connection file, sockets and log, owned by the sandbox user.

    As root it is a tmpfs of its own, capped in size and inodes, mounted where the grader sees it;
    ``remove_private_dir`` unmounts it. As an ordinary user it is a plain folder that holds the
    connection file and the kernel's log; the sandbox mounts its own capped tmpfs there (``bwrap_command``).
    """
    path = tempfile.mkdtemp(prefix=f"nbg-{os.getpid()}-", dir="/tmp")  # the grader's pid: see remove_stale_private_dirs
    if os.geteuid() == 0:
        from grading.sandbox import forkserver

        forkserver._mount("tmpfs", path, "tmpfs", forkserver.MS_NOSUID | forkserver.MS_NODEV,
                          f"size={PRIVATE_BYTES},nr_inodes={PRIVATE_INODES},mode=0700,uid={uid},gid={uid}")
    else:
        os.chmod(path, 0o700)
    return path


def remove_stale_private_dirs():
    """Remove the private folders left by graders that are gone (killed past a deadline, say: no cleanup ran).

    Their kernels died with them (--die-with-parent, the fork server's parent-death signals), so each
    folder named for a pid that no longer runs is garbage; as root it would stay mounted.
    """
    for entry in os.scandir("/tmp"):
        parts = entry.name.split("-")
        if len(parts) != 3 or parts[0] != "nbg" or not parts[1].isdigit() or os.path.exists(f"/proc/{parts[1]}"):
            continue
        # As root, only a private tmpfs (a folder another user made under that name is left alone). Each of make
        # grade's workers cleans up as it starts, at the same moment: a folder another worker removed since the
        # listing is gone, not an error (remove_private_dir likewise skips one unmounted meanwhile).
        try:
            if os.path.ismount(entry.path) if os.geteuid() == 0 else entry.stat(follow_symlinks=False).st_uid == os.geteuid():
                remove_private_dir(entry.path)
        except FileNotFoundError:
            continue


def remove_private_dir(path):
    """Remove a private folder and what is in it, unmounting its tmpfs first (``make_private_dir``)."""
    if os.path.ismount(path):
        from grading.sandbox import forkserver

        try:
            forkserver._check(forkserver._libc.umount2(str(path).encode(), forkserver.MNT_DETACH), f"umount {path}")
        except OSError:
            if os.path.ismount(path):  # not unmounted by another process in the meantime: a real failure
                raise
    shutil.rmtree(path, ignore_errors=True)


def workdir_files(folder):
    """(host path, relative path) of the regular files under ``folder``, notebooks and symlinks left out."""
    out = []
    folder = Path(folder)
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in (".ipynb_checkpoints", "__pycache__")]
        for name in filenames:
            path = Path(dirpath) / name
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode) and path.suffix != ".ipynb" and info.st_size <= LIMITS["--fsize"]:
                out.append((path, path.relative_to(folder).as_posix()))
    return out


FIX = ("The grading sandbox (bubblewrap) cannot start here: {why}\n"
       "Fix: install it (`apt-get install bubblewrap`) and grade as root, or as a user allowed to create user\n"
       "namespaces (`sysctl kernel.unprivileged_userns_clone=1`; in a container, allow unshare/clone).\n"
       "To grade trusted code anyway, run `make grade ARGS=--unsafe-no-sandbox` (student code then runs\n"
       "unconfined, with your permissions).")


def check():
    """None when the sandbox works here (bubblewrap, and the forked one unless --cold-kernels), else the fix."""
    uid = sandbox_uid()
    scratch = make_private_dir(uid)
    probe = "import os; assert os.getuid() != 0"
    group = cgroups.make()
    try:
        try:
            cmd = bwrap_command([sys.executable, "-c", probe], private_dir=scratch, uid=uid, cgroup=group)
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        except (SandboxUnavailable, OSError, subprocess.TimeoutExpired) as exc:
            return FIX.format(why=exc)
        if proc.returncode:
            return FIX.format(why=(proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1])
        if cold():
            return None
        server = None
        try:
            server = fork_server(warm=False)
            code, output = run_forked(probe, scratch, uid, server=server, cgroup=group)
            if code:
                return FORK_FIX.format(why=(output.strip().splitlines() or ["it failed"])[-1])
        except (SandboxUnavailable, OSError, subprocess.TimeoutExpired) as exc:
            return FORK_FIX.format(why=exc)
        finally:
            if server:
                server.close()
        return None
    finally:
        remove_private_dir(scratch)
        if group:
            group.remove()


FORK_FIX = ("The forked grading sandbox cannot start here: {why}\n"
            "Run `make grade ARGS=--cold-kernels` to start every kernel in bubblewrap as a new process.")


def run_forked(code, private_dir, uid, files=(), env=None, timeout=60, server=None, cgroup=None):
    """Run ``code`` in a forked, sandboxed child of the fork server; (1 if it raised else 0, what it printed).

    The grader is not the child's parent and never sees its exit code: a child that raised
    printed its traceback, and that is what counts as failing.
    """
    from grading.sandbox import forkserver

    log = os.path.join(private_dir, "program.log")
    reply = (server or fork_server()).request({"python": code, "log": log, "env": sandbox_env(env),
                                   "sandbox": sandbox_spec(private_dir, uid, files, cgroup=cgroup)})
    if "error" in reply:
        raise SandboxUnavailable(reply["error"])
    forkserver.ForkedProcess(reply["pid"]).wait(timeout)
    with open(log, errors="replace") as fh:
        output = fh.read()
    return (1 if "Traceback (most recent call last)" in output else 0), output


def limits_note():
    """The one line that says, at start-up, how each sandbox's memory and processes are limited here."""
    by_cgroup = cgroups.note()
    if by_cgroup:
        return f"Sandbox limits: {by_cgroup}; and rlimits per process ({LIMITS['--as'] // 2**30} GiB of address space)."
    rlimits = (f"{LIMITS['--nproc']} processes per sandbox, {LIMITS['--as'] // 2**30} GiB of address space per "
               "process, not per sandbox")
    return f"Sandbox limits: rlimits only ({rlimits}); no cgroup per sandbox: {cgroups.why_not()}."


_CHECKED = []


def check_once():
    """``check()``, run once per process; when the sandbox works, says how its limits are set (``limits_note``)."""
    if not _CHECKED:
        remove_stale_private_dirs()
        cgroups.remove_stale()
        _CHECKED.append(check())
        if _CHECKED[0] is None:
            sys.stderr.write(limits_note() + "\n")
    return _CHECKED[0]


def prepare():
    """Ready this grading process to start kernels: check the sandbox, start the fork server. A problem, or None."""
    if not unsafe():
        problem = check_once()
        if problem:
            return problem
    if not cold():
        try:
            fork_server()
        except Exception as exc:  # noqa: BLE001 - reported to the grader as the reason
            return f"the fork server did not start: {exc}"
    return None


class GradingKernelClient(AsyncKernelClient):
    """The grader's client of a grading kernel: jupyter_client's, ready as soon as the kernel answers.

    jupyter_client's ``wait_for_ready`` waits 0.2 s for an IOPub message, then at least 0.2 s more of IOPub
    silence: a third of a second of each notebook's grading, with the core idle, for a forked kernel that answers
    in milliseconds. Here a kernel_info reply on the shell channel and a message on IOPub (its subscription is
    connected) say the kernel is ready: kernel_info is asked again every 20 ms until both arrive, and IOPub is
    drained of what has already come. What came before or comes after belongs to no cell (nbclient reads only the
    messages whose parent is the cell's request).

    Its sockets also try again to connect every 10 ms, not zmq's 100 ms (``GRADER_NO_SPEEDUPS=1``: 100 ms): a
    forked kernel is started when its process is, before it has bound its sockets, so the client's first
    connection fails, and the kernel_info requests asked every 20 ms meanwhile queued up and were all answered
    once it connected."""

    def _context_default(self):
        from grading.plugins import speedups

        context = super()._context_default()
        if speedups.enabled():
            context.setsockopt(zmq.RECONNECT_IVL, 10)  # for the sockets this client's own context makes
        return context

    async def _async_wait_for_ready(self, timeout=None):
        deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
        while True:
            self.kernel_info()
            try:
                msg = await self.shell_channel.get_msg(timeout=0.02)
            except Empty:
                msg = None
            if msg is not None and msg["msg_type"] == "kernel_info_reply":
                try:
                    await self.iopub_channel.get_msg(timeout=0.02)
                except Empty:
                    pass
                else:
                    self._handle_kernel_info_reply(msg)
                    break
            if not await self._async_is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError("Kernel didn't respond in %d seconds" % timeout)
        while True:
            try:
                await self.iopub_channel.get_msg(timeout=0)
            except Empty:
                break

    wait_for_ready = _async_wait_for_ready  # jupyter_client binds this name to its own function, not by lookup


class HarnessKernelManager(AsyncKernelManager):
    """Starts the grading kernel (kernel_harness.py) instead of the plain ipykernel; no sandbox."""

    helpers_path = Unicode(help="The course's trusted helper module, loaded by the kernel before student code")
    client_factory = Type(GradingKernelClient, klass=AsyncKernelClient, config=True)

    def format_kernel_cmd(self, extra_arguments=None):
        return [sys.executable, str(HARNESS), self.helpers_path, "-f", self.connection_file, *(extra_arguments or [])]

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        kw["env"] = {**(kw.get("env") or os.environ), **KERNEL_ENV}
        await super()._async_launch_kernel(kernel_cmd, **kw)

    async def _async_wait(self, pollinterval=0.1):
        """jupyter_client's, looking every 10 ms (not every 100 ms) whether the kernel has exited, after a shutdown
        request as after a kill (a graded kernel is killed: SandboxedExecute): a kernel is gone within
        milliseconds, and the grader sat idle for the rest of each 100 ms, at every notebook (issue 24). The callers'
        deadlines are theirs."""
        await super()._async_wait(pollinterval=min(pollinterval, 0.01))


class SandboxedKernelManager(HarnessKernelManager):
    """Starts the grading kernel inside a fresh sandbox, with IPC channels in a private folder."""

    sandbox_files = Dict(help="{relative path: host path} bound read-only into the working folder")
    private_dir = Unicode()
    sandbox_user = Integer(0)
    cgroup = Any(None, allow_none=True, help="The sandbox's cgroup (grading.sandbox.cgroups.SandboxCgroup), None where there is none")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.sandbox_user = sandbox_uid() if os.geteuid() == 0 else os.geteuid()
        self.private_dir = make_private_dir(self.sandbox_user)
        self.cgroup = cgroups.make()
        self.transport = "ipc"
        self.ip = os.path.join(self.private_dir, "k")
        self.connection_file = os.path.join(self.private_dir, "kernel.json")

    def _env(self):
        from grading.plugins import speedups

        env = {k: v for k, v in os.environ.items() if k == "NBGRADER_EXECUTION"}
        if not speedups.enabled():
            env["SPEC_WIDGETS"] = "live"  # the old path's kernels make the lessons' widgets (spec_quiz.live)
        return env

    def _files(self):
        return [(str(host), rel) for rel, host in self.sandbox_files.items()]

    def format_kernel_cmd(self, extra_arguments=None):
        inner = [sys.executable, f"{GRADER_DIR}/kernel_harness.py", f"{GRADER_DIR}/helpers.py",
                 "-f", self.connection_file, *(extra_arguments or [])]
        grader_files = [(HARNESS, "kernel_harness.py"), *helper_files(self.helpers_path)]
        return bwrap_command(inner, private_dir=self.private_dir, files=self._files(), grader_files=grader_files,
                             uid=self.sandbox_user, env=self._env(), private_files=[self.connection_file],
                             cgroup=self.cgroup)

    def _give_connection_file(self):
        if os.geteuid() == 0:
            os.chown(self.connection_file, self.sandbox_user, self.sandbox_user)

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        self._give_connection_file()
        log = open(os.path.join(self.private_dir, "kernel.log"), "ab")
        kw.update(stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        try:
            await super()._async_launch_kernel(kernel_cmd, **kw)
        finally:
            log.close()
        if os.geteuid() != 0:  # the sockets are in the sandbox's own tmpfs: reach them through its root
            self.ip = os.path.join(f"/proc/{sandbox_pid(self.provisioner.process.pid)}/root{self.private_dir}", "k")

    async def _async_cleanup_resources(self, restart=False):
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            remove_private_dir(self.private_dir)
            if self.cgroup:  # the kernel is gone: what is left in its cgroup is killed, and the cgroup removed
                try:
                    self.cgroup.remove()
                except OSError as exc:  # the next grading process sweeps it (cgroups.remove_stale)
                    self.log.warning("The sandbox's cgroup %s could not be removed: %s", self.cgroup.dirs, exc)
                self.cgroup = None


def sandbox_pid(bwrap_pid, timeout=10):
    """The pid of the process bubblewrap (``bwrap_pid``) starts in the sandbox's namespaces, once it exists."""
    import time

    listing = f"/proc/{bwrap_pid}/task/{bwrap_pid}/children"
    if not os.path.exists(listing):
        raise SandboxUnavailable(f"{listing} does not exist (a kernel without CONFIG_PROC_CHILDREN): graded as an "
                                 "ordinary user, the grader cannot find the sandbox's private folder")
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            children = open(listing).read().split()
        except OSError:  # bubblewrap has already exited
            break
        if children:
            return int(children[0])
        time.sleep(0.01)
    raise SandboxUnavailable(f"bubblewrap (pid {bwrap_pid}) started no sandbox within {timeout} s")


HELPER_COMPANIONS = ("tiny_lm.py", "tiny_lm.pt")  # Level 24's model pair, which its trusted helpers load beside them


def helper_files(helpers_path):
    """The trusted helpers as /grader/helpers.py, and the course's files they load from beside them (Level 24's model
    pair, read by pair_steps in the kernel from the grader's copy, not from the student's folder)."""
    folder = os.path.dirname(str(helpers_path))
    return [(helpers_path, "helpers.py")] + [(os.path.join(folder, name), name) for name in HELPER_COMPANIONS
                                             if os.path.isfile(os.path.join(folder, name))]


def sandbox_spec(private_dir, uid, files=(), grader_files=(), limits=LIMITS, cgroup=None):
    """What the fork server needs to build the same sandbox as ``bwrap_command`` (grading/sandbox/forkserver.py)."""
    return {"private_dir": str(private_dir), "uid": uid, "files": [(str(h), r) for h, r in files],
            "grader_files": [(str(h), n) for h, n in grader_files], "python_roots": _python_roots(),
            "python_aliases": _python_aliases(),
            "workdir": WORKDIR, "grader_dir": GRADER_DIR, "scratch": [list(s) for s in SCRATCH],
            "limits": dict(limits), "cgroup": cgroup.procs_files if cgroup else []}


def fork_server(warm=True):
    """This grading process's fork server, started on first use (grading/sandbox/forkserver.py).

    ``warm=False``: a new server that imports nothing in advance, for a quick check; the caller stops it.
    """
    from grading.sandbox import forkserver

    return forkserver.ForkServer.shared(fork_server_env) if warm else forkserver.ForkServer(fork_server_env(), warm=False)


def fork_server_env():
    """A new fork server's environment (made only when a server starts, not on every kernel's launch). Its HOME
    and MPLCONFIGDIR are a folder the ForkServer makes and removes when it stops."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
            **KERNEL_ENV}


SEED_ENV = "GRADER_KERNEL_SEED"  # an int: every forked kernel seeds random, numpy and torch with it (comparisons only)


class _ForkedLaunch:
    """Kernel managers whose kernel is forked from the fork server instead of started as a new process."""

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        from grading.sandbox import forkserver

        request = self.fork_request(kw)
        if os.environ.get(SEED_ENV, "").isdigit():  # the same draws in every run: the lesson's torch.rand cells too
            request["seed"] = int(os.environ[SEED_ENV])
        reply = fork_server().request(request)
        if "error" in reply:
            raise SandboxUnavailable(reply["error"])
        provisioner = self.provisioner
        provisioner.process = forkserver.ForkedProcess(reply["pid"])
        provisioner.pid, provisioner.pgid = reply["pid"], None
        self._reconcile_connection_info(provisioner.connection_info)


class ForkedKernelManager(_ForkedLaunch, HarnessKernelManager):
    """A forked grading kernel without the sandbox (--unsafe-no-sandbox)."""

    def fork_request(self, kw):
        return {"connection_file": self.connection_file, "helpers": self.helpers_path, "log": os.devnull,
                "cwd": kw.get("cwd") or os.getcwd(), "env": {**(kw.get("env") or os.environ), **KERNEL_ENV}}


class ForkedSandboxedKernelManager(_ForkedLaunch, SandboxedKernelManager):
    """A forked grading kernel in its own sandbox: the same view and limits as the bubblewrap one."""

    def fork_request(self, kw):
        self._give_connection_file()
        spec = sandbox_spec(self.private_dir, self.sandbox_user, self._files(), helper_files(self.helpers_path),
                            cgroup=self.cgroup)
        return {"connection_file": self.connection_file, "helpers": f"{GRADER_DIR}/helpers.py",
                "log": os.path.join(self.private_dir, "kernel.log"), "env": sandbox_env(self._env()),
                "sandbox": spec}


def kernel_manager_class():
    """The kernel manager for this grading run: sandboxed or not (--unsafe-no-sandbox), forked or cold."""
    if unsafe():
        return HarnessKernelManager if cold() else ForkedKernelManager
    return SandboxedKernelManager if cold() else ForkedSandboxedKernelManager
