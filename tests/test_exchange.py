"""The exchange that knows who submitted (grading/plugins/exchange.py), attacked by real Unix users.

One real exchange in a folder of /tmp, laid out as the hub lays it out (``make_exchange``, the
shared config and the module copied for every user), a course owned by an instructor user, and
students who are Unix users of their own (``l23x-*``, removed afterwards, also on failure). The
instructor releases with the real `nbgrader release_assignment`; the honest students fetch and
submit with the real `nbgrader`; the attackers then do what a student can do with a shell, and
the instructor runs `nbgrader collect` once before and once after the attacks. Each test checks
one attack: its clear message, that nothing was followed or copied, and that the honest students'
submissions were collected intact (and nothing collected before was lost).
"""

import datetime
import hashlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from grading import ASSIGNMENT, pipeline
from grading.plugins import exchange

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hub"))
import classroom  # noqa: E402

PREFIX = "l23x-"
COURSE = "level23"
NB = "02_reject_and_break.ipynb"
INSTRUCTOR = PREFIX + "i"
HONEST = PREFIX + "a"          # submits honestly; everyone else attacks
SPOOFER = PREFIX + "b"         # a classmate's id, a back-dated timestamp, odd folder names, submit-side attacks
# One attacker per attack on their own latest submission (only a student's latest is collected).
ATTACKERS = {"link": PREFIX + "l", "zero": PREFIX + "z", "hard": PREFIX + "h", "fifo": PREFIX + "f",
             "many": PREFIX + "m", "big": PREFIX + "g", "newline": PREFIX + "n", "socket": PREFIX + "s",
             "folder_link": PREFIX + "d"}
USERS = [INSTRUCTOR, HONEST, SPOOFER, *ATTACKERS.values()]


def _missing():
    if os.geteuid() != 0:
        return "the exchange test runs as root (it creates local users)"
    if not shutil.which("useradd") or not shutil.which("runuser"):
        return "no useradd/runuser"
    return None


if _missing():
    if os.environ.get("CI"):
        raise RuntimeError(f"CI must run the exchange test: {_missing()}")
    pytest.skip(f"exchange test skipped: {_missing()}", allow_module_level=True)


def remove_users():
    for user in USERS:
        try:
            pwd.getpwnam(user)
        except KeyError:
            continue
        out = subprocess.run(["ps", "-o", "pid=", "-u", user], capture_output=True, text=True).stdout
        for pid in map(int, out.split()):  # what this test's own users still run
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        subprocess.run(["userdel", "--remove", user], capture_output=True)
        subprocess.run(["groupdel", user], capture_output=True)


def digest(folder):
    """{relative path: sha256} of every file under ``folder``."""
    folder = Path(folder)
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


