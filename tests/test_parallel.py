"""Parallel grading (grading/grade.py) gives the same gradebook as plain `nbgrader autograde`,
on SQLite and on PostgreSQL, and writes the class report."""

import os
import shutil

import pytest

import postgres
from grading import ASSIGNMENT, grade, pipeline, report
from grading.build import catalogue

CLASS = [("01_accept_branch", "correct_for_enumerate"), ("01_accept_branch", "strict_greater"),
         ("02_reject_and_break", "correct_while_loop"), ("02_reject_and_break", "continue_not_break"),
         ("02_reject_and_break", "q_over_p"), ("02_reject_and_break", "random_module")]


def make_class(root):
    course = pipeline.make_course(root)
    answers = {(a.notebook, a.name): a for a in catalogue.load()}
    for k, (nb, name) in enumerate(CLASS):
        catalogue.write_submission(course / "submitted", f"s{k}-{name}".replace("_", "-"), nb,
                                   answers[nb, name].code, pipeline.ROOT / "release" / ASSIGNMENT)
    return course


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    course = make_class(tmp_path_factory.mktemp("plain"))
    pipeline.nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    pipeline.nbgrader(course, "autograde", ASSIGNMENT, "--force")
    return pipeline.scores(course)


def parallel(course, db_url):
    import glob
    import tempfile

    made_once = os.path.join(tempfile.gettempdir(), "nbg-shared-results-*")  # the run's results for all its workers
    before = set(glob.glob(made_once))
    pipeline.nbgrader(course, "generate_assignment", ASSIGNMENT, "--force", f"--CourseDirectory.db_url={db_url}")
    results = grade.run_workers(course, grade.students(course), 2, db_url, echo=False)
    assert not any(results.values()), results
    assert set(glob.glob(made_once)) <= before, "the run left its folder of shared results"
    return pipeline.scores(course, db_url)


def test_progress_bar():
    assert grade.progress(3, 6, width=10) == "[#####.....] 3/6"


def test_parallel_on_sqlite_matches_plain_autograde(plain, tmp_path):
    course = make_class(tmp_path / "par")
    assert parallel(course, grade.default_db_url(course)) == plain
    page = report.write(course, grade.default_db_url(course))
    text = page.read_text()
    assert "hidden_break_not_continue" in text and "a rejection stops the loop" in text
    assert (course / "reports" / "scores.png").stat().st_size > 1000


@pytest.mark.postgres
def test_parallel_on_postgresql_matches_plain_autograde(plain, tmp_path):
    if not postgres.bindir():
        if os.environ.get("CI"):
            raise RuntimeError("CI must run the PostgreSQL test: apt-get install postgresql")
        pytest.skip("no PostgreSQL server binaries: apt-get install postgresql")
    course = make_class(tmp_path / "pg")
    with postgres.server() as db_url:
        assert parallel(course, db_url) == plain


def test_report_counts_failures_per_check():
    table = {"a": {"02_reject_and_break": {"x": (0.0, 1.0), "y": (1.0, 1.0)}},
             "b": {"02_reject_and_break": {"x": (0.0, 1.0), "y": (0.0, 1.0)}}}
    rows = report.failures(table, {("02_reject_and_break", "x"): "the x check"})
    assert rows[0] == ("02_reject_and_break", "x", 2, 2, "the x check")
    assert rows[1][:4] == ("02_reject_and_break", "y", 1, 2)


def test_workers_that_cannot_start_are_reported_with_their_reason(tmp_path, capsys):
    """A course whose config breaks every worker at start-up: each failed start is said, in the log and on stderr,
    with what the worker printed in the log; after three, the students left are listed as not graded, saying why."""
    course = make_class(tmp_path / "course")
    pipeline.nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    (course / "nbgrader_config.py").write_text("raise RuntimeError('a broken course config')\n")
    log = tmp_path / "grade.log"
    results = grade.run_workers(course, grade.students(course), 2, grade.default_db_url(course), echo=True,
                                log=str(log))
    assert set(results) == set(grade.students(course))
    assert all(why.startswith("no grading worker could start: its grading process stopped") for why in results.values())
    text = log.read_text()
    assert "a broken course config" in text  # what the worker printed
    notes = [line for line in text.splitlines() if line.startswith("A grading worker did not start: ")]
    assert len(notes) >= 3 and all("its grading process stopped" in note for note in notes)  # two workers at a time
    assert "another takes its place" in notes[0] and notes[-1].endswith("no more are tried.")
    assert capsys.readouterr().err.count("A grading worker did not start") == len(notes)
