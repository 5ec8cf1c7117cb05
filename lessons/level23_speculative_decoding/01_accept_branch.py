# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] l10n="title"
# # Level 23 · Speculative decoding · Mission 1: the accept branch
#
# A small **draft** model proposes `K` tokens in a row; a large **target** model checks all of
# them at once. This level is about that check, the *verification step*: which drafted tokens
# survive. In this notebook you write the first half of it.
#
# **This notebook is worth 16 points**: 3 for the visible test under your answer, and 13 for
# hidden checks that run when your work is graded.
#
# How to work: run the cells from top to bottom (**Run ▸ Run All Cells** is fine), answer the
# quizzes, then fill in the cell marked `YOUR CODE HERE`. Before you submit, use the
# **Validate** button in the toolbar: it runs the whole notebook like the grader does.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false, "task": false}
import torch

import spec_checks
from spec_widgets import legend, lesson_case, quiz, show_principle, visible_case

# %% [markdown] l10n="guess-first"
# ## 🎯 Guess first
#
# Make a guess before reading on. You can change your answer whenever you like, and a wrong
# choice tells you why.

# %%
quiz("m1_guess")

# %% [markdown] l10n="idea"
# ## Today's idea
#
# **Align the current position first. When p is not less than q, the draft token is always
# accepted.**
#
# For each draft position `i` we look at one number in each model: the probability of the
# token the draft actually proposed there. The target's is `p`, the draft's is `q`.
#
# Where they come from: at position `i`, each model turns its logits into a probability
# distribution over the vocabulary with a softmax. The draft model *sampled* its token from its
# own row, so `q` is the chance it had of proposing that token, and `p` is the chance the target
# model gives it. (Chen et al. (2023) use the letters the other way round: there `p` is the draft
# and `q` the target. This course follows Leviathan et al. (2023).)

# %% [markdown] l10n="what-you-need"
# ## What you need first
#
# - `draft_probs` and `target_probs` are float tensors of shape `[K, vocab_size]`.
#   **Row `i`** belongs to draft position `i`; **column `token_id`** holds that token's probability.
# - `draft_tokens` holds the `K` proposed token ids. In the visible test it is the Python list
#   `[10, 20, 30, 40]`, and a token id can index a tensor column directly.
# - `p` and `q` are read with `[i, token_id].item()`, which turns a one-element tensor into a
#   **Python float**. Comparing them is plain float comparison, not tensor broadcasting.
# - The acceptance probability is `min(1, p/q)`. When `p >= q` it is exactly 1, so **no random
#   number is needed**.
#
# Here are the visible test's tensors, so you can see those shapes for yourself:

# %%
case = visible_case()
draft_probs, target_probs, draft_tokens = case.draft_probs, case.target_probs, case.draft_tokens
print("draft_probs:", tuple(draft_probs.shape), " target_probs:", tuple(target_probs.shape))
print("draft_tokens:", draft_tokens)
print("target_probs[0, 10] is a", type(target_probs[0, 10]).__name__,
      "; .item() turns it into a", type(target_probs[0, 10].item()).__name__)

# %% [markdown] l10n="principle"
# ## The principle, as a picture
#
# Verification walks the positions in order. At position `i`:
#
# 1. take the drafted token: `token_id = draft_tokens[i]`;
# 2. read **the same column** in row `i` of both tensors: `p = target_probs[i, token_id]`,
#    `q = draft_probs[i, token_id]`;
# 3. compare them; when `p >= q`, append `token_id` to `accepted_tokens`.
#
# Only the two probabilities of *this candidate token* are compared, never the rows' maxima.
# If the target gives the token at least as much probability as the draft did, the draft did
# not over-recommend it, so nothing argues for throwing it away.
#
# Accepting is not the whole story, though. On its own, the accept rule hands out token `x` with
# probability `min(p, q)`, so tokens that the target likes more than the draft does (`p > q`)
# would come out too rarely. The full algorithm makes up for that after a rejection, by
# sampling one correction token from the leftover `max(0, p - q)` (normalised). Only the two
# together reproduce the target model exactly; this level builds the accept-and-stop part.
#
# The picture shows position 0 of the visible test: row 0 is outlined in both matrices, column
# 10 is dashed, and the red square is the one number we read from each.

# %%
show_principle(0)

# %% [markdown] l10n="legend-intro"
# The objects you will meet in the code:

# %%
legend()

