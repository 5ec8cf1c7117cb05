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


# ------------------------------------------------------------------ Level 24 against the papers (issue 21)

def level24(name):
    return (ROOT / "lessons" / "level24_residual_and_bonus" / f"{name}.py").read_text()


def helper24(name):
    return (ROOT / "source" / "level24_residual_and_bonus" / f"{name}.py").read_text()


N1, N2 = level24("01_correction_token"), level24("02_bonus_and_step")


def flat(text):
    """The lesson's prose on one line: comment marks and line breaks gone."""
    return " ".join(line.lstrip("#").strip() for line in text.splitlines())


def test_l24_kept_given_drafted_is_min_1_p_over_q_and_drafted_and_kept_is_min_p_q():
    assert "survives with probability `min(p(x), q(x))`" not in N1
    idea = flat(N1.split("## Today's idea", 1)[1].split("# %%", 1)[0])
    assert "kept with probability `min(1, p(x)/q(x))`" in idea and "proposes `x` *and* it is kept" in idea
    check = flat(N1.split("## Check it with the real randomness", 1)[1].split("# %%", 1)[0])
    assert "`min(1, p/q) = 0.2/0.5 = 0.4`" in check and "It is not `min(p, q) = 0.2`" in check


def test_l24_c_and_the_presets_are_the_papers_own_with_temperature_and_tables():
    prose = flat(N2)
    assert "this course's assumption" not in prose and "this course's assumption" not in helper24("spec_widgets")
    for phrase in ("`α = 0.75` is greedy decoding (temperature 0), `α = 0.62` standard sampling (temperature 1) "
                   "(Table 2)", "`c = 0.02` is the paper's estimate for T5-small, from profiler traces (Appendix A.3, "
                   "Table 4)", "predicts 3.2× and 2.3×; the paper measured 3.4× and 2.6× (Table 2)",
                   "ranges from 0.53 to 0.75 and its measured speed-ups from 2.3× to 3.4×", "`K = γ = 7`"):
        assert phrase in prose, phrase


def test_l24_beta_is_per_prefix_and_alpha_its_average():
    prose = flat(N2)
    assert "`α` changes from position to position" not in prose
    assert "from position to position is `β = Σ min(p, q)` for that prefix (Definition 3.1)" in prose
    assert "`α` is its average (Corollary 3.6)" in prose


def test_l24_nothing_is_called_measured_that_is_not_timed():
    assert "measured {gen.tokens_per_call / (gen.k * c + 1)" not in helper24("spec_widgets")
    assert "not timed: with an assumed c =" in helper24("spec_widgets")
    prose = flat(N2)
    assert "Nothing here is timed." in prose and "`c` about 1" in prose and "standard error" in prose


def test_l24_the_guard_holds_in_exact_arithmetic_only_and_the_strict_comparison_is_not_why():
    prose = flat(N1)
    assert "No guard is needed" not in prose and "with the strict `r < p/q`, `p >= q` never rejects" not in prose
    assert "It is `r < 1` that makes `p >= q` safe, not the strict `<`" in prose
    assert "`p = [0.5, 0.5]` and `q = [0.5, 0.50000006]`" in prose and "vLLM's rejection sampler" in prose
    import torch
    p, q = torch.tensor([0.5, 0.5]), torch.tensor([0.5, 0.50000006])
    assert (p[1] / q[1]).item() < 1 and torch.clamp(p - q, min=0).sum().item() == 0  # what the prose says


def test_l24_one_printed_draw_is_one_multinomial_call():
    cell = N1.split('print(say("one_draw"', 1)[1].split("\n", 1)[0]  # the line that prints it (its words in TEXT)
    assert "multinomial" not in cell


def test_l24_names_the_two_names_and_chens_letters():
    prose = flat(N1)
    assert "call the whole method *speculative decoding*" in prose and "Chen et al. also swap the letters" in prose
    assert "`max_fn(q - p)`" in prose


def test_l24_chi_square_p_value_is_explained_and_never_printed_as_if_it_were_p():
    assert "The test's *p-value* is the chance" in flat(N1)
    fit_line = helper24("spec_widgets").split("def fit_line", 1)[1].split("def ", 1)[0]
    assert 'TEXT["fit_line"]' in fit_line  # its words, in the TEXT block:
    assert "not the target's p" in helper24("spec_widgets").split('"fit_line": ', 1)[1].split("\n", 1)[0]
    printing = [line for text in (N1, N2) for line in text.splitlines() if "p-value" in line and "print" in line]
    assert not printing, printing  # the notebooks print p-values only through fit_line


def test_l24_each_guess_comes_before_the_paragraph_that_answers_it():
    for text, quiz in ((N1, 'quiz("l24_guess")'), (N2, 'quiz("l24_bonus_guess")')):
        assert text.index(quiz) < text.index("## Today's idea")
    assert N1.index('quiz("l24_guess")') < N1.index("sample the correction from it")
    assert N2.index('quiz("l24_bonus_guess")') < N2.index("| all `K` accepted | bonus | `target_probs[K]` |")


