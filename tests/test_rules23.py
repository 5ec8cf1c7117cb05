"""Level 23's diagnosis rules (grading/judge/rules23.py): each model reproduces its catalogued answer, and answers
generated from a template, with one or two known mistakes written in, get the mistakes they contain named (or
an honest "cannot tell"), never another one."""

import functools
import itertools
from pathlib import Path

import pytest

from grading import ASSIGNMENT
from grading.build import catalogue
from grading.judge import diagnosis, rules23

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "source" / ASSIGNMENT
ANSWERS = {(a.notebook, a.name): a for a in catalogue.load(assignment=ASSIGNMENT)}


@pytest.mark.parametrize("notebook,rule", [(nb, r) for nb, rs in rules23.RULES.items() for r in rs])
def test_each_model_behaves_as_its_catalogued_answer(notebook, rule):
    answer = ANSWERS[notebook, rule]
    judge = diagnosis.judge_of(answer.code, notebook, SOURCE)
    assert judge.failed
    assert [name for name, _ in rules23.fired(judge.calls, judge.failed, notebook)] == [rule]


# Notebook 02's loop with slots; each slot's other values are a known mistake (the catalogued answer named).
TEMPLATE = '''def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[{row}, token_id].item()
        q = draft_probs[{row}, token_id].item()
        if p {cmp} q:
            accepted_tokens.append({kept})
            continue
        r = torch.rand(1).item()
        if r {coin} p / q:
            accepted_tokens.append({kept})
        else:
            {reject}
    return accepted_tokens
'''
RIGHT = {"row": "i", "cmp": ">=", "kept": "token_id", "coin": "<", "reject": "break"}
MISTAKES = {  # (slot, value): the catalogued answer whose sentence names it
    ("row", "0"): "row_zero_only", ("cmp", ">"): "strict_accept_branch", ("kept", "i"): "appends_position",
    ("coin", ">"): "greater_coin", ("coin", "<="): "less_equal_coin", ("reject", "continue"): "continue_not_break",
}
CASES = [frozenset([m]) for m in MISTAKES] + [
    frozenset(pair) for pair in itertools.combinations(MISTAKES, 2) if pair[0][0] != pair[1][0]]


def written(mistakes):
    slots = dict(RIGHT)
    slots.update(dict(mistakes))
    return TEMPLATE.format(**slots)


@functools.lru_cache(maxsize=None)
def graded(mistakes):
    """(judge, diagnosis line) of the template with ``mistakes`` (a frozenset), graded once for both tests."""
    judge = diagnosis.judge_of(written(mistakes), "02_reject_and_break", SOURCE)
    return judge, diagnosis.line("02_reject_and_break", judge)


def sentence(name):
    return ANSWERS["02_reject_and_break", name].diagnosis


@pytest.mark.parametrize("mistakes", CASES, ids=lambda ms: "+".join(sorted(MISTAKES[m] for m in ms)))
def test_a_generated_answer_is_told_its_own_mistakes_or_that_the_grader_cannot_tell(mistakes):
    judge, line = graded(mistakes)
    assert judge.failed, "a known mistake must lose points"
    if line.startswith("Diagnosis: " + diagnosis.UNKNOWN.split(";")[0]):
        pytest.skip("cannot tell (counted by the test below)")
    named = {name for name in set(MISTAKES.values()) if sentence(name) in line}
    # never a mistake that is not there; one of two may go unnamed when the checks never see it (row 0 with
    # p > q: no scripted row 0 has p == q, so the two behave alike everywhere)
    assert named and named <= {MISTAKES[m] for m in mistakes}, line


def test_most_generated_answers_get_their_mistakes_named():
    told = 0
    for mistakes in CASES:
        _, line = graded(mistakes)
        told += all(sentence(MISTAKES[m]) in line for m in mistakes)
    print(f"{told} of {len(CASES)} generated answers told every mistake they contain")
    assert told >= 0.8 * len(CASES), f"{told} of {len(CASES)} named"


def test_the_template_with_no_mistake_is_a_right_answer():
    judge = diagnosis.judge_of(written(()), "02_reject_and_break", SOURCE)
    assert not judge.failed and diagnosis.line("02_reject_and_break", judge) == "Diagnosis: " + diagnosis.NONE