# %% [markdown] l10n="worked-example"
# **Worked example.** At position 0, `p = 0.8` and `q = 0.5`. Since `p >= q`, the acceptance
# probability is `min(1, 0.8/0.5) = 1`: append token 10, and draw nothing.

# %% [markdown] l10n="pitfall"
# ## ⚠️ Pitfall: don't compare the wrong thing
#
# `target_probs[i].max()` answers *"which token does the target model like most?"*. The
# question here is a different one: *"can the drafted token be accepted?"*. At position 1 of
# the picture below, the target's favourite is token 7 (the ✗), but the draft proposed token
# 20, so `p` is read at column 20.

# %%
show_principle(1)

# %%
example = lesson_case()  # the picture's tensors
print("target_probs[1].max()  =", round(example.target_probs[1].max().item(), 2), " <- token 7: not the question")
print("target_probs[1, 20]    =", round(example.target_probs[1, 20].item(), 2), " <- p for the drafted token 20")
print("draft_probs[1, 20]     =", round(example.draft_probs[1, 20].item(), 2), " <- q: p < q, so not accepted for sure")

# %% [markdown] l10n="syntax-warm-up"
# ## Syntax warm-up: two reviewers
#
# Two reviewers scored two items at two rounds. In round `i`, the item under review is
# `chosen_items[i]`. Approve it when reviewer A scores it at least as high as reviewer B.
# Run the cell and check the result by hand.

# %%
reviewer_a = torch.tensor([[0.2, 0.8], [0.7, 0.3]])
reviewer_b = torch.tensor([[0.1, 0.9], [0.6, 0.4]])
chosen_items = [1, 0]
approved = []

for i, item_id in enumerate(chosen_items):
    a = reviewer_a[i, item_id].item()
    b = reviewer_b[i, item_id].item()
    if a >= b:
        approved.append(item_id)

print(approved)  # round 0: 0.8 < 0.9, no; round 1: 0.7 >= 0.6, approve item 0

# %% [markdown] l10n="from-warm-up"
# ## From the warm-up to TODO 1
#
# | warm-up | in `verify_draft` |
# |---|---|
# | `i` | the draft position: which **row** to read |
# | `item_id` | `token_id`: which **column** of that row |
# | `reviewer_a` | `target_probs`, giving `p` |
# | `reviewer_b` | `draft_probs`, giving `q` |
# | `approved.append(item_id)` | `accepted_tokens.append(token_id)` |

# %% [markdown] l10n="check-yourself"
# ## ✅ Check yourself

# %%
quiz("m1_check")

# %% [markdown] l10n="try-it"
# ## Try it: position 0 by hand
#
# Read `p` and `q` for visible-test position 0 (row 0, column 10). You should see `p = 0.8`
# and `q = 0.5`, so token 10 is accepted unconditionally. Change `i` to 1 or 2 and look again.

# %%
i = 0
token_id = draft_tokens[i]
p = target_probs[i, token_id].item()
q = draft_probs[i, token_id].item()
print(f"row {i}, column {token_id}: p = {p:.1f}, q = {q:.1f}, p >= q: {p >= q}")

# %% [markdown] l10n="todo-1"
# ## TODO 1: the accept branch
#
# Complete `verify_draft` below. The loop and the reading of `p` and `q` are given. Your part:
# **when `p >= q`, append `token_id` to `accepted_tokens`, then `continue`**, without drawing
# any random number. `continue` jumps to the next position; without it, the loop falls through
# to the given `break` and stops after the first accepted token.
#
# For now, any position with `p < q` stops the loop (the given `break`). Mission 2 replaces that
# stop with a coin flip.
#
# If the test complains:
# - *position 0 was not accepted*: check the direction of your comparison (`p >= q` accepts), and
#   the row and column you read;
# - *token 20 came back, although position 1 has p = 0.4 < q = 0.5*: append only when `p >= q`, and only
#   after comparing;
# - *you returned only [10]* on the second case: after appending, `continue` to the next position;
# - *stopping at position 2, where p == q*: `p >= q` includes equality;
# - *a wrong token in `accepted_tokens`* (values that are not drafted token ids):
#   check that you append `token_id`, not `i` or `p`;
# - *torch.rand was called*: Mission 1 never draws.

