"""Feedback has a per-student budget (issue 41 item 3), checked with the real `nbgrader generate_feedback` CLI.

Each page is rendered in a child process within PageExporter.page_seconds (and the student's student_seconds, and
page_memory); past a bound the page is replaced by a short one: a note on top saying it was cut and why, in the
edition's language, then the scores and checks, without the student's own cells. make grade's class report names
every cut page.

The course: an honest student and an attacker in notebook 02 of Level 23, English and Chinese editions. The attacker's
two extra cells display 37 markdown outputs of 20,000 characters each (1.5 MB, within every output cap): rendering
that page took 8 s (1.2 s the honest one). A slow page is simulated here by a bound shorter than any page takes, so
the test does not rest on timing; the bound itself is tested on a function that never returns.
"""
import html
import json
import time

import pytest

from grading import ASSIGNMENT, pipeline
from grading.build import catalogue

ZH = "level23_speculative_decoding_zh"
NB2 = "02_reject_and_break"
MARKDOWN_FLOOD = """
from IPython.display import Markdown, display
_md = ("*a* _b_ `c` [d](e) " * 1200)[:19_900]
for _ in range(37):
    display(Markdown(_md))
"""


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    course = pipeline.make_course(tmp_path_factory.mktemp("feedback_budget"))
    right = catalogue.parse(catalogue.answers_dir() / NB2 / "correct_while_loop.py").code
    for assignment in (ASSIGNMENT, ZH):
        pipeline.nbgrader(course, "generate_assignment", assignment, "--force")
        release = course / "release" / assignment
        catalogue.write_submission(course / "submitted", "honest", NB2, right, release, assignment)
        path = catalogue.write_submission(course / "submitted", "flood", NB2, right, release, assignment)
        nb = json.loads(path.read_text())
        nb["cells"] += [{"cell_type": "code", "id": f"flood{i}", "metadata": {}, "execution_count": None,
                         "outputs": [], "source": MARKDOWN_FLOOD} for i in range(2)]
        path.write_text(json.dumps(nb))
        pipeline.nbgrader(course, "autograde", assignment)
    return course


def page(course, student, assignment):
    return (course / "feedback" / student / assignment / f"{NB2}.html").read_text()


def test_every_page_past_its_bound_is_a_short_page_with_the_scores_in_the_editions_words(course):
    from grading import grade, report

    for assignment in (ASSIGNMENT, ZH):
        started = time.monotonic()
        proc = pipeline.nbgrader(course, "generate_feedback", assignment, "--force",
                                 "--PageExporter.page_seconds=0.01")
        assert time.monotonic() - started < 60, "the pages are bounded: two short pages, not two full ones"
        assert "Feedback page of flood/" in proc.stderr and "cut: rendering it took longer than" in proc.stderr
        for student in ("honest", "flood"):
            shown = page(course, student, assignment)
            assert "<meta name='grader-cut-page' content='rendering it took longer than 0.01 s'>" in shown
            assert len(shown) < len(page(course, "honest", assignment)) + 100_000
            assert "_b_" not in shown and "<em>b</em>" not in shown  # none of the student's own cells
            assert "20 / 20" in shown or "20.0 / 20.0" in shown, "the score is still shown"
        if assignment == ZH:
            assert "批改程序截断了这个反馈页面" in shown and "The grader cut" not in shown
        else:
            assert "The grader cut this feedback page" in shown
    cut = grade.cut_notebooks(course)
    assert cut[f"flood/{ZH}/{NB2}"] == "its feedback page was cut: rendering it took longer than 0.01 s", cut
    listed = report.write(course, None, {}, cut).read_text()
    assert "feedback pages cut" in listed and f"flood/{ASSIGNMENT}/{NB2}" in listed


def test_within_its_bound_the_page_is_the_full_page(course):
    for assignment in (ASSIGNMENT, ZH):
        pipeline.nbgrader(course, "generate_feedback", assignment, "--force")
    for student in ("honest", "flood"):
        shown = page(course, student, ASSIGNMENT)
        assert "grader-cut-page" not in shown
    assert "_b_" in page(course, "flood", ASSIGNMENT)  # the student's own output, shown
    from grading import grade

    assert not grade.cut_notebooks(course), "no page cut, none named"


def test_the_bound_ends_a_render_that_never_returns():
    from grading.plugins.preprocessors import bounded_call

    started = time.monotonic()
    assert bounded_call(lambda: time.sleep(600), 1) == ("time", None)
    assert time.monotonic() - started < 30
    assert bounded_call(lambda: bytearray(800 * 2**20), 30, memory=200 * 2**20)[0] == "memory"
    assert bounded_call(lambda: ("page", {"nbgrader": {}}), 30) == ("ok", ("page", {"nbgrader": {}}))


