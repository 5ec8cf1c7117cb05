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
# You will see why checking `K` drafts costs little more than one call of the target, wire one
# speculative step to the real target, and time it against plain generation on this machine.
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
# 64 cached ones, 60 calls each. The two sizes take turns (1, 5, 5, 1, 1, 5, ...), so a moment when
# the machine is busy with something else falls on both alike; each line gives the fastest, the
# median and the slowest call, and the last compares each call of five with the call of one next
# to it.

# %%
if AUTOGRADING:
    print(say("not_timed"))
else:
    times = spec_pair.forward_times(target, positions=(1, 5))
    print("\n".join(spec_pair.forward_lines(times)))

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
# The test builds six states of one step, each on a fresh cache, and runs your `verify_drafts`
# once on each: three greedy ones (temperature 0: every row is one-hot at its most likely token)
# where every draft, all but the last, and none agree with the target; two at temperature 0.7, one
# whose coin `r` rejects a draft in the middle and one where every draft is accepted; and one with
# no drafts (`K = 0`) at temperature 1. Above temperature 0 the scripted `torch.multinomial` hands
# out a likely token that is not the most likely one, so a step that samples and a step that takes
# the argmax tell themselves apart. On each state it checks one target call of `K + 1`
# positions on the cache, the cache's length and contents after the step (the next call on it must
# give the text's rows), the tokens, and the row handed to `torch.multinomial`, all against the
# reference step on the same state.

# %% nbgrader={"grade": true, "grade_id": "test_visible", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
case = spec_checks.pair_case("visible")
run = spec_checks.pair_steps(verify_drafts, case)
problem = spec_checks.pair_problem(run, case)
assert problem is None, spec_checks.readable(problem)
print(spec_checks.say("n3_passed", steps=len(case.states)))

# %% [markdown] l10n="faster"
# ## The same text, faster?
#
# Greedy first (`T = 0`). Read the text before the timing: this target is tiny, and greedy decoding
# sends it into a loop after a few characters. Below are three prompts and their 120 greedy
# tokens; every prompt we tried ends the same way, in a run of spaces or underscores. Then plain
# generation (one call per token) and yours (`K = 4`) take turns, five runs each on the first
# prompt, timed with `time.perf_counter`.

# %%
if AUTOGRADING:
    print(say("not_timed_short"))
else:
    print("\n".join(spec_pair.greedy_lines(target, draft_model, verify_drafts, k=4, n=120, repeats=5)))

# %% [markdown] l10n="faster-reading"
# So the greedy speed-up is measured on a run of spaces, which the bigram predicts almost
# perfectly (after a space, a space): nearly every draft is accepted. That is a best case of a
# degenerate text, not what speculation gains on real code, and not a sign that greedy decoding
# suits this pair. The next run samples (`T = 1`), where the text stays varied.

# %% [markdown] l10n="sampling"
# Now sampling (temperature 1), measured against the formula of notebook 2. `c` is the time of
# one draft token over the time of one target call of one position, both timed inside the runs
# below; `α` is the mean of `β = Σ min(p, q)` over 800 prefixes of the target's own text at
# `T = 1` (Leviathan et al. 2023, Definition 3.1 and Corollary 3.6: `β` belongs to one prefix,
# `α` is its expectation). Plain and speculative generation take turns, five runs of 200 tokens
# each (run `i` samples with seed `i`), and the cell prints the medians and the spread.
#
# The formula (Theorem 3.8) rests on one condition, stated in the paper's Section 3.3: the target's
# `K + 1` evaluations of a step (the paper's `γ + 1`) run in parallel, in the wall time of one, and
# nothing but the draft and the target takes time. So a step costs `K·c + 1` target calls. The cell measures each part
# of a real step instead: the drafts, the call of `K + 1` positions, and the rest (the rows,
# `speculative_step`, the crop, the loop), in units of one plain token.
#
# Acceptance is counted over **checked** drafts: after the first rejection in a step, the later
# drafts were never looked at, so they count neither as accepted nor as rejected.

# %%
if AUTOGRADING:
    print(say("not_measured"))
