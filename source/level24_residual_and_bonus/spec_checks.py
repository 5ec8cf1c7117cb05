"""Test helpers for the Level 24 notebooks: scripted torch.rand and torch.multinomial, one checked call.

The visible tests use these helpers, and so do the hidden ones, so read them
freely: they hold no answers. Every case lives in the notebooks.

    case = Case(draft_rows, target_rows, draft_tokens)   # full probability rows, [K, V] and [K(+1), V]
    run = run_step(speculative_step, case, draws=[0.5], picks=[3])
    run.tokens        # the result as a list of ints (None if it was not a list of ids)
    run.events        # every torch.rand and torch.multinomial call, in order
    run.multinomials  # [(num_samples, [the values passed])] for each torch.multinomial call
    run.problem       # None, or one sentence that says what went wrong

``run_step`` replaces ``torch.rand`` (scripted draws, like Level 23) and
``torch.multinomial`` (and the tensor method ``.multinomial``) for the length of
one call. The stand-in multinomial records the values it is given and hands out
the scripted token ids in ``picks``. Weights the real one refuses (negative,
nan or all zero) are recorded and still handed a scripted token, so the rest of
your function is graded as it is: the checks of the weights say that torch
refuses them. Nothing raises inside your code on our account: the record is
read after the call returns.
"""

import builtins
import contextlib
import math
import random
import re
import signal
import sys
import threading

import torch

# ---------------------------------------------------------------- text: BEGIN TEXT
# Every sentence a student reads from these checks, by id. This is the English edition's text;
# `python -m grading.build` writes each translated edition's copy of this file with this block
# taken from lessons/i18n/ (everything outside the block is copied unchanged, and a test says so).
TEXT = {
    "lang": "en",
    "your_function": "your function",
    "problem": {
        "too_long": "{function} ran longer than {seconds:g} s: is there an endless loop?",
        "rebound": "your code replaced Python builtins ({names}): remove that",
        "foreign": "{function} sampled with {others}, not torch.multinomial; the checks script what "
                   "torch.multinomial hands out, so sample with torch.multinomial(weights, 1) (the other checks handed "
                   "the same scripted tokens to {others}, so they read the rest of your function as it is)",
        "replaced": "your code replaced torch.rand or torch.multinomial: call them, and leave them alone",
        "not_written": "NotImplementedError: {function} is not written yet; replace the raise line with your code",
        "no_num_samples": "torch.multinomial was called without num_samples ({error}): torch has no default for it; "
                          "draw one token with torch.multinomial(weights, 1)",
        "refused": "torch.multinomial refused what you gave it ({error}): pass the weights of one row, none negative "
                   "and not all zero",
        "raised": "{function} raised {error}",
        "not_list": "{function} should return a plain Python list of token ids (ints), but it returned a {type}: "
                    "{result}",
        "not_list_short": "{function} should return a plain Python list of token ids",
        "not_ids": "{function} returned a list whose items are not all Python ints ({types}): a token id from "
                   "draft_tokens[i] or from torch.multinomial is a tensor until int(...) makes it an int",
    },
    # torch.multinomial's refusals (the stand-in's too), in _REFUSALS' order, as a student reads them.
    "refusals": [
        "prob_dist must be 1 or 2 dim",
        "probability tensor contains either `inf`, `nan` or element < 0",
        "invalid multinomial distribution (sum of probabilities <= 0)",
        'multinomial() missing 1 required positional arguments: "num_samples"',
    ],
    "hidden": {
        "raised": "{error} raised by {function} (its message is not shown for hidden checks)",
        "not_list": "{function} should return a plain Python list of token ids (ints), but it returned a {type}",
        "value": "[hidden]",
    },
    "calls": {"rand": "rand", "multinomial": "multinomial", "none": "none", "separator": ", "},
    "distribution": {
        "not_normalised": "the correction was drawn from max(0, p - q) without normalising it: its values sum to "
                          "{total}, not 1. Divide the residual by its sum before torch.multinomial",
        "from_p": "the correction was drawn from p, the target's row: after a rejection, draw from the residual "
                  "max(0, p - q), normalised",
        "from_q": "the correction was drawn from q, the draft's row: draw from the residual max(0, p - q), normalised",
        "flipped": "the correction was drawn from max(0, q - p): the residual is max(0, p - q), target minus draft",
        "other_row": "the correction used row {j}, but the rejection was at position {i}: take the residual of row i, "
                     "the rejected position",
        "other": "the correction was drawn from {values}, not from the normalised residual max(0, p - q) of row {i}, "
                 "{want}",
    },
    "correction": {
        "never_called": "torch.multinomial was never called: after the rejection at position {i}, sample one "
                        "correction token with torch.multinomial(residual, 1)",
        "too_few_coins": "torch.rand was called {coins} time(s), but the rejection at position {i} needs {needed} "
                         "coin(s) first (one per p < q position, as in Level 23)",
        "before_coin": "torch.multinomial was called before the coin that rejected (calls in order: {calls}): draw "
                       "the correction only after a rejection",
        "too_many": "torch.multinomial was called {count} times: after a rejection, draw exactly one correction "
                    "token, then stop",
        "samples": "torch.multinomial was asked for {n} samples: one correction token needs num_samples=1",
    },
    "tokens": "got {got}, expected {expected}",
    "tensor_differs": "with draft_tokens as a torch.LongTensor the result was {got}; with the same ids as a list, "
                      "{listed}",
    "after_correction": {
        "coins": "torch.rand was called {coins} time(s); the rejection at position {i} was coin number {needed}, and "
                 "nothing after the correction is verified",
        "drafts": "got {got}: after the correction for position {i}, the later drafts {later} came back as well",
    },
    "rejected_kept": "got {got}: the rejected draft {token} came back, though position {i} was rejected",
    "tokens_why": "got {got}, expected {expected}: {why}",
    "bonus": {
        "never_called": "all {k} drafts were accepted but torch.multinomial was never called: sample one bonus token "
                        "from target_probs[{k}] (row K)",
        "too_many": "torch.multinomial was called {count} times: one bonus token needs exactly one call",
        "samples": "torch.multinomial was asked for {n} samples: the bonus needs num_samples=1",
        "row_k_minus_1": "the bonus token was drawn from target_probs[{row}] (row K-1): after K accepted drafts the "
                         "next token's distribution is target_probs[{k}] (row K)",
        "from_draft": "the bonus token was drawn from the draft's row: draw it from the target, target_probs[{k}]",
        "other": "the bonus token was drawn from {values}, not from target_probs[{k}] = {want}",
    },
    "order": {
        "too_few_coins": "torch.rand was called {coins} time(s), but this case needs {needed} coin(s) first, one per "
                         "p < q position, as in Level 23",
        "before_coin": "torch.multinomial was called before a coin (calls in order: {calls}): sample the new token "
                       "only once the coins have decided",
    },
    "one_new": {
        "calls": "torch.multinomial was called {count} time(s): a step draws exactly one new token, with exactly "
                 "one call",
        "samples": "torch.multinomial was asked for {n} samples: one new token needs num_samples=1",
        "count": "got {count} token(s), {tokens}: the accepted prefix here has {accepted}, and exactly one new "
                 "token follows it",
    },
    "check": {"problem": "{problem}."},
    "pair": {
        "not_written": "NotImplementedError: verify_drafts is not written yet; replace the raise line with your code",
        "raised": "verify_drafts raised {error} in {where} on {state}",
        "stopped": "verify_drafts gave no answer for step {n}",
        "state": "step {n} (K = {k}, temperature {temperature}: {what})",
        "labels": {"all": "the step accepts every draft", "first": "the step rejects the first draft",
                   "last": "the step rejects only the last draft", "middle": "the step rejects a draft in the middle",
                   "empty": "no drafts"},
        "no_cache": "on {state}, verify_drafts called the target without its cache (target(...) or target.forward): "
                    "the call is target.forward_cached([last_token] + draft_tokens, cache)",
        "other_cache": "on {state}, verify_drafts called forward_cached on a cache other than the one it was given (a "
                       "copy or a new one), so the text's cache never saw the step",
        "calls": "on {state}, verify_drafts made {calls} target calls; a step makes exactly one, on [last_token] + "
                 "draft_tokens",
        "positions": "on {state}, the target call was on {n} positions, {what}; with K = {k} drafts it is on "
                     "[last_token] + draft_tokens, K + 1 = {k1} positions",
        "without_last": "the drafts without last_token",
        "other_ids": "not [last_token] + draft_tokens",
        "no_tokens": "on {state}, verify_drafts returned no token ids to check the cache against",
        "shrunk": "after {state}, the cache held {length} positions, fewer than the {start} it held before the step",
        "cache": "after {state}, the cache grew by {new} positions, not by len(tokens) = {returned} (last_token and "
                 "the drafts the step kept: start + len(tokens))",
        "no_probe": "after {state}, the target could not be called on the cache the step left",
        "contents": "after {state}, the cache grew by len(tokens) = {returned} positions, but they are not the "
                    "text's: the next call on it gave other rows than on a cache of the text",
        "tokens": "on {state}, verify_drafts returned {got}; the step gives {want} ({accepted} of its drafts "
                  "accepted, then the token torch.multinomial hands out)",
        "tokens_hidden": "on {state}, verify_drafts returned other tokens than the step's (len(tokens) = {n}, the "
                         "step's {m}: {accepted} of its drafts accepted, then the token torch.multinomial hands out)",
        "no_multinomial": "on {state}, verify_drafts made no torch.multinomial call; the step draws its new token "
                          "with one",
        "weights_shape": "on {state}, torch.multinomial was not given a row of the 128 token probabilities",
        "weights": "on {state}, the row passed to torch.multinomial differs from the step's {where} by up to {gap} "
                   "(both normalised)",
        "bonus_row": "bonus row (row K of the target's rows at this temperature)",
        "residual_row": "residual max(0, p - q) at row {i} (the target's rows at this temperature, and draft_probs)",
        "samples_raised": "verify_drafts raised {error} in repeated step {n}",
        "samples_missing": "verify_drafts did not return a token id in each of the {n} repeated steps",
        "samples": "over {n} steps with real random draws at temperature {temperature}, the first token's distribution "
                   "is {tv} (total variation) from the target's row; if verify_drafts were right, a gap at least this "
                   "large would come up with probability {p}",
    },
    "contract": {
        "rule": "the tests hand one scripted value to each torch.rand(1) call, one per p < q position, in position "
                "order, and record each torch.multinomial call",
        "shapes": "torch.rand was asked for the shape(s) {shapes}: {rule}. Flip one coin at a time, torch.rand(1), "
                  "inside the loop",
        "too_many": "torch.rand was called {calls} times, but this case has {coins} p < q position(s) before the step "
                    "ends: {rule}. Flip one coin at each p < q position and none where p >= q (keep the given loop)",
    },
    "visible": {
        "foreign": "Your function sampled with {others}. The tests script the tokens torch.multinomial hands out: "
                   "sample with torch.multinomial(weights, 1), as the lesson does.",
        "n1_tokens": "position 0 is accepted (p >= q) and position 1 rejected, so the result is token 0, then the "
                     "correction token torch.multinomial gave (2)",
        "n2_rejected": "after the rejection the step returns the prefix [0] and the correction token 2, and nothing "
                       "more",
        "n2_accepted": "both drafts were accepted (r = 0.1 < 0.4), so the step returns [0, 1] and the bonus token "
                       "torch.multinomial gave (3)",
    },
    "say": {
        "n1_passed": "Visible test passed: [0, 2], one multinomial call on the residual [0.75, 0, 0.25, 0], after "
                     "the coin.",
        "n3_passed": "Visible test passed: on {steps} steps, one target call of K + 1 positions each, the cache left "
                     "holding the text, the step's tokens, and above temperature 0 the right row for torch.multinomial.",
        "n2_passed": "Visible test passed: [0, 2] after a rejection, [0, 1, 3] with the bonus from target_probs[2].",
        "never_called_after_reject": "torch.multinomial was never called after the rejection",
        "called_without_reject": "torch.multinomial was called {count} time(s) although nothing was rejected",
        "coins_where_p_below_q": "torch.rand was called {count} times; only position 2 has p < q",
        "n1_inputs_unchanged": "verify_and_correct changed draft_probs, target_probs or draft_tokens: compute the "
                               "residual in a new tensor (no in-place -=, /= or clamp_ on a row of the inputs).",
        "n1_distribution": "The emitted token's distribution is {tv:.2f} (total variation) away from the right one.",
        "n2_inputs_unchanged": "speculative_step changed draft_probs, target_probs or draft_tokens: compute new "
                               "tensors (no in-place -=, /= or clamp_ on the inputs' rows).",
        "n2_first_token": "Over drafts sampled from q, the first token is {tv:.2f} (total variation) away from the "
                          "target p.",
        "n2_tokens_per_step": "A step returned {mean:.2f} tokens on average; expected {want:.2f}.",
    },
}
# ---------------------------------------------------------------- text: END TEXT


