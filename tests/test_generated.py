"""Issue 49: Level 23's generated cases (grading/judge/generated.py). The student's function runs beside the
grader's reference on every case of a generated set; a wrong answer that differs anywhere loses the check, and its
failure walks the smallest case where they part. These tests hold the set to what it claims (plausible inputs,
smallest first, every kind of position followed by every kind), the walk to the reference, and the check to the
answers no hand-made case caught."""

import re
import string

import pytest

import mutants
from grading import ASSIGNMENT
from grading.judge import generated, rules23
from grading.judge.walk_text import WORDS

NB1, NB2 = "01_accept_branch", "02_reject_and_break"
SPECS = generated.specs(NB2)


def test_every_generated_case_is_a_plausible_input():
    for spec in SPECS:
        k = len(spec.tokens)
        assert k <= 5 and len(spec.target) == len(spec.draft) == k
        for rows in (spec.target, spec.draft):
            for row in rows:
                assert len(row) == spec.vocab and all(0 <= v <= 1 for v in row) and abs(sum(row) - 1) < 1e-6, row
        assert all(0 <= t < spec.vocab for t in spec.tokens)
        assert all(0 <= r < 1 for r in spec.draws)
        # one scripted r for each p < q position (the reference draws there, in order, until it rejects)
        assert len(spec.draws) == sum(generated._f32(spec.target[i][t]) < generated._f32(spec.draft[i][t])
                                      for i, t in enumerate(spec.tokens))


def test_the_set_covers_what_the_check_says():
    kinds = {(p, q) for p, q in generated.KINDS}
    pairs = set()
    for spec in SPECS:
        pq = [(spec.target[i][t], spec.draft[i][t]) for i, t in enumerate(spec.tokens)]
        pairs |= {(a, b) for a, b in zip(pq, pq[1:]) if a in kinds and b in kinds}
    assert pairs == {(a, b) for a in kinds for b in kinds}, "every kind of position followed by every kind"
    assert any(len(s.tokens) == 0 for s in SPECS) and {s.tokens_as for s in SPECS} == {"list", "tensor"}
    assert any(len(set(s.tokens)) < len(s.tokens) for s in SPECS), "a token drafted twice"
    ratios = [(s.target[0][s.tokens[0]] / s.draft[0][s.tokens[0]], s.draws[0]) for s in SPECS
              if len(s.tokens) == 1 and s.draws]
    assert any(r == d for r, d in ratios) and any(0 < r - d <= generated.BELOW for r, d in ratios), \
        "a draw exactly at p/q and one just below it"


def test_the_smallest_cases_come_first():
    sizes = [len(s.tokens) for s in generated.small_cases()]
    assert sizes == sorted(sizes)
    small = len(generated.small_cases())
    assert max(sizes) <= min(len(s.tokens) for s in SPECS[small:] if s.tokens) or max(sizes) == 2


@pytest.mark.parametrize("notebook", [NB1, NB2])
def test_the_walk_follows_the_reference_on_every_case(notebook):
    from grading.judge.diagnosis import _folder  # noqa: F401  (the helpers as the grader loads them)
    from grading.judge.verdicts import trusted_helpers
    from grading import ROOT
    helpers = trusted_helpers(ROOT / "source" / ASSIGNMENT / "spec_checks.py")
    for spec in generated.specs(notebook):
        case = spec.case(helpers)
        tokens, used = generated.reference(case, spec.draws, notebook)
        walked = generated.path(spec, notebook)
        kept = [b["t"] for what, b in walked if what in ("accept", "coin_accept")]
        drawn = sum(what.startswith("coin") for what, _ in walked)
        assert (kept, drawn) == (tokens, used), (spec.tokens, spec.target, spec.draft, spec.draws)


def test_both_languages_have_the_same_words_and_blanks():
    def blanks(text):
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}
    assert WORDS["en"].keys() == WORDS["zh"].keys()
    for key in WORDS["en"]:
        assert blanks(WORDS["en"][key]) == blanks(WORDS["zh"][key]), key
        assert re.search("[\u4e00-\u9fff]", WORDS["zh"][key]) or key in ("rows", "kind_tensor", "part_item"), key


def graded(notebook, edits):
    judge, line = mutants.grade(mutants.edited(ASSIGNMENT, notebook, edits), ASSIGNMENT, notebook)
    said = "".join(o.get("evalue", "") for o in judge.outputs_by_check.get("hidden_generated_cases", ())
                   if o.get("output_type") == "error")
    return judge, line, said


