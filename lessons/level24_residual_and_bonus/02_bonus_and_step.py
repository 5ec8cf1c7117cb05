# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] l10n="title"
# # Level 24 · Speculative sampling · Notebook 2: the bonus token, the whole step, and what it buys
#
# One call of the target model scores all `K` drafted positions **and one more**: `target_probs`
# has `K + 1` rows. When every draft is accepted, row `K` is the target's distribution for the
# next token, so the step gets one more token for free: the **bonus token**. With the correction
# token of notebook 1, every step returns the accepted prefix plus exactly one new token.
#
# First you measure what it buys, with the course's ready-made vectorised step `simulate`:
# 100,000 steps against the target's distribution, and the speed-up. Then you write the step yourself and run it on rows
# that depend on the context, and on two tiny language models.
#
# **This notebook is worth 15 points**: 3 for the visible test under your answer, and 12 for
# hidden checks that run when your work is graded.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false, "task": false}
import time

import torch

import spec_checks
from spec_markov import markov_experiment
from spec_widgets import (AUTOGRADING, LESSON_P, LESSON_Q, experiment_summary, fit_char_models, generate,
                          generation_summary, quiz, say, show_best_k, show_histograms, simulate, speedup_widget)

# %% [markdown] l10n="guess-first"
# ## 🎯 Guess first

# %%
quiz("l24_bonus_guess")

# %% [markdown] l10n="idea"
# ## Today's idea
#
# **A step always ends with one token from the target: a correction after a rejection, or the
# bonus from row `K` after `K` acceptances. Never both, never none.**
#
# | what happened | the new token | sampled from |
# |---|---|---|
# | rejected at position `i` | correction | `max(0, target_probs[i] - draft_probs[i])`, normalised |
# | all `K` accepted | bonus | `target_probs[K]` |

# %% [markdown] l10n="experiment"
# ## 100,000 steps of the course's `simulate`: does the first token follow the target?
#
# A real step samples the drafts from `q`. `simulate` runs 100,000 steps of the algorithm at once
# (vectorised: each run's draws are independent). It does not keep the draw contract of your
# function: it flips a coin at every position, also where `p >= q` (such a coin always accepts),
# and draws a correction for every row before it knows which one it needs. The emitted tokens
# follow the same distribution either way. It uses `K = 3` positions that all use the table's rows
# `p` and `q`. It also runs **accept-only-then-stop**: Level 23's prefix without the correction,
# where a rejected first draft emits nothing and the next step drafts again.
#
# This experiment is blind to some mistakes: every position has the same rows and only the first
# token is counted, so a bonus from row `K - 1`, or a correction from row 0, gives the same
# histogram. The next experiment can tell them apart.

# %%
K = 3
draft_probs = torch.tensor([LESSON_Q] * K)
target_probs = torch.tensor([LESSON_P] * (K + 1))
started = time.perf_counter()
sim = simulate(draft_probs, target_probs, n=100_000, seed=0)
print(say("steps_in", seconds=time.perf_counter() - started))
print("\n".join(experiment_summary(sim)))

# %%
show_histograms(sim)

# %% [markdown] l10n="experiment-reading"
# Speculative sampling matches `p` (a TV distance of a few thousandths is sampling noise at
# 100,000 runs, and the chi-square p-value is unremarkable). Accept-only-then-stop emits token `x`
# with probability proportional to `min(p(x), q(x))`: it over-weights tokens the draft likes
# (token 1, token 3) and is far from `p` (p-value 0). The p-value, as in notebook 1, is the chance
# of counts at least this far from `p` if the method is right; it is not a probability of the target.

