"""`make grade`: autograde every submission in parallel, then feedback and the class report.

    python -m grading.grade [--workers N] [--db-url URL] [--no-feedback] [--deadline S] [--unsafe-no-sandbox]
                            [--cold-kernels]

Students are handed out one at a time to the workers (one per core and one more, by default: default_workers). Each
worker is one process running the real nbgrader (its Python API, the code behind
`nbgrader autograde --student`), so nbgrader's ~3 s start-up is paid once per worker,
not once per student. Each notebook's kernel is forked from a prepared parent that has
imported torch, IPython and the rest once (grading/sandbox/forkserver.py): one for the whole run,
which forks the workers too, so the class pays for those imports once; --cold-kernels starts
plain new kernel processes (and workers) instead. Every kernel runs in the sandbox (grading/sandbox/kernels.py); a
student whose grading outlives the deadline, or whose worker dies, is listed as not
graded with the reason, and a fresh worker carries on with the rest. All workers write into one gradebook:
SQLite by default (with a lock timeout, so concurrent writers wait their turn) or
PostgreSQL through --db-url, for courses with several graders.
"""

import argparse
import html
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple, Optional

from grading import ASSIGNMENT, ASSIGNMENTS, ROOT, ids, pipeline
from grading.sandbox import budgets, kernels as sandbox
from grading.plugins import speedups

DEADLINE = budgets.DEADLINE  # seconds for one student's whole submission, past their budgets (grading/sandbox/budgets.py)
STARTUP = 300  # seconds a worker may take to start nbgrader, check the sandbox and start its fork server
SHARED_OFF_ENV = "GRADER_NO_SHARED_FORK_SERVER"  # "1": a fork server per worker, each a new process (comparisons)


def students(course, assignment=ASSIGNMENT):
    base = Path(course) / "submitted"
    return sorted(p.parent.name for p in base.glob(f"*/{assignment}") if p.is_dir())


class Submission(NamedTuple):
    """One queue item: an assignment (or edition) and a student; ``refused`` says why it is not graded."""

    assignment: str
    student: str
    refused: Optional[str] = None

    def __str__(self):
        """How the report and the terminal name it (an odd id as its repr, so no control character is printed)."""
        from grading import report

        return report.not_graded_key(repr(self.student) if ids.problem(self.student) else self.student,
                                     self.assignment)


def submissions(course):
    """What to grade: one Submission per folder submitted/<student>/<assignment>, for every assignment.

    A student id that breaks the id rule (grading/ids.py) is refused here, with the message, and never
    handed to a worker; every other student is graded.
    """
    items = []
    for assignment in ASSIGNMENTS:
        for student in students(course, assignment):
            items.append(Submission(assignment, student, refusal(assignment, student)))
    return items


def refusal(assignment, student):
    """Why this assignment and student cannot be graded (an odd id, grading/ids.py), or None."""
    return ids.check_id("assignment", assignment) or ids.check_id("student", student)


def as_submission(item, default=ASSIGNMENT):
    """A queue item as a Submission: a Submission, or a student id alone (of ``default``)."""
    return item if isinstance(item, Submission) else Submission(default, item)


def default_db_url(course):
    return f"sqlite:///{Path(course).resolve() / 'gradebook.db'}?timeout=120"


def progress(done, total, width=30):
    filled = int(width * done / total) if total else width
    return f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total}"


class ForkedWorker:
    """A worker forked by the shared fork server, as run_workers uses a Popen: stdin, stdout, pid, poll, wait.

    It is not this process's child, so its exit code is not known (``returncode`` stays None once it is gone).
    """

    returncode = None

    def __init__(self, pid, stdin_fd, stdout_fd):
        from grading.sandbox import forkserver

        self.pid = pid
        self._process = forkserver.ForkedProcess(pid)
        self.stdin = os.fdopen(stdin_fd, "w", buffering=1)
        self.stdout = os.fdopen(stdout_fd, "r", buffering=1)

    def poll(self):
        return self._process.poll()

    def wait(self, timeout=None):
        self._process.wait(timeout)

    def kill(self):
        self._process.kill()


