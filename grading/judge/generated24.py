"""Level 24's generated cases: verify_and_correct (notebook 01) and speculative_step (notebook 02) beside the
grader's own reference step, on many small inputs (Level 23's are grading/judge/generated.py, which says why).

The student's function runs on every case of a fixed, ordered set in one call to the kernel (``run_cases``), with
torch.rand and torch.multinomial scripted; the grader compares what it did with its reference step
(grading/judge/rules.py ``level24`` with no mistake) under the same script: the tokens, the order of the calls
(coins and samples), the weights handed to each torch.multinomial call (to 1e-6), an error, and the inputs after the
call. The set, smallest first:

- K = 0 (a list and a tensor; notebook 02, which has the bonus row);
- one position over 3 token ids for each kind of position (p > q, p == q, p < q, p == 0, q == 0, p = 1, q = 1, p
  just below q), with the draws 0, just below p/q, exactly p/q and above it;
- two positions: every kind followed by every kind, with draws that accept or reject, tokens drafted twice, rows
  whose other mass is spread or on one token, tensors;
- 60 random drafts of 1 to 4 positions over 3 to 5 tokens.

Each scripted sample is a token the sampled weights give a positive chance, and not their largest where another
has one, so a correction or bonus taken as an argmax shows. Nothing here reaches the student's folder.
"""

import random

from grading.judge import rules
from grading.judge.generated import KINDS, _draws_for, _f32, _num, _row, part_tokens

MISSIONS = {1: "01_correction_token", 2: "02_bonus_and_step"}
FUNCTIONS = {1: "verify_and_correct", 2: "speculative_step"}
SEED = 2449
RANDOM_CASES = 60


class Spec:
    """One generated case: K ``tokens``, ``target`` rows (K, or K + 1 with the bonus row), ``draft`` rows (K),
    ``draws`` (one r per p < q position), ``picks`` (the token each torch.multinomial call hands out)."""

    __slots__ = ("tokens", "target", "draft", "draws", "picks", "tokens_as", "vocab")

    def __init__(self, tokens, target, draft, draws, tokens_as="list"):
        self.tokens, self.target, self.draft = list(tokens), [list(r) for r in target], [list(r) for r in draft]
        self.draws, self.tokens_as, self.picks = list(draws), tokens_as, []
        self.vocab = len(target[0])

    def case(self, helpers):
        draft = self.draft if self.draft else []
        return helpers.Case(draft, self.target, self.tokens, tokens_as=self.tokens_as)

    def size(self):
        return (len(self.tokens), self.vocab)


def _pick(values):
    """The token a scripted sample hands out: one with a positive weight, not the largest where another has one."""
    positive = [j for j, v in enumerate(values) if v > 1e-9]
    if not positive:
        return 0
    top = max(positive, key=lambda j: values[j])
    others = [j for j in positive if j != top]
    return (others or positive)[-1]


def _bonus_row(n, vocab):
    return _row(vocab, n % vocab, 0.5, (n + 1) % vocab)


def small_cases(bonus):
    # K = 0 only with the bonus row (notebook 02): notebook 01's target_probs would have no row at all
    specs = [Spec([], [_bonus_row(0, 3)], [], []), Spec([], [_bonus_row(1, 3)], [], [], "tensor")] if bonus else []
    for n, (p, q) in enumerate(KINDS):
        token = n % 3
        for r in (_draws_for(p, q) if p < q else [0.5]):
            target = [_row(3, token, p, (token + 1) % 3)] + ([_bonus_row(n, 3)] if bonus else [])
            specs.append(Spec([token], target, [_row(3, token, q)], [r] if p < q else []))
    n = 0
    for a in KINDS:
        for b in KINDS:
            for script in ((0.0, 0.0), (0.9375, 0.9375)):
                n += 1
                tokens = [n % 3, n % 3] if n % 5 == 0 else [n % 3, (n + 1) % 3]
                target = [_row(3, t, p, (t + 1) % 3 if n % 2 else None) for t, (p, _) in zip(tokens, (a, b))]
                draft = [_row(3, t, q, None if n % 2 else (t + 2) % 3) for t, (_, q) in zip(tokens, (a, b))]
                draws = [s for (p, q), s in zip((a, b), script) if p < q]
                specs.append(Spec(tokens, target + ([_bonus_row(n, 3)] if bonus else []), draft, draws,
                                  "tensor" if n % 4 == 0 else "list"))
    return specs


def _random_row(rng, vocab):
    cuts = sorted(rng.randint(0, 20) for _ in range(vocab - 1))
    return [(b - a) / 20 for a, b in zip([0] + cuts, cuts + [20])]


