"""Generated cases: the student's function beside the grader's own reference, on many small inputs.

The hand-made hidden checks each decide one property on a case chosen for it. They catch the mistakes their
authors thought of. This check catches the rest by construction: it runs the student's function on every case
of a generated set, in one call to the kernel (``run_cases``), and compares what it did with what the
reference does under the same scripted draws: the tokens, the number of draws, an error, and the inputs after
the call. A function that differs on any of them loses the check, and the failure shows the smallest case
where it differs, walked position by position.

The set is made here, in the grader, from a fixed seed, so every student gets the same cases and the same
grade on every run:

- every small case first: K = 0, then one position, then two, over 2 or 3 token ids, with round values of p
  and q that cover p > q, p == q, p < q, p == 0 and q == 0, each followed by every other kind (the position
  after a p == 0 one included), a token drafted twice, draft_tokens as a list and as a torch.LongTensor, and
  scripted draws at the boundaries (0, just below p/q, exactly p/q, and above it);
- then random drafts of up to 5 positions over up to 6 tokens, whose rows put their remaining mass either
  evenly or on one other token (so a row that is not read as it is, a softmax applied again, shows).

Because the small cases come first, the first case that differs is the smallest of the set: the fewest
positions, the smallest vocabulary, round numbers (the "small scope" idea of SmallCheck). That needs no
shrinker and one round trip to the kernel; docs/grading.md says why Hypothesis is not used here.

The reference is grading/judge/rules23.py's ``model`` with no mistake, which the hand-made checks' diagnosis
already uses; nothing of it reaches the student's folder or kernel.
"""

import random

from grading.judge import rules23

NOTEBOOKS23 = ("01_accept_branch", "02_reject_and_break")
SEED = 2349
RANDOM_CASES = 100
OVERFLOW_DRAW = rules23.OVERFLOW_DRAW

# The kinds of position of the small cases: (p, q). All are dyadic, so p/q is the same in float32 and float64,
# and a draw exactly at p/q is a boundary whatever precision the function computes in.
KINDS = ((0.5, 0.25), (0.5, 0.5), (0.25, 0.5), (0.0, 0.5), (0.5, 0.0), (1.0, 0.75), (0.75, 1.0), (0.4995, 0.5))
# (the last: p just below q, whose p/q = 0.999 is not dyadic: its draws stay far from p/q)
BELOW = 1 / 64  # a draw just below p/q: p/q - 1/64, also dyadic


class Spec:
    """One generated case: ``tokens`` (K ids), ``target`` and ``draft`` (K rows of ``vocab`` values), ``draws``
    (one scripted r per p < q position, in order), ``tokens_as`` ("list" or "tensor")."""

    __slots__ = ("tokens", "target", "draft", "draws", "tokens_as", "vocab")

    def __init__(self, tokens, target, draft, draws, tokens_as="list"):
        self.tokens, self.target, self.draft = list(tokens), [list(r) for r in target], [list(r) for r in draft]
        self.draws, self.tokens_as = list(draws), tokens_as
        self.vocab = len(target[0]) if target else 2

    def case(self, helpers):
        positions = [(t, self.target[i][t], self.draft[i][t]) for i, t in enumerate(self.tokens)]
        return helpers.Case(positions, vocab=self.vocab, tokens_as=self.tokens_as,
                            rows=[self.target, self.draft] if self.tokens else None)

    def size(self):
        return (len(self.tokens), self.vocab)


def _row(vocab, token, value, rest_on=None):
    """A row of ``vocab`` values with ``value`` at ``token``: the rest evenly over the others, or all on ``rest_on``."""
    others = [c for c in range(vocab) if c != token]
    row = [0.0] * vocab
    row[token] = value
    if rest_on is None:
        for c in others:
            row[c] = (1.0 - value) / len(others)
    else:
        row[rest_on] = 1.0 - value
    return row


def _dyadic(x):
    return _f32(x) == x and (x * 1024).is_integer()