def say(key, **blanks):
    """The edition's sentence ``key`` (from TEXT["say"] or TEXT["hint"]), with its blanks filled in."""
    table = TEXT["say"] if key in TEXT["say"] else TEXT["hint"]
    return table[key].format(**blanks)


# A failed visible test's message, as the traceback's last lines: JupyterLab wraps a long line anywhere, mid-word,
# and nbgrader's Validate dialog does not wrap at all (it cuts the text at its right edge). Lines of at most
# LINE_WIDTH columns fit both, and each sentence (the fix is the last) starts a line of its own.
LINE_WIDTH = 60
_AFTER_NAME = len("AssertionError: ")
_WIDE = re.compile("[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]")
_PIECE = re.compile(r"\s+|" + _WIDE.pattern + r"|(?:(?!" + _WIDE.pattern + r")\S)+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(])|(?<=[\u3002\uff01\uff1f])")  # full-width . ! ?
# never the first thing on a line: full-width , . ; : enumeration comma ) ! ? and closing quotes; a comparison operator
_NO_LINE_START = re.compile(r"[\uff0c\u3002\uff1b\uff1a\u3001\uff09\uff01\uff1f\u201d\u2019\u300b\u300d]|[<>=!]=?$")


def _columns(piece):
    """Columns ``piece`` takes in a monospaced font: two for a CJK character."""
    n = 0
    for c in piece:
        n += 2 if _WIDE.match(c) else 1
    return n


def _lists_whole(text, width):
    """``text`` with the spaces of each outermost [...] that fits in ``width`` made unbreakable ("\\0")."""
    out, start, depth, i = "", 0, 0, 0
    for c in text:
        if c == "[":
            if depth == 0:
                out, start = out, i
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        i += 1
        if depth == 0 and c == "]" and _columns(text[start:i]) <= width:
            out += text[start:i].replace(" ", "\0")
        elif depth == 0:
            out += text[start:i] if c == "]" else c
    return out + (text[start:] if depth else "")


def readable(text, width=LINE_WIDTH, first=_AFTER_NAME):
    """``text`` in lines of at most ``width`` columns, broken between words (or between CJK characters), a short
    [list] kept on one line, each sentence from a new line; the first line leaves ``first`` columns for the
    exception's name before it. What it cannot lay out comes back unchanged."""
    try:
        lines = []
        for sentence in _SENTENCE.split(_lists_whole(text.strip(), width - first)):
            line, col, space = "", 0, False
            for piece in _PIECE.findall(sentence):
                if piece.isspace():
                    space = line != ""
                    continue
                cols, sep = _columns(piece), " " if space else ""
                limit = width - first if lines == [] else width
                if line != "" and col + 1 + cols > limit and not _NO_LINE_START.match(piece):
                    lines.append(line)
                    line, col = piece, cols
                else:
                    line, col = line + sep + piece, col + (1 if space else 0) + cols
                space = False
            if line != "":
                lines.append(line)
        return "\n".join(lines).replace("\0", " ")
    except Exception:
        return text


_type = (0).__class__.__class__   # type
_list = [].__class__              # list
_int = (0).__class__              # int
_dict = {}.__class__              # dict
_float = (0.0).__class__          # float
_tuple = ().__class__              # tuple
# Functions the student writes, and the helpers that call one of them. When grading, the
# checks run in the grader's own process and these helpers call the student's function
# in the student's sandboxed kernel (grading/judge/verdicts.py); results come back as plain data.
STUDENT_FUNCTIONS = ("verify_and_correct", "speculative_step")
REMOTE_HELPERS = ("run_step", "sample_steps", "run_cases")
TRACED_HELPERS = ("run_step",)    # what the diagnosis line compares (grading/judge/diagnosis.py)
_equal, _is_tensor = torch.equal, torch.is_tensor  # taken before any student code runs
_initial_seed = torch.initial_seed
_real_rand, _real_multinomial, _real_method = torch.rand, torch.multinomial, torch.Tensor.multinomial
_OVERFLOW_DRAW = 0.999  # handed out past the script: it rejects almost anything
_OVERFLOW_PICK = 0      # token id handed out past the script
# Where else a function might sample a token: while a scripted call runs, each of these is a stand-in that records
# its weights as a torch.multinomial call and hands out the same scripted tokens, and records its name. So a function
# that samples with numpy.random.choice is graded on what it samples from, and the source is charged once, by the
# one-call check and the visible test (the lesson scripts torch.multinomial, and says so). torch.distributions'
# Categorical calls torch.multinomial itself.
FOREIGN = ("numpy.random.choice", "random.choices")
SAMPLERS = ("torch.multinomial",) + FOREIGN
CALL_BUDGET_SECONDS = 1.0
SAMPLE_BUDGET_SECONDS = 8.0  # for a few thousand calls (about 0.3 ms each), inside the 10 s limit of a check
DIGITS = 7              # values passed to torch.multinomial are reported to 7 decimals (checks use 1e-6)
TOLERANCE = 1e-6


class TimeBudgetExceeded(Exception):
    """The function ran longer than its budget (probably an endless loop)."""


@contextlib.contextmanager
def seeded(seed):
    """Seed torch, random and numpy for a block, then put their states back."""
    try:
        import numpy
    except ImportError:
        numpy = None
    saved = torch.get_rng_state(), random.getstate(), numpy.random.get_state() if numpy else None
    # The CPU generator alone: torch.manual_seed also queues a seed for each accelerator torch could start
    # later, with a record of the caller's stack, at every call.
    torch.default_generator.manual_seed(seed)
    random.seed(seed)
    if numpy:
        numpy.random.seed(seed)
    try:
        yield
    finally:
        torch.set_rng_state(saved[0])
        random.setstate(saved[1])
        if numpy:
            numpy.random.set_state(saved[2])


@contextlib.contextmanager
def time_budget(seconds, name=None):
    """Raise TimeBudgetExceeded in the main thread after ``seconds`` (no-op elsewhere)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def _expired(signum, frame):
        raise TimeBudgetExceeded(typeset(TEXT["problem"]["too_long"].format(function=name or TEXT["your_function"],
                                                                            seconds=seconds)))

    previous = signal.signal(signal.SIGALRM, _expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


_BUILTIN_FUNCTION = _type([].append)
_NAMES_USED_HERE = ("tuple", "float", "round", "any", "all", "zip", "enumerate", "repr", "max", "range", "bool",
                    "getattr", "TypeError", "BaseException", "RuntimeError")


def _rebound_builtins():
    """Names of builtins this module uses that no longer hold Python's own objects."""
    table = builtins.__dict__
    bad = []
    for name in _NAMES_USED_HERE:
        obj = table.get(name)
        genuine = _type(obj) is _BUILTIN_FUNCTION or (_type(obj) is _type and obj.__module__ == "builtins")
        if not genuine:
            bad.append(name)
    return bad


def _count(items):
    return items.__len__()


# ------------------------------------------------------------------ cases

class Case:
    """One test input: full probability rows of both models and the drafted tokens.

    ``draft_rows`` has K rows (the draft's distribution at each drafted position),
    ``target_rows`` has K rows (notebook 01) or K + 1 rows (notebook 02: the last one is
    the target's distribution after all K drafts), each over the same V tokens.
    ``tokens_as="tensor"`` passes the token ids as a ``torch.LongTensor``.
    """

    def __init__(self, draft_rows, target_rows, draft_tokens, tokens_as="list"):
        draft_rows = [[_float(x) for x in row] for row in draft_rows]
        target_rows = [[_float(x) for x in row] for row in target_rows]
        self.wire = [draft_rows, target_rows, [_int(t) for t in draft_tokens], tokens_as]
        vocab = _count(target_rows[0])
        self.vocab = vocab
        self.draft_probs = torch.tensor(draft_rows, dtype=torch.float32).reshape(_count(draft_rows), vocab)
        self.target_probs = torch.tensor(target_rows, dtype=torch.float32).reshape(_count(target_rows), vocab)
        ids = [_int(t) for t in draft_tokens]
        self.ids = ids
        self.draft_tokens = torch.tensor(ids, dtype=torch.long) if tokens_as == "tensor" else ids

    @property
    def k(self):
        return _count(self.ids)

    def p_over_q(self, i):
        token_id = self.ids[i]
        return self.target_probs[i, token_id].item() / self.draft_probs[i, token_id].item()

    def row(self, which, i):
        """Row ``i`` of the target ("p") or draft ("q") as float64 values."""
        probs = self.target_probs if which == "p" else self.draft_probs
        return [_float(x) for x in probs[i].double()]


def residual(case, i, normalised=True, flip=False):
    """max(0, p - q) at row i (``flip``: max(0, q - p)), normalised to sum 1 unless told not to."""
    p, q = case.row("p", i), case.row("q", i)
    values = [max(0.0, (b - a) if flip else (a - b)) for a, b in zip(p, q)]
    total = sum(values)
    if normalised and total > 0:
        values = [v / total for v in values]
    return values


def acceptance_rate(case, i=0):
    """alpha at row i: sum over tokens of min(p, q)."""
    return sum(min(a, b) for a, b in zip(case.row("p", i), case.row("q", i)))


def lesson_case():
    """The lesson's small example: a vocabulary of 4 tokens, one drafted position (token 1)."""
    return Case([LESSON_Q], [LESSON_P], [1])


LESSON_P = [0.5, 0.2, 0.2, 0.1]   # the target's row p over tokens 0..3
LESSON_Q = [0.2, 0.5, 0.1, 0.2]   # the draft's row q


# ------------------------------------------------------------------ scripted randomness

_MISSING = object()
NO_NUM_SAMPLES = 'multinomial() missing 1 required positional arguments: "num_samples"'  # torch's own TypeError
NO_SAMPLES = -1  # a torch.multinomial call without num_samples, as recorded


def _samples_taken(n):
    """How many picks a recorded torch.multinomial call took per row: NO_SAMPLES is read as one sample."""
    return 1 if n == NO_SAMPLES else max(n, 0)

class Script:
    """Stand-ins for torch.rand and torch.multinomial that share one record of calls, in order."""

    def __init__(self, draws=(), picks=(), refuse=False):
        self.refuse = refuse   # raise as torch does on weights it refuses (notebook 03); else record them, read on
        self.draws = [_float(d) for d in draws]
        self.picks = [_int(t) for t in picks]
        self.events = []       # ["rand", shape] or ["multinomial", num_samples, values]
        self.sources = []      # the sampler each multinomial event came from, in order
        self.rand_calls = self.pick_calls = 0

    def rand(self, *size, **kwargs):
        shape = kwargs.get("size", size[0] if _count(size) == 1 and _type(size[0]) is not _int else size)
        try:
            shape = tuple(_int(n) for n in shape)
        except TypeError:
            shape = ()
        self.events.append(["rand", [n for n in shape]])
        value = self.draws[self.rand_calls] if self.rand_calls < _count(self.draws) else _OVERFLOW_DRAW
        self.rand_calls += 1
        if shape == (1,) or any(n < 1 for n in shape) or not shape:
            return torch.tensor([value], dtype=torch.float64)
        return torch.full(shape, value, dtype=torch.float64)

    def multinomial(self, input, num_samples=_MISSING, replacement=False, *, generator=None, out=None,
                    source="torch.multinomial"):
        weights = input.detach().double()
        if weights.dim() not in (1, 2):
            raise RuntimeError("prob_dist must be 1 or 2 dim")
        # torch has no default for num_samples and raises TypeError; the call is read as one sample, and recorded as
        # NO_SAMPLES, so one check says it (num_samples_problem) and the others read through it
        n = NO_SAMPLES if num_samples is _MISSING else _int(num_samples)
        rows = weights if weights.dim() == 2 else weights.reshape(1, -1)
        values = [round(_float(x), DIGITS) for x in rows.reshape(-1)]
        self.events.append(["multinomial", n, values])
        self.sources.append(source)
        if self.refuse and (not bool(torch.isfinite(weights).all()) or bool((weights < 0).any())):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if self.refuse and bool((rows.sum(dim=1) <= 0).any()):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        chosen = []
        for _ in range(rows.shape[0] * _samples_taken(n)):
            chosen.append(self.picks[self.pick_calls] if self.pick_calls < _count(self.picks) else _OVERFLOW_PICK)
            self.pick_calls += 1
        result = torch.tensor(chosen, dtype=torch.long).reshape(rows.shape[0], _samples_taken(n))
        return result if weights.dim() == 2 else result.reshape(-1)

    @property
    def drawn_with(self):
        """The samplers the multinomial events came from, in the order of SAMPLERS."""
        return [source for source in SAMPLERS if source in self.sources]

    def stand_in(self, source):
        """A function for ``source`` (one of FOREIGN) that answers as it would, with this script's picks."""
        return _sampler(source, lambda weights, n: self.multinomial(weights, n, source=source))

    def method(self):
        script = self

        def multinomial(tensor, num_samples=_MISSING, replacement=False, *, generator=None):
            return script.multinomial(tensor, num_samples, replacement)
        return multinomial


