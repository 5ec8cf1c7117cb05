"""Notebook 03's experiments on the real model pair (tiny_lm.py): drafting, generation, timing, alpha.

Plain functions, tested without a display (tests/test_tiny_lm.py); each notebook cell calls one:

    forward_times(target, positions)             -> {positions: seconds per call}
    draft(bigram, last, k, temperature)          -> (k draft tokens, their [k, V] rows)
    plain_generate(target, prompt, n, temperature, seed)            -> Generation
    speculative_generate(target, bigram, prompt, n, k, temperature, verify, seed) -> Generation
    measure_alpha(target, bigram, prompt, n, temperature, seed)     -> alpha = the mean of beta
"""

import statistics
import time

import torch

from spec_checks import expected_speedup, expected_tokens_per_call  # noqa: F401 (for the notebook)
from spec_widgets import AUTOGRADING  # noqa: F401 (the notebook skips its timing when grading)
from tiny_lm import Generation, KVCache, decode, encode, load_pair, plain_generate, rows, start  # noqa: F401

PROMPT = "def __init__(self, "


def speculative_step(draft_probs, target_probs, draft_tokens):
    """The reference speculative step (notebook 02's, written with tensors): accepted drafts + one new token.

    Draws K coins at once, so notebook 02's hidden checks (one coin per p < q position) would refuse it there.
    """
    ids = torch.as_tensor([int(t) for t in draft_tokens], dtype=torch.long)
    k = len(ids)
    p, q = target_probs[torch.arange(k), ids], draft_probs[torch.arange(k), ids]
    accepted = (p >= q) | (torch.rand(k) < p / q)
    n = k if bool(accepted.all()) else int((~accepted).nonzero()[0])
    if n < k:
        weights = torch.clamp(target_probs[n] - draft_probs[n], min=0)
        if not bool(weights.sum() > 0):  # exact arithmetic never gets here; float32 can (notebook 01)
            weights = target_probs[n]
    else:
        weights = target_probs[k]
    return ids[:n].tolist() + [int(torch.multinomial(weights, 1))]


def draft(bigram, last, k, temperature):
    """K tokens from the draft at ``temperature``, each after the previous one, and the rows they came from."""
    tokens, chosen = [], []
    for _ in range(k):
        row = rows(bigram.logits(last)[None], temperature)[0]
        last = int(torch.multinomial(row, 1))
        tokens.append(last)
        chosen.append(row)
    return tokens, torch.stack(chosen) if chosen else torch.zeros(0, 128)


class Counted:
    """The target, counting its calls and the positions of each (what the grader checks)."""

    def __init__(self, target):
        self.target, self.calls = target, []

    def forward_cached(self, ids, cache):
        ids = list(ids)
        self.calls.append(len(ids))
        return self.target.forward_cached(ids, cache)

    def __call__(self, *args, **kwargs):
        self.calls.append(-1)  # a training-style call: it ignores the cache
        return self.target(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.target, name)


def speculative_generate(target, bigram, prompt, n, k, temperature, verify, seed=0):
    """``n`` tokens by speculation: the bigram drafts ``k``, ``verify`` (the student's) checks them."""
    counted = Counted(target)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        cache, last = start(target, prompt)
        tokens, drafted, accepted, started = [], 0, 0, time.perf_counter()
        while len(tokens) < n:
            proposal, q = draft(bigram, last, k, temperature)
            new = verify(counted, cache, last, proposal, q, temperature)
            tokens += new
            drafted, accepted, last = drafted + k, accepted + len(new) - 1, new[-1]
        seconds = time.perf_counter() - started
    return Generation(tokens[:n], seconds, len(counted.calls), drafted, accepted, counted.calls)


def measure_alpha(target, bigram, prompt, n, temperature, seed=0):
    """alpha = E[beta], beta = sum over tokens of min(p, q) at each prefix of ``n`` tokens the target samples."""
    betas = []
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        cache, last = start(target, prompt)
        for _ in range(n):
            p = rows(target.forward_cached([last], cache), temperature)[0]
            q = rows(bigram.logits(last)[None], temperature)[0]
            betas.append(float(torch.minimum(p, q).sum()))
            last = int(torch.multinomial(p, 1))
    return sum(betas) / len(betas)


def forward_times(target, positions=(1, 5), context=64, repeats=60):
    """Median seconds of one target call over each number of new positions, after ``context`` cached ones."""
    cache, last = start(target, PROMPT * 4)
    cache.crop(context)
    ids = encode(PROMPT * 4)[context:]
    times = {}
    for _ in range(2):  # the second round is the one kept: the first warms up
        for n in positions:
            runs = []
            for _ in range(repeats):
                started = time.perf_counter()
                target.forward_cached(ids[:n], cache)
                runs.append(time.perf_counter() - started)
                cache.crop(context)
            times[n] = statistics.median(runs)
    return times


def draft_cost(target, bigram, repeats=200):
    """c: the seconds of one draft token (a bigram row and a sample) over one target call of one position."""
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        draft(bigram, 10, 1, 1.0)
        runs.append(time.perf_counter() - started)
    return statistics.median(runs) / forward_times(target, (1,))[1]


def report(target, bigram, verify, k, n, temperature, seed=0):
    """The measured c and alpha, the formula's tokens per call and speed-up with them, and the measured ones."""
    c = draft_cost(target, bigram)
    alpha = measure_alpha(target, bigram, PROMPT, n, temperature, seed)
    plain = plain_generate(target, PROMPT, n, temperature, seed)
    fast = speculative_generate(target, bigram, PROMPT, n, k, temperature, verify, seed)
    from spec_widgets import TEXT  # the edition's words
    lines = TEXT["pair_report"]
    return [lines[0].format(c=f"{c:.3f}", alpha=f"{alpha:.3f}", temperature=f"{temperature:g}", k=k),
            lines[1].format(tokens=f"{expected_tokens_per_call(alpha, k):.2f}", speedup=f"{expected_speedup(alpha, k, c):.2f}"),
            lines[2].format(tokens=f"{fast.tokens_per_call:.2f}", accepted=fast.accepted, drafted=fast.drafted,
                            plain=f"{plain.seconds:.3f}", fast=f"{fast.seconds:.3f}", n=n,
                            speedup=f"{plain.seconds / fast.seconds:.2f}"),
            lines[3].format(positions=f"{sum(fast.calls) / n:.2f}")]


# ------------------------------------------------------------------ the notebook's quiz and picture

def show_alphas(temperatures, alphas):
    """The measured alpha against the temperature, as one picture (nothing while grading)."""
    if AUTOGRADING:
        return
    import matplotlib.pyplot as plt
    from IPython.display import display
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.plot(temperatures, alphas, "o-")
    from spec_widgets import TEXT, use_fonts  # the edition's words and fonts
    use_fonts()
    xlabel, ylabel, title = TEXT["alpha_axes"]
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1.05)
    ax.set_title(title)
    display(fig)
    plt.close(fig)