SKIP_P_ZERO = [("        if p >= q:", "        if p == 0:\n            continue\n        if p >= q:")]
SOFTMAX = [("    accepted_tokens = []",
            "    accepted_tokens = []\n    draft_probs = torch.softmax(draft_probs, dim=-1)\n"
            "    target_probs = torch.softmax(target_probs, dim=-1)")]
MUTABLE = [("(draft_probs, target_probs, draft_tokens):", "(draft_probs, target_probs, draft_tokens, kept=[]):"),
           ("    accepted_tokens = []", "    accepted_tokens = kept")]


@pytest.mark.parametrize("notebook", [NB1, NB2])
@pytest.mark.parametrize("edits", [SKIP_P_ZERO, SOFTMAX], ids=["continue_past_p_zero", "softmax_again"])
def test_answers_no_hand_made_case_caught_lose_the_generated_check(notebook, edits):
    """Two of the fresh answers that had full marks and "none" before the generated cases."""
    judge, line, said = graded(notebook, edits)
    assert "hidden_generated_cases" in judge.failed, judge.failed
    assert said.startswith("On 247 generated drafts") and "position 0:" in said and "show_replay(verify_draft" in said
    assert "none:" not in line


def test_the_walk_states_the_smallest_case_step_by_step():
    judge, line, said = graded(NB2, SKIP_P_ZERO)
    assert said.splitlines()[1:] == [
        "  draft_tokens = [1] (a list), a vocabulary of 2 token ids",
        "  target_probs = [[1, 0]]",
        "  draft_probs  = [[0.5, 0.5]]",
        "  torch.rand hands out 0, then 0.99999 for any further draw",
        "  position 0: token 1, p = 0 < q = 0.5: draw r = 0; r < p/q = 0 fails: reject it and stop",
        "The rule returns [] after 1 draw(s).",
        "verify_draft returned [] after 0 draw(s).",
        "They return the same tokens, but verify_draft drew 0 time(s) where the rule draws 1.",
        "Replay it in your notebook: from spec_widgets import show_replay; show_replay(verify_draft, "
        "spec_checks.Case([(1, 0.0, 0.5)], vocab=2, rows=[[[1.0, 0.0]], [[0.5, 0.5]]]), draws=[0.0])"], said
    # no model of a known mistake does this: the line leads with the smallest case, and names no cause
    assert line.startswith("Diagnosis: your function does not behave like any mistake we know") and \
        "on a generated draft of 1 position(s) ([1], draws [0.0])" in line, line


def test_a_mutable_default_list_is_not_told_a_comparison_or_an_append_mistake():
    judge, line, said = graded(NB1, MUTABLE)
    assert "hidden_generated_cases" in judge.failed
    assert "comparison" not in line and "append" not in line.split("smallest")[0], line


def test_a_rule_names_its_mistake_only_where_its_model_does_what_the_function_does_on_every_case():
    """r < q / p guarded against p == 0: the catalogued q_over_p model raises ZeroDivisionError there, this function
    rejects, so the sentence ("divides by zero when p == 0") would be false: nothing is named."""
    judge, line, said = graded(NB2, [("if r < p / q:", "if p > 0 and r < q / p:")])
    assert judge.failed and "divides by zero" not in line and "smallest case it gets wrong" in line, line
    judge, line, said = graded(NB2, [("if r < p / q:", "if r < q / p:")])  # the catalogued mistake itself
    assert "divides by zero" in line and "smallest" not in line, line
    assert said.endswith("This follows from the mistake named in the diagnosis above."), said


def test_right_answers_pass_every_generated_case():
    for notebook in (NB1, NB2):
        for name, code in mutants.references(ASSIGNMENT, notebook):
            judge, line = mutants.grade(code, ASSIGNMENT, notebook)
            assert judge.generated.first is None and judge.generated.ran == len(SPECS), name


def test_a_function_that_hangs_costs_the_check_not_the_class():
    judge, line, said = graded(NB2, [("        if p >= q:", "        while p == 0:\n            pass\n        if p >= q:")])
    assert "hidden_generated_cases" in judge.failed
    assert "TimeBudgetExceeded" in said and judge.generated.ran < len(SPECS)