def _sampler(source, sample):
    """A function for ``source`` (one of FOREIGN) that answers as it would, with the token ids ``sample(weights, n)``
    hands out (a LongTensor of n ids)."""
    if source == "random.choices":
        def choices(population, weights=None, *, cum_weights=None, k=1):
            items = _list(population)
            if cum_weights is not None:
                cum = [_float(w) for w in cum_weights]
                weights = [b - a for a, b in zip([0.0] + cum[:-1], cum)]
            w = torch.tensor([_float(x) for x in weights] if weights is not None else [1.0] * _count(items),
                             dtype=torch.float64)
            return [items[_int(t)] for t in sample(w, _int(k)).tolist()]
        return choices

    def choice(a, size=None, replace=True, p=None):  # numpy.random.choice
        import numpy
        whole = _type(a) is _int or isinstance(a, numpy.integer)  # choice(5): one of range(5)
        w = torch.tensor(numpy.asarray(p, dtype=numpy.float64).reshape(-1).tolist() if p is not None
                         else [1.0] * (_int(a) if whole else _count(a)), dtype=torch.float64)
        shape = () if size is None else (_tuple(size) if not isinstance(size, (_int, numpy.integer)) else (size,))
        picks = numpy.asarray(sample(w, max(1, math.prod(shape))).tolist(), dtype=numpy.int64)
        chosen = picks if whole else numpy.asarray(a)[picks]
        return chosen[0] if size is None else chosen.reshape(shape)
    return choice


class Run:
    """What one call of the student's function did."""

    result = tokens = error = problem = None
    result_type, result_repr = "NoneType", "None"
    function = TEXT["your_function"]
    events = ()
    drawn_with = ()           # the samplers the multinomial events came from: SAMPLERS' names, in their order
    inputs_changed = replaced = reseeded = False  # reseeded: the call set torch's seed itself
    rebound = ()
    plain = True              # the result was a plain list of Python ints (tokens reads through the rest)
    item_types = ()           # the type names of its items that are not ints
    exception = ename = None  # the student's exception (in the kernel), its type's name (in the grader)
    after = ()                # the inputs after the call (in the kernel)
    k = 0                     # the case's number of drafted positions
    shown = None              # set by hide(): counts and the call order are then shown only when small

    def _said(self, value, size):
        return value if self.shown is None else self.shown(value, size <= self.k + 2)

    @property
    def multinomials(self):
        return [(e[1], e[2]) for e in self.events if e[0] == "multinomial"]

    @property
    def foreign(self):
        """The samplers other than torch.multinomial that the tokens came from."""
        return [source for source in self.drawn_with if source != "torch.multinomial"]

    @property
    def rand_calls(self):
        calls = sum(1 for e in self.events if e[0] == "rand")
        return self._said(calls, calls)

    @property
    def order(self):
        """The calls as a string: r for torch.rand, m for torch.multinomial (e.g. 'rrm')."""
        order = "".join("r" if e[0] == "rand" else "m" for e in self.events)
        return self._said(order, _count(order))

    def __repr__(self):
        return f"Run(tokens={self.tokens!r}, order={self.order!r}, problem={self.problem!r})"


def _token_id(item):
    """An int, or a one-value integer tensor (draft_tokens[i], torch.multinomial's [1]) read as its id; else None."""
    if _type(item) is _int:
        return item
    if _is_tensor(item) and item.numel() == 1 and item.dtype in _ID_DTYPES:
        return _int(item.reshape(-1)[0].item())
    return None


_ID_DTYPES = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)


def _read_tokens(result, limit):
    """The result read as token ids wherever the intent is plain (a list or tuple of ints or of one-value integer
    tensors, a 1-D integer tensor), at most ``limit`` of them; None when it cannot be read so. Whether it was the
    plain list of ints the TODO asks for is one check's question (plain_problem), not every check's."""
    if _is_tensor(result):
        if result.dim() != 1 or result.dtype not in _ID_DTYPES:
            return None
        items = [result[n] for n in range(min(result.shape[0], limit))]
    elif _type(result) in (_list, _tuple):
        items = _list(result[:limit])
    else:
        return None
    ids = [_token_id(x) for x in items]
    return None if any(t is None for t in ids) else ids


def _as_tokens(result):
    """The result as a list of Python ints, or None when it is not a plain list of ids. A token id is an int:
    a tensor in the list (a 0-d tensor from draft_tokens[i], torch.multinomial's [1]) is not one, as the TODO says."""
    if _type(result) is not _list or not all(_type(item) is _int for item in result):
        return None
    return _list(result)


def _snapshot(case):
    tokens = case.draft_tokens
    return (case.draft_probs.clone(), case.target_probs.clone(),
            tokens.clone() if _is_tensor(tokens) else _list(tokens))


def _same(a, b):
    if _is_tensor(a):
        return _is_tensor(b) and a.shape == b.shape and a.dtype == b.dtype and _equal(a, b)
    return _type(b) is _list and a == b


CALL_SEED = 2400  # torch's seed while the student's function runs (seeded)


def _aliased(function, swaps):
    """Each global of ``function`` bound to a real function of ``swaps`` ({real: stand-in}; ``from torch import
    multinomial`` binds it at import, where replacing torch's attribute does not reach) is the stand-in until the
    call ends: torch.rand and torch.multinomial called by any name get the scripted values. Returns what to put back."""
    names = getattr(function, "__globals__", None)
    found = [(n, v) for n, v in _list(names.items()) if any(v is r for r in swaps)] if _type(names) is _dict else []
    for name, real in found:
        names[name] = swaps[real]
    return found


def _foreign(stand_in):
    """Each loaded FOREIGN sampler's module attribute is ``stand_in(source)`` until put back; returns
    (what to put back, {real: stand-in} for _aliased)."""
    put, swaps = [], {}
    for source in FOREIGN:
        where, _, name = source.rpartition(".")
        owner = sys.modules.get(where.partition(".")[0])  # numpy only when it is loaded
        owner = getattr(owner, "random", None) if where == "numpy.random" else owner  # numpy loads it when asked
        if owner is None or not hasattr(owner, name):
            continue
        real = getattr(owner, name)
        fake = stand_in(source)
        setattr(owner, name, fake)
        put.append((owner, name, real))
        swaps[real] = fake
    return put, swaps


def _put_back(put, aliases, function):
    for owner, name, real in put:
        setattr(owner, name, real)
    for name, real in aliases:
        function.__globals__[name] = real


def run_step(function, case, draws=(), picks=()):
    """Call ``function(draft_probs, target_probs, draft_tokens)`` with scripted randomness; return a ``Run``."""
    run = Run()
    run.function, run.k = _name(function), case.k
    before = _snapshot(case)
    script = Script(draws, picks)
    fakes = (script.rand, script.multinomial, script.method())
    torch.rand, torch.multinomial, torch.Tensor.multinomial = fakes
    put, swaps = _foreign(script.stand_in)
    aliases = _aliased(function, {_real_rand: script.rand, _real_multinomial: script.multinomial, **swaps})
    try:
        with time_budget(CALL_BUDGET_SECONDS, run.function), seeded(CALL_SEED):
            try:
                run.result = function(case.draft_probs, case.target_probs, case.draft_tokens)
            finally:  # torch.manual_seed (or torch.seed) inside the function changes the seed torch reports
                run.reseeded = _initial_seed() != CALL_SEED
    except BaseException as exc:  # the student's error is what we report
        run.exception, run.ename = exc, _type(exc).__name__
        run.error = f"{run.ename}: {exc}"
    finally:
        now = (torch.rand, torch.multinomial, torch.Tensor.multinomial)
        run.replaced = not all(a is b for a, b in zip(now, fakes))
        torch.rand, torch.multinomial, torch.Tensor.multinomial = _real_rand, _real_multinomial, _real_method
        _put_back(put, aliases, function)
    run.events, run.drawn_with = script.events, script.drawn_with
    strict = _as_tokens(run.result)
    run.plain = strict is not None
    run.tokens = strict if run.plain else _read_tokens(run.result, case.k + 1 + MAX_TOKENS_OVER)
    if not run.plain and _type(run.result) is _list:
        run.item_types = _list(dict.fromkeys(_type(x).__name__[:20] for x in run.result[:50] if _type(x) is not _int))
    run.result_type, run.result_repr = _type(run.result).__name__, repr(run.result)[:80]
    run.after = (case.draft_probs, case.target_probs, case.draft_tokens)
    run.inputs_changed = not all(_same(b, a) for b, a in zip(before, run.after))
    run.rebound = _rebound_builtins()
    run.problem = _first_problem(run, run.function)
    return run


class Cases:
    """Several cases sent to the kernel at once (``run_cases``): the grader's generated cases."""

    def __init__(self, cases):
        self.cases = _list(cases)
        self.wire = ["cases", [case.wire for case in self.cases]]
        self.ids, self.vocab = [], 0

    @property
    def k(self):
        return 0


MAX_CASES = 1000            # cases in one run_cases call
CASES_BUDGET_SECONDS = 4.0  # of the kernel's own CPU time for one run_cases call (each call keeps its own budget)


def run_cases(function, cases, draws, picks):
    """``run_step`` on each of ``cases.cases`` with its scripted ``draws[j]`` and ``picks[j]``, in order: a list of
    Runs. It stops after the first call cut by its time budget, or when the calls have taken CASES_BUDGET_SECONDS of
    the kernel's own CPU time together, which another process's load does not spend (the grader reads the cases not
    run as not run)."""
    import time
    runs, start = [], time.process_time()
    try:
        for case, d, p in zip(cases.cases, draws, picks):
            runs.append(run_step(function, case, draws=d, picks=p))
            if runs[-1].ename == "TimeBudgetExceeded" or time.process_time() - start > CASES_BUDGET_SECONDS:
                break
    except BaseException:  # the course's code around a call failed: the cases not run are read as not run
        pass
    return runs


def check_generated(function, mission):
    """The hidden check of the generated cases. It compares ``function`` with the grader's own reference on many
    generated drafts, so it runs in the grader only (grading/judge/generated.py, which replaces this function there):
    nothing of the reference is in this folder. Run in a kernel (an instructor's ``nbgrader validate`` of source/),
    there is nothing to compare with, and it passes."""
    return None


def digest(x):
    """A short fingerprint of one input's shape, type and values: run_cases sends these instead of the values (the
    grader computes the same of what it sent; a kernel that forges one could as well send the values it was sent)."""
    import hashlib
    if _is_tensor(x):
        data = f"{_list(x.shape)} {x.dtype} ".encode() + x.detach().double().contiguous().numpy().tobytes()
    elif _type(x) is _list:
        data = ("list " + repr([v if _type(v) is _int else None for v in x])).encode()
    else:
        data = _type(x).__name__.encode()
    return hashlib.sha256(data).hexdigest()[:24]


def _digest_of(case, n):
    """digest() of the case's n-th input as sent, made once per case."""
    kept = getattr(case, "_digests", None)
    if kept is None:
        kept = case._digests = [digest(v) for v in (case.draft_probs, case.target_probs, case.draft_tokens)]
    return kept[n]


def _name(function):
    name = getattr(function, "__name__", None)
    return name if name in STUDENT_FUNCTIONS else TEXT["your_function"]


_REFUSALS = ("RuntimeError: prob_dist must be 1 or 2 dim",
             "RuntimeError: probability tensor contains either `inf`, `nan` or element < 0",
             "RuntimeError: invalid multinomial distribution (sum of probabilities <= 0)",
             "TypeError: " + NO_NUM_SAMPLES)  # Script.multinomial's


def refusal(error):
    """torch.multinomial's refusal ``error`` ("RuntimeError: ..." or its message alone) in the edition's words."""
    for k, known in enumerate(_REFUSALS):
        if error in (known, known.split(": ", 1)[1]):
            return known.split(": ", 1)[0] + ": " + TEXT["refusals"][k] if error == known else TEXT["refusals"][k]
    return error


def _first_problem(run, name, hidden=False):
    """The first thing wrong with the run, or None; ``hidden``: in words of the grader's only (hide())."""
    if run.rebound:
        return TEXT["problem"]["rebound"].format(names=", ".join(run.rebound))
    if run.replaced:
        return TEXT["problem"]["replaced"]
    if run.error is not None and run.error.split(":")[0] == "NotImplementedError":
        return TEXT["problem"]["not_written"].format(function=name)
    if run.error == "TypeError: " + NO_NUM_SAMPLES:
        return TEXT["problem"]["no_num_samples"].format(error=refusal(run.error))
    refused = run.error in _REFUSALS if hidden else (
        run.error is not None and ("multinomial" in run.error or "probability tensor" in run.error))
    if refused:
        return TEXT["problem"]["refused"].format(error=refusal(run.error))
    if run.error is not None and hidden:
        return HIDDEN_TEXT["raised"].format(error=run.ename, function=name)
    if run.error is not None:
        return TEXT["problem"]["raised"].format(function=name, error=run.error)
    if run.tokens is None and hidden:
        return HIDDEN_TEXT["not_list"].format(type=run.result_type, function=name)
    if run.tokens is None:
        return TEXT["problem"]["not_list"].format(function=name, type=run.result_type, result=run.result_repr)
    return None


