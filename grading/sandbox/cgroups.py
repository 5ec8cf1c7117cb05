"""One cgroup per sandbox: its memory and its processes are limited together, not per process or per uid.

``setup()`` finds, once per grading process, where this grader may make cgroups:

- cgroup v2 with the memory and pids controllers offered to (and enabled below) the base cgroup, or
- cgroup v1 hierarchies of the memory and pids controllers (as on the course machine and CI).

The base is ``base_path()``: ``$GRADER_CGROUP`` when set, else, as root, the grader's own cgroup in each
hierarchy, and as an ordinary user the folder root delegated to that user (``delegated_path``, made by
``delegate``, which hub/classroom.py runs for the instructor). Each setup is proven by making a cgroup,
setting its limits, entering it and removing it; where none works, ``setup()`` returns None and ``why_not()`` says why.

``SandboxCgroup`` is one sandbox's cgroup (``nbg-<grader pid>-<random>`` in each hierarchy): a memory limit
(with swap counted: ``memory.memsw.limit_in_bytes`` or ``memory.swap.max``, where they exist; the kernel's
OOM killer ends a process of that sandbox when it is full) and a process and thread limit. The sandbox's
first process enters it before any student code runs (``enter_command`` for bubblewrap; a forked kernel
writes itself, grading/sandbox/forkserver.py); ``remove`` kills what is left in it and removes it;
``remove_stale`` removes those of graders that are gone.
"""

import os
import pwd
import secrets
import signal
import time

MEMORY = 2 * 2**30    # bytes per sandbox, every process of it and its tmpfs pages together
PIDS = 256            # processes and threads per sandbox
ENV = "GRADER_CGROUP"  # the cgroup (a path inside each hierarchy) under which the sandboxes' cgroups are made
CONTROLLERS = ("memory", "pids")


def delegated_path(user):
    """The cgroup delegated to ``user`` (the hub's instructor), the same path in each hierarchy."""
    return f"/level23-{user}"


def _mounts():
    """{"v2": mount point or None, "memory": (mount point, mount root) or None, "pids": ...}."""
    found = {"v2": None, "memory": None, "pids": None}
    for line in open("/proc/self/mountinfo"):
        fields = line.split()
        kind, options = fields[fields.index("-") + 1], fields[-1].split(",")
        if kind == "cgroup2" and not found["v2"]:
            found["v2"] = (fields[4], fields[3])
        elif kind == "cgroup":
            for controller in CONTROLLERS:
                if controller in options and not found[controller]:
                    found[controller] = (fields[4], fields[3])
    return found


def _own(controller):
    """This process's cgroup in a v1 hierarchy (``controller``), or in v2 (None)."""
    for line in open("/proc/self/cgroup"):
        number, controllers, path = line.rstrip("\n").split(":", 2)
        if (controller is None and number == "0") or (controller in controllers.split(",")):
            return path
    return "/"


def _join(mount, path):
    mount_point, mount_root = mount
    if mount_root != "/" and (path + "/").startswith(mount_root + "/"):
        path = path[len(mount_root):]
    return os.path.join(mount_point, path.strip("/")).rstrip("/")


def base_path(controller=None):
    """The cgroup under which this grader makes one per sandbox (one place: see the module's docstring)."""
    if os.environ.get(ENV):
        return os.environ[ENV]
    if os.geteuid() == 0:
        return _own(controller)
    return delegated_path(pwd.getpwuid(os.geteuid()).pw_name)


class Setup:
    """Where this grader makes its sandboxes' cgroups: ``version`` 1 or 2, ``bases`` one folder per hierarchy."""

    def __init__(self, version, bases):
        self.version, self.bases = version, bases

    def describe(self):
        return f"cgroup v{self.version} ({', '.join(self.bases)})"


def _write(path, value):
    with open(path, "w") as fh:
        fh.write(str(value))


