"""The output caps (CapOutputSize) and feedback's hidden-test clearing, on notebooks built here."""

import json

import nbformat
import pytest

from grading.plugins.preprocessors import CapOutputSize, ClearHiddenTestsInTestCells, CoalesceStreams


def flooded_notebook():
    big = "x" * 300_000
    outputs = [nbformat.v4.new_output("display_data", data={"application/json": {"blob": big}, "text/plain": big},
                                      metadata={"junk": big}) for _ in range(120)]
    cells = [nbformat.v4.new_code_cell("flood()", outputs=outputs) for _ in range(3)]
    return nbformat.v4.new_notebook(cells=cells)


def test_every_output_kind_is_capped_and_the_notebook_stays_small():
    nb, _ = CapOutputSize().preprocess(flooded_notebook(), {})
    for cell in nb.cells:
        assert len(cell.outputs) <= 51
        for output in cell.outputs:
            assert "application/json" not in output.get("data", {})
            assert len(json.dumps(output.get("metadata", {}))) <= 2_000
    size = len(nbformat.writes(nb))
    assert size < 2_500_000, size
    assert "cut by the grader" in nbformat.writes(nb)


def test_small_outputs_are_kept_as_they_are():
    cell = nbformat.v4.new_code_cell("print(1)", outputs=[
        nbformat.v4.new_output("stream", name="stdout", text="1\n"),
        nbformat.v4.new_output("display_data", data={"application/json": {"a": 1}}, metadata={"isolated": True})])
    nb, _ = CapOutputSize().preprocess(nbformat.v4.new_notebook(cells=[cell]), {})
    assert nb.cells[0].outputs == cell.outputs


def test_one_print_cut_in_pieces_by_the_kernel_is_one_output_whatever_the_cut():
    def stream(name, text):
        return nbformat.v4.new_output("stream", name=name, text=text)
    picture = nbformat.v4.new_output("display_data", data={"text/plain": "<Figure>"})
    text = "average accepted: 1.99   expected: 1.98\nwithin the tolerance\n"
    pages = set()
    for cut in range(len(text) + 1):  # every place a flush timer could fall
        cell = nbformat.v4.new_code_cell("run()", outputs=[stream("stdout", text[:cut]), stream("stdout", text[cut:]),
                                                           stream("stderr", "warn\n"), picture, stream("stdout", "after\n")])
        nb, _ = CoalesceStreams().preprocess(nbformat.v4.new_notebook(cells=[cell]), {})
        pages.add(json.dumps(nb.cells[0].outputs))
        assert [(o.output_type, o.get("name"), o.get("text")) for o in nb.cells[0].outputs] == [
            ("stream", "stdout", text), ("stream", "stderr", "warn\n"), ("display_data", None, None),
            ("stream", "stdout", "after\n")]
    assert len(pages) == 1


def test_a_hidden_test_marker_in_a_students_cell_does_not_break_feedback():
    student = nbformat.v4.new_code_cell("# ### BEGIN HIDDEN TESTS (a student's comment)\nx = 1")
    student.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": "answer", "locked": False}
    test = nbformat.v4.new_code_cell("assert x == 1\n### BEGIN HIDDEN TESTS\nassert x != 2\n### END HIDDEN TESTS")
    test.metadata["nbgrader"] = {"solution": False, "grade": True, "grade_id": "t", "points": 1, "locked": True}
    nb, _ = ClearHiddenTestsInTestCells().preprocess(nbformat.v4.new_notebook(cells=[student, test]), {})
    assert nb.cells[0].source == student.source
    assert "x != 2" not in nb.cells[1].source and "assert x == 1" in nb.cells[1].source


def test_sanitiser_keeps_text_and_the_course_pictures_and_drops_every_script(monkeypatch):
    """SanitizeStudentContent (every page of a student's notebook): hostile markup loses its power, never its text."""
    from grading import ROOT
    from grading.plugins.preprocessors import SanitizeStudentContent

    monkeypatch.syspath_prepend(str(ROOT / "source" / "level23_speculative_decoding"))
    import spec_widgets as widgets
    svg = widgets.number_line_svg(widgets.acceptance(0.4, 0.5, 0.5))
    outputs = [
        nbformat.v4.new_output("display_data", data={"text/html": "<script>alert(1)</script><b onclick='x()'>bold</b>"}),
        nbformat.v4.new_output("display_data", data={"text/html": svg}),
        nbformat.v4.new_output("display_data", data={"application/javascript": "alert(2)"}),
        nbformat.v4.new_output("execute_result", data={"text/plain": "1"}, execution_count=1),
    ]
    markdown = nbformat.v4.new_markdown_cell("Look: ![a](attachment:a.png) <img src=x onerror=alert(3)>")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x", outputs=outputs), markdown])
    nb.cells[0].outputs[2].data["text/html"] = {"not": "<i>a string</i>"}  # invalid, as a hostile kernel may write it
    nb.cells[0].execution_count = "<script>"
    nb, _ = SanitizeStudentContent().preprocess(nb, {})
    html = [o.data.get("text/html") for o in nb.cells[0].outputs]
    assert html[0] == ("<div style='contain: paint; overflow: hidden'>"
                       "&lt;script&gt;alert(1)&lt;/script&gt;<b>bold</b></div>")
    assert html[1].count("<rect") == svg.count("<rect") == 2 and html[1].count("<text") == svg.count("<text") > 0
    assert "application/javascript" not in nb.cells[0].outputs[2].data and html[2].endswith('>{"not": "<i>a string</i>"}</div>')
    assert nb.cells[0].execution_count is None
    source = nb.cells[1].source
    assert "\n" not in source and "<img" not in source and "Look:" in source  # shown as text
    assert "[not rendered: missing attachment: a.png]" in source