def _close(values, expected, tol=TOLERANCE):
    return (_count(values) == _count(expected)
            and all(math.isfinite(a) and abs(a - b) <= tol for a, b in zip(values, expected)))


def _fmt(values):
    if not all(_type(v) in (_float, _int) for v in values):  # values hide() made not shown
        return HIDDEN_TEXT["value"]
    return "[" + ", ".join(f"{v:.3g}" for v in values) + "]"


def refused(values):
    """torch.multinomial's refusal of ``values`` (one call's weights, as recorded) in the edition's words, or None.
    The stand-in hands out a scripted token anyway, so only the checks that read the weights say it."""
    if not all(math.isfinite(v) and v >= 0 for v in values):
        return TEXT["problem"]["refused"].format(error=refusal(_REFUSALS[1]))
    if sum(values) <= 0:
        return TEXT["problem"]["refused"].format(error=refusal(_REFUSALS[2]))
    return None


def distribution_problem(values, case, i):
    """Why ``values`` (what was passed to torch.multinomial) is not row i's normalised residual, or None."""
    said = refused(values)
    if said:
        return said
    want = residual(case, i)
    if _close(values, want):
        return None
    raw = residual(case, i, normalised=False)
    if _close(values, raw):
        return TEXT["distribution"]["not_normalised"].format(total=f"{sum(raw):.3g}")
    if _close(values, case.row("p", i)):
        return TEXT["distribution"]["from_p"]
    if _close(values, case.row("q", i)):
        return TEXT["distribution"]["from_q"]
    if _close(values, residual(case, i, flip=True)) or _close(values, residual(case, i, False, flip=True)):
        return TEXT["distribution"]["flipped"]
    for j in range(case.draft_probs.shape[0]):
        if j != i and (_close(values, residual(case, j)) or _close(values, residual(case, j, normalised=False))):
            return TEXT["distribution"]["other_row"].format(j=j, i=i)
    return TEXT["distribution"]["other"].format(values=_fmt(values), i=i, want=_fmt(want))


# ------------------------------------------------------------------ the checks

def correction_problem(run, case, i, draws_before):
    """The correction after a rejection at position i, which used the coin number ``draws_before``.

    Checks, in order: no torch.multinomial call before that coin, exactly one after it, with
    num_samples=1 and row i's normalised residual; None when all hold.
    """
    if run.problem is not None:
        return run.problem
    order = run.order
    coins = [k for k, c in enumerate(order) if c == "r"]
    multis = run.multinomials
    if not multis:
        return TEXT["correction"]["never_called"].format(i=i)
    if _count(coins) < draws_before:
        return TEXT["correction"]["too_few_coins"].format(coins=_count(coins), i=i, needed=draws_before)
    rejecting = coins[draws_before - 1]
    if "m" in order[:rejecting]:
        return TEXT["correction"]["before_coin"].format(calls=_calls(order))
    if _count(multis) > 1:
        return TEXT["correction"]["too_many"].format(count=_count(multis))
    if multis[0][0] not in (1, NO_SAMPLES):  # NO_SAMPLES: num_samples_problem's
        return TEXT["correction"]["samples"].format(n=multis[0][0])
    return distribution_problem(multis[0][1], case, i)


def _calls(order):
    if _type(order) is not str:  # an order hide() made not shown
        return f"{order}"
    words = TEXT["calls"]
    return words["separator"].join(words["rand"] if c == "r" else words["multinomial"] for c in order) or words["none"]


def tokens_problem(run, expected):
    """The returned tokens against ``expected``; None when they match."""
    if run.problem is not None:
        return run.problem
    if run.tokens != [_int(t) for t in expected]:
        return TEXT["tokens"].format(got=run.tokens, expected=[_int(t) for t in expected])
    return None


def plain_problem(run):
    """Whether the result was the plain list of Python ints the TODO asks for (the other checks read a tuple, a 1-D
    integer tensor or one-value tensors as the ids they hold, so this is said here once)."""
    if run.problem is not None:
        return run.problem
    if run.plain:
        return None
    hidden = run.shown is not None
    if run.result_type == "list":
        return TEXT["problem"]["not_ids"].format(function=run.function, types=", ".join(run.item_types) or "?")
    if hidden:
        return HIDDEN_TEXT["not_list"].format(type=run.result_type, function=run.function)
    return TEXT["problem"]["not_list"].format(function=run.function, type=run.result_type, result=run.result_repr)


def tensor_problem(run, listed):
    """draft_tokens as a torch.LongTensor (``run``) against the same ids as a list (``listed``, same draws and picks):
    the same result, and a plain list of ints. A problem both runs share is another check's."""
    if run.problem is not None and run.problem != listed.problem:
        return run.problem
    if run.problem is None and listed.problem is None and (run.tokens != listed.tokens or run.order != listed.order):
        return TEXT["tensor_differs"].format(got=run.tokens, listed=listed.tokens)
    return plain_problem(run) if run.problem is None else None


