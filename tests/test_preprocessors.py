"""The output caps (CapOutputSize) and feedback's hidden-test clearing, on notebooks built here."""

import json

import nbformat

from grading.preprocessors import CapOutputSize, ClearHiddenTestsInTestCells


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


def test_a_hidden_test_marker_in_a_students_cell_does_not_break_feedback():
    student = nbformat.v4.new_code_cell("# ### BEGIN HIDDEN TESTS (a student's comment)\nx = 1")
    student.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": "answer", "locked": False}
    test = nbformat.v4.new_code_cell("assert x == 1\n### BEGIN HIDDEN TESTS\nassert x != 2\n### END HIDDEN TESTS")
    test.metadata["nbgrader"] = {"solution": False, "grade": True, "grade_id": "t", "points": 1, "locked": True}
    nb, _ = ClearHiddenTestsInTestCells().preprocess(nbformat.v4.new_notebook(cells=[student, test]), {})
    assert nb.cells[0].source == student.source
    assert "x != 2" not in nb.cells[1].source and "assert x == 1" in nb.cells[1].source
