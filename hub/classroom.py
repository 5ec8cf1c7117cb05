"""A JupyterHub classroom for the Level 23 course on this machine: set up, run, tear down.

    python hub/classroom.py run     # `make hub`: set up, start the hub, stop it on Ctrl-C
    python hub/classroom.py down    # `make hub-down`: remove the demo users, their homes and the hub root

Run as root: it creates local Unix users (all named with one prefix, so that tearing down
removes only them) and starts JupyterHub, which starts each user's server as that user.

What ``Classroom.setup()`` lays out (``root`` is /srv/level23-hub unless told otherwise):

    root/python     a copy of the Python that .venv was made from, when the users cannot read
                    the original (a pyenv under /root, which is 0700): hard links, no space
    root/venv       the course's environment (.venv), readable by every user: the same files
                    (hard links), its scripts pointing at root/venv
    root/exchange   nbgrader's exchange, mode 1777 (sticky), the course's folders made by the
                    instructor (grading/plugins/exchange.py: make_exchange)
    root/lib        grading/plugins/exchange.py as level23_exchange.py, for every user's nbgrader
    root/etc/jupyter           nbgrader_config.py for everyone: the exchange and the course id
    root/etc/jupyter-students  what students do not get: the formgrader and assignment creation
    root/etc/jupyter-instructors  the instructor's nbgrader config: the course's own config
    root/state      JupyterHub's database, cookie secret and proxy pid file
    /home/<prefix>instructor/level23   the course (source/, release/, the grading package),
                    owned by the instructor, mode 0700: students cannot read source/; its
                    .venv is one more copy like root/venv, for `make grade`
"""

import argparse
import errno
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from grading.plugins import exchange as course_exchange  # noqa: E402
HUB = REPO / "hub"
CONFIG = HUB / "jupyterhub_config.py"
CHP = HUB / "node_modules" / ".bin" / "configurable-http-proxy"
ASSIGNMENT = "level23_speculative_decoding"
COURSE_ID = "level23"
COURSE_FILES = ("Makefile", "nbgrader_config.py", "requirements.txt", "grading", "source", "release")
DEFAULT_ROOT = Path("/srv/level23-hub")
DEFAULT_PREFIX = "l23-"
ROLES = ("instructor", "student-a", "student-b", "student-c")


def _cgroups():
    """grading/sandbox/cgroups.py: the one place that knows the instructor's delegated cgroup."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from grading.sandbox import cgroups

    return cgroups


def _link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
            raise
        shutil.copy2(src, dst)


def readable_by_others(path):
    """True when a user with no special rights can read ``path`` (every parent searchable)."""
    return subprocess.run(["runuser", "-u", "nobody", "--", "test", "-r", str(path)],
                          capture_output=True).returncode == 0


def readable_base(source, copy_to):
    """The Python the venv ``source`` was made from, or a copy at ``copy_to`` when the users cannot
    read it (a pyenv under /root, which is 0700): hard links, but a new python binary whose
    library path is its own lib/ ($ORIGIN), not the original's."""
    cfg = _venv_cfg(source)
    base = Path(cfg["home"]).parent
    if readable_by_others(base / "bin"):
        return base
    if not copy_to.exists():
        shutil.copytree(base, copy_to, symlinks=True, copy_function=_link_or_copy,
                        ignore=lambda d, names: ["site-packages"] if Path(d) == base / "lib" / f"python{cfg['version'][:4]}" else [])
        old = str(base / "lib").encode() + b"\0"
        for exe in (copy_to / "bin").iterdir():
            if exe.is_symlink() or not exe.is_file():
                continue
            data = exe.read_bytes()
            if old in data and data.startswith(b"\x7fELF"):
                new = b"$ORIGIN/../lib"  # never longer than the path it replaces: the ELF keeps its layout
                data = data.replace(old, new + b"\0" * (len(old) - len(new)))
                mode = exe.stat().st_mode
                exe.unlink()  # a hard link to the original: write a new file instead
                exe.write_bytes(data)
                os.chmod(exe, mode)
    return copy_to


def _venv_cfg(venv):
    return dict(line.split(" = ", 1) for line in (Path(venv) / "pyvenv.cfg").read_text().splitlines() if " = " in line)