def test_markdown_past_the_pages_budget_is_not_even_rendered(monkeypatch):
    """Past SanitizeStudentContent.MAX_NOTEBOOK_CHARS of a page, markdown was still given to mistune, and only its
    result shown as text: 74 outputs of 20,000 characters cost the page 7.4 s of CPU, 3.0 s now."""
    from nbconvert.filters import markdown_mistune

    from grading.plugins.preprocessors import SanitizeStudentContent

    calls, original = [], markdown_mistune.MarkdownWithMath.render
    monkeypatch.setattr(markdown_mistune.MarkdownWithMath, "render",
                        lambda self, source: calls.append(len(source)) or original(self, source))
    sanitizer = SanitizeStudentContent()
    shown = [sanitizer.markdown_html(f"*{i}* " + "x" * 19_990, {}) for i in range(60)]
    assert len(calls) <= SanitizeStudentContent.MAX_NOTEBOOK_CHARS // 20_000 + 1, len(calls)
    assert "<em>0</em>" in shown[0] and "shown as text, not rendered" in shown[-1] and "*59*" in shown[-1]


NEVER_ENDS = '''
from nbconvert.preprocessors import Preprocessor as _Preprocessor
class _NeverEnds(_Preprocessor):  # a page that never ends, for the student "flood" (tests/test_feedback_budget.py)
    def preprocess(self, nb, resources):
        if resources.get("nbgrader", {}).get("student") == "flood":
            import time
            time.sleep(3600)
        return nb, resources
c.HTMLExporter.preprocessors = list(c.HTMLExporter.preprocessors) + [_NeverEnds]
'''


def test_a_page_that_never_ends_is_cut_and_the_class_still_gets_its_pages(course):
    """Before, generate_feedback waited on such a page for ever (make grade: 1,800 s, then no page for anyone after
    it). Even the short page never ends here (it runs the same preprocessors): the note alone is written."""
    config = course / "nbgrader_config.py"
    kept = config.read_text()
    config.write_text(kept + NEVER_ENDS)
    try:
        started = time.monotonic()
        proc = pipeline.nbgrader(course, "generate_feedback", ASSIGNMENT, "--force", "--PageExporter.page_seconds=2",
                                 timeout=300)
        assert time.monotonic() - started < 120
    finally:
        config.write_text(kept)
    assert "cut: rendering it took longer than 2 s" in proc.stderr
    assert "grader-cut-page" not in page(course, "honest", ASSIGNMENT)
    shown = page(course, "flood", ASSIGNMENT)
    assert "<meta name='grader-cut-page' content='rendering it took longer than 2 s'>" in shown
    assert "The grader cut this feedback page: showing your notebook took longer than 2 s." in shown
    assert "ask your instructor" in shown and ".ipynb" not in shown


def test_once_a_students_feedback_time_is_spent_each_further_page_is_short_at_once():
    """student_seconds counts all of one student's pages of an assignment: past it, the next page is not even
    tried (rendered here by the course's exporter, as generate_feedback does, with no grading run)."""
    import nbformat
    from traitlets.config import Config

    from grading import ROOT
    from grading.plugins.preprocessors import PageExporter, SanitizeStudentContent

    config = Config()
    PageExporter.configure(config)
    config.HTMLExporter.preprocessors = [SanitizeStudentContent]
    config.PageExporter.student_seconds = 0.01
    exporter, said = PageExporter(config=config), []
    for notebook in ("01_accept_branch", NB2):
        nb = nbformat.read(ROOT / "release" / ZH / f"{notebook}.ipynb", as_version=4)
        for cell in nb.cells:
            if cell.metadata.get("nbgrader", {}).get("grade") or cell.metadata.get("nbgrader", {}).get("solution"):
                cell.metadata.nbgrader.update(score=0, points=cell.metadata.nbgrader.get("points", 0))
        resources = {"nbgrader": {"assignment": ZH, "notebook": notebook, "student": "student-seconds", "score": 0,
                                  "max_score": 19, "late_penalty": 0}}
        started = time.monotonic()
        shown, _ = exporter.from_notebook_node(nb, resources)
        said.append((html.unescape(shown.split("<meta name='grader-cut-page' content='", 1)[1].split("'", 1)[0]),
                     time.monotonic() - started))
    assert said[0][0] == "rendering it took longer than 0.01 s"
    assert said[1][0] == "the student's pages had used their 0.01 s", said
    assert "你这份作业的反馈页面已经用了 0.01 秒" in shown
    # The time is counted per run (nbgrader makes an exporter per run): a new run's first page is tried again.
    shown, _ = PageExporter(config=config).from_notebook_node(nb, resources)
    assert "content='rendering it took longer than 0.01 s'" in shown
