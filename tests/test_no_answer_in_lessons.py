"""No lesson cell outside the solution cells writes the answer out (issue 42 item 5: notebook 02's "walk the table"
cell was a complete verify_draft). A code cell that is not an nbgrader solution or test cell must not both compare
a draw with p / q and stop the loop (accept, reject and break is the whole exercise)."""

import ast
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "lessons" / "level23_speculative_decoding").glob("*.py"))


def writes_the_answer(source):
    """Whether ``source`` holds a loop that draws r, compares it with p / q and breaks: verify_draft itself."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    for loop in (n for n in ast.walk(tree) if isinstance(n, ast.For)):
        body = list(ast.walk(loop))
        compares_ratio = any(isinstance(n, ast.Compare) and isinstance(n.comparators[0], ast.BinOp)
                             and isinstance(n.comparators[0].op, ast.Div) for n in body)
        if compares_ratio and any(isinstance(n, ast.Break) for n in body):
            return True
    return False


@pytest.mark.parametrize("lesson", LESSONS, ids=[p.stem for p in LESSONS])
def test_no_demonstration_cell_is_the_answer(lesson):
    nb = jupytext.read(lesson, fmt="py:percent")
    for index, cell in enumerate(nb.cells):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or meta.get("solution") or meta.get("grade"):
            continue
        assert not writes_the_answer(cell.source), f"{lesson.name} cell {index} writes out the answer"


def test_the_detector_finds_the_old_walk_cell():
    old = ("for i, token_id in enumerate(draft_tokens):\n    p, q = 1, 2\n    if p >= q:\n        continue\n"
           "    r = 0.5\n    if r < p / q:\n        pass\n    else:\n        break\n")
    assert writes_the_answer(old)


def test_run_all_reaches_the_students_own_replay_before_the_visible_test():
    """Run All stops at a failing visible test: the replay of the student's own verify_draft comes before it, so a
    student whose test fails still sees where each of their draws happened (issue 42 item 5)."""
    nb = jupytext.read(ROOT / "lessons" / "level23_speculative_decoding" / "02_reject_and_break.py", fmt="py:percent")
    sources = [cell.source for cell in nb.cells]
    mine = next(i for i, s in enumerate(sources) if "show_replay(verify_draft)" in s)
    test = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "test_visible")
    assert mine < test