def test_a_model_that_cannot_follow_the_run_names_nothing(monkeypatch):
    judge = diagnosis.judge_of(written([("coin", ">")]), "02_reject_and_break", SOURCE)
    monkeypatch.setattr(rules23, "model", lambda *a, **k: 1 / 0)
    rules23.forget()  # the runs kept by earlier tests are the real model's
    assert rules23.line_text(judge, "02_reject_and_break") is None


def test_the_rules_give_every_catalogued_answer_its_own_sentence():
    """The catalogue as the rules' test set (no answer's behaviour is looked up): each wrong answer gets its own
    sentence, from its model or from what its run shows directly, and no other."""
    for answer in ANSWERS.values():
        if answer.full_marks:
            continue
        text = rules23.line_text(diagnosis.judge_of(answer.code, answer.notebook, SOURCE), answer.notebook)
        assert text == answer.diagnosis, f"{answer.notebook} {answer.name}: {text}"


@pytest.mark.parametrize("notebook", list(rules23.RULES))
def test_each_rules_sentence_is_its_answers_own_from_the_built_table(notebook):
    words = rules23.sentences(notebook)
    for rule in rules23.RULES[notebook]:
        assert words[rule] == ANSWERS[notebook, rule].diagnosis, rule


def test_the_rules_name_a_mistake_in_a_course_that_has_no_answers_folder(monkeypatch, tmp_path):
    """A course ships grading/ (with diagnoses.json), not answers/: the rules' sentences must not need it."""
    monkeypatch.setattr(catalogue, "ANSWERS", tmp_path / "no-answers")
    judge = diagnosis.judge_of(written([("coin", ">"), ("cmp", ">")]), "02_reject_and_break", SOURCE)
    line = diagnosis.line("02_reject_and_break", judge)
    assert sentence("greater_coin") in line, line


def test_the_models_copies_of_the_kernels_constants_have_not_drifted():
    # rules23 replays what the kernel does with copies of each edition's spec_checks constants: the seed set around
    # every call, the draw handed out past the script, and how many tokens the kernel sends
    import ast

    from grading import EDITIONS
    editions = [ASSIGNMENT] + [e for e, (original, _) in EDITIONS.items() if original == ASSIGNMENT]
    assert len(editions) == 2
    copies = {"CALL_SEED": rules23.CALL_SEED, "_OVERFLOW_DRAW": rules23.OVERFLOW_DRAW,
              "MAX_TOKENS_OVER": rules23.MAX_TOKENS_OVER}
    for edition in editions:
        tree = ast.parse((ROOT / "source" / edition / "spec_checks.py").read_text())
        for name, copy in copies.items():
            values = [node.value.value for node in tree.body if isinstance(node, ast.Assign)
                      and any(getattr(t, "id", None) == name for t in node.targets)]
            assert values == [copy], (edition, name)


# Rules with no catalogued answer (rules23.OWN_RULES), each written into the reference as a student would.
import mutants  # noqa: E402
from grading.judge import rules  # noqa: E402

