"""Notebook 03's experiments on the real model pair (tiny_lm.py): drafting, generation, timing, alpha.

Plain functions, tested without a display (tests/test_tiny_lm.py); each notebook cell calls one:

    interleave(jobs, repeats)                    -> {name: [seconds of each round]}, the jobs taking turns
    spread(values)                               -> (min, median, max)
    forward_times(target, positions)             -> {positions: [seconds of each call]}, interleaved
    draft(bigram, last, k, temperature)          -> (k draft tokens, their [k, V] rows)
    plain_generate(target, prompt, n, temperature, seed)            -> Generation
    speculative_generate(target, bigram, prompt, n, k, temperature, verify, seed) -> Run
    fixed_texts(target, count, n)                -> the texts whose prefixes alpha is measured on, at every T
    alpha_on_texts(target, bigram, texts, temperatures) -> {T: [alpha on each text]}
    own_text(target, bigram, prompt, n, temperature, seed) -> (alpha on the target's own text at T, the text)
    greedy_run / speed_report                    -> what the timing cells print
"""

import statistics
import time
from dataclasses import dataclass, field

import torch

from spec_checks import expected_speedup, expected_tokens_per_call  # noqa: F401 (for the notebook)
from spec_widgets import AUTOGRADING  # noqa: F401 (the notebook skips its timing when grading)
from tiny_lm import Generation, KVCache, decode, encode, load_pair, plain_generate, rows, start  # noqa: F401

PROMPT = "def __init__(self, "
GREEDY_PROMPTS = (PROMPT, "for i in range(", "    return ")  # every greedy run shown is from one of these


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
    """The target, counting its calls, the positions of each (what the grader checks) and the seconds each took."""

    def __init__(self, target):
        self.target, self.calls, self.seconds = target, [], []

    def forward_cached(self, ids, cache):
        ids = list(ids)
        self.calls.append(len(ids))
        started = time.perf_counter()
        try:
            return self.target.forward_cached(ids, cache)
        finally:
            self.seconds.append(time.perf_counter() - started)

    def __call__(self, *args, **kwargs):
        self.calls.append(-1)  # a training-style call: it ignores the cache
        return self.target(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.target, name)


@dataclass
class Run(Generation):
    """A generation with what its steps did and where its time went (plain generation: one step per token)."""
    emitted: int = 0  # tokens the steps returned: n, or up to k more (the last step may overshoot)
    steps: int = 0
    checked: int = 0  # drafts the target's coin looked at: up to and including the first rejected one of each step
    draft_seconds: float = 0.0
    call_seconds: float = 0.0  # inside the target's calls (the prompt's call is not counted)
    step_times: list = field(default_factory=list)  # each step's seconds: [drafting, the target's calls, all of it]

    @property
    def acceptance(self):
        """Accepted drafts over checked ones (a draft after a rejection was never checked)."""
        return self.accepted / self.checked if self.checked else 0.0


def plain_run(target, prompt, n, temperature, seed=0):
    """``n`` tokens from the target alone, one call per token (tiny_lm.plain_generate's tokens), its calls timed."""
    counted = Counted(target)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        cache, last = start(target, prompt)
        tokens, steps, started = [], [], time.perf_counter()
        for _ in range(n):
            began = time.perf_counter()
            last = int(torch.multinomial(rows(counted.forward_cached([last], cache), temperature)[0], 1))
            tokens.append(last)
            steps.append([0.0, counted.seconds[-1], time.perf_counter() - began])
        seconds = time.perf_counter() - started
    return Run(tokens, seconds, n, calls=[1] * n, emitted=n, steps=n, call_seconds=sum(counted.seconds),
               step_times=steps)


