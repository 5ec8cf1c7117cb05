"""Shared fixtures: one temporary nbgrader course, graded once per test session.

Every answer of the catalogue (answers/) and every example student of `make demo`
is submitted to a fresh course in a temporary folder and autograded there by the
real nbgrader CLI, in one `nbgrader autograde` run. Tests read its gradebook,
its autograded notebooks and its feedback.
"""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grading import ASSIGNMENT, NOTEBOOKS, catalogue, demo, pipeline  # noqa: E402


class GradedCourse:
    def __init__(self, root, answers, logs):
        self.root = root
        self.answers = answers
        self.logs = logs
        self.table = pipeline.scores(root)

    def grades(self, student, notebook):
        return self.table[student][notebook]

    def feedback(self, student, notebook):
        return (self.root / "feedback" / student / ASSIGNMENT / f"{notebook}.html").read_text()


@pytest.fixture(scope="session")
def graded_course(tmp_path_factory):
    root = pipeline.make_course(tmp_path_factory.mktemp("course"))
    logs = {"generate": pipeline.nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")}
    answers = catalogue.load()
    release = root / "release" / ASSIGNMENT
    for answer in answers:
        catalogue.write_submission(root / "submitted", answer.student, answer.notebook, answer.code, release)
    by_name = {(a.notebook, a.name): a for a in answers}
    for student, picks in demo.CLASS.items():
        for notebook, name in zip(NOTEBOOKS, picks):
            catalogue.write_submission(root / "submitted", f"demo-{student}", notebook,
                                       by_name[notebook, name].code, release)
    logs["autograde"] = pipeline.nbgrader(root, "autograde", ASSIGNMENT, "--force")
    logs["feedback"] = pipeline.nbgrader(root, "generate_feedback", ASSIGNMENT, "--force")
    logs["export"] = pipeline.nbgrader(root, "export")
    return GradedCourse(root, answers, logs)
