"""An nbgrader exchange that knows who submitted (nbgrader 0.9.6, ``c.ExchangeFactory.*``).

nbgrader's default exchange (nbgrader/exchange/default/) trusts the submission: `collect` takes
the student id from the folder name in ``inbound/`` and only warns when another Unix user owns
it ("cheating attempt?"); it picks the latest submission by the timestamp in that name and copies
``timestamp.txt``, both written by the student's own process with the student's clock (autograde
reads that file for the late penalty); it copies with ``shutil.copytree``, which follows symlinks
(a link to the instructor's ``source/`` or to ``/dev/zero``). These classes keep nbgrader's
commands, options and layout, and change what a submission is:

* **It belongs to the Unix user who made it.** At collect, the inbound folder and every file and
  folder in it must be owned by the user whose name is the student id in the folder's name;
  otherwise it is refused, with a message naming both, and never taken as that student's.
* **Its time is the exchange's.** A student can write ``timestamp.txt`` and set mtimes (utime) on
  files they own, but cannot set a ctime: the kernel sets it to "now" on every write, chmod,
  utime, link or rename. So the submission time is the latest ctime of the inbound folder and of
  everything in it, read after each file was copied: every byte collected was written at or before
  it, and a student can only make it later (touching or renaming a submission after the due date
  makes it late, as it should). `collect` picks the latest submission by this time, writes it into
  ``submitted/.../timestamp.txt`` in place of the student's, and logs when the student's differs
  by more than a minute. (A restored backup gets new ctimes: later, never earlier.)
* **Nothing is followed.** Symlinks, hard links, devices, FIFOs and sockets are refused at submit
  and at collect with a message naming the file. Collect refuses any file with more than one name
  (our submit never makes one); submit refuses a hard link to a file the student does not own
  (one to their own file is their content, copied as a new file). Files are walked with
  ``lstat`` and opened relative to their folder's descriptor with ``O_NOFOLLOW | O_NONBLOCK``,
  checked to be the inode that was listed, and copied from that descriptor. A file over
  ``max_file_bytes`` (20 MB), a submission over ``max_submission_bytes`` (50 MB) or with more than
  ``max_entries`` (200) files and folders is refused; the limits hold while copying (a file that
  grows during the copy is refused). A file name with a control character is refused.
* **Nothing already collected is lost.** A submission is copied into a temporary folder beside
  ``submitted/<student>/<assignment>`` and swapped in only when all of it was copied; a refused
  one leaves the collected copy as it was. One refused submission never stops the others.
* **Ids are checked where they enter.** The assignment id, ``--student`` and every student id read
  from a folder name must be a plain id (``check_id``): no space, ``+``, ``/``, ``..``, control or
  non-ASCII character. A folder name that does not split into exactly
  ``student+assignment+timestamp[+random]`` is refused by name, not guessed at.
* **The exchange's modes are checked when each command starts**, with the fix in the message:
  the root mode 1777 (the sticky bit: no student can rename or delete what is not theirs, so
  nobody can move the course's folder away and put her own in its place), the course's folder
  and its ``outbound/`` and ``feedback/`` owned by the instructor and not writable by others, and
  ``inbound/`` 3733 (writable, not listable, sticky). nbgrader's documentation asks for an exchange
  root "readable and writable by all users" (``chmod ugo+rw``, docs/source/user_guide/
  managing_assignment_files.ipynb) and creates ``inbound/`` 2733 and the course's folder and
  ``outbound/`` 0755 (exchange/default/release_assignment.py); the sticky bits are this course's
  addition (nbgrader's own root check compares only the 0777 bits, so it keeps them).
  ``release_assignment`` sets them where the instructor owns the folder.

This needs one Unix user per student (not JupyterHub's single-uid "jovyan" containers): the owner
of a folder is who made it. The hub (hub/classroom.py) copies this file, unchanged, to a folder
every user can read and names it in everyone's nbgrader config (``shared_config``); the course's
nbgrader_config.py registers the same classes (``register``).
"""

import datetime
import fnmatch
import os
import pwd
import shutil
import stat
import tempfile

from dateutil.tz import gettz
from traitlets import Int, Unicode

