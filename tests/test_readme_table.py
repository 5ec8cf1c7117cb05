"""The README's instructor table, followed row by row on a fresh clone (issue 42, item 1).

`git clone` of this repository (its committed HEAD) into a temporary folder, with `.venv` a symlink to this
checkout's environment (`make -o .venv/.installed` so nothing is reinstalled). Each row of the table in
README.md is read from the README itself and run as written: the `make ...` and `nbgrader ...` commands in its
cell, in the table's order, with two students (one right, one with Level 23's `continue` mistake). A row
added to, removed from or reordered in the table fails the test until it is taught here.
"""

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from grading import ASSIGNMENT, ASSIGNMENTS, pipeline
from grading.build import catalogue

ROOT = Path(__file__).resolve().parent.parent
STUDENTS = {"ada": ("correct_for_enumerate", "correct_for_enumerate"),
            "ben": ("correct_for_enumerate", "continue_not_break")}
LEVEL23_MAX = 36


def instructor_table(root=ROOT):
    """[(step, command cell)] of the table under the README's instructors' heading."""
    lines = (root / "README.md").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("#") and "instructor" in line.lower())
    head = next(i for i in range(start, len(lines)) if lines[i].replace(" ", "") == "|step|command|")
    rows = []
    for line in lines[head + 2:]:
        if not line.startswith("|"):
            break
        step, cell = [part.strip() for part in line.strip().strip("|").split("|", 1)]
        rows.append((step, cell))
    return rows


def commands(cell):
    """The `make ...` and `nbgrader ...` commands of a cell, as written."""
    return [c for c in re.findall(r"`([^`]+)`", cell) if c.split()[0] in ("make", "nbgrader")]


class Clone:
    def __init__(self, path):
        self.path = path
        self.env = dict(os.environ)
        self.env["PATH"] = f"{path / '.venv' / 'bin'}{os.pathsep}{self.env.get('PATH', '')}"
        for var in ("NBGRADER_EXECUTION", "MAKEFLAGS", "MAKELEVEL", "MFLAGS"):
            self.env.pop(var, None)

    def run(self, command, **fill):
        """Run a README command in the clone, its <placeholders> filled from ``fill``."""
        for name, value in fill.items():
            command = command.replace(f"<{name}>", str(value))
        assert "<" not in command, f"a placeholder left in {command!r}"
        if command.startswith("make "):  # the environment is this checkout's, already installed
            command = "make -o .venv/.installed " + command[len("make "):]
        proc = subprocess.run(command, shell=True, cwd=self.path, env=self.env, text=True, capture_output=True,
                              timeout=1200)
        assert proc.returncode == 0, f"`{command}` failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        return proc


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    path = tmp_path_factory.mktemp("fresh") / "course"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(path)], check=True, timeout=600)
    (path / ".venv").symlink_to(Path(sys.prefix).resolve())
    return Clone(path)


def test_the_table_has_the_rows_this_test_follows():
    assert [step for step, _ in instructor_table()] == list(STEPS)


def edit_the_lesson(clone, cell):
    assert "lessons/<assignment>/NN_name.py" in cell and commands(cell) == ["make notebooks"]
    clone.run("make notebooks")
    for assignment, notebooks in ASSIGNMENTS.items():
        for notebook in notebooks:
            assert (clone.path / "source" / assignment / f"{notebook}.ipynb").exists()


def generate(clone, cell):
    assert commands(cell)[0] == "make release"
    clone.run("make release")
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{clone.path / 'gradebook.db'}") as gb:  # the course's, which autograde reads
        registered = {a.name: sorted(nb.name for nb in a.notebooks) for a in gb.assignments}
    assert registered == {a: sorted(nbs) for a, nbs in ASSIGNMENTS.items()}
    # the release is nbgrader's output of the committed source, so a fresh clone's is unchanged
    changed = subprocess.run(["git", "status", "--porcelain", "--", "release", "source"], cwd=clone.path,
                             capture_output=True, text=True).stdout
    assert changed == "", changed


