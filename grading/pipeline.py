"""Run the real nbgrader CLI on a course folder and read the gradebook back."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from grading import ASSIGNMENT, ROOT

BIN = Path(sys.executable).parent


def env():
    """nbgrader runs `alembic` by name: the environment's bin/ goes first on PATH."""
    e = dict(os.environ)
    e["PATH"] = f"{BIN}{os.pathsep}{e.get('PATH', '')}"
    e.pop("NBGRADER_EXECUTION", None)
    return e


def nbgrader(course, *args, check=True, timeout=1800):
    """Run ``nbgrader <args>`` in ``course`` and return the finished process."""
    proc = subprocess.run([str(BIN / "nbgrader"), *args], cwd=course, env=env(), text=True,
                          capture_output=True, timeout=timeout)
    if check and proc.returncode:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc


def make_course(target):
    """A fresh course folder at ``target``: source/, the config and the grading package."""
    target = Path(target)
    target.mkdir(parents=True, exist_ok=True)
    shutil.copytree(ROOT / "source", target / "source", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    shutil.copytree(ROOT / "grading", target / "grading", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    # The translated editions' words for the diagnosis line are read at grading time.
    shutil.copytree(ROOT / "lessons" / "i18n", target / "lessons" / "i18n", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "nbgrader_config.py", target)
    return target


def scores(course, db_url=None, assignment=ASSIGNMENT):
    """{student: {notebook: {grade_id: (score, max_score)}}} of one assignment, from the course's gradebook.

    An assignment nobody has submitted yet gives {}.
    """
    from nbgrader.api import (Assignment, Grade, GradeCell, Gradebook, Notebook, SubmittedAssignment,
                              SubmittedNotebook)

    out = {}
    with Gradebook(db_url or f"sqlite:///{Path(course) / 'gradebook.db'}") as gb:
        # three queries in all (nbgrader's objects load each grade's score and maximum one query at a time:
        # about 20,000 for the test course)
        mine = gb.db.query(SubmittedAssignment.id, SubmittedAssignment.student_id).join(
            Assignment, SubmittedAssignment.assignment_id == Assignment.id).filter(Assignment.name == assignment)
        ids = {}
        for submission_id, student in mine:
            out[student] = {}
            ids[submission_id] = student
        if not ids:
            return out
        notebooks = gb.db.query(SubmittedNotebook.id, SubmittedNotebook.assignment_id, Notebook.name).join(
            Notebook, SubmittedNotebook.notebook_id == Notebook.id).filter(SubmittedNotebook.assignment_id.in_(ids))
        where = {}
        for notebook_id, submission_id, name in notebooks:
            where[notebook_id] = out[ids[submission_id]].setdefault(name, {})
        grades = gb.db.query(Grade.notebook_id, GradeCell.name, Grade.score, GradeCell.max_score).join(
            GradeCell, Grade.cell_id == GradeCell.id).filter(Grade.notebook_id.in_(where))
        for notebook_id, name, score, max_score in grades:
            where[notebook_id][name] = (score, max_score)
    return out


def class_scores(course, db_url=None):
    """{assignment: scores(...)} for every assignment of the course (every edition) that has submissions."""
    from grading import ASSIGNMENTS

    out = {a: scores(course, db_url, a) for a in ASSIGNMENTS}
    return {a: table for a, table in out.items() if table}


def totals(table):
    """{student: {notebook: (score, max)}} summed over the checks."""
    return {s: {nb: (sum(v[0] for v in g.values()), sum(v[1] for v in g.values())) for nb, g in nbs.items()}
            for s, nbs in table.items()}