def _draws_for(p, q):
    """The boundary draws of a p < q position: 0, just below p/q, exactly p/q, and above it (only 0 and 0.9375 where
    p/q is not exact in every precision)."""
    ratio = p / q
    if not (_dyadic(p) and _dyadic(q)):
        return [0.0, 0.9375]
    out = [0.0] + ([ratio - BELOW] if ratio - BELOW > 0 else []) + [ratio]
    return out + [0.9375] if ratio < 0.9375 else out


def small_cases():
    """Every case of up to two positions over the KINDS, in order of size."""
    specs = [Spec([], [], [], []), Spec([], [], [], [], "tensor")]
    for n, (p, q) in enumerate(KINDS):  # one position, over two tokens
        token = n % 2
        for r in (_draws_for(p, q) if p < q else [0.5]):
            specs.append(Spec([token], [_row(2, token, p)], [_row(2, token, q)], [r] if p < q else []))
    scripts = ((0.0, 0.0), (0.9375, 0.9375))
    n = 0
    for a in KINDS:  # two positions: every kind followed by every kind, over three tokens
        for b in KINDS:
            for script in scripts:
                n += 1
                tokens = [n % 3, n % 3] if n % 5 == 0 else [n % 3, (n + 1) % 3]  # a token drafted twice
                rest = [None, (tokens[1] + 1) % 3] if n % 2 else [(tokens[0] + 2) % 3, None]
                if rest[0] == tokens[0]:
                    rest[0] = None
                target = [_row(3, t, p, r) for t, (p, _), r in zip(tokens, (a, b), rest)]
                draft = [_row(3, t, q, r) for t, (_, q), r in zip(tokens, (a, b), reversed(rest))]
                draft = [row if row[t] == q else _row(3, t, q) for row, t, q in zip(draft, tokens, (a[1], b[1]))]
                draws = [s for (p, q), s in zip((a, b), script) if p < q]
                specs.append(Spec(tokens, target, draft, draws, "tensor" if n % 4 == 0 else "list"))
    return specs


def _random_row(rng, vocab):
    """A random row of multiples of 0.05: its mass spread, or mostly on one token."""
    if rng.random() < 0.5:
        cuts = sorted(rng.randint(0, 20) for _ in range(vocab - 1))
        parts = [b - a for a, b in zip([0] + cuts, cuts + [20])]
    else:
        parts = [0] * vocab
        top = rng.randrange(vocab)
        parts[top] = rng.randint(10, 20)
        for _ in range(20 - parts[top]):
            parts[rng.randrange(vocab)] += 1
    return [x / 20 for x in parts]


def random_cases(count=RANDOM_CASES, seed=SEED):
    """``count`` random drafts of 1 to 5 positions over 2 to 6 tokens, from a fixed seed."""
    rng = random.Random(seed)
    specs = []
    for _ in range(count):
        k, vocab = rng.randint(1, 5), rng.randint(2, 6)
        tokens, target, draft, draws = [], [], [], []
        for _ in range(k):
            t = rng.randrange(vocab) if not tokens or rng.random() > 0.2 else rng.choice(tokens)
            trow, drow = _random_row(rng, vocab), _random_row(rng, vocab)
            if rng.random() < 0.15:  # p == q
                drow = list(trow)
            tokens.append(t)
            target.append(trow)
            draft.append(drow)
            p, q = _f32(trow[t]), _f32(drow[t])
            if p < q:
                ratio = p / q
                r = rng.randint(0, 19) / 20
                while abs(r - ratio) < 1e-4:
                    r = rng.randint(0, 19) / 20
                draws.append(r)
        specs.append(Spec(tokens, target, draft, draws, "tensor" if rng.random() < 0.3 else "list"))
    specs.sort(key=Spec.size)
    return specs


def _f32(x):
    import struct
    return struct.unpack("f", struct.pack("f", x))[0]


_SPECS = []


def specs(notebook):
    """The generated cases, in order: the small ones, then the random ones (made once; the same for both notebooks,
    whose references differ)."""
    if not _SPECS:
        _SPECS.extend(small_cases() + random_cases())
    return _SPECS


# ------------------------------------------------------------------ comparing a run with the reference

def reference(case, draws, notebook):
    """(tokens, draws asked for) of the rule on ``case``."""
    tokens, used, _ = rules23.model(case, draws, notebook)
    return tokens, used


