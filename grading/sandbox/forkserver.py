"""Forked grading kernels: a prepared parent forks each notebook's kernel, inside its own sandbox.

A cold grading kernel spends seconds importing Python, IPython, ipykernel and torch;
checking the student's code takes milliseconds. Here one
long-lived parent per grading process (the *fork server*, this file run as a script)
imports all of that once. For each notebook the grader asks it for a kernel and it forks:

    fork server (root, imports done, one thread, no event loop, no zmq context)
      └─ kernel: PID 1 of its own PID namespace (the server forks it with its children's PID namespace set to
         a new one, then sets it back to its own); enters the sandbox's cgroup (grading/sandbox/cgroups.py:
         memory and processes per sandbox), leaves the grader's other namespaces (mount, network, IPC, UTS,
         cgroup); builds its own root file system (the same view as the bubblewrap sandbox of
         grading/sandbox/kernels.py), pivots into it, sets the limits, drops to a fresh unprivileged uid with no
         capabilities and no_new_privs, closes every inherited file, clears the environment, reseeds the random
         generators, and only then becomes an ordinary IPython kernel (grading/sandbox/kernel_harness.py) with
         its own zmq context, event loop and IPC sockets in its private folder.

The kernel reports on a pipe that it is in its sandbox (or why it is not); the server answers the grader with its
pid. The grader holds a pidfd of the kernel to poll, signal and kill it (``ForkedProcess``). (A waiter process
between the server and each kernel, which took the new namespaces and waited, cost every kernel one more fork
and exit of the server's 190 MB: issue 24.)

Nothing a student's code does in one kernel reaches the next: each child starts from
the server's state, which no student code has touched, and the server never runs any.

Requests are JSON lines on the server's stdin; each reply is one JSON line on stdout.

``make grade`` starts one server for all its workers instead (``--listen PATH``, ``serve_shared``):
requests come as messages on a Unix socket, one connection per worker, and the server forks
the workers themselves too, so the class pays for torch, IPython and the rest once, not once
per worker (the server's imports cost a worker as much CPU as grading a few students). A
worker's kernels die with its connection: the server holds a pidfd of each and kills them when
the worker is gone, as the per-worker server's kernels die with their server.
"""

import ctypes
import gc
import json
import os
import platform
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPT = Path(__file__).resolve()

# Linux constants (linux/sched.h, linux/mount.h, linux/prctl.h)
CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x02000000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG = 1
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(platform.machine(), 155)
SANDBOX_NAMESPACES = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")

_libc = ctypes.CDLL(None, use_errno=True)

try:  # imported as grading.sandbox.forkserver by the grader, or run as a script (the server) from grading/sandbox/
    from grading.sandbox import sandbox_init
except ImportError:
    import sandbox_init


def _check(result, what):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source, target, fstype=None, flags=0, data=None):
    enc = lambda s: s.encode() if s is not None else None  # noqa: E731
    _check(_libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
           f"mount {source or fstype or ''} on {target}".replace("  ", " "))


def _prctl(option, value):
    _check(_libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0), f"prctl {option}")


# --- the child's side: enter the sandbox, become a kernel ----------------------------------------------