# %% [markdown] l10n="what-it-buys"
# ## What it buys
#
# Level 23 found, for drafts that are given, the expected number of accepted tokens
# `E[accepted] = Σ_i Π_{j≤i} min(1, p_j/q_j)`: position `i` is kept only if it and every position
# before it pass. Now the draft *samples* its tokens. Averaged over the draft's choice `x ~ q`, one
# factor becomes
#
# $$E_{x \sim q}\left[\min\left(1, \frac{p(x)}{q(x)}\right)\right] = \sum_x q(x) \min\left(1, \frac{p(x)}{q(x)}\right) = \sum_x \min(p(x), q(x)) = \beta,$$
#
# the acceptance rate for one prefix (Leviathan et al. 2023, Definition 3.1). Its average over
# prefixes is `α` (Corollary 3.6). If every position has the same `β = α`, independently (the
# paper's simplifying assumption in Section 3), the product for position `i` is `α^(i+1)`, so
# `E[accepted] = α + α² + ... + α^K`. Every step adds one token more (the correction or the
# bonus), so for **one** call of the target a step returns on average
#
# $$E[\text{tokens per target call}] = 1 + \alpha + \alpha^2 + \dots + \alpha^K = \frac{1 - \alpha^{K+1}}{1 - \alpha},$$
#
# a geometric sum: multiply it by `1 - α` and every term but `1` and `-α^(K+1)` cancels. The
# check: the sum term by term, the closed form, and the simulation above (`K = 3`, `α = 0.6`):

# %%
alpha = sim.alpha
term_by_term = 1 + sum(alpha ** (i + 1) for i in range(K))
print(say("formula_and_simulation", alpha=alpha, k=K, term_by_term=term_by_term,
          formula=spec_checks.expected_tokens_per_call(alpha, K), simulation=sim.tokens_per_call))

# %% [markdown] l10n="draft-cost"
# Drafting is not free. If one draft call costs `c` target calls, a step costs `K·c + 1`, so
#
# $$\text{speed-up} = \frac{1 - \alpha^{K+1}}{(1 - \alpha)(K c + 1)}.$$
#
# (Leviathan et al. 2023, Theorem 3.8.) The theorem rests on a condition the paper states with it
# (Section 3.3): the target's `K + 1` evaluations of a step (`γ + 1` in the paper) run in parallel,
# in the wall time of one, and nothing else takes time. A call of `K + 1` positions then costs
# what a call of one does. Real calls come close to that only while arithmetic is not what limits
# them; notebook 03 measures how close on this CPU.
#
# Move the sliders: a better draft (larger `α`) pays for more drafts; a costlier draft (larger `c`)
# wants fewer. The green ring marks the best `K`.
#
# The buttons set the paper's own numbers for T5-XXL (11B) translating English to German (EnDe)
# with a T5-small draft, at `K = γ = 7`. `α = 0.75` is greedy decoding (temperature 0), `α = 0.62`
# standard sampling (temperature 1) (Table 2). `c = 0.02` is the paper's estimate for T5-small,
# from profiler traces (Appendix A.3, Table 4). With them the formula predicts 3.2× and 2.3×; the
# paper measured 3.4× and 2.6× (Table 2). Over both tasks (EnDe and CNN/DM), T5-small's `α` ranges
# from 0.53 to 0.75 and its measured speed-ups from 2.3× to 3.4×. The paper's `γ = 7` is not
# the formula's best `K` for these numbers: with `c = 0.02` the best is `K = 9` for `α = 0.75`
# (3.20× against 3.16× at 7) and `K = 6` for `α = 0.62` (2.27× against 2.26×). Near its best the
# curve is flat, so one `γ` serves both.

# %%
speedup_widget()

# %% [markdown] l10n="best-k"
# The best `K` against `α`, for a few draft costs `c`. Each curve starts where `α` passes `c`: below
# that no `K` is faster than plain decoding (Corollary 3.9 and the quiz below).

# %%
show_best_k()