def differs(run, want, helpers, charged=()):
    """What about ``run`` differs from the reference's ``want`` = (tokens, draws): a list of "error", "tokens",
    "draws", "inputs" (the last only when the hand-made check of the inputs passed: one mistake, charged once)."""
    if run.error is not None or run.rebound or run.rand_replaced:
        return ["error"]
    out = []
    if helpers.prefix(run) != list(want[0]):
        out.append("tokens")
    if run.calls != want[1]:
        out.append("draws")
    if run.inputs_changed and "hidden_inputs_unchanged" not in charged:
        out.append("inputs")
    return out


def elsewhere(run):
    """What about ``run`` the hand-made checks charge (the result's type, the draws' source and shape, the inputs):
    the generated check does not charge it again, but shows the smallest case where it happens in that check's
    failure (``attach``)."""
    if run.error is not None or run.rebound or run.rand_replaced:
        return []
    out = []
    if run.tokens is None:
        out.append("type")
    if run.inputs_changed:
        out.append("inputs")
    if run.foreign:
        out.append("generator")
    if run.bad_shapes:
        out.append("shapes")
    return out


class Result:
    """The generated cases of one notebook, what the function did on each, and the first that differs."""

    def __init__(self, notebook, specs, cases, runs, wants):
        self.notebook, self.specs, self.cases, self.runs, self.wants = notebook, specs, cases, runs, wants
        self.first = None  # index of the first (smallest) case where the function differs, or None
        self.what = []     # what differs there
        self.parted = 0    # how many cases differ
        self.other, self.other_what, self.others = None, [], 0  # the same for what other checks charge (elsewhere)

    @property
    def ran(self):
        return len(self.runs)


_MADE = {}  # (helpers module, notebook): the cases, their batch and the reference's results, the same for every student


def _made(helpers, notebook):
    key = (id(helpers), notebook)
    kept = _MADE.get(key)
    if kept is None or kept[0] is not helpers:
        chosen = specs(notebook)
        cases = [s.case(helpers) for s in chosen]
        wants = [reference(case, s.draws, notebook) for case, s in zip(cases, chosen)]
        kept = _MADE[key] = (helpers, chosen, cases, helpers.Cases(cases), wants)
    return kept[1:]


def run_generated(judge, function, notebook):
    """Run the generated cases of ``notebook`` through ``function`` in the student's kernel, and compare each with
    the reference. Returns a Result; ``judge.generated`` keeps it (the diagnosis reads it)."""
    helpers = judge.helpers
    chosen, cases, batch, wants = _made(helpers, notebook)
    scripts = [s.draws for s in chosen]
    runs = judge.run_cases(function, batch, scripts)
    result = Result(notebook, chosen, cases, runs, wants)
    charged = set(c for c in judge.failed if c)
    for index, run in enumerate(runs):
        what = differs(run, wants[index], helpers, charged)
        if what and result.first is None:
            result.first, result.what = index, what
        result.parted += bool(what)
        other = elsewhere(run)
        if other and result.other is None:
            result.other, result.other_what = index, other
        result.others += bool(other)
    judge.generated = result
    return result


def reproduces(result, mistakes):
    """Whether the model with ``mistakes`` does what the function did on every generated case that ran: a rule
    names its mistake only then (grading/judge/rules23.py)."""
    if result is None:
        return True
    for case, script, run in zip(result.cases, (s.draws for s in result.specs), result.runs):
        student = (run.tokens if run.tokens is not None else run.read, run.calls, run.ename)
        if run.tokens is None and run.read is None and run.ename is None:
            continue  # not a list of ids: nothing a model of the loop could give
        try:
            modelled = rules23.model(case, script, result.notebook, mistakes)
        except Exception:  # a model that cannot follow the case does not reproduce it
            return False
        if not rules23._did(student, modelled, len(case.positions)):
            return False
    return True


# ------------------------------------------------------------------ the check and its message

MISSIONS = {1: "01_accept_branch", 2: "02_reject_and_break"}


def _num(x):
    """A probability or draw as the walk prints it: 4 significant digits (float32's 0.3499999940 is 0.35)."""
    return f"{x:.4g}"


def _rows(rows):
    return "[" + ", ".join("[" + ", ".join(_num(v) for v in row) + "]" for row in rows) + "]"