from nbgrader.exchange import default
from nbgrader.utils import get_osusername, parse_utc

MB = 1000 * 1000
CHUNK = 1 << 20
# The name the hub's students import this module under (a copy of this file, see ``shared_config``).
SHARED_MODULE = "level23_exchange"
# ExchangeFactory trait -> the class below: the one list `register` and `shared_config` use.
CLASSES = {
    "exchange": "OwnedExchange",
    "release_assignment": "ReleaseAssignment",
    "fetch_assignment": "FetchAssignment",
    "submit": "Submit",
    "collect": "Collect",
    "list": "List",
    "release_feedback": "ReleaseFeedback",
    "fetch_feedback": "FetchFeedback",
}
_KINDS = {stat.S_IFLNK: "a symbolic link", stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFSOCK: "a socket",
          stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device"}


# ---- ids ---------------------------------------------------------------------------------------
# One id rule for the whole course (grading/ids.py); the hub's students import its copy, level23_ids.py,
# which ``install`` puts beside this module's.
try:
    from grading import ids as _ids
except ImportError:  # the hub's copy in /srv/level23-hub/lib
    import level23_ids as _ids

SHARED_IDS = "level23_ids"


def id_problem(value):
    """What is wrong with ``value`` as a student, course or assignment id ("it ..."), or None."""
    problem = _ids.problem(value)
    return None if problem is None else f"it {problem}"


def check_id(kind, value):
    """``value`` when it is a plain id, else ValueError saying what is wrong with it (grading/ids.py's rule)."""
    problem = id_problem(value)
    if problem:
        raise ValueError(f"{kind} {value!r} is not allowed: {problem} ({_ids.RULE})")
    return value


def user_name(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


# ---- walking and copying a submission --------------------------------------------------------
class Refused(Exception):
    """A submission that is not taken: the message says which file and why."""


class Policy:
    """What a submission may hold. ``owner``: the uid that must own everything (collect), or None.
    ``links``: "refuse" every file with more than one name (collect), or "foreign" only those the
    submitting user does not own (submit)."""

    def __init__(self, max_file_bytes, max_submission_bytes, max_entries, ignore=(), include=("*",),
                 owner=None, links="refuse", student=None):
        self.max_file_bytes, self.max_submission_bytes, self.max_entries = max_file_bytes, max_submission_bytes, max_entries
        self.ignore, self.include = list(ignore or ()), list(include or ("*",))
        self.owner, self.links, self.student = owner, links, student

    def skipped(self, name, is_dir):
        if any(fnmatch.fnmatch(name, g) for g in self.ignore):
            return True
        return not is_dir and not any(fnmatch.fnmatch(name, g) for g in self.include)


def _open_dir(name, dir_fd=None):
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)


def walk(top, policy, dest=None):
    """Check the folder ``top`` against ``policy`` and, with ``dest`` (a new folder), copy it there.

    Returns the latest ctime (seconds) of ``top`` and of everything taken, read after each file was
    read. Raises Refused on the first thing that breaks the policy; a partial ``dest`` is the
    caller's to remove. Never follows a link: every entry is lstat'ed and opened relative to its
    folder's descriptor with O_NOFOLLOW, and must still be the inode that was listed."""
    try:
        top_fd = _open_dir(top)
    except OSError as exc:
        raise Refused(f"{top} cannot be opened as a folder without following links ({exc.strerror})") from None
    counts = {"entries": 0, "bytes": 0}
    try:
        if dest is not None:
            os.mkdir(dest, 0o755)
        return _walk_dir(top_fd, "", policy, dest, counts)
    except OSError as exc:  # e.g. a name too long to copy, a folder made unreadable, a full disk
        raise Refused(f"it cannot be copied: {exc.strerror} ({os.path.basename(str(exc.filename or top))!r})") from None
    finally:
        os.close(top_fd)


def _check_owner(st, rel, policy):
    if policy.owner is not None and st.st_uid != policy.owner:
        raise Refused(f"{rel or 'the folder'} belongs to {user_name(st.st_uid)}, not to {policy.student}")


def _walk_dir(fd, rel, policy, dest, counts):
    st = os.fstat(fd)
    _check_owner(st, rel, policy)
    latest = st.st_ctime
    if dest is not None and rel:
        os.mkdir(os.path.join(dest, rel), 0o755)
    with os.scandir(fd) as entries:
        for entry in entries:
            name = entry.name
            path = os.path.join(rel, name)
            if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
                raise Refused(f"{path!r} has a control character in its name")
            # Every entry counts against the limit, also those skipped (ignored names like *.pyc):
            # otherwise any number of them would cost each collect a walk over all of them.
            counts["entries"] += 1
            if counts["entries"] > policy.max_entries:
                raise Refused(f"it has more than {policy.max_entries} files and folders")
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            if policy.skipped(name, stat.S_ISDIR(st.st_mode)):
                continue
            kind = stat.S_IFMT(st.st_mode)
            if kind in _KINDS:
                what = _KINDS[kind]
                if kind == stat.S_IFLNK:
                    what += f" (to {os.readlink(name, dir_fd=fd)!r}); links are never followed"
                raise Refused(f"{path} is {what}")
            if kind == stat.S_IFREG and st.st_nlink > 1 and (policy.links == "refuse" or st.st_uid != os.geteuid()):
                raise Refused(f"{path} is a hard link ({st.st_nlink} names for one file, owned by "
                              f"{user_name(st.st_uid)}); hard links are not taken")
            _check_owner(st, path, policy)
            if kind == stat.S_IFDIR:
                try:
                    child = _open_dir(name, dir_fd=fd)
                except OSError as exc:
                    raise Refused(f"{path} cannot be opened ({exc.strerror})") from None
                try:
                    if (os.fstat(child).st_dev, os.fstat(child).st_ino) != (st.st_dev, st.st_ino):
                        raise Refused(f"{path} changed while it was being read")
                    latest = max(latest, _walk_dir(child, path, policy, dest, counts))
                finally:
                    os.close(child)
                continue
            latest = max(latest, _take_file(fd, name, path, st, policy, dest, counts))
    return max(latest, os.fstat(fd).st_ctime)  # entries added while it was read make it later


def _too_big(path, size, policy, counts):
    if size > policy.max_file_bytes:
        return f"{path} is {size:,} bytes, over the limit of {policy.max_file_bytes:,} bytes per file"
    if counts["bytes"] + size > policy.max_submission_bytes:
        return (f"its files are over {policy.max_submission_bytes:,} bytes in all (the limit per submission) "
                f"with {path}")
    return None


def _take_file(fd, name, path, st, policy, dest, counts):
    problem = _too_big(path, st.st_size, policy, counts)
    if problem:
        raise Refused(problem)
    if dest is None:  # checking only: the listed inode's own ctime
        counts["bytes"] += st.st_size
        return st.st_ctime
    try:
        src = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, dir_fd=fd)
    except OSError as exc:
        raise Refused(f"{path} cannot be opened ({exc.strerror})") from None
    try:
        now = os.fstat(src)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            raise Refused(f"{path} changed while it was being read")
        size = 0
        out = os.open(os.path.join(dest, path), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                      0o644)
        try:
            while True:
                chunk = os.read(src, CHUNK)
                if not chunk:
                    break
                size += len(chunk)
                problem = _too_big(path, size, policy, counts)
                if problem:
                    raise Refused(problem + " (it grew while it was copied)")
                os.write(out, chunk)
        finally:
            os.close(out)
        counts["bytes"] += size
        return os.fstat(src).st_ctime  # after the last read: every byte copied was written by then
    finally:
        os.close(src)