# %% [markdown] l10n="temperature"
# ## Temperature and greedy decoding
#
# Greedy decoding, top-k, nucleus sampling and a temperature all sample from an *adjusted*
# distribution, so speculative sampling needs nothing new for them: adjust both models' rows the
# same way (same temperature) before the step (Leviathan et al. 2023, Section 2.2, "Standardized
# Sampling"). Greedy decoding (temperature 0) is the case of **one-hot rows**: each row puts
# probability 1 on its argmax. Then `Σ min(p, q)` is 1 when the two argmaxes agree and 0 when they
# do not, so a drafted token is kept exactly when it is the target's argmax, and the correction
# (the residual of a one-hot `p`) is the target's argmax: the output is plain greedy decoding's,
# token for token. Sharper rows overlap more where the models agree, which fits the paper's `α`
# being higher at temperature 0 (0.75) than at 1 (0.62) for the paper's T5 pair. It depends on the
# pair: notebook 03 measures `α` against the temperature on a real transformer and a bigram draft,
# where it goes the other way.

# %% [markdown] l10n="check-yourself"
# ## ✅ Check yourself

# %%
quiz("l24_speed_check")

# %%
quiz("l24_some_k_helps")

# %% [markdown] l10n="whole-step"
# ## The whole step: `speculative_step`
#
# The loop is your Level 23 `verify_draft` again. Write both TODOs:
#
# - **TODO 1** (from notebook 1): at the first rejection, append one correction token sampled
#   from row `i`'s normalised residual, and return;
# - **TODO 2**: after the loop (every draft accepted), append one bonus token sampled from
#   `target_probs[K]` with `torch.multinomial`, where `K = len(draft_tokens)`.
#
# If the test complains:
# - *drawn from target_probs[K-1]*: the accepted drafts used rows `0..K-1`; the bonus is row `K`;
# - *called 2 times* after a rejection: no bonus after a correction (return right after it);
# - *never called* with all accepted: the bonus is missing.
# - *sampled with numpy.random.choice* (or `random.choices`): the tests script `torch.multinomial`,
#   so sample with it.

# %% [markdown] l10n="why-return"
# Why `return` here, when notebook 1 used `break`: in notebook 1 nothing came after the loop, so
# `break` and `return` ended the function the same way. Here the bonus (TODO 2) comes after the
# loop: a `break` would fall through to it and add a bonus after the correction, two new tokens.
# `return` ends the step with the correction alone.

# %% nbgrader={"grade": false, "grade_id": "speculative_step", "locked": false, "schema_version": 3, "solution": true, "task": false}
def speculative_step(draft_probs, target_probs, draft_tokens):
    """One step of speculative sampling.

    draft_probs:  [K, V]     the draft's distribution at each drafted position
    target_probs: [K + 1, V] the target's distribution at the same positions, then row K after the last draft
    draft_tokens: K token ids (a list or a torch.LongTensor)
    Returns the accepted prefix plus exactly one new token (a correction or the bonus), as a list of ints.
    """
    # The draw contract: keep the given loop. The tests hand scripted values to one torch.rand(1)
    # per p < q position, in position order (none where p >= q, none after the rejection), and
    # record each torch.multinomial call, which needs num_samples as in torch: (weights, 1).
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:  # Level 23: accept
            accepted_tokens.append(token_id)
            continue
        # TODO 1: the correction token from row i's normalised residual; then return.
        ### BEGIN SOLUTION
        residual = torch.clamp(target_probs[i] - draft_probs[i], min=0)
        residual = residual / residual.sum()
        accepted_tokens.append(int(torch.multinomial(residual, 1).item()))
        return accepted_tokens
        ### END SOLUTION
    # TODO 2: every draft was accepted: append one bonus token sampled from target_probs[K].
    ### BEGIN SOLUTION
    k = len(accepted_tokens)
    accepted_tokens.append(int(torch.multinomial(target_probs[k], 1).item()))
    ### END SOLUTION
    return accepted_tokens


# %% [markdown] l10n="visible-test"
# ## Visible test
#
# Notebook 1's case, with row `K = 2` of the target added: `[0.1, 0.2, 0.3, 0.4]`. Two runs:
# with `r = 0.7` position 1 is rejected, and `torch.multinomial` (a stand-in) returns `2`:
# expected `[0, 2]`. With `r = 0.1` both drafts are accepted, and the stand-in returns `3` for
# the bonus, which must be drawn from `target_probs[2]`: expected `[0, 1, 3]`.