def _lang(judge):
    return "zh" if judge.helpers.TEXT.get("lang") == "zh" else "en"


def path(spec, notebook):
    """The rule's path through ``spec``: [(what, blanks)] a position each (what: accept, stop_m1, coin_accept,
    coin_reject), then ("after", ...) for the positions not reached. tests/test_generated.py holds it to the
    reference's tokens and draws on every generated case."""
    out, used, stop = [], 0, None
    for i, t in enumerate(spec.tokens):
        p, q = _f32(spec.target[i][t]), _f32(spec.draft[i][t])
        blanks = dict(i=i, t=t, p=_num(p), q=_num(q))
        if p >= q:
            out.append(("accept", blanks))
            continue
        if notebook.startswith("01"):
            out.append(("stop_m1", blanks))
            stop = i
            break
        r = spec.draws[used] if used < len(spec.draws) else OVERFLOW_DRAW
        used += 1
        blanks.update(r=_num(r), ratio=_num(p / q))
        if r < p / q:
            out.append(("coin_accept", blanks))
            continue
        out.append(("coin_reject", blanks))
        stop = i
        break
    if stop is not None and stop + 1 < len(spec.tokens):
        out.append(("after", dict(first=stop + 1, last=len(spec.tokens) - 1)))
    return out


def steps(spec, notebook, words):
    """The rule's path through ``spec``, a line per position: p, q, the coin r, what the rule does."""
    lines = []
    for what, blanks in path(spec, notebook):
        key = ("step_after_one" if blanks["first"] == blanks["last"] else "step_after") if what == "after" else \
            "step_" + what
        lines.append(words[key].format(**blanks))
    return lines


def replay_call(spec, notebook):
    """One line the student can run in the notebook to replay the case with their own function."""
    positions = [(t, float(_num(spec.target[i][t])), float(_num(spec.draft[i][t]))) for i, t in enumerate(spec.tokens)]
    rows = [[[float(_num(v)) for v in row] for row in spec.target], [[float(_num(v)) for v in row] for row in spec.draft]]
    case = f"spec_checks.Case({positions}, vocab={spec.vocab}" + (f", rows={rows}" if spec.tokens else "") + (
        ", tokens_as='tensor')" if spec.tokens_as == "tensor" else ")")
    mission = ", mission=1" if notebook.startswith("01") else ""
    return (f"from spec_widgets import show_replay; show_replay(verify_draft, {case}, "
            f"draws={[float(_num(r)) for r in spec.draws]}{mission})")


def part_tokens(words, got, wanted, function):
    """The line that says at which item of the result the function's tokens and the rule's part (both levels)."""
    n = next((j for j, (a, b) in enumerate(zip(got, wanted)) if a != b), min(len(got), len(wanted)))
    item = lambda xs: words["part_item"].format(value=xs[n]) if n < len(xs) else words["part_nothing"]  # noqa: E731
    return words["part_tokens"].format(n=n, want=item(wanted), got=item(got), function=function)


def _where(judge, run, function, words):
    if not run.where:
        return ""
    code = judge.line_of(function, run.where[0])
    return words["where" if code else "where_line"].format(line=run.where[0], function=function, code=code)