# ---- who made a submission ---------------------------------------------------------------------
def parse_submission_name(name, assignment=None):
    """(student id, the timestamp the student's nbgrader wrote) of the inbound folder ``name``, or
    ValueError saying why it is not a submission's name."""
    parts = name.split("+")
    if len(parts) not in (3, 4) or (assignment is not None and parts[1] != assignment):
        raise ValueError("its name does not split into student+assignment+timestamp[+random] "
                         "(nbgrader would take the wrong student or assignment from it)")
    student = parts[0]
    for kind, value in (("student id", student), ("assignment id", parts[1])):
        problem = id_problem(value)
        if problem:
            raise ValueError(f"the {kind} {value!r} in its name is not allowed: {problem}")
    try:
        claimed = parse_utc(parts[2])
    except (ValueError, OverflowError, TypeError):
        raise ValueError(f"the timestamp {parts[2]!r} in its name cannot be read") from None
    return student, claimed


def made_by(path, student):
    """(uid, lstat) of the inbound folder ``path`` when the Unix user ``student`` made it, else
    ValueError naming who did."""
    try:
        uid = pwd.getpwnam(student).pw_uid
    except KeyError:
        raise ValueError(f"there is no Unix user named {student!r}, so nobody can have submitted as them") from None
    try:
        st = os.lstat(path)
    except OSError as exc:
        raise ValueError(f"it cannot be read ({exc.strerror})") from None
    if not stat.S_ISDIR(st.st_mode):
        raise ValueError("it is not a folder (a link or a file); links are never followed")
    if st.st_uid != uid:
        raise ValueError(f"it claims to be {student}'s submission, but the Unix user {user_name(st.st_uid)} made it; "
                         f"it is not taken as {student}'s")
    return uid, st