def _build_root(spec):
    """Mount the sandbox's file system under a fresh root and pivot into it (run as root, new namespaces)."""
    private = spec["private_dir"]
    root = os.path.join(private, ".root")
    os.makedirs(root, exist_ok=True)
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,mode=0755")

    def place(path, is_dir):
        target = root + path
        os.makedirs(target if is_dir else os.path.dirname(target), mode=0o755, exist_ok=True)
        if not is_dir and not os.path.exists(target):
            open(target, "w").close()
        return target

    def bind(source, path, ro=True, recursive=True):
        target = place(path, os.path.isdir(source))
        _mount(source, target, None, MS_BIND | (MS_REC if recursive else 0))
        if ro:
            _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)

    def tmpfs(path, size, mode, inodes):
        _mount("tmpfs", place(path, True), "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},nr_inodes={inodes},mode={mode}")

    scratch = {path: (size, inodes, mode) for path, size, inodes, mode in spec["scratch"]}

    bind("/usr", "/usr")
    for link in ("bin", "sbin", "lib", "lib64", "lib32", "libx32"):
        if os.path.islink(f"/{link}"):
            os.symlink(os.readlink(f"/{link}"), f"{root}/{link}")
    for extra in ("/etc/ld.so.cache", "/etc/localtime", "/etc/fonts", "/etc/ssl/certs"):
        if os.path.exists(extra):
            bind(extra, extra)
    # Scratch file systems first, so a Python environment under /tmp is bound on top of them.
    for path in ("/tmp", "/home/student"):
        size, inodes, mode = scratch[path]
        tmpfs(path, size, mode, inodes)
    os.chown(place(spec["workdir"], True), spec["uid"], spec["uid"])  # the student may write there
    tmpfs("/dev", "64k", "0755", 64)
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            bind(f"/dev/{name}", f"/dev/{name}", ro=False, recursive=False)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{root}/dev/{name}")
    size, inodes, mode = scratch["/dev/shm"]
    tmpfs("/dev/shm", size, mode, inodes)
    _mount(None, root + "/dev", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)  # /dev/shm stays writable
    for python_root in spec["python_roots"]:
        bind(python_root, python_root)
    for real, alias in spec.get("python_aliases", ()):
        bind(real, alias)
    for host, name in spec["grader_files"]:
        bind(host, f"{spec['grader_dir']}/{name}")
    for host, rel in spec["files"]:
        bind(host, f"{spec['workdir']}/{rel}")
    bind(private, private, ro=False, recursive=False)
    _mount("proc", place("/proc", True), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    os.chdir(root)
    os.mkdir(".old")
    _check(_libc.syscall(SYS_PIVOT_ROOT, b".", b".old"), "pivot_root")
    os.chdir("/")
    _check(_libc.umount2(b"/.old", MNT_DETACH), "umount old root")
    os.rmdir("/.old")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def enter_sandbox(spec):
    """From root in fresh namespaces to an unprivileged user in its own file system, with limits."""
    import socket

    _build_root(spec)
    socket.sethostname("sandbox")
    sandbox_init.set_limits_and_drop(spec["limits"], spec["uid"])  # the same limits and drop as bubblewrap's
    os.chdir(spec["workdir"])


def _fresh_process_state(request):
    """What a new process would have: its environment, argv, sys.path, random states."""
    import random

    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[:] = BASE_PATH
    sys.argv[:] = ["grading-kernel", "-f", request["connection_file"]] if "connection_file" in request else ["-"]
    seed = request.get("seed")  # None: from the system's randomness, as a fresh process; an int only for comparisons
    random.seed(seed)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(seed)
    torch = sys.modules.get("torch")
    if torch is not None:  # a fresh process seeds torch's generator from the system's randomness; so does each child
        torch.seed() if seed is None else torch.manual_seed(seed)


def _redirect(log):
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    os.close(null)


def _kernel(request, status_fd):
    """The kernel process (PID 1 of its namespace when sandboxed), just forked by the server. Never returns."""
    try:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the server's children are reaped unasked; the kernel's are not
        _redirect(request["log"])
        if request.get("sandbox"):
            for procs in request["sandbox"].get("cgroup", ()):  # the sandbox's cgroup (grading/sandbox/cgroups.py),
                with open(procs, "w") as fh:                    # as root, before its cgroup namespace exists
                    fh.write(str(os.getpid()))
            _check(_libc.unshare(SANDBOX_NAMESPACES & ~CLONE_NEWPID), "unshare")  # its PID namespace: the server's fork
            enter_sandbox(request["sandbox"])
            # A change of uid clears the parent-death signal: set it again. Had the server died already,
            # the "ok" below would find no reader and this child would stop there.
            _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        else:
            os.chdir(request["cwd"])
        _fresh_process_state(request)
        _use_compiled()
        os.write(status_fd, b"ok")
    except BaseException as exc:  # the grader gets the reason; no student code has run
        os.write(status_fd, f"the forked kernel could not enter its sandbox: {exc}".encode()[:2000])
        os._exit(126)
    os.closerange(3, 65536)  # the server's pipes and anything else inherited: gone before student code
    code = 0
    try:
        if "python" in request:  # a plain program instead of a kernel (the sandbox's own check and tests)
            exec(compile(request["python"], "<sandboxed program>", "exec"), {"__name__": "__main__"})
        else:
            HARNESS.launch(HARNESS.load_private(request["helpers"]))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush() if sys.stdout else None
        os._exit(code)


def _read_to_end(fd):
    """All that is written to the pipe ``fd`` until every writer has closed it; ``fd`` is closed then."""
    data = b""
    while chunk := os.read(fd, 65536):
        data += chunk
    os.close(fd)
    return data


PID_NAMESPACE = []  # the server's own PID namespace (an open /proc/self/ns/pid), to set its children's back to


def _fork_kernel(request, status_w, closing=()):
    """Fork the kernel for ``request``, which reports on ``status_w`` (the server closes it after this); ``closing``:
    descriptors of the server the child closes at once. A sandboxed kernel is forked into a new PID namespace, whose
    PID 1 it is: the server sets the namespace of its next child, forks, and sets it back to its own at once (its
    next child, a kernel or a worker, must not be a second process of this kernel's namespace: if that fails, the
    server stops). The pid, as the server sees it."""
    sandboxed = bool(request.get("sandbox"))
    sys.stdout.flush()
    sys.stderr.flush()
    if sandboxed:
        if not PID_NAMESPACE:
            PID_NAMESPACE.append(os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC))
        _check(_libc.unshare(CLONE_NEWPID), "unshare")
    pid = None
    try:
        pid = os.fork()
    finally:
        if sandboxed and pid != 0 and _libc.setns(PID_NAMESPACE[0], CLONE_NEWPID) != 0:  # the server (or no fork)
            try:
                sys.stderr.write(f"fork server: cannot set its children's PID namespace back "
                                 f"({os.strerror(ctypes.get_errno())}): stopping\n")
            finally:
                os._exit(1)  # whatever the write does; its kernels go with it (their parent-death signal)
    if pid == 0:
        try:
            for fd in closing:
                os.close(fd)
            _kernel(request, status_w)
        finally:
            os._exit(127)
    return pid