def random_cases(bonus, count=RANDOM_CASES, seed=SEED):
    rng = random.Random(seed + bonus)
    specs = []
    for _ in range(count):
        k, vocab = rng.randint(1, 4), rng.randint(3, 5)
        tokens, target, draft, draws = [], [], [], []
        for _ in range(k):
            t = rng.randrange(vocab) if not tokens or rng.random() > 0.2 else rng.choice(tokens)
            trow, drow = _random_row(rng, vocab), _random_row(rng, vocab)
            if rng.random() < 0.15:
                drow = list(trow)
            if drow[t] == 0:  # a drafted token has a chance under the draft
                drow = [0.5 * x for x in drow]
                drow[t] += 0.5
            tokens.append(t)
            target.append(trow)
            draft.append(drow)
            p, q = _f32(trow[t]), _f32(drow[t])
            if p < q:
                r = rng.randint(0, 19) / 20
                while abs(r - p / q) < 1e-4:
                    r = rng.randint(0, 19) / 20
                draws.append(r)
        if bonus:
            target.append(_random_row(rng, vocab))
        specs.append(Spec(tokens, target, draft, draws, "tensor" if rng.random() < 0.3 else "list"))
    specs.sort(key=Spec.size)
    return specs


_MADE = {}


def _made(helpers, mission):
    """(specs, cases, their batch, the reference's runs), the same for every student (made once per process)."""
    key = (id(helpers), mission)
    kept = _MADE.get(key)
    if kept is None or kept[0] is not helpers:
        bonus = mission == 2
        specs = small_cases(bonus) + random_cases(bonus)
        cases, wants = [], []
        for spec in specs:
            case = spec.case(helpers)
            first = rules.level24(case, spec.draws, [0] * 8, bonus)  # the weights each sample is drawn from
            spec.picks = [_pick(e[2]) for e in first.events if e[0] == "multinomial"]
            want = rules.level24(case, spec.draws, spec.picks, bonus)
            cases.append(case)
            wants.append(want)
        kept = _MADE[key] = (helpers, specs, cases, helpers.Cases(cases), wants)
    return kept[1:]


def differs(run, want, charged=()):
    """What about ``run`` differs from the reference's ``want`` (rules._Out): error, tokens, order, weights, inputs
    (the last only when the hand-made check of the inputs passed)."""
    if run.error is not None or run.rebound or run.replaced:
        return ["error"]
    out = []
    if run.tokens != want.tokens:
        out.append("tokens")
    order = "".join("r" if e[0] == "rand" else "m" for e in run.events)
    if order != "".join("r" if e[0] == "rand" else "m" for e in want.events):
        out.append("order")
    elif not all(rules._same_values(a[2], b[2]) for a, b in zip(run.events, want.events) if a[0] == "multinomial"):
        out.append("weights")
    if run.inputs_changed and "hidden_inputs_unchanged" not in charged:
        out.append("inputs")
    return out


class Result:
    def __init__(self, mission, specs, cases, runs, wants):
        self.mission, self.specs, self.cases, self.runs, self.wants = mission, specs, cases, runs, wants
        self.first, self.what, self.parted = None, [], 0
        self.notebook = MISSIONS[mission]

    @property
    def ran(self):
        return len(self.runs)


def run_generated(judge, function, mission):
    specs, cases, batch, wants = _made(judge.helpers, mission)
    runs = judge.run_cases(function, batch, [s.draws for s in specs], [s.picks for s in specs])
    result = Result(mission, specs, cases, runs, wants)
    charged = set(c for c in judge.failed if c)
    for index, run in enumerate(runs):
        what = differs(run, wants[index], charged)
        if what and result.first is None:
            result.first, result.what = index, what
        result.parted += bool(what)
    judge.generated = result
    return result


# ------------------------------------------------------------------ the walk

def _weights(values):
    return "[" + ", ".join(_num(v) for v in values) + "]"


def _order(events):
    """The calls in order as the walk prints them: r for torch.rand, m for torch.multinomial, one letter each."""
    return " ".join("r" if e[0] == "rand" else "m" for e in events) or "-"


def path(spec, want, bonus):
    """The reference's path through ``spec``: [(what, blanks)], from its own run ``want`` (rules._Out)."""
    out, used, samples = [], 0, [e[2] for e in want.events if e[0] == "multinomial"]
    for i, t in enumerate(spec.tokens):
        p, q = _f32(spec.target[i][t]), _f32(spec.draft[i][t])
        blanks = dict(i=i, t=t, p=_num(p), q=_num(q))
        if p >= q:
            out.append(("accept", blanks))
            continue
        r = spec.draws[used]
        used += 1
        blanks.update(r=_num(r), ratio=_num(p / q))
        if r < p / q:
            out.append(("coin_accept", blanks))
            continue
        blanks.update(weights=_weights(samples[0]), pick=spec.picks[0])
        out.append(("l24_reject", blanks))
        if i + 1 < len(spec.tokens):
            last = len(spec.tokens) - 1
            out.append(("after", dict(first=i + 1, last=last)))
        return out
    if bonus:
        out.append(("l24_bonus", dict(k=len(spec.tokens), weights=_weights(samples[-1]), pick=spec.picks[-1])))
    return out