# %% nbgrader={"grade": false, "grade_id": "verify_draft_m1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def verify_draft(draft_probs, target_probs, draft_tokens):
    """Return the accepted prefix of draft_tokens, as a list of token ids (Mission 1 form)."""
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)  # works for a list or a torch.LongTensor
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        # TODO 1: accept when p >= q (no random number), then go on to the next position.
        ### BEGIN SOLUTION
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        ### END SOLUTION
        # p < q: Mission 2 replaces this stop with a coin flip.
        break
    return accepted_tokens


# %% [markdown] l10n="visible-test"
# ## Visible test
#
# Three cases, with `torch.rand` replaced by a stand-in that records every call (calling it fails
# the test):
#
# - the table's case, `draft_tokens = [10, 20, 30, 40]`: position 0 has `p = 0.8 >= q = 0.5` and
#   is accepted with no draw; position 1 has `p < q`, so this Mission 1 version stops there.
#   Expected: `[10]`.
# - a second case where positions 0, 1 and 2 all have `p >= q` (the last is `p == q`) and
#   position 3 has `p < q`. Expected: `[10, 20, 30]`.
# - a third whose three positions all have `p >= q`, the last one included: every token comes back.
#   Expected: `[10, 20, 30]`.

# %% nbgrader={"grade": true, "grade_id": "test_visible_m1", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
run = spec_checks.run_verify(verify_draft, visible_case(), draws=[])
multi = spec_checks.run_verify(verify_draft, spec_checks.multi_accept_case(), draws=[])
accepting = spec_checks.run_verify(verify_draft, spec_checks.accept_case(), draws=[])
problem = spec_checks.visible_problem_m1(run, multi, accepting)
assert problem is None, spec_checks.readable(problem)
print(spec_checks.say("m1_passed"))

# %% [markdown] l10n="hidden-checks"
# ## Hidden checks
#
# First, the diagnosis: one line that names the mistake your function makes, if it is one we
# know. The cells below it look empty here. When your notebook is graded they check, one behaviour
# each (1 point each): `p == q`; every position accepted; stopping at the first `p < q`;
# `q == 0`; an empty draft; `draft_tokens` as a `torch.LongTensor`; reading row `i`; appending
# token ids; never calling `torch.rand`; leaving the inputs unchanged; returning a plain list;
# and a draft that is not the visible one. The last cell runs your function on about 250
# generated drafts beside the rule, and shows the smallest one where they part.

# %% nbgrader={"grade": false, "grade_id": "diagnosis", "locked": true, "schema_version": 3, "solution": false, "task": false}
# When your notebook is graded, the grader writes here, in one line, which known mistake your
# verify_draft behaves like (or "none").

# %% nbgrader={"grade": true, "grade_id": "hidden_equal_accepts", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: p == q is accepted, and p just below q (0.4995 against 0.5) is not.
### BEGIN HIDDEN TESTS
# A last position (p < q) after the ones this check decides, which it does not compare: a loop that stops one position early is the loop checks' to find.
run = spec_checks.run_verify(verify_draft, spec_checks.Case([(5, 0.5, 0.5), (9, 0.1, 0.5)]), draws=[])
spec_checks.check(run, [5], upto=1)
near = spec_checks.run_verify(verify_draft, spec_checks.Case([(5, 0.4995, 0.5), (9, 0.1, 0.5)]), draws=[])
spec_checks.check(near, [], upto=1)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_all_accept", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: every position has p >= q, so every token comes back.
### BEGIN HIDDEN TESTS
# Each other row holds, at these tokens' columns, values with p >= q too: a row misread is the rows check's to find.
run = spec_checks.run_verify(verify_draft, spec_checks.Case([(3, 0.6, 0.2), (8, 0.7, 0.5), (1, 0.9, 0.1)], decoys=[(0, 8, 0.3), (0, 1, 0.3), (1, 3, 0.3), (2, 8, 0.3)]), draws=[])
spec_checks.check(run, [3, 8, 1])
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_stops_first_reject", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: the loop stops at the first position with p < q.
### BEGIN HIDDEN TESTS
run = spec_checks.run_verify(verify_draft, spec_checks.Case([(4, 0.7, 0.3), (9, 0.2, 0.6), (2, 0.9, 0.1)]), draws=[])
spec_checks.check(run, [4])
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_q_zero", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: q == 0 (with p > 0) is accepted and raises nothing.
### BEGIN HIDDEN TESTS
# A last position (p < q) after the ones this check decides, which it does not compare: a loop that stops one position early is the loop checks' to find.
run = spec_checks.run_verify(verify_draft, spec_checks.Case([(7, 0.3, 0.0), (9, 0.1, 0.5)]), draws=[])
spec_checks.check(run, [7], upto=1)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_empty_draft", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: an empty draft returns [].
### BEGIN HIDDEN TESTS
run = spec_checks.run_verify(verify_draft, spec_checks.Case([]), draws=[])
spec_checks.check(run, [])
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_long_tensor", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: draft_tokens as a torch.LongTensor gives what the same ids as a list give.
### BEGIN HIDDEN TESTS
positions = [(12, 0.6, 0.3), (25, 0.6, 0.2), (33, 0.1, 0.5)]
as_tensor = spec_checks.run_verify(verify_draft, spec_checks.Case(positions, tokens_as="tensor"), draws=[])
as_list = spec_checks.run_verify(verify_draft, spec_checks.Case(positions), draws=[])
spec_checks.check_tensor(as_tensor, as_list, plain=False)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_rows_aligned", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: position i reads row i, at column token_id.
# Two drafts with the same p and q at each position's own row and column, other values elsewhere: the same positions are kept in both.
### BEGIN HIDDEN TESTS
case = spec_checks.Case([(12, 0.6, 0.3), (20, 0.3, 0.5), (33, 0.2, 0.5)], decoys=[(1, 12, 0.9)])
twin = spec_checks.Case([(12, 0.6, 0.3), (12, 0.3, 0.5), (33, 0.2, 0.5)], decoys=[(1, 5, 0.7), (2, 7, 0.9)])
spec_checks.check_twin(spec_checks.run_verify(verify_draft, case, draws=[]),
                       spec_checks.run_verify(verify_draft, twin, draws=[]))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_appends_token_ids", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: accepted_tokens holds token ids (not probabilities, not positions), a token drafted twice kept twice.