# %% nbgrader={"grade": true, "grade_id": "test_visible", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
rejected = spec_checks.run_step(speculative_step, spec_checks.visible_case(bonus_row=True), draws=[0.7], picks=[2])
accepted = spec_checks.run_step(speculative_step, spec_checks.visible_case(bonus_row=True), draws=[0.1], picks=[3])
problem = spec_checks.visible_problem_n2(rejected, accepted)
assert problem is None, spec_checks.readable(problem)
print(spec_checks.say("n2_passed"))

# %% [markdown] l10n="markov"
# ## Whole steps with context: the first three tokens
#
# Now your own `speculative_step`, with rows that depend on the context. Target and draft are two
# small **Markov chains** over 3 tokens: each gives the next token's distribution from the
# previous token alone, and the target strongly prefers "previous + 1". Each step drafts `K = 2`
# tokens one by one from the draft chain, takes the target's `K + 1` rows for the same contexts
# (row `K` is the one after the last draft), calls your function and appends what it returns;
# the next step starts from there. After enough steps for 3 tokens, we count which triple
# `(x1, x2, x3)` came out, and compare the 27 shares with the target chain's own probabilities
# `p(x1 | 0) · p(x2 | x1) · p(x3 | x2)`. A bonus from the wrong row, or a correction from row 0,
# shows here as a large gap. (Your function runs as a Python loop, so 3,000 runs; this cell is
# not graded and is skipped when your notebook is graded, where the hidden checks test the same.)

# %%
markov = markov_experiment(speculative_step, runs=3_000, seed=0)
print("\n".join(markov.lines()))

# %% [markdown] l10n="tiny-models"
# ## Two tiny language models
#
# The formula assumes every position is accepted with the same `α`, independently. Real models
# are not like that. Two character models, fitted in a moment from `tiny_corpus.txt` (a short
# text shipped with the course, about 1,800 characters): a **bigram** model as the draft (the
# next character given the previous one) and a **trigram** model as the target (given the two
# previous ones). Your `speculative_step` generates 200 steps with `K = 4`; we measure `α` where
# the target looked, the real acceptance, and tokens per target call, next to the formula.

# %%
if AUTOGRADING:
    print(say("not_measured"))
else:
    models = fit_char_models()
    generation = generate(speculative_step, models, prompt="the ", steps=200, k=4, seed=0)
    print(repr(generation.text[:240]))
    print("\n".join(generation_summary(generation, c=0.05)))

# %% [markdown] l10n="tiny-models-reading"
# The text is a trigram model's, so it only half makes sense. The measured tokens per call and the
# formula's differ by far less than the count's noise: the standard error printed after `±` is how
# much 200 steps' average wobbles from one seed to another. And the formula's assumption does not hold here: what changes
# from position to position is `β = Σ min(p, q)` for that prefix (Definition 3.1): after a space
# almost any letter may follow, inside a common word the two models agree. `α` is its average
# (Corollary 3.6), and the later positions are reached only after acceptances, where the models
# agree more. The formula is a guide for choosing `K`, not a promise.
#
# Nothing here is timed. The printed speed-up is the formula's for an assumed `c = 0.05`; for
# these two table look-ups the draft costs about as much as the target (`c` about 1), so this pair
# would buy no speed at all. Notebook 03 times a real pair.

# %% [markdown] l10n="hidden-checks"
# ## Hidden checks
#
# First, the diagnosis. Then, one behaviour each (1 point each): a bonus token when every draft
# is accepted; the bonus drawn from `target_probs[K]`; no bonus after a rejection; the correction
# drawn from the rejected row's exact normalised residual; no `torch.multinomial` before the
# coins; exactly one new token per step; an empty draft; a `torch.LongTensor` of tokens giving what
# a list gives, and a result that is a plain list of Python ints; unchanged
# inputs; and, with the real randomness under a fixed seed, the first token's distribution and
# the mean number of tokens per step. The last cell runs your function on about 200 generated
# drafts beside the rule, and shows the smallest one where they part.