NB1, NB2 = "01_accept_branch", "02_reject_and_break"
LOOP = "for i, token_id in enumerate(draft_tokens):"
READ = "q = draft_probs[i, token_id].item()"
SURE = "accepted_tokens.append(token_id)\n            continue"
OWN_CASES = [
    (NB1, "accepts_target_argmax", [("if p >= q:", "if int(torch.argmax(target_probs[i])) == token_id:")]),
    (NB2, "accepts_target_argmax", [("if p >= q:", "if target_probs[i].argmax().item() == token_id:")]),
    (NB1, "loop_starts_at_one", [(LOOP, "for i in range(1, len(draft_tokens)):\n        token_id = draft_tokens[i]")]),
    (NB2, "loop_starts_at_one", [(LOOP, "for i, token_id in list(enumerate(draft_tokens))[1:]:")]),
    (NB1, "loop_stops_early", [(LOOP, "for i in range(len(draft_tokens) - 1):\n        token_id = draft_tokens[i]")]),
    (NB2, "loop_stops_early", [(LOOP, "for i, token_id in enumerate(draft_tokens[:-1]):")]),
    (NB1, "q_zero_stops", [(READ, READ + "\n        if q == 0:\n            break")]),
    (NB2, "q_zero_stops", [(READ, READ + "\n        if q == 0:\n            return accepted_tokens")]),
    (NB1, "reject_returns_empty", [("\n        break", "\n        return []")]),
    (NB2, "reject_returns_empty", [("            break", "            return []")]),
    (NB2, "ratio_before_branch", [(READ, READ + "\n        ratio = p / q")]),
    (NB2, "coin_r_below_p", [("if r < p / q:", "if r < p:")]),
    (NB2, "coin_complement", [("if r < p / q:", "if r >= 1 - p / q:")]),
    (NB2, "coin_complement_strict", [("if r < p / q:", "if r > 1 - p / q:")]),
    (NB2, "coin_reversed", [("if r < p / q:", "if r >= p / q:")]),
    (NB2, "coin_never_accepts", [("if r < p / q:", "if r < p // q:")]),
    (NB2, "reads_p_and_q_swapped", [("p = target_probs[i, token_id].item()", "p = draft_probs[i, token_id].item()"),
                                    (READ, "q = target_probs[i, token_id].item()")]),
    (NB1, "prefix_reversed", [("accepted_tokens.append(token_id)", "accepted_tokens.insert(0, token_id)")]),
    (NB2, "prefix_reversed", [("    return accepted_tokens", "    return accepted_tokens[::-1]")]),
    (NB2, "second_coin", [("        else:\n            break", "        elif torch.rand(1).item() >= p / q:\n"
                                                             "            break")]),
    # mistakes only the runs with real randomness show (hidden_mean_length), named by replaying each model there
    (NB2, "coin_cumulative", [("accepted_tokens = []", "accepted_tokens = []\n    alive = 1.0"),
                              (READ, READ + "\n        alive *= min(1.0, p / q) if q > 0 else 1.0"),
                              ("if r < p / q:", "if r < alive:")]),
    (NB2, "coin_reused", [("accepted_tokens = []", "accepted_tokens = []\n    r = None"),
                          ("r = torch.rand(1).item()", "r = torch.rand(1).item() if r is None else r")]),
    # loop mistakes written as students wrote them in held-out sets and as the mutation benchmark makes them
    (NB1, "accept_no_append", [("accepted_tokens.append(token_id)\n            continue", "continue")]),
    (NB2, "accept_no_append", [("accepted_tokens.append(token_id)\n            continue", "pass\n            continue")]),
    (NB1, "counts_accepts", [("accepted_tokens = []", "kept = sum(target_probs[i, int(t)].item() >= "
                              "draft_probs[i, int(t)].item() for i, t in enumerate(draft_tokens))\n"
                              "    return [int(t) for t in draft_tokens][:kept]\n    accepted_tokens = []")]),
    (NB1, "row_of_first_occurrence", [("p = target_probs[i, token_id].item()",
                                       "row = list(draft_tokens).index(token_id)\n        "
                                       "p = target_probs[row, token_id].item()"),
                                      (READ, "q = draft_probs[row, token_id].item()")]),
    (NB2, "branches_swapped", [("if p >= q:", "if p < q:")]),
    (NB2, "stops_after_sure_accept", [("accepted_tokens.append(token_id)\n            continue",
                                       "accepted_tokens.append(token_id)\n            break")]),
    (NB2, "coin_always_accepts", [("if r < p / q:", "if r < q / q:")]),
    (NB2, "coin_always_accepts", [("if r < p / q:", "if r <= 1:")]),
    (NB2, "appends_before_coin", [(READ, READ + "\n        accepted_tokens.append(token_id)"),
                                  ("accepted_tokens.append(token_id)\n            continue", "continue"),
                                  ("        if r < p / q:\n            accepted_tokens.append(token_id)\n        else:\n"
                                   "            break", "        if r >= p / q:\n            break")]),
    # held-out answers of the thirteenth session
    (NB1, "reads_previous_row", [("p = target_probs[i, token_id].item()", "p = target_probs[i - 1, token_id].item()"),
                                 (READ, "q = draft_probs[i - 1, token_id].item()")]),
    (NB2, "reads_previous_row", [("p = target_probs[i, token_id].item()", "p = target_probs[i - 1][token_id].item()"),
                                 (READ, "q = draft_probs[i - 1][token_id].item()")]),
    (NB1, "drops_repeated_tokens", [("accepted_tokens.append(token_id)\n            continue",
                                     "if token_id not in accepted_tokens:\n                accepted_tokens.append(token_id)"
                                     "\n            continue")]),
    (NB2, "drops_repeated_tokens", [("accepted_tokens.append(token_id)\n            continue",
                                     "if token_id not in accepted_tokens:\n                accepted_tokens.append(token_id)"
                                     "\n            continue"),  # both appends: a repeat the coin accepts too
                                    ("accepted_tokens.append(token_id)\n        else",
                                     "if token_id not in accepted_tokens:\n                accepted_tokens.append(token_id)"
                                     "\n        else")]),
    (NB1, "indexes_token_then_position", [("p = target_probs[i, token_id].item()",
                                           "p = target_probs[token_id, i].item()"),
                                          (READ, "q = draft_probs[token_id, i].item()")]),
    (NB2, "coin_drawn_before_loop", [("accepted_tokens = []", "accepted_tokens = []\n    r = torch.rand(1).item()"),
                                     ("        r = torch.rand(1).item()\n", "")]),
    (NB2, "coin_same_position", [(LOOP, "i = 0\n    while i < len(draft_tokens):\n        token_id = draft_tokens[i]"),
                                 ("accepted_tokens.append(token_id)\n            continue",
                                  "accepted_tokens.append(token_id)\n            i += 1\n            continue")]),
]