def speculative_generate(target, bigram, prompt, n, k, temperature, verify, seed=0):
    """``n`` tokens by speculation: the bigram drafts ``k``, ``verify`` (the student's) checks them."""
    counted = Counted(target)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        cache, last = start(target, prompt)
        tokens, steps, checked, times, started = [], 0, 0, [], time.perf_counter()
        while len(tokens) < n:
            began, calls = time.perf_counter(), len(counted.seconds)
            proposal, q = draft(bigram, last, k, temperature)
            drafted = time.perf_counter() - began
            new = verify(counted, cache, last, proposal, q, temperature)
            times.append([drafted, sum(counted.seconds[calls:]), time.perf_counter() - began])
            tokens += new
            steps, checked, last = steps + 1, checked + min(len(new), k), new[-1]
        seconds = time.perf_counter() - started
    return Run(tokens[:n], seconds, len(counted.calls), k * steps, len(tokens) - steps, counted.calls,
               emitted=len(tokens), steps=steps, checked=checked, draft_seconds=sum(t[0] for t in times),
               call_seconds=sum(counted.seconds), step_times=times)


# ------------------------------------------------------------------ timing: interleaved, with the spread

def interleave(jobs, repeats, warmup=1):
    """Every job (name: a function of the round number) once a round, ``warmup`` rounds dropped, then ``repeats`` kept.

    The jobs take turns and the order turns round every other round (a b, b a, a b, ...), so a slow spell of
    the machine falls on all of them alike and none always goes first. Returns {name: [its result each kept round]}.
    """
    names, kept = list(jobs), {name: [] for name in jobs}
    for round_ in range(warmup + repeats):
        for name in (names if round_ % 2 == 0 else names[::-1]):
            result = jobs[name](round_)
            if round_ >= warmup:
                kept[name].append(result)
    return kept


def spread(values):
    """(min, median, max) of ``values``."""
    return min(values), statistics.median(values), max(values)


def forward_times(target, positions=(1, 5), context=64, repeats=60):
    """{n: [seconds of one target call over n new positions after ``context`` cached ones]}, the sizes taking turns."""
    cache, _ = start(target, PROMPT * 4)
    cache.crop(context)
    ids = encode(PROMPT * 4)[context:]

    def call(n):
        def one(_):
            started = time.perf_counter()
            target.forward_cached(ids[:n], cache)
            seconds = time.perf_counter() - started
            cache.crop(context)
            return seconds
        return one

    return interleave({n: call(n) for n in positions}, repeats, warmup=5)


# ------------------------------------------------------------------ alpha

def fixed_texts(target, count=4, n=200, temperature=1.0, seed=0):
    """``count`` texts of ``n`` tokens the target sampled after PROMPT (seeds seed, seed + 1, ...), prompt included.

    Their prefixes are where alpha is measured, the same ones at every temperature of alpha_on_texts.
    """
    return [encode(PROMPT) + plain_generate(target, PROMPT, n, temperature, seed + i).tokens for i in range(count)]


def alpha_on_texts(target, bigram, texts, temperatures, prompt_length=len(PROMPT)):
    """{T: [alpha on each text]}: the mean of beta = sum of min(p, q) over each prefix ending after the prompt.

    One target call per text gives every position's logits; each temperature turns the same logits into rows.
    """
    table = {t: [] for t in temperatures}
    for ids in texts:
        logits = target.forward_cached(ids[:-1], KVCache())[prompt_length - 1:]  # row i: after the prompt + i tokens
        draft_logits = bigram.log_probs[torch.as_tensor(ids[prompt_length - 1:-1])]
        for t in temperatures:
            table[t].append(float(torch.minimum(rows(logits, t), rows(draft_logits, t)).sum(-1).mean()))
    return table


def own_text(target, bigram, prompt, n, temperature, seed=0):
    """(alpha over ``n`` prefixes of the target's own text at ``temperature``, that text's tokens)."""
    betas, tokens = [], []
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        cache, last = start(target, prompt)
        for _ in range(n):
            p = rows(target.forward_cached([last], cache), temperature)[0]
            q = rows(bigram.logits(last)[None], temperature)[0]
            betas.append(float(torch.minimum(p, q).sum()))
            last = int(torch.multinomial(p, 1))
            tokens.append(last)
    return sum(betas) / len(betas), tokens


def measure_alpha(target, bigram, prompt, n, temperature, seed=0):
    """alpha over the target's own text at ``temperature`` (own_text's first half)."""
    return own_text(target, bigram, prompt, n, temperature, seed)[0]