@pytest.mark.parametrize("notebook,edits,owner,says", [
    (NB1, [("return accepted_tokens", "return tuple(accepted_tokens)")], "hidden_plain_list",
     "verify_draft returned a tuple, not a plain list of ints."),
    (NB2, [("r = torch.rand(1).item()", "r = random.random()"), ("accepted_tokens = []", "import random\n    accepted_tokens = []")],
     "hidden_single_value_draws", "verify_draft drew with random.random, not torch.rand."),
    (NB2, [("    return accepted_tokens", "    if isinstance(draft_tokens, list):\n        draft_tokens.append(-1)\n"
                                         "    return accepted_tokens")],
     "hidden_inputs_unchanged", "verify_draft also changed draft_probs, target_probs or draft_tokens."),
], ids=["tuple", "random_module", "appends_to_draft_tokens"])
def test_what_another_check_charges_is_charged_once_and_shown_on_the_smallest_case(notebook, edits, owner, says):
    """One mistake, charged once: a result that is not a plain list, r from random.random, changed inputs each cost
    their own hand-made check, not the generated one; that check's failure shows the smallest generated case."""
    judge, line, said = graded(notebook, edits)
    assert "hidden_generated_cases" not in judge.failed and owner in judge.failed, judge.failed
    shown = "".join(o.get("evalue", "") for o in judge.outputs_by_check[owner] if o.get("output_type") == "error")
    assert "generated drafts, this shows on" in shown and says in shown and "The rule returns" in shown, shown


# ------------------------------------------------------------------ Level 24 (grading/judge/generated24.py)

L24 = "level24_residual_and_bonus"
N1, N2 = "01_correction_token", "02_bonus_and_step"


@pytest.mark.parametrize("bonus", [False, True])
def test_level24_cases_are_plausible_and_each_sample_is_not_the_largest_weight(bonus):
    from grading.judge import generated24, rules
    from grading.judge.verdicts import trusted_helpers
    from grading import ROOT
    helpers = trusted_helpers(ROOT / "source" / L24 / "spec_checks.py")
    specs, cases, _, wants = generated24._made(helpers, 2 if bonus else 1)
    assert len(specs) > 150 and any(not s.tokens for s in specs) == bonus and {s.tokens_as for s in specs} == {"list", "tensor"}
    argmax_differs = 0
    for spec, case, want in zip(specs, cases, wants):
        assert len(spec.target) == len(spec.tokens) + bonus and len(spec.draft) == len(spec.tokens)
        for row in spec.target + spec.draft:
            assert abs(sum(row) - 1) < 1e-6 and all(0 <= v <= 1 for v in row)
        assert all(spec.draft[i][t] > 0 or spec.target[i][t] >= 0 for i, t in enumerate(spec.tokens))
        samples = [e[2] for e in want.events if e[0] == "multinomial"]
        assert len(samples) == len(spec.picks)
        for weights, pick in zip(samples, spec.picks):
            assert weights[pick] > 0, "a scripted sample is a token its weights give a chance"
            argmax_differs += pick != max(range(len(weights)), key=weights.__getitem__)
        assert want.error is None and want.tokens == rules.level24(case, spec.draws, spec.picks, bonus).tokens
    assert argmax_differs > 20


@pytest.mark.parametrize("notebook", [N1, N2])
def test_level24_right_answers_pass_and_every_catalogued_logic_mistake_loses_the_generated_check(notebook):
    from grading.build import catalogue
    for a in catalogue.load(notebook, L24):
        judge, line = mutants.grade(a.code, L24, notebook)
        if a.full_marks:
            assert not judge.failed and judge.generated.first is None, a.name
        elif a.name not in ("mutates_target_row", "mutates_inputs", "random_choices"):  # each charged by its own check
            assert "hidden_generated_cases" in judge.failed, a.name


def test_level24_walk_shows_the_weights_where_the_function_and_the_rule_part():
    code = mutants.edited(L24, N1, [("        residual = residual / residual.sum()\n", "")])
    judge, line = mutants.grade(code, L24, N1)
    said = judge.outputs_by_check["hidden_generated_cases"][-1]["evalue"]
    assert "They part at torch.multinomial call 1: the rule samples from [1, 0, 0]" in said, said
    assert "spec_checks.run_step(verify_and_correct, spec_checks.Case(" in said
