"""The draw contract is checked first: the visible tests of Level 23 notebook 02 and both Level 24
notebooks name a vectorised coin, a coin where p >= q and a missing num_samples before any other message."""

import pytest
import torch

import mutants
from grading import ROOT
from grading.sandbox.kernel_harness import load_private

L23 = load_private(ROOT / "source" / "level23_speculative_decoding" / "spec_checks.py", "_contract23")
L24 = load_private(ROOT / "source" / "level24_residual_and_bonus" / "spec_checks.py", "_contract24")

LOOP = '''
def {name}(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    coins = torch.rand(len(draft_tokens)) if VECTOR else None
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        r = coins[i].item() if VECTOR else torch.rand(1).item() if EVERY or p < q else 1.0
        if p >= q or r < p / q:
            accepted_tokens.append(token_id)
            continue
        residual = torch.clamp(target_probs[i] - draft_probs[i], min=0)
        # a second mistake too (not normalised), so the contract must be named before it
        accepted_tokens.append(int(torch.multinomial(residual, *SAMPLES).item()))
        return accepted_tokens
    accepted_tokens.append(int(torch.multinomial(target_probs[len(accepted_tokens)], *SAMPLES).item()))
    return accepted_tokens
'''


def function(name, vector=False, every=False, samples=(1,)):
    ns = {"torch": torch, "VECTOR": vector, "EVERY": every, "SAMPLES": samples}
    exec(LOOP.format(name=name), ns)
    return ns[name]


def level24_messages(**mistake):
    one = function("verify_and_correct", **mistake)
    step = function("speculative_step", **mistake)
    n1 = L24.visible_problem_n1(L24.run_step(one, L24.visible_case(), draws=[0.7], picks=[2]))
    case = L24.visible_case(bonus_row=True)
    n2 = L24.visible_problem_n2(L24.run_step(step, case, draws=[0.7], picks=[2]),
                                L24.run_step(step, case, draws=[0.1], picks=[3]))
    return n1, n2


@pytest.mark.parametrize("mistake,words", [
    ({"vector": True}, "torch.rand was asked for the shape(s) [[2]]"),
    ({"every": True}, "torch.rand was called 2 times, but this case has 1 p < q position(s)"),
    ({"samples": ()}, "torch.multinomial was called without num_samples"),
])
def test_level24_visible_tests_name_the_contract_first(mistake, words):
    for message in level24_messages(**mistake):
        assert message is not None and message.startswith(words), message


def test_the_stand_in_multinomial_records_a_missing_num_samples_in_torchs_words():
    """torch raises TypeError without num_samples. The stand-in reads the call as one sample and records it, so one
    check (and the visible test) says it, in torch's own words, and the other checks read through it (issue 39)."""
    with pytest.raises(TypeError) as real:
        torch.multinomial(torch.ones(3))
    assert L24.NO_NUM_SAMPLES == str(real.value)
    for call in (L24.Script(picks=[1]).multinomial, L24.Script(picks=[1]).method()):
        assert call(torch.ones(3)).tolist() == [1]
    script = L24.Script(picks=[1])
    script.multinomial(torch.ones(3))
    run = L24.Run()
    run.events = script.events
    assert L24.NO_NUM_SAMPLES in L24.num_samples_problem(run) and L24.one_call_problem(run)
    assert L24.contract_problem(run, 0) == L24.num_samples_problem(run)
    script.multinomial(torch.ones(3), 1)  # a second call: the checks read the picks the way the stand-in handed them
    run.events = script.events
    assert L24.picked(run, L24.Case([[1 / 3] * 3], [[1 / 3] * 3], [0]), [1, 2]) == [1, 2]


L23_LOOP = '''
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    coins = torch.rand(len(draft_tokens)) if VECTOR else None
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        r = coins[i].item() if VECTOR else torch.rand(1).item() if EVERY or p < q else 1.0
        if p >= q or r < p / q:
            accepted_tokens.append(token_id)
            continue
    return accepted_tokens  # and continue after a rejection: a second mistake
'''


@pytest.mark.parametrize("mistake,key", [({"VECTOR": True, "EVERY": False}, "shapes"),
                                         ({"VECTOR": False, "EVERY": True}, "coin_p_ge_q")])
def test_level23_visible_test_names_the_contract_first(mistake, key):
    ns = {"torch": torch, **mistake}
    exec(L23_LOOP, ns)
    fn = ns["verify_draft"]
    message = L23.visible_problem_m2(L23.run_verify(fn, L23.visible_case(), draws=[0.5, 0.9]),
                                     L23.run_verify(fn, L23.accept_case(), draws=[0.5] * 3))
    head = L23.VISIBLE_MESSAGES[key].split("{")[0]
    assert message is not None and message.startswith(head), message


# A coin is one value: the lesson writes torch.rand(1), and every shape that holds one value takes the same one
# value from torch's generator. Several values at once are a vector of coins, named as such.
ONE_VALUE = ["torch.rand(())", "torch.rand(1, 1)", "torch.rand(size=(1,))", "torch.rand([1])", "torch.rand((1,))"]
DRAWING = [("level23_speculative_decoding", "02_reject_and_break"),
           ("level24_residual_and_bonus", "01_correction_token"), ("level24_residual_and_bonus", "02_bonus_and_step")]


def _with_draw(assignment, notebook, draw):
    code = mutants.reference(assignment, notebook)
    assert "torch.rand(1)" in code, f"{notebook}'s reference no longer draws torch.rand(1)"
    return mutants.grade(code.replace("torch.rand(1)", draw), assignment, notebook), mutants.diagnosis_none()


@pytest.mark.parametrize("assignment,notebook", DRAWING)
@pytest.mark.parametrize("draw", ONE_VALUE)
def test_a_draw_of_one_value_is_a_coin_whatever_its_shape(assignment, notebook, draw):
    (judge, line), none = _with_draw(assignment, notebook, draw)
    assert not judge.failed, (draw, judge.failed)
    assert line == "Diagnosis: " + none, line


@pytest.mark.parametrize("assignment,notebook", DRAWING)
def test_a_draw_of_several_values_is_named_a_vector_of_coins(assignment, notebook):
    (judge, line), _ = _with_draw(assignment, notebook, "torch.rand(2)[:1]")
    assert judge.failed
    assert "you draw several coins at once" in line, line