### BEGIN HIDDEN TESTS
# Each other row holds, at these tokens' columns, values with p >= q too: a row misread is the rows check's to find.
run = spec_checks.run_verify(verify_draft, spec_checks.Case([(17, 0.9, 0.4), (3, 0.5, 0.1), (17, 0.8, 0.3), (9, 0.1, 0.5)], decoys=[(0, 3, 0.2), (1, 17, 0.2), (2, 3, 0.2)]), draws=[])
spec_checks.check_ids(run, [17, 3, 17], upto=3)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_no_draw", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: Mission 1 never calls torch.rand.
### BEGIN HIDDEN TESTS
run = spec_checks.run_verify(verify_draft, spec_checks.Case([(2, 0.9, 0.1), (4, 0.3, 0.3), (6, 0.1, 0.2)]), draws=[0.0, 0.0, 0.0])
spec_checks.check_calls(run, 0)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_inputs_unchanged", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: the input tensors and the token list are left unchanged.
### BEGIN HIDDEN TESTS
run = spec_checks.run_verify(verify_draft, spec_checks.Case([(11, 0.7, 0.2), (22, 0.5, 0.4), (5, 0.1, 0.3), (7, 0.5, 0.0), (9, 0.0, 0.5)]), draws=[])
spec_checks.check_unchanged(run)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_plain_list", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: the result is a plain Python list of ints, also when draft_tokens is a torch.LongTensor.
### BEGIN HIDDEN TESTS
for tokens_as in ("list", "tensor"):
    run = spec_checks.run_verify(verify_draft, spec_checks.Case([(9, 0.8, 0.2), (19, 0.6, 0.6)], tokens_as=tokens_as), draws=[])
    spec_checks.check_plain(run)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_other_draft", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: nothing depends on the visible draft's ids: renamed, they give the same result, renamed.
### BEGIN HIDDEN TESTS
visible = spec_checks.run_verify(verify_draft, spec_checks.visible_case(), draws=[])
renamed = spec_checks.run_verify(verify_draft, spec_checks.relabelled(spec_checks.visible_case(), [44, 2, 49, 7], vocab=50), draws=[])
spec_checks.check_relabelled(renamed, visible)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_generated_cases", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: on about 250 generated drafts, verify_draft does what the rule does: the same tokens, the same number of draws. The drafts have 0 to 5 positions over 2 to 6 token ids: ties, p == 0, q == 0, each followed by other positions, tokens drafted twice, lists and tensors, draws at the boundaries. A failure shows the smallest draft where they part, position by position.
### BEGIN HIDDEN TESTS
spec_checks.check_generated(verify_draft, mission=1)
### END HIDDEN TESTS
