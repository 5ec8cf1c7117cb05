# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] l10n="title"
# # Level 23 · Speculative decoding · Mission 2: reject and break
#
# In Mission 1 every position with `p < q` simply stopped the loop. That throws away good
# tokens: the draft was over-confident, but the token may still be fine. Now you finish the
# accepted-prefix part of verification, and then write the official problem: `verify_draft`,
# which returns the drafted tokens that survive.
#
# Where this sits in the full algorithm (Leviathan et al. 2023, Algorithm 1): after the first
# rejection, speculative sampling draws one *correction* token from the residual
# `max(0, p - q)` (normalised); when all `K` drafts are accepted, it draws one *bonus* token from
# the target's next row. Those two tokens make the output follow the target model exactly, and
# they are not part of this level: here you write the prefix that comes before them.
#
# **This notebook is worth 20 points**: 3 for the visible test under your answer, and 17 for
# hidden checks that run when your work is graded.
#
# Run the cells from top to bottom, play with the number line, fill in the cell marked
# `YOUR CODE HERE`, and press **Validate** before you submit.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false, "task": false}
import torch

import spec_checks
from spec_widgets import number_line, quiz, show_replay, visible_case

# %% [markdown] l10n="guess-first"
# ## 🎯 Guess first

# %%
quiz("m2_guess")

# %% [markdown] l10n="idea"
# ## Today's idea
#
# **When p < q, flip one coin. Once a token is rejected, every later draft stops.**

# %% [markdown] l10n="what-you-need"
# ## What you need first
#
# - Only `p < q` enters the random branch. There the acceptance probability `p/q` lies strictly
#   between 0 and 1 (for `p > 0`).
# - `torch.rand(1)` returns a tensor of shape `[1]`, uniform on `[0, 1)`; `.item()` turns it into
#   a Python float you can compare with `p / q`.
# - Accepting continues the loop with the next draft token.
# - Rejecting must `break`, not `continue`: each later draft token was generated on top of the
#   prefix that contained this one. Once this token is rejected, that context no longer holds.

# %%
r = torch.rand(1)
print("torch.rand(1) ->", r, " shape", tuple(r.shape), " .item() ->", r.item(), type(r.item()).__name__)

# %% [markdown] l10n="principle"
# ## The principle, on a number line
#
# When the draft is more confident than the target (`p < q`), the token is kept only with
# probability `p/q`. Draw `r` uniformly from `[0, 1)`: the token is accepted when `r` lands in
# the green interval `[0, p/q)`, and rejected otherwise. Since `r` is uniform, it lands there
# with probability exactly `p/q`.
#
# - **Position 1**: `p/q = 0.8`, `r = 0.5`. Inside the interval: append token 20 and continue.
# - **Position 2**: `p/q ≈ 0.11`, `r = 0.9`. Outside: reject and `break`. Position 3 is never verified.
#
# Use the buttons for the two positions, then move the sliders. What happens when `p >= q`?
# Where is the boundary `r = p/q` itself?

# %%
number_line()

# %% [markdown] l10n="number-line-answers"
# <details><summary><b>Answers</b> (try the sliders first)</summary>
#
# - **When `p >= q`**, `p/q` is at least 1, so the acceptance probability `min(1, p/q)` is 1: the
#   green interval covers all of `[0, 1)` and every `r` would accept. That is why the code does
#   not draw at all there.
# - **The boundary `r = p/q`** belongs to the reject zone: the interval is `[0, p/q)`, open at
#   `p/q`, so `r == p/q` rejects. In code that is the strict `r < p / q`.
#
# </details>

# %% [markdown] l10n="three-steps"
# ## Three steps in the `p < q` branch
#
# 1. `r = torch.rand(1).item()`, only in this branch;
# 2. `if r < p / q:` append the current `token_id`;
# 3. `else: break`, which ends the whole loop.
#
# Why strict `<`? Leviathan et al. reject only when `r > p/q`, so they accept at `r = p/q`. With
# `torch.rand` on `[0, 1)` both rules accept with probability `p/q`, so both are exact. This
# course's contract is the strict one, and the tests hold you to it: it also makes `p == 0`
# reject even when `r` happens to be `0.0`.