def _shared_fork_server(log):
    """One fork server for every worker of this run (grading/sandbox/forkserver.py, ``serve_shared``): it imports torch,
    IPython and the rest once for the class and forks both the workers and their kernels. None where kernels
    start cold, or if it cannot start (each worker then starts its own, as plain nbgrader does)."""
    import tempfile

    from grading.sandbox import forkserver

    if sandbox.cold() or os.environ.get(SHARED_OFF_ENV) == "1":
        return None
    folder = Path(tempfile.mkdtemp(prefix="nbg-forkserver-"))  # mode 0700: no sandbox user reaches the socket
    try:
        server = forkserver.ForkServer(sandbox.fork_server_env(), log=log if log != subprocess.DEVNULL else None,
                                      listen=folder / "socket")
        return server, forkserver.SharedForkServer(folder / "socket"), folder
    except (forkserver.ForkServerError, OSError) as exc:
        sys.stderr.write(f"One fork server per worker: the shared one did not start ({exc}).\n")
        shutil.rmtree(folder, ignore_errors=True)
        return None


def _start_worker(course, db_url, log, shared=None, made_once=None):
    args = ["--worker", "--course", str(course), "--db-url", db_url]
    env = pipeline.env()
    if made_once:  # the run's folder of results made once for all its workers (speedups.made_once_per_run)
        env[speedups.SHARED_ENV] = made_once
    if shared:
        _, client, folder = shared
        env[forkserver_socket_env()] = str(folder / "socket")
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err = log.fileno() if hasattr(log, "fileno") else os.open(os.devnull, os.O_WRONLY)
        try:
            reply = client.request({"worker": {"cwd": str(course), "env": env, "module": "grading.grade",
                                               "args": args, "preload": "grading.grade:preload"}},
                                   fds=[in_r, out_w, err])
        finally:
            for fd in (in_r, out_w) + (() if hasattr(log, "fileno") else (err,)):
                os.close(fd)
        if "pid" in reply:
            return ForkedWorker(reply["pid"], in_w, out_r)
        os.close(in_w)
        os.close(out_r)
        sys.stderr.write(f"The shared fork server could not start a worker ({reply.get('error')}): a new process instead.\n")
        env.pop(forkserver_socket_env())
    cmd = [sys.executable, "-m", "grading.grade", *args]
    # Its own session, so a deadline can stop it and everything it started (kernels, sandboxes).
    return subprocess.Popen(cmd, cwd=course, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=log, text=True, bufsize=1, start_new_session=True)


def forkserver_socket_env():
    from grading.sandbox import forkserver

    return forkserver.SOCKET_ENV