# %% nbgrader={"grade": false, "grade_id": "diagnosis", "locked": true, "schema_version": 3, "solution": false, "task": false}
# When your notebook is graded, the grader writes here, in one line, which known mistake your
# speculative_step behaves like (or "none").

# %% nbgrader={"grade": true, "grade_id": "hidden_bonus_when_all_accepted", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: when all K drafts are accepted, one bonus token follows them.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.2, 0.5, 0.3], [0.4, 0.4, 0.2]], [[0.4, 0.3, 0.3], [0.1, 0.6, 0.3], [0.5, 0.2, 0.3]], [0, 1])
run = spec_checks.run_step(speculative_step, case, draws=[0.0], picks=[0])
spec_checks.check(spec_checks.tokens_problem(run, [0, 1, spec_checks.bonus_token(run, case, [0])]))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_bonus_row_k", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: the bonus token is drawn from target_probs[K], with one torch.multinomial call.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.1, 0.5, 0.4], [0.6, 0.2, 0.2], [0.3, 0.3, 0.4]],
                        [[0.2, 0.4, 0.4], [0.3, 0.4, 0.3], [0.2, 0.3, 0.5], [0.7, 0.2, 0.1]], [1, 0, 2])
run = spec_checks.run_step(speculative_step, case, draws=[0.1, 0.1], picks=[0])
spec_checks.check(spec_checks.bonus_problem(run, case))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_no_bonus_after_reject", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: after a rejection the correction is the only new token: no bonus.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.1, 0.5, 0.4], [0.6, 0.2, 0.2]], [[0.2, 0.4, 0.4], [0.3, 0.4, 0.3], [0.1, 0.1, 0.8]], [1, 0])
run = spec_checks.run_step(speculative_step, case, draws=[0.1, 0.9], picks=[1, 2])
spec_checks.check(spec_checks.appended_problem(run, case, [1], [1, 2], 2) or spec_checks.new_tokens_problem(run, 1))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_residual_exact", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: the correction's torch.multinomial call gets the rejected row's normalised max(0, p - q), to within 1e-6, for a rejection at position 2 and at position 1.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.4, 0.2, 0.2, 0.2], [0.1, 0.5, 0.2, 0.2], [0.1, 0.2, 0.6, 0.1]],
                        [[0.5, 0.1, 0.2, 0.2], [0.2, 0.6, 0.1, 0.1], [0.3, 0.1, 0.2, 0.4], [0.25, 0.25, 0.25, 0.25]],
                        [0, 1, 2])
run = spec_checks.run_step(speculative_step, case, draws=[0.9], picks=[3])
spec_checks.check(spec_checks.residual_problem(run, case, 2, 1))
case = spec_checks.Case([[0.1, 0.6, 0.2, 0.1, 0.0], [0.5, 0.1, 0.2, 0.1, 0.1]],
                        [[0.3, 0.3, 0.2, 0.1, 0.1], [0.1, 0.3, 0.1, 0.2, 0.3], [0.2, 0.2, 0.2, 0.2, 0.2]], [1, 0])
run = spec_checks.run_step(speculative_step, case, draws=[0.1, 0.9], picks=[4])
spec_checks.check(spec_checks.residual_problem(run, case, 1, 2))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_call_order", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: torch.multinomial is called only after the coins have decided.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.1, 0.5, 0.4], [0.6, 0.2, 0.2]], [[0.2, 0.4, 0.4], [0.3, 0.4, 0.3], [0.1, 0.1, 0.8]], [1, 0])
run = spec_checks.run_step(speculative_step, case, draws=[0.1, 0.1], picks=[2])
spec_checks.check(spec_checks.call_order_problem(run, 2))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_one_new_token", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: whatever happens, a step returns its accepted prefix plus exactly one new token, and calls torch.multinomial with num_samples, as torch requires.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.1, 0.5, 0.4], [0.6, 0.2, 0.2], [0.3, 0.3, 0.4]],
                        [[0.2, 0.4, 0.4], [0.3, 0.4, 0.3], [0.2, 0.3, 0.5], [0.7, 0.2, 0.1]], [1, 0, 2])