# %% [markdown] l10n="test-contract"
# ## The test contract
#
# The visible test replaces `torch.rand` with a stand-in that returns `0.5` on its first call
# and `0.9` on its second. So the **number and order of the draws** are part of what is tested:
# position 0 has `p >= q` and must not use up a draw. If it did, position 1 would get `0.9`
# instead of `0.5` and be rejected.
#
# Here is the visible test replayed one position at a time, with the scripted draws:

# %%
show_replay()

# %% [markdown] l10n="syntax-warm-up"
# ## Syntax warm-up: levels with a pass rate
#
# A player tries levels in order. Level `n` is passed when its draw is below its pass rate;
# the first failure ends the run. Run the cell: it prints `[0]`.

# %%
pass_rates = [0.8, 0.2, 0.9]
draws = [0.5, 0.7, 0.1]
passed = []

for level, (rate, draw) in enumerate(zip(pass_rates, draws)):
    if draw < rate:
        passed.append(level)
    else:
        break

print(passed)  # [0]: level 1 fails (0.7 >= 0.2), so level 2 is never tried

# %% [markdown] l10n="from-warm-up"
# ## From the warm-up to TODO 2
#
# | warm-up | in `verify_draft` |
# |---|---|
# | `rate` | `p / q`, this token's acceptance probability |
# | `draw` | `r = torch.rand(1).item()` |
# | `passed.append(level)` | `accepted_tokens.append(token_id)` |
# | `break` | stop verifying after a rejection |
# | `passed` | `accepted_tokens`, in prefix order |

# %% [markdown] l10n="check-yourself"
# ## ✅ Check yourself

# %%
quiz("m2_check")

# %% [markdown] l10n="try-it"
# ## Try it: walk the table
#
# | position | token | p | q | p/q | r | outcome |
# |---|---|---|---|---|---|---|
# | 0 | 10 | 0.8 | 0.5 | ≥ 1 | no draw | accept |
# | 1 | 20 | 0.4 | 0.5 | 0.8 | 0.5 | accept, continue |
# | 2 | 30 | 0.1 | 0.9 | ≈ 0.11 | 0.9 | reject, break |
# | 3 | 40 | 0.6 | 0.3 | | never reached | not verified |
#
# Position 0 is always accepted, position 1 is accepted with `r = 0.5`, position 2 is rejected
# with `r = 0.9`: the result is exactly `[10, 20]`. Position 3 has `p >= q` on purpose: code that
# uses `continue` would accept it without a third draw and return `[10, 20, 40]`.
#
# The cell below prints each position's numbers from the tensors themselves. Decide every outcome
# yourself (which draw each position uses, accept or reject, where it stops), then check against the table.

# %%
case = visible_case()
for i, token_id in enumerate(case.draft_tokens):
    p, q = case.target_probs[i, token_id].item(), case.draft_probs[i, token_id].item()
    print(f"position {i}: token {token_id}, p = {p:.2f}, q = {q:.2f}, p/q = {p / q:.2f}")
print("the scripted draws, in the order they are used: ", [0.5, 0.9], sep="")

# %% [markdown] l10n="official-problem"
# ## The official problem: `verify_draft`
#
# Write the whole function. It has two TODOs:
#
# - **TODO 1** (from Mission 1): when `p >= q`, append `token_id` and go on, with no draw;
# - **TODO 2**: otherwise draw `r = torch.rand(1).item()` once; append `token_id` if `r < p / q`,
#   and `break` if not.
#
# If the test complains:
# - *token 30 came back*: check the ratio (`p / q`, not `q / p`) and the comparison (`r < p / q`);
# - *token 40 came back after token 30 was rejected*: you used `continue` where a rejection needs `break`;
# - *position 0 used up the first draw*: draw only where `p < q`;
# - *position 1 was rejected with r = 0.5*: check the comparison and that you read row `i`;
# - *with 1 draw(s)*: position 2 (`p < q`) must be verified too, with its own draw.
# - *drew r with random.random* (or numpy, or `uniform_`): the tests hand their scripted draws to `torch.rand`,
#   so draw `r = torch.rand(1).item()`; the other checks give that generator the same values, so it costs once.