def _find():
    """(Setup, None) when cgroups per sandbox work here, else (None, why)."""
    mounts = _mounts()
    why = []
    if mounts["v2"]:
        base = _join(mounts["v2"], base_path())
        try:
            offered = set(open(os.path.join(base, "cgroup.controllers")).read().split())
            missing = [c for c in CONTROLLERS if c not in offered]
            if not missing:
                enabled = set(open(os.path.join(base, "cgroup.subtree_control")).read().split())
                if not set(CONTROLLERS) <= enabled:
                    _write(os.path.join(base, "cgroup.subtree_control"), " ".join(f"+{c}" for c in CONTROLLERS))
                return _proven(Setup(2, [base]), why)
            why.append(f"the cgroup v2 hierarchy offers {' '.join(sorted(offered)) or 'no controller'} at {base}, "
                       f"not {' or '.join(missing)}")
        except FileNotFoundError:
            why.append(f"cgroup v2: {base} does not exist")
        except OSError as exc:
            why.append(f"cgroup v2 at {base}: {exc.strerror} ({exc.filename})")
    if mounts["memory"] and mounts["pids"]:
        bases = [_join(mounts[c], base_path(c)) for c in CONTROLLERS]
        return _proven(Setup(1, bases), why)
    why.append("no cgroup v1 hierarchy of " + " and ".join(c for c in CONTROLLERS if not mounts[c]))
    return None, "; ".join(why)


def _proven(candidate, why):
    """(candidate, None) if a sandbox's cgroup can be made, limited, entered and removed there, else (None, why)."""
    hint = (f"; graded as an ordinary user, root delegates {delegated_path('USER')} (grading.sandbox.cgroups.delegate, as "
            "`make hub` does for the instructor)" if os.geteuid() else "")
    absent = [base for base in candidate.bases if not os.path.isdir(base)]
    if absent:
        why.append(f"cgroup v{candidate.version}: {', '.join(absent)} does not exist{hint}")
        return None, "; ".join(why)
    try:
        probe = SandboxCgroup(candidate, memory=64 * 2**20, pids=8)
    except OSError as exc:
        why.append(f"{candidate.describe()}: a cgroup cannot be made or limited there "
                   f"({exc.strerror}: {exc.filename}){hint}")
        return None, "; ".join(why)
    import subprocess

    entered = subprocess.run(probe.enter_command(["true"]), capture_output=True, text=True)
    probe.remove()
    if entered.returncode:  # e.g. cgroup v2 as an ordinary user outside the delegated subtree
        why.append(f"{candidate.describe()}: a process cannot enter a cgroup there "
                   f"({entered.stderr.strip().splitlines()[-1] if entered.stderr.strip() else entered.returncode})")
        return None, "; ".join(why)
    return candidate, None


_FOUND = []


def setup():
    """This grading process's cgroup setup (found once), or None where no cgroup per sandbox can be made."""
    if not _FOUND:
        _FOUND.append(_find())
    return _FOUND[0][0]


def why_not():
    setup()
    return _FOUND[0][1]


