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
    # the hidden check says what happened on its case, and that it follows from the diagnosed mistake (issue 39)
    assert "verify_draft returned [1, 3]: token 3 came back after token 2 (position 1) was left out, that is, " \
           "rejected. This follows from the mistake named in the diagnosis above." in text
    # the visible test's message, laid out in short lines (spec_checks.readable)
    assert "token 40 came back after token 30 was rejected (r = 0.9 >= p/q = 0.11 there). After a rejection nothing more is kept: the loop stops." in \
        " ".join(text.split())


def test_feedback_hint_from_the_spec_diagnostics_for_notebook_01(graded_course):
    text = html_text(graded_course.feedback("01-appends-position", "01_accept_branch"))
    assert "verify_draft returned [0, 1, 2], which holds values that are not this draft's token ids [17, 3, 17, 9]" in text


def test_every_hidden_check_says_what_happened_through_a_check_helper():
    """Level 23's hidden checks decide through spec_checks' check helpers, whose messages state what happened on the
    case (no fixed hint, no bare assert): the cause is added by the grader only where its replay supports it."""
    for notebook in NOTEBOOKS:
        nb = nbformat.read(SOURCE_DIR / f"{notebook}.ipynb", as_version=4)
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade") and "BEGIN HIDDEN TESTS" in cell.source:
                hidden = cell.source.split("BEGIN HIDDEN TESTS", 1)[1]
                assert re.search(r"^\s*spec_checks\.check(_\w+)?\(", hidden, re.M), f"{meta['grade_id']} has no check"
                assert "hint=" not in hidden and not re.search(r"^assert ", hidden, re.M), meta["grade_id"]


def test_feedback_shows_the_widgets_as_static_pictures(graded_course):
    """The feedback page has no widget manager: the quizzes and the number line still show."""
    text = html_text(graded_course.feedback("demo-ada", "02_reject_and_break"))
    assert "Run this cell in JupyterLab to answer" in text and "Run this cell in JupyterLab to move the sliders" in text


def test_feedback_gives_the_diagnosis_first_and_above_the_hidden_checks(graded_course):
    text = html_text(graded_course.feedback("demo-ben", "02_reject_and_break"))
    assert "Diagnosis: you use continue after a rejection" in text
    # In the summary on top, before the lesson; and again in its cell, above the hidden checks.
    assert text.index("Diagnosis:") < text.index("Hidden checks") < text.rindex("Diagnosis:") < \
        text.rindex("This follows from the mistake named in the diagnosis above")


def test_chinese_feedback_names_the_failed_checks_and_the_mistake_in_chinese(graded_course):
    from conftest import ZH
    text = html_text(graded_course.feedback("02-continue-not-break", "02_reject_and_break", ZH))
    assert "检查未通过。AssertionError: verify_draft 返回了 [1, 3]：token 2（位置 1）没有出现在结果中，也就是被拒绝了，" \
           "它后面的 token 3 却又出现了。这一项未通过，正是上面诊断指出的那个错误造成的。" in text  # the hidden check's facts, and its cause
    assert "token 30 被拒绝后 token 40 又出现了" in text   # the visible test's message
    assert "诊断：拒绝之后你用了 continue" in text
    assert "Diagnosis:" not in text and "you used continue" not in text
    leaked = [line for line in hidden_lines("02_reject_and_break") if line in text]
    assert not leaked


def test_the_mixed_class_report_shows_both_editions_under_the_same_check_names(graded_course):
    from conftest import ZH
    from grading import report
    page = report.write(graded_course.root).read_text()
    assert "<th>failed (en)</th><th>of (en)</th><th>failed (zh)</th><th>of (zh)</th>" in page
    row = re.search(r"<tr><td>02_reject_and_break</td><td><code>hidden_break_not_continue</code></td>(.*?)</tr>", page)
    cells = [int(c) for c in re.findall(r"<td>(\d+)</td>", row.group(1))]
    want = []
    for assignment in (ASSIGNMENT, ZH):  # failed, then graded, in each edition
        grades = [nbs["02_reject_and_break"]["hidden_break_not_continue"]
                  for nbs in graded_course.tables[assignment].values() if "02_reject_and_break" in nbs]
        want += [sum(score < out_of for score, out_of in grades), len(grades)]
    assert cells == want and want[0] > 0 and want[2] > 0
    assert "a rejection stops the loop" in row.group(1)