# %% nbgrader={"grade": false, "grade_id": "verify_draft", "locked": false, "schema_version": 3, "solution": true, "task": false}
def verify_draft(draft_probs, target_probs, draft_tokens):
    """Return the accepted prefix of draft_tokens, as a list of token ids."""
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)  # works for a list or a torch.LongTensor
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        # TODO 1: when p >= q, accept token_id without a random draw, and go on.
        ### BEGIN SOLUTION
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        ### END SOLUTION
        # TODO 2: here p < q. Draw r once; accept if r < p / q, otherwise stop the loop.
        ### BEGIN SOLUTION
        r = torch.rand(1).item()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            break
        ### END SOLUTION
    return accepted_tokens


# %% [markdown] l10n="replay-yours"
# ## Replay your own function
#
# The same replay, now also running **your** `verify_draft` with the scripted draws. It shows
# which position used each draw, and where that differs from the expected ones. This is the
# quickest way to debug the order of the draws.

# %%
show_replay(verify_draft)

# %% [markdown] l10n="visible-test"
# ## Visible test
#
# The table's case, with `torch.rand` replaced by a stand-in that returns `0.5`, then `0.9`.
# The result must be exactly `[10, 20]`, with exactly two draws. A second case has `p >= q` at
# all three positions (tokens 10, 20, 30): all three come back, with no draw.

# %% nbgrader={"grade": true, "grade_id": "test_visible", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
run = spec_checks.run_verify(verify_draft, visible_case(), draws=[0.5, 0.9])
accepting = spec_checks.run_verify(verify_draft, spec_checks.accept_case(), draws=[0.5, 0.5, 0.5])
problem = spec_checks.visible_problem_m2(run, accepting)
assert problem is None, spec_checks.readable(problem)
print(spec_checks.say("m2_passed"))

# %% [markdown] l10n="mean-length"
# ## How many tokens does one step keep?
#
# Position `i` survives only if every position up to it was accepted, and position `j` is
# accepted with probability `min(1, p_j/q_j)`. So the expected number of accepted tokens is
#
# $$E[\text{accepted}] = \sum_{i} \prod_{j \le i} \min(1, p_j/q_j).$$
#
# For the visible case that is `1 + 0.8 + 0.8·0.11 + 0.8·0.11·1 ≈ 1.98`. One of the hidden checks
# runs your function many times with the real `torch.rand` and compares its average with this
# number. Check it yourself: the cell runs your `verify_draft` 2,000 times with the real
# `torch.rand` (and stops it after a few seconds if it never returns).

# %%
case = visible_case()
_, mean_length = spec_checks.sample_runs(verify_draft, case, trials=2000, seed=0)
print(f"average accepted: {mean_length:.2f}   expected: {spec_checks.expected_length(case):.2f}")

# %% [markdown] l10n="hidden-checks"
# ## Hidden checks
#
# First, the diagnosis: one line that names the mistake your function makes, if it is one we
# know. The cells below it look empty here. When your notebook is graded they check, one behaviour each
# (1 point each): one draw per `p < q` position, in order; reading row `i` at column `token_id`; no draw after a rejection; a single
# value per draw; `r == p/q` rejects; `p == 0` rejects; `break`, not `continue`; a successful
# coin appends; an all-accepted draft; `q == 0`; an empty draft; a `torch.LongTensor` of tokens;
# unchanged inputs; a draft that is not the visible one; and, with the real `torch.rand` under a
# fixed seed, the acceptance rate and the mean accepted length. The last cell runs your
# function on about 250 generated drafts beside the rule, and shows the smallest one where they part.