def picked(run, case, picks):
    """The token id each torch.multinomial call of the run was handed, in call order (one value per call: the
    first sample of its first row), from the scripted ``picks``."""
    out, used = [], 0
    for n, values in run.multinomials:
        n = n if _type(n) is _int else 1
        rows = max(1, _count(values) // case.vocab) if case.vocab else 1
        out.append(_int(picks[used]) if used < _count(picks) else _OVERFLOW_PICK)
        used += _samples_taken(n) * rows
    return out


def correction_call(run, coins_before):
    """Which torch.multinomial call is the correction for the rejection by coin number ``coins_before``: the first
    one after that coin, else the last one before it (drawn too early: call_order's question); None if none."""
    order = run.order
    if _type(order) is not str:
        return None
    coins = [k for k, c in enumerate(order) if c == "r"]
    calls = [k for k, c in enumerate(order) if c == "m"]
    if not calls:
        return None
    at = coins[coins_before - 1] if coins_before and _count(coins) >= coins_before else -1
    after = [n for n, k in enumerate(calls) if k > at]
    return after[0] if after else _count(calls) - 1


def residual_problem(run, case, i, coins_before):
    """The values of the correction call (read by its role, not its place) against row i's normalised residual."""
    if _calls_unread(run):
        return run.problem
    call = correction_call(run, coins_before)
    if call is None:
        return TEXT["say"]["never_called_after_reject"]
    return distribution_problem(run.multinomials[call][1], case, i)


def correction_token(run, case, picks, coins_before):
    """The id the correction call was handed, or, without a call, the first scripted pick."""
    call = correction_call(run, coins_before)
    return picked(run, case, picks)[call] if call is not None else _int(picks[0])


def appended_problem(run, case, prefix, picks, coins_before):
    """The accepted ``prefix``, then the token the correction call was handed, as the first new token. What may
    follow it is other checks' (one correction, nothing verified after it)."""
    if run.problem is not None:
        return run.problem
    want = [_int(t) for t in prefix] + [correction_token(run, case, picks, coins_before)]
    if run.tokens[:_count(want)] != want:
        return TEXT["tokens"].format(got=run.tokens, expected=want + (["..."] if _count(run.tokens) > _count(want) else []))
    return None


def after_correction_problem(run, case, i, coins_before):
    """Nothing after the correction for the rejection at position i is verified: no coin after the rejecting one,
    no later draft among the tokens after the correction."""
    if run.problem is not None:
        return run.problem
    coins = run.rand_calls
    if _type(coins) is _int and coins > coins_before:
        return TEXT["after_correction"]["coins"].format(coins=coins, i=i, needed=coins_before)
    later, extra = case.ids[i + 1:], run.tokens[i + 1:]
    if extra and extra == later[:_count(extra)]:
        return TEXT["after_correction"]["drafts"].format(got=run.tokens, i=i, later=later[:_count(extra)])
    return None


def first_rejection_problem(run, case, picks):
    """A rejection at position 0: the correction comes first, and the rejected draft does not come back."""
    if run.problem is not None:
        return run.problem
    want = correction_token(run, case, picks, 1)
    if run.tokens[:1] != [want]:
        return TEXT["tokens"].format(got=run.tokens, expected=[want])
    if case.ids[0] in run.tokens[1:] and case.ids[0] != want:
        return TEXT["rejected_kept"].format(got=run.tokens, token=case.ids[0], i=0)
    return None


def bonus_token(run, case, picks):
    """The id the bonus call (the last torch.multinomial call) was handed, or, without a call, the first pick."""
    handed = picked(run, case, picks)
    return handed[-1] if handed else _int(picks[0])


def new_tokens_problem(run, accepted, expected=None):
    """The step returned its accepted prefix plus exactly one new token (counted, not read)."""
    if run.problem is not None:
        return run.problem
    if _count(run.tokens) != accepted + 1 or (expected is not None and run.tokens[:accepted] != expected[:accepted]):
        return TEXT["one_new"]["count"].format(count=_count(run.tokens), tokens=run.tokens, accepted=accepted)
    return None


def bonus_problem(run, case):
    """All K drafts accepted: exactly one torch.multinomial call, after every coin, on the target's row K."""
    if _calls_unread(run):
        return run.problem
    multis = run.multinomials
    k = case.k
    if not multis:
        return TEXT["bonus"]["never_called"].format(k=k)
    if _count(multis) > 1:
        return TEXT["bonus"]["too_many"].format(count=_count(multis))
    if multis[0][0] not in (1, NO_SAMPLES):  # NO_SAMPLES: num_samples_problem's
        return TEXT["bonus"]["samples"].format(n=multis[0][0])
    values = multis[0][1]
    if _close(values, case.row("p", k)):
        return None
    said = refused(values)
    if said:
        return said
    if k > 0 and _close(values, case.row("p", k - 1)):
        return TEXT["bonus"]["row_k_minus_1"].format(row=k - 1, k=k)
    if k > 0 and _close(values, case.row("q", k - 1)):
        return TEXT["bonus"]["from_draft"].format(k=k)
    return TEXT["bonus"]["other"].format(values=_fmt(values), k=k, want=_fmt(case.row("p", k)))


def check(problem):
    """Raise AssertionError with what the check saw on its case when it saw a problem. No fixed fix is added: the
    grader says the failure follows from the diagnosed mistake only where that mistake explains this check
    (grading/judge/causes.py)."""
    if problem is not None:
        raise AssertionError(typeset(TEXT["check"]["problem"].format(problem=problem)))


def typeset(text):
    """``text`` with no space between two Chinese characters: a Chinese edition's "{function} <verb>" keeps its
    space after a function's name (verify_drafts) and loses it after the Chinese words for "your function"."""
    return re.sub("(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff])", "", text)


# ------------------------------------------------------------------ statistics

def sample_steps(function, case, trials, seed):
    """Run ``case`` ``trials`` times with the real torch.rand and torch.multinomial under a fixed seed.

    Returns (counts of the first emitted token per token id, mean number of tokens returned).
    The same seed gives the same draws, so the same code gets the same grade.
    """
    counts = [0] * case.vocab
    total = 0
    torch.rand, torch.multinomial, torch.Tensor.multinomial = _real_rand, _real_multinomial, _real_method
    # FOREIGN's samplers draw from torch's seeded generator too, so the same code gets the same grade
    put, swaps = _foreign(lambda source: _sampler(
        source, lambda weights, n: _real_multinomial(weights, n, replacement=True)))
    aliases = _aliased(function, swaps)
    try:
        with seeded(seed), time_budget(SAMPLE_BUDGET_SECONDS, _name(function)):
            for _ in range(trials):
                tokens = _read_tokens(function(case.draft_probs, case.target_probs, case.draft_tokens),
                                      case.k + 1 + MAX_TOKENS_OVER)
                if tokens is None:
                    raise AssertionError(typeset(TEXT["problem"]["not_list_short"].format(function=_name(function))))
                if tokens and 0 <= tokens[0] < case.vocab:
                    counts[tokens[0]] += 1
                total += _count(tokens)
    finally:
        torch.rand, torch.multinomial, torch.Tensor.multinomial = _real_rand, _real_multinomial, _real_method
        _put_back(put, aliases, function)
    return counts, total / trials


def tv_distance(counts, probs):
    """Total-variation distance between the empirical distribution of ``counts`` and ``probs``."""
    n = sum(counts)
    return 0.5 * sum(abs(c / n - p) for c, p in zip(counts, probs)) if n else 1.0


def chi_square(counts, probs):
    """(statistic, p-value) of Pearson's chi-square test of ``counts`` against ``probs``.

    Tokens with probability 0 must have count 0 (else the p-value is 0) and add no degree of freedom.
    """
    n = sum(counts)
    stat, cells = 0.0, 0
    for c, p in zip(counts, probs):
        if p <= 0:
            if c:
                return math.inf, 0.0
            continue
        stat += (c - n * p) ** 2 / (n * p)
        cells += 1
    dof = max(cells - 1, 1)
    p_value = torch.special.gammaincc(torch.tensor(dof / 2, dtype=torch.float64),
                                      torch.tensor(stat / 2, dtype=torch.float64)).item()
    return stat, p_value


def expected_tokens_per_call(alpha, k):
    """(1 - alpha^(K+1)) / (1 - alpha): tokens per target call when every position accepts with alpha."""
    return k + 1.0 if alpha >= 1 else (1 - alpha ** (k + 1)) / (1 - alpha)


def expected_speedup(alpha, k, c):
    """(1 - alpha^(K+1)) / ((1 - alpha)(K c + 1)): the speed-up when one draft call costs c target calls."""
    return expected_tokens_per_call(alpha, k) / (k * c + 1)


# ------------------------------------------------------------------ wire format
# The grader sends a Case and the script to the student's kernel, and reads back a Run
# as plain JSON data. The kernel never holds the expected answers or the checks.

MAX_EVENTS = 1000          # calls of torch.rand and torch.multinomial sent (the first ones)
MAX_EVENT_VALUES = 10_000  # values sent of one torch.multinomial call
MAX_DIMS = 8
MAX_VALUES = 100_000       # values of one input sent back; a larger input (resize_) counts as changed
MAX_TOKENS_OVER = 2        # tokens past the case's K + 1 that are sent (more cannot change a verdict)
MAX_COUNT = 10_000_000
_BIG = 2 ** 63
HIDDEN_TEXT = TEXT["hidden"]
SHOWN_TYPES = ("tuple", "Tensor", "generator", "dict", "set", "NoneType", "int", "float", "str", "map", "zip",
               "range", "ndarray", "bool", "list", "filter", "reversed", "list_iterator")


def case_from_wire(wire):
    if wire[0] == "cases":
        if _count(wire[1]) > MAX_CASES:
            raise ValueError("too many cases")
        return Cases([case_from_wire(w) for w in wire[1]])
    draft_rows, target_rows, tokens, tokens_as = wire
    return Case(draft_rows, target_rows, tokens, tokens_as=tokens_as)


def _state(x):
    """What one input holds after the call (in the kernel): [shape, dtype, values or None]."""
    if _is_tensor(x):
        values = x.detach().double().reshape(-1).tolist() if x.numel() <= MAX_VALUES else None
        return [[_int(n) for n in x.shape], str(x.dtype), values]
    if _type(x) is _list:
        values = [v if _type(v) is _int and -_BIG <= v < _BIG else None for v in x] if _count(x) <= MAX_VALUES else None
        return [[_count(x)], "list", values]
    return [[], _type(x).__name__[:20], None]


def _event_to_wire(e):
    if e[0] == "rand":
        return ["rand", [n for n in e[1][:MAX_DIMS]]]
    return ["multinomial", max(-_BIG, min(e[1], _BIG - 1)), e[2][:MAX_EVENT_VALUES]]


def to_wire(helper, result):
    """What ``helper`` returned, as JSON-able data (in the student's kernel)."""
    if helper == "sample_steps":
        return [[_int(c) for c in result[0]], _float(result[1])]
    if helper == "run_cases":
        return [to_wire("run_case", run) for run in result]
    tokens = result.tokens
    return {"tokens": tokens[: result.k + 1 + MAX_TOKENS_OVER] if tokens is not None else None,
            "events": [_event_to_wire(e) for e in result.events[:MAX_EVENTS]],
            "error": [_type(result.exception).__name__[:60], str(result.exception)[:500]]
            if result.exception is not None else None,
            "after": [digest(x) if helper == "run_case" else _state(x) for x in result.after],
            "replaced": result.replaced, "rebound": list(result.rebound),
            "result_type": result.result_type[:40], "result_repr": result.result_repr[:80],
            "reseeded": result.reseeded, "plain": bool(result.plain),
            "item_types": [str(t)[:20] for t in result.item_types[:5]], "drawn_with": list(result.drawn_with)}


def _is_number(x, low=-math.inf, high=math.inf):
    """An int or a float (nan included) between low and high."""
    return type(x) in (int, float) and (x != x or low <= x <= high)


def _same_state(sent, state):
    """Whether ``state`` (what the kernel says an input holds) is ``sent``; ValueError if it is malformed."""
    if not (type(state) is list and len(state) == 3 and type(state[0]) is list and len(state[0]) <= MAX_DIMS
            and all(type(n) is int and 0 <= n <= MAX_VALUES for n in state[0]) and type(state[1]) is str
            and len(state[1]) <= 20 and (state[2] is None or type(state[2]) is list)):
        raise ValueError("after")
    shape, dtype, values = state
    size = math.prod(shape) if shape else 1
    if values is not None and (len(values) != size or size > MAX_VALUES):
        raise ValueError("after")
    if _is_tensor(sent):
        if values is not None and not all(_is_number(v) for v in values):
            raise ValueError("after")
        return (values is not None and shape == list(sent.shape) and dtype == str(sent.dtype)
                and torch.equal(torch.tensor(values, dtype=torch.float64).reshape(sent.shape), sent.double()))
    if values is not None and not all(v is None or (type(v) is int and -_BIG <= v < _BIG) for v in values):
        raise ValueError("after")
    return dtype == "list" and values == list(sent)


def _valid_event(e):
    if type(e) is not list or not e:
        return False
    if e[0] == "rand":
        return (len(e) == 2 and type(e[1]) is list and len(e[1]) <= MAX_DIMS
                and all(type(n) is int and -_BIG <= n < _BIG for n in e[1]))
    return (e[0] == "multinomial" and len(e) == 3 and type(e[1]) is int and -_BIG <= e[1] < _BIG
            and type(e[2]) is list and len(e[2]) <= MAX_EVENT_VALUES and all(_is_number(x) for x in e[2]))


def from_wire(helper, data, case, args=(), kwargs=None, function=None, digests=False):
    """A reply from the student's kernel to ``helper(function, case, *args, **kwargs)``, checked field by
    field and decided here (in the grader). Raises ValueError."""
    if helper == "run_cases":
        if not (type(data) is list and 1 <= len(data) <= len(case.cases) or data == [] and not case.cases):
            raise ValueError("a malformed run_cases reply")
        return [_step_from_wire("run_step", one, sub, (), {}, function, digests=True)
                for one, sub in zip(data, case.cases)]
    if helper == "sample_steps":
        trials = args[0] if args else (kwargs or {}).get("trials", MAX_COUNT)
        if not (type(data) is list and len(data) == 2 and type(data[0]) is list and len(data[0]) == case.vocab
                and all(type(c) is int and c >= 0 for c in data[0]) and sum(data[0]) <= trials
                and _is_number(data[1], 0, MAX_COUNT) and data[1] == data[1]):
            raise ValueError("a malformed sample_steps reply")
        return list(data[0]), float(data[1])
    fields = ("tokens", "events", "error", "after", "replaced", "rebound", "result_type", "result_repr", "reseeded",
              "plain", "item_types", "drawn_with")
    if type(data) is not dict or set(data) != set(fields):
        raise ValueError("a malformed run_step reply")
    try:
        tokens, error, events = data["tokens"], data["error"], data["events"]
        if not (tokens is None or (type(tokens) is list and len(tokens) <= case.k + 1 + MAX_TOKENS_OVER
                                   and all(type(t) is int and -_BIG <= t < _BIG for t in tokens))):
            raise ValueError("tokens")
        if not (type(events) is list and len(events) <= MAX_EVENTS and all(_valid_event(e) for e in events)):
            raise ValueError("events")
        if not (error is None or (type(error) is list and len(error) == 2 and type(error[0]) is str
                                  and 0 < len(error[0]) <= 60 and error[0].isidentifier()
                                  and type(error[1]) is str and len(error[1]) <= 500)):
            raise ValueError("error")
        if not (type(data["after"]) is list and len(data["after"]) == 3):
            raise ValueError("after")
        sent = (case.draft_probs, case.target_probs, case.draft_tokens)
        if digests:  # run_cases: a fingerprint of each input (digest)
            if not all(type(d) is str and len(d) == 24 for d in data["after"]):
                raise ValueError("after")
            unchanged = [_digest_of(case, n) == d for n, d in enumerate(data["after"])]
        else:
            unchanged = [_same_state(a, b) for a, b in zip(sent, data["after"])]
        if type(data["replaced"]) is not bool:
            raise ValueError("replaced")
        if type(data["reseeded"]) is not bool:
            raise ValueError("reseeded")
        if type(data["plain"]) is not bool or (data["plain"] and tokens is None):
            raise ValueError("plain")
        if not (type(data["item_types"]) is list and len(data["item_types"]) <= 5 and all(
                type(t) is str and 0 < len(t) <= 20 and t.isidentifier() for t in data["item_types"])):
            raise ValueError("item_types")
        drawn_with, sampled = data["drawn_with"], sum(1 for e in events if e[0] == "multinomial")
        if not (type(drawn_with) is list and all(type(g) is str and g in SAMPLERS for g in drawn_with)
                and len(set(drawn_with)) == len(drawn_with) <= sampled and (sampled == 0) == (drawn_with == [])):
            raise ValueError("drawn_with")
        if not (type(data["rebound"]) is list and all(n in _NAMES_USED_HERE for n in data["rebound"])
                and len(set(data["rebound"])) == len(data["rebound"])):
            raise ValueError("rebound")
        if not (type(data["result_type"]) is str and len(data["result_type"]) <= 40
                and type(data["result_repr"]) is str and len(data["result_repr"]) <= 80):
            raise ValueError("result")
    except ValueError as exc:
        raise ValueError(f"a malformed run_step reply ({exc})") from None
    run = Run()
    run.k = case.k
    run.tokens, run.events = tokens, events
    run.error = f"{error[0]}: {error[1]}" if error else None
    run.ename = error[0] if error else None
    run.inputs_changed, run.replaced, run.reseeded = not all(unchanged), data["replaced"], data["reseeded"]
    run.rebound = list(data["rebound"])
    run.plain, run.item_types = data["plain"], list(data["item_types"])
    run.drawn_with = [g for g in SAMPLERS if g in drawn_with]
    run.result_type, run.result_repr = data["result_type"], data["result_repr"]
    run.function = function if function in STUDENT_FUNCTIONS else TEXT["your_function"]
    run.problem = _first_problem(run, run.function)
    return run


_step_from_wire = from_wire  # run_cases reads each case's reply with this one (notebook 03's extends from_wire below)


def trace(helper, run):
    """What one run showed, without the student's own wording: the diagnosis compares these."""
    return {"function": run.function, "tokens": run.tokens, "events": run.events, "error": run.ename,
            "no_num_samples": run.error == "TypeError: " + NO_NUM_SAMPLES or any(
                e[0] == "multinomial" and e[1] == NO_SAMPLES for e in run.events),
            "refused": run.error in _REFUSALS[:3] or any(e[0] == "multinomial" and refused(e[2]) for e in run.events),
            "inputs_changed": run.inputs_changed, "replaced": run.replaced, "rebound": list(run.rebound),
            "result_type": run.result_type, "reseeded": run.reseeded, "plain": run.plain, "foreign": run.foreign}


def hide(helper, result, case, shown, args=(), kwargs=None):
    """``result`` as a hidden check sees it: no word or value of the student's own in its messages.

    The error keeps its type only, the result its type name (when it is a common one); the tokens
    are shown only when they could be the case's own ids or picks, counts and the call order only
    when small, values passed to torch.multinomial never; ``shown(value, safe)`` (from the grader)
    gives a value whose text says it is not shown unless safe.
    """
    if helper == "sample_steps":
        return shown(list(result[0]), False), shown(float(result[1]), False)
    run = result
    picks = args[1] if _count(args) > 1 else (kwargs or {}).get("picks", ())
    ids = set(case.ids) | set(range(case.k + 1)) | {_OVERFLOW_PICK} | {_int(t) for t in picks}
    run.error = run.ename if run.error not in _REFUSALS else run.error
    run.result_repr = ""
    run.result_type = run.result_type if run.result_type in SHOWN_TYPES else "object"
    run.item_types = [t if t in SHOWN_TYPES else "object" for t in run.item_types]
    if run.tokens is not None:
        run.tokens = shown(list(run.tokens), len(run.tokens) <= case.k + 1 and all(t in ids for t in run.tokens))
    run.events = [e if e[0] == "rand" else ["multinomial", shown(e[1], NO_SAMPLES <= e[1] <= case.k + 1),
                                            [shown(_float(x), False) for x in e[2]]] for e in run.events]
    run.shown = shown
    run.problem = _first_problem(run, run.function, hidden=True)
    return run


def close(a, b, tol):
    return math.isfinite(a) and abs(a - b) <= tol


# ------------------------------------------------------------------ the notebooks' cases and checks

# The visible case: vocabulary of 4, K = 2. Position 0 drafts token 0 with p = 0.4 >= q = 0.3 (accepted,
# no draw); position 1 drafts token 1 with p = 0.2 < q = 0.5 (p/q = 0.4), the lesson's row. Notebook 02
# adds row K = 2 of the target, the distribution after both drafts.
VISIBLE_DRAFT = [[0.3, 0.3, 0.2, 0.2], LESSON_Q]
VISIBLE_TARGET = [[0.4, 0.3, 0.2, 0.1], LESSON_P]
VISIBLE_BONUS_ROW = [0.1, 0.2, 0.3, 0.4]


def visible_case(bonus_row=False):
    """The visible test's tensors (with ``bonus_row``: target_probs gets row K, for notebook 02)."""
    return Case(VISIBLE_DRAFT, VISIBLE_TARGET + ([VISIBLE_BONUS_ROW] if bonus_row else []), [0, 1])


def _calls_unread(run):
    """Whether ``run.problem`` keeps a check of the calls (their order, count and weights) from reading them: any
    problem but one with the result alone. A function that returned, whatever it returned, made its calls, so a
    result that is not a list (one check's, plain_problem's) costs the checks of the tokens, not those of the calls."""
    return run.problem is not None and not (run.error is None and not run.rebound and not run.replaced
                                            and run.tokens is None)


def call_order_problem(run, coins_before):
    """No torch.multinomial call before coin number ``coins_before`` (the one that rejects, or the last one)."""
    if _calls_unread(run):
        return run.problem
    coins = [k for k, c in enumerate(run.order) if c == "r"]
    if coins_before and _count(coins) < coins_before:
        return TEXT["order"]["too_few_coins"].format(coins=_count(coins), needed=coins_before)
    if coins_before and "m" in run.order[:coins[coins_before - 1]]:
        return TEXT["order"]["before_coin"].format(calls=_calls(run.order))
    return None


def num_samples_problem(run):
    """A torch.multinomial call without num_samples: torch raises TypeError there. Said by one check (and the
    visible test); the others read the call as one sample."""
    if _calls_unread(run):
        return run.problem
    if any(n == NO_SAMPLES for n, _ in run.multinomials):
        return TEXT["problem"]["no_num_samples"].format(error=refusal("TypeError: " + NO_NUM_SAMPLES))
    return None


def sampler_problem(run):
    """A token sampled with one of FOREIGN, not torch.multinomial: said by one check (and the visible test); the
    others read the stand-in's record as a torch.multinomial call."""
    if _calls_unread(run):
        return run.problem
    if run.foreign:
        return TEXT["problem"]["foreign"].format(function=run.function, others=", ".join(run.foreign))
    return None


def one_call_problem(run):
    """Exactly one torch.multinomial call, for one sample (what is done with it is other checks')."""
    if _calls_unread(run):
        return run.problem
    missing = num_samples_problem(run) or sampler_problem(run)
    if missing:
        return missing
    multis = run.multinomials
    if _count(multis) != 1:
        return TEXT["one_new"]["calls"].format(count=_count(multis))
    if multis[0][0] not in (1, NO_SAMPLES):
        return TEXT["one_new"]["samples"].format(n=multis[0][0])
    return None


DRAW_CONTRACT = TEXT["contract"]["rule"]


def one_value(shape):
    """Whether ``torch.rand(*shape)`` draws exactly one value: [1] as the lesson writes it, and [], [1, 1], ...
    alike (each takes one value from torch's generator)."""
    return all(n == 1 for n in shape)


def contract_problem(run, coins):
    """The draw contract, checked before anything else: one torch.rand(1) per p < q position (``coins`` of
    them in this run), none where p >= q, and torch.multinomial called with num_samples, as torch needs."""
    if run.error == "TypeError: " + NO_NUM_SAMPLES:
        return _first_problem(run, run.function)
    missing = num_samples_problem(run)
    if missing:
        return missing
    shapes = [e[1] for e in run.events if e[0] == "rand" and not one_value(e[1])]
    if shapes:
        return TEXT["contract"]["shapes"].format(shapes=shapes, rule=DRAW_CONTRACT)
    calls = sum(1 for e in run.events if e[0] == "rand")
    if calls > coins:
        return TEXT["contract"]["too_many"].format(calls=calls, coins=coins, rule=DRAW_CONTRACT)
    return None


def _foreign_said(*runs):
    others = [g for g in FOREIGN if any(g in run.foreign for run in runs)]
    return TEXT["visible"]["foreign"].format(others=", ".join(others)) if others else None


def visible_problem_n1(run):
    """Notebook 01's visible test: position 0 accepted without a draw, position 1 rejected by r = 0.7."""
    case = visible_case()
    return (contract_problem(run, 1) or _foreign_said(run) or correction_problem(run, case, 1, 1)
            or _tokens_said(run, [0, 2], TEXT["visible"]["n1_tokens"]) or plain_problem(run))


def visible_problem_n2(rejected, accepted):
    """Notebook 02's visible test: the same case rejected at position 1 (r = 0.7), then accepted (r = 0.1)."""
    case = visible_case(bonus_row=True)
    return (contract_problem(rejected, 1) or contract_problem(accepted, 1) or _foreign_said(rejected, accepted)
            or correction_problem(rejected, case, 1, 1)
            or _tokens_said(rejected, [0, 2], TEXT["visible"]["n2_rejected"])
            or bonus_problem(accepted, case)
            or _tokens_said(accepted, [0, 1, 3], TEXT["visible"]["n2_accepted"])
            or plain_problem(rejected) or plain_problem(accepted))


def _tokens_said(run, expected, why):
    if run.tokens != expected:
        return TEXT["tokens_why"].format(got=run.tokens, expected=expected, why=why)
    return None


# ------------------------------------------------------------------ notebook 03: the real model pair
# One block, so it merges apart from the rest. Whoever builds a case (the grader, when grading) makes each
# state of one speculative step itself: the text so far, the K drafts and their rows, the temperature, the coin r
# every torch.rand hands out and the token every torch.multinomial hands out. The student's verify_drafts runs one
# step on each state in the kernel (pair_steps), on a fresh cache, with the target wrapped so that every call is
# recorded; the reply is plain data (the tokens, the calls, the cache's length, the weights passed to
# torch.multinomial, and a probe of the cache). The checks compare it with a reference step computed on the same
# state by whoever built the case, with its own copy of the pair (tiny_lm.py beside this file): nothing the kernel
# computes on its own decides a verdict, and a state's expected tokens are never sent to the kernel.

STUDENT_FUNCTIONS = STUDENT_FUNCTIONS + ("verify_drafts",)
REMOTE_HELPERS = REMOTE_HELPERS + ("pair_steps", "pair_samples")
PAIR_BUDGET_SECONDS = 8.0
MAX_PAIR_STATES = 16
MAX_PAIR_CALLS = 12          # target calls recorded per step
MAX_PAIR_MULTINOMIALS = 6    # torch.multinomial calls recorded per step
MAX_PAIR_VALUES = 1024       # values recorded per torch.multinomial call
MAX_PAIR_SAMPLES = 600
PAIR_VOCAB = 128
PROBE_TOLERANCE = 1e-3       # logits of the probe: the same positions computed in other batches differ by ~1e-6
WEIGHTS_TOLERANCE = 1e-4     # normalised weights passed to torch.multinomial, against the reference's
PAIR_WHERE = ("verify_drafts", "speculative_step", "rows", "forward_cached", "crop", "torch", "other")
CALL_CACHED, CALL_UNCACHED = 1, 2  # target.forward_cached(ids, cache); target(ids) or target.forward(ids)


def _tiny_lm():
    """(the model module beside this file, the target, the bigram), loaded once: the grader's own copy when grading."""
    global _TINY_LM
    if _TINY_LM is None:
        import importlib.util
        from pathlib import Path
        spec = importlib.util.spec_from_file_location("_grader_tiny_lm", Path(__file__).with_name("tiny_lm.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        torch.set_num_threads(1)  # for a model this small a second thread costs more than it saves (notebook 03)
        _TINY_LM = (module, *module.load_pair())
    return _TINY_LM


_TINY_LM = None


class PairState:
    """One step's input: ``ids`` the text so far (the cache holds all but the last, ``ids[-1]`` is last_token),
    ``drafts`` the K drafted ids and ``q`` their [K, V] rows, ``temperature``, the coin ``r`` every torch.rand hands
    out, the token ``pick`` every torch.multinomial hands out, and ``label`` (what the state is built to show)."""

    def __init__(self, ids, drafts, q, temperature, r, pick, label):
        self.ids, self.drafts = [_int(t) for t in ids], [_int(t) for t in drafts]
        self.q = [[_float(x) for x in row] for row in q]
        self.temperature, self.r, self.pick, self.label = _float(temperature), _float(r), _int(pick), str(label)

    @property
    def k(self):
        return _count(self.drafts)

    @property
    def start(self):
        return _count(self.ids) - 1

    def wire(self):
        return [self.ids, self.drafts, self.q, self.temperature, self.r, self.pick, self.label]

    def q_rows(self):
        """The draft rows as the [K, V] float32 tensor verify_drafts is given."""
        return torch.tensor(self.q, dtype=torch.float32).reshape(self.k, PAIR_VOCAB)


class PairCase:
    """States of one speculative step, each run on a fresh cache; ``samples`` > 0: the first state is run that many
    times with real randomness (drafts sampled from the bigram at its temperature), from torch's seed ``seed``."""

    def __init__(self, states, samples=0, seed=0):
        self.states = _list(states)[:MAX_PAIR_STATES]
        self.samples, self.seed = min(_int(samples), MAX_PAIR_SAMPLES), _int(seed)
        self.wire = {"pair": [[s.wire() for s in self.states], self.samples, self.seed]}
        self._expected = None

    @property
    def k(self):
        return max((s.k for s in self.states), default=0)

    def expected(self):
        """The reference step on each state, computed here with this process's own copy of the pair."""
        if self._expected is None:
            self._expected = [reference_step(s) for s in self.states]
        return self._expected


def _prefix_cache(ids):
    """A fresh cache holding the text ``ids`` but its last token: copies of the keys and values computed once per
    text in this process (several states, and every check, start from the same few prompts; the grader's reference
    steps, probes and case building too)."""
    module, target, _ = _tiny_lm()
    key = tuple(ids[:-1])
    if key not in _PREFIXES:
        if _count(_PREFIXES) > 256:
            _PREFIXES.clear()
        cache = module.KVCache()
        if key:
            target.forward_cached(_list(key), cache)
        _PREFIXES[key] = cache
    kept, cache = _PREFIXES[key], module.KVCache()
    cache.keys, cache.values = [k.clone() for k in kept.keys], [v.clone() for v in kept.values]
    return cache


_PREFIXES = {}


def _pair_logits(state, extra=()):
    """The target's logits for [last_token] + ``extra`` after the state's cache, on a fresh cache; and the cache."""
    _, target, _ = _tiny_lm()
    cache = _prefix_cache(state.ids)
    return target.forward_cached([state.ids[-1]] + _list(extra), cache), cache


def _normalise(weights):
    weights = torch.clamp(weights.double(), min=0)
    total = weights.sum()
    return weights / total if total > 0 else weights


def step_model(p, q, drafts, r):
    """The speculative step with coin ``r`` at every p < q position: (how many drafts it accepts, the row its new token
    is drawn from, normalised). ``p``: [K + 1, V] target rows, ``q``: [K, V] draft rows."""
    k = _count(drafts)
    n = k
    for i, t in enumerate(drafts):
        pi, qi = _float(p[i, t]), _float(q[i, t])
        if not (pi >= qi or (qi > 0 and r < pi / qi)):
            n = i
            break
    if n < k:
        weights = torch.clamp(p[n].double() - q[n].double(), min=0)
        if not weights.sum() > 0:  # float32 can get here (notebook 01); the reference then draws from p
            weights = p[n].double()
    else:
        weights = p[k].double()
    return n, _normalise(weights)


def reference_step(state):
    """{"tokens", "accepted", "weights" (normalised), "start", "logits" (the target's, which the diagnosis's models of
    wrong rows start from)} of the reference step on ``state``."""
    module, _, _ = _tiny_lm()
    logits, _ = _pair_logits(state, state.drafts)
    n, weights = step_model(module.rows(logits, state.temperature), state.q_rows(), state.drafts, state.r)
    return {"tokens": state.drafts[:n] + [state.pick], "accepted": n, "weights": weights, "start": state.start,
            "logits": logits}


def probe(state, kept):
    """The target's logits after the state's text plus ``kept`` (the positions a right cache holds after the step,
    but last_token), for the last token: what the kernel's probe of the student's cache must give."""
    key = (tuple(state.ids), tuple(kept))  # the probe depends on the text and what was kept only
    if key not in _PROBES:  # a right answer's probe is the same in every notebook a grading process grades
        if _count(_PROBES) > 4096:
            _PROBES.clear()
        module, target, _ = _tiny_lm()
        logits, cache = _pair_logits(state, kept[:-1])
        _PROBES[key] = target.forward_cached(kept[-1:], cache)[0]
    return _PROBES[key]


_PROBES = {}


# ---- building the states (the grader builds every case of the checks; the kernel only for the visible test)

PAIR_PROMPTS = ("def __init__(self, ", "    return ", "import ", "class ", "        if not ", "for key, value in ",
                "    def ", "        self.", "        raise ", "from ")


def _greedy(ids, n):
    _, target, _ = _tiny_lm()
    cache = _prefix_cache(ids)
    last, out = ids[-1], []
    for _ in range(n):
        last = _int(target.forward_cached([last], cache)[0].argmax())
        out.append(last)
    return out


def _other_than(token, ids):
    """A likely token that is not ``token``: the bigram's best after the text, else the target's second best."""
    module, _, bigram = _tiny_lm()
    ranked = bigram.logits(ids[-1]).argsort(descending=True).tolist()
    return next(t for t in ranked if t != token)


def make_state(prompt, k, temperature=0.0, agree=None, r=0.5, seed=0, label=None, want=None):
    """``_make_state``; with ``want`` (a label), the first seed from ``seed`` on (at most 400) whose step does that. The
    recipes below name the seed that search ends at, so a case is built in one try (each try is a forward call of the
    target; the search cost the kernel a tenth of a second a notebook for the visible test); ``want`` stays, so the
    recipes still describe what each state shows if the pair's weights ever change."""
    state = _make_state(prompt, k, temperature, agree, r, seed, label)
    while want is not None and state.label != want and seed < 400:
        seed += 1
        state = _make_state(prompt, k, temperature, agree, r, seed, label)
    return state


def _make_state(prompt, k, temperature, agree, r, seed, label):
    """A state after ``prompt``. At temperature 0 the first ``agree`` drafts are the target's own greedy tokens (all
    of them when ``agree`` is None or >= k), the next one another likely token, the rest the bigram's greedy chain,
    each row one-hot at its draft; above 0, drafts sampled from the bigram's rows at the temperature (torch generator
    ``seed``). The pick is the reference's new token: at temperature 0 greedy decoding's, above it a likely one that is
    not the most likely where one has 2 % or more."""
    module, _, bigram = _tiny_lm()
    ids = module.encode(prompt)
    drafts, rows_q = [], []
    if temperature == 0:
        agree = k if agree is None else min(agree, k)
        greedy = _greedy(ids, k)
        for i in range(k):
            if i < agree:
                t = greedy[i]
            elif i == agree:
                t = _other_than(greedy[i], ids + drafts)
            else:
                t = _int(bigram.logits((ids + drafts)[-1]).argmax())
            drafts.append(t)
            rows_q.append([1.0 if j == t else 0.0 for j in range(PAIR_VOCAB)])
    else:
        generator = torch.Generator().manual_seed(seed)
        last = ids[-1]
        for _ in range(k):
            row = module.rows(bigram.logits(last)[None], temperature)[0]
            last = _int(torch.multinomial(row, 1, generator=generator))
            drafts.append(last)
            rows_q.append([_float(x) for x in row])
    state = PairState(ids, drafts, rows_q, temperature, r, 0, label or "")
    p = module.rows(_pair_logits(state, drafts)[0], temperature)
    q = state.q_rows()
    for _ in range(50):  # no coin within 1e-3 of a p / q it decides: the rows' last bits must not decide a check
        near = [_float(p[i, t]) / _float(q[i, t]) for i, t in enumerate(drafts)
                if _float(q[i, t]) > 0 and _float(p[i, t]) < _float(q[i, t])]
        if all(abs(state.r - x) > 1e-3 for x in near):
            break
        state.r = (state.r + 0.0137) % 1.0
    n, weights = step_model(p, q, drafts, state.r)
    # the pick: at temperature 0 the row's one token; above it the second most likely token with a chance of at least
    # 2 % (else the most likely), so a step that takes the argmax instead of sampling differs from one that samples
    ranked = weights.argsort(descending=True).tolist()
    second = ranked[1] if temperature > 0 and _float(weights[ranked[1]]) >= 0.02 else ranked[0]
    state.pick = _int(second)
    if label is None:
        state.label = "empty" if k == 0 else "all" if n == k else "first" if n == 0 else "last" if n == k - 1 else "middle"
    return state


_PAIR_CASES = {}


def pair_case(name):
    """The named case of notebook 03's checks (built once per process)."""
    if name not in _PAIR_CASES:
        _PAIR_CASES[name] = PairCase(*_PAIR_RECIPES[name]())
    return _PAIR_CASES[name]


_PAIR_RECIPES = {
    # the visible test: greedy states where every draft, all but the last, and none agree; one sampled state
    "visible": lambda: ([make_state("def __init__(self, ", 4), make_state("def __init__(self, ", 4, agree=3),
                         make_state("    return ", 4, agree=0),
                         make_state("import ", 4, 0.7, r=0.3, seed=21, want="middle"),
                         make_state("class ", 3, 0.7, r=0.1, seed=37, want="all"), make_state("    def ", 0, 1.0)],),
    "calls": lambda: ([make_state(p, 3, agree=a) for p, a in (("import ", 3), ("class ", 1), ("for key, value in ", 0))]
                      + [make_state("    def ", 3, 1.0, r=0.4, seed=5)],),
    "cache": lambda: ([make_state(p, 5, agree=a) for p, a in (("    return ", 4), ("        self.", 0),
                                                              ("from ", 5), ("        if not ", 2))]
                      + [make_state("class ", 5, 0.7, r=0.3, seed=11)],),
    "greedy": lambda: ([make_state(p, 4, agree=a) for p, a in (("    return ", 4), ("        raise ", 3),
                                                               ("def __init__(self, ", 0), ("import ", 2))],),
    "no_drafts": lambda: ([make_state(p, 0) for p in ("class ", "    return ", "from ")]
                          + [make_state("        self.", 0, 1.0, r=0.5, seed=2)],),
    "sampling": lambda: ([make_state(p, 4, t, r=r, seed=s, want=w) for p, t, r, s, w in (
        ("def __init__(self, ", 0.7, 0.35, 1, "first"), ("    return ", 1.0, 0.25, 10, "middle"),
        ("import ", 1.3, 0.2, 24, "last"), ("for key, value in ", 0.7, 0.1, 37, "all"),
        ("        if not ", 1.0, 0.05, 13, "all"), ("class ", 1.3, 0.5, 7, "middle"))],),
    "distribution": lambda: ([make_state("    return ", 2, 0.7, seed=7)], 200, 2407),
}


# ---- the kernel's side: one step of the student's function on each state

class _Recorded:
    """The target as verify_drafts sees it: every call recorded, then passed on."""

    __slots__ = ("_model", "_cache", "_calls", "_memo")

    def __init__(self, model, cache, memo=None):
        object.__setattr__(self, "_model", model)
        object.__setattr__(self, "_cache", cache)
        object.__setattr__(self, "_calls", [])
        object.__setattr__(self, "_memo", memo)

    def _record(self, kind, ids, cache):
        try:
            listed = [_int(i) for i in (ids.reshape(-1).tolist() if _is_tensor(ids) else ids)][:16]
        except (TypeError, ValueError, AttributeError, RuntimeError):
            listed = [-1]
        before = cache.length if kind == CALL_CACHED and _type(cache) is _type(self._cache) else -1
        entry = [kind, 1 if cache is self._cache else 0, before, -1, listed]
        if _count(self._calls) < MAX_PAIR_CALLS:
            self._calls.append(entry)
        return entry

    def forward_cached(self, ids, cache):
        entry = self._record(CALL_CACHED, ids, cache)
        out = self._memo.forward_cached(ids, cache) if self._memo is not None else self._model.forward_cached(ids, cache)
        entry[3] = cache.length if entry[2] >= 0 else -1
        return out

    def forward(self, ids, *args, **kwargs):
        self._record(CALL_UNCACHED, ids, self._cache)
        return self._model(ids, *args, **kwargs)

    __call__ = forward

    def __getattr__(self, name):
        return getattr(self._model, name)


def _where(exc):
    """Where in the step the exception was raised: the innermost frame that tells (a word of PAIR_WHERE)."""
    tb, last = exc.__traceback__, "other"
    while tb is not None:
        code = tb.tb_frame.f_code
        file = code.co_filename.replace("\\", "/").rsplit("/", 1)[-1]
        if code.co_name == "verify_drafts":
            last = "verify_drafts"
        elif file in ("spec_pair.py", "tiny_lm.py") and code.co_name in PAIR_WHERE:
            last = code.co_name
        elif "/torch/" in code.co_filename.replace("\\", "/") and last in ("verify_drafts", "other"):
            last = "torch"
        tb = tb.tb_next
    return last


def _one_step(function, state):
    """Run ``function`` on one state; the plain record of what it did."""
    module, target, _ = _tiny_lm()
    cache = _prefix_cache(state.ids)
    recorded = _Recorded(target, cache)
    q = state.q_rows()
    script = Script([state.r] * 64, [state.pick] * 64, refuse=True)
    fakes = (script.rand, script.multinomial, script.method())
    out = {"tokens": None, "plain": True, "error": None, "calls": recorded._calls, "length": -1, "probe": None}
    result = None
    torch.rand, torch.multinomial, torch.Tensor.multinomial = fakes
    try:
        with seeded(CALL_SEED):
            result = function(recorded, cache, state.ids[-1], _list(state.drafts), q, state.temperature)
    except TimeBudgetExceeded:
        raise
    except BaseException as exc:  # the student's error is what we report
        out["error"] = [_type(exc).__name__[:60], _where(exc)]
    finally:
        torch.rand, torch.multinomial, torch.Tensor.multinomial = _real_rand, _real_multinomial, _real_method
    out["events"] = [["multinomial", e[1], e[2][:MAX_PAIR_VALUES]] for e in script.events
                     if e[0] == "multinomial"][:MAX_PAIR_MULTINOMIALS]
    out["rand"] = sum(1 for e in script.events if e[0] == "rand")
    tokens = _read_tokens(result, state.k + 5)
    out["plain"] = _as_tokens(result) is not None
    try:
        length = cache.length
        out["length"] = length if _type(length) is _int else -1
    except Exception:  # the student's code broke the cache's lists
        out["length"] = -1
    if tokens is not None:
        out["tokens"] = [t if 0 <= t < PAIR_VOCAB else -1 for t in tokens]
    ok = tokens and all(0 <= t < PAIR_VOCAB for t in tokens) and 0 < out["length"] < target.context
    if ok and out["error"] is None:
        try:  # the probe: the next call's row, on the cache the step left
            out["probe"] = [round(_float(x), 4) for x in target.forward_cached(tokens[-1:], cache)[0]]
        except Exception:
            out["probe"] = None
    return out


def pair_steps(function, case):
    """One speculative step of ``function`` (verify_drafts) on each of the case's states; a PairRun."""
    run = PairRun()
    try:
        with time_budget(PAIR_BUDGET_SECONDS, "verify_drafts"):
            for state in case.states:
                run.steps.append(_one_step(function, state))
    except TimeBudgetExceeded:
        run.steps.append({"tokens": None, "plain": True, "error": ["TimeBudgetExceeded", "verify_drafts"],
                          "calls": [], "length": -1, "probe": None, "events": [], "rand": 0})
    run.steps = [PairStep(s) for s in run.steps]
    return run


class _PrefixMemo:
    """The target's calls on one prefix's cache, remembered: a call on a cache that still holds exactly the prefix's
    keys and values (the very tensors), with ids it has seen, gets the same logits and the same new keys and values
    the model gave the first time (copies), without running the model again. The distribution check's 200 steps all
    start from one prefix with a few distinct drafts, and the model's call was most of their cost; the student's
    function still runs whole on every step. Any other call (another cache, a cache the function changed, new ids)
    runs the model."""

    def __init__(self, model, keys, values):
        self.model, self.keys, self.values, self.seen = model, keys, values, {}

    def fresh_cache(self, module):
        cache = module.KVCache()
        cache.keys, cache.values = list(self.keys), list(self.values)
        return cache

    def _at_prefix(self, cache):
        return (_type(cache.keys) is _list and _type(cache.values) is _list and _count(cache.keys) == _count(self.keys)
                and _count(cache.values) == _count(self.values)
                and all(a is b for a, b in zip(cache.keys, self.keys))
                and all(a is b for a, b in zip(cache.values, self.values)))

    def forward_cached(self, ids, cache):
        try:
            key = tuple(_int(i) for i in (ids.reshape(-1).tolist() if _is_tensor(ids) else ids))
        except (TypeError, ValueError, AttributeError, RuntimeError):
            key = None
        fresh = key is not None and _count(key) <= MAX_PAIR_CALLS and self._at_prefix(cache)
        if fresh and key in self.seen:
            keys, values, logits = self.seen[key]
            cache.keys, cache.values = [k.clone() for k in keys], [v.clone() for v in values]
            return logits.clone()
        out = self.model.forward_cached(ids, cache)
        if fresh and _count(self.seen) < MAX_PAIR_SAMPLES:
            self.seen[key] = ([k.clone() for k in cache.keys], [v.clone() for v in cache.values], out.clone())
        return out


def pair_samples(function, case):
    """The first state's step ``case.samples`` times with real randomness; the first token of each (-1: none)."""
    module, target, bigram = _tiny_lm()
    state = case.states[0]
    firsts, error = [], None
    try:
        with time_budget(PAIR_BUDGET_SECONDS, "verify_drafts"), seeded(case.seed):
            prefix = _prefix_cache(state.ids)
            memo = _PrefixMemo(target, prefix.keys, prefix.values)
            for _ in range(case.samples):
                cache = memo.fresh_cache(module)
                last, drafts, rows_q = state.ids[-1], [], []
                for _ in range(state.k):
                    row = module.rows(bigram.logits(last)[None], state.temperature)[0]
                    last = _int(_real_multinomial(row, 1))
                    drafts.append(last)
                    rows_q.append(row)
                q = torch.stack(rows_q) if rows_q else torch.zeros(0, PAIR_VOCAB)
                result = function(_Recorded(target, cache, memo), cache, state.ids[-1], drafts, q, state.temperature)
                tokens = _read_tokens(result, state.k + 5)
                firsts.append(tokens[0] if tokens and 0 <= tokens[0] < PAIR_VOCAB else -1)
    except BaseException as exc:  # the student's error is what we report
        error = _type(exc).__name__[:60]
    run = PairRun()
    run.firsts, run.ename = firsts, error
    return run


# ---- what came back

class PairStep:
    """What verify_drafts did on one state."""

    def __init__(self, data):
        self.tokens, self.plain, self.error = data["tokens"], data["plain"], data["error"]
        self.calls, self.length, self.probe = data["calls"], data["length"], data["probe"]
        self.events, self.rand = data["events"], data["rand"]

    @property
    def ename(self):
        return self.error[0] if self.error else None

    @property
    def multinomials(self):
        return [(e[1], e[2]) for e in self.events]

    def weights(self):
        """The last torch.multinomial call's row, normalised (a [n, V] call: its first row), or None."""
        if not self.events:
            return None
        values = self.events[-1][2]
        if _count(values) < PAIR_VOCAB:
            return None
        return _normalise(torch.tensor(values[:PAIR_VOCAB], dtype=torch.float64))


class PairRun:
    """What the student's verify_drafts did on each state (``steps``), or the first tokens of repeated steps."""

    ename = None
    hidden = False

    def __init__(self):
        self.steps, self.firsts = [], []

    @property
    def error(self):
        return next((s.error for s in self.steps if s.error), None)


def _valid_pair_step(d):
    if not (type(d) is dict and set(d) == {"tokens", "plain", "error", "calls", "length", "probe", "events", "rand"}):
        return False
    small = lambda n, low=-1, high=10_000: type(n) is int and low <= n < high  # noqa: E731
    tokens, error, calls, probe, events = d["tokens"], d["error"], d["calls"], d["probe"], d["events"]
    return ((tokens is None or (type(tokens) is list and len(tokens) <= 64 and all(small(t, -1, PAIR_VOCAB)
                                                                                 for t in tokens)))
            and type(d["plain"]) is bool and small(d["length"]) and small(d["rand"], 0, 100_000)
            and (error is None or (type(error) is list and len(error) == 2 and type(error[0]) is str
                                   and error[0].isidentifier() and len(error[0]) <= 60 and error[1] in PAIR_WHERE))
            and type(calls) is list and len(calls) <= MAX_PAIR_CALLS
            and all(type(c) is list and len(c) == 5 and c[0] in (CALL_CACHED, CALL_UNCACHED) and c[1] in (0, 1)
                    and small(c[2]) and small(c[3]) and type(c[4]) is list and len(c[4]) <= 16
                    and all(small(t, -1, PAIR_VOCAB) for t in c[4]) for c in calls)
            and (probe is None or (type(probe) is list and len(probe) == PAIR_VOCAB
                                   and all(_is_number(x) for x in probe)))
            and type(events) is list and len(events) <= MAX_PAIR_MULTINOMIALS
            and all(type(e) is list and len(e) == 3 and e[0] == "multinomial" and small(e[1], NO_SAMPLES)
                    and type(e[2]) is list and len(e[2]) <= MAX_PAIR_VALUES and all(_is_number(x) for x in e[2])
                    for e in events))


def _pair_from_wire(helper, data, case):
    run = PairRun()
    if helper == "pair_samples":
        if not (type(data) is dict and set(data) == {"firsts", "error"} and type(data["firsts"]) is list
                and len(data["firsts"]) <= case.samples
                and all(type(t) is int and -1 <= t < PAIR_VOCAB for t in data["firsts"])
                and (data["error"] is None or (type(data["error"]) is str and data["error"].isidentifier()
                                               and len(data["error"]) <= 60))):
            raise ValueError("a malformed pair_samples reply")
        run.firsts, run.ename = data["firsts"], data["error"]
        return run
    if not (type(data) is list and len(data) <= _count(case.states) + 1 and all(_valid_pair_step(d) for d in data)):
        raise ValueError("a malformed pair_steps reply")
    run.steps = [PairStep(d) for d in data]
    return run


# ---- the checks' sentences: what happened on which state

def _state_said(i, state):
    words = TEXT["pair"]
    return words["state"].format(n=i + 1, k=state.k, temperature=f"{state.temperature:g}",
                                 what=words["labels"].get(state.label, state.label))


def _pairs(run, case):
    return _list(zip(range(_count(case.states)), case.states, run.steps))


def pair_error_problem(run, case):
    """The first state on which verify_drafts raised, said with its type and where (never its message)."""
    for i, state, step in _pairs(run, case):
        if step.error:
            if step.error[0] == "NotImplementedError":
                return TEXT["pair"]["not_written"]
            if step.error[0] == "TimeBudgetExceeded":
                return TEXT["problem"]["too_long"].format(function="verify_drafts", seconds=PAIR_BUDGET_SECONDS)
            return TEXT["pair"]["raised"].format(error=step.error[0], where=step.error[1], state=_state_said(i, state))
    if _count(run.steps) < _count(case.states):
        return TEXT["pair"]["stopped"].format(n=_count(run.steps) + 1)
    return None


def calls_problem(run, case):
    """None when every step made one target call, forward_cached on the cache it was given, over [last_token] +
    draft_tokens."""
    problem = pair_error_problem(run, case)
    if problem:
        return problem
    words = TEXT["pair"]
    for i, state, step in _pairs(run, case):
        said = _state_said(i, state)
        if any(c[0] == CALL_UNCACHED for c in step.calls):
            return words["no_cache"].format(state=said)
        if any(c[1] == 0 for c in step.calls):
            return words["other_cache"].format(state=said)
        if _count(step.calls) != 1:
            return words["calls"].format(calls=_count(step.calls), state=said)
        want = [state.ids[-1]] + state.drafts
        if step.calls[0][4] != want:
            return words["positions"].format(n=_count(step.calls[0][4]), k=state.k, k1=state.k + 1, state=said,
                                              what=words["without_last"] if step.calls[0][4] == state.drafts
                                              else words["other_ids"])
    return None


def cache_problem(run, case):
    """None when after every step the cache holds the text's positions and no others: last_token and the drafts the
    step kept (its tokens but the last), checked by its length and by a probe of its contents."""
    problem = pair_error_problem(run, case)
    if problem:
        return problem
    words = TEXT["pair"]
    for i, state, step in _pairs(run, case):
        said = _state_said(i, state)
        if not step.tokens or any(t < 0 for t in step.tokens):
            return words["no_tokens"].format(state=said)
        kept = _count(step.tokens)
        if step.length != state.start + kept:
            if 0 <= step.length < state.start:
                return words["shrunk"].format(length=step.length, start=state.start, state=said)
            return words["cache"].format(state=said, returned=kept, new=step.length - state.start)
        if step.probe is None:
            return words["no_probe"].format(state=said)
        want = probe(state, step.tokens)
        if max(abs(_float(a) - _float(b)) for a, b in zip(step.probe, want)) > PROBE_TOLERANCE:
            return words["contents"].format(state=said, returned=kept)
    return None


def pair_tokens_problem(run, case):
    """None when every step returned the reference step's tokens on its state (the same coin and picks)."""
    problem = pair_error_problem(run, case)
    if problem:
        return problem
    words = TEXT["pair"]
    for (i, state, step), want in zip(_pairs(run, case), case.expected()):
        if step.tokens != want["tokens"]:
            got = step.tokens or []
            if run.hidden:
                return words["tokens_hidden"].format(state=_state_said(i, state), n=_count(got),
                                                     m=_count(want["tokens"]), accepted=want["accepted"])
            return words["tokens"].format(state=_state_said(i, state), got=got, want=want["tokens"],
                                          accepted=want["accepted"])
    return None


def weights_problem(run, case):
    """None when, on every state, the step's new token was drawn with one torch.multinomial call from the reference's
    row (normalised, within WEIGHTS_TOLERANCE)."""
    problem = pair_error_problem(run, case)
    if problem:
        return problem
    words = TEXT["pair"]
    for (i, state, step), want in zip(_pairs(run, case), case.expected()):
        said = _state_said(i, state)
        if not step.events:
            return words["no_multinomial"].format(state=said)
        got = step.weights()
        if got is None:
            return words["weights_shape"].format(state=said)
        gap = _float((got - want["weights"]).abs().max())
        if gap > WEIGHTS_TOLERANCE:
            where = words["bonus_row"] if want["accepted"] == state.k else words["residual_row"].format(
                i=want["accepted"])
            return words["weights"].format(state=said, gap=f"{gap:.3f}", where=where)
    return None


def pair_problem(run, case):
    """The first of calls_problem, cache_problem, pair_tokens_problem and weights_problem, or None."""
    return calls_problem(run, case) or cache_problem(run, case) or pair_tokens_problem(run, case) or weights_problem(
        run, case)


def samples_problem(run, case, alpha=1e-4):
    """None unless the first tokens of the repeated steps are too unlikely under the target's row at this state
    (a chi-square test, p-value below ``alpha``, with the expected counts pooled to at least 5)."""
    if run.ename is not None:
        if run.ename == "TimeBudgetExceeded":
            return TEXT["problem"]["too_long"].format(function="verify_drafts", seconds=PAIR_BUDGET_SECONDS)
        return TEXT["pair"]["samples_raised"].format(error=run.ename, n=_count(run.firsts) + 1)
    module, _, _ = _tiny_lm()
    state = case.states[0]
    p = module.rows(_pair_logits(state)[0], state.temperature)[0].double()
    if _count(run.firsts) < case.samples or any(t < 0 for t in run.firsts):
        return TEXT["pair"]["samples_missing"].format(n=case.samples)
    counts = [0] * PAIR_VOCAB
    for t in run.firsts:
        counts[t] += 1
    probs = [_float(x) for x in p]
    big = [t for t in range(PAIR_VOCAB) if probs[t] * case.samples >= 5]  # the rest pooled into one cell
    rest = [t for t in range(PAIR_VOCAB) if t not in big]
    pooled_counts = [counts[t] for t in big] + [sum(counts[t] for t in rest)]
    pooled_probs = [probs[t] for t in big] + [sum(probs[t] for t in rest)]
    value = chi_square(pooled_counts, pooled_probs)[1]
    if value < alpha:
        tv = tv_distance(counts, probs)
        return TEXT["pair"]["samples"].format(n=case.samples, temperature=f"{state.temperature:g}", tv=f"{tv:.3f}",
                                              p=f"{value:.1e}")
    return None


# ---- the wire

_base_case_from_wire, _base_to_wire, _base_from_wire, _base_hide = case_from_wire, to_wire, from_wire, hide


def case_from_wire(wire):  # noqa: F811 (extends the one above)
    if _type(wire) is dict:
        states, samples, seed = wire["pair"]
        return PairCase([PairState(*s) for s in states], samples, seed)
    return _base_case_from_wire(wire)


def to_wire(helper, result):  # noqa: F811
    if helper == "pair_steps":
        return [{"tokens": s.tokens, "plain": s.plain, "error": s.error, "calls": s.calls, "length": s.length,
                 "probe": s.probe, "events": s.events, "rand": s.rand} for s in result.steps]
    if helper == "pair_samples":
        return {"firsts": result.firsts, "error": result.ename}
    return _base_to_wire(helper, result)


def from_wire(helper, data, case, args=(), kwargs=None, function=None):  # noqa: F811
    if helper in ("pair_steps", "pair_samples"):
        return _pair_from_wire(helper, data, case)
    return _base_from_wire(helper, data, case, args, kwargs, function)


_EXCEPTIONS = frozenset(n for n, o in vars(builtins).items() if _type(o) is _type and issubclass(o, BaseException))


def hide(helper, result, case, shown, args=(), kwargs=None):  # noqa: F811
    if helper in ("pair_steps", "pair_samples"):
        # a class name is the student's own words: a builtin's name, else "Exception"
        known = lambda name: name if name in _EXCEPTIONS or name == "TimeBudgetExceeded" else "Exception"  # noqa
        for step in result.steps:
            if step.error:
                step.error = [known(step.error[0]), step.error[1]]
        if result.ename:
            result.ename = known(result.ename)
        result.hidden = True
        return result
    return _base_hide(helper, result, case, shown, args, kwargs)


TRACED_HELPERS = TRACED_HELPERS + ("pair_steps",)
_base_trace = trace


def trace(helper, run):  # noqa: F811
    if helper == "pair_steps":
        return {"function": "verify_drafts", "steps": [
            {"tokens": s.tokens, "error": s.error, "calls": s.calls, "length": s.length, "probe": s.probe,
             "events": s.events, "rand": s.rand} for s in run.steps]}
    return _base_trace(helper, run)
