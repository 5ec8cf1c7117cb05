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
# Then you measure it: 100,000 steps against the target's distribution, and the speed-up it buys.
#
# **This notebook is worth 14 points**: 3 for the visible test under your answer, and 11 for
# hidden checks that run when your work is graded.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false, "task": false}
import time

import torch

import spec_checks
from spec_widgets import (LESSON_P, LESSON_Q, experiment_summary, fit_char_models, generate, generation_summary,
                          quiz, say, show_histograms, simulate, speedup_widget)

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

# %% nbgrader={"grade": false, "grade_id": "speculative_step", "locked": false, "schema_version": 3, "solution": true, "task": false}
def speculative_step(draft_probs, target_probs, draft_tokens):
    """One step of speculative sampling.

    draft_probs:  [K, V]     the draft's distribution at each drafted position
    target_probs: [K + 1, V] the target's distribution at the same positions, then row K after the last draft
    draft_tokens: K token ids (a list or a torch.LongTensor)
    Returns the accepted prefix plus exactly one new token (a correction or the bonus), as a list of ints.
    """
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
assert problem is None, problem
print(spec_checks.say("n2_passed"))

# %% [markdown] l10n="experiment"
# ## 100,000 steps: does the first token follow the target?
#
# A real step samples the drafts from `q`. `simulate` runs 100,000 steps of the algorithm at once
# (vectorised: each run's draws are independent, and every draw your loop would make is made),
# with `K = 3` positions that all use the table's rows `p` and `q`. It also runs
# **accept-only-then-stop**: Level 23's prefix without the correction, where a rejected first
# draft emits nothing and the next step drafts again.

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
# (token 1, token 3) and is far from `p` (p-value 0).
#
# Now your own `speculative_step`, a Python loop, so 4,000 runs rather than 100,000. Each
# drafted token `x` gets its share `q(x)` of the runs, as if the draft had sampled it:

# %%
counts = [0, 0, 0, 0]
for token, share in enumerate(LESSON_Q):
    case = spec_checks.Case([LESSON_Q], [LESSON_P, LESSON_P], [token])
    got, _ = spec_checks.sample_steps(speculative_step, case, trials=int(4_000 * share), seed=token)
    counts = [a + b for a, b in zip(counts, got)]
stat, p_value = spec_checks.chi_square(counts, LESSON_P)
print(say("first_token_shares", shares=[round(c / sum(counts), 3) for c in counts], p=LESSON_P))
print(say("tv_chi_square", tv=spec_checks.tv_distance(counts, LESSON_P), p_value=p_value))

# %% [markdown] l10n="what-it-buys"
# ## What it buys
#
# If every drafted position is accepted with probability `α = Σ min(p, q)`, independently
# (the i.i.d. assumption of Leviathan et al. 2023), a step returns `1 + α + α² + ... + α^K` tokens
# on average, for **one** call of the target:
#
# $$E[\text{tokens per target call}] = \frac{1 - \alpha^{K+1}}{1 - \alpha}.$$
#
# The simulation above used `K = 3` and `α = 0.6`:

# %%
alpha = sim.alpha
print(say("formula_and_simulation", alpha=alpha, k=K, formula=spec_checks.expected_tokens_per_call(alpha, K),
          simulation=sim.tokens_per_call))

# %% [markdown] l10n="draft-cost"
# Drafting is not free. If one draft call costs `c` target calls, a step costs `K·c + 1`, so
#
# $$\text{speed-up} = \frac{1 - \alpha^{K+1}}{(1 - \alpha)(K c + 1)}.$$
#
# Move the sliders: a better draft (larger `α`) pays for more drafts; a costlier draft (larger
# `c`) wants fewer. The green ring marks the best `K`. The buttons set `α` to values the paper
# measured for T5-XXL with a T5-small draft (0.75 and 0.62) and `c = 0.02` (this course's
# assumption for a draft that small), and pick the best `K`: about 3.2× and 2.3×, the paper's
# headline range ("2X-3X" for T5-XXL).

# %%
speedup_widget()

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
models = fit_char_models()
generation = generate(speculative_step, models, prompt="the ", steps=200, k=4, seed=0)
print(repr(generation.text[:240]))
print("\n".join(generation_summary(generation, c=0.05)))

# %% [markdown] l10n="tiny-models-reading"
# The text is a trigram model's, so it only half makes sense. The numbers are close to the
# formula but not equal: `α` changes from position to position (after a space almost any letter
# may follow; inside a common word the two models agree), and the later positions are reached
# only after acceptances, where the models agree more. The formula is a guide for choosing `K`,
# not a promise.

# %% [markdown] l10n="check-yourself"
# ## ✅ Check yourself

# %%
quiz("l24_speed_check")

