"""The grading speed-ups (grading/speedups.py) change no grade and no feedback byte.

One class of catalogue answers is graded twice in this run, by `make grade`'s workers: with the
speed-ups and with them switched off (GRADER_NO_SPEEDUPS=1, the old path); then nbgrader's own
generate_feedback writes both classes' pages. The gradebooks must hold the same grades and every
feedback page must be the same bytes. Compared within one run, not against a committed file, so a
change to the feedback page or the diagnosis elsewhere changes both sides alike. The lesson's cells
draw from torch.rand unseeded (each kernel is seeded from the system's randomness), so both runs'
kernels get one fixed seed (GRADER_KERNEL_SEED): without it two runs of the same path differ in
the printed draws. Level 24's notebook 02 prints how long its 100,000 steps took ("100,000 steps in
0.31 s"), a measured time that differs in every run: that one figure is masked, nothing else.

By default the class is a sample: the first answers of each notebook of each assignment (right
and wrong ones); SPEED_EQUIVALENCE_ALL=1 grades the whole catalogue (about four minutes on 2 cores).
"""

import contextlib
import os
import re
import sqlite3
from itertools import islice

import pytest

from grading import ASSIGNMENTS, catalogue, grade, pipeline, sandbox, speedups

PER_NOTEBOOK = 1


def sample():
    every = catalogue.load_all()
    if os.environ.get("SPEED_EQUIVALENCE_ALL") == "1":
        return every
    picked = []
    for assignment, notebooks in ASSIGNMENTS.items():
        for nb in notebooks:
            picked += islice((a for a in every if a.assignment == assignment and a.notebook == nb), PER_NOTEBOOK)
    return picked


def make_class(root, answers):
    course = pipeline.make_course(root)
    for assignment in sorted({a.assignment for a in answers}):
        pipeline.nbgrader(course, "generate_assignment", assignment, "--force")
    for a in answers:
        catalogue.write_submission(course / "submitted", a.student, a.notebook, a.code,
                                   course / "release" / a.assignment, a.assignment)
    return course


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


MEASURED_TIME = re.compile(rb"(steps in )\d+\.\d+( s)")


def pages(course):
    """{path: bytes} of every feedback page, the course's own folder and the one measured time masked."""
    base = course / "feedback"
    return {str(p.relative_to(base)): MEASURED_TIME.sub(rb"\1?\2", p.read_bytes().replace(str(course).encode(), b"COURSE"))
            for p in sorted(base.rglob("*.html"))}


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    answers = sample()
    out = [answers]
    os.environ[sandbox.SEED_ENV] = "2023"
    for name, on in (("fast", True), ("old", False)):
        with speedups_switched(on):  # the gradebook made by generate_assignment too
            course = make_class(tmp_path_factory.mktemp(name), answers)
            out.append((course, *grade_class(course)))
    os.environ.pop(sandbox.SEED_ENV)
    return out


def test_same_grades_and_feedback_bytes_with_and_without_speedups(both):
    answers, (fast, fast_scores, fast_mode), (old, old_scores, old_mode) = both
    # Each path ran as it says: the fast one's gradebook is in WAL mode, the old one's in SQLite's default.
    assert (fast_mode, old_mode) == ("wal", "delete")
    assert sum(len(t) for t in fast_scores.values()) == len({(a.assignment, a.student) for a in answers})
    assert fast_scores == old_scores
    fast_pages, old_pages = pages(fast), pages(old)
    assert len(fast_pages) == len(answers)
    assert fast_pages.keys() == old_pages.keys()
    differ = {}
    for name, page in fast_pages.items():
        if page != old_pages[name]:
            lines = zip(page.decode().replace("><", ">\n<").splitlines(),
                        old_pages[name].decode().replace("><", ">\n<").splitlines())
            differ[name] = next(((a, b) for a, b in lines if a != b), "(one page is longer)")
    assert not differ, f"feedback pages that differ (first differing line, fast and old): {differ}"


def test_plain_nbgrader_gets_the_gradebook_speedup(tmp_path):
    """Plain `nbgrader` (any command that opens the gradebook) loads nbgrader_config.py, which applies it."""
    course = pipeline.make_course(tmp_path)
    with speedups_switched(True):
        pipeline.nbgrader(course, "db", "student", "add", "someone")
    assert journal_mode(course) == "wal"