@pytest.mark.parametrize("notebook,rule,edits", OWN_CASES,
                         ids=[f"{nb[:2]}-{r}-{n}" for n, (nb, r, _) in enumerate(OWN_CASES)])
def test_a_mistake_with_no_catalogued_answer_is_named_by_its_own_rule(notebook, rule, edits):
    code = mutants.edited(ASSIGNMENT, notebook, edits)
    if notebook == NB2 and rule == "ratio_before_branch":  # the ratio is also what the coin then reads
        code = code.replace("if r < p / q:", "if r < ratio:")
    judge, line = mutants.grade(code, ASSIGNMENT, notebook)
    assert judge.failed, "the mistake must lose points"
    assert line.startswith("Diagnosis: " + rules.sentence(rule)), line
    zh = diagnosis.line(notebook, judge, assignment=ASSIGNMENT + "_zh")
    assert rules.sentence(rule, "zh") in zh, zh


def test_the_runs_with_real_randomness_are_replayed_exactly():
    # the replay of the right answer's model gives, to the last digit, what the reference reported there
    judge, _ = mutants.grade(mutants.edited(ASSIGNMENT, NB2, []), ASSIGNMENT, NB2)
    runs = [s for s in judge.samples if s[1] == "sample_runs"]
    assert len(runs) >= 2
    for _, _, case, args, kwargs, result in runs:
        given = dict(zip(("trials", "seed"), args), **kwargs)
        assert rules23._sampled(case, given["trials"], given["seed"], NB2, frozenset()) == tuple(result)


@pytest.mark.parametrize("coin", ["torch.bernoulli(torch.tensor(p / q)).item() == 1",
                                  "torch.randint(0, 1000, (1,)).item() < 1000 * p / q"])
def test_a_coin_from_another_torch_source_is_named_and_not_called_mission_1s_break(coin):
    code = mutants.edited(ASSIGNMENT, NB2, [("r = torch.rand(1).item()\n        if r < p / q:", f"if {coin}:")])
    judge, line = mutants.grade(code, ASSIGNMENT, NB2)
    assert judge.failed
    # the same draws as torch.rand from torch's generator (the model of torch.empty(1).uniform_() follows them), or not
    assert any(line.startswith("Diagnosis: " + text) for text in (
        rules.sentence("coin_unscripted"), sentence("unscripted_torch_draw"))), line