class SandboxCgroup:
    """One sandbox's cgroup, in each hierarchy of the setup, with its limits set."""

    def __init__(self, where=None, memory=MEMORY, pids=PIDS):
        where = where or setup()
        self.version, self.memory, self.pids = where.version, memory, pids
        name = f"nbg-{os.getpid()}-{secrets.token_hex(4)}"
        self.dirs = [os.path.join(base, name) for base in where.bases]
        made = []
        try:
            for folder in self.dirs:
                os.mkdir(folder)
                made.append(folder)
            self._limit()
        except OSError:
            for folder in made:
                os.rmdir(folder)
            raise

    def _limit(self):
        if self.version == 2:
            folder = self.dirs[0]
            _write(f"{folder}/memory.max", self.memory)
            if os.path.exists(f"{folder}/memory.swap.max"):
                _write(f"{folder}/memory.swap.max", 0)
            _write(f"{folder}/memory.oom.group", 0)  # the OOM killer ends one process, not the whole sandbox
            _write(f"{folder}/pids.max", self.pids)
            return
        memory, pids = self.dirs
        _write(f"{memory}/memory.limit_in_bytes", self.memory)
        if os.path.exists(f"{memory}/memory.memsw.limit_in_bytes"):  # memory and swap together: no swapping past it
            _write(f"{memory}/memory.memsw.limit_in_bytes", self.memory)
        _write(f"{memory}/memory.oom_control", 0)  # the kernel's OOM killer acts (never a frozen sandbox)
        _write(f"{pids}/pids.max", self.pids)

    @property
    def procs_files(self):
        """The files a process writes its pid to, to enter this cgroup (all its later children are in it too)."""
        return [f"{folder}/cgroup.procs" for folder in self.dirs]

    def enter(self, pid=0):
        """Put ``pid`` (this process: 0) into this cgroup, in each hierarchy."""
        for procs in self.procs_files:
            _write(procs, pid or os.getpid())

    def enter_command(self, command):
        """``command`` run by a shell that first enters this cgroup: bubblewrap and all it starts are in it."""
        script = ('n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || { echo "the sandbox could not enter '
                  'its cgroup ($1)" >&2; exit 126; }; shift; n=$((n-1)); done; exec "$@"')
        return ["/bin/sh", "-c", script, "sh", str(len(self.procs_files)), *self.procs_files, *command]

    def pids_in(self):
        found = set()
        for procs in self.procs_files:
            try:
                found.update(int(p) for p in open(procs).read().split())
            except OSError:
                pass
        return found

    def kill(self):
        """Kill every process in this cgroup (each hierarchy; cgroup.kill where there is one): True if any was left."""
        left = self.pids_in()
        if left:
            kill = os.path.join(self.dirs[0], "cgroup.kill")
            if os.path.exists(kill):
                _write(kill, 1)
            else:
                for pid in left:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
        return bool(left)

    def remove(self, timeout=10):
        """Kill what is left in this cgroup, then remove it (each hierarchy), waiting ``timeout`` seconds at most."""
        end = time.monotonic() + timeout
        while self.kill() and time.monotonic() < end:
            time.sleep(0.002)
        for folder in self.dirs:
            while True:
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:  # EBUSY: a process killed a moment ago is not yet gone
                    if time.monotonic() >= end:
                        raise
                    time.sleep(0.002)

    @classmethod
    def _existing(cls, version, dirs):
        self = cls.__new__(cls)
        self.version, self.dirs = version, dirs
        return self


STALE_WAIT = 5  # seconds that a starting grader waits, for all the left cgroups together, for their processes to go


def remove_stale(timeout=STALE_WAIT):
    """Remove the sandboxes' cgroups left by graders that are gone (killed past a deadline: no cleanup ran).

    Every left cgroup's processes are killed first, and then all are waited for together until one deadline:
    a worker that starts after many killed graders waits ``timeout`` at most, not ``timeout`` for each cgroup.
    Another grader may remove the same cgroups meanwhile: what is gone is skipped."""
    where = setup()
    if where is None:
        return
    names = set()
    for base in where.bases:
        try:
            names.update(entry.name for entry in os.scandir(base) if entry.is_dir())
        except OSError:
            pass
    stale = []
    for name in sorted(names):
        parts = name.split("-")
        if len(parts) != 3 or parts[0] != "nbg" or not parts[1].isdigit() or os.path.exists(f"/proc/{parts[1]}"):
            continue
        group = SandboxCgroup._existing(where.version, [d for d in (os.path.join(b, name) for b in where.bases)
                                                        if os.path.isdir(d)])
        try:
            group.kill()
        except OSError:
            continue
        stale.append(group)
    end = time.monotonic() + timeout
    for group in stale:
        try:
            group.remove(timeout=max(0.0, end - time.monotonic()))
        except OSError:
            pass


def make():
    """A new sandbox's cgroup, or None where this grader can make none (``why_not``)."""
    return SandboxCgroup() if setup() else None


WORKER_MEMORY = 1536 * 2**20  # bytes for one grading worker itself (nbgrader, its client of the kernel), not its kernels
WORKER_PIDS = 1024


def confine_worker(memory=WORKER_MEMORY, limited="each grading worker's own memory",
                   unlimited="the grading workers' own memory"):
    """Put this grading process (a worker of `make grade`, or a plain `nbgrader autograde`: confine_plain_autograde)
    into a cgroup of its own with ``memory`` (issue 41): a student who makes the grader itself hold memory costs that
    worker (the OOM killer ends it, the student is listed as not graded and a fresh worker carries on), never the
    host. The sandboxes it starts have their own cgroups beside it. Returns a sentence saying which limit holds."""
    if setup() is None:
        return f"{unlimited} is not limited by a cgroup here: {why_not()}"
    try:
        SandboxCgroup(memory=memory, pids=WORKER_PIDS).enter()
    except OSError as e:
        return f"{unlimited} is not limited by a cgroup here: {e}"
    return f"{limited} is limited to {memory / 2**30:g} GiB by cgroup (v{setup().version})"