def most_common_share(text):
    """(the character ``text`` repeats most, the share of ``text`` it makes up)."""
    top = max(set(text), key=text.count)
    return top, text.count(top) / len(text)


def temperature_table(target, bigram, temperatures=(1.5, 1.0, 0.7, 0.4, 0.0), count=4, n=200):
    """Rows (T, alpha on the fixed texts: mean, min, max; alpha on the target's own text at T; its commonest share)."""
    table = alpha_on_texts(target, bigram, fixed_texts(target, count, n), temperatures)
    out = []
    for t in temperatures:
        own, tokens = own_text(target, bigram, PROMPT, n, t)
        out.append((t, statistics.mean(table[t]), min(table[t]), max(table[t]), own, most_common_share(decode(tokens))))
    return out


# ------------------------------------------------------------------ what the timing cells print

def _ms(seconds):
    return f"{seconds * 1e3:.2f}"


def _times(values):
    low, middle, high = spread(values)
    return dict(low=_ms(low), median=_ms(middle), high=_ms(high))


def forward_lines(times):
    """The one-position-against-K-positions cell's lines: each size's min / median / max, and the ratios."""
    from spec_widgets import TEXT  # the edition's words
    first, *others = sorted(times)
    lines = [TEXT["forward_lines"][0].format(n=n, calls=len(times[n]), **_times(times[n])) for n in sorted(times)]
    for n in others:
        ratios = [b / a for a, b in zip(times[first], times[n])]
        lines.append(TEXT["forward_lines"][1].format(n=n, first=first, ratio=f"{statistics.median(ratios):.2f}",
                                                     low=f"{min(ratios):.2f}", high=f"{max(ratios):.2f}"))
    return lines


def greedy_lines(target, bigram, verify, k=4, n=120, repeats=5, prompts=GREEDY_PROMPTS):
    """Greedy (T = 0): the prompts and their texts shown, then plain against speculative on the first, interleaved."""
    from spec_widgets import TEXT  # the edition's words
    words = TEXT["greedy_lines"]
    lines = []
    for prompt in prompts:
        text = plain_generate(target, prompt, n, 0).text
        top, share = most_common_share(text)
        lines += [words[0].format(prompt=repr(prompt), n=n), "    " + repr(text),
                  words[1].format(char=repr(top), share=f"{share:.0%}")]
    runs = interleave({"plain": lambda r: plain_run(target, prompts[0], n, 0, r),
                       "fast": lambda r: speculative_generate(target, bigram, prompts[0], n, k, 0, verify, r)}, repeats)
    plain, fast = runs["plain"], runs["fast"]
    speedups = [a.seconds / b.seconds for a, b in zip(plain, fast)]
    lines += [words[2].format(prompt=repr(prompts[0]), same=all(f.tokens == plain[0].tokens for f in fast)),
              words[3].format(runs=repeats, **_times([r.seconds for r in plain])),
              words[4].format(k=k, **_times([r.seconds for r in fast])),
              words[5].format(median=f"{statistics.median(speedups):.2f}", low=f"{min(speedups):.2f}",
                              high=f"{max(speedups):.2f}", per_call=f"{fast[0].tokens_per_call:.2f}",
                              accepted=fast[0].accepted, checked=fast[0].checked, drafted=fast[0].drafted)]
    return lines