@pytest.mark.parametrize("notebook", [NB1, NB2])
def test_a_function_that_fails_only_for_tensor_tokens_is_told_so(notebook):
    code = mutants.edited(ASSIGNMENT, notebook, [("accepted_tokens = []",
                                                  "if not draft_tokens:\n        return []\n    accepted_tokens = []")])
    judge, line = mutants.grade(code, ASSIGNMENT, notebook)
    assert "hidden_long_tensor" in judge.failed
    assert rules.sentence("tensor_tokens_fail") in line, line
    zh = diagnosis.line(notebook, judge, assignment=ASSIGNMENT + "_zh")
    assert rules.sentence("tensor_tokens_fail", "zh") in zh, zh


def test_a_coin_that_keeps_the_targets_most_likely_token_loses_a_point():
    # the drafted token is not the target's most likely one in hidden_coin_success_appends (a decoy, token 7)
    code = mutants.edited(ASSIGNMENT, NB2, [("        if r < p / q:\n            accepted_tokens.append(token_id)",
                              "        if r < p / q:\n            accepted_tokens.append(int(target_probs[i].argmax()))")])
    judge, _ = mutants.grade(code, ASSIGNMENT, NB2)
    assert "hidden_coin_success_appends" in judge.failed, judge.failed


def test_every_own_rule_has_its_sentence_in_both_languages():
    for notebook, own in rules23.OWN_RULES.items():
        assert not set(own) & set(rules23.RULES[notebook]), "an own rule would shadow a catalogued answer"
        for rule in own:
            en, zh = rules.SENTENCES[rule]
            assert en and any("\u4e00" <= ch <= "\u9fff" for ch in zh), rule


def test_the_replays_stream_grown_in_pieces_is_torchs_stream_in_one_pass():
    import torch

    rules23._SEEDED.pop(77, None)
    for n in (1, 5, 1500, 1501, 5000):
        rules23._seeded_stream(77, n)
    have = rules23._SEEDED[77][1]
    g = torch.Generator().manual_seed(77)
    assert len(have) >= 5000 and have == [torch.rand(1, generator=g).item() for _ in have]


@pytest.mark.parametrize("notebook,edits,where", [
    (NB1, [("accepted_tokens = []", "pass")], "in every call the checks make"),
    (NB2, [(READ, "q = draft_probs[i].item()")], "calls the checks make"),
    (NB2, [(READ, READ + "\n        import math\n        surprise = math.log(q)")], "when q == 0 at a position it reaches"),
    (NB1, [(LOOP, "share = 1 / len(draft_tokens)\n    " + LOOP)], "when draft_tokens is empty (K = 0)"),
])
def test_an_error_no_model_explains_is_named_with_its_type_and_where_it_happens(notebook, edits, where):
    code = mutants.edited(ASSIGNMENT, notebook, edits)
    judge, line = mutants.grade(code, ASSIGNMENT, notebook)
    assert judge.failed
    assert line.startswith("Diagnosis: your function raises ") and where in line, line
    zh = diagnosis.line(notebook, judge, assignment=ASSIGNMENT + "_zh")
    assert zh.startswith("诊断：你的函数") and "抛出" in zh, zh


def test_a_list_of_tensors_is_not_a_list_of_token_ids():
    # draft_tokens[i] of a LongTensor is a 0-d tensor: it compares equal to the id, but it is not an int
    code = mutants.edited(ASSIGNMENT, NB1, [("accepted_tokens.append(token_id)", "accepted_tokens.append(draft_tokens[i])")])
    judge, line = mutants.grade(code, ASSIGNMENT, NB1)
    # one check owns the result's type; every other check reads the 0-d tensors as their ids (issue 39)
    assert judge.failed == ["hidden_plain_list"], judge.failed
    assert line.startswith("Diagnosis: " + rules.sentence("not_token_ids")), line


@pytest.mark.parametrize("notebook", [NB1, NB2])
def test_a_row_found_by_the_tokens_id_loses_the_rows_check(notebook):
    # hidden_rows_aligned drafts token 12 twice: a lookup by id reads the first one's row at the second
    code = mutants.edited(ASSIGNMENT, notebook, [("p = target_probs[i, token_id].item()",
                                                  "p = target_probs[draft_tokens.index(token_id), token_id].item()")])
    judge, _ = mutants.grade(code, ASSIGNMENT, notebook)
    assert "hidden_rows_aligned" in judge.failed


