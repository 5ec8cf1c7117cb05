"""The plain nbgrader commands are as safe as `make grade`, and every id is parsed, not split (issue 19, 7 and 8).

One plain `nbgrader autograde` run (the real CLI, through grading.pipeline) grades a small class: an
honest student before and after the hostile ones. One hostile student fills a notebook with cells that
each sleep under the cell timeout (the notebook budget stops it), one does so across two notebooks (the
student's budget stops it), one per kind of malformed nbgrader metadata or notebook, and one has an id
with a space. Both honest students get their usual grades; nobody stops the run.
"""

import json
import subprocess
import sys

import nbformat
import pytest

from grading import ASSIGNMENT, grade, ids, pipeline
from grading.sandbox import budgets
from grading.build import catalogue
from grading.plugins import sanitize

NB1, NB2 = "01_accept_branch", "02_reject_and_break"
SLEEP = "import time\ntime.sleep(3)"
NOTEBOOK_BUDGET, STUDENT_BUDGET = 12, 16  # seconds, set on the command line: the defaults would cost minutes


def right(notebook):
    name = "correct_for_enumerate" if notebook == NB1 else "correct_while_loop"
    return catalogue.parse(catalogue.answers_dir() / notebook / f"{name}.py").code


def answer_cell(nb):
    return next(c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("solution"))


def add_sleeps(nb, count):
    at = nb["cells"].index(answer_cell(nb)) + 1
    for _ in range(count):
        nb["cells"].insert(at, nbformat.v4.new_code_cell(SLEEP))


def first_test_id(nb):
    return next(c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade"))["metadata"][
        "nbgrader"]["grade_id"]


# What a hostile student does to their (right) answer's notebook, one student each.
TAMPER = {
    "schema-99": lambda nb: answer_cell(nb)["metadata"]["nbgrader"].update(schema_version=99),
    "schema-old": lambda nb: answer_cell(nb)["metadata"]["nbgrader"].update(schema_version=1),
    "wrong-types": lambda nb: answer_cell(nb)["metadata"]["nbgrader"].update(grade="yes", points="lots", grade_id=7),
    "metadata-list": lambda nb: answer_cell(nb)["metadata"].update(nbgrader=[1, 2]),
    "test-id-on-answer": lambda nb: answer_cell(nb)["metadata"]["nbgrader"].update(grade_id=first_test_id(nb)),
    "no-cell-type": lambda nb: answer_cell(nb).pop("cell_type"),
    "huge-metadata": lambda nb: answer_cell(nb)["metadata"]["nbgrader"].update(blob="x" * 5_000_000),
    "no-cells": lambda nb: nb.update(cells=[]),
    "nbformat-3": lambda nb: nb.update(nbformat=3, nbformat_minor=0),
    "not-json": None,
    "too-large": None,
}
REPAIRED = ("schema-99", "schema-old", "wrong-types", "metadata-list", "test-id-on-answer", "no-cell-type",
            "huge-metadata")
UNREADABLE = ("nbformat-3", "not-json", "too-large")
ODD = "has space"


def submit(course, student, notebook, code, edit=None):
    path = catalogue.write_submission(course / "submitted", student, notebook, code, course / "release" / ASSIGNMENT)
    if edit:
        nb = json.loads(path.read_text())
        edit(nb)
        path.write_text(json.dumps(nb))
    return path


@pytest.fixture(scope="module")
def plain_class(tmp_path_factory):
    course = pipeline.make_course(tmp_path_factory.mktemp("plain"))
    pipeline.nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    submit(course, "a-honest", NB2, right(NB2))
    submit(course, "m-sleeps", NB2, right(NB2), lambda nb: add_sleeps(nb, 12))
    submit(course, "m-sleeps-in-both", NB1, right(NB1), lambda nb: add_sleeps(nb, 2))
    # 6 s + 12 s of sleeps: over the student's 16 s however fast the rest runs; at NB2's start the student's budget
    # has less left (at most 10 s) than the notebook's (12 s), so it is the one that stops NB2
    submit(course, "m-sleeps-in-both", NB2, right(NB2), lambda nb: add_sleeps(nb, 4))
    for kind, edit in TAMPER.items():
        path = submit(course, f"m-{kind}", NB2, right(NB2), edit)
        if kind == "not-json":
            path.write_text('{"cells": [ this is not JSON')
        elif kind == "too-large":  # valid JSON, past the size limit: never read into the grader's memory
            nb = json.loads(path.read_text())
            nb["metadata"]["padding"] = "x" * sanitize.MAX_NOTEBOOK_BYTES
            path.write_text(json.dumps(nb))
    submit(course, ODD, NB2, right(NB2))
    submit(course, "z-honest", NB2, right(NB2))
    autograde = pipeline.nbgrader(course, "autograde", ASSIGNMENT, "--force",
                                  f"--SandboxedExecute.notebook_budget={NOTEBOOK_BUDGET}",
                                  f"--SandboxedExecute.student_budget={STUDENT_BUDGET}", check=False)
    feedback = pipeline.nbgrader(course, "generate_feedback", ASSIGNMENT, "--force", check=False)
    return course, pipeline.totals(pipeline.scores(course)), autograde.stderr, feedback.stderr


def autograded(course, student, notebook=NB2):
    return (course / "autograded" / student / ASSIGNMENT / f"{notebook}.ipynb").read_text()


