"""The grader's notes on what it cut are in the edition's language (issue 41): the note on top of a notebook cut to the
grader's bounds, the markers left in a cut cell and the lines for cut output, in both Chinese editions. One source per
sentence: grading/judge/grader_text.py (English) and the GRADER dict of lessons/i18n/level23_speculative_decoding_zh.py,
which Level 24's Chinese edition shares. The class report, for the instructor, names what was cut in English whatever
the edition (the note cell's metadata). No grading run: the course's own preprocessors and page exporter."""
import json

import nbformat
import pytest

from grading import ROOT
from grading.judge import grader_text
from grading.plugins import sanitize

ZH = ["level23_speculative_decoding_zh", "level24_residual_and_bonus_zh"]


def oversized(assignment):
    """The edition's first released notebook with 600 long markdown cells and a forged cut mark of the student's."""
    path = sorted((ROOT / "release" / assignment).glob("*.ipynb"))[0]
    nb = nbformat.read(path, as_version=4)
    nb.cells[0].metadata[sanitize.CUT_MARK] = "forged by the student"
    nb.cells += [nbformat.v4.new_markdown_cell(f"*note {i}* " + "x" * 30_000) for i in range(600)]
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade") or cell.metadata.get("nbgrader", {}).get("solution"):
            cell.metadata.nbgrader.update(score=0, points=cell.metadata.nbgrader.get("points", 0))
    return path.stem, nb


@pytest.mark.parametrize("assignment", ZH)
def test_a_cut_notebook_says_what_was_cut_in_chinese_and_keeps_it_in_english_for_the_report(assignment):
    _, nb = oversized(assignment)
    said = sanitize.bound_notebook(nb, assignment)
    note, words = nb.cells[0], grader_text.words(assignment)
    assert note.source.startswith("**批改程序在显示前截断了这个 notebook**：") and "的中间部分" in note.source
    assert "The grader" not in note.source and "cells" not in note.source
    assert note.metadata[sanitize.CUT_MARK] == "; ".join(said) and said[0].endswith("cells (at most 500 are shown)")
    assert sum(sanitize.CUT_MARK in c.metadata for c in nb.cells) == 1, "the student's forged mark is gone"
    assert any(c.source.endswith(f"[{words['cut_rest_of_cell']}]") for c in nb.cells)
    assert "批改程序截去了这个单元格的其余部分" == words["cut_rest_of_cell"]


@pytest.mark.parametrize("assignment", ZH)
def test_the_zh_feedback_page_shows_the_chinese_note(assignment):
    from traitlets.config import Config

    from grading.plugins.preprocessors import PageExporter, SanitizeStudentContent

    config = Config()
    PageExporter.configure(config)
    config.HTMLExporter.preprocessors = [SanitizeStudentContent]
    config.PageExporter.page_seconds = 0  # rendered here, in this process
    notebook, nb = oversized(assignment)
    resources = {"nbgrader": {"assignment": assignment, "notebook": notebook, "student": "ada", "score": 0,
                              "max_score": 10, "late_penalty": 0}}
    page, _ = PageExporter(config=config).from_notebook_node(nb, resources)
    assert "批改程序在显示前截断了这个 notebook" in page and "The grader cut" not in page


@pytest.mark.parametrize("assignment", ZH)
def test_output_cut_by_the_grader_is_said_in_chinese(assignment):
    from grading.plugins.preprocessors import CapOutputSize

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="y" * 30_000) for _ in range(60)]
    CapOutputSize().preprocess(nb, {"nbgrader": {"assignment": assignment}})
    text = "".join(o.text for o in nb.cells[0].outputs)
    assert "批改程序截去了 10,000 个字符" in text and "批改程序截去了另外 10 个输出" in text
    assert "cut by the grader" not in text


def test_the_class_report_names_a_cut_zh_notebook_in_english(tmp_path):
    from grading import grade

    assignment = ZH[1]
    notebook, nb = oversized(assignment)
    sanitize.bound_notebook(nb, assignment)
    target = tmp_path / "autograded" / "ada" / assignment / f"{notebook}.ipynb"
    target.parent.mkdir(parents=True)
    nbformat.write(nb, target)
    page = tmp_path / "feedback" / "ada" / assignment / f"{notebook}.html"
    page.parent.mkdir(parents=True)
    page.write_text("<!DOCTYPE html><html><head></head><body></body></html>")
    cut = grade.cut_notebooks(tmp_path)
    assert list(cut) == [f"ada/{assignment}/{notebook}"]
    assert cut[f"ada/{assignment}/{notebook}"] == nb.cells[0].metadata[sanitize.CUT_MARK]
    assert "forged" not in json.dumps(cut) and "cells (at most 500 are shown)" in json.dumps(cut)


def test_a_shown_autograded_notebook_keeps_the_graders_note_and_is_not_cut_again():
    """The page bounds the autograded notebook again: its note (cell 0) is kept outside the 500 cells, so a notebook
    cut to 500 cells is not cut once more (a second note); while grading, a student's own mark on cell 0 is removed."""
    assignment = ZH[0]
    _, nb = oversized(assignment)
    sanitize.bound_notebook(nb, assignment)  # as autograde does: the forged mark on cell 0 is not believed
    assert nb.cells[0].metadata[sanitize.CUT_MARK] != "forged by the student"
    assert len(nb.cells) == sanitize.MAX_CELLS + 1
    assert sanitize.bound_notebook(nb, assignment, shown_graded=True) == []
    assert len(nb.cells) == sanitize.MAX_CELLS + 1 and sum(sanitize.CUT_MARK in c.metadata for c in nb.cells) == 1