def hand_out(clone, cell):
    folder = re.search(r"`(release/[^`]+)`", cell).group(1)
    for notebook in ASSIGNMENTS[ASSIGNMENT]:
        text = (clone.path / folder / f"{notebook}.ipynb").read_text()
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text


def collect(clone, cell):
    where = re.search(r"`(submitted/<student>/[^`]+)`", cell).group(1)
    answers = {(a.notebook, a.name): a for a in catalogue.load(assignment=ASSIGNMENT)}
    for student, picks in STUDENTS.items():
        folder = clone.path / where.replace("<student>", student).rstrip("/")
        for notebook, pick in zip(ASSIGNMENTS[ASSIGNMENT], picks):
            path = catalogue.write_submission(clone.path / "submitted", student, notebook, answers[notebook, pick].code,
                                              clone.path / "release" / ASSIGNMENT, ASSIGNMENT)
            assert path.parent == folder


def autograde(clone, cell):
    assert commands(cell)[0] == f"nbgrader autograde {ASSIGNMENT}"
    clone.run(commands(cell)[0])
    totals = pipeline.totals(pipeline.scores(clone.path))
    assert sum(s for s, _ in totals["ada"].values()) == LEVEL23_MAX
    assert sum(s for s, _ in totals["ben"].values()) < LEVEL23_MAX
    assert commands(cell)[1] == "make grade"  # the row's other way: every submission in parallel, and a report
    clone.run("make grade")
    assert pipeline.totals(pipeline.scores(clone.path)) == totals
    assert (clone.path / "reports" / "index.html").exists()
    # a second `make release` (a lesson fixed after students submitted, the cells the same) keeps what was graded
    clone.run("make release")
    assert pipeline.totals(pipeline.scores(clone.path)) == totals


def feedback(clone, cell):
    assert commands(cell)[0] == f"nbgrader generate_feedback {ASSIGNMENT}"
    clone.run(commands(cell)[0])
    for student in STUDENTS:
        for notebook in ASSIGNMENTS[ASSIGNMENT]:
            assert (clone.path / "feedback" / student / ASSIGNMENT / f"{notebook}.html").stat().st_size > 0
    assert "Diagnosis" in (clone.path / "feedback" / "ben" / ASSIGNMENT / "02_reject_and_break.html").read_text()


def export(clone, cell):
    plain, canvas = commands(cell)[:2]
    assert plain == "make export" and canvas.startswith("make export CANVAS=")
    clone.run(plain)
    rows = list(csv.DictReader(open(clone.path / "grades.csv")))
    scores = {r["student_id"]: float(r["score"]) for r in rows if r["assignment"] == ASSIGNMENT}
    assert scores["ada"] == LEVEL23_MAX and scores["ben"] < LEVEL23_MAX
    for name in ("moodle_grades.csv", "lms_report.txt"):
        assert (clone.path / name).exists()
    from test_export import canvas_file

    exported = canvas_file(clone.path.parent / "canvas_export.csv", ["ada", "ben"])
    clone.run(re.sub(r"<[^>]+>\.csv", "<file>", canvas), file=exported)
    filled = list(csv.reader(open(clone.path / "canvas_grades.csv")))
    assert len(filled) == 4 and any(f"{LEVEL23_MAX}" in row for row in filled[2:])


def review_by_hand(clone, cell):
    assert "`jupyter lab`" in cell and "Formgrader" in cell
    listed = clone.run("jupyter server extension list 2>&1")
    plain = re.sub(r"\x1b\[[0-9;]*m", "", listed.stdout + listed.stderr)  # without its colours
    assert re.search(r"nbgrader\.server_extensions\.formgrader\s+enabled", plain)


STEPS = {
    "edit the lesson": edit_the_lesson,
    "generate the student version": generate,
    "hand out": hand_out,
    "collect": collect,
    "autograde": autograde,
    "feedback": feedback,
    "export": export,
    "review by hand": review_by_hand,
}


def test_every_row_of_the_instructor_table_works_on_a_fresh_clone(clone):
    for step, cell in instructor_table(clone.path):  # the clone's own README
        STEPS[step](clone, cell)