def _status_reply(pid, status):
    """The server's answer for a kernel that reported ``status`` on its pipe (b"ok", or why it could not start)."""
    if status == b"ok":
        return {"pid": pid}
    return {"error": status.decode(errors="replace") or "the forked kernel stopped before it started"}


# --- the course's helper modules, compiled once per run -----------------------------------------------

COMPILED = {}  # (sha256 of a module's source, the path a kernel imports it from): the code compile gave
_COMPILED_FROM = {}  # (host file, path in the sandbox): (mtime, size) of the file when it was compiled
MAX_COMPILED_BYTES = 1 << 21


def precompile(request):
    """Compile the course's trusted helper modules for the paths a sandboxed kernel imports them from, once
    per run: the trusted helpers (``/grader/helpers.py``) and each ``*.py`` beside them in the instructor's
    folder (spec_checks.py, spec_widgets.py, spec_quiz.py) as the student's copy in the working folder. Every
    kernel compiled those files from source, twice for spec_checks (no bytecode is written in a sandbox): a
    fortieth of its CPU. Only the instructor's files are read here, never a student's."""
    spec = request.get("sandbox")
    if not isinstance(spec, dict):
        return
    import hashlib

    for host, name in spec.get("grader_files", []):
        if name != "helpers.py":
            continue
        folder = os.path.dirname(host)
        targets = [(host, f"{spec['grader_dir']}/{name}")] + [
            (os.path.join(folder, f), f"{spec['workdir']}/{f}") for f in sorted(os.listdir(folder)) if f.endswith(".py")]
        for path, target in targets:
            try:
                st = os.stat(path)
                if _COMPILED_FROM.get((path, target)) == (st.st_mtime_ns, st.st_size) or st.st_size > MAX_COMPILED_BYTES:
                    continue
                with open(path, "rb") as fh:
                    data = fh.read()
                code = compile(data, target, "exec", dont_inherit=True, optimize=-1)  # what the import's loader does
            except (OSError, SyntaxError, ValueError):
                continue  # the kernel compiles it itself, and reports what it reports
            COMPILED[(hashlib.sha256(data).digest(), target)] = code
            _COMPILED_FROM[(path, target)] = (st.st_mtime_ns, st.st_size)
            if target.startswith(spec["workdir"] + "/"):  # the trusted copy's errors reach the grader as data, never
                warm_source(target, data)                  # as a traceback (kernel_harness.answer): 0.2 s a run saved
            gc.freeze()  # what was just built (code, a Source: some ten thousand objects) is walked by no kernel


def warm_source(target, data):
    """stack_data's Source of a helper module (its bytes ``data``) at ``target``, the path a kernel reads it from,
    built as a traceback through it builds it: its syntax tree, tokens and pieces. A kernel's first traceback
    through spec_checks (most wrong answers fail a visible check there) spent about 40 ms building it. stack_data
    keeps Sources by file name and lines: a kernel whose file holds these very lines (read as linecache reads
    them) gets this one; a student's edited copy is read and built as before."""
    import io
    import tokenize

    import stack_data

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        lines = io.TextIOWrapper(io.BytesIO(data), encoding, line_buffering=True).readlines()  # as tokenize.open
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"  # what linecache does
        source = stack_data.Source._for_filename_and_lines(target, tuple(lines))
        if source.tree is not None:
            source.pieces, source.tokens_by_lineno, source.asttext()  # noqa: B018 - computed once, kept on it
    except Exception:  # noqa: BLE001 - a warm-up only: the kernel builds what it needs itself
        pass


