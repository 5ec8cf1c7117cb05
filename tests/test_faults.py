"""A broken submission costs only its own points; everyone else in the same run is graded."""

import json

import pytest

from conftest import hostile_submissions
from grading import ASSIGNMENT

FAULTS = {s: (nb, p) for s, nb, p in hostile_submissions() if s.startswith("fault")}
NB = "02_reject_and_break"


def test_every_honest_student_in_the_same_run_is_graded(graded_course):
    honest = {a.student for a in graded_course.answers}
    missing = sorted(s for s in honest if s not in graded_course.table)
    assert not missing
    assert graded_course.grades("demo-ada", NB) and sum(v[0] for v in graded_course.grades("demo-ada", NB).values()) == 20


@pytest.mark.parametrize("student", [s for s in FAULTS if not s.endswith("not-json")])
def test_faulty_submission_is_graded_not_dropped(graded_course, student):
    grades = graded_course.grades(student, NB)
    assert grades, f"{student} has no grades"
    notebook = graded_course.root / "autograded" / student / ASSIGNMENT / f"{NB}.ipynb"
    assert notebook.exists(), f"{student}'s autograded notebook was removed"


def scores(graded_course, student):
    return {g: s for g, (s, _) in graded_course.grades(student, NB).items()}


def test_endless_loop_costs_only_the_checks_that_call_it(graded_course):
    grades = scores(graded_course, "faults-endless-loop-in-function")
    # only the empty draft never reaches the loop body (q == 0 with p > 0 accepts, and this loop never moves on)
    assert {check for check, points in grades.items() if points} == {"hidden_empty_draft"}
    nb = json.loads((graded_course.root / "autograded" / "faults-endless-loop-in-function" / ASSIGNMENT
                     / f"{NB}.ipynb").read_text())
    text = json.dumps(nb)
    assert "ran longer than 1 s" in text


def test_loop_that_swallows_interrupts_is_stopped_and_named(graded_course):
    log = graded_course.logs["autograde"].stderr
    assert "had not stopped 3 s after the interrupt in" in log and "faults-loop-ignores-interrupt" in log
    nb = (graded_course.root / "autograded" / "faults-loop-ignores-interrupt" / ASSIGNMENT / f"{NB}.ipynb").read_text()
    assert "; it had not stopped 3 s after the interrupt, so its kernel was stopped" in nb
    assert "not run: this cell ran longer" in nb


def test_killed_kernel_is_restarted_and_named(graded_course):
    log = graded_course.logs["autograde"].stderr
    assert "The kernel died" in log and "faults-kills-kernel" in log
    assert sum(scores(graded_course, "faults-kills-kernel").values()) == 0


def test_memory_exhaustion_fails_only_that_cell(graded_course):
    # The hoarding cell raised MemoryError; the function above it was defined and earns its points.
    assert sum(scores(graded_course, "faults-exhausts-memory").values()) == 20


def test_megabytes_of_output_are_cut(graded_course):
    path = graded_course.root / "autograded" / "faults-prints-megabytes" / ASSIGNMENT / f"{NB}.ipynb"
    assert path.stat().st_size < 2_000_000
    assert sum(scores(graded_course, "faults-prints-megabytes").values()) == 20


def test_notebook_that_is_not_json_is_reported_by_name(graded_course):
    log = graded_course.logs["autograde"].stderr
    assert "for student 'faults-not-json'" in log
    assert "NotJSONError" in log or "not valid JSON" in log or "JSONDecodeError" in log


@pytest.mark.parametrize("student", [s for s in FAULTS if not s.endswith("not-json")])
def test_faulty_submission_scores_the_same_in_the_chinese_edition(graded_course, student):
    from conftest import ZH
    assert graded_course.grades(student, NB, ZH) == graded_course.grades(student, NB)


def test_the_endless_loop_is_named_in_chinese_in_the_chinese_edition(graded_course):
    from conftest import ZH
    text = graded_course.autograded("faults-endless-loop-in-function", NB, ZH).read_text()
    assert "运行超过了 1 秒" in text