def test_deeply_nested_or_huge_markup_is_shown_as_text_quickly(monkeypatch):
    """bleach takes time quadratic in nesting (the red team's 20,000 nested <div>s: 32 s); the sanitiser
    shows such markup, a markdown cell over its cap and markup past the notebook's budget as text, saying why.
    (The notebook's own bounds, which cut long cells before this, are lifted here: this is the defence behind them.)"""
    import time

    from grading.plugins import sanitize
    from grading.plugins.preprocessors import SanitizeStudentContent, nesting_depth

    monkeypatch.setattr(sanitize, "MAX_CELL_SOURCE", 10**9)
    monkeypatch.setattr(sanitize, "MAX_NOTEBOOK_SOURCE", 10**9)

    assert nesting_depth("<div><p>a<br><img src=x/></p><div/></div>") == 2
    nested = "<div>" * 2_000 + "x" + "</div>" * 2_000  # 22,001 characters: bleach alone takes about 1 s
    cells = [nbformat.v4.new_markdown_cell(nested),
             nbformat.v4.new_markdown_cell("# " + "word " * 20_000),
             nbformat.v4.new_code_cell("x", outputs=[nbformat.v4.new_output("display_data",
                                                                            data={"text/html": nested})])]
    nb = nbformat.v4.new_notebook(cells=cells + [nbformat.v4.new_markdown_cell("<b>a</b>" * 6_000)
                                                 for _ in range(10)])
    started = time.process_time()
    nb, _ = SanitizeStudentContent().preprocess(nb, {})
    assert time.process_time() - started < 5
    assert "[shown as text, not rendered: its tags nest more than 100 deep]" in nb.cells[0].source
    assert "&lt;div&gt;" in nb.cells[0].source and "<div><div>" not in nb.cells[0].source
    assert "a markdown cell of 100,002 characters (at most 50,000 are rendered)" in nb.cells[1].source
    assert "its tags nest more than 100 deep" in nb.cells[2].outputs[0].data["text/html"]
    assert "<b>a</b>" in nb.cells[3].source  # within the budget: rendered
    assert "more than 400,000 characters of markup" in nb.cells[-1].source


@pytest.mark.browser
def test_a_students_markup_cannot_paint_over_the_page(chromium):
    """With allowed CSS alone (negative margins, opacity: its own stacking context) a markdown cell covered the
    page's real score with a fake one (red team); each student's markup is now painted only inside its own box."""
    from grading.plugins.preprocessors import SanitizeStudentContent

    overlay = ('<div style="margin-top:-440px;margin-left:-60px;height:440px;padding-top:30px;background-color:white;'
               'opacity:0.999;display:block;width:100%"><h4>Score: 19.0 / 19.0</h4></div>')
    cell = nbformat.v4.new_markdown_cell(overlay)
    output = nbformat.v4.new_output("display_data", data={"text/html": overlay})
    nb = nbformat.v4.new_notebook(cells=[cell, nbformat.v4.new_code_cell("x", outputs=[output])])
    nb, _ = SanitizeStudentContent().preprocess(nb, {})
    page = chromium.new_page()
    try:
        for student in (nb.cells[0].source, nb.cells[1].outputs[0].data["text/html"]):
            page.set_content(f"<body style='margin:0'><div style='height:600px'></div><h4 id='real' style='margin:0'>"
                             f"Score: 8.0 / 19.0</h4><div>{student}</div></body>")
            assert "Score: 19.0" in page.inner_text("body")  # the text stays
            on_top = page.evaluate("() => { const r = document.getElementById('real').getBoundingClientRect();"
                                   " return document.elementFromPoint(r.left + 5, r.top + r.height / 2).id; }")
            assert on_top == "real"
    finally:
        page.close()