def compiled_source_to_code(original, table):
    """``SourceLoader.source_to_code``, answering from ``table`` when the source's bytes and path are there:
    the code compile gives for those very bytes and that path. Any other source (a student's edited copy, any
    other module) is compiled as before."""
    import hashlib

    def source_to_code(self, data, path, *, _optimize=-1):
        if _optimize == -1 and type(data) is bytes:
            code = table.get((hashlib.sha256(data).digest(), path))
            if code is not None:
                return code
        return original(self, data, path, _optimize=_optimize)

    return source_to_code


def _use_compiled():
    if COMPILED:
        from importlib import _bootstrap_external

        loader = _bootstrap_external.SourceLoader
        loader.source_to_code = compiled_source_to_code(loader.source_to_code, COMPILED)


def _start_kernel(request):
    """(pid, the read end of the pipe it reports on) of a kernel forked for ``request``."""
    precompile(request)
    status_r, status_w = os.pipe()
    try:
        pid = _fork_kernel(request, status_w, [status_r])
    except BaseException:
        os.close(status_r)
        raise
    finally:
        os.close(status_w)
    return pid, status_r


def spawn(request):
    """Fork one kernel for ``request``; its pid, or the reason it could not start."""
    pid, status_r = _start_kernel(request)
    return _status_reply(pid, _read_to_end(status_r))


# --- the server ---------------------------------------------------------------------------------------

BASE_PATH = []
HARNESS = None  # grading/sandbox/kernel_harness.py, loaded by the server (the sandbox does not mount grading/)