def utc(when):
    """An aware datetime as nbgrader keeps times: naive UTC."""
    return when.astimezone(datetime.timezone.utc).replace(tzinfo=None)


# ---- the exchange's modes --------------------------------------------------------------------
class OwnedExchange(default.Exchange):
    """nbgrader's exchange with the modes checked when a command starts, and the limits above."""

    max_file_bytes = Int(20 * MB, help="Largest file a submission may hold (bytes)").tag(config=True)
    max_submission_bytes = Int(50 * MB, help="Largest total size of a submission (bytes)").tag(config=True)
    max_entries = Int(200, help="Most files and folders a submission may hold").tag(config=True)
    course_owner = Unicode("", help="The Unix user who must own the course's folder in the exchange "
                                    "(the instructor); empty: whoever owns it").tag(config=True)
    _fixes_modes = False  # release_assignment sets the modes it can

    def policy(self, **kw):
        return Policy(self.max_file_bytes, self.max_submission_bytes, self.max_entries,
                      ignore=self.coursedir.ignore, include=self.coursedir.include, **kw)

    def _mode_problem(self, path, want, why, fix, owner=None):
        """Check one folder of the exchange; set the modes ``want`` if this user owns it and may fix."""
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return None
        if not stat.S_ISDIR(st.st_mode):
            self.fail(f"The exchange folder {path} is not a folder (a link or a file): it must be a real folder. "
                      f"Fix (as root): remove it and run nbgrader release_assignment again")
        if owner is not None and st.st_uid != owner:
            self.fail(f"The exchange folder {path} belongs to {user_name(st.st_uid)}, not to {user_name(owner)}: "
                      f"someone else made it. Fix (as root): move it away and run nbgrader release_assignment")
        mode = stat.S_IMODE(st.st_mode)
        bad = want(mode)
        if bad and self._fixes_modes and st.st_uid == os.geteuid():
            new = fix(mode)
            self.log.warning("Setting the mode of %s from %o to %o: %s", path, mode, new, why)
            os.chmod(path, new)
            return st
        if bad:
            who = "root" if st.st_uid == 0 else f"{user_name(st.st_uid)} or root"
            self.fail(f"The exchange folder {path} has mode {mode:o}: {bad}. Fix (as {who}): chmod {fix(mode):o} {path}")
        return st

    def check_modes(self):
        root = self.root
        st = self._mode_problem(
            root, lambda m: "" if m & 0o1777 == 0o1777 else
            ("it has no sticky bit, so a student could rename the course's folder away and put her own in its place"
             if m & 0o777 == 0o777 else "every user must be able to read, write and enter it, with the sticky bit"),
            "the exchange root is 1777 (sticky)", lambda m: 0o1777)
        if st is None or not self.coursedir.course_id:
            return
        course = os.path.join(root, self.coursedir.course_id)
        owner = None
        if self.course_owner:
            try:
                owner = pwd.getpwnam(self.course_owner).pw_uid
            except KeyError:
                self.fail(f"ExchangeFactory's course_owner {self.course_owner!r} is not a Unix user")
        if st.st_uid not in (0,) and owner is not None and st.st_uid != owner:
            self.fail(f"The exchange root {root} belongs to {user_name(st.st_uid)}: it must belong to root or to "
                      f"{self.course_owner}. Fix (as root): chown root {root}")
        shared = 0o020 if self.coursedir.groupshared else 0
        not_writable = lambda m: "others can write to it" if m & (0o022 & ~shared) else ""  # noqa: E731
        cst = self._mode_problem(course, not_writable, "only the instructor may write the course's folder",
                                 lambda m: m & ~(0o022 & ~shared), owner)
        if cst is None:
            return
        for sub in ("outbound", "feedback"):
            self._mode_problem(os.path.join(course, sub), not_writable, "only the instructor may write it",
                               lambda m: m & ~(0o022 & ~shared), cst.st_uid)
        self._mode_problem(
            os.path.join(course, "inbound"),
            lambda m: ("others can list it (a student would see classmates' submissions)" if m & 0o004 else
                       "it has no sticky bit (a student could rename a classmate's submission)" if not m & 0o1000 else
                       "students cannot write to it" if m & 0o003 != 0o003 else ""),
            "inbound/ is 3733: writable and not listable by students, sticky",
            lambda m: (m & ~0o004) | 0o3003 | 0o300, cst.st_uid)

    def start(self):
        self.check_modes()
        return super().start()

    def check_ids(self):
        for kind, value in (("course id", self.coursedir.course_id), ("assignment id", self.coursedir.assignment_id)):
            if value:
                try:
                    check_id(kind, value)
                except ValueError as exc:
                    self.fail(str(exc))

    def safe_copy(self, src, dest, policy):
        """``walk`` into the new folder ``dest``; on refusal remove it and fail with the reason."""
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        try:
            return walk(src, policy, dest)
        except Refused as exc:
            shutil.rmtree(dest, ignore_errors=True)
            self.fail(f"Refused {src}: {exc}. Nothing was submitted.")