PLAIN_MEMORY = WORKER_MEMORY  # bytes for one plain `nbgrader autograde` itself: it grades the class one by one
PLAIN_MEMORY_ENV = "GRADER_AUTOGRADE_MEMORY_MB"  # another size for it, in MiB
_CONFINED = []


def confine_plain_autograde(argv=None):
    """Where this process is the plain ``nbgrader autograde`` command (nbgrader_config.py calls this as nbgrader
    reads it), put it into a cgroup of its own with PLAIN_MEMORY, as each worker of `make grade` is (issue 41 item 4);
    the sandboxes' cgroups are made beside it. Returns the sentence saying which limit holds, or None for any other
    command (generate_feedback, the formgrader's server, make grade's workers, which confine themselves)."""
    import sys

    from grading.sandbox import kernels

    argv = sys.argv if argv is None else argv
    if len(argv) < 2 or os.path.basename(argv[0]) != "nbgrader" or argv[1] != "autograde":
        return None
    if _CONFINED:  # nbgrader reads its config file more than once
        return None
    _CONFINED.append(True)
    if kernels.unsafe():
        return "this nbgrader autograde's own memory is not limited by a cgroup: the sandbox is off"
    try:
        memory = int(float(os.environ[PLAIN_MEMORY_ENV]) * 2**20) if os.environ.get(PLAIN_MEMORY_ENV) else PLAIN_MEMORY
    except ValueError:
        memory = PLAIN_MEMORY
    return confine_worker(memory, limited="this nbgrader autograde's own memory",
                          unlimited="this nbgrader autograde's own memory")


def note():
    """How each sandbox's memory and processes are limited by cgroup here, or None (then: why_not())."""
    where = setup()
    if where is None:
        return None
    return (f"memory and processes are limited per sandbox by cgroup (v{where.version}): {MEMORY // 2**30} GiB "
            f"(swap included), {PIDS} processes and threads, under {', '.join(where.bases)}")


# --- as root, for an ordinary user who grades (the hub's instructor): a delegated cgroup -----------------------

def delegate(user):
    """Make the cgroup ``delegated_path(user)`` in each hierarchy and give it to ``user`` (run as root).

    v1: the folder and its cgroup.procs and tasks are the user's, who can then make a cgroup per sandbox in it
    and move its own processes there. v2: the folder and its cgroup.procs, cgroup.threads and
    cgroup.subtree_control, with memory and pids enabled for it. Returns the folders made (none where this
    machine has neither); raises OSError when they cannot be made.
    """
    mounts = _mounts()
    entry = pwd.getpwnam(user)
    made = []
    if mounts["memory"] and mounts["pids"]:
        targets = [(_join(mounts[c], delegated_path(user)), ("cgroup.procs", "tasks")) for c in CONTROLLERS]
    elif mounts["v2"]:
        root = mounts["v2"][0]
        _write(os.path.join(root, "cgroup.subtree_control"), " ".join(f"+{c}" for c in CONTROLLERS))
        targets = [(_join(mounts["v2"], delegated_path(user)), ("cgroup.procs", "cgroup.threads",
                                                                "cgroup.subtree_control"))]
    else:
        return made
    for folder, files in targets:
        os.makedirs(folder, exist_ok=True)
        for path in [folder, *(os.path.join(folder, f) for f in files)]:
            os.chown(path, entry.pw_uid, entry.pw_gid)
        made.append(folder)
    return made


def undelegate(user):
    """Remove ``delegated_path(user)`` and the sandboxes' cgroups in it (killing what is left in them)."""
    mounts = _mounts()
    for mount in [mounts[c] for c in CONTROLLERS] + [mounts["v2"]]:
        if not mount:
            continue
        folder = _join(mount, delegated_path(user))
        if not os.path.isdir(folder):
            continue
        for entry in os.scandir(folder):
            if entry.is_dir():
                SandboxCgroup._existing(2 if mount is mounts["v2"] else 1, [entry.path]).remove(timeout=5)
        SandboxCgroup._existing(2 if mount is mounts["v2"] else 1, [folder]).remove(timeout=5)