def test_both_honest_students_get_their_usual_grades(plain_class):
    _, totals, log, _ = plain_class
    assert totals["a-honest"][NB2] == totals["z-honest"][NB2] == (20.0, 20.0), log[-3000:]


def test_cells_that_each_stay_under_the_timeout_are_stopped_by_the_notebook_budget(plain_class):
    course, totals, log, _ = plain_class
    text = autograded(course, "m-sleeps")
    spent = f"this notebook's grading time budget ({NOTEBOOK_BUDGET} s) was spent"
    # The cell running when the budget ends is interrupted (unless it ends between two cells); the rest never run.
    # Under load the interrupted cell may not answer within the interrupt's grace, and its kernel is stopped: the
    # later cells then say that too ("... was spent while this cell ran; it had not stopped 3 s after the
    # interrupt, so its kernel was stopped in an earlier cell"). Either way they name the notebook's budget.
    assert text.count(f"not run: {spent}") >= 12 - NOTEBOOK_BUDGET // 3
    assert f"not checked: {spent}" in text  # the checks count as failed, as after a dead kernel
    assert totals["m-sleeps"][NB2] == (0.0, 20.0)
    assert "m-sleeps" in log and spent in log


def test_a_students_notebooks_together_are_stopped_by_the_students_budget(plain_class):
    course, totals, _, _ = plain_class
    assert totals["m-sleeps-in-both"][NB1] == (16.0, 16.0)  # 6 s of sleeps: inside both budgets
    spent = f"the grading time budget of this student's assignment ({STUDENT_BUDGET} s, all notebooks together)"
    assert spent in autograded(course, "m-sleeps-in-both", NB2)
    assert totals["m-sleeps-in-both"][NB2][0] < 19


@pytest.mark.parametrize("kind", REPAIRED)
def test_malformed_metadata_is_replaced_by_the_instructors_and_graded(plain_class, kind):
    _, totals, log, _ = plain_class
    assert totals[f"m-{kind}"][NB2] == (20.0, 20.0), log[-3000:]
    assert f"Metadata of student 'm-{kind}', notebook {NB2} restored from the instructor's" in log


def test_a_notebook_with_no_cells_is_graded_as_the_blank_release(plain_class):
    _, totals, log, _ = plain_class
    assert totals["m-no-cells"][NB2][1] == 20.0 and totals["m-no-cells"][NB2][0] <= 2  # what the stub scores
    assert "the instructor's cell 'verify_draft' was missing (put back)" in log


@pytest.mark.parametrize("kind", UNREADABLE)
def test_an_unreadable_notebook_scores_zero_alone_and_its_feedback_says_why(plain_class, kind):
    course, totals, log, _ = plain_class
    assert totals[f"m-{kind}"][NB2] == (0.0, 20.0)
    assert f"Notebook {NB2}.ipynb for student 'm-{kind}' cannot be read" in log
    page = (course / "feedback" / f"m-{kind}" / ASSIGNMENT / f"{NB2}.html").read_text()
    assert "the grader could not read it as a notebook" in page and "this is not JSON" not in page


def test_an_odd_student_id_is_refused_by_name_and_not_graded(plain_class):
    _, totals, log, _ = plain_class
    assert ODD not in totals
    assert ids.check_id("student", ODD) in log


@pytest.mark.parametrize("value", ["has space", "a/b", "..", "-rf", ".hidden", "tab\there", "nl\nx", "x" * 65, "",
                                   "*", "é"])
def test_odd_ids_are_refused_with_the_rule(value):
    message = ids.check_id("student", value)
    assert message and message.startswith(f"student id {value!r}"[:40]) and ids.RULE in message


@pytest.mark.parametrize("value", ["demo-ada", "s0-correct-for-enumerate", "level23_speculative_decoding_zh",
                                   "ada.lovelace@example.org", "x" * 64])
def test_ordinary_ids_pass(value):
    assert ids.check_id("student", value) is None


def test_make_grade_refuses_an_id_with_a_space_and_the_report_has_no_false_line(tmp_path):
    """A Level 23 folder named "<Level 24> <classmate>" was read as the classmate's Level 24 submission."""
    course = pipeline.make_course(tmp_path / "course")
    pipeline.nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    submit(course, "bob", NB2, right(NB2))
    odd = "level24_residual_and_bonus bob"
    submit(course, odd, NB2, right(NB2))
    proc = subprocess.run([sys.executable, "-m", "grading.grade", "--course", str(course), "--workers", "1",
                           "--no-feedback"], cwd=pipeline.ROOT, env=pipeline.env(), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"NOT GRADED {odd!r}: {grade.refusal(ASSIGNMENT, odd)}" in proc.stdout
    assert "it contains a space" in proc.stdout and ids.RULE in proc.stdout
    assert pipeline.totals(pipeline.scores(course)) == {"bob": {NB1: (0.0, 16.0), NB2: (20.0, 20.0)}}
    assert not pipeline.scores(course, assignment="level24_residual_and_bonus")
    page = (course / "reports" / "index.html").read_text()
    assert "bob (level24_residual_and_bonus)" not in page
    assert "it contains a space" in page


def test_make_grade_deadline_is_past_the_budgets():
    assert grade.DEADLINE == budgets.DEADLINE > budgets.STUDENT >= budgets.NOTEBOOK > budgets.CELL
