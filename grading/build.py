"""Build the source notebooks from the reviewable jupytext files in lessons/.

    python -m grading.build          # write source/<assignment>/*.ipynb
    python -m grading.build --check  # exit 1 if a notebook is out of date

lessons/NN_name.py (Level 23) or lessons/<assignment>/NN_name.py (every later
assignment; py:percent, nbgrader metadata in each cell marker) is the file to
edit; source/<assignment>/NN_name.ipynb is generated from it, without outputs,
and committed so that nbgrader and JupyterLab can use it directly. Helpers
shared by the assignments (SHARED_HELPERS) have one source in Level 23's folder
and are copied into the others' here; --check fails when a copy drifts.
"""

import sys

import jupytext
import nbformat

from grading import ASSIGNMENT, ASSIGNMENTS, ROOT


def lesson_path(name, assignment=ASSIGNMENT):
    folder = ROOT / "lessons" if assignment == ASSIGNMENT else ROOT / "lessons" / assignment
    return folder / f"{name}.py"


def notebook_path(name, assignment=ASSIGNMENT):
    return ROOT / "source" / assignment / f"{name}.ipynb"


# Helpers shared by the assignments: one source (in Level 23's folder), copied into the others'.
SHARED_HELPERS = ("spec_quiz.py",)


def shared_copies():
    """[(source, copy)] of every shared helper and its copy in each later assignment's folder."""
    return [(ROOT / "source" / ASSIGNMENT / name, ROOT / "source" / assignment / name)
            for name in SHARED_HELPERS for assignment in ASSIGNMENTS if assignment != ASSIGNMENT]


def build(name, assignment=ASSIGNMENT):
    """The source notebook for lesson ``name``, as nbformat text."""
    nb = jupytext.read(lesson_path(name, assignment), fmt="py:percent")
    nb.metadata.pop("jupytext", None)
    nb.metadata["language_info"] = {"name": "python"}
    for cell in nb.cells:
        cell.pop("id", None)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.nbformat, nb.nbformat_minor = 4, 4
    return nbformat.writes(nb) + "\n"


def main(argv):
    stale = []
    for assignment, name in ((a, n) for a, names in ASSIGNMENTS.items() for n in names):
        if not lesson_path(name, assignment).exists():
            continue
        text = build(name, assignment)
        target = notebook_path(name, assignment)
        if target.exists() and target.read_text() == text:
            continue
        stale.append(target)
        if "--check" not in argv:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    for source, copy in shared_copies():
        text = source.read_text()
        if copy.exists() and copy.read_text() == text:
            continue
        stale.append(copy)
        if "--check" not in argv:
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text(text)
    if stale and "--check" in argv:
        print("out of date (run `make notebooks`):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