def walk(judge, result, function, other=False):
    """The failure's message: the smallest differing case, the rule's path through it, what the function did
    (``other``: the smallest case showing what another check charges, for that check's message)."""
    from grading.judge.verdicts import known_error
    from grading.judge.walk_text import WORDS
    words = WORDS[_lang(judge)]
    index = result.other if other else result.first
    what = result.other_what if other else result.what
    spec, run, want = result.specs[index], result.runs[index], result.wants[index]
    cut = result.ran < len(result.specs) and index == result.ran - 1 and run.ename == "TimeBudgetExceeded"
    head = words["head_other" if other else "head_cut" if cut else "head"].format(
        count=len(result.specs), parted=result.others if other else result.parted, ran=result.ran, function=function)
    lines = [head, words["inputs"].format(tokens=spec.tokens, vocab=spec.vocab,
                                          kind=words["kind_tensor" if spec.tokens_as == "tensor" else "kind_list"])]
    if spec.tokens:
        lines.append(words["rows"].format(target=_rows(spec.target), draft=_rows(spec.draft)))
    lines.append(words["script"].format(draws=", ".join(_num(r) for r in spec.draws), overflow=OVERFLOW_DRAW)
                 if spec.draws else words["no_script"].format(overflow=OVERFLOW_DRAW))
    lines += steps(spec, result.notebook, words) or [words["empty"]]
    lines.append(words["rule"].format(tokens=list(want[0]), draws=want[1]))
    if "error" in what and run.error is not None:
        lines.append(words["yours_raised"].format(function=function, error=known_error(run.ename), draws=run.calls,
                                                  where=_where(judge, run, function, words)))
    elif "error" not in what:
        got = run.tokens if run.tokens is not None else run.read  # what came back, as ids (not read as a prefix)
        lines.append(words["yours"].format(function=function, tokens=judge.helpers.said(run), draws=run.calls))
        if "type" in what:
            kind = run.result_type if run.result_type in judge.helpers.SHOWN_TYPES else "object"
            lines.append(words["other_type"].format(function=function, type=kind))
        if "generator" in what:
            lines.append(words["other_generator"].format(function=function, others=" / ".join(run.foreign)))
        if "shapes" in what:
            lines.append(words["other_shapes"].format(function=function, shapes=[list(s) for s in run.bad_shapes]))
        if "tokens" in what and got is not None:
            lines.append(part_tokens(words, got, list(want[0]), function))
        elif "draws" in what and "tokens" not in what:
            lines.append(words["part_draws"].format(function=function, got=run.calls, want=want[1]))
        if "inputs" in what:
            lines.append(words["yours_inputs"].format(function=function))
    lines.append(words["replay"].format(call=replay_call(spec, result.notebook)))
    return "\n".join(lines)


# The hand-made checks that charge what ``elsewhere`` finds, in order: the first of them that failed shows the case.
OWNERS = {"inputs": ("hidden_inputs_unchanged",), "type": ("hidden_long_tensor", "hidden_plain_list"),
          "generator": ("hidden_single_value_draws", "hidden_no_draw"),
          "shapes": ("hidden_single_value_draws", "hidden_no_draw")}


def attach(judge, outputs, function="verify_draft"):
    """When the function does what the rule does on every generated case but for what a hand-made check charges
    (the result's type, the draws' source or shape, the inputs), that check's failure shows the smallest generated
    case where it happens, walked as the generated check's own failure would be. Returns the check, or None."""
    result = getattr(judge, "generated", None)
    if result is None or result.first is not None or result.other is None:
        return None
    failed = set(c for c in judge.failed if c)
    owner = next((c for aspect in result.other_what for c in OWNERS[aspect] if c in failed), None)
    if owner is None:
        return None
    for output in outputs.get(owner, ()):
        if output.get("output_type") == "error":
            output["evalue"] = output["evalue"].rstrip() + "\n" + walk(judge, result, function, other=True)
            output["traceback"] = [f"{output['ename']}: {output['evalue']}"]
    return owner


def summary(judge, function="verify_draft"):
    """The smallest differing case in one sentence, for the diagnosis line; None when none differs."""
    from grading.judge.verdicts import known_error
    from grading.judge.walk_text import WORDS
    result = judge.generated
    if result is None or result.first is None:
        return None
    words = WORDS[_lang(judge)]
    spec, run, want = result.specs[result.first], result.runs[result.first], result.wants[result.first]
    blanks = dict(k=len(spec.tokens), tokens=spec.tokens, draws=[float(_num(r)) for r in spec.draws],
                  want=list(want[0]))
    if run.error is not None:
        return words["summary_raised"].format(error=known_error(run.ename), where=_where(judge, run, function, words),
                                              **blanks)
    return words["summary"].format(got=judge.helpers.said(run), want_draws=want[1], got_draws=run.calls, **blanks)


def check(judge, function, mission):
    """The hidden check: the function does what the rule does on every generated case (Failed otherwise)."""
    result = run_generated(judge, function, MISSIONS[mission])
    if result.first is not None:
        raise judge.helpers.Failed(walk(judge, result, function.name), "generated")
