# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] l10n="title"
# # Level 24 · Speculative sampling · Notebook 1: why it is exact, and the correction token
#
# Level 23 ended with the accepted prefix: `p >= q` accepts, `r < p/q` accepts, the first
# rejection stops. That alone does **not** produce the target model's distribution. Here you
# work out, with numbers, what is missing, and then write it: after the first rejection, one
# **correction token** sampled from the normalised residual `max(0, p - q)`.
#
# Two names, one algorithm. Leviathan et al. (2023) call the whole method *speculative
# decoding* and its accept-or-correct rule *speculative sampling* (their Section 2.3); Chen et
# al. (2023) call the whole method speculative sampling. Level 23 used the first name, this level
# uses the second. As Level 23 said, Chen et al. also swap the letters: their `p` is the draft and
# `q` the target, so code written after their paper (`max_fn(q - p)`) computes what this course
# writes `max(0, p - q)`.
#
# **This notebook is worth 15 points**: 3 for the visible test under your answer, and 12 for
# hidden checks that run when your work is graded.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false, "task": false}
import torch

import spec_checks
from spec_widgets import AUTOGRADING, LESSON_P, LESSON_Q, fit_line, quiz, say, show_exactness

# %% [markdown] l10n="guess-first"
# ## 🎯 Guess first

# %%
quiz("l24_guess")

# %% [markdown] l10n="idea"
# ## Today's idea
#
# **Once drafted, a token `x` is kept with probability `min(1, p(x)/q(x))`, so the chance that
# the draft proposes `x` *and* it is kept is `q(x) · min(1, p(x)/q(x)) = min(p(x), q(x))`. A
# rejection fills in exactly what is missing, `max(0, p - q)`, so every token ends up with
# probability `p(x)`.**

# %% [markdown] l10n="why-exact"
# ## Why it is exact, with numbers
#
# Take one drafted position over a vocabulary of 4 tokens. The target's row is `p`, the draft's
# row is `q`:
#
# | token x | 0 | 1 | 2 | 3 |
# |---|---|---|---|---|
# | p(x) (target) | 0.5 | 0.2 | 0.2 | 0.1 |
# | q(x) (draft) | 0.2 | 0.5 | 0.1 | 0.2 |
#
# 1. **Accepting.** The draft proposes `x` with probability `q(x)`, and Level 23 keeps it with
#    probability `min(1, p(x)/q(x))`. So token `x` comes out *as an accepted draft* with probability
#    `q(x) · min(1, p(x)/q(x)) = min(p(x), q(x))`.
# 2. **Rejecting.** Summed over all tokens, a draft is accepted with probability
#    `β = Σ min(p, q)`, so a rejection happens with probability `1 - β`. Since `p` sums to 1,
#    `1 - Σ min(p, q) = Σ (p - min(p, q)) = Σ max(0, p - q)`. (`β` belongs to this one pair of
#    rows, one prefix of the text: Leviathan et al. 2023 call it `β` (Definition 3.1) and keep `α`
#    for its average over prefixes, `α = E(β)`, the number the speed-up formula of notebook 2 uses.)
# 3. **The residual.** What each token still lacks is `p(x) - min(p(x), q(x)) = max(0, p(x) - q(x))`.
#    Normalise it to a distribution, `residual(x) = max(0, p(x) - q(x)) / Σ max(0, p - q)`, and
#    sample the correction from it. Then
#
# $$\min(p(x), q(x)) + P(\text{reject}) \cdot \text{residual}(x) = \min(p(x), q(x)) + \max(0, p(x) - q(x)) = p(x).$$
#
# The same numbers in torch:

# %%
p, q = torch.tensor(LESSON_P), torch.tensor(LESSON_Q)
accept = torch.minimum(p, q)
beta = accept.sum().item()
leftover = torch.clamp(p - q, min=0)
residual = leftover / leftover.sum()
rounded = lambda t: [round(x, 3) for x in t.tolist()]  # noqa: E731 (float32 prints 0.2 as 0.20000000298)
print(say("derivation", accept=rounded(accept), alpha=round(beta, 3), reject=round(1 - beta, 3),
          leftover=round(leftover.sum().item(), 3), residual=rounded(residual),
          total=rounded(accept + (1 - beta) * residual), p=rounded(p)))

# %% [markdown] l10n="bars"
# Each token, as two bars: on the left what accepting gives (green) with the correction's share
# stacked on top (orange), on the right the target `p` (blue). They are equally tall.

# %%
show_exactness()