@pytest.mark.parametrize("notebook", [NB1, NB2])
def test_an_in_place_guard_against_zeros_changes_the_inputs_and_loses_the_check(notebook):
    # hidden_inputs_unchanged's case holds a q == 0 and a p == 0 the right answer never reaches: a clamp_ on the
    # inputs changes them even where the values it reads are the same
    code = mutants.edited(ASSIGNMENT, notebook, [("accepted_tokens = []", "draft_probs.clamp_(min=1e-9)\n"
                                                                          "    accepted_tokens = []")])
    judge, line = mutants.grade(code, ASSIGNMENT, notebook)
    assert "hidden_inputs_unchanged" in judge.failed
    assert line.startswith("Diagnosis: " + rules.sentence("inputs_changed")), line


# Drawing at every position and accepting when r < min(1, p / q) acts as two pairs of catalogued mistakes alike
# (the draw moved to the top with the division before the branch; or the sure branch falling through to the
# coin without appending), so no model can be named; a draft whose every position has p >= q still shows a coin
# at each position, and the division raises at q == 0.
MIN_RATIO = '''def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if torch.rand(1).item() < {ratio}:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
'''


@pytest.mark.parametrize("ratio", ["min(1.0, p / q)", "min(p / q, 1)", "max(0.0, min(1.0, p / q))"])
@pytest.mark.parametrize("assignment", [ASSIGNMENT, ASSIGNMENT + "_zh"])
def test_a_coin_at_every_position_is_named_when_no_model_is(ratio, assignment):
    notebook = "02_reject_and_break"
    judge = diagnosis.judge_of(MIN_RATIO.format(ratio=ratio), notebook, ROOT / "source" / assignment)
    line = diagnosis.line(notebook, judge, assignment=assignment)
    lang = "en" if assignment == ASSIGNMENT else "zh"
    assert judge.failed and rules23.coin_where_sure(judge.calls)
    assert line.split(": ", 1)[-1].split("：", 1)[-1].startswith(rules.sentence("coin_every_position", lang)), line
    assert "ZeroDivisionError" in line, line  # the division before the branch raises at q == 0: said too


# Each single mistake of the template, with draft_tokens[i] appended as it comes (a 0-d tensor when the draft is a
# LongTensor): the call on a tensor has no tokens to compare, so it neither hides the mistake's model nor shows it;
# both are named, the mistake first.
@pytest.mark.parametrize("mistake", sorted(MISTAKES), ids=lambda m: MISTAKES[m])
def test_a_mistake_is_named_beside_a_result_that_is_not_token_ids(mistake):
    code = written([mistake]).replace("token_id = int(token_id)", "token_id = token_id")
    assert code != written([mistake])
    judge = diagnosis.judge_of(code, "02_reject_and_break", SOURCE)
    line = diagnosis.line("02_reject_and_break", judge)
    assert line.startswith("Diagnosis: " + sentence(MISTAKES[mistake])), line
    if mistake[0] != "kept":  # appending the position i keeps plain ints
        assert rules.sentence("not_token_ids") in line, line


@pytest.mark.parametrize("binding", ["from torch import rand as draw", "draw = torch.rand"])
def test_torch_rand_under_another_name_is_a_right_answer(binding):
    """`from torch import rand` (or any global bound to torch.rand) names torch.rand itself: the scripted draws reach
    it under that name too, so the answer gets full marks and "none", as with torch.rand(1).item()."""
    code = binding + "\n" + mutants.edited(ASSIGNMENT, NB2, [("r = torch.rand(1).item()", "r = draw(1).item()")])
    judge, line = mutants.grade(code, ASSIGNMENT, NB2)
    assert judge.failed == [] and line == "Diagnosis: " + diagnosis.NONE, (judge.failed, line)