def relocate_venv(source, target, base):
    """A copy of the venv ``source`` at ``target`` on the Python ``base``: the same files (hard
    links), its scripts and its python re-pointed."""
    source = Path(source).resolve()
    cfg = _venv_cfg(source)
    made_from = Path(cfg["home"]).parent
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, symlinks=True, copy_function=_link_or_copy,
                    ignore=lambda d, names: ["bin", "pyvenv.cfg"] if Path(d) == source else [])
    (target / "bin").mkdir()
    for entry in (source / "bin").iterdir():
        new = target / "bin" / entry.name
        if entry.is_symlink():
            link = os.readlink(entry)
            if link.startswith(str(made_from)):  # python -> the base interpreter
                link = str(base) + link[len(str(made_from)):]
            os.symlink(link, new)
        else:
            data = entry.read_bytes()
            if data.startswith(b"#!"):  # console scripts name the venv's python
                data = data.replace(str(source).encode(), str(target).encode())
            new.write_bytes(data)  # a new file: the source's scripts stay as they are
            shutil.copymode(entry, new)
    cfg["home"] = str(base / "bin")
    cfg.pop("command", None)
    if "executable" in cfg:
        cfg["executable"] = str(target / "bin" / Path(cfg["executable"]).name)
    (target / "pyvenv.cfg").write_text("".join(f"{k} = {v}\n" for k, v in cfg.items()))
    (target / ".installed").touch()  # `make grade` in the course sees an installed environment


