"""Level 24's diagnosis rules (grading/judge/rules.py) on answers the catalogue does not hold: the reference solution with
one mistake written in as a student writes it (the text replaced), graded in-process by the real checks. Each must
lose points and be named by its own rule's sentence first; a rule that fires for the wrong mistake fails here."""

import pytest

import mutants
from grading.judge import rules

NB1, NB2 = "01_correction_token", "02_bonus_and_step"
RESIDUAL = "torch.clamp(target_probs[i] - draft_probs[i], min=0)"
NORMALISED = "residual = residual / residual.sum()"
BONUS = "accepted_tokens.append(int(torch.multinomial(target_probs[k], 1).item()))"
CORRECTION = "accepted_tokens.append(int(torch.multinomial(residual, 1).item()))"
COIN = "if p >= q or torch.rand(1).item() < p / q:"

# (notebook, the rule, [(text in the reference, what the student wrote instead)])
CASES = [
    (NB1, "residual_row_token", [(RESIDUAL, "torch.clamp(target_probs[token_id] - draft_probs[token_id], min=0)")]),
    (NB2, "residual_row_token", [(RESIDUAL, "(target_probs[token_id] - draft_probs[token_id]).clamp(min=0)")]),
    (NB1, "residual_row_zero", [(RESIDUAL, "torch.clamp(target_probs[0] - draft_probs[0], min=0)")]),
    (NB2, "residual_next_target_row", [(RESIDUAL, "torch.clamp(target_probs[i + 1] - draft_probs[i], min=0)")]),
    (NB1, "residual_softmax", [(NORMALISED, "residual = torch.softmax(residual, dim=-1)")]),
    (NB2, "residual_softmax", [(NORMALISED, "residual = residual.softmax(0)")]),
    (NB1, "residual_softmax", [(RESIDUAL, "target_probs[i] - draft_probs[i]"),  # softmax of p - q, no clamp
                               (NORMALISED, "residual = torch.softmax(residual, dim=0)")]),
    (NB2, "no_bonus_empty_draft", [(BONUS, "if accepted_tokens:\n        " + BONUS)]),
    (NB2, "no_bonus_empty_draft", [(BONUS, "if len(draft_tokens) > 0:\n        " + BONUS)]),
    (NB2, "no_bonus", [(BONUS, "pass")]),
    (NB2, "bonus_row_k_minus_1", [("target_probs[k], 1)", "target_probs[k - 1], 1)")]),
    (NB1, "residual_softmax", [(CORRECTION, "accepted_tokens.append(int(torch.distributions.Categorical("
                                            "logits=residual).sample()))")]),
    (NB1, "residual_not_normalised", [(NORMALISED, "pass")]),
    (NB1, "residual_scaled", [(NORMALISED, "residual = residual / residual.max()")]),
    (NB2, "residual_scaled", [(NORMALISED, "residual = residual / 2")]),
    (NB1, "residual_min", [(RESIDUAL, "torch.minimum(target_probs[i], draft_probs[i])")]),
    (NB1, "many_samples", [(CORRECTION, "accepted_tokens.extend(int(t) for t in torch.multinomial(residual, "
                                        "len(draft_tokens) - i))")]),
    (NB2, "many_samples", [(CORRECTION, "accepted_tokens.append(int(torch.multinomial(residual, 3, "
                                        "replacement=True)[0]))")]),
    (NB1, "correction_only", [(CORRECTION + "\n        break", "return [int(torch.multinomial(residual, 1))]")]),
    (NB2, "correction_only", [(CORRECTION, "accepted_tokens = [int(torch.multinomial(residual, 1).item())]")]),
    (NB1, "correction_appends_draft", [(CORRECTION, "torch.multinomial(residual, 1)\n        "
                                                    "accepted_tokens.append(token_id)")]),
    (NB1, "correction_after_draft", [(CORRECTION, "accepted_tokens.append(token_id)\n        " + CORRECTION)]),
    (NB2, "correction_after_draft", [(CORRECTION, "accepted_tokens += [token_id, int(torch.multinomial(residual, 1))]")]),
    # written as students wrote them in held-out sets and as the mutation benchmark makes them
    (NB1, "residual_other_row", [(RESIDUAL, "torch.clamp(target_probs[i - 1] - draft_probs[i], min=0)")]),
    (NB2, "residual_other_row", [(RESIDUAL, "torch.clamp(target_probs[i] - draft_probs[0], min=0)")]),
    (NB2, "residual_without_token", [(RESIDUAL, "target_probs[i].clone()"),
                                     (NORMALISED, "residual[token_id] = 0\n        " + NORMALISED)]),
    (NB2, "bonus_other_row", [("target_probs[k], 1)", "target_probs[0], 1)")]),
    (NB1, "coin_reversed", [(COIN, COIN.replace("< p / q", ">= p / q"))]),
    (NB2, "coin_reversed", [(COIN, COIN.replace("< p / q", "> p / q"))]),
    (NB1, "accepts_every_draft", [(COIN, COIN.replace("p >= q", "q >= q"))]),
    (NB2, "accepts_every_draft", [(COIN, COIN.replace("p / q", "q / q"))]),
    (NB1, "multinomial_every_row", [("accepted_tokens = []", "recovered = [int(torch.multinomial(torch.clamp(target_probs[j]"
                                     " - draft_probs[j], min=0) + 1e-9, 1)) for j in range(len(draft_tokens))]\n"
                                     "    accepted_tokens = []"),
                                    (CORRECTION, "accepted_tokens.append(recovered[i])")]),
    (NB2, "tensor_tokens_fail", [("accepted_tokens = []", "accepted_tokens = []\n    draft_tokens.copy()")]),
    (NB1, "not_token_ids", [(CORRECTION, "accepted_tokens.append(torch.multinomial(residual, 1))")]),
    (NB2, "not_token_ids", [(BONUS, "accepted_tokens.append(torch.multinomial(target_probs[k], 1))")]),
    # a second coin after a rejecting one draws as often as a coin where p >= q would, in other places: told apart
    (NB1, "second_coin", [(COIN, COIN + "\n            accepted_tokens.append(token_id)\n            continue\n"
                                 "        if torch.rand(1).item() < p / q:")]),
    (NB2, "second_coin", [(COIN, "if p >= q or torch.rand(1).item() < p / q or torch.rand(1).item() < p / q:")]),
    (NB1, "residual_next_target_row", [(RESIDUAL, "torch.clamp(target_probs[i + 1] - draft_probs[i + 1], min=0)")]),
    (NB1, "coin_every_position", [(COIN, "r = torch.rand(1).item()\n        if p >= q or r < p / q:")]),
    (NB2, "coin_every_position", [(COIN, "if torch.rand(1).item() < p / q or p >= q:")]),
]