else:
    print("\n".join(spec_pair.speed_report(target, draft_model, verify_drafts, k=4, n=200, temperature=1.0).lines()))

# %% [markdown] l10n="sampling-reading"
# **Where the gap comes from.** The formula charges a step `K·c + 1` target calls and a plain
# token one call. On this CPU neither is true: the call of `K + 1` positions costs more than a call
# of one (the line above gives the factor), the rest of a step (making rows, the coins, cropping
# the cache, Python's loop) costs a good part of a call, which `c` does not count, and a plain
# token costs a little more than its call. Put together, a step costs more plain tokens than
# `K·c + 1`, and the measured speed-up falls short of the formula's by about that ratio. The
# tokens per step agree with the formula much better: `α` is measured on the same kind of text.
# The spread between runs is large: each run samples a different text, and the machine may be busy
# with other work at any moment.

# %% [markdown] l10n="temperature"
# ## Temperature
#
# Both models sample at the same temperature (*standardised sampling*: both rows are
# `softmax(logits / T)`). At `T = 0` the rows are one-hot at each model's most likely token, so
# `β` is 1 where the two agree on it and 0 where they do not. Guess how `α` moves between `T = 1`
# and `T = 0`, then measure it on this pair.
#
# To see what the temperature does to the rows, the prefixes must stay the same: four texts of
# 200 tokens the target sampled at `T = 1` (seeds 0 to 3), and `β` at each of their 800 prefixes,
# at every `T`. Each line also gives `α` on the target's own text at that `T` (200 prefixes from
# the same prompt), which is what speculation meets there, and how much of that text is its
# commonest character:

# %%
if AUTOGRADING:
    print(say("not_measured"))
else:
    table = spec_pair.temperature_table(target, draft_model, temperatures=(1.5, 1.0, 0.7, 0.4, 0.0))
    for t, alpha, low, high, own, (char, share) in table:
        print(say("alpha_at", temperature=t, alpha=alpha, texts=4, low=low, high=high, own=own, char=repr(char),
                  share=share))
    spec_pair.show_alphas([row[0] for row in table], [row[1] for row in table], [row[4] for row in table])

# %% [markdown] l10n="temperature-reading"
# On the same prefixes, `α` **falls** as `T` falls on this pair, from about 0.5 at `T = 1` to about
# 0.35 at `T = 0`. At `T = 0`, `α` is simply the share of prefixes where the bigram's most likely
# character is the target's: the bigram sees one character, the target sees the whole text, and
# they agree at only about a third of these prefixes. At `T = 1` the rows keep their second and
# third choices, and `Σ min(p, q)` collects the probability both models give to the same tokens,
# even where their first choices differ. As `T` grows further, both rows flatten towards the same
# uniform row and `α` tends to 1 (`T = 1.5` is higher again).
#
# On the target's *own* text the greedy side looks the other way round: at `T <= 0.7` that text
# is mostly spaces, which the bigram predicts well, and `α` there is high. That measures the text,
# not the rows, and it is why the greedy run above speculates so well.
#
# The paper's pairs go the other way: `α` = 0.75 at `T = 0` against 0.62 at `T = 1` for a T5-small
# draft of T5-XXL on EnDe (Leviathan et al. 2023, Table 2). A draft that is a real, smaller
# language model agrees with the target's first choice far more often than a bigram does, and
# then sharper rows help; whether `α` rises or falls as `T` falls depends on the pair.

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
# reference's under the same scripted coin; and over 200 steps with real random draws, the first
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
spec_checks.check(spec_checks.pair_tokens_problem(spec_checks.pair_steps(verify_drafts, case), case))
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
spec_checks.check(spec_checks.pair_tokens_problem(run, case) or spec_checks.weights_problem(run, case))
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "hidden_sampling_distribution", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Hidden check: with real random draws, the first token of a step follows the target's row.
### BEGIN HIDDEN TESTS
case = spec_checks.pair_case("distribution")
spec_checks.check(spec_checks.samples_problem(spec_checks.pair_samples(verify_drafts, case), case))
### END HIDDEN TESTS
