"""Each visible-test message says what the run showed: every one is tested with the catalogue
answer it is meant for, run here with the notebook's own visible cases and scripted draws."""

import re
import sys

import pytest
import torch

from grading import ASSIGNMENT, ROOT
from grading.build import catalogue

sys.path.insert(0, str(ROOT / "source" / ASSIGNMENT))
import spec_checks  # noqa: E402

ANSWERS = {(a.notebook, a.name): a for a in catalogue.load()}


def verify_draft_of(notebook, name):
    ns = {"torch": torch}
    exec(ANSWERS[notebook, name].code, ns)
    return ns["verify_draft"]


def says(message, key):
    """True when ``message`` is VISIBLE_MESSAGES[key] with its blanks filled in."""
    parts = [re.escape(part) for part in re.split(r"\{\w+\}", spec_checks.VISIBLE_MESSAGES[key])]
    return message is not None and re.search(".*".join(parts), message, re.S) is not None


def m1(name):
    fn = verify_draft_of("01_accept_branch", name)
    return spec_checks.visible_problem_m1(spec_checks.run_verify(fn, spec_checks.visible_case(), draws=[]),
                                          spec_checks.run_verify(fn, spec_checks.multi_accept_case(), draws=[]),
                                          spec_checks.run_verify(fn, spec_checks.accept_case(), draws=[]))


def m2(name):
    fn = verify_draft_of("02_reject_and_break", name)
    return spec_checks.visible_problem_m2(spec_checks.run_verify(fn, spec_checks.visible_case(), draws=[0.5, 0.9]),
                                          spec_checks.run_verify(fn, spec_checks.accept_case(), draws=[0.5] * 3))


@pytest.mark.parametrize("name,key", [
    ("forgets_continue", "stopped_after_accept"), ("hard_coded_visible", "stopped_after_accept"),
    ("row_zero_only", "stopped_after_accept"), ("draw_before_compare", "drew"), ("appends_position", "not_token_ids"),
    ("strict_greater", "stopped_at_equal"), ("reversed_comparison", "first_not_accepted"),
    ("tensor_compare_no_item", "first_not_accepted"), ("skips_instead_of_stopping", "kept_after_stop"),
    ("appends_before_check", "accepted_p_below_q"),
])
def test_mission_1_message(name, key):
    assert says(m1(name), key), m1(name)


@pytest.mark.parametrize("name,key", [
    ("q_over_p", "accepted_all"), ("no_coin", "accepted_all"), ("no_coin", "never_drew"),
    ("continue_not_break", "continued"), ("draw_every_position", "coin_p_ge_q"),
    ("greater_coin", "position1_rejected"), ("row_zero_only", "coin_p_ge_q"), ("break_after_accept", "draws"),
    ("all_draws_up_front", "shapes"), ("vector_draw_in_loop", "shapes"), ("unscripted_torch_draw", "foreign"),
    ("random_module", "foreign"), ("numpy_rand", "foreign"), ("appends_position", "not_token_ids"),
])
def test_mission_2_message(name, key):
    assert says(m2(name), key), m2(name)


@pytest.mark.parametrize("coin", ["torch.randint(0, 1000, (1,)).item() < 1000 * p / q",
                                  "torch.randint(1000, ()).item() < 1000 * p / q"])
def test_a_coin_from_a_sampler_the_test_does_not_script_is_told_it_made_no_draw_the_test_could_script(coin):
    ns = {"torch": torch}  # under the call's seed both coins keep token 20 (p/q = 0.8) and reject token 30
    exec(ANSWERS["02_reject_and_break", "correct_for_enumerate"].code.replace(
        "r = torch.rand(1).item()\n        if r < p / q:", f"if {coin}:"), ns)
    fn = ns["verify_draft"]
    message = spec_checks.visible_problem_m2(spec_checks.run_verify(fn, spec_checks.visible_case(), draws=[0.5, 0.9]),
                                             spec_checks.run_verify(fn, spec_checks.accept_case(), draws=[0.5] * 3))
    assert says(message, "no_torch_draws"), message