class ReleaseAssignment(OwnedExchange, default.ExchangeReleaseAssignment):
    _fixes_modes = True

    def init_dest(self):
        self.check_ids()
        super().init_dest()  # makes the course's folders (nbgrader's modes) when they are missing
        self.check_modes()   # ... and the sticky bits where this user owns them


class FetchAssignment(OwnedExchange, default.ExchangeFetchAssignment):
    pass


class ReleaseFeedback(OwnedExchange, default.ExchangeReleaseFeedback):
    pass


class FetchFeedback(OwnedExchange, default.ExchangeFetchFeedback):
    pass


class List(OwnedExchange, default.ExchangeList):
    """nbgrader list; with --inbound, only the submissions their student made (the others are named)."""

    def init_dest(self):
        super().init_dest()
        if not self.inbound:
            return
        kept = []
        for path in self.assignments:
            try:
                made_by(path, parse_submission_name(os.path.basename(path))[0])
                kept.append(path)
            except ValueError as exc:
                self.log.warning("Not listed: %r: %s", os.path.basename(path), exc)
        self.assignments = kept


class Submit(OwnedExchange, default.ExchangeSubmit):
    """nbgrader submit, copying only the student's own regular files, within the limits."""

    def init_src(self):
        super().init_src()
        self.check_ids()

    def init_dest(self):
        me = get_osusername()
        if self.coursedir.student_id not in ("*", "", me):
            self.fail(f"You are the Unix user {me}: you cannot submit as {self.coursedir.student_id!r}. "
                      f"A submission belongs to the user who makes it")
        check_id_or_fail(self, "student id", me)
        super().init_dest()

    def do_copy(self, src, dest, log=None):
        self.safe_copy(src, dest, self.policy(links="foreign"))

    def copy_files(self):
        super().copy_files()
        # nbgrader leaves the submission 0777 "so the instructor can delete it"; nobody else may write to it.
        os.chmod(os.path.join(self.inbound_path, self.assignment_filename), 0o755)


def check_id_or_fail(exchange, kind, value):
    try:
        check_id(kind, value)
    except ValueError as exc:
        exchange.fail(str(exc))