@pytest.mark.parametrize("notebook,rule,edits", CASES, ids=[f"{nb[:2]}-{r}-{n}" for n, (nb, r, _) in enumerate(CASES)])
def test_an_answer_written_another_way_is_named_by_its_own_rule(notebook, rule, edits):
    judge, line = mutants.grade(mutants.edited(mutants.LEVEL24, notebook, edits), mutants.LEVEL24, notebook)
    assert judge.failed, "the mistake must lose points"
    assert line.startswith("Diagnosis: " + rules.sentence(rule)), line


def test_the_reference_itself_is_told_none():
    for notebook in (NB1, NB2):
        judge, line = mutants.grade(mutants.edited(mutants.LEVEL24, notebook, []), mutants.LEVEL24, notebook)
        assert not judge.failed and line == "Diagnosis: " + mutants.diagnosis_none(), line


@pytest.mark.parametrize("notebook,edits,where", [
    (NB1, [("accepted_tokens = []", "pass")], "in every call the checks make"),
    (NB2, [(CORRECTION, "accepted_tokens.append(int(torch.multinomial(residual, 0).item()))")], "calls the checks make"),
])
def test_an_error_no_rule_explains_is_named_with_its_type(notebook, edits, where):
    judge, line = mutants.grade(mutants.edited(mutants.LEVEL24, notebook, edits), mutants.LEVEL24, notebook)
    assert judge.failed
    assert line.startswith("Diagnosis: your function raises ") and where in line, line


@pytest.mark.parametrize("notebook", [NB1, NB2])
def test_an_in_place_guard_against_zeros_changes_the_inputs_and_loses_the_check(notebook):
    code = mutants.edited(mutants.LEVEL24, notebook, [("accepted_tokens = []", "target_probs.clamp_(min=1e-9)\n"
                                                                               "    accepted_tokens = []")])
    judge, line = mutants.grade(code, mutants.LEVEL24, notebook)
    assert "hidden_inputs_unchanged" in judge.failed
    assert line.startswith("Diagnosis: " + rules.sentence("inputs_changed")), line


