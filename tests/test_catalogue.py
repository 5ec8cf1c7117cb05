"""Every catalogued answer, autograded by the real nbgrader in one course run (answers/README.md)."""

import pytest

from grading import catalogue

ANSWERS = catalogue.load()
WRONG_PER_NOTEBOOK, RIGHT_PER_NOTEBOOK = 12, 4


def test_catalogue_has_enough_answers_of_each_kind():
    for nb in {a.notebook for a in ANSWERS}:
        wrong = [a for a in ANSWERS if a.notebook == nb and not a.full_marks]
        right = [a for a in ANSWERS if a.notebook == nb and a.full_marks]
        assert len(wrong) >= WRONG_PER_NOTEBOOK, f"{nb}: {len(wrong)} wrong answers"
        assert len(right) >= RIGHT_PER_NOTEBOOK, f"{nb}: {len(right)} correct answers"


@pytest.mark.parametrize("answer", ANSWERS, ids=lambda a: f"{a.notebook[:2]}-{a.name}")
def test_answer_gets_the_grade_its_header_says(graded_course, answer):
    grades = graded_course.grades(answer.student, answer.notebook)
    lost = sorted(g for g, (score, out_of) in grades.items() if score < out_of)
    if answer.full_marks:
        assert not lost, f"a correct answer lost points on {lost}"
    else:
        unknown = set(answer.must_lose) - set(grades)
        assert not unknown, f"the header names checks that do not exist: {unknown}"
        missed = [g for g in answer.must_lose if g not in lost]
        assert not missed, f"the mistake ({answer.why}) was not caught by {missed}; it lost {lost}"