# %% [markdown] l10n="multinomial"
# ## Sampling one token with `torch.multinomial`
#
# `torch.multinomial(weights, 1)` draws one index with probability proportional to `weights` and
# returns it as a tensor of shape `[1]`; `.item()` turns it into a Python int. It accepts weights
# that do not sum to 1, but this course asks you to pass the **normalised** residual: that is the
# distribution the derivation names, and the tests check the values you pass to within 1e-6.

# %%
torch.manual_seed(0)
draws = torch.multinomial(residual, 10_000, replacement=True)
one = torch.multinomial(residual, 1)  # one call, printed twice: as the tensor and as the int
print(say("one_draw", tensor=one, item=one.item()))
print(say("draw_shares", shares=rounded(torch.bincount(draws, minlength=4) / 10_000)))

# %% [markdown] l10n="zero-residual"
# ## When the residual is all zeros
#
# If `p == q` for every token, `max(0, p - q)` is all zeros, and normalising it divides 0 by 0.
# `torch.multinomial` refuses such weights:

# %%
zeros = torch.clamp(p - p, min=0)
for name, weights in ((say("all_zeros"), zeros), ("0 / 0", zeros / zeros.sum())):
    try:
        torch.multinomial(weights, 1)
    except RuntimeError as error:
        print(say("refused", name=name, error=spec_checks.refusal(str(error))))

# %% [markdown] l10n="never-zero"
# In exact arithmetic your code never gets there. `torch.rand` returns `r < 1`, and where `p >= q`
# the ratio `p/q` is at least 1, so the coin accepts (Level 23 skips it there anyway). It is
# `r < 1` that makes `p >= q` safe, not the strict `<` in `r < p/q`: with `<=` it would be just as
# safe. So a rejection needs `p(x) < q(x)` for the drafted token. If both rows sum to exactly 1,
# the tokens where `p > q` must make up for it: `Σ max(0, p - q) = Σ max(0, q - p) >= q(x) - p(x) > 0`,
# and a rejection always leaves a residual with positive mass.
#
# In float32 that can fail, because a softmax row sums to 1 only up to rounding. Take
# `p = [0.5, 0.5]` and `q = [0.5, 0.50000006]` (one float32 step above 0.5). Token 1 has
# `p/q = 0.99999988`, so a draw `r >= 0.99999988` rejects it (about once in 8 million draws, for
# float32 rows and the float32 draws of `torch.rand`), and then `max(0, p - q)` is all zeros: the
# cell below shows it. With Python floats (float64), rows that miss 1 by rounding miss it by about
# `1e-16`, and such a rejection comes about once in `10^16` draws: far rarer, still not never. The tests here never build such
# rows, so no guard is asked for. Production samplers do guard: vLLM's rejection sampler
# (`_get_recovered_probs`, v0.6.3) clamps `p - q` at the smallest positive float instead of 0,
# so an all-zero residual becomes uniform, a drift its own comment admits.

# %%
p32, q32 = torch.tensor([0.5, 0.5]), torch.tensor([0.5, 0.50000006])
print(say("float32_rows", q1=q32[1].item(), ratio=(p32[1] / q32[1]).item(),
          residual=torch.clamp(p32 - q32, min=0).tolist()))

# %% [markdown] l10n="check-yourself"
# ## ✅ Check yourself

# %%
quiz("l24_check")

# %% [markdown] l10n="problem"
# ## The problem: `verify_and_correct`
#
# The loop is your Level 23 `verify_draft`, written compactly: `p >= q` accepts without a draw,
# otherwise one coin `r < p / q`. Write what happens at the first rejection (**TODO**):
#
# 1. the residual of **row `i`**: `max(0, target_probs[i] - draft_probs[i])`, for instance with
#    `torch.clamp(..., min=0)`;
# 2. normalise it (divide by its sum);
# 3. draw **one** token with `torch.multinomial(residual, 1)`, append it as an int, and stop.
#
# `target_probs[i]` is a *view*: a row of the caller's tensor, not a copy. An in-place operation
# on it (`target_probs[i] -= draft_probs[i]`, `.clamp_(min=0)`, `/=`) changes the caller's
# tensor, and a hidden check looks for that. `torch.clamp(target_probs[i] - draft_probs[i], min=0)`
# builds a new tensor and leaves the inputs alone.
#
# When every draft is accepted, the function returns the prefix alone for now: notebook 2 adds
# the bonus token.
#
# If the test complains:
# - *drawn from p* or *from q*: sample from the residual, not from a model's row;
# - *without normalising*: divide the residual by its sum;
# - *max(0, q - p)*: it is target minus draft;
# - *used row j*: the rejection was at position `i`, so use row `i`;
# - *called before a coin*, or *called N times*: draw exactly once, after the rejection.
# - *sampled with numpy.random.choice* (or `random.choices`): the tests script `torch.multinomial`,
#   so sample with it.