def _harness():
    import importlib.util

    spec = importlib.util.spec_from_file_location("_grading_kernel_harness", HERE / "kernel_harness.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# What every notebook imports while it is graded, and what every kernel imports as it starts (its debugger and
# IPython's, history, the %store extension, tornado's asyncio loop, numpy). Not matplotlib, pyplot or ipywidgets:
# while nbgrader runs a notebook its figures are skipped and its widgets are static pictures, so no graded kernel
# imports them (tests/test_grader_speedups.py), and importing them here cost every fork server 0.8 CPU-s.
PREWARM = ("torch", "IPython", "ipykernel.kernelapp",
           "ipykernel.ipkernel", "ipykernel.zmqshell", "ipykernel.debugger", "IPython.core.history", "pdb",
           "IPython.core.debugger", "IPython.extensions.storemagic", "tornado.platform.asyncio",
           "sqlite3", "numpy", "numpy.random", "comm", "jupyter_client.session", "psutil", "faulthandler",
           # what IPython's verbose traceback imports when a cell fails (most wrong answers' visible test does)
           "stack_data", "pygments.formatters", "pygments.lexers.python",
           # what a shell imports at its first cell, traceback or object inspection (tests/test_grader_speedups.py
           # lists what a shell still imports after this)
           "IPython.core.completerlib", "IPython.core.logger", "IPython.core.magics.namespace", "IPython.core.oinspect",
           "IPython.utils.wildcard", "pygments.styles.default", "torch._subclasses.schema_check_mode")


def prewarm():
    """Import what every notebook imports, once. Start no thread, event loop or zmq context."""
    import importlib

    for name in PREWARM:
        importlib.import_module(name)
    import torch

    torch.set_num_threads(1)
    warm_tracebacks()


WARM_UP_FILE = "/fork-server/warm-up-traceback.py"  # no such file: its source lives in linecache while it is formatted


def warm_tracebacks():
    """Format one exception as a kernel's cells are formatted (IPython's AutoFormattedTB with the shell's own
    defaults: its theme, mode and offset), so that every kernel starts with what the first formatting in a process
    builds and keeps: pygments' Python lexer (its regular expressions compiled per class), the theme's terminal
    styles, stack_data's and IPython's imports. Most wrong answers fail a visible test, so most kernels format
    one. Nothing of the warm-up stays where a kernel would see it: its source leaves linecache."""
    import linecache

    from IPython.core import ultratb
    from IPython.core.interactiveshell import InteractiveShell

    traits = InteractiveShell.class_traits()
    source = "def warm_up(values):\n    return values[1] / 0\n\nwarm_up([1, 2])\n"
    linecache.cache[WARM_UP_FILE] = (len(source), None, source.splitlines(True), WARM_UP_FILE)
    try:
        exec(compile(source, WARM_UP_FILE, "exec"), {})
    except ZeroDivisionError:
        formatter = ultratb.AutoFormattedTB(mode=traits["xmode"].default_value,
                                            theme_name=traits["colors"].default_value, tb_offset=1)
        formatter.structured_traceback(*sys.exc_info())
    finally:
        linecache.cache.pop(WARM_UP_FILE, None)


def imported_then_frozen(load):
    """``load()`` with Python's collector paused, then ``gc.freeze()``: what a process imports once, before it forks
    kernels or workers or grades a class (torch, IPython, nbgrader), is never walked by a collection. While the
    imports run, each of the collector's full passes walks the whole growing heap: the server's imports spent
    0.6 of their 2.3 CPU-s in them (gc.callbacks). Nothing is collected before the freeze: the imports' garbage
    is a few thousand objects, kept frozen; a collection of the whole heap cost 0.14 to 0.28 s. Frozen objects
    are also never written by a forked child's collections, so it copies none of their pages. Exceptions pass
    through, with the collector as it was."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        out = load()
    finally:
        if was_enabled:
            gc.enable()
    gc.freeze()
    return out


def threads():
    return len(os.listdir("/proc/self/task"))


def serve(warm=True, listen=None):
    here = str(HERE)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    BASE_PATH[:] = sys.path
    global HARNESS
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    # Every kernel is forked from this state: without freeze, each kernel's first garbage collections walk
    # every object the imports made (torch's included), writing to their pages, so the kernel copies most
    # of the server's memory; frozen objects are never walked (the cost of a kernel: benchmarks/sandbox_start.py).
    def imports():
        if warm:
            prewarm()
        return _harness()

    HARNESS = imported_then_frozen(imports)
    # Its HOME served the imports only (whatever they keep there): kernels and workers get homes of their own.
    # Removed now, so that a server killed with its grader leaves nothing behind either.
    if os.environ.get(HOME_ENV):
        import shutil

        shutil.rmtree(os.environ.pop(HOME_ENV), ignore_errors=True)
    # A traceback's frames are matched to their modules by inspect.getmodule, whose first call resolves the
    # real path of every module's file (thousands, with torch): done here once, every kernel starts with it.
    import inspect

    inspect.getmodule(prewarm.__code__, "<fork server>")  # a code object: no __module__ to short-cut it
    HARNESS.MODULES_LISTED = HARNESS.list_module_files()  # what each kernel's IPythonKernel lists, listed once
    if threads() != 1:
        print(json.dumps({"error": f"the fork server has {threads()} threads after its imports; forking is unsafe"}),
              flush=True)
        return 1
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # kernels (and workers) are reaped by Linux, never zombies
    if listen:
        return serve_shared(listen)
    out = sys.stdout
    out.write(json.dumps({"ready": os.getpid()}) + "\n")
    out.flush()
    for line in sys.stdin:
        try:
            request = json.loads(line)
            reply = {"threads": threads()} if request.get("ping") else spawn(request)
        except Exception as exc:  # a bad request gets an answer, and the server stays up
            reply = {"error": f"fork server: {exc}"}
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return 0


# --- one server for all of make grade's workers (--listen) ---------------------------------------------

MAX_MESSAGE = 1 << 17  # bytes of one request (a sandbox spec and an environment: a few KB; the socket takes ~200 KB)


class _Kernels:
    """The shared server's kernels, by worker connection: those that have not reported yet (their status pipes, read
    as they come: the server never waits on a kernel) and those running (a pidfd each, closed when the kernel
    exits). When a worker's connection closes, its kernels are killed."""

    def __init__(self):
        self.starting = {}  # status pipe's read end: [connection, pid, pidfd, bytes read]
        self.running = {}   # pidfd: connection

    def spawn(self, request, conn):
        pid, status_r = _start_kernel(request)
        try:
            pidfd = _child_pidfd(pid)
        except OSError:  # no descriptor for it (too many open): it cannot be watched, so it does not run
            os.kill(pid, signal.SIGKILL)
            os.close(status_r)
            raise
        self.starting[status_r] = [conn, pid, pidfd, b""]

    def fds(self):
        """What the server waits on: the starting kernels' status pipes, the running kernels' pidfds."""
        return [*self.starting, *self.running]

    def held(self):
        """Every descriptor of the kernels (a forked worker closes them): those of ``fds`` and the starting kernels'
        pidfds."""
        return [*self.fds(), *(entry[2] for entry in self.starting.values() if entry[2] is not None)]

    def ready(self, fd):
        """``fd`` (a status pipe or a pidfd) is readable: a kernel reported (answer its worker) or exited."""
        if fd in self.running:
            self.running.pop(fd)
            os.close(fd)
            return
        entry = self.starting[fd]
        chunk = os.read(fd, 65536)
        entry[3] += chunk
        if chunk and len(entry[3]) <= 4096:
            return  # more to come, or the end of the pipe
        del self.starting[fd]
        os.close(fd)
        conn, pid, pidfd, status = entry
        reply = _status_reply(pid, status[:4096])
        try:
            conn.send(json.dumps(reply).encode())
        except OSError:
            reply = {}  # the worker is gone
        if "pid" in reply and pidfd is not None:
            self.running[pidfd] = conn
        elif pidfd is not None:
            self._kill(pidfd)

    def worker_gone(self, conn):
        for fd, entry in list(self.starting.items()):
            if entry[0] is conn:
                del self.starting[fd]
                os.close(fd)
                if entry[2] is not None:
                    self._kill(entry[2])
        for pidfd, owner in list(self.running.items()):
            if owner is conn:
                del self.running[pidfd]
                self._kill(pidfd)

    @staticmethod
    def _kill(pidfd):
        try:
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)  # PID 1 of its namespace: every process in it goes too
        except ProcessLookupError:
            pass
        os.close(pidfd)


