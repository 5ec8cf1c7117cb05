"""The notebooks themselves: in sync with lessons/, clean, valid for nbgrader, and runnable."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from grading import ASSIGNMENT, ASSIGNMENTS, NOTEBOOKS, language, pipeline, template  # noqa: E402
from grading.build import notebooks as build

SOURCE = ROOT / "source" / ASSIGNMENT
RELEASE = ROOT / "release" / ASSIGNMENT
PAIRS = [(a, n) for a, names in ASSIGNMENTS.items() for n in names]  # (assignment, notebook), every assignment
PAIR_IDS = [f"{a.split('_')[0]}{'' if language(a) == 'en' else '-' + language(a)}-{n}" for a, n in PAIRS]


def nbgrader_meta(cell):
    return cell.metadata.get("nbgrader", {})


@pytest.mark.parametrize("assignment,name", PAIRS, ids=PAIR_IDS)
def test_lesson_and_source_notebook_are_in_sync(assignment, name):
    assert (ROOT / "source" / assignment / f"{name}.ipynb").read_text() == build.build(name, assignment), \
        f"source/{assignment}/{name}.ipynb is stale: run `make notebooks` after editing its lesson (or translation)"


def test_shared_helpers_are_copied_unchanged():
    assert build.shared_copies(), "the later assignments get the shared helpers"
    for source, copy in build.shared_copies():
        assert copy.read_text() == source.read_text(), f"{copy} drifted from {source}: run `make notebooks`"


@pytest.mark.parametrize("kind", ["source", "release"])
def test_notebooks_are_committed_without_outputs(kind):
    for assignment, name in PAIRS:
        nb = nbformat.read(ROOT / kind / assignment / f"{name}.ipynb", as_version=4)
        dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
        assert not dirty, f"{kind}/{assignment}/{name}: cells {dirty} carry outputs"


@pytest.mark.parametrize("assignment,name", PAIRS, ids=PAIR_IDS)
def test_points_are_stated_and_add_up(assignment, name):
    nb = nbformat.read(ROOT / "source" / assignment / f"{name}.ipynb", as_version=4)
    solutions = [c for c in nb.cells if nbgrader_meta(c).get("solution")]
    tests = [c for c in nb.cells if nbgrader_meta(c).get("grade") and not nbgrader_meta(c).get("solution")]
    assert solutions and tests
    total = sum(nbgrader_meta(c)["points"] for c in tests)
    stated = re.search(r"worth (\d+) points|共 (\d+) 分", nb.cells[0].source)
    assert stated and int(stated.group(1) or stated.group(2)) == total, f"first cell should state the total, {total} points"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_is_exactly_what_nbgrader_generates(tmp_path, assignment):
    course = pipeline.make_course(tmp_path / "course")
    pipeline.nbgrader(course, "generate_assignment", assignment, "--force")
    fresh, release = course / "release" / assignment, ROOT / "release" / assignment
    mine = sorted(p.name for p in release.iterdir() if p.name != "__pycache__")
    assert mine == sorted(p.name for p in fresh.iterdir())
    for name in mine:
        assert (release / name).read_bytes() == (fresh / name).read_bytes(), \
            f"release/{assignment}/{name} differs from what nbgrader generates: run `make release`"


def validate(tmp_path, folder, name):
    work = tmp_path / folder.name
    shutil.copytree(folder, work, dirs_exist_ok=True)
    proc = subprocess.run([str(pipeline.BIN / "nbgrader"), "validate", f"{name}.ipynb"], cwd=work,
                          env=pipeline.env(), text=True, capture_output=True, timeout=300)
    return proc.stdout + proc.stderr


@pytest.mark.parametrize("assignment,name", PAIRS, ids=PAIR_IDS)
def test_source_passes_nbgrader_validate(tmp_path, assignment, name):
    out = validate(tmp_path, ROOT / "source" / assignment, name)
    assert "Success! Your notebook passes all the tests." in out, out[-2000:]


@pytest.mark.parametrize("assignment,name", PAIRS, ids=PAIR_IDS)
def test_release_fails_nbgrader_validate_until_answered(tmp_path, assignment, name):
    out = validate(tmp_path, ROOT / "release" / assignment, name)
    assert "Success!" not in out
    assert "NotImplementedError" in out, out[-2000:]


@pytest.mark.parametrize("assignment,name", PAIRS, ids=PAIR_IDS)
def test_source_runs_top_to_bottom_in_a_fresh_kernel(tmp_path, assignment, name):
    work = tmp_path / "nb"
    shutil.copytree(ROOT / "source" / assignment, work)
    nb = nbformat.read(work / f"{name}.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(work)}}).execute()
    errors = [(i, o.ename, o.evalue) for i, c in enumerate(nb.cells) if c.cell_type == "code"
              for o in c.outputs if o.output_type == "error"]
    assert not errors
    figures = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    widgets = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
               if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert widgets, "the quizzes (and number line) should render as widgets"
    if template(assignment) == ASSIGNMENT and name.startswith("01"):  # either edition
        assert len(figures) == 2, "notebook 01 draws the principle picture twice (position 0, then the pitfall)"
    elif template(assignment) != ASSIGNMENT:
        assert len(figures) == {"01": 1, "02": 2, "03": 1}[name[:2]], (
            "Level 24 draws the stacked bars in notebook 01, the histograms and the best K against α in 02, "
            "α against the temperature in 03")
    if language(assignment) == "zh":  # what a zh notebook prints is Chinese, with no stray spaces (issue 23)
        from test_i18n import bad_spaces, english_words, output_texts, zh_text

        found = [(where, words or spaces, text[:120]) for where, text in output_texts(nb)
                 if (words := english_words(text, zh_text("LATIN"))) or (spaces := bad_spaces(text))]
        assert not found, found[:8]


def test_config_alone_still_generates_the_same_release(tmp_path):
    """A grader who copies only nbgrader_config.py and source/ gets the same student notebooks."""
    shutil.copytree(SOURCE, tmp_path / "source" / ASSIGNMENT)
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path)
    proc = pipeline.nbgrader(tmp_path, "generate_assignment", ASSIGNMENT, "--force")
    assert "grading/ not found" in proc.stderr
    for name in NOTEBOOKS:
        fresh = (tmp_path / "release" / ASSIGNMENT / f"{name}.ipynb").read_bytes()
        assert fresh == (RELEASE / f"{name}.ipynb").read_bytes()


def test_level24_notebook_02_calls_the_students_step_only_after_its_visible_test():
    """Run All stops at the visible test while speculative_step is unwritten (issue 42): every demonstration that
    does not need it (the 100,000 steps, the formula, the speed-up widget, the best K, the quizzes) comes before the
    answer, and every cell after the visible test that is not a check calls speculative_step."""
    for assignment in ("level24_residual_and_bonus", "level24_residual_and_bonus_zh"):
        nb = nbformat.read(ROOT / "source" / assignment / "02_bonus_and_step.ipynb", as_version=4)
        code = [(c.source, c.metadata.get("nbgrader", {})) for c in nb.cells if c.cell_type == "code"]
        answer = next(i for i, (_, meta) in enumerate(code) if meta.get("grade_id") == "speculative_step")
        test = next(i for i, (_, meta) in enumerate(code) if meta.get("grade_id") == "test_visible")
        assert answer + 1 == test
        assert not [s for s, _ in code[:answer] if "speculative_step" in s]
        for name in ("simulate(", "show_histograms(", "speedup_widget(", "show_best_k(", 'quiz("l24_speed_check")',
                     'quiz("l24_some_k_helps")'):
            assert any(name in s for s, _ in code[:answer]), (assignment, name)
        after = [s for s, meta in code[test + 1:] if not meta and s.strip()]
        assert after and all("speculative_step" in s for s in after), (assignment, after)