# Two mistakes at once: the line names what the code does and nothing it does not. (A rule that fits by
# coincidence, a third sentence, is the failure: in the tests' rows a residual is often one token, which other
# rows give too; an error in one input is not an error of every step that accepts all.)
SECOND = {
    "bonus_after_reject": (CORRECTION + "\n        return accepted_tokens", CORRECTION + "\n        break"),
    "no_bonus_empty_draft": ("accepted_tokens = []", "if not draft_tokens:\n        return []\n    accepted_tokens = []"),
}
FIRST = {
    "residual_q_minus_p": (RESIDUAL, "torch.clamp(draft_probs[i] - target_probs[i], min=0)"),
    "residual_not_normalised": (NORMALISED, "pass"),
    "residual_row_zero": (RESIDUAL, "torch.clamp(target_probs[0] - draft_probs[0], min=0)"),
    "residual_next_target_row": (RESIDUAL, "torch.clamp(target_probs[i + 1] - draft_probs[i + 1], min=0)"),
}


@pytest.mark.parametrize("first,second", [(a, b) for a in FIRST for b in SECOND])
def test_two_mistakes_are_told_nothing_the_code_does_not_do(first, second):
    judge, line = mutants.grade(mutants.edited(mutants.LEVEL24, NB2, [FIRST[first], SECOND[second]]),
                                mutants.LEVEL24, NB2)
    assert judge.failed
    said = {name for name, words in rules.SENTENCES.items() if words[0] in line}
    allowed = {first, second, "multinomial_refused"} | ({"residual_other_row"} if "row" in first else set())
    assert said and said <= allowed | {"tensor_tokens_fail", "raises"}, (said, line)


# A token sampled with another sampler than torch.multinomial: the checks hand it the same scripted tokens
# (spec_checks.FOREIGN) and read its weights as a torch.multinomial call's, so the source is charged once, by the
# one-call check and the visible test, and the diagnosis names it; what it samples from is graded as it is.
FOREIGN_SAMPLES = {  # source: (a line before the function, the correction's and the bonus's sampling), as students write
    "numpy.random.choice": ("import numpy as np", "int(np.random.choice(len({w}), p=({w}).numpy()))"),
    "random.choices": ("import random", "random.choices(range(len({w})), weights=({w}).tolist())[0]"),
    "numpy.random.choice as pick": ("from numpy.random import choice as pick",
                                    "int(pick(({w}).shape[0], p=({w}).double().numpy()))"),
    "random.choices (cum_weights)": ("import random",
                                     "random.choices(list(range(len({w}))), cum_weights=({w}).cumsum(0).tolist())[0]"),
}
ONE_CALL = {NB1: "hidden_one_correction", NB2: "hidden_one_new_token"}


@pytest.mark.parametrize("notebook", [NB1, NB2])
@pytest.mark.parametrize("source", FOREIGN_SAMPLES)
def test_a_token_from_another_sampler_costs_the_one_call_check_and_the_visible_test_only(source, notebook):
    before, sample = FOREIGN_SAMPLES[source]
    edits = [(CORRECTION, "accepted_tokens.append(" + sample.format(w="residual") + ")")]
    if notebook == NB2:
        edits.append((BONUS, "accepted_tokens.append(" + sample.format(w="target_probs[k]") + ")"))
    code = before + "\n" + mutants.edited(mutants.LEVEL24, notebook, edits)
    judge, line = mutants.grade(code, mutants.LEVEL24, notebook)
    assert sorted(c for c in judge.failed if c) == sorted(["test_visible", ONE_CALL[notebook]]), judge.failed
    named = source.split(" ")[0]
    assert line == "Diagnosis: " + rules.sentence(rules.SAMPLER_RULES[named]), line
    said = "".join(o.get("evalue", "") for o in judge.outputs_by_check[ONE_CALL[notebook]])
    assert named in said and rules.FRAME["en"]["follows"].strip() in said, said
    visible = "".join(o.get("evalue", "") for o in judge.outputs_by_check["test_visible"])
    assert named in visible, visible


def test_a_foreign_sampler_with_a_wrong_residual_is_charged_for_the_residual_too():
    code = "import numpy as np\n" + mutants.edited(mutants.LEVEL24, NB1, [
        (CORRECTION, "accepted_tokens.append(int(np.random.choice(len(residual), p=residual.numpy())))"),
        (NORMALISED, "pass")])
    judge, line = mutants.grade(code, mutants.LEVEL24, NB1)
    assert {"hidden_one_correction", "hidden_residual_exact"} <= set(judge.failed), judge.failed
    assert rules.sentence("sampler_numpy_choice") in line and rules.sentence("residual_not_normalised") in line, line
