"""generate -> submit -> autograde -> feedback -> export, by the real nbgrader, on the example class."""

import csv

import pytest

from grading import ASSIGNMENT, ASSIGNMENTS, EDITIONS, NOTEBOOKS, demo, pipeline, template

# What `make demo` must print, student by student: (notebook 01, notebook 02) scores.
EXPECTED = {"ada": (16, 20), "ben": (16, 13), "cy": (11, 15), "dee": (10, 20)}


def test_example_class_gets_the_expected_scores(graded_course):
    totals = pipeline.totals(graded_course.table)
    for student, want in EXPECTED.items():
        got = tuple(totals[f"demo-{student}"][nb][0] for nb in NOTEBOOKS)
        assert got == want, f"{student}: {got} != {want}"
    assert {tuple(totals["demo-ada"][nb][1] for nb in NOTEBOOKS)} == {(16, 20)}


# Level 24's example students: (notebook 01, notebook 02, notebook 03) scores.
EXPECTED_LEVEL24 = {"ada": (15, 15, 9), "eve": (9, 6, 5)}


def test_level24_example_students_get_the_expected_scores(graded_course):
    totals = pipeline.totals(graded_course.table)
    notebooks = ASSIGNMENTS["level24_residual_and_bonus"]
    for student, want in EXPECTED_LEVEL24.items():
        got = tuple(totals[f"demo-{student}"][nb][0] for nb in notebooks)
        assert got == want, f"{student}: {got} != {want}"
    assert set(demo.CLASS_LEVEL24) == set(EXPECTED_LEVEL24)


def test_demo_class_has_a_right_and_a_typical_wrong_answer_per_notebook():
    for k, nb in enumerate(NOTEBOOKS):
        picks = {picks[k] for picks in demo.CLASS.values()}
        assert any(p.startswith("correct") for p in picks) and any(not p.startswith("correct") for p in picks), nb


def test_feedback_is_written_for_every_submission(graded_course):
    for student in (f"demo-{s}" for s in EXPECTED):
        for nb in NOTEBOOKS:
            html = graded_course.feedback(student, nb)
            assert "Score:" in html or "score" in html.lower()


def test_export_writes_one_row_per_student_with_the_scores(graded_course):
    rows = list(csv.DictReader((graded_course.root / "grades.csv").open()))
    ada = [r for r in rows if r["student_id"] == "demo-ada" and r["assignment"] == ASSIGNMENT]
    assert len(ada) == 1 and float(ada[0]["score"]) == 36.0 and float(ada[0]["max_score"]) == 36.0
    assert {r["assignment"] for r in rows} == set(ASSIGNMENTS)  # every assignment and edition, in one export


def test_score_table_prints_every_student():
    table = demo.score_table({"ada": {NOTEBOOKS[0]: (15.0, 15.0), NOTEBOOKS[1]: (18.0, 18.0)}})
    assert "ada" in table and "33 / 33" in table


@pytest.mark.parametrize("edition", list(EDITIONS))
def test_the_chinese_students_of_the_demo_get_the_scores_of_their_english_twins(graded_course, edition):
    base = template(edition)
    twins = {student: next(t for t, theirs in demo.CLASSES[base].items() if theirs == picks)
             for student, picks in demo.CLASSES[edition].items()}  # an English student with the same answers
    assert len(twins) >= 2
    zh, en = graded_course.tables[edition], graded_course.tables[base]
    for student, twin in twins.items():
        assert zh[f"demo-{student}"] == en[f"demo-{twin}"], (student, twin)
    assert set(demo.ROSTER) == set(ASSIGNMENTS)


def test_score_table_names_each_students_edition():
    table = demo.score_table({"ada": {NOTEBOOKS[0]: (15.0, 15.0)}, "lan": {NOTEBOOKS[0]: (15.0, 15.0)}},
                             editions={"ada": "en", "lan": "zh"})
    assert "edition" in table and "lan     zh" in table


def scores_by_objects(course, assignment):
    """pipeline.scores through nbgrader's own objects, one lazy load at a time (what it did before)."""
    from nbgrader.api import Gradebook

    out = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for submission in gb.find_assignment(assignment).submissions:
            student = out.setdefault(submission.student.id, {})
            for nb in submission.notebooks:
                student[nb.notebook.name] = {g.name: (g.score, g.max_score) for g in nb.grades}
    return out


def test_the_gradebook_read_in_three_queries_equals_nbgraders_objects(graded_course):
    for assignment in ASSIGNMENTS:
        fast = pipeline.scores(graded_course.root, assignment=assignment)
        assert fast and fast == scores_by_objects(graded_course.root, assignment), assignment


def test_level24_lesson_experiments_on_the_students_function_are_not_run_while_grading(graded_course):
    """Outside the test cells, every lesson cell that runs the student's function many times (notebook 01's 5,000
    steps, notebook 02's Markov runs and tiny-model generation, notebook 03's timings) says that it is not run while
    grading, in the graded notebook: nothing there is graded, and they were a tenth of a CPU-second a submission."""
    import nbformat

    assignment = "level24_residual_and_bonus"
    expected = {"01_correction_token": 1, "02_bonus_and_step": 2, "03_real_pair": 4}
    for notebook, want in expected.items():
        nb = nbformat.read(graded_course.autograded("demo-ada", notebook, assignment), as_version=4)
        said = [c for c in nb.cells if c.cell_type == "code" and any(
            "while grading" in o.get("text", "") or "not graded" in o.get("text", "") for o in c.get("outputs", []))]
        assert len(said) == want, (notebook, [c.source[:60] for c in said])
