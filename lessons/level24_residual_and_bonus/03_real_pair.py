# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] l10n="title"
# # Level 24 · Speculative sampling · Notebook 3: a real model pair, timed
#
# Notebooks 1 and 2 worked on probability tables. Here the rows come from real models: a small
# causal **transformer** as the target (3 layers, 644,000 parameters, with a KV cache) and a
# **bigram** table as the draft (the next character given only the previous one). Both read and
# write characters, and both learned from Python's own standard library (`tiny_lm.py` trains
# them; the weights ship with the course in `tiny_lm.pt`).
#
# You will see why checking `K` drafts costs about one call of the target, wire one speculative
# step to the real target, and time it against plain generation on this machine.
#
# **This notebook is worth 9 points**: 3 for the visible test under your answer, and 6 for hidden
# checks that run when your work is graded.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false, "task": false}
import time

import torch

import spec_checks
import spec_pair
from spec_pair import AUTOGRADING, decode, encode, load_pair, rows, speculative_step
from spec_widgets import quiz, say

torch.set_num_threads(1)  # for a model this small, a second thread costs more in coordination than it saves
target, draft_model = load_pair()
print(say("pair_sizes", parameters=f"{sum(p.numel() for p in target.parameters()):,}",
          rows=draft_model.log_probs.shape[0], columns=draft_model.log_probs.shape[1]))

# %% [markdown] l10n="checking-is-free"
# ## Why checking is nearly free
#
# Generating one token means one call of the target: it reads every weight once to compute one
# row. Giving it `K + 1` positions in the same call reads the same weights once and computes
# `K + 1` rows. On the accelerators of the papers, a call for one token is limited by moving the
# weights from memory, not by arithmetic, so the extra rows cost little. On this CPU, with a
# model this small, most of a call's time is a fixed cost of its own (Python and PyTorch setting
# up each layer's operations); the effect is the same. Time it: one position against five, after
# 64 cached ones (the median of 60 calls each).

# %%
if AUTOGRADING:
    print(say("not_timed"))
else:
    times = spec_pair.forward_times(target, positions=(1, 5))
    print(say("call_1", ms=times[1] * 1e3))
    print(say("call_5", ms=times[5] * 1e3, ratio=times[5] / times[1]))

# %% [markdown] l10n="the-price"
# **The price.** Nothing is free in arithmetic: every drafted position is computed by the target,
# also the ones that are then rejected and thrown away. Leviathan et al. 2023 count it (Section
# 3.4, Theorem 3.11): speculation trades more total computation for fewer serial calls. With `K`
# drafts and `E` tokens per call, the target computes `(K + 1) / E` positions for each token it
# emits instead of one.
#
# **When it does not pay.** The spare time only exists while a call is limited by something
# other than arithmetic. Hardware that is busy computing already (a big batch of requests served
# together, or a machine whose arithmetic is the bottleneck) pays for every extra row, and the
# rejected positions become pure waste.

# %% [markdown] l10n="one-step"
# ## One step on the real target
#
# The target keeps a **KV cache**: the keys and values of every position it has seen, so a call
# computes only the new positions. `cache.length` is how many it holds; `cache.crop(n)` keeps the
# first `n`. In a step, the cache holds everything before `last_token`, the newest token, which
# the target has not seen yet.
#
# One call on `[last_token] + draft_tokens` (`K + 1` positions) gives `K + 1` rows of logits: row
# `i` is the target's next-token distribution after `last_token` and the first `i` drafts, so
# rows `0..K-1` check the drafts and row `K` is the bonus row. `rows(logits, temperature)` turns
# them into probabilities.
#
# `speculative_step` here is the course's reference version of notebook 2's function (imported
# from `spec_pair.py`): your own lives in notebook 2, and each notebook runs in its own kernel.
#
# After the step, the cache holds `K + 1` new positions, but only `last_token` and the accepted
# drafts belong to the text: the rejected drafts' keys and values must go, and the step's new
# token (the correction or the bonus) is not in it yet. So keep `start + len(tokens)` positions,
# where `start` was the length before the call.