# %% nbgrader={"grade": false, "grade_id": "verify_and_correct", "locked": false, "schema_version": 3, "solution": true, "task": false}
def verify_and_correct(draft_probs, target_probs, draft_tokens):
    """draft_probs, target_probs: [K, V]; draft_tokens: K token ids (a list or a torch.LongTensor).

    Returns the accepted prefix, plus one correction token after the first rejection.
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
        # TODO: rejected at position i. Sample one correction token from row i's normalised
        # residual max(0, p - q) with torch.multinomial, append it (as an int), and stop.
        ### BEGIN SOLUTION
        residual = torch.clamp(target_probs[i] - draft_probs[i], min=0)
        residual = residual / residual.sum()
        accepted_tokens.append(int(torch.multinomial(residual, 1).item()))
        break
        ### END SOLUTION
    return accepted_tokens


# %% [markdown] l10n="visible-test"
# ## Visible test
#
# The case: vocabulary of 4, two drafted tokens. Position 0 drafts token 0 with `p = 0.4 >= q = 0.3`
# (accepted, no draw); position 1 drafts token 1 with the rows above (`p/q = 0.4`). `torch.rand`
# is replaced by a stand-in that returns `0.7` (a rejection), and `torch.multinomial` by one that
# records what it is given and returns token `2`. Expected: `[0, 2]`, with one multinomial call on
# `[0.75, 0, 0.25, 0]`, after the coin.

# %% nbgrader={"grade": true, "grade_id": "test_visible", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
run = spec_checks.run_step(verify_and_correct, spec_checks.visible_case(), draws=[0.7], picks=[2])
problem = spec_checks.visible_problem_n1(run)
assert problem is None, spec_checks.readable(problem)
print(spec_checks.say("n1_passed"))

# %% [markdown] l10n="real-randomness"
# ## Check it with the real randomness
#
# Run your function 5,000 times on the one-position case of the table, with the drafted token
# fixed to token 1. `spec_checks.Case(draft_rows, target_rows, tokens)` takes the draft's rows (one
# per drafted token), the target's rows and the drafted tokens. Here both have one row, since
# `verify_and_correct` reads only rows `0..K-1`; in notebook 2 the target gets one row more, row
# `K`, its distribution for the token after the last draft (the bonus).
#
# Given that token 1 *was* drafted, it is kept with probability `min(1, p/q) = 0.2/0.5 = 0.4`. (It
# is not `min(p, q) = 0.2`: that is the chance that it is drafted *and* kept.) So token 1 should
# come out 40% of the time, and the other 60% should follow the residual `[0.75, 0, 0.25, 0]`: in
# all, `[0.45, 0.4, 0.15, 0]`. The shares are compared with the total-variation distance
# `½ Σ |share(x) - want(x)|` and Pearson's chi-square test. The test's *p-value* is the chance
# that a correct function would give counts at least this far from `want` by luck alone: near 0
# means the function is wrong, above about 0.01 is unremarkable. (It is a chance about the
# counts, not the target's probability `p`.)

# %%
if AUTOGRADING:
    print(say("not_measured"))
else:
    case = spec_checks.Case([LESSON_Q], [LESSON_P], [1])
    counts, _ = spec_checks.sample_steps(verify_and_correct, case, trials=5_000, seed=0)
    ratio = LESSON_P[1] / LESSON_Q[1]
    want = [(1 - ratio) * x for x in residual.tolist()]
    want[1] += ratio
    print(say("emitted_shares", shares=[round(c / sum(counts), 3) for c in counts], want=[round(w, 3) for w in want]))
    print(fit_line(counts, want))

# %% [markdown] l10n="not-p"
# This is not `p` itself, because here the drafted token is *given*. In a real step the draft
# samples it from `q`, and then the emitted token follows `p` exactly: notebook 2 runs that
# experiment 100,000 times, with the course's vectorised `simulate` (not your function).

# %% [markdown] l10n="hidden-checks"
# ## Hidden checks
#
# First, the diagnosis: one line that names the mistake your function makes, if it is one we
# know. The cells below it look empty here. When your notebook is graded they check, one
# behaviour each (1 point each): no `torch.multinomial` before the coin that rejects; exactly
# one correction token; the exact normalised residual of the rejected row; a rejection at
# position 0; the correction appended as the token `torch.multinomial` gave; nothing after the
# correction; no correction when every draft is accepted; no coin where `p >= q`; a
# `torch.LongTensor` of tokens giving what a list gives, and a result that is a plain list of
# Python ints; unchanged inputs; and, with the real randomness under a fixed seed, the
# distribution of the emitted token. The last cell runs your function on about 200 generated
# drafts beside the rule, and shows the smallest one where they part.

# %% nbgrader={"grade": false, "grade_id": "diagnosis", "locked": true, "schema_version": 3, "solution": false, "task": false}
# When your notebook is graded, the grader writes here, in one line, which known mistake your
# verify_and_correct behaves like (or "none").

# %% nbgrader={"grade": true, "grade_id": "hidden_no_multinomial_before_coin", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: torch.multinomial is not called before the coin that rejects.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.1, 0.6, 0.2, 0.1], [0.5, 0.1, 0.2, 0.2], [0.25, 0.25, 0.25, 0.25]],
                        [[0.3, 0.3, 0.2, 0.2], [0.1, 0.3, 0.2, 0.4], [0.7, 0.1, 0.1, 0.1]], [1, 0, 3])
run = spec_checks.run_step(verify_and_correct, case, draws=[0.1, 0.9], picks=[3])
spec_checks.check(spec_checks.call_order_problem(run, 2))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_one_correction", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: a rejection (at position 1 of 3, the only p < q position) draws its correction with exactly one torch.multinomial call, for one sample (num_samples given, as torch requires).
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.1, 0.6, 0.2, 0.1], [0.5, 0.1, 0.2, 0.2], [0.25, 0.25, 0.25, 0.25]],
                        [[0.3, 0.3, 0.2, 0.2], [0.1, 0.3, 0.2, 0.4], [0.7, 0.1, 0.1, 0.1]], [0, 0, 0])
run = spec_checks.run_step(verify_and_correct, case, draws=[0.9], picks=[1, 2])
spec_checks.check(spec_checks.one_call_problem(run))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_residual_exact", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: the correction's torch.multinomial call gets row i's normalised max(0, p - q), to within 1e-6, for a rejection at position 2 and at position 1.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.4, 0.2, 0.2, 0.2], [0.1, 0.5, 0.2, 0.2], [0.1, 0.2, 0.6, 0.1]],
                        [[0.5, 0.1, 0.2, 0.2], [0.2, 0.6, 0.1, 0.1], [0.3, 0.1, 0.2, 0.4]], [0, 1, 2])
run = spec_checks.run_step(verify_and_correct, case, draws=[0.9], picks=[3])
spec_checks.check(spec_checks.residual_problem(run, case, 2, 1))
case = spec_checks.Case([[0.1, 0.6, 0.2, 0.1, 0.0], [0.5, 0.1, 0.2, 0.1, 0.1]],
                        [[0.3, 0.3, 0.2, 0.1, 0.1], [0.1, 0.3, 0.1, 0.2, 0.3]], [1, 0])
run = spec_checks.run_step(verify_and_correct, case, draws=[0.1, 0.9], picks=[4])
spec_checks.check(spec_checks.residual_problem(run, case, 1, 2))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_reject_at_first", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: a rejection at position 0 returns the correction token first, and the rejected draft nowhere.
### BEGIN HIDDEN TESTS
# The rejected token's id is also a row of the draft, so a residual read from row token_id still reaches torch.multinomial: a row misread is the residual check's to find.
# The correction is token 0, the rejected position's index too, and a second call would hand out token 2, not the rejected one: appending i, or a second correction, is another check's to find.
case = spec_checks.Case([[0.2, 0.6, 0.2], [0.3, 0.3, 0.4]], [[0.5, 0.3, 0.2], [0.4, 0.2, 0.4]], [1, 2])
run = spec_checks.run_step(verify_and_correct, case, draws=[0.5], picks=[0, 2])
spec_checks.check(spec_checks.first_rejection_problem(run, case, [0, 2]))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_correction_appended", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: the token torch.multinomial returned is appended right after the accepted prefix.
### BEGIN HIDDEN TESTS
# The rejected token's id is also a row of the draft, so a residual read from row token_id still reaches torch.multinomial: a row misread is the residual check's to find.
case = spec_checks.Case([[0.2, 0.5, 0.3], [0.8, 0.1, 0.1]], [[0.3, 0.5, 0.2], [0.4, 0.25, 0.35]], [1, 0])
run = spec_checks.run_step(verify_and_correct, case, draws=[0.8], picks=[2])
spec_checks.check(spec_checks.appended_problem(run, case, [1], [2], 1))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_stops_after_correction", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: nothing after the correction token is verified: no further coin, no later draft.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.6, 0.2, 0.1, 0.1], [0.1, 0.8, 0.05, 0.05], [0.3, 0.3, 0.3, 0.1]],
                        [[0.2, 0.2, 0.1, 0.5], [0.1, 0.8, 0.05, 0.05], [0.3, 0.3, 0.3, 0.1]], [0, 1, 2])
run = spec_checks.run_step(verify_and_correct, case, draws=[0.9, 0.0], picks=[3])
spec_checks.check(spec_checks.after_correction_problem(run, case, 0, 1))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_all_accepted", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: when every draft is accepted there is no correction (notebook 2 adds the bonus).
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.2, 0.5, 0.3], [0.4, 0.4, 0.2]], [[0.4, 0.3, 0.3], [0.1, 0.6, 0.3]], [0, 1])
run = spec_checks.run_step(verify_and_correct, case, draws=[0.0], picks=[2])
spec_checks.check(spec_checks.tokens_problem(run, [0, 1]) or (
    spec_checks.say("called_without_reject", count=len(run.multinomials))
    if run.multinomials else None))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_no_coin_when_p_ge_q", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: positions with p >= q are accepted without a coin (Level 23's rule still holds).
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.5, 0.2, 0.3]],
                        [[0.4, 0.3, 0.3], [0.3, 0.3, 0.4], [0.2, 0.3, 0.5]], [0, 1, 0])
run = spec_checks.run_step(verify_and_correct, case, draws=[0.9], picks=[2])
spec_checks.check(run.problem or (None if run.rand_calls == 1 else
                                  spec_checks.say("coins_where_p_below_q", count=run.rand_calls)))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_long_tensor", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: draft_tokens as a torch.LongTensor gives what the same ids as a list give, and the result is a plain list of Python ints.
### BEGIN HIDDEN TESTS
case = spec_checks.Case(spec_checks.VISIBLE_DRAFT, spec_checks.VISIBLE_TARGET, [0, 1], tokens_as="tensor")
run = spec_checks.run_step(verify_and_correct, case, draws=[0.7], picks=[2])
listed = spec_checks.Case(spec_checks.VISIBLE_DRAFT, spec_checks.VISIBLE_TARGET, [0, 1])
spec_checks.check(spec_checks.tensor_problem(run, spec_checks.run_step(verify_and_correct, listed, draws=[0.7], picks=[2])))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_inputs_unchanged", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: draft_probs, target_probs and draft_tokens are left unchanged.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.1, 0.6, 0.3, 0.0], [0.5, 0.1, 0.2, 0.2]], [[0.3, 0.3, 0.4, 0.0], [0.1, 0.3, 0.2, 0.4]], [1, 0])
run = spec_checks.run_step(verify_and_correct, case, draws=[0.1, 0.9], picks=[3])
assert not run.inputs_changed, spec_checks.say("n1_inputs_unchanged")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_emitted_distribution", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: with the real randomness (fixed seed), the drafted token is kept with probability p/q, and otherwise the emitted token follows the residual: (p/q)·[the drafted token] + (1 - p/q)·residual.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([[0.1, 0.5, 0.2, 0.2]], [[0.4, 0.1, 0.3, 0.2]], [1])
counts, _ = spec_checks.sample_steps(verify_and_correct, case, trials=4000, seed=2401)
want = [0.6, 0.2, 0.2, 0.0]  # token 1 accepted with p/q = 0.2; else (0.8) the residual [0.75, 0, 0.25, 0]
tv = spec_checks.tv_distance(counts, want)
assert tv < 0.04, spec_checks.say("n1_distribution", tv=tv)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_generated_cases", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: on about 200 generated drafts, verify_and_correct does what the rule does: the same tokens, the same calls of torch.rand and torch.multinomial in the same order, each sample drawn from the same weights. The drafts have 0 to 4 positions over 3 to 5 token ids: ties, p == 0, q == 0, each followed by other positions, tokens drafted twice, lists and tensors, draws at the boundaries. A failure shows the smallest draft where they part, position by position.
### BEGIN HIDDEN TESTS
spec_checks.check_generated(verify_and_correct, mission=1)
### END HIDDEN TESTS