class Classroom:
    def __init__(self, root=DEFAULT_ROOT, prefix=DEFAULT_PREFIX, port=8000, api_port=8081, proxy_api_port=8001,
                 venv=REPO / ".venv"):
        self.root, self.prefix = Path(root), prefix
        self.port, self.api_port, self.proxy_api_port = port, api_port, proxy_api_port
        self.source_venv = Path(venv)
        self.instructor = prefix + "instructor"
        self.students = [prefix + r for r in ROLES[1:]]
        self.passwords = {}
        self.hub = None
        self.log = None

    # ---- paths -------------------------------------------------------------------------------
    @property
    def users(self):
        return [self.instructor, *self.students]

    @property
    def base_python(self):
        return readable_base(self.source_venv, self.root / "python")

    @property
    def venv(self):
        return self.root / "venv"

    @property
    def exchange(self):
        return self.root / "exchange"

    def home(self, user):
        return Path(pwd.getpwnam(user).pw_dir)

    @property
    def course(self):
        return self.home(self.instructor) / "level23"

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def env(self, user=None):
        """The environment of the hub (``user`` None) or of a user's commands, as the spawner gives it."""
        env = {"PATH": f"{self.venv}/bin:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
               "LEVEL23_HUB_ROOT": str(self.root), "LEVEL23_HUB_USER_PREFIX": self.prefix,
               "LEVEL23_HUB_PORT": str(self.port), "LEVEL23_HUB_API_PORT": str(self.api_port),
               "LEVEL23_PROXY_API_PORT": str(self.proxy_api_port)}
        if user:
            role = "instructors" if user == self.instructor else "students"
            env.update(HOME=str(self.home(user)), USER=user,
                       JUPYTER_CONFIG_PATH=f"{self.root}/etc/jupyter-{role}:{self.root}/etc/jupyter")
        return env

    def run_as(self, user, *cmd, cwd=None, check=True, timeout=900):
        """Run ``cmd`` as ``user``, with the environment that user's server has."""
        env = self.env(user)
        proc = subprocess.run(["runuser", "-u", user, "--", "env", "-i", *(f"{k}={v}" for k, v in env.items()),
                               *map(str, cmd)], cwd=cwd or env["HOME"], capture_output=True, text=True,
                              timeout=timeout)
        if check and proc.returncode:
            raise RuntimeError(f"{' '.join(map(str, cmd))} as {user} failed ({proc.returncode}):\n"
                               f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
        return proc

    # ---- set-up ------------------------------------------------------------------------------
    def preflight(self):
        """None when this machine can run the hub, else what is missing."""
        if os.geteuid() != 0:
            return "the hub must run as root: it starts each user's server as that user (sudo make hub)"
        if not shutil.which("node"):
            return "node is missing: apt-get install nodejs npm (configurable-http-proxy needs node >= 20)"
        if not CHP.exists():
            return f"configurable-http-proxy is missing: npm ci --prefix {HUB}"
        if not (self.source_venv / "bin" / "jupyterhub-singleuser").exists():
            return f"the course environment has no JupyterHub: make install"
        return None

    def setup(self):
        problem = self.preflight()
        if problem:
            raise RuntimeError(problem)
        for sub in ("", "state", "etc"):
            (self.root / sub).mkdir(mode=0o755, parents=True, exist_ok=True)
        os.chmod(self.root, 0o755)
        os.chmod(self.root / "state", 0o700)
        self.make_users()
        self.delegate_cgroup()
        self.make_environment()
        self.make_exchange()
        self.write_jupyter_config()
        self.copy_course()

    def make_users(self):
        for user in self.users:
            try:
                pwd.getpwnam(user)
            except KeyError:
                subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", "--comment",
                                "Level 23 hub demo user", user], check=True)
            os.chmod(self.home(user), 0o700)  # students cannot look into each other's homes
            self.passwords[user] = secrets.token_urlsafe(9)
        subprocess.run(["chpasswd"], input="".join(f"{u}:{p}\n" for u, p in self.passwords.items()),
                       text=True, check=True)

    def delegate_cgroup(self):
        """A cgroup of the instructor's (grading/sandbox/cgroups.py): `make grade`, not root, then makes one per sandbox in it."""
        try:
            _cgroups().delegate(self.instructor)
        except OSError as exc:  # make grade then says so at start-up, and limits each sandbox by rlimits only
            print(f"No cgroup delegated to {self.instructor} ({exc}): each sandbox's memory is limited per process "
                  "only", file=sys.stderr)

    def make_environment(self):
        """root/venv: the course's .venv, readable by the users."""
        relocate_venv(self.source_venv, self.venv, self.base_python)

    def make_exchange(self):
        """The exchange with the modes the course's exchange classes check, and those classes
        where every user can import them."""
        course_exchange.make_exchange(self.exchange, COURSE_ID, self.instructor)
        course_exchange.install(self.root / "lib")

    def write_jupyter_config(self):
        etc = self.root / "etc"
        common, students, instructors = etc / "jupyter", etc / "jupyter-students", etc / "jupyter-instructors"
        for d in (common, students / "labconfig", instructors):
            d.mkdir(parents=True, exist_ok=True)
        (common / "nbgrader_config.py").write_text(
            course_exchange.shared_config(self.exchange, COURSE_ID, self.root / "lib", self.instructor))
        # Students see the Assignments tab and the Validate button, not the instructor's tools.
        (students / "labconfig" / "page_config.json").write_text(
            '{"disabledExtensions": {"@jupyter/nbgrader:formgrader": true, "@jupyter/nbgrader:course-list": true,'
            ' "@jupyter/nbgrader:create-assignment": true}}\n')
        (students / "jupyter_server_config.json").write_text(
            '{"ServerApp": {"jpserver_extensions": {"nbgrader.server_extensions.formgrader": false,'
            ' "nbgrader.server_extensions.course_list": false}}}\n')
        # The instructor's formgrader and CLI use the course's own config (the grading sandbox).
        (instructors / "nbgrader_config.py").write_text(
            "c = get_config()  # noqa: F821\n"
            f"load_subconfig({str(self.course / 'nbgrader_config.py')!r})  # noqa: F821\n")
        for path in etc.rglob("*"):
            os.chmod(path, 0o755 if path.is_dir() else 0o644)

    def copy_course(self):
        if self.course.exists():
            return  # the instructor's course, with its gradebook: never overwritten
        self.course.mkdir(mode=0o700)
        for name in COURSE_FILES:
            src = REPO / name
            if src.is_dir():
                shutil.copytree(src, self.course / name, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
            else:
                shutil.copy2(src, self.course / name)
        subprocess.run(["chown", "-R", f"{self.instructor}:{self.instructor}", str(self.course)], check=True)
        # The course's own .venv (root's, read-only for the instructor: its files are hard links).
        # A real folder, not a link to root/venv: the grading sandbox mounts the environment at
        # the path Python runs from.
        relocate_venv(self.source_venv, self.course / ".venv", self.base_python)

    # ---- the instructor's first steps ----------------------------------------------------------
    def generate(self):
        """The instructor generates Level 23 into the gradebook (release/ as nbgrader writes it)."""
        return self.run_as(self.instructor, "nbgrader", "generate_assignment", ASSIGNMENT, "--force",
                           cwd=self.course)

    def release(self):
        return self.run_as(self.instructor, "nbgrader", "release_assignment", ASSIGNMENT, "--force",
                           cwd=self.course)

    # ---- the hub -------------------------------------------------------------------------------
    def start(self, log_path, extra_env=None):
        """Start JupyterHub (as root) and wait until it answers."""
        self.log = open(log_path, "a")
        self.hub = subprocess.Popen([str(self.venv / "bin" / "jupyterhub"), "-f", str(CONFIG)],
                                    cwd=self.root / "state", env={**self.env(), **(extra_env or {})},
                                    stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + 120
        while True:
            try:
                urllib.request.urlopen(f"{self.url}/hub/api/", timeout=3)
                return
            except OSError:
                if self.hub.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"JupyterHub did not start; see {log_path}")
                time.sleep(0.5)

    def stop(self):
        """Stop the hub: it stops the users' servers and its proxy first (cleanup_servers)."""
        if self.hub and self.hub.poll() is None:
            self.hub.send_signal(signal.SIGTERM)
            try:
                self.hub.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.hub.pid, signal.SIGKILL)
                self.hub.wait()
        if self.log:
            self.log.close()
            self.log = None

    def user_pids(self, user):
        out = subprocess.run(["ps", "-o", "pid=", "-u", user], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]

    def teardown(self):
        """Stop the hub, end what the demo users still run, remove them, their homes and the hub root."""
        self.stop()
        for user in self.users:
            try:
                pwd.getpwnam(user)
            except KeyError:
                continue
            for _ in range(20):
                pids = self.user_pids(user)
                if not pids:
                    break
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                time.sleep(0.25)
            if user == self.instructor:
                _cgroups().undelegate(user)
            subprocess.run(["userdel", "--remove", user], capture_output=True)
            subprocess.run(["groupdel", user], capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)