def _child_pidfd(pid):
    """A pidfd of the server's child ``pid``, just forked; None when it is gone already. The server's children are
    reaped as they exit (SIGCHLD ignored): a kernel that failed at once may be gone and its pid taken by another
    process before the pidfd is opened, so the pidfd's process must still be the server's child (no other child can
    have been forked since), or it is not this kernel's."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            parent = int(fh.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        parent = None
    if parent != os.getpid():
        os.close(pidfd)
        return None
    return pidfd


def _close_all(closing):
    """Close each of ``closing``: sockets, and descriptors (the server's kernels' pipes and pidfds)."""
    for item in closing:
        item.close() if hasattr(item, "close") else os.close(item)


def _run_worker(request, fds, closing):
    """The forked worker: a grading process like ``python -m <module> <args>`` in ``cwd`` with ``env``, whose
    stdin, stdout and stderr are ``fds``; it imports nbgrader and the grader on top of the server's imports."""
    import atexit
    import io
    import runpy

    code = 1
    try:
        _close_all(closing)  # the server's listener, connections and kernels are not the worker's
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()  # its own process group: the coordinator stops it and whatever it starts, as a Popen's
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), line_buffering=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), line_buffering=True)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path[:] = [request["cwd"], *BASE_PATH]
        sys.argv[:] = [request["module"], *request["args"]]
        try:
            runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            atexit._run_exitfuncs()
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - a closed pipe: nothing more to say
                pass
        os._exit(code)


ZYGOTE_TIMEOUT = 120  # seconds a worker template may take to import what its workers need, or to fork one


def _zygote(worker, sock, closing):
    """A worker template: in the first worker's folder, environment and sys.path, it runs the worker's preload
    (``worker["preload"]``, "module:function": nbgrader, the grader's modules, the course's config), then forks
    each worker asked for on ``sock`` (its three descriptors beside the request) and answers its pid. Workers
    forked from it skip those imports (about a CPU-second each). It forks no kernel and runs no student code:
    kernels are still forked by the server, which never imports the grader. Never returns."""
    import importlib
    import socket
    import traceback

    try:
        _close_all(closing)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # gone with the server
        null = os.open("/dev/null", os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)  # the server's stdout is its coordinator's protocol
        os.close(null)
        os.chdir(worker["cwd"])
        os.environ.clear()
        os.environ.update(worker["env"])
        sys.path[:] = [worker["cwd"], *BASE_PATH]
        module, _, function = worker["preload"].partition(":")
        imported_then_frozen(getattr(importlib.import_module(module), function))  # as the server's, for kernels
        if threads() != 1:
            raise RuntimeError(f"the worker template has {threads()} threads after its preload; forking is unsafe")
        sock.send(b'{"ready": 1}')
    except BaseException:
        traceback.print_exc()
        os._exit(1)
    while True:
        fds = []
        try:
            message, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE, 3)
            if not message:
                os._exit(0)
            reply = {"pid": _forked_worker(json.loads(message), fds, [sock])}
        except (OSError, ValueError) as exc:
            reply = {"error": f"worker template: {exc}"}
        finally:
            for fd in fds:
                os.close(fd)
        sock.send(json.dumps(reply).encode())


