"""Build the source notebooks from the reviewable jupytext files in lessons/.

    python -m grading.build          # write source/<assignment>/*.ipynb
    python -m grading.build --check  # exit 1 if a notebook is out of date

lessons/NN_name.py (py:percent, nbgrader metadata in each cell marker) is the
file to edit; source/<assignment>/NN_name.ipynb is generated from it, without
outputs, and committed so that nbgrader and JupyterLab can use it directly.
"""

import sys

import jupytext
import nbformat

from grading import ASSIGNMENT, NOTEBOOKS, ROOT


def lesson_path(name):
    return ROOT / "lessons" / f"{name}.py"


def notebook_path(name):
    return ROOT / "source" / ASSIGNMENT / f"{name}.ipynb"


def build(name):
    """The source notebook for lesson ``name``, as nbformat text."""
    nb = jupytext.read(lesson_path(name), fmt="py:percent")
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
    for name in NOTEBOOKS:
        if not lesson_path(name).exists():
            continue
        text = build(name)
        target = notebook_path(name)
        if target.exists() and target.read_text() == text:
            continue
        stale.append(target)
        if "--check" not in argv:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    if stale and "--check" in argv:
        print("out of date (run `make notebooks`):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
