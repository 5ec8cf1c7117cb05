"""Every catalogued answer, autograded by the real nbgrader in one course run (answers/README.md)."""

import pytest

from grading import ASSIGNMENT
from grading.build import catalogue

ANSWERS = catalogue.load_all()  # every assignment's
WRONG_PER_NOTEBOOK, RIGHT_PER_NOTEBOOK = 12, 4


def answer_id(a):
    return f"{a.student.split('-')[0]}-{a.notebook[:2]}-{a.name}" if a.student[0] == "l" else f"{a.notebook[:2]}-{a.name}"


def test_catalogue_has_enough_answers_of_each_kind():
    for nb in {a.notebook for a in ANSWERS}:
        wrong = [a for a in ANSWERS if a.notebook == nb and not a.full_marks]
        right = [a for a in ANSWERS if a.notebook == nb and a.full_marks]
        assert len(wrong) >= WRONG_PER_NOTEBOOK, f"{nb}: {len(wrong)} wrong answers"
        assert len(right) >= RIGHT_PER_NOTEBOOK, f"{nb}: {len(right)} correct answers"


@pytest.mark.parametrize("answer", ANSWERS, ids=answer_id)
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


def cell_output(graded_course, answer, grade_id):
    """The text of one cell's outputs in the answer's autograded notebook."""
    import nbformat

    path = graded_course.autograded(answer.student, answer.notebook, answer.assignment)
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
            return "".join(o.get("text", "") + o.get("evalue", "") for o in cell.get("outputs", []))
    raise KeyError(grade_id)


def expected_diagnosis(answer):
    """The line an answer's diagnosis starts with: Level 24's answers name a rule (grading/judge/rules.py), whose
    sentence is the line's first; Level 23's give the whole sentence."""
    from grading.judge import diagnosis, rules
    if answer.full_marks:
        return f"Diagnosis: {diagnosis.NONE}\n"
    if answer.assignment == ASSIGNMENT:
        return f"Diagnosis: {answer.diagnosis}\n"
    return f"Diagnosis: {rules.sentence(answer.diagnosis)}"


def with_smallest_case(got, expected, lang="en"):
    """Whether ``got`` is ``expected`` followed by the smallest generated case it gets wrong (what the run shows
    directly, which no model of the loop names: grading/judge/diagnosis.py)."""
    from grading.judge.walk_text import WORDS
    head = expected.rstrip("\n")
    lead = WORDS[lang]["smallest"].split("{")[0]
    rest = got[len(head):].lstrip(".\u3002")
    return got.startswith(head) and rest.startswith(lead) and got.endswith("\n")


@pytest.mark.parametrize("answer", ANSWERS, ids=answer_id)
def test_the_diagnosis_names_the_answers_own_mistake(graded_course, answer):
    got, expected = cell_output(graded_course, answer, "diagnosis"), expected_diagnosis(answer)
    assert got == expected or (answer.assignment != ASSIGNMENT and got.startswith(expected)
                               and got[len(expected):].startswith((" (also: ", "\n"))) or (
        answer.assignment == ASSIGNMENT and with_smallest_case(got, expected))


def test_every_wrong_answer_has_its_own_diagnosis():
    from grading.judge import rules
    for nb in {a.notebook for a in ANSWERS}:
        texts = [a.diagnosis for a in ANSWERS if a.notebook == nb and not a.full_marks]
        assert all(texts)
        if nb in ("01_accept_branch", "02_reject_and_break"):  # one sentence each, but what the run shows directly
            own = [t for t in texts if t not in {en for en, _ in rules.SENTENCES.values()}]  # (rules23.PREDICATES)
            assert len(set(own)) == len(own)
        else:
            assert set(texts) <= set(rules.SENTENCES), set(texts) - set(rules.SENTENCES)


def test_the_diagnosis_table_is_built_from_the_current_catalogue():
    from grading.judge import diagnosis
    assert diagnosis.main(["--check"]) == 0, "run `python -m grading.judge.diagnosis`"


def test_an_endless_loop_and_a_dead_kernel_are_said_plainly(graded_course):
    loop = catalogue.Answer("02_reject_and_break", "x", "", False, (), "")
    loop.__class__ = type("Named", (catalogue.Answer,), {"student": property(lambda self: self._s)})
    loop._s = "faults-endless-loop-in-function"
    # what the run shows: the calls were stopped at their time budget (grading/judge/rules.py "runs_too_long")
    assert cell_output(graded_course, loop, "diagnosis").startswith(
        "Diagnosis: your function did not return within its time budget in ")
    loop._s = "faults-kills-kernel"
    assert cell_output(graded_course, loop, "diagnosis").startswith("Diagnosis: not made: the Python kernel stopped")


# ------------------------------------------------------------------ the Chinese edition, graded in the same course

LEVEL23 = [a for a in ANSWERS if a.assignment == ASSIGNMENT]  # the Chinese edition's template's answers


@pytest.mark.parametrize("answer", LEVEL23, ids=lambda a: f"{a.notebook[:2]}-{a.name}")
def test_the_chinese_edition_gives_every_answer_the_same_grades(graded_course, answer):
    from conftest import ZH
    assert graded_course.grades(answer.student, answer.notebook, ZH) == graded_course.grades(answer.student,
                                                                                              answer.notebook)


@pytest.mark.parametrize("answer", LEVEL23, ids=lambda a: f"{a.notebook[:2]}-{a.name}")
def test_the_chinese_diagnosis_names_the_same_mistake_in_chinese(graded_course, answer):
    import nbformat

    from conftest import ZH
    from grading.judge import diagnosis
    words, translated = diagnosis.texts(ZH)
    from grading.judge import rules
    in_rules = {en: zh for en, zh in rules.SENTENCES.values()}  # what the run shows directly: the rules' words
    expected = (words["none"] if answer.full_marks else in_rules.get(answer.diagnosis)
                or translated[answer.notebook][answer.name])
    path = graded_course.autograded(answer.student, answer.notebook, ZH)
    cell = next(c for c in nbformat.read(path, as_version=4).cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == "diagnosis")
    got = "".join(o.get("text", "") for o in cell.outputs)
    assert got == f"{words['prefix']}{expected}\n" or with_smallest_case(got, f"{words['prefix']}{expected}\n", "zh")