class World:
    def __init__(self, base):
        self.base = base
        self.exchange = base / "exchange"
        self.inbound = self.exchange / COURSE / "inbound"
        self.course = base / "course"
        self.lib = base / "lib"
        self.etc = base / "etc" / "jupyter"
        self.venv = base / "venv"
        self.logs = {}

    def home(self, user):
        return Path(pwd.getpwnam(user).pw_dir)

    def run(self, user, *cmd, cwd=None, check=True, timeout=300):
        env = {"PATH": f"{self.venv}/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(self.home(user)),
               "USER": user, "JUPYTER_CONFIG_PATH": str(self.etc)}
        proc = subprocess.run(["runuser", "-u", user, "--", "env", "-i", *(f"{k}={v}" for k, v in env.items()),
                               *map(str, cmd)], cwd=cwd or env["HOME"], capture_output=True, text=True,
                              timeout=timeout)
        if check and proc.returncode:
            raise AssertionError(f"{' '.join(map(str, cmd))} as {user} failed ({proc.returncode}):\n"
                                 f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
        return proc

    def sh(self, user, script, check=True):
        return self.run(user, "sh", "-c", script, check=check)

    def nbgrader(self, user, *args, check=True):
        cwd = self.course if user == INSTRUCTOR else None
        return self.run(user, "nbgrader", *args, cwd=cwd, check=check)

    def collect(self, *args):
        proc = self.nbgrader(INSTRUCTOR, "collect", "--update", ASSIGNMENT, *args)
        return proc.stdout + proc.stderr

    def submitted(self, student):
        return self.course / "submitted" / student / ASSIGNMENT

    def fabricate(self, user, name, script=""):
        """As ``user``, a submission folder of their own made by hand in inbound/, from the released
        files, then ``script`` run inside it."""
        folder = self.inbound / name
        self.sh(user, f"mkdir '{folder}' && cp '{self.exchange}/{COURSE}/outbound/{ASSIGNMENT}'/* '{folder}'/ && "
                      f"date -u '+%Y-%m-%d %H:%M:%S.000000 UTC' > '{folder}/timestamp.txt' && cd '{folder}' && {script or 'true'}")
        return folder


def stamp(when):
    return when.strftime("%Y-%m-%d %H:%M:%S.%f UTC")


@contextmanager
def exchange_world(defended=True):
    """A released course with its exchange and users, removed afterwards. ``defended=False``: the
    same with nbgrader's default exchange and modes (root 0777, inbound/ 2733), for the benchmark."""
    remove_users()
    base = Path(tempfile.mkdtemp(prefix=PREFIX, dir="/tmp"))
    os.chmod(base, 0o755)
    w = World(base)
    try:
        (base / "home").mkdir(mode=0o755)
        for user in USERS:
            subprocess.run(["useradd", "--create-home", "--home-dir", str(base / "home" / user), "--shell",
                            "/bin/sh", "--comment", "Level 23 exchange test user", user], check=True)
            os.chmod(w.home(user), 0o700)
        # Every user's Python: the course's environment, readable (hub/classroom.py does the same).
        classroom.relocate_venv(ROOT / ".venv", w.venv, classroom.readable_base(ROOT / ".venv", base / "python"))
        # The exchange and everyone's config, as `make hub` makes them.
        exchange.make_exchange(w.exchange, COURSE, INSTRUCTOR)
        exchange.install(w.lib)
        w.etc.mkdir(parents=True)
        config = exchange.shared_config(w.exchange, COURSE, w.lib, INSTRUCTOR)
        # The instructor's course: source/, the config (which registers the same classes), the release.
        pipeline.make_course(w.course)
        if not defended:
            config = "".join(line for line in config.splitlines(True) if "ExchangeFactory" not in line)
            course_config = w.course / "nbgrader_config.py"
            course_config.write_text(course_config.read_text().replace("exchange.register(c,", "(c,"))
            os.chmod(w.exchange, 0o777)
            os.chmod(w.inbound, 0o2733)
        (w.etc / "nbgrader_config.py").write_text(config)
        for d in (base / "etc", w.etc):
            os.chmod(d, 0o755)
        shutil.copytree(ROOT / "release" / ASSIGNMENT, w.course / "release" / ASSIGNMENT)
        subprocess.run(["chown", "-R", f"{INSTRUCTOR}:{INSTRUCTOR}", str(w.course)], check=True)
        os.chmod(w.course, 0o700)
        w.nbgrader(INSTRUCTOR, "release_assignment", ASSIGNMENT)
        yield w
    finally:
        remove_users()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def world():
    with exchange_world() as w:
        setup(w)
        yield w


def prepare(w):
    """The class before the attacks: honest submissions, collected once."""
    for user in (HONEST, SPOOFER):
        w.nbgrader(user, "fetch_assignment", ASSIGNMENT)
    # The honest student's work, with odd but honest file names (a space, unicode): they are taken.
    work = w.home(HONEST) / ASSIGNMENT
    w.sh(HONEST, f"cd '{work}' && echo 'my answer' >> {NB} && echo notes > 'notes é 1.txt'")
    w.honest_files = digest(work)
    w.nbgrader(HONEST, "submit", ASSIGNMENT)
    # The attackers' first, valid submissions (made by hand: a student need not use nbgrader).
    for attack, user in ATTACKERS.items():
        w.fabricate(user, f"{user}+{ASSIGNMENT}+{stamp(datetime.datetime.utcnow())}+first")
    w.logs["first"] = w.collect()
    w.first = {user: digest(w.submitted(user)) for user in ATTACKERS.values()}
    victim = w.base / "victim.txt"  # someone else's file the attacker may write (so the kernel lets her link it)
    victim.write_text("not yours\n")
    os.chown(victim, pwd.getpwnam(HONEST).pw_uid, -1)
    os.chmod(victim, 0o666)
    w.later = stamp(datetime.datetime.utcnow() + datetime.timedelta(days=1))
    w.attack = {}
    time.sleep(1.1)  # the attacks' ctimes are later than the first submissions'


def plant_spoof(w):
    """A classmate's id, with a later timestamp, and a wrong answer."""
    w.spoof = w.inbound / f"{HONEST}+{ASSIGNMENT}+{w.later}+spoofed"
    w.sh(SPOOFER, f"mkdir '{w.spoof}' && cp '{w.home(SPOOFER)}/{ASSIGNMENT}'/* '{w.spoof}'/ && "
                  f"echo WRONG >> '{w.spoof}/{NB}' && echo '{w.later}' > '{w.spoof}/timestamp.txt'")
    return [w.spoof]


def plant_backdated(w):
    """Submitted now, then timestamp.txt, the mtimes and the folder name set a day back."""
    w.before_late_submit = datetime.datetime.utcnow()
    w.nbgrader(SPOOFER, "submit", ASSIGNMENT)
    [mine] = [p for p in w.inbound.iterdir() if p.name.startswith(f"{SPOOFER}+")]
    early = stamp(datetime.datetime.utcnow() - datetime.timedelta(days=1))
    w.early = exchange.parse_utc(early)
    backdated = w.inbound / f"{SPOOFER}+{ASSIGNMENT}+{early}+backdated"
    w.sh(SPOOFER, f"cd '{mine}' && echo '{early}' > timestamp.txt && touch -d '1 day ago' * . && "
                  f"mv '{mine}' '{backdated}'")
    return [backdated]


def plant_odd(w):
    """Odd folder names: each must be refused by name, never read as some student's."""
    later = w.later
    w.odd = [f"{SPOOFER} x+{ASSIGNMENT}+{later}", f"..+{ASSIGNMENT}+{later}", f"{SPOOFER}\n+{ASSIGNMENT}+{later}",
             f"{SPOOFER}é+{ASSIGNMENT}+{later}", f"{HONEST}+x+{ASSIGNMENT}+{later}", f"{SPOOFER}+{ASSIGNMENT}+not a time"]
    for name in w.odd:
        folder = w.inbound / name
        w.run(SPOOFER, "mkdir", folder)
        w.run(SPOOFER, "cp", w.home(SPOOFER) / ASSIGNMENT / NB, folder / NB)
    return [w.inbound / name for name in w.odd]


def plant_own(w, attack):
    """``attack``'s user's latest submission, made by hand with the attack inside."""
    scripts = {
        "link": f"rm {NB} && ln -s '{w.course}/source/{ASSIGNMENT}/{NB}' {NB}",
        "zero": "ln -s /dev/zero zero.py",
        "hard": f"ln '{w.base / 'victim.txt'}' answers.txt",
        "fifo": "mkfifo answers.txt",
        "many": "mkdir many && cd many && seq -f 'f%g' 10000 | xargs touch",
        "big": "truncate -s 1G big.bin",
        "newline": "touch \"$(printf 'a\\nfalse line.ipynb')\"",
        "socket": f"{w.venv}/bin/python -c \"import socket; socket.socket(socket.AF_UNIX).bind('sock')\"",
    }
    user = ATTACKERS[attack]
    if attack == "folder_link":  # the submission itself a link to the instructor's source/
        w.attack[attack] = w.inbound / f"{user}+{ASSIGNMENT}+{w.later}+attack"
        w.run(user, "ln", "-s", w.course / "source" / ASSIGNMENT, w.attack[attack])
        return [w.attack[attack]]
    w.attack[attack] = w.fabricate(user, f"{user}+{ASSIGNMENT}+{w.later}+attack", scripts[attack])
    return [w.attack[attack]]


def setup(w):
    prepare(w)
    plant_spoof(w)
    plant_backdated(w)
    plant_odd(w)
    for attack in ATTACKERS:
        plant_own(w, attack)
    started = time.monotonic()
    w.logs["attacks"] = w.collect()
    print(f"[exchange] collect with every attack in inbound/: {time.monotonic() - started:.1f} s", flush=True)


def test_honest_submission_collected_intact(world):
    got = world.submitted(HONEST)
    files = digest(got)
    for name, sha in world.honest_files.items():
        assert files[name] == sha, name
    assert "notes é 1.txt" in files
    assert f"Refused the submission" not in world.logs["first"]


def test_spoof_refused_and_classmate_kept(world):
    log = world.logs["attacks"]
    assert (f"Refused the submission '{world.spoof.name}': it claims to be {HONEST}'s submission, but the Unix user "
            f"{SPOOFER} made it; it is not taken as {HONEST}'s") in log
    assert b"WRONG" not in (world.submitted(HONEST) / NB).read_bytes()
    assert digest(world.submitted(HONEST))[NB] == world.honest_files[NB]


def test_backdated_timestamp_is_the_exchanges(world):
    recorded = exchange.parse_utc((world.submitted(SPOOFER) / "timestamp.txt").read_text())
    assert recorded >= world.before_late_submit - datetime.timedelta(seconds=1), recorded
    log = world.logs["attacks"]
    assert f"{SPOOFER}'s submission" in log and "its timestamp.txt says" in log and "the exchange saw it at" in log


def test_odd_folder_names_refused_by_name(world):
    log = world.logs["attacks"]
    for name in world.odd:
        assert f"Refused the submission {name!r}" in log, name
    assert "is not allowed: it contains a space" in log and "it contains '..'" in log and "control character" in log
    assert "contains 'é'" in log and "does not split into student+assignment+timestamp" in log
    assert "cannot be read" in log
    students = sorted(p.name for p in (world.course / "submitted").iterdir() if not p.name.startswith("."))
    assert students == sorted([HONEST, SPOOFER, *ATTACKERS.values()]), students


@pytest.mark.parametrize("attack, message", [
    ("link", f"{NB} is a symbolic link (to "),
    ("zero", "zero.py is a symbolic link (to '/dev/zero'); links are never followed"),
    ("hard", f"answers.txt is a hard link (2 names for one file, owned by {HONEST}); hard links are not taken"),
    ("fifo", "answers.txt is a FIFO (named pipe)"),
    ("many", "it has more than 200 files and folders"),
    ("big", "big.bin is 1,073,741,824 bytes, over the limit of 20,000,000 bytes per file"),
    ("newline", "has a control character in its name"),
    ("socket", "sock is a socket"),
])
def test_own_bad_submission_refused_and_nothing_lost(world, attack, message):
    user = ATTACKERS[attack]
    log = world.logs["attacks"]
    assert f"Refused the submission '{world.attack[attack].name}': " in log, log[-3000:]
    assert message in log, log[-3000:]
    assert f"{user}'s latest submission is not taken" in log
    # What was collected before is there, unchanged; nothing of the bad submission was copied.
    assert digest(world.submitted(user)) == world.first[user]
    leftovers = [p for p in world.submitted(user).parent.iterdir() if p.name.startswith(".collecting")]
    assert not leftovers


def test_instructor_list_shows_no_spoof(world):
    proc = world.nbgrader(INSTRUCTOR, "list", "--inbound")
    out = proc.stdout + proc.stderr
    assert f"Not listed: {world.spoof.name!r}: it claims to be {HONEST}'s submission, but the Unix user {SPOOFER}" in out
    listed = [line for line in out.splitlines() if f" {HONEST} {ASSIGNMENT} " in line and "Not listed" not in line]
    assert len(listed) == 1 and world.spoof.name.split("+")[2] not in listed[0], listed


def test_submission_folder_that_is_a_link_refused(world):
    user = ATTACKERS["folder_link"]
    assert (f"Refused the submission '{world.attack['folder_link'].name}': it is not a folder (a link or a file); "
            f"links are never followed") in world.logs["attacks"]
    assert digest(world.submitted(user)) == world.first[user]


# ---- submit: the same checks on the student's side, with a clear message ----------------------
@pytest.mark.parametrize("attack, script, message", [
    ("link", "rm {nb} && ln -s {course}/source/{a}/{nb} {nb}", "{nb} is a symbolic link (to "),
    ("zero", "ln -s /dev/zero zero.txt", "zero.txt is a symbolic link (to '/dev/zero')"),
    ("hard", "ln {victim} victim.txt", "names for one file, owned by " + HONEST + "); hard links are not taken"),
    ("fifo", "mkfifo pipe", "pipe is a FIFO (named pipe)"),
    ("many", "mkdir many && cd many && seq -f 'f%g' 10000 | xargs touch", "it has more than 200 files and folders"),
    ("big", "truncate -s 1G big.bin", "big.bin is 1,073,741,824 bytes, over the limit"),
])
def test_submit_refuses(world, attack, script, message):
    work = world.home(SPOOFER) / ASSIGNMENT
    keep = world.base / "keep"
    shutil.rmtree(keep, ignore_errors=True)
    shutil.copytree(work, keep, symlinks=True)
    before = set(world.inbound.iterdir())
    fmt = dict(nb=NB, course=world.course, a=ASSIGNMENT, victim=world.base / "victim.txt")
    try:
        world.sh(SPOOFER, f"cd '{work}' && " + script.format(**fmt))
        proc = world.nbgrader(SPOOFER, "submit", ASSIGNMENT, check=False)
        out = proc.stdout + proc.stderr
        assert proc.returncode != 0, out[-2000:]
        assert message.format(**fmt) in out and "Nothing was submitted." in out, out[-2000:]
        assert set(world.inbound.iterdir()) == before  # no partial submission left in inbound/
    finally:
        subprocess.run(["rm", "-rf", str(work)], check=True)
        shutil.copytree(keep, work, symlinks=True)
        subprocess.run(["chown", "-R", f"{SPOOFER}:{SPOOFER}", str(work)], check=True)


def test_submit_as_a_classmate_refused(world):
    proc = world.nbgrader(SPOOFER, "submit", ASSIGNMENT, f"--student={HONEST}", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and f"You are the Unix user {SPOOFER}: you cannot submit as '{HONEST}'" in out, out[-2000:]


# ---- the exchange's folders: nobody renames, replaces or lists what is not theirs ------------
def test_course_folder_cannot_be_renamed_or_replaced(world):
    course = world.exchange / COURSE
    moved = world.run(SPOOFER, "mv", course, world.exchange / "stolen", check=False)
    assert moved.returncode != 0 and "Operation not permitted" in moved.stderr, moved.stderr
    removed = world.run(SPOOFER, "rm", "-rf", course / "outbound", check=False)
    assert removed.returncode != 0 and (course / "outbound" / ASSIGNMENT / NB).exists()
    assert os.stat(world.exchange).st_mode & 0o7777 == 0o1777
    assert os.stat(world.inbound).st_mode & 0o7777 == 0o3733


def test_inbound_cannot_be_listed(world):
    peek = world.run(SPOOFER, "ls", world.inbound, check=False)
    assert peek.returncode != 0 and "Permission denied" in peek.stderr and HONEST not in peek.stdout


def test_wrong_modes_refused_with_the_fix(world):
    os.chmod(world.exchange, 0o777)
    try:
        proc = world.nbgrader(SPOOFER, "list", check=False)
        out = proc.stdout + proc.stderr
        assert proc.returncode != 0, out[-2000:]
        assert (f"The exchange folder {world.exchange} has mode 777: it has no sticky bit, so a student could rename "
                f"the course's folder away") in out and f"chmod 1777 {world.exchange}" in out, out[-2000:]
    finally:
        os.chmod(world.exchange, 0o1777)
    os.chmod(world.inbound, 0o2733)
    try:
        proc = world.nbgrader(HONEST, "submit", ASSIGNMENT, check=False)
        out = proc.stdout + proc.stderr
        assert proc.returncode != 0 and f"has mode 2733: it has no sticky bit" in out, out[-2000:]
        assert f"chmod 3733 {world.inbound}" in out, out[-2000:]
    finally:
        os.chmod(world.inbound, 0o3733)


# ---- ids where they enter collect -----------------------------------------------------------
def test_bad_ids_at_collect_refused(world):
    proc = world.nbgrader(INSTRUCTOR, "collect", "level23 x", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "assignment id 'level23 x' is not allowed: it contains a space" in out, out[-2000:]
    proc = world.nbgrader(INSTRUCTOR, "collect", ASSIGNMENT, "--student=../x", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "student id '../x' is not allowed" in out, out[-2000:]


# ---- in-process: a file that grows while it is copied ------------------------------------------
def test_file_growing_during_copy_refused(tmp_path, monkeypatch):
    src = tmp_path / "src"
    src.mkdir()
    grower = src / "grows.bin"
    grower.write_bytes(b"x" * 1000)
    real_read = os.read
    grown = []

    def read_while_it_grows(fd, n):
        if not grown:  # another process appends as soon as the copy starts
            with open(grower, "ab") as fh:
                fh.write(b"y" * 5000)
            grown.append(True)
        return real_read(fd, n)

    monkeypatch.setattr(exchange.os, "read", read_while_it_grows)
    policy = exchange.Policy(max_file_bytes=4000, max_submission_bytes=10000, max_entries=10)
    with pytest.raises(exchange.Refused, match="grows.bin is 6,000 bytes, over the limit of 4,000 bytes per file "
                                               r"\(it grew while it was copied\)"):
        exchange.walk(src, policy, tmp_path / "dest")


def test_file_swapped_for_a_link_after_listing_refused(tmp_path, monkeypatch):
    """Between the listing (lstat) and the open, the file becomes a symlink to a file the student may not read."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "answer.ipynb").write_text("mine")
    secret = tmp_path / "secret"
    secret.write_text("the instructor's")
    real_stat = os.stat
    swapped = []

    def stat_then_swap(name, *args, **kwargs):
        st = real_stat(name, *args, **kwargs)
        if name == "answer.ipynb" and not swapped:
            os.unlink(src / name)
            os.symlink(secret, src / name)
            swapped.append(True)
        return st

    monkeypatch.setattr(exchange.os, "stat", stat_then_swap)
    policy = exchange.Policy(max_file_bytes=4000, max_submission_bytes=10000, max_entries=10)
    with pytest.raises(exchange.Refused, match="answer.ipynb cannot be opened"):
        exchange.walk(src, policy, tmp_path / "dest")
    assert swapped and not (tmp_path / "dest" / "answer.ipynb").exists()


def test_ids():
    assert exchange.check_id("student id", "l23x-a") == "l23x-a"
    for bad in ("a b", "a+b", "..", "a/b", "x\n", "é", "", "-x"):
        with pytest.raises(ValueError, match="is not allowed"):
            exchange.check_id("student id", bad)


def test_ignored_names_count_against_the_entry_limit(tmp_path):
    """Names the course ignores (*.pyc, __pycache__) are not copied, but each counts against max_entries:
    otherwise a submission could hold any number of them, and every collect would walk them all."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "answer.ipynb").write_text("mine")
    for i in range(11):
        (src / f"f{i}.pyc").write_bytes(b"")
    policy = exchange.Policy(max_file_bytes=4000, max_submission_bytes=10000, max_entries=10, ignore=["*.pyc"])
    with pytest.raises(exchange.Refused, match="it has more than 10 files and folders"):
        exchange.walk(src, policy)
    for i in range(3, 11):
        (src / f"f{i}.pyc").unlink()
    exchange.walk(src, policy, tmp_path / "dest")
    assert sorted(p.name for p in (tmp_path / "dest").iterdir()) == ["answer.ipynb"]
