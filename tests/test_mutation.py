"""Tests that generate their own answers: AST mutants of the lessons' reference solutions (tests/mutants.py),
each graded in-process by the same checks and verdict code nbgrader runs. Every mutant that changes
behaviour must lose points; none may be told "none" after a failed check, and an equivalent one must
get full marks and "none". A fixed sample keeps it inside CI's budget; benchmarks/mutation.py runs all."""

import pytest

import mutants
from grading.judge import rules

SAMPLE = {mutants.ASSIGNMENT: 4, mutants.LEVEL24: 8}   # every n-th mutant of each notebook's reference
CASES = [(a, nb, d, src) for a, nbs in mutants.NOTEBOOKS.items() for nb in nbs
         for d, src in mutants.mutants(mutants.reference(a, nb))[::SAMPLE[a]]]
BASELINE = {}


def baseline(assignment, notebook):
    if (assignment, notebook) not in BASELINE:
        judge, line = mutants.grade(mutants.reference(assignment, notebook), assignment, notebook)
        assert not judge.failed and line == "Diagnosis: " + mutants.diagnosis_none(), line
        BASELINE[assignment, notebook] = judge.trace
    return BASELINE[assignment, notebook]


@pytest.mark.parametrize("assignment,notebook,description,source", CASES,
                         ids=[f"{a[:7]}-{nb[:2]}-{d}" for a, nb, d, _ in CASES])
def test_a_mutant_loses_points_or_is_equivalent_and_is_never_told_none_wrongly(assignment, notebook, description,
                                                                                 source):
    judge, line = mutants.grade(source, assignment, notebook)
    kind = mutants.classify(judge, line, baseline(assignment, notebook))
    assert kind in ("equivalent", "named", "cannot name", "not made"), f"{kind}: {line}\n{source}"


def test_the_unknown_line_names_the_failed_checks_and_none_needs_every_check_passed():
    # a generator of its own, made afresh in every call: the same coins every time, and no seed of torch's changed
    # (a torch.manual_seed inside is named: tests/test_shown_directly.py)
    seeded = mutants.reference(mutants.LEVEL24, "01_correction_token").replace(
        "accepted_tokens = []", "accepted_tokens = []\n    generator = torch.Generator().manual_seed(0)", 1).replace(
        "torch.rand(1)", "torch.rand(1, generator=generator)")
    judge, line = mutants.grade(seeded, mutants.LEVEL24, "01_correction_token")
    assert judge.failed == ["hidden_emitted_distribution"], judge.failed  # only the check with real randomness
    assert line.startswith("Diagnosis: your function does not behave like any mistake") and \
        "hidden_emitted_distribution" in line, line


def test_every_rule_has_its_sentence_in_both_languages():
    for rule, (en, zh) in rules.SENTENCES.items():
        assert en and zh and any("\u4e00" <= ch <= "\u9fff" for ch in zh), rule
    for rule in rules.LEVEL24_RULES:
        assert rule in rules.SENTENCES, rule