def run(args):
    room = Classroom(root=args.root, port=args.port)
    problem = room.preflight()
    if problem:
        print(f"make hub: {problem}", file=sys.stderr)
        return 2
    print(f"Setting up the classroom in {room.root} (users {', '.join(room.users)})")
    room.setup()
    if not (room.course / "gradebook.db").exists():
        room.generate()
        room.release()
        print(f"{ASSIGNMENT} is generated and released through the exchange ({room.exchange})")
    log = room.root / "state" / "jupyterhub.log"
    room.start(log)
    print(f"\nJupyterHub is running at {room.url}/ (log: {log})\n")
    print("Log in as one of these local users:")
    for user in room.users:
        print(f"  {user:<20} password {room.passwords[user]}")
    print(f"\nThe instructor's course is {room.course} (terminal: cd ~/level23; make grade).")
    print("Stop the hub with Ctrl-C. Remove the demo users and the hub with `make hub-down`.")

    def interrupted(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupted)  # `kill` stops the hub as cleanly as Ctrl-C
    try:
        while room.hub.poll() is None:
            time.sleep(1)
        print(f"JupyterHub stopped by itself (exit code {room.hub.returncode}); see {log}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nStopping JupyterHub and the users' servers ...")
        room.stop()
        print("Stopped. The users and the course stay for the next `make hub`; `make hub-down` removes them.")
        return 0


def down(args):
    Classroom(root=args.root).teardown()
    print(f"Removed the users {DEFAULT_PREFIX}* of the demo, their homes and {args.root}")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["run", "down"])
    ap.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    ap.add_argument("--port", type=int, default=8000)
    args = ap.parse_args(argv)
    return run(args) if args.command == "run" else down(args)


if __name__ == "__main__":
    sys.exit(main())
