"""The gradebook speed-up (grading/plugins/speedups.py: SQLite's write-ahead log) reaches plain `nbgrader` too.

A test that graded a sample class twice (speed-ups on and off) and compared grades and feedback bytes
was dropped before landing: on a loaded machine one page's stream output was split differently between
the two runs (nondeterminism in how the kernel's output reaches nbgrader, not the speed-up), and it cost
six to eleven minutes there. `benchmarks/grading_speed.py` still compares the gradebooks of its runs.
"""

import contextlib
import os
import sqlite3

import pytest

from grading import pipeline
from grading.plugins import speedups

def journal_mode(course):
    with sqlite3.connect(course / "gradebook.db") as db:
        return db.execute("PRAGMA journal_mode").fetchone()[0]


@contextlib.contextmanager
def speedups_switched(on):
    """The speed-ups on (as configured) or off (GRADER_NO_SPEEDUPS=1) for every nbgrader started meanwhile."""
    saved = os.environ.pop(speedups.OFF_ENV, None)
    if not on:
        os.environ[speedups.OFF_ENV] = "1"
    try:
        yield
    finally:
        os.environ.pop(speedups.OFF_ENV, None)
        if saved is not None:
            os.environ[speedups.OFF_ENV] = saved


def grade_class(course):
    """Grade every submission with `make grade`'s workers, then nbgrader's feedback: (scores, journal mode)."""
    results = grade.run_workers(course, grade.submissions(course), 2, grade.default_db_url(course), echo=False)
    assert not any(results.values()), results
    for assignment in sorted({item.assignment for item in grade.submissions(course)}):
        pipeline.nbgrader(course, "generate_feedback", assignment, "--force")
    return pipeline.class_scores(course), journal_mode(course)


def test_plain_nbgrader_gets_the_gradebook_speedup(tmp_path):
    """Plain `nbgrader` (any command that opens the gradebook) loads nbgrader_config.py, which applies it."""
    course = pipeline.make_course(tmp_path)
    with speedups_switched(True):
        pipeline.nbgrader(course, "db", "student", "add", "someone")
    assert journal_mode(course) == "wal"


@pytest.fixture
def gradebook_url(tmp_path, monkeypatch):
    """An SQLite gradebook's URL in ``tmp_path``, with the speed-ups applied and nbgrader's alembic on PATH."""
    import sys
    from pathlib import Path

    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")  # nbgrader runs alembic
    speedups.apply()
    return f"sqlite:///{tmp_path / 'gradebook.db'}"


def _delete_gradebook(folder):
    for name in ("gradebook.db", "gradebook.db-wal", "gradebook.db-shm"):
        (folder / name).unlink(missing_ok=name != "gradebook.db")


def test_gradebooks_of_one_file_share_an_engine_and_a_new_file_gets_its_own(gradebook_url, tmp_path):
    from nbgrader.api import Gradebook

    url = gradebook_url
    with speedups_switched(True):
        with Gradebook(url) as first:
            first.add_student("someone")
            engine = first.engine
        with Gradebook(url) as second:  # the tables are there, the engine (and its statement cache) too
            assert second.engine is engine
            assert [s.id for s in second.students] == ["someone"]
        _delete_gradebook(tmp_path)  # a deleted gradebook: a fresh engine, and its tables made again
        with Gradebook(url) as third:
            assert third.engine is not engine and third.students == []
    with speedups_switched(False):
        with Gradebook(url) as off, Gradebook(url) as off_too:
            assert off.engine is not off_too.engine


def test_a_course_row_is_checked_once_per_course_and_gradebook_file(gradebook_url, tmp_path, monkeypatch):
    from nbgrader.api import Course, Gradebook

    checked = []
    original = Gradebook.check_course
    monkeypatch.setattr(Gradebook, "check_course", lambda self, course_id="default_course", **kw: (
        checked.append(course_id), original(self, course_id, **kw))[1])
    url = gradebook_url
    with speedups_switched(True):
        for course in ("level23", "level23", "level24", "level23"):
            with Gradebook(url, course_id=course):
                pass
        assert checked == ["level23", "level24"]
        with Gradebook(url) as gb:
            assert sorted(c.id for c in gb.db.query(Course)) == ["default_course", "level23", "level24"]
        _delete_gradebook(tmp_path)  # a new file: its course row is made again
        with Gradebook(url, course_id="level23") as gb:
            assert [c.id for c in gb.db.query(Course)] == ["level23"]
    with speedups_switched(False):  # the old path checks at every Gradebook
        checked.clear()
        with Gradebook(url, course_id="level23"), Gradebook(url, course_id="level23"):
            assert checked == ["level23", "level23"]