# %% [markdown] l10n="hidden-checks"
# ## Hidden checks
#
# First, the diagnosis. Then, one behaviour each (1 point each): a bonus token when every draft
# is accepted; the bonus drawn from `target_probs[K]`; no bonus after a rejection; the correction
# drawn from the rejected row's exact normalised residual; no `torch.multinomial` before the
# coins; exactly one new token per step; an empty draft; a `torch.LongTensor` of tokens; unchanged
# inputs; and, with the real randomness under a fixed seed, the first token's distribution and
# the mean number of tokens per step.

# %% nbgrader={"grade": false, "grade_id": "diagnosis", "locked": true, "schema_version": 3, "solution": false, "task": false}
# When your notebook is graded, the grader writes here, in one line, which known mistake your
# speculative_step behaves like (or "none").

# %% nbgrader={"grade": true, "grade_id": "hidden_bonus_when_all_accepted", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: when all K drafts are accepted, one bonus token follows them.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.2, 0.5, 0.3], [0.4, 0.4, 0.2]], [[0.4, 0.3, 0.3], [0.1, 0.6, 0.3], [0.5, 0.2, 0.3]], [0, 1])
run = spec_checks.run_step(speculative_step, case, draws=[0.0], picks=[2])
spec_checks.check(spec_checks.tokens_problem(run, [0, 1, 2]),
                  hint="bonus_when_all_accepted")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_bonus_row_k", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: the bonus token is drawn from target_probs[K], with one torch.multinomial call after every coin.
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
spec_checks.check(spec_checks.tokens_problem(run, [1, 1]) or spec_checks.one_new_token_problem(run, 1),
                  hint="no_bonus_after_reject")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_residual_exact", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: the correction is drawn from the rejected row's normalised max(0, p - q), to within 1e-6.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.1, 0.6, 0.2, 0.1, 0.0], [0.5, 0.1, 0.2, 0.1, 0.1]],
                        [[0.3, 0.3, 0.2, 0.1, 0.1], [0.1, 0.3, 0.1, 0.2, 0.3], [0.2, 0.2, 0.2, 0.2, 0.2]], [1, 0])
run = spec_checks.run_step(speculative_step, case, draws=[0.1, 0.9], picks=[4])
multis = run.multinomials
spec_checks.check(run.problem or (None if multis else spec_checks.say("never_called_after_reject"))
                  or spec_checks.distribution_problem(multis[0][1], case, 1))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_call_order", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: torch.multinomial is called only after the coins have decided.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.1, 0.5, 0.4], [0.6, 0.2, 0.2]], [[0.2, 0.4, 0.4], [0.3, 0.4, 0.3], [0.1, 0.1, 0.8]], [1, 0])
run = spec_checks.run_step(speculative_step, case, draws=[0.1, 0.1], picks=[2])
spec_checks.check(spec_checks.call_order_problem(run, 2))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_one_new_token", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: whatever happens, a step returns its accepted prefix plus exactly one new token.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.1, 0.5, 0.4], [0.6, 0.2, 0.2], [0.3, 0.3, 0.4]],
                        [[0.2, 0.4, 0.4], [0.3, 0.4, 0.3], [0.2, 0.3, 0.5], [0.7, 0.2, 0.1]], [1, 0, 2])
for draws, accepted in (([0.9], 0), ([0.1, 0.9], 1), ([0.1, 0.1], 3)):
    run = spec_checks.run_step(speculative_step, case, draws=draws, picks=[2, 1])
    spec_checks.check(spec_checks.one_new_token_problem(run, accepted))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_empty_draft", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: an empty draft (K = 0) still gives one token, the bonus from target_probs[0].
### BEGIN HIDDEN TESTS
case = spec_checks.Case([], [[0.1, 0.2, 0.7]], [])
run = spec_checks.run_step(speculative_step, case, draws=[], picks=[2])
spec_checks.check(spec_checks.tokens_problem(run, [2]) or spec_checks.bonus_problem(run, case),
                  hint="empty_draft_bonus")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_long_tensor", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: draft_tokens given as a torch.LongTensor.
### BEGIN HIDDEN TESTS
case = spec_checks.Case(spec_checks.VISIBLE_DRAFT, spec_checks.VISIBLE_TARGET + [spec_checks.VISIBLE_BONUS_ROW], [0, 1],
                        tokens_as="tensor")
run = spec_checks.run_step(speculative_step, case, draws=[0.1], picks=[3])
spec_checks.check(spec_checks.tokens_problem(run, [0, 1, 3]),
                  hint="n2_long_tensor")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_inputs_unchanged", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: draft_probs, target_probs and draft_tokens are left unchanged.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.1, 0.5, 0.4], [0.6, 0.2, 0.2]], [[0.2, 0.4, 0.4], [0.3, 0.4, 0.3], [0.1, 0.1, 0.8]], [1, 0])
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