# %% [markdown] l10n="task"
# ## Your task: `verify_drafts`
#
# **TODO**: make **one** call `target.forward_cached([last_token] + draft_tokens, cache)`, turn
# the rows into probabilities at `temperature`, call `speculative_step`, roll the cache back to
# `start + len(tokens)`, and return the tokens.
#
# Use the course's `rows` and `speculative_step`: the tests hand every `torch.rand` one scripted
# coin `r` and every `torch.multinomial` one scripted token, so that your step can be compared,
# token for token, with the reference step on the same state, at temperature 0 and above it.
#
# If the test complains:
# - *target calls*: one call per step, with all `K + 1` positions (not one call per draft, not on a
#   copy of the cache);
# - *the cache grew by*: it was not rolled back, or kept one position too many or too few;
# - *the row passed to torch.multinomial*: the target's rows are not `rows(logits, temperature)`
#   (the temperature applied twice, or not at all), or `draft_probs` was changed.

# %% nbgrader={"grade": false, "grade_id": "verify_drafts", "locked": false, "schema_version": 3, "solution": true, "task": false}
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    """One speculative step with the real target.

    cache:        the target's KV cache, holding every position before last_token
    last_token:   the newest token of the text (not yet in the cache)
    draft_tokens: the K tokens the draft proposed after it; draft_probs: their [K, V] rows
    Returns the accepted drafts plus one new token, as speculative_step does; afterwards the
    cache holds the positions of last_token and the accepted drafts, and no others.
    """
    start = cache.length
    ### BEGIN SOLUTION
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)  # one call: K + 1 rows
    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
    cache.crop(start + len(tokens))  # last_token and the accepted drafts stay; rejected ones go
    ### END SOLUTION
    return tokens


# %% [markdown] l10n="visible-test"
# ## Visible test
#
# The test builds four states of one step, each on a fresh cache, and runs your `verify_drafts`
# once on each: three greedy ones (temperature 0: every row is one-hot at its most likely token)
# where every draft, all but the last, and none agree with the target, and one at temperature 0.7
# whose coin `r` rejects a draft in the middle. On each it checks one target call of `K + 1`
# positions on the cache, the cache's length and contents after the step (the next call on it must
# give the text's rows), the tokens, and the row handed to `torch.multinomial`, all against the
# reference step on the same state.

# %% nbgrader={"grade": true, "grade_id": "test_visible", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
case = spec_checks.pair_case("visible")
run = spec_checks.pair_steps(verify_drafts, case)
problem = spec_checks.pair_problem(run, case)
assert problem is None, problem
print(spec_checks.say("n3_passed", steps=len(case.states)))

# %% [markdown] l10n="faster"
# ## The same text, faster?
#
# Greedy first: plain generation (one call per token) against yours (`K = 4`), 120 tokens each,
# timed with `time.perf_counter`.

# %%
if AUTOGRADING:
    print(say("not_timed_short"))
else:
    plain = spec_pair.plain_generate(target, spec_pair.PROMPT, 120, temperature=0)
    fast = spec_pair.speculative_generate(target, draft_model, spec_pair.PROMPT, 120, 4, 0, verify_drafts)
    print(repr(plain.text))
    print(say("same_tokens", same=fast.tokens == plain.tokens))
    print(say("plain_vs_fast", plain=plain.seconds, plain_calls=plain.target_calls, fast=fast.seconds,
              fast_calls=fast.target_calls, per_call=fast.tokens_per_call))

# %% [markdown] l10n="sampling"
# Now sampling (temperature 1), measured against the formula of notebook 2. `c` is the time of
# one draft token over the time of one target call; `α` is the mean over the target's own text
# of `β = Σ min(p, q)` (Leviathan et al. 2023, Definition 3.1 and Corollary 3.6: `β` belongs to
# one prefix, `α` is its expectation). The measured speed-up is whatever this machine gives,
# printed as it is.

# %%
if AUTOGRADING:
    print(say("not_measured"))
else:
    print("\n".join(spec_pair.report(target, draft_model, verify_drafts, k=4, n=200, temperature=1.0)))

# %% [markdown] l10n="temperature"
# ## Temperature
#
# Both models sample at the same temperature (*standardised sampling*: both rows are
# `softmax(logits / T)`). At `T = 0` the rows are one-hot at each model's most likely token, so
# `β` is 1 where the two agree on it and 0 where they do not. Guess how `α` moves between `T = 1`
# and `T = 0`, then measure it on this pair (200 positions of the target's own text at each
# temperature; `α` is the mean of `β` over them):