# r drawn with another generator than torch.rand: the checks hand it the same scripted values (spec_checks.FOREIGN),
# so the draw source is charged once, by the single-draw check and the visible test, and the diagnosis names it.
DRAW = "r = torch.rand(1).item()"
FOREIGN_DRAWS = {  # source: (a line before the function, the draw), as students write them
    "random.random": ("import random", "r = random.random()"),
    "random.uniform": ("import random", "r = random.uniform(0, 1)"),
    "numpy.random.rand": ("import numpy as np", "r = np.random.rand(1)[0]"),
    "numpy.random.random": ("import numpy as np", "r = float(np.random.random())"),
    "numpy.random.random_sample": ("from numpy.random import random_sample", "r = random_sample()"),
    "numpy.random.uniform": ("import numpy", "r = numpy.random.uniform(0.0, 1.0)"),
    "torch.rand_like": ("", "r = torch.rand_like(draft_probs[i, token_id]).item()"),
    "torch.Tensor.uniform_": ("", "r = torch.empty(1).uniform_().item()"),
    "torch.bernoulli": ("", "r = 0.0 if torch.bernoulli(torch.tensor(p / q)).item() == 1 else 1.0"),
    "random.random as draw": ("from random import random as draw", "r = draw()"),
}
FOREIGN_RULE = {s: n for n, sources in rules23.FOREIGN_RULES[NB2].items() for s in sources}


@pytest.mark.parametrize("source", FOREIGN_DRAWS)
def test_a_draw_from_another_generator_costs_the_single_draw_check_and_the_visible_test_only(source):
    before, draw = FOREIGN_DRAWS[source]
    code = mutants.edited(ASSIGNMENT, NB2, [(DRAW, draw)])
    code = (before + "\n" + code) if before else code
    judge, line = mutants.grade(code, ASSIGNMENT, NB2)
    assert sorted(c for c in judge.failed if c) == ["hidden_single_value_draws", "test_visible"], judge.failed
    named = source.split(" as ")[0]
    assert line == "Diagnosis: " + sentence(FOREIGN_RULE[named]), line
    said = "".join(o.get("evalue", "") for o in judge.outputs_by_check["hidden_single_value_draws"])
    assert named in said and rules.FRAME["en"]["follows"].strip() in said, said
    visible = "".join(o.get("evalue", "") for o in judge.outputs_by_check["test_visible"])
    assert named in visible, visible


def test_a_foreign_draw_with_a_second_mistake_is_charged_for_both_and_named_for_both():
    code = "import random\n" + mutants.edited(ASSIGNMENT, NB2, [(DRAW, "r = random.random()"),
                                                                 ("            break", "            continue")])
    judge, line = mutants.grade(code, ASSIGNMENT, NB2)
    assert {"hidden_single_value_draws", "hidden_break_not_continue"} <= set(judge.failed)
    assert sentence("random_module") in line and sentence("continue_not_break") in line, line


RETURN_IN_LOOP = """
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
        else:
            r = torch.rand(1).item()
            if r < p / q:
                accepted_tokens.append(token_id)
            else:
                break
        return accepted_tokens
"""


def test_a_return_indented_into_the_loop_is_named_and_its_none_said_too():
    """A student's if/else loop whose return sits in the loop body: back after the first kept position, None when
    the first is rejected or the draft is empty (a blind answer of the twelfth session)."""
    judge, line = mutants.grade(RETURN_IN_LOOP, ASSIGNMENT, NB2)
    assert line.startswith("Diagnosis: " + rules.sentence("returns_inside_loop")), line
    assert rules.sentence("not_a_list") in line, line


def test_a_coin_at_every_position_in_mission_1_is_said_to_cause_what_its_replay_gives_and_nothing_else():
    """Mission 2's coin written into Mission 1 (a blind answer of the thirteenth session): no model fits every check
    (it also divides by q == 0), so the line says what the run shows; the checks the coin-everywhere model replays
    say they follow from it, the division's check does not."""
    code = mutants.edited(ASSIGNMENT, NB1, [("if p >= q:", "if torch.rand(1).item() < min(1.0, p / q):")])
    judge, line = mutants.grade(code, ASSIGNMENT, NB1)
    assert {"test_visible_m1", "hidden_no_draw", "hidden_q_zero"} <= set(judge.failed), judge.failed
    assert "hidden_equal_accepts" not in judge.failed  # the draw past the script rejects p / q = 0.9995 too
    assert line.startswith("Diagnosis: " + rules.sentence("coin_every_position")), line
    said = {c: "".join(o.get("evalue", "") for o in judge.outputs_by_check[c]) for c in judge.failed}
    follows = rules.FRAME["en"]["follows"].strip()
    assert follows in said["test_visible_m1"] and follows not in said["hidden_q_zero"], said
