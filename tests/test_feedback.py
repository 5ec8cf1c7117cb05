"""Feedback tells the student which checks failed and why, and shows no hidden test code."""

import re

import nbformat
import pytest

from grading import ASSIGNMENT, NOTEBOOKS

SOURCE_DIR = __import__("pathlib").Path(__file__).resolve().parent.parent / "source" / ASSIGNMENT


def hidden_lines(notebook):
    """Every non-trivial line of hidden test code in the source notebook."""
    nb = nbformat.read(SOURCE_DIR / f"{notebook}.ipynb", as_version=4)
    lines = []
    for cell in nb.cells:
        inside = False
        for line in cell.source.splitlines():
            if "BEGIN HIDDEN TESTS" in line:
                inside = True
            elif "END HIDDEN TESTS" in line:
                inside = False
            elif inside and len(line.strip()) > 12:
                lines.append(line.strip())
    return lines


def html_text(html):
    import html as h
    return h.unescape(re.sub(r"<[^>]+>", "", html))


@pytest.mark.parametrize("student,notebook", [
    ("demo-ben", "02_reject_and_break"), ("demo-cy", "01_accept_branch"), ("demo-dee", "01_accept_branch"),
    ("02-q-over-p", "02_reject_and_break"), ("02-continue-not-break", "02_reject_and_break"),
    ("gaming-tracebacks-off-class", "02_reject_and_break"),
])
def test_feedback_shows_no_hidden_test_code(graded_course, student, notebook):
    text = html_text(graded_course.feedback(student, notebook))
    leaked = [line for line in hidden_lines(notebook) if line in text]
    assert not leaked, f"hidden test code in {student}'s feedback: {leaked[:3]}"
    for marker in ("BEGIN HIDDEN TESTS", "spec_from_file_location", "T.Case(", "T.run_verify", "Traceback (most recent"):
        assert marker not in text


def test_feedback_names_each_failed_check_with_its_hint(graded_course):
    text = html_text(graded_course.feedback("02-continue-not-break", "02_reject_and_break"))
    assert "Check failed. AssertionError" in text
    assert "you used continue; a rejection needs break" in text
    assert "token 40 came back after token 30 was rejected. You used continue after a rejection; use break." in text


def test_feedback_hint_from_the_spec_diagnostics_for_notebook_01(graded_course):
    text = html_text(graded_course.feedback("01-appends-position", "01_accept_branch"))
    assert "check that you append token_id" in text


def test_every_hidden_check_has_its_own_hint():
    for notebook in NOTEBOOKS:
        nb = nbformat.read(SOURCE_DIR / f"{notebook}.ipynb", as_version=4)
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade") and "BEGIN HIDDEN TESTS" in cell.source:
                hidden = cell.source.split("BEGIN HIDDEN TESTS", 1)[1]
                assert "hint=" in hidden or re.search(r"^assert .+, \(?f?\"", hidden, re.M), \
                    f"{meta['grade_id']} has no message"


def test_feedback_shows_the_widgets_as_static_pictures(graded_course):
    """The feedback page has no widget manager: the quizzes and the number line still show."""
    text = html_text(graded_course.feedback("demo-ada", "02_reject_and_break"))
    assert "Run this cell in JupyterLab to answer" in text and "Run this cell in JupyterLab to move the sliders" in text


def test_feedback_gives_the_diagnosis_above_the_hidden_checks(graded_course):
    text = html_text(graded_course.feedback("demo-ben", "02_reject_and_break"))
    assert "Diagnosis: you use continue after a rejection" in text
    assert text.index("Hidden checks") < text.index("Diagnosis:") < text.index("A token after a rejection came back")