def _stop(proc):
    """Stop a worker and everything it started (its process group; a forked worker's kernels die with its
    connection to the shared fork server)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        proc.kill()  # a forked worker killed before its setsid() is not yet a process group
    except OSError:
        pass
    proc.wait()


def _exit_note(proc):
    code = proc.poll()
    return f" (exit code {code})" if isinstance(proc, subprocess.Popen) and code is not None else ""


def run_workers(course, names, workers, db_url, echo=True, deadline=DEADLINE, log=None, assignment=ASSIGNMENT,
                start_deadline=STARTUP):
    """Grade ``names`` in ``workers`` processes; return {name: error or None}.

    Each name is a Submission, or a student id of ``assignment``. One whose id breaks the id rule
    (or a Submission already ``refused``) is not graded: its error is the refusal.

    A worker first starts nbgrader, checks the sandbox and starts its fork server, then says
    it is ready; only then is it handed a student, one at a time, so ``deadline`` counts one
    student's grading and nothing else. A student whose grading outlives it has its worker
    stopped (with its kernels) and is listed as not graded; so is a student whose worker
    dies. A fresh worker takes over the rest of the queue. If workers keep failing to start
    (``start_deadline`` seconds each, three times), the students left are listed with the reason.
    nbgrader's log of every student goes to the file ``log`` (default: nowhere).

    With forked kernels, one fork server serves the whole run: it forks the workers as well as
    their kernels, so torch, IPython and the rest are imported once for the class, not once per
    worker (``_shared_fork_server``). What every worker would make alike for the class (the diagnosis
    models of the hidden checks) is made by one and read by the others from a folder of the run
    (``speedups.made_once_per_run``).
    """
    import tempfile

    log_file = open(log, "a") if log else subprocess.DEVNULL
    shared = _shared_fork_server(log_file) if names else None
    made_once = tempfile.mkdtemp(prefix="nbg-shared-results-")  # mode 0700: only this run's workers
    try:
        return _run(course, names, workers, db_url, echo, deadline, log_file, assignment, start_deadline, shared,
                    made_once)
    finally:
        shutil.rmtree(made_once, ignore_errors=True)
        if shared:
            server, client, folder = shared
            client.close()
            server.close()
            shutil.rmtree(folder, ignore_errors=True)
        if log:
            log_file.close()


def _run(course, names, workers, db_url, echo, deadline, log_file, assignment, start_deadline, shared, made_once):
    import selectors

    queue, results = [], {}
    for name in names:
        item = as_submission(name, assignment)
        why = item.refused or refusal(item.assignment, item.student)
        if why:
            results[name] = why
        else:
            queue.append(name)
    busy = {}  # worker -> (student, or None while it starts; when that began)
    failed_starts = []
    sel = selectors.DefaultSelector()

    def hand_out(proc):
        if queue:
            student = queue.pop(0)
            busy[proc] = (student, time.monotonic())
            item = as_submission(student, assignment)
            proc.stdin.write(json.dumps({"assignment": item.assignment, "student": item.student}) + "\n")
            proc.stdin.flush()
        else:
            busy.pop(proc, None)
            sel.unregister(proc.stdout)
            proc.stdin.close()
            proc.wait()

    def replace(proc, reason):
        student, _ = busy.pop(proc)
        sel.unregister(proc.stdout)
        _stop(proc)
        if student is None:
            failed_starts.append(reason)
            then = ("no more are tried" if len(failed_starts) >= 3 else "another takes its place"
                    if queue and len(busy) < workers else "the workers running carry on")
            note = f"A grading worker did not start: {reason}; {then}.\n"
            if hasattr(log_file, "write"):  # after what the worker itself wrote there
                log_file.write(note)
                log_file.flush()
            if echo:
                sys.stderr.write("\n" + note + ("(what it printed is in the log)\n" if hasattr(log_file, "write") else ""))
            if len(failed_starts) >= 3:
                while queue:
                    results[queue.pop(0)] = f"no grading worker could start: {reason}"
        else:
            results[student] = reason
        if queue and len(busy) < workers:
            add_worker()

    def add_worker():
        proc = _start_worker(course, db_url, log_file, shared, made_once)
        sel.register(proc.stdout, selectors.EVENT_READ, proc)
        busy[proc] = (None, time.monotonic())

    for _ in range(min(workers, len(queue))):
        add_worker()
    while busy:
        for key, _ in sel.select(timeout=1):
            proc = key.data
            if proc not in busy:
                continue
            line = proc.stdout.readline()
            try:
                record = json.loads(line)
            except ValueError:
                record = None
            student = busy[proc][0]
            if isinstance(record, dict) and student is None and record.get("ready"):
                hand_out(proc)
                continue
            if not isinstance(record, dict) or student is None or record.get("item") != list(
                    as_submission(student, assignment)[:2]):
                replace(proc, f"its grading process stopped{_exit_note(proc)}")
                continue
            results[student] = record["error"]
            hand_out(proc)
        now = time.monotonic()
        for proc, (student, started) in list(busy.items()):
            if student is None and now - started > start_deadline:
                replace(proc, f"a grading worker did not start within {start_deadline:.0f} s")
            elif student is not None and now - started > deadline:
                replace(proc, f"grading took longer than the {deadline:.0f} s deadline and was stopped")
        if echo:
            print(f"\r{progress(len(results), len(names))}", end="", flush=True)
    if echo:
        print()
    for name in names:
        results.setdefault(name, "the worker grading this student stopped")
    return results


def preload():
    """What a worker imports before its first student, in the course folder: nbgrader, the grader's modules and
    the course's nbgrader_config.py (its preprocessors and speed-ups). make grade's shared fork server runs this
    once per run, in a worker template it forks the workers from (grading/sandbox/forkserver.py ``_zygote``); a worker
    started as a new process imports the same itself."""
    from nbgrader.apps import NbGraderAPI  # noqa: F401
    from traitlets.config.loader import PyFileConfigLoader

    PyFileConfigLoader("nbgrader_config.py", path=os.getcwd()).load_config()
    from grading import report  # noqa: F401
    from grading.judge import diagnosis, rules, rules23, verdicts
    from grading.plugins import sanitize

    _warm_up()


def _warm_up():
    """What a worker's first notebook compiles or sets up, done here instead (in the template, once per run): the
    gradebook's mappers and its SQL dialect; nbformat's notebook validators (fastjsonschema), both ways nbconvert and
    nbgrader call them, for the format versions of the course's released notebooks and the one JupyterLab writes;
    and the compiled check of each kind of output and cell (``speedups._fast_ref_validate``), as nbclient makes
    them. A worker's first submission cost 0.24-0.31 CPU-s more than its second; after it, 0.09-0.19."""
    import copy
    import glob
    import warnings

    import nbformat
    import sqlalchemy.orm
    from nbformat import v4
    from nbgrader import api  # noqa: F401
    from sqlalchemy.engine import make_url

    sqlalchemy.orm.configure_mappers()  # the gradebook's classes, set up at its first query otherwise
    make_url(default_db_url(Path.cwd())).get_dialect()  # the course's gradebook's SQL dialect, imported
    outputs = [v4.new_output("stream", name="stdout", text="1\n"),
               v4.new_output("display_data", data={"text/plain": "1"}),
               v4.new_output("execute_result", data={"text/plain": "1"}, execution_count=1),
               v4.new_output("error", ename="ZeroDivisionError", evalue="division by zero", traceback=[])]
    nb = v4.new_notebook(cells=[v4.new_code_cell("1", outputs=outputs, execution_count=1), v4.new_markdown_cell("a"),
                                v4.new_raw_cell("b")])
    minors = {v4.nbformat_minor}
    for path in glob.glob(os.path.join("release", "*", "*.ipynb")):
        try:
            with open(path, encoding="utf-8") as fh:
                minors.add(int(json.load(fh)["nbformat_minor"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    for minor in sorted(m for m in minors if 0 <= m <= v4.nbformat_minor):
        version = copy.deepcopy(nb)
        version.nbformat_minor = minor
        if minor < 5:  # cell ids came with 4.5
            for cell in version.cells:
                cell.pop("id", None)
        for relax in (False, True):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    nbformat.validate(version, relax_add_props=relax)
                except nbformat.ValidationError:
                    pass  # compiled all the same


def cut_notebooks(course):
    """{"<student>/<assignment>/<notebook>": what was cut} of every autograded notebook cut to the grader's bounds
    (grading/plugins/sanitize.py: bound_notebook), or with no feedback page, for the class report (issue 41)."""
    from grading.plugins import sanitize
    from grading.plugins.preprocessors import PAGE_CUT_META

    out = {}
    for path in sorted(Path(course).glob("autograded/*/*/*.ipynb")):
        student, assignment = path.parent.parent.name, path.parent.name
        key = f"{student}/{assignment}/{path.stem}"
        try:  # bounded in size by the grader (CapOutputSize); the note, where there is one, is the first cell
            with open(path, encoding="utf-8", errors="replace") as f:
                first = (json.load(f).get("cells") or [{}])[0]
            said = first.get("metadata", {}).get(sanitize.CUT_MARK) if isinstance(first, dict) else None
        except (ValueError, AttributeError):
            said = None
        if said:
            out[key] = str(said)
        page = Path(course) / "feedback" / student / assignment / f"{path.stem}.html"
        if not page.exists():
            out[key] = out.get(key, "") + ("; " if key in out else "") + "no feedback page was made"
            continue
        with open(page, encoding="utf-8", errors="replace") as f:
            head = f.read(2_000)  # a cut page's <meta> is the first line of its <head> (PageExporter, issue 41)
        said = re.search(f"<meta name='{PAGE_CUT_META}' content='([^']*)'>", head)
        if said:
            out[key] = (out.get(key, "") + ("; " if key in out else "") + "its feedback page was cut: "
                        + html.unescape(said.group(1)))
    return out


def worker(course, db_url):
    """Grade the submissions named on stdin, one JSON line {"assignment", "student"} each, in this process;
    one JSON line {"item": [assignment, student], "error"} per submission."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    os.chdir(course)
    config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    config.CourseDirectory.db_url = db_url
    api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
    problem = sandbox.prepare()  # before the first student, so the deadline counts grading only
    if problem:
        sys.stderr.write(problem + "\n")
        return
    if not sandbox.unsafe():
        from grading.sandbox import cgroups

        sys.stderr.write(f"[worker {os.getpid()}] {cgroups.confine_worker()}\n")  # issue 41: the grader's own memory
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        assignment, student = request["assignment"], request["student"]
        error = refusal(assignment, student)  # nbgrader reads a student id as a glob pattern: never an odd one
        result = {"success": False, "log": error}
        for attempt in range(0 if error else 3):  # a locked gradebook is retried, not lost
            result = api.autograde(assignment, student, force=True, create=True)
            if result["success"]:
                break
            error = _first_error(result)
            if "database is locked" not in (result.get("error", "") + result.get("log", "")):
                break
            time.sleep(1 + attempt)
        sys.stderr.write(f"==== {Submission(assignment, student)}\n{result.get('log') or ''}{result.get('error') or ''}\n")
        sys.stderr.flush()
        print(json.dumps({"item": [assignment, student], "error": None if result["success"] else error}), flush=True)


def _first_error(result):
    text = (result.get("log") or "") + "\n" + (result.get("error") or "")
    lines = [l for l in text.splitlines() if "Error" in l or "ERROR" in l]
    return (lines[-1] if lines else text.strip().splitlines()[-1] if text.strip() else "failed")[:300]


def kernels(cold_kernels):
    """Forked kernels (the default) or cold ones, for this process and every worker it starts."""
    if cold_kernels:
        os.environ[sandbox.COLD_ENV] = "1"
        return
    os.environ.pop(sandbox.COLD_ENV, None)
    if sandbox.cold():
        print("Not root: each kernel is started cold in bubblewrap (forked kernels build their own namespaces, "
              "which needs root).", file=sys.stderr)


def sandbox_ready(unsafe):
    """Check the grading sandbox before any student code runs; print what to do if it cannot start."""
    if unsafe:
        os.environ[sandbox.UNSAFE_ENV] = "1"
        print("WARNING: --unsafe-no-sandbox: student code runs unconfined, with your permissions, your files and\n"
              "the network. Verdicts are still decided by the grader, but a hostile submission can read the hidden\n"
              "tests, change the gradebook or stop the grading. Use it only for code you trust.", file=sys.stderr)
        return True
    os.environ.pop(sandbox.UNSAFE_ENV, None)
    problem = sandbox.check()
    if problem:
        print(problem, file=sys.stderr)
        return False
    print(sandbox.limits_note(), file=sys.stderr)
    return True


def default_workers():
    """One worker per core and one more. A worker and its kernel take turns (the worker sends a cell and waits;
    the kernel runs it and waits for the next), so one worker per core left the cores about a fifth idle; with
    one more they are busy. Measured side by side by benchmarks/grading_speed.py (its rows "make grade" and "one
    worker per core"): the same CPU per submission, less wall."""
    return (os.cpu_count() or 1) + 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--course", default=str(ROOT))
    ap.add_argument("--workers", type=int, default=default_workers())
    ap.add_argument("--db-url")
    ap.add_argument("--no-feedback", action="store_true")
    ap.add_argument("--deadline", type=float, default=DEADLINE, help="seconds one student's grading may take")
    ap.add_argument("--unsafe-no-sandbox", action="store_true",
                    help="run student code without the sandbox (only for code you trust)")
    ap.add_argument("--cold-kernels", action="store_true",
                    help="start each kernel as a new process instead of forking it from a prepared parent")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    course = Path(args.course).resolve()
    db_url = args.db_url or default_db_url(course)
    from grading import report

    if args.worker:
        worker(course, db_url)
        return 0
    kernels(args.cold_kernels)
    if not sandbox_ready(args.unsafe_no_sandbox):
        return 2

    names = submissions(course)
    if not names:
        print(f"no submissions in {course / 'submitted'}")
        return 1
    (course / "reports").mkdir(exist_ok=True)
    log = course / "reports" / "grading.log"
    log.write_text("")
    started = time.time()
    counts = ", ".join(f"{len(students(course, a))} in {a}" for a in ASSIGNMENTS if students(course, a))
    print(f"autograding {len(names)} submissions ({counts}) with {min(args.workers, len(names))} workers, "
          f"{'cold' if sandbox.cold() else 'forked'} kernels")
    if not args.unsafe_no_sandbox:
        from grading.sandbox import cgroups

        print("  " + (f"each grading worker's own memory is limited to {cgroups.WORKER_MEMORY / 2**30:g} GiB by "
                      f"cgroup (v{cgroups.setup().version})" if cgroups.setup() else
                      f"the grading workers' own memory is not limited by a cgroup here: {cgroups.why_not()}"))
    results = run_workers(course, names, args.workers, db_url, deadline=args.deadline, log=log)
    missed = {s: e for s, e in results.items() if e}
    print(f"Graded {len(names) - len(missed)} of {len(names)} in {time.time() - started:.0f} s")
    for student, error in sorted(missed.items()):
        print(f"  NOT GRADED {student}: {error}")
    failed = {str(item): e for item, e in missed.items()}
    if not args.no_feedback:
        for assignment in ASSIGNMENTS:
            if students(course, assignment):
                try:  # each page has its own budget (PageExporter.page_seconds); the class report comes regardless
                    pipeline.nbgrader(course, "generate_feedback", assignment, "--force",
                                      f"--CourseDirectory.db_url={db_url}", check=False)
                except subprocess.TimeoutExpired:
                    print(f"  FEEDBACK of {assignment} stopped after its time limit: some pages are missing")
    page = report.write(course, db_url, failed, cut_notebooks(course))
    print(f"Class report: {page}   nbgrader's log: {log}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
