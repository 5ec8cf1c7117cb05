"""Whole speculative steps on two small Markov chains: the joint distribution of the first tokens.

The first-token experiment of notebook 02 uses the same rows at every position, so it cannot
see a bonus from the wrong row or a correction from row 0. Here every row depends on the
context (the previous token), and we count whole sequences:

    markov_counts(step, runs, k, length, seed) -> counts of each sequence of ``length`` first tokens
    target_joint(length)                        -> the target chain's probability of each sequence
    markov_experiment(step, runs, seed)         -> MarkovResult; .lines() is what the notebook prints

Plain functions, no display. While a notebook is graded (NBGRADER_EXECUTION set) the experiment
is skipped: it is not graded, and the student's Python loop would spend seconds of the cell limit.
"""

import itertools
from dataclasses import dataclass

import torch

from spec_checks import SAMPLE_BUDGET_SECONDS, chi_square, seeded, time_budget, tv_distance
from spec_quiz import AUTOGRADING

# p(next | previous): the target strongly prefers "previous + 1"; the draft is flatter.
MARKOV_P = [[0.15, 0.65, 0.20], [0.20, 0.15, 0.65], [0.65, 0.20, 0.15]]
MARKOV_Q = [[0.40, 0.40, 0.20], [0.20, 0.40, 0.40], [0.40, 0.20, 0.40]]
START = 0       # the token before the first step
K = 2           # drafts per step
LENGTH = 3      # how many first tokens are counted together


def _text():
    """The edition's sentences of this experiment (spec_widgets.TEXT["markov"])."""
    from spec_widgets import TEXT
    return TEXT["markov"]


def _name(step):
    from spec_checks import TEXT
    return getattr(step, "__name__", TEXT["your_function"])


def sequences(length=LENGTH, vocab=len(MARKOV_P)):
    """Every sequence of ``length`` tokens, in the order the counts use."""
    return list(itertools.product(range(vocab), repeat=length))


def target_joint(length=LENGTH, p=MARKOV_P, start=START):
    """p(x1 | start) · p(x2 | x1) · ...: the target chain's probability of each sequence."""
    out = []
    for seq in sequences(length, len(p)):
        prob, prev = 1.0, start
        for token in seq:
            prob, prev = prob * p[prev][token], token
        out.append(prob)
    return out


def run_once(step, p_rows, q_rows, k=K, length=LENGTH, start=START):
    """Speculative steps from ``start`` until ``length`` tokens are out; the first ``length`` of them.

    Each step drafts ``k`` tokens one by one from the draft chain, gives ``step`` the draft's
    ``k`` rows and the target's ``k + 1`` rows for the same contexts (row ``k`` follows the last
    draft), and appends what it returns.
    """
    out, last = [], start
    while len(out) < length:
        drafts, context = [], [last]
        for _ in range(k):
            token = int(torch.multinomial(q_rows[context[-1]], 1))
            drafts.append(token)
            context.append(token)
        new = step(q_rows[context[:-1]], p_rows[context], drafts)
        new = [int(t) for t in new]
        if not new:
            raise AssertionError(_text()["no_token"].format(function=_name(step)))
        out += new
        last = new[-1]
    return tuple(out[:length])


def markov_counts(step, runs, k=K, length=LENGTH, seed=0, p=MARKOV_P, q=MARKOV_Q):
    """How often each sequence of the first ``length`` tokens came out in ``runs`` runs (fixed seed)."""
    p_rows, q_rows = torch.tensor(p), torch.tensor(q)
    index = {seq: i for i, seq in enumerate(sequences(length, len(p)))}
    counts = [0] * len(index)
    name = _name(step)
    with seeded(seed), time_budget(SAMPLE_BUDGET_SECONDS, name):
        for _ in range(runs):
            seq = run_once(step, p_rows, q_rows, k, length)
            if seq not in index:
                raise AssertionError(_text()["outside"].format(function=name, last=len(p) - 1, seq=seq))
            counts[index[seq]] += 1
    return counts


@dataclass
class MarkovResult:
    counts: list
    target: list
    runs: int
    skipped: bool = False

    @property
    def tv(self):
        return tv_distance(self.counts, self.target)

    @property
    def p_value(self):
        return chi_square(self.counts, self.target)[1]

    def largest_gap(self):
        """(sequence, share, target probability) where the shares differ most from the target."""
        shares = [c / self.runs for c in self.counts]
        i = max(range(len(shares)), key=lambda j: abs(shares[j] - self.target[j]))
        return sequences()[i], shares[i], self.target[i]

    def lines(self):
        from spec_widgets import fit_line

        if self.skipped:
            return [_text()["skipped"]]
        seq, share, want = self.largest_gap()
        return [_text()["head"].format(length=LENGTH, runs=f"{self.runs:,}", k=K),
                fit_line(self.counts, self.target),
                _text()["gap"].format(seq=seq, share=f"{share:.3f}", want=f"{want:.3f}")]


def markov_experiment(step, runs=3_000, seed=0):
    """The notebook's experiment: ``runs`` runs of ``step`` on the two chains (skipped while grading)."""
    if AUTOGRADING:
        return MarkovResult([], target_joint(), 0, skipped=True)
    return MarkovResult(markov_counts(step, runs, seed=seed), target_joint(), runs)