# %% nbgrader={"grade": false, "grade_id": "diagnosis", "locked": true, "schema_version": 3, "solution": false, "task": false}
# When your notebook is graded, the grader writes here, in one line, which known mistake your
# verify_draft behaves like (or "none").

# %% nbgrader={"grade": true, "grade_id": "hidden_draw_order", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: one draw per p < q position, in position order; none for p >= q (p == q included).
### BEGIN HIDDEN TESTS
# The draws reject at position 3; position 4 (p >= q) is past the end of a right answer's loop.
case = spec_checks.Case([(3, 0.2, 0.4), (5, 0.7, 0.3), (6, 0.5, 0.5), (8, 0.3, 0.6), (9, 0.9, 0.1)])
spec_checks.check_draw_order(spec_checks.run_verify(verify_draft, case, draws=[0.1, 0.9]), case)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_rows_aligned", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: position i reads row i, at column token_id.
# Token 12 is accepted outright at position 0; at position 1 (p < q in row 1, not in row 0; the row's largest value is elsewhere) it is not kept without a draw.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([(12, 0.6, 0.3), (12, 0.2, 0.5)], decoys=[(1, 5, 0.7)])
run = spec_checks.run_verify(verify_draft, case, draws=[0.9, 0.9, 0.9])
spec_checks.check_not_outright(run, case, 1)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_no_draw_after_reject", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: nothing is drawn after the function's own first rejection (the first drafted token it leaves out).
### BEGIN HIDDEN TESTS
case = spec_checks.Case([(3, 0.1, 0.5), (5, 0.1, 0.5), (8, 0.1, 0.5)])
spec_checks.check_stops(spec_checks.run_verify(verify_draft, case, draws=[0.9, 0.0, 0.0]), case)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_single_value_draws", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: each draw asks for a single value.
### BEGIN HIDDEN TESTS
run = spec_checks.run_verify(verify_draft, spec_checks.Case([(3, 0.2, 0.4), (5, 0.3, 0.6), (8, 0.3, 0.6)]), draws=[0.1, 0.2, 0.3])
spec_checks.check_shapes(run)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_strict_boundary", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: r == p/q rejects (the comparison is strict).
### BEGIN HIDDEN TESTS
case = spec_checks.Case([(6, 0.25, 0.5)])
run = spec_checks.run_verify(verify_draft, case, draws=[case.p_over_q(0)] * 2)
spec_checks.check(run, [])
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_p_zero_rejects", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: p == 0 rejects, even when r is 0.
### BEGIN HIDDEN TESTS
run = spec_checks.run_verify(verify_draft, spec_checks.Case([(6, 0.0, 0.5)]), draws=[0.0, 0.0])
spec_checks.check(run, [])
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_break_not_continue", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: a rejection stops the loop (break, not continue): no token after the function's own first rejection comes back.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([(1, 0.9, 0.3), (2, 0.1, 0.8), (3, 0.9, 0.2)])
spec_checks.check_stops(spec_checks.run_verify(verify_draft, case, draws=[0.95, 0.95, 0.95]), case, draws=False)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_coin_success_appends", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: a successful coin flip appends the drafted token id (token 7 is the target's most likely here).
### BEGIN HIDDEN TESTS
# A last position (p < q) after the ones this check decides, which it does not compare: a loop that stops one position early is the loop checks' to find.
run = spec_checks.run_verify(verify_draft, spec_checks.Case([(4, 0.3, 0.6), (9, 0.1, 0.5)], decoys=[(0, 7, 0.5)]), draws=[0.2, 0.9])
spec_checks.check_ids(run, [4], upto=1)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_all_accepted", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: a draft whose every position has p >= q comes back whole, a token drafted twice kept twice, and p just below q (0.4995 against 0.5) is not accepted outright: it costs a draw.
### BEGIN HIDDEN TESTS
run = spec_checks.run_verify(verify_draft, spec_checks.Case([(4, 0.6, 0.3), (9, 0.8, 0.4), (6, 0.5, 0.5), (4, 0.9, 0.2)]), draws=[0.1] * 4)
spec_checks.check(run, [4, 9, 6, 4])
near_case = spec_checks.Case([(5, 0.4995, 0.5)])
near = spec_checks.run_verify(verify_draft, near_case, draws=[0.9995] * 2)
spec_checks.check_not_outright(near, near_case, 0)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_q_zero", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: q == 0 (with p > 0) is accepted and raises nothing.
### BEGIN HIDDEN TESTS
# A last position (p < q) after the ones this check decides, which it does not compare: a loop that stops one position early is the loop checks' to find.
run = spec_checks.run_verify(verify_draft, spec_checks.Case([(7, 0.3, 0.0), (9, 0.1, 0.5)]), draws=[0.99])
spec_checks.check(run, [7], upto=1)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_empty_draft", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: an empty draft returns [].
### BEGIN HIDDEN TESTS
run = spec_checks.run_verify(verify_draft, spec_checks.Case([]), draws=[])
spec_checks.check(run, [])
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_long_tensor", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: draft_tokens as a torch.LongTensor gives what the same ids as a list give, and the result is a plain list of Python ints.
### BEGIN HIDDEN TESTS
positions = [(10, 0.8, 0.5), (20, 0.4, 0.5), (30, 0.1, 0.9), (40, 0.6, 0.3)]
as_tensor = spec_checks.run_verify(verify_draft, spec_checks.Case(positions, tokens_as="tensor"), draws=[0.5, 0.9])
as_list = spec_checks.run_verify(verify_draft, spec_checks.Case(positions), draws=[0.5, 0.9])
spec_checks.check_tensor(as_tensor, as_list)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_inputs_unchanged", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: the input tensors and the token list are left unchanged.
### BEGIN HIDDEN TESTS
run = spec_checks.run_verify(verify_draft, spec_checks.Case([(11, 0.7, 0.2), (22, 0.2, 0.4), (9, 0.1, 0.5), (7, 0.5, 0.0)]), draws=[0.1, 0.9, 0.9])
spec_checks.check_unchanged(run)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_other_draft", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: nothing depends on the visible draft's ids: renamed, they give the same result, renamed.
### BEGIN HIDDEN TESTS
visible = spec_checks.run_verify(verify_draft, spec_checks.visible_case(), draws=[0.5, 0.9])
renamed = spec_checks.run_verify(verify_draft, spec_checks.relabelled(spec_checks.visible_case(), [44, 2, 49, 7], vocab=50), draws=[0.5, 0.9])
spec_checks.check_relabelled(renamed, visible)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_acceptance_rate", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: with the real torch.rand (fixed seed), a p < q position is accepted about p/q of the time.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([(5, 0.3, 0.75)])
spec_checks.check_rate(spec_checks.sample_runs(verify_draft, case, trials=4000, seed=2313), case, trials=4000)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_mean_length", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: with the real torch.rand (fixed seed), the mean accepted length matches its exact expectation.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([(1, 0.3, 0.6), (2, 0.5, 0.5), (3, 0.2, 0.8), (4, 0.9, 0.1)])
spec_checks.check_mean(spec_checks.sample_runs(verify_draft, case, trials=4000, seed=2314), case, trials=4000)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_generated_cases", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: on about 250 generated drafts, verify_draft does what the rule does: the same tokens, the same number of draws. The drafts have 0 to 5 positions over 2 to 6 token ids: ties, p == 0, q == 0, each followed by other positions, tokens drafted twice, lists and tensors, draws at the boundaries. A failure shows the smallest draft where they part, position by position.
### BEGIN HIDDEN TESTS
spec_checks.check_generated(verify_draft, mission=2)
### END HIDDEN TESTS