@dataclass
class SpeedReport:
    """The formula's speed-up and the measured one, with the measured parts of a step (medians over the rounds)."""
    k: int
    n: int
    temperature: float
    alpha: float
    positions: int  # the prefixes alpha was measured on
    plain: list = field(default_factory=list)  # Runs
    fast: list = field(default_factory=list)

    # A step's parts are medians over every step of every run: a moment the machine gives to another process
    # (it is shared) lands in a few steps and moves a median little; the measured speed-up keeps it.
    def _median(self, runs, part):
        return statistics.median(t[part] for r in runs for t in r.step_times)

    @property
    def plain_token(self):
        return self._median(self.plain, 2)

    @property
    def call_1(self):
        return self._median(self.plain, 1)

    @property
    def draft_token(self):
        return self._median(self.fast, 0) / self.k if self.k else 0.0

    @property
    def call_k(self):
        return self._median(self.fast, 1)

    @property
    def step(self):
        return self._median(self.fast, 2)

    @property
    def rest(self):
        return statistics.median(t[2] - t[1] - t[0] for r in self.fast for t in r.step_times)

    @property
    def c(self):
        return self.draft_token / self.call_1

    @property
    def per_step(self):
        return sum(r.emitted for r in self.fast) / sum(r.steps for r in self.fast)

    @property
    def speedups(self):
        return [(a.seconds / a.emitted) / (b.seconds / b.emitted) for a, b in zip(self.plain, self.fast)]

    def lines(self):
        from spec_widgets import TEXT  # the edition's words
        words, k, fast = TEXT["pair_report"], self.k, self.fast
        accepted, checked = sum(r.accepted for r in fast), sum(r.checked for r in fast)
        drafted = sum(r.drafted for r in fast)
        low, middle, high = spread(self.speedups)
        step_tokens = self.step / self.plain_token
        return [words[0].format(runs=len(fast), n=self.n, temperature=f"{self.temperature:g}", k=k),
                words[1].format(c=f"{self.c:.3f}", draft=_ms(self.draft_token), call=_ms(self.call_1),
                                alpha=f"{self.alpha:.3f}", positions=self.positions),
                words[2].format(tokens=f"{expected_tokens_per_call(self.alpha, k):.2f}", cost=f"{k * self.c + 1:.2f}",
                                speedup=f"{expected_speedup(self.alpha, k, self.c):.2f}"),
                words[3].format(tokens=f"{self.per_step:.2f}", accepted=accepted, checked=checked,
                                rate=f"{accepted / checked if checked else 0:.3f}", unchecked=drafted - checked),
                words[4].format(step=_ms(self.step), tokens=f"{step_tokens:.2f}", plain=_ms(self.plain_token),
                                call=_ms(self.call_1)),
                words[5].format(k=k, draft=_ms(k * self.draft_token), positions=k + 1, call=_ms(self.call_k),
                                ratio=f"{self.call_k / self.call_1:.2f}", rest=_ms(self.rest)),
                words[6].format(tokens=f"{self.per_step:.2f}", cost=f"{step_tokens:.2f}",
                                explained=f"{self.per_step / step_tokens:.2f}", median=f"{middle:.2f}",
                                low=f"{low:.2f}", high=f"{high:.2f}"),
                words[7].format(positions=f"{sum(sum(r.calls) for r in fast) / sum(r.emitted for r in fast):.2f}")]


def speed_report(target, bigram, verify, k=4, n=200, temperature=1.0, repeats=5):
    """Plain and speculative generation taking turns ``repeats`` times (seed = the round), and alpha at ``temperature``
    on fixed_texts (the target's own text at that temperature): a SpeedReport."""
    texts = fixed_texts(target, temperature=temperature)
    alpha = statistics.mean(alpha_on_texts(target, bigram, texts, [temperature])[temperature])
    runs = interleave({"plain": lambda r: plain_run(target, PROMPT, n, temperature, r),
                       "fast": lambda r: speculative_generate(target, bigram, PROMPT, n, k, temperature, verify, r)},
                      repeats)
    return SpeedReport(k, n, temperature, alpha, sum(len(t) - len(PROMPT) for t in texts), runs["plain"], runs["fast"])


# ------------------------------------------------------------------ the notebook's quiz and picture

def show_alphas(temperatures, alphas, own=None):
    """The measured alpha against the temperature (on the fixed prefixes; ``own``: on the target's own text)."""
    if AUTOGRADING:
        return
    import matplotlib.pyplot as plt
    from IPython.display import display
    from spec_widgets import TEXT, use_fonts  # the edition's words and fonts
    use_fonts()
    fig, ax = plt.subplots(figsize=(5, 3))
    xlabel, ylabel, title, fixed_label, own_label = TEXT["alpha_axes"]
    ax.plot(temperatures, alphas, "o-", label=fixed_label)
    if own is not None:
        ax.plot(temperatures, own, "s--", label=own_label)
        ax.legend(fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1.05)
    ax.set_title(title)
    display(fig)
    plt.close(fig)