for draws, accepted in (([0.9], 0), ([0.1, 0.9], 1), ([0.1, 0.1], 3)):
    run = spec_checks.run_step(speculative_step, case, draws=draws, picks=[2, 1])
    spec_checks.check(spec_checks.num_samples_problem(run) or spec_checks.sampler_problem(run)
                      or spec_checks.new_tokens_problem(run, accepted, expected=[1, 0, 2]))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_empty_draft", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: an empty draft (K = 0) still gives one token, the bonus from target_probs[0].
### BEGIN HIDDEN TESTS
case = spec_checks.Case([], [[0.1, 0.2, 0.7]], [])
run = spec_checks.run_step(speculative_step, case, draws=[], picks=[2])
spec_checks.check(spec_checks.tokens_problem(run, [spec_checks.bonus_token(run, case, [2])]))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_long_tensor", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: draft_tokens as a torch.LongTensor gives what the same ids as a list give, and the result is a plain list of Python ints.
### BEGIN HIDDEN TESTS
rows = (spec_checks.VISIBLE_DRAFT, spec_checks.VISIBLE_TARGET + [spec_checks.VISIBLE_BONUS_ROW], [0, 1])
run = spec_checks.run_step(speculative_step, spec_checks.Case(*rows, tokens_as="tensor"), draws=[0.1], picks=[3])
spec_checks.check(spec_checks.tensor_problem(run, spec_checks.run_step(speculative_step, spec_checks.Case(*rows), draws=[0.1], picks=[3])))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_inputs_unchanged", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: draft_probs, target_probs and draft_tokens are left unchanged.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.0, 0.5, 0.5], [0.6, 0.2, 0.2]], [[0.2, 0.4, 0.4], [0.3, 0.4, 0.3], [0.0, 0.2, 0.8]], [1, 0])
changed = [spec_checks.run_step(speculative_step, case, draws=d, picks=[2]).inputs_changed for d in ([0.1, 0.9], [0.1, 0.1])]
assert not any(changed), spec_checks.say("n2_inputs_unchanged")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_first_token_distribution", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: with the real randomness (fixed seed) and drafts sampled from q, the first token follows p.
### BEGIN HIDDEN TESTS
q_row, p_row = [0.1, 0.5, 0.2, 0.2], [0.4, 0.1, 0.3, 0.2]
counts = [0, 0, 0, 0]
for token in range(4):  # each drafted token, run as often as q drafts it
    case = spec_checks.Case([q_row], [p_row, [0.25, 0.25, 0.25, 0.25]], [token])
    got, _ = spec_checks.sample_steps(speculative_step, case, trials=int(4000 * q_row[token]), seed=2410 + token)
    counts = [a + b for a, b in zip(counts, got)]
tv = spec_checks.tv_distance(counts, p_row)
assert tv < 0.035, spec_checks.say("n2_first_token", tv=tv)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_tokens_per_step", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: with the real randomness (fixed seed), the mean number of tokens per step matches its expectation.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.2, 0.8]] * 3, [[0.5, 0.5]] * 4, [1, 1, 1])  # each draft accepted with p/q = 0.625
_, mean_tokens = spec_checks.sample_steps(speculative_step, case, trials=4000, seed=2420)
want = 1 + 0.625 + 0.625 ** 2 + 0.625 ** 3
assert spec_checks.close(mean_tokens, want, 0.06), spec_checks.say("n2_tokens_per_step", mean=mean_tokens, want=want)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_generated_cases", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: on about 200 generated drafts, speculative_step does what the rule does: the same tokens, the same calls of torch.rand and torch.multinomial in the same order, each sample drawn from the same weights. The drafts have 0 to 4 positions over 3 to 5 token ids: ties, p == 0, q == 0, each followed by other positions, tokens drafted twice, lists and tensors, draws at the boundaries. A failure shows the smallest draft where they part, position by position.
### BEGIN HIDDEN TESTS
spec_checks.check_generated(speculative_step, mission=2)
### END HIDDEN TESTS