def _forked_worker(worker, fds, closing):
    """The pid of a worker forked from this process (the server or a template): ``_run_worker`` in the child."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _run_worker(worker, fds, closing)
    return pid


def _template_key(worker):
    """Which template forks ``worker``: requests alike in folder, environment, module and preload share one."""
    return json.dumps([worker.get("cwd"), worker.get("env"), worker.get("module"), worker["preload"]], sort_keys=True)


def _template_for(worker, templates, closing, in_hand=()):
    """The worker template (a socket to it) for requests like ``worker``, started on first use; None where the
    template could not start (the server then forks the worker itself).

    ``in_hand``: the descriptors of the request being answered (the first worker's stdin, stdout and stderr), which
    the template closes at once: a template that kept that worker's stdout open (and every worker forked from it,
    a copy) hid the worker's end from its coordinator, which saw a worker that died at start only at the start
    deadline, 300 s later."""
    import socket

    key = _template_key(worker)
    if key not in templates:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        sys.stdout.flush()
        sys.stderr.flush()
        if os.fork() == 0:
            try:
                ours.close()
                for fd in in_hand:
                    os.close(fd)
                _zygote(worker, theirs, [*closing, *(t for t in templates.values() if t)])
            finally:  # a template whose server is gone (its last answer cannot be sent) never returns into the server
                os._exit(1)
        theirs.close()
        ours.settimeout(ZYGOTE_TIMEOUT)
        try:
            ready = json.loads(ours.recv(MAX_MESSAGE) or b"{}").get("ready")
        except (OSError, ValueError):
            ready = None
        if not ready:
            ours.close()
        templates[key] = ours if ready else None
    return templates[key]


def _fork_worker(worker, fds, templates, closing):
    """The pid of a new worker: forked from its template where there is one, else from the server."""
    import socket

    template = _template_for(worker, templates, closing, fds) if isinstance(worker.get("preload"), str) else None
    if template is not None:
        try:
            socket.send_fds(template, [json.dumps(worker).encode()], fds)
            reply = json.loads(template.recv(MAX_MESSAGE))
            if "pid" in reply:
                return reply["pid"]
        except (OSError, ValueError):
            pass
        template.close()  # it failed once: the rest are forked here
        templates[_template_key(worker)] = None
    return _forked_worker(worker, fds, closing)


def serve_shared(path):
    """The server's loop for make grade: messages on a Unix socket at ``path``, one connection per worker.

    A message is a JSON request: a kernel (or a sandboxed program), as on stdin; ``{"ping": 1}``; or
    ``{"worker": {cwd, env, module, args[, preload]}}`` with three file descriptors (the worker's stdin, stdout
    and stderr), answered ``{"pid": ...}``; a worker with a preload is forked from a worker template that has
    run it (``_zygote``). The server stops when its stdin closes (the coordinator is done or gone).
    """
    import socket

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(64)
    conns = []
    templates = {}  # a worker template per kind of worker request (_template_for)
    kernels = _Kernels()
    out = sys.stdout
    out.write(json.dumps({"ready": os.getpid()}) + "\n")
    out.flush()
    while True:
        readable = select.select([sys.stdin.fileno(), listener, *conns, *kernels.fds()], [], [])[0]
        if sys.stdin.fileno() in readable and not os.read(sys.stdin.fileno(), 4096):
            return 0
        if listener in readable:
            conns.append(listener.accept()[0])
        for fd in readable:
            if type(fd) is int and fd in kernels.fds():
                kernels.ready(fd)
        for conn in [c for c in conns if c in readable]:
            fds = []
            try:
                message, fds, flags, _ = socket.recv_fds(conn, MAX_MESSAGE, 3)
            except OSError:
                message, flags = b"", 0
            if not message:  # the worker is gone, and so are its kernels
                kernels.worker_gone(conn)
                conns.remove(conn)
                conn.close()
                continue
            try:
                if flags & socket.MSG_TRUNC:
                    raise ValueError("the request is too long")
                request = json.loads(message)
                if request.get("ping"):
                    reply = {"threads": threads()}
                elif "worker" in request:
                    if len(fds) != 3:
                        raise ValueError("a worker needs its stdin, stdout and stderr")
                    reply = {"pid": _fork_worker(request["worker"], fds, templates,
                                                 [listener, *conns, *kernels.held(), *PID_NAMESPACE])}
                else:
                    kernels.spawn(request, conn)
                    reply = None  # answered when the kernel reports (_Kernels.ready)
            except Exception as exc:  # a bad request gets an answer, and the server stays up
                reply = {"error": f"fork server: {exc}"}
            finally:
                for fd in fds:
                    os.close(fd)
            if reply is not None:
                conn.send(json.dumps(reply).encode())


# --- the grader's side -----------------------------------------------------------------------------------

class ForkServerError(RuntimeError):
    pass


class ForkServer:
    """One prepared parent, started on first use and shared by every kernel of this grading process."""

    _instance = None
    _lock = threading.Lock()

    def __init__(self, env, log=None, warm=True, listen=None):
        """``warm=False``: a server that imports nothing in advance (for a quick check of the sandbox).
        ``listen``: the shared server of make grade's workers, at that socket path (``SharedForkServer``)."""
        import tempfile

        extra = ([] if warm else ["--cold"]) + (["--listen", str(listen)] if listen else [])
        # The server's HOME and matplotlib's folder, made here and removed when the server stops: one (with
        # matplotlib's font list, when the server still imported it) was left in /tmp by every server.
        self.home = tempfile.mkdtemp(prefix="nbg-forkserver-home-")
        env = {**env, "HOME": self.home, "MPLCONFIGDIR": self.home, HOME_ENV: self.home}
        try:
            self.proc = subprocess.Popen([sys.executable, str(SCRIPT), *extra], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=log or subprocess.DEVNULL, env=env, text=True,
                                         bufsize=1, cwd="/")
        except BaseException:
            self._remove_home()
            raise
        first = self._read(timeout=300)
        if "ready" not in first:
            self.stop()
            raise ForkServerError(first.get("error", "the fork server did not start"))

    @classmethod
    def shared(cls, make_env):
        """The running server, or a new one with the environment ``make_env()`` returns; in a worker of make
        grade (``SOCKET_ENV`` set), a connection to the server all its workers share."""
        with cls._lock:
            if os.environ.get(SOCKET_ENV):
                if cls._instance is None:
                    cls._instance = SharedForkServer(os.environ[SOCKET_ENV])
                return cls._instance
            if cls._instance is None or cls._instance.proc.poll() is not None:
                cls._instance = cls(make_env())
                import atexit

                atexit.register(cls._instance.close)
            return cls._instance

    def _read(self, timeout):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            return {"error": "the fork server stopped answering"}
        return json.loads(line)

    def request(self, request, timeout=120):
        with self._lock:
            try:
                self.proc.stdin.write(json.dumps(request) + "\n")
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError) as exc:
                return {"error": f"the fork server is gone: {exc}"}
            return self._read(timeout)

    def close(self):
        """End of the grading process: the server reads end-of-file and exits."""
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.stop()
        self._remove_home()

    def stop(self):
        try:
            self.proc.kill()
        except OSError:
            pass
        self.proc.wait()
        self._remove_home()

    def _remove_home(self):
        import shutil

        shutil.rmtree(self.home, ignore_errors=True)