def test_l24_notebook_2_says_why_return_just_above_the_todo():
    cells = N2.split("# %%")
    todo = next(i for i, c in enumerate(cells) if '"grade_id": "speculative_step"' in c)
    above = flat(cells[todo - 1])
    assert cells[todo - 1].startswith(" [markdown]") and "Why `return` here, when notebook 1 used `break`" in above
    assert "a `break` would fall through to it" in above


def test_l24_case_rows_and_the_view_are_explained():
    prose = flat(N1)
    assert "`spec_checks.Case(draft_rows, target_rows, tokens)` takes the draft's rows" in prose
    assert "the target gets one row more, row `K`" in prose
    assert "`target_probs[i]` is a *view*" in prose and "changes the caller's tensor" in prose


def test_l24_the_formula_is_derived_from_level_23s_expected_accepted_count():
    prose = flat(N2)
    assert "`E[accepted] = Σ_i Π_{j≤i} min(1, p_j/q_j)`" in prose and "Definition 3.1" in prose
    assert "`E[accepted] = α + α² + ... + α^K`" in prose and "term_by_term" in N2


def test_l24_temperature_and_greedy_are_explained_and_corollary_3_9_is_a_quiz():
    prose = flat(N2)
    assert '"Standardized Sampling"' in prose and "**one-hot rows**" in prose and "same temperature" in prose
    assert 'quiz("l24_some_k_helps")' in N2 and "show_best_k()" in N2
    assert "Corollary 3.9" in helper24("spec_widgets")


# ------------------------------------------------------------------ notebook 03's experiments, read against the paper (issue 40)

N3 = level24("03_real_pair")


def markdown(text, cell):
    """The prose of the markdown cell with l10n id ``cell``, on one line."""
    return flat(text.split(f'# %% [markdown] l10n="{cell}"', 1)[1].split("# %%", 1)[0])


def test_l24_n3_alpha_falls_with_the_temperature_on_fixed_prefixes_and_says_why():
    reading = markdown(N3, "temperature-reading")
    assert "rises on this pair" not in N3 and "greedy decoding speculates better than sampling" not in N3
    assert "`α` **falls** as `T` falls on this pair" in reading and "agree at only about a third" in reading
    assert "(Leviathan et al. 2023, Table 2)" in reading and "`α` = 0.75 at `T = 0` against 0.62 at `T = 1`" in reading
    assert "fixed prefixes (the same at every T)" in helper24("spec_widgets")
    assert "spec_pair.temperature_table(" in N3 and "measure_alpha(" not in N3  # not the target's own text alone


def test_l24_n3_greedy_shows_its_text_and_calls_it_degenerate():
    assert "spec_pair.greedy_lines(" in N3 and "every prompt we tried ends the same way" in markdown(N3, "faster")
    assert "a best case of a degenerate text" in markdown(N3, "faster-reading")


def test_l24_theorem_3_8_is_stated_with_its_condition_where_it_is_used():
    for prose in (flat(N2), markdown(N3, "sampling")):
        assert "Theorem 3.8" in prose and "Section 3.3" in prose and "run in parallel" in prose
        assert "in the wall time of one" in prose


def test_l24_n3_counts_acceptance_over_checked_drafts_and_times_interleaved():
    assert "**checked** drafts" in markdown(N3, "sampling")
    words = helper24("spec_widgets").split('"pair_report": [', 1)[1].split("],", 1)[0]
    assert "of {checked} checked drafts accepted" in words and "of {drafted} drafts accepted" not in words
    assert "take turns" in markdown(N3, "checking-is-free") and "spec_pair.speed_report(" in N3


def test_l24_smaller_points_beta_simulate_best_k_float32():
    prose1, prose2 = flat(N1), flat(N2)
    assert "accepted with probability `β = Σ min(p, q)`" in prose1 and "`α = E(β)`" in prose1
    assert "`α = Σ min(p, q)`" not in prose1
    assert "## 100,000 steps of the course's `simulate`" in N2 and "the course's vectorised `simulate` (not your function)" in prose1
    assert "the best is `K = 9` for `α = 0.75`" in prose2 and "`K = 6` for `α = 0.62`" in prose2
    assert "for float32 rows and the float32 draws of `torch.rand`" in prose1 and "`10^16`" in prose1
    speedup = lambda a, k, c: (1 - a ** (k + 1)) / ((1 - a) * (k * c + 1))  # noqa: E731 (Theorem 3.8)
    assert [max(range(1, 30), key=lambda k: speedup(a, k, 0.02)) for a in (0.75, 0.62)] == [9, 6]