# %%
if AUTOGRADING:
    print(say("not_measured"))
else:
    temperatures = (1.5, 1.0, 0.7, 0.4, 0.0)
    alphas = [spec_pair.measure_alpha(target, draft_model, spec_pair.PROMPT, 200, t) for t in temperatures]
    print("\n".join(say("alpha_at", temperature=t, alpha=a) for t, a in zip(temperatures, alphas)))
    spec_pair.show_alphas(temperatures, alphas)

# %% [markdown] l10n="temperature-reading"
# From `T = 1` down to `0`, `α` rises on this pair: sharper rows put their mass on the token both
# models like best, where they agree. Above `T = 1` it need not keep falling: as `T` grows, both
# rows flatten towards the same uniform row, and `α` tends to 1 again (on this pair `T = 1.5`
# measured higher than `T = 1`). A higher `α` buys more tokens per call, so greedy decoding
# speculates better than sampling, as in the paper's own numbers (Leviathan et al. 2023, Table 2:
# `α` = 0.75 at `T = 0` against 0.62 at `T = 1`, T5-small drafting for T5-XXL on EnDe).

# %% [markdown] l10n="check-yourself"
# ## ✅ Check yourself

# %%
quiz("l24_pair_check")

# %% [markdown] l10n="hidden-checks"
# ## Hidden checks
#
# First, the diagnosis. Then one behaviour each (1 point each), on states of one step built by the
# grader from other prompts, each on a fresh cache: one target call of `K + 1` positions on the
# cache; after the step the cache holds the text's positions and no others (its length and its
# contents), also when only the last draft is rejected; greedy states give the reference step's
# tokens, also when every draft agrees; with `K = 0` (no drafts) a step is one ordinary decoding
# step; at temperatures 0.7, 1 and 1.3 the tokens and the row handed to `torch.multinomial` are the
# reference's under the same scripted coin; and over 300 steps with real random draws, the first
# token follows the target's row.

# %% nbgrader={"grade": false, "grade_id": "diagnosis", "locked": true, "schema_version": 3, "solution": false, "task": false}
# When your notebook is graded, the grader writes here, in one line, which known mistake your
# verify_drafts behaves like (or "none").

# %% nbgrader={"grade": true, "grade_id": "hidden_one_call_per_step", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: one target call per step, forward_cached on the cache it was given, over [last_token] + draft_tokens.
### BEGIN HIDDEN TESTS
case = spec_checks.pair_case("calls")
spec_checks.check(spec_checks.calls_problem(spec_checks.pair_steps(verify_drafts, case), case))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_cache_rolled_back", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: after each step the cache holds last_token and the drafts kept, no more and no fewer.
### BEGIN HIDDEN TESTS
case = spec_checks.pair_case("cache")
spec_checks.check(spec_checks.cache_problem(spec_checks.pair_steps(verify_drafts, case), case))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_greedy_equal", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: on greedy states the step's tokens, token for token.
### BEGIN HIDDEN TESTS
case = spec_checks.pair_case("greedy")
spec_checks.check(spec_checks.tokens_problem(spec_checks.pair_steps(verify_drafts, case), case))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_no_drafts", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: with K = 0 each step is one call of one position, and one new token.
### BEGIN HIDDEN TESTS
case = spec_checks.pair_case("no_drafts")
spec_checks.check(spec_checks.pair_problem(spec_checks.pair_steps(verify_drafts, case), case))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_sampling_steps", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: at temperatures above 0, the step's tokens and the row handed to torch.multinomial.
### BEGIN HIDDEN TESTS
case = spec_checks.pair_case("sampling")
run = spec_checks.pair_steps(verify_drafts, case)
spec_checks.check(spec_checks.tokens_problem(run, case) or spec_checks.weights_problem(run, case))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_sampling_distribution", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: with real random draws, the first token of a step follows the target's row.
### BEGIN HIDDEN TESTS
case = spec_checks.pair_case("distribution")
spec_checks.check(spec_checks.samples_problem(spec_checks.pair_samples(verify_drafts, case), case))
### END HIDDEN TESTS