def test_accepting_everything_never_blames_continue():
    message = m2("q_over_p")
    assert "continue" not in message and "p/q = 0.1/0.9 = 0.11" in message and "r = 0.9" in message


GUESSES = re.compile(r"\?|\bor\b.*\?|\byou used\b|\bis (it|the)\b.*\bor\b", re.I)


def test_no_visible_message_guesses_a_cause():
    """Issue 49: a visible test states what happened on its case; it never asks "is it X or Y?" nor says what the
    student's code did that the run cannot show (a continue, a reversed comparison)."""
    for key, text in spec_checks.VISIBLE_MESSAGES.items():
        assert not GUESSES.search(text), (key, text)


def test_a_raising_function_sees_its_own_line():
    """Issue 49: the visible test names the line of the student's own code an error came from."""
    import linecache
    code = ("def verify_draft(draft_probs, target_probs, draft_tokens):\n"
            "    accepted_tokens = []\n"
            "    for i in range(draft_probs.shape[1]):\n"
            "        token_id = int(draft_tokens[i])\n"
            "        accepted_tokens.append(token_id)\n"
            "    return accepted_tokens\n")
    name = "<cell 7>"
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    ns = {"torch": torch}
    exec(compile(code, name, "exec"), ns)
    run = spec_checks.run_verify(ns["verify_draft"], spec_checks.visible_case(), draws=[0.5, 0.9])
    assert run.where == [4, "token_id = int(draft_tokens[i])"]
    assert run.problem.endswith("at line 4 of your verify_draft cell: token_id = int(draft_tokens[i])"), run.problem


def test_right_answers_pass_both_visible_tests():
    for a in catalogue.load():
        if a.full_marks:
            assert (m1 if a.notebook.startswith("01") else m2)(a.name) is None, a.name


def test_every_message_is_used_by_some_answer():
    used = set()
    for a in catalogue.load():
        message = (m1 if a.notebook.startswith("01") else m2)(a.name)
        used |= {key for key in spec_checks.VISIBLE_MESSAGES if says(message, key)}
    unused = set(spec_checks.VISIBLE_MESSAGES) - used
    # the catch-alls, for mistakes nobody has made yet, and no_torch_draws (no catalogued answer draws from a sampler
    # the test does not script: test_a_coin_from_a_sampler_the_test_does_not_script... writes two)
    # and accept_all_case (a loop that stops one position early: test_a_loop_that_stops_one_position_early... below)
    assert unused <= {"m1_other", "m2_other", "no_torch_draws", "accept_all_case"}, unused


@pytest.mark.parametrize("notebook", ["01_accept_branch", "02_reject_and_break"])
@pytest.mark.parametrize("loop", ["for i, token_id in enumerate(draft_tokens[:-1]):",
                                  "for i, token_id in zip(range(len(draft_tokens) - 1), draft_tokens):"])
def test_a_loop_that_stops_one_position_early_is_told_by_the_visible_test(notebook, loop):
    """The visible draft's last position is never reached by a right answer either; the case where every position
    has p >= q shows it, in both missions."""
    ns = {"torch": torch}
    exec(ANSWERS[notebook, "correct_for_enumerate"].code.replace(
        "for i, token_id in enumerate(draft_tokens):", loop), ns)
    fn, draws = ns["verify_draft"], ([] if notebook.startswith("01") else [0.5, 0.9])
    run = spec_checks.run_verify(fn, spec_checks.visible_case(), draws=draws)
    accepting = spec_checks.run_verify(fn, spec_checks.accept_case(), draws=[])
    if notebook.startswith("01"):
        message = spec_checks.visible_problem_m1(
            run, spec_checks.run_verify(fn, spec_checks.multi_accept_case(), draws=[]), accepting)
    else:
        message = spec_checks.visible_problem_m2(run, accepting)
    assert says(message, "accept_all_case") and "[10, 20]" in message, message