class Collect(OwnedExchange, default.ExchangeCollect):
    """nbgrader collect: each student's latest submission made by that student, at the exchange's time."""

    def refuse(self, name, why):
        self.refused.append(name)
        self.log.error("Refused the submission %r: %s", name, why)

    def exchange_time(self, seconds):
        return datetime.datetime.fromtimestamp(seconds, gettz(self.timezone))

    def init_src(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.check_ids()
        assignment = self.coursedir.assignment_id
        wanted = self.coursedir.student_id if self.coursedir.student_id not in ("", "*") else None
        if wanted:
            check_id_or_fail(self, "student id", wanted)
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail("Course not found: {}".format(self.inbound_path))
        if not os.access(self.inbound_path, os.R_OK | os.X_OK):
            self.fail("You don't have read permissions for the directory: {}".format(self.inbound_path))
        self.refused = []
        records = []
        with os.scandir(self.inbound_path) as entries:
            names = [e.name for e in entries if f"+{assignment}+" in e.name]
        for name in sorted(names):
            rec = self._record(name, assignment, wanted)
            if rec:
                records.append(rec)
        groups = {}
        for rec in records:
            groups.setdefault(rec["username"], []).append(rec)
        from nbgrader.api import Gradebook, MissingEntry
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                self.duedate = gb.find_assignment(assignment).duedate
            except MissingEntry:
                self.duedate = None
        self.src_records = []
        for recs in groups.values():
            recs = self._sort_by_timestamp(recs)
            if self.duedate is not None and self.before_duedate:
                early = [r for r in recs if r["timestamp"] <= self.duedate]
                recs = early or recs
            self.src_records.append(recs[0])

    def _record(self, name, assignment, wanted):
        if wanted and name.split("+")[0] != wanted:
            return None
        path = os.path.join(self.inbound_path, name)
        try:
            student, claimed = parse_submission_name(name, assignment)
            uid, st = made_by(path, student)
        except ValueError as exc:
            return self.refuse(name, str(exc))
        error, seconds = None, st.st_ctime
        try:
            seconds = walk(path, self.policy(owner=uid, student=student))
        except Refused as exc:
            error = str(exc)
        return {"username": student, "filename": name, "timestamp": utc(self.exchange_time(seconds)),
                "claimed": claimed, "uid": uid, "error": error}

    def copy_files(self):
        assignment = self.coursedir.assignment_id
        if not self.src_records:
            self.log.warning("No submissions of '%s' for course '%s' to collect", assignment, self.coursedir.course_id)
        else:
            self.log.info("Processing %d submissions of '%s' for course '%s'", len(self.src_records), assignment,
                          self.coursedir.course_id)
        for rec in self.src_records:
            self._collect(rec, assignment)
        if self.refused:
            self.log.error("Refused %d submission(s) of '%s' (see above): none was taken as anyone's, and what was "
                           "collected before is unchanged", len(self.refused), assignment)

    def _collect(self, rec, assignment):
        student, name = rec["username"], rec["filename"]
        if rec["error"]:
            return self.refuse(name, f"{rec['error']}; {student}'s latest submission is not taken")
        dest = self.coursedir.format_path(self.coursedir.submitted_directory, student, assignment)
        parent = os.path.dirname(dest)
        os.makedirs(parent, exist_ok=True)
        if os.path.isdir(dest):
            existing = self.coursedir.get_existing_timestamp(dest)
            newer = existing is None or rec["timestamp"] > existing
            if not (self.update and newer) and not (self.before_duedate and existing != rec["timestamp"]):
                if self.update:
                    self.log.info("No newer submission to collect: %s %s", student, assignment)
                else:
                    self.log.info("Submission already exists, use --update to update: %s %s", student, assignment)
                return None
            self.log.info("Updating submission: %s %s", student, assignment)
        else:
            self.log.info("Collecting submission: %s %s", student, assignment)
        tmp = tempfile.mkdtemp(prefix=f".collecting-{assignment}-", dir=parent)
        try:
            seconds = walk(os.path.join(self.inbound_path, name), self.policy(owner=rec["uid"], student=student),
                           os.path.join(tmp, "copy"))
        except Refused as exc:
            shutil.rmtree(tmp)
            return self.refuse(name, f"{exc}; {student}'s latest submission is not taken")
        copy = os.path.join(tmp, "copy")
        when = self.exchange_time(seconds)
        theirs = os.path.join(copy, "timestamp.txt")
        said = None
        try:
            with open(theirs) as fh:
                said = parse_utc(fh.read(200).strip())
        except (OSError, ValueError, OverflowError, TypeError):
            pass
        for label, claim in (("timestamp.txt", said), ("folder name", rec["claimed"])):
            if claim is None or abs((claim - utc(when)).total_seconds()) > 60:
                self.log.warning("%s's submission %r: its %s says %s, the exchange saw it at %s; recorded %s",
                                 student, name, label, claim, when.strftime(self.timestamp_format),
                                 when.strftime(self.timestamp_format))
        with open(theirs, "w") as fh:
            fh.write(when.strftime(self.timestamp_format))
        old = None
        if os.path.isdir(dest):
            old = os.path.join(tmp, "replaced")
            os.rename(dest, old)
        os.rename(copy, dest)
        shutil.rmtree(tmp)
        return None


# ---- configuration -----------------------------------------------------------------------------
def register(c, module=__name__):
    """Set every ``c.ExchangeFactory.*`` to this module's classes (imported as ``module``)."""
    for trait, cls in CLASSES.items():
        setattr(c.ExchangeFactory, trait, f"{module}.{cls}")


def shared_config(exchange_root, course_id, lib_dir, course_owner):
    """The text of the nbgrader_config.py every user of a shared machine loads: the exchange, the
    course id, and these classes from ``lib_dir/level23_exchange.py`` (``install``)."""
    lines = ["import sys", "", "c = get_config()  # noqa: F821",
             f"c.Exchange.root = {str(exchange_root)!r}",
             f"c.CourseDirectory.course_id = {course_id!r}",
             "# The exchange that knows who submitted (grading/plugins/exchange.py, copied here).",
             f"if {str(lib_dir)!r} not in sys.path:",
             f"    sys.path.append({str(lib_dir)!r})",
             f"c.OwnedExchange.course_owner = {course_owner!r}"]
    lines += [f"c.ExchangeFactory.{trait} = {SHARED_MODULE + '.' + cls!r}" for trait, cls in CLASSES.items()]
    return "\n".join(lines) + "\n"


def make_exchange(root, course_id, owner):
    """The exchange root ``root`` (mode 1777, root's) with the course's folders made by the Unix user
    ``owner`` (the instructor) before any student can: the course's folder and ``outbound/`` 0755,
    ``inbound/`` 3733, ``feedback/`` 0711. Run as root."""
    pw = pwd.getpwnam(owner)
    os.makedirs(root, exist_ok=True)
    os.chown(root, 0, 0)
    os.chmod(root, 0o1777)
    course = os.path.join(root, course_id)
    for path, mode in ((course, 0o755), (os.path.join(course, "outbound"), 0o755),
                       (os.path.join(course, "inbound"), 0o3733), (os.path.join(course, "feedback"), 0o711)):
        try:
            os.mkdir(path)
            made = True
        except FileExistsError:
            made = False
        st = os.lstat(path)
        if not stat.S_ISDIR(st.st_mode):
            raise RuntimeError(f"{path} is not a folder: remove it and run this again")
        if not made and st.st_uid != pw.pw_uid:
            raise RuntimeError(f"{path} was made by {user_name(st.st_uid)}, not by {owner}: look at what it holds, "
                               f"remove it and run this again")
        os.chown(path, pw.pw_uid, pw.pw_gid)
        os.chmod(path, mode)


def install(lib_dir):
    """Copy this module to ``lib_dir`` as ``level23_exchange.py``, readable by every user."""
    os.makedirs(lib_dir, mode=0o755, exist_ok=True)
    target = os.path.join(lib_dir, SHARED_MODULE + ".py")
    rule = os.path.join(lib_dir, SHARED_IDS + ".py")
    shutil.copyfile(os.path.abspath(__file__.replace(".pyc", ".py")), target)
    shutil.copyfile(os.path.abspath(_ids.__file__.replace(".pyc", ".py")), rule)
    os.chmod(lib_dir, 0o755)
    for path in (target, rule):
        os.chmod(path, 0o644)
    return target
