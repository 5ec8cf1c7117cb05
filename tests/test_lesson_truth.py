"""Statements the lessons once got wrong or left out (issue 11). Each test fails if the old text comes back."""

import re

from grading import ROOT


def lesson(name):
    return (ROOT / "lessons" / "level23_speculative_decoding" / f"{name}.py").read_text()


M1, M2 = lesson("01_accept_branch"), lesson("02_reject_and_break")


def test_accepting_alone_is_not_said_to_keep_the_target_distribution():
    assert "cannot skew" not in M1
    assert "min(p, q)" in M1 and "max(0, p - q)" in M1 and "Only the two\n# together reproduce the target" in M1


def test_verify_draft_is_placed_in_the_full_algorithm():
    assert "the whole `verify_draft`" not in M2
    assert "Leviathan et al. 2023, Algorithm 1" in M2 and "*correction* token" in M2 and "*bonus* token" in M2


def test_p_and_q_are_defined_once_with_the_other_papers_letters():
    assert "softmax" in M1 and "*sampled* its token" in M1 and "Chen et al. (2023)" in M1


def test_the_strict_comparison_is_explained_against_leviathans():
    assert "Leviathan et al. reject only when `r > p/q`" in M2 and "both are exact" in M2


def test_the_number_line_questions_are_answered_right_after_it():
    after = M2.split("number_line()", 1)[1]
    assert re.match(r"# %% \[markdown\][^\n]*\n# <details>", after.lstrip())
    assert "**When `p >= q`**" in after and "**The boundary `r = p/q`**" in after


def test_the_mean_accepted_length_is_taught_before_its_hidden_check():
    taught = M2.index("How many tokens does one step keep?")
    assert taught < M2.index('"grade_id": "hidden_mean_length"') and "1.98" in M2


def test_the_guess_comes_before_the_idea_that_answers_it():
    for text, quiz in ((M1, 'quiz("m1_guess")'), (M2, 'quiz("m2_guess")')):
        assert text.index(quiz) < text.index("## Today's idea")
