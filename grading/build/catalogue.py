"""The answer catalogue and the submissions built from it.

Every assignment's answers are in answers/<assignment>/<notebook>/<name>.py.
"""

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from grading import ASSIGNMENT, ASSIGNMENTS, ROOT

ANSWERS = ROOT / "answers"


def answers_dir(assignment=ASSIGNMENT):
    return ANSWERS / assignment


@dataclass
class Answer:
    notebook: str         # e.g. "02_reject_and_break"
    name: str             # the file's stem
    code: str             # the whole answer cell
    full_marks: bool      # "# expect: full"
    must_lose: tuple      # grade ids that must lose points
    why: str
    diagnosis: str = ""   # "# diagnosis:" the line the feedback gives this mistake
    assignment: str = ASSIGNMENT

    @property
    def student(self):
        prefix = "" if self.assignment == ASSIGNMENT else self.assignment.split("_")[0].replace("level", "l") + "-"
        return f"{prefix}{self.notebook[:2]}-{self.name}".replace("_", "-")


def parse(path, assignment=ASSIGNMENT):
    text = Path(path).read_text()
    expect = re.search(r"^# expect: (.+)$", text, re.M)
    why = re.search(r"^# why: (.+)$", text, re.M)
    diagnosis = re.search(r"^# diagnosis: (.+)$", text, re.M)
    if not expect:
        raise ValueError(f"{path}: the first lines need '# expect: full' or '# expect: lose <grade ids>'")
    words = expect.group(1).split()
    full = words == ["full"]
    if not full and (words[:1] != ["lose"] or len(words) < 2):
        raise ValueError(f"{path}: '# expect:' takes 'full' or 'lose <grade id> ...'")
    return Answer(Path(path).parent.name, Path(path).stem, text, full, tuple(words[1:]),
                  why.group(1) if why else "", diagnosis.group(1).strip() if diagnosis else "", assignment)


def load(notebook=None, assignment=ASSIGNMENT):
    """Every answer of one assignment's catalogue (Level 23 unless told), sorted by notebook and name."""
    out = []
    for nb in ASSIGNMENTS[assignment]:
        if notebook in (None, nb):
            out += [parse(p, assignment) for p in sorted((answers_dir(assignment) / nb).glob("*.py"))]
    return out


def load_all():
    """Every answer of every assignment, in the order of ASSIGNMENTS."""
    return [a for assignment in ASSIGNMENTS for a in load(assignment=assignment)]


def solution_cell(nb):
    """The one code cell a student writes in (nbgrader solution cell)."""
    cells = [c for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")]
    if len(cells) != 1:
        raise ValueError(f"expected one solution cell, found {len(cells)}")
    return cells[0]


def fill(release_notebook, code):
    """The release notebook with its answer cell replaced by ``code``."""
    nb = nbformat.read(release_notebook, as_version=4)
    solution_cell(nb).source = code
    return nb


def write_submission(submitted_dir, student, notebook, code, release_dir=None, assignment=ASSIGNMENT):
    """Write ``code`` as ``student``'s answer in submitted/<student>/<assignment>/<notebook>.ipynb."""
    release_dir = Path(release_dir or ROOT / "release" / assignment)
    target = Path(submitted_dir) / student / assignment / f"{notebook}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(fill(release_dir / f"{notebook}.ipynb", code), target)
    return target
