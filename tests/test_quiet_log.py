"""An honest class's grading log has no warning, so a real one can be seen (issue 41 item 5).

One course, graded by the plain nbgrader CLI (autograde, then generate_feedback): an honest student's two
notebooks give no WARNING line. nbgrader's "checksum has changed" warning (a locked cell's text is not the
instructor's) came for every test cell with hidden checks, whose released text lacks them; it still comes for a
student who really changed a locked test cell, and that cell is graded with the instructor's text.
"""

import json

import pytest

from grading import ASSIGNMENT, pipeline
from grading.build import catalogue

NB1, NB2 = "01_accept_branch", "02_reject_and_break"
ANSWERS = {NB1: "correct_for_enumerate", NB2: "correct_while_loop"}


def right(notebook):
    return catalogue.parse(catalogue.answers_dir() / notebook / f"{ANSWERS[notebook]}.py").code


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    course = pipeline.make_course(tmp_path_factory.mktemp("quiet"))
    generated = pipeline.nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    release = course / "release" / ASSIGNMENT
    for notebook in (NB1, NB2):
        catalogue.write_submission(course / "submitted", "honest", notebook, right(notebook), release)
    # A student who changed the visible text of a hidden-check cell: a real change, which nbgrader reports.
    path = catalogue.write_submission(course / "submitted", "edits-check", NB1, right(NB1), release)
    nb = json.loads(path.read_text())
    tampered = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "hidden_q_zero")
    tampered["source"] = "# changed by the student\npass\n"
    path.write_text(json.dumps(nb))
    honest = pipeline.nbgrader(course, "autograde", ASSIGNMENT, "--student", "honest")
    other = pipeline.nbgrader(course, "autograde", ASSIGNMENT, "--student", "edits-check")
    feedback = pipeline.nbgrader(course, "generate_feedback", ASSIGNMENT, "--student", "honest")
    return {"course": course, "generate": generated.stderr, "honest": honest.stderr, "tampered": other.stderr,
            "feedback": feedback.stderr}


def warnings(log):
    return [line for line in log.splitlines() if "WARNING" in line or "ERROR" in line]


@pytest.mark.parametrize("step", ["generate", "honest", "feedback"])
def test_an_honest_class_log_has_no_warning(logs, step):
    assert warnings(logs[step]) == []


def test_a_changed_test_cell_is_still_reported_and_graded_as_the_instructors(logs):
    said = warnings(logs["tampered"])
    assert any("checksum" in line and "hidden_q_zero" in line for line in said), said
    assert not any("checksum" in line and "hidden_q_zero" not in line for line in said), said
    scores = pipeline.scores(logs["course"])
    assert scores["honest"] == {nb: {k: (v[1], v[1]) for k, v in cells.items()} for nb, cells in scores["honest"].items()}
    assert scores["edits-check"][NB1]["hidden_q_zero"] == (1.0, 1.0)  # graded with the instructor's text