def replay_call(spec, function):
    case = f"spec_checks.Case({spec.draft}, {spec.target}, {spec.tokens}" + (
        ", tokens_as='tensor')" if spec.tokens_as == "tensor" else ")")
    return f"spec_checks.run_step({function}, {case}, draws={spec.draws}, picks={spec.picks})"


def walk(judge, result, function):
    from grading.judge.verdicts import known_error
    from grading.judge.walk_text import WORDS
    from grading.judge.generated import _lang, _rows
    words = WORDS[_lang(judge)]
    index = result.first
    spec, run, want = result.specs[index], result.runs[index], result.wants[index]
    cut = result.ran < len(result.specs) and index == result.ran - 1 and run.ename == "TimeBudgetExceeded"
    lines = [words["head_cut" if cut else "head"].format(count=len(result.specs), parted=result.parted,
                                                         ran=result.ran, function=function),
             words["inputs"].format(tokens=spec.tokens, vocab=spec.vocab,
                                    kind=words["kind_tensor" if spec.tokens_as == "tensor" else "kind_list"]),
             words["rows"].format(target=_rows(spec.target), draft=_rows(spec.draft) if spec.draft else "[]")]
    lines.append(words["l24_script" if spec.draws else "l24_script_no_draws"].format(
        draws=", ".join(_num(r) for r in spec.draws), picks=", ".join(str(t) for t in spec.picks) or "0"))
    for what, blanks in path(spec, want, result.mission == 2) or [("empty", {})]:
        key = ("step_after_one" if blanks["first"] == blanks["last"] else "step_after") if what == "after" else (
            what if what.startswith(("l24_", "empty")) else "step_" + what)
        lines.append(words[key].format(**blanks))
    coins = lambda events: sum(e[0] == "rand" for e in events)  # noqa: E731
    calls = lambda events: sum(e[0] == "multinomial" for e in events)  # noqa: E731
    lines.append(words["l24_rule"].format(tokens=want.tokens, coins=coins(want.events), calls=calls(want.events),
                                          order=_order(want.events)))
    if "error" in result.what and run.error is not None:
        lines.append(words["yours_raised"].format(function=function, error=known_error(run.ename),
                                                  draws=coins(run.events), where=""))
    elif "error" not in result.what:
        lines.append(words["l24_yours"].format(function=function, tokens=run.tokens, coins=coins(run.events),
                                               calls=calls(run.events), order=_order(run.events)))
        if "tokens" in result.what and run.tokens is not None:
            lines.append(part_tokens(words, run.tokens, want.tokens, function))
        if "weights" in result.what:
            pairs = [(a[2], b[2]) for a, b in zip(run.events, want.events) if a[0] == "multinomial"]
            n = next(j for j, (a, b) in enumerate(pairs) if not rules._same_values(a, b))
            lines.append(words["l24_part_weights"].format(n=n + 1, want=_weights(pairs[n][1]),
                                                          got=_weights(pairs[n][0][:12]), function=function))
        if "inputs" in result.what:
            lines.append(words["yours_inputs"].format(function=function))
    lines.append(words["replay"].format(call=replay_call(spec, function)))
    return "\n".join(lines)


def summary(judge, function=None):
    """The smallest differing case in one sentence, for the diagnosis line; None when none differs."""
    from grading.judge.verdicts import known_error
    from grading.judge.walk_text import WORDS
    from grading.judge.generated import _lang
    result = getattr(judge, "generated", None)
    if not isinstance(result, Result) or result.first is None:
        return None
    words = WORDS[_lang(judge)]
    spec, run, want = result.specs[result.first], result.runs[result.first], result.wants[result.first]
    blanks = dict(k=len(spec.tokens), tokens=spec.tokens, draws=spec.draws, picks=spec.picks, want=want.tokens,
                  want_order=_order(want.events))
    if run.error is not None:
        return words["summary_raised"].format(error=known_error(run.ename), where="", **blanks)
    if result.what == ["weights"]:
        pairs = [(a[2], b[2]) for a, b in zip(run.events, want.events) if a[0] == "multinomial"]
        n = next(j for j, (a, b) in enumerate(pairs) if not rules._same_values(a, b))
        return words["l24_summary_weights"].format(n=n + 1, want_w=_weights(pairs[n][1]), got_w=_weights(pairs[n][0][:12]),
                                                   **blanks)
    return words["l24_summary"].format(got=run.tokens, got_order=_order(run.events), **blanks)


def check(judge, function, mission):
    result = run_generated(judge, function, mission)
    if result.first is not None:
        raise AssertionError(walk(judge, result, function.name))
