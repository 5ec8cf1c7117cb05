"""A submission cannot gain points by attacking the grader (tests/submissions/gaming/)."""

import pytest

from conftest import header, hostile_submissions
from grading.build import catalogue

GAMING = [(s, nb, p) for s, nb, p in hostile_submissions() if s.startswith("gaming-")]
BASELINES = {(a.notebook, a.name): a for a in catalogue.load()}


def total(grades):
    return sum(score for score, _ in grades.values())


@pytest.mark.parametrize("student,notebook,path", GAMING, ids=[g[0] for g in GAMING])
def test_attack_gains_nothing_over_the_honest_wrong_answer(graded_course, student, notebook, path):
    baseline = BASELINES[notebook, header(path.read_text(), "baseline")]
    attacked = graded_course.grades(student, notebook)
    honest = graded_course.grades(baseline.student, notebook)
    assert total(attacked) <= total(honest), (
        f"{header(path.read_text(), 'attack')}: scored {total(attacked)}, the honest mistake {total(honest)}")
    still_caught = [g for g in baseline.must_lose if attacked[g][0] < attacked[g][1]]
    assert still_caught == list(baseline.must_lose), f"no longer caught: {set(baseline.must_lose) - set(still_caught)}"


def test_there_is_an_attack_for_each_kind_the_course_promises_to_resist():
    attacks = {p.stem for _, _, p in GAMING}
    for needed in ("rand_replaced_at_top_level", "rand_replaced_inside_call", "mock_replaced", "builtins_rebound",
                   "helpers_replaced", "tracebacks_off_instance", "tracebacks_off_class", "test_cells_edited",
                   "broad_except"):
        assert needed in attacks


def test_deleted_test_cell_is_put_back_and_graded(graded_course):
    grades = graded_course.grades("gaming-test-cells-edited", "02_reject_and_break")
    assert grades["hidden_break_not_continue"] == (0.0, 1.0)
    assert grades["test_visible"] == (0.0, 3.0)


@pytest.mark.parametrize("student,notebook,path", GAMING, ids=[g[0] for g in GAMING])
def test_attack_scores_the_same_in_the_chinese_edition(graded_course, student, notebook, path):
    from conftest import ZH
    assert graded_course.grades(student, notebook, ZH) == graded_course.grades(student, notebook)