SOCKET_ENV = "GRADER_FORK_SERVER_SOCKET"  # in make grade's workers: the shared server's socket
HOME_ENV = "GRADER_FORK_SERVER_HOME"  # the folder a ForkServer made for its server's HOME, which both remove


class SharedForkServer:
    """A worker's connection to the fork server all of make grade's workers share (``serve_shared``).

    The connection stays open for the worker's life: the server watches it, and a worker that dies
    (stopped at its deadline, say) takes its kernels with it.
    """

    def __init__(self, path):
        import socket

        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.connect(str(path))
        self._lock = threading.Lock()

    def request(self, request, timeout=120, fds=()):
        import socket

        with self._lock:
            self.sock.settimeout(timeout)
            try:
                socket.send_fds(self.sock, [json.dumps(request).encode()], list(fds))
                data = self.sock.recv(MAX_MESSAGE)
            except (OSError, socket.timeout) as exc:
                return {"error": f"the fork server stopped answering: {exc}"}
        if not data:
            return {"error": "the fork server stopped answering"}
        return json.loads(data)

    def close(self):
        self.sock.close()

    stop = close


class ForkedProcess:
    """A forked kernel, as jupyter_client's provisioner sees a Popen: poll, wait, signal, kill, by pidfd.

    The grader is not the kernel's parent, so its exit code is not known: a finished kernel
    reports -9 (the grader only needs to know that it is gone).
    """

    stdin = stdout = stderr = None

    def __init__(self, pid):
        self.pid, self.returncode = pid, None
        try:
            self._fd = os.pidfd_open(pid)
        except ProcessLookupError:
            self._fd, self.returncode = None, -9

    def _gone(self, timeout):
        if self.returncode is None and select.select([self._fd], [], [], timeout)[0]:
            os.close(self._fd)
            self._fd, self.returncode = None, -9
        return self.returncode

    def poll(self):
        return self._gone(0)

    def wait(self, timeout=None):
        end = None if timeout is None else time.monotonic() + timeout
        while self._gone(1 if end is None else max(0, min(1, end - time.monotonic()))) is None:
            if end is not None and time.monotonic() >= end:
                raise subprocess.TimeoutExpired("forked kernel", timeout)
        return self.returncode

    def send_signal(self, signum):
        if self.returncode is None and self.poll() is None:
            signal.pidfd_send_signal(self._fd, signum)

    def kill(self):
        self.send_signal(signal.SIGKILL)

    def terminate(self):
        self.send_signal(signal.SIGTERM)


if __name__ == "__main__":
    sys.exit(serve(warm="--cold" not in sys.argv,
                   listen=sys.argv[sys.argv.index("--listen") + 1] if "--listen" in sys.argv else None))
