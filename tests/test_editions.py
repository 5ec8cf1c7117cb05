"""Every translated edition grades every catalogue answer as its English template does, in its own words.

Level 23's Chinese edition is graded by the real nbgrader with the whole catalogue in the shared
course (tests/test_catalogue.py compares it there). An edition whose catalogue is not (conftest.py
CATALOGUE_EDITIONS: Level 24's) is checked here with the grader's own verdict code, in-process: each
answer's test cells run against the edition's helpers (grading.judge.verdicts.Judge, as `trace_of` does for
the diagnosis table), and the points must be the real English grades of the same answer from the
shared course; the diagnosis line must name the same catalogue answer in the edition's words, and
no failed check's message may be an English sentence.
"""

import functools

import pytest

from grading import ASSIGNMENTS, EDITIONS, ROOT, template
from grading.build import catalogue
from grading.judge import diagnosis, rules
from test_i18n import english_sentences

from conftest import CATALOGUE_EDITIONS

CASES = [(edition, a) for edition in EDITIONS if edition not in CATALOGUE_EDITIONS
         for a in catalogue.load(assignment=template(edition))]


def verdicts(code, notebook, assignment):
    """({grade_id: (points scored, points)}, [failed checks' messages], the diagnosis line) of one answer, from
    the grader's own in-process run (diagnosis.judge_of: the same Judge and test cells nbgrader runs)."""
    cells = {}
    judge = diagnosis.judge_of(code, notebook, ROOT / "source" / assignment, outputs=cells)
    grades, messages = {}, []
    for grade_id, (meta, outputs) in cells.items():
        errors = [o for o in outputs if o.output_type == "error"]
        grades[grade_id] = (0.0 if errors else float(meta["points"]), float(meta["points"]))
        messages += [o.evalue for o in errors]
    return grades, messages, diagnosis.line(notebook, judge, assignment=assignment)


@functools.lru_cache(maxsize=None)
def edition_run(edition, notebook, name):
    a = next(x for x in catalogue.load(assignment=template(edition)) if (x.notebook, x.name) == (notebook, name))
    return verdicts(a.code, notebook, edition)


@pytest.mark.parametrize("edition,answer", CASES, ids=lambda x: x if isinstance(x, str) else
                         f"{x.notebook[:2]}-{x.name}")
def test_every_answer_scores_in_the_edition_what_nbgrader_gave_it_in_english(graded_course, edition, answer):
    grades, _, _ = edition_run(edition, answer.notebook, answer.name)
    english = graded_course.grades(answer.student, answer.notebook, template(edition))
    assert grades == {k: v for k, v in english.items() if k in grades}, "the edition scores this answer differently"
    assert set(grades) == {k for k, (_, points) in english.items() if points}, "the editions have other checks"


@pytest.mark.parametrize("edition,answer", CASES, ids=lambda x: x if isinstance(x, str) else
                         f"{x.notebook[:2]}-{x.name}")
def test_the_edition_names_the_same_mistake_in_its_words_and_no_message_is_english(edition, answer):
    _, messages, line = edition_run(edition, answer.notebook, answer.name)
    words, translated = diagnosis.texts(edition)
    if answer.full_marks:
        assert line == words["prefix"] + words["none"]
    elif translated is None:  # diagnosed by rules: the answer's rule, in the edition's words, comes first
        assert line.startswith(words["prefix"] + rules.sentence(answer.diagnosis, "zh")), line
    else:
        assert line == words["prefix"] + translated[answer.notebook][answer.name]
    english = [(m, hits) for m in messages if (hits := english_sentences(m))]
    assert not english, english[:3]
    assert answer.full_marks == (not messages)
    # what the grader writes, as the student reads it: the glossary's terms, full-width punctuation, no stray space
    from test_glossary_zh import faults
    found = [(text, hits) for text in messages + [line] if (hits := faults(text))]
    assert not found, found[:3]


def test_the_comparison_can_fail():
    """A wrong answer loses points in the edition too, and the English edition's messages are found English."""
    edition = next(e for e in EDITIONS if e not in CATALOGUE_EDITIONS)
    wrong = next(a for a in catalogue.load(assignment=template(edition)) if not a.full_marks)
    grades, messages, _ = edition_run(edition, wrong.notebook, wrong.name)
    assert sum(s for s, _ in grades.values()) < sum(p for _, p in grades.values()) and messages
    _, english, _ = verdicts(wrong.code, wrong.notebook, template(edition))
    assert any(english_sentences(m) for m in english)
