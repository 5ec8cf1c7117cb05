"""`make grade`: autograde every submission in parallel, then feedback and the class report.

    python -m grading.grade [--workers N] [--db-url URL] [--no-feedback]

The class is split into one batch per worker (one per core by default). Each
worker is one process running the real nbgrader (its Python API, the code behind
`nbgrader autograde --student`) over its batch, so nbgrader's ~3 s start-up is
paid once per worker, not once per student. All workers write into one gradebook:
SQLite by default (with a lock timeout, so concurrent writers wait their turn) or
PostgreSQL through --db-url, for courses with several graders.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from grading import ASSIGNMENT, ROOT, pipeline


def students(course, assignment=ASSIGNMENT):
    base = Path(course) / "submitted"
    return sorted(p.parent.name for p in base.glob(f"*/{assignment}") if p.is_dir())


def batches(items, n):
    """Round-robin split into at most n non-empty batches."""
    return [b for b in (items[k::n] for k in range(n)) if b]


def default_db_url(course):
    return f"sqlite:///{Path(course).resolve() / 'gradebook.db'}?timeout=120"


def progress(done, total, width=30):
    filled = int(width * done / total) if total else width
    return f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total}"


def run_workers(course, names, workers, db_url, echo=True):
    """Grade ``names`` in ``workers`` processes; return {student: error or None}."""
    procs = []
    for batch in batches(names, workers):
        cmd = [sys.executable, "-m", "grading.grade", "--worker", "--course", str(course),
               "--db-url", db_url, "--students", ",".join(batch)]
        procs.append(subprocess.Popen(cmd, cwd=course, env=pipeline.env(), stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, text=True, bufsize=1))
    results, streams = {}, {p.stdout: p for p in procs}
    import selectors
    sel = selectors.DefaultSelector()
    for stream in streams:
        sel.register(stream, selectors.EVENT_READ)
    while streams:
        for key, _ in sel.select():
            line = key.fileobj.readline()
            if not line:
                sel.unregister(key.fileobj)
                streams.pop(key.fileobj).wait()
                continue
            record = json.loads(line)
            results[record["student"]] = record["error"]
            if echo:
                print(f"\r{progress(len(results), len(names))} {record['student'][:30]:30}", end="", flush=True)
    if echo:
        print()
    for name in names:
        results.setdefault(name, "the worker grading this student stopped")
    return results


def worker(course, db_url, names):
    """Grade ``names`` one after another in this process; one JSON line per student."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    os.chdir(course)
    config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    config.CourseDirectory.db_url = db_url
    api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
    for name in names:
        error = None
        for attempt in range(3):  # a locked gradebook is retried, not lost
            result = api.autograde(ASSIGNMENT, name, force=True, create=True)
            if result["success"]:
                break
            error = _first_error(result)
            if "database is locked" not in (result.get("error", "") + result.get("log", "")):
                break
            time.sleep(1 + attempt)
        print(json.dumps({"student": name, "error": None if result["success"] else error}), flush=True)


def _first_error(result):
    text = (result.get("log") or "") + "\n" + (result.get("error") or "")
    lines = [l for l in text.splitlines() if "Error" in l or "ERROR" in l]
    return (lines[-1] if lines else text.strip().splitlines()[-1] if text.strip() else "failed")[:300]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--course", default=str(ROOT))
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--db-url")
    ap.add_argument("--no-feedback", action="store_true")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--students", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    course = Path(args.course).resolve()
    db_url = args.db_url or default_db_url(course)
    if args.worker:
        worker(course, db_url, args.students.split(","))
        return 0

    names = students(course)
    if not names:
        print(f"no submissions in {course / 'submitted'}")
        return 1
    started = time.time()
    print(f"Autograding {len(names)} submissions with {min(args.workers, len(names))} workers")
    results = run_workers(course, names, args.workers, db_url)
    failed = {s: e for s, e in results.items() if e}
    print(f"Graded {len(names) - len(failed)} of {len(names)} in {time.time() - started:.0f} s")
    for student, error in sorted(failed.items()):
        print(f"  NOT GRADED {student}: {error}")
    if not args.no_feedback:
        pipeline.nbgrader(course, "generate_feedback", ASSIGNMENT, "--force",
                          f"--CourseDirectory.db_url={db_url}", check=False)
    from grading import report
    page = report.write(course, db_url, failed)
    print(f"Class report: {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
