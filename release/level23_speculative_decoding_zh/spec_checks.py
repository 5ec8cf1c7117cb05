"""Test helpers for the Level 23 notebooks: scripted draws and one checked call.

The visible tests use these helpers, and so do the hidden ones, so read them
freely: they hold no answers. Every case lives in the notebooks.

    case = Case([(10, 0.8, 0.5), (20, 0.4, 0.5)])    # (token_id, p, q) per position
    run = run_verify(verify_draft, case, draws=[0.5])
    run.tokens    # the result as a list of ints (None if it was not a list of ids)
    run.calls     # how many times torch.rand was called
    run.problem   # None, or one sentence that says what went wrong

``run_verify`` replaces ``torch.rand`` for the length of one call with a
function that hands out the scripted draws in order and records each call.
It never raises inside your code, so a broad ``try/except`` there cannot hide
a wrong draw: the record is read after the call returns.

The checks are built from Python literals, not from names such as ``list`` or
``len``, so code that rebinds builtins does not change what they see.
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
# This edition's text, written by `python -m grading.build` from lessons/i18n/level23_speculative_decoding_zh.py: edit it there.
TEXT = {
    "lang": "zh",
    "problem": {
        "rebound": "你的代码替换了 Python 内置函数（{names}）：请删掉这部分",
        "rand_replaced": "你的代码替换了 torch.rand：请用 torch.rand(1).item() 抽取，不要改动 torch.rand 本身",
        "not_written": "NotImplementedError：verify_draft 还没有写；把 raise 那一行换成你的代码",
        "raised": "verify_draft 抛出了 {error}",
        "raised_at": "verify_draft 抛出了 {error}，出错的是你的 verify_draft 单元格第 {line} 行：{code}",
        "raised_line": "verify_draft 抛出了 {error}，出错的是你的 verify_draft 单元格第 {line} 行",
        "not_ids": "verify_draft 返回的列表里有不是 token_id（int）的东西：{result}；请追加 token_id",
        "not_list": "verify_draft 应当返回由 token_id 组成的普通 Python 列表，但它返回了 {type}：{result}",
        "not_list_short": "verify_draft 应当返回由 token_id 组成的普通 Python 列表",
        "too_long": "verify_draft 运行超过了 {seconds:g} 秒：是不是有死循环？"
    },
    "hidden": {
        "raised": "{function} 抛出了 {error}（隐藏检查不显示它的消息）",
        "not_ids": "verify_draft 返回的列表里有不是 token_id（int）的东西；请追加 token_id",
        "not_list": "verify_draft 应当返回由 token_id 组成的普通 Python 列表，但它返回了 {type}",
        "value": "[隐藏]"
    },
    "visible": {
        "drew": "{rand} 被调用了 {calls} 次，但 Mission 1 从不抽随机数：p >= q 时直接接受。",
        "not_token_ids": "结果 {tokens} 中有不是草稿 token_id 的值：请追加 token_id（不是位置 i，也不是 p）。",
        "first_not_accepted": "得到 {tokens}：位置 0（p = 0.8 >= q = 0.5）没有被接受。p >= q 时追加 token_id，p 和 q 在 [i, token_id] 读取。",
        "accepted_p_below_q": "得到 {tokens}：token 20 出现了，但位置 1 的 p = 0.4 < q = 0.5，Mission 1 在这里停止（预先写好的 break），只保留之前接受的 token。",
        "stopped_after_accept": "第二个用例：位置 0、1、2 都有 p >= q（在 [i, token_id] 读取：0.8 >= 0.5、0.6 >= 0.3、0.5 >= 0.5），三个都应接受，你却只返回了 {tokens}。",
        "stopped_at_equal": "第二个用例：你返回了 {tokens}，停在了位置 2，而那里 p == q = 0.5。p >= q 包含相等，所以 token 30 在那里应当被接受。",
        "kept_after_stop": "得到 {tokens}：token 40 出现了，但 Mission 1 在位置 1（p = 0.4 < q = 0.5）停止，之后的 token 都不保留。",
        "m1_other": "第一个用例期望 [10]，第二个用例期望 [10, 20, 30]；得到 {tokens}。",
        "accepted_all": "得到 {tokens}：token 30 出现了，但位置 2 的 p/q = 0.1/0.9 = 0.11，那里抽到的 r = 0.9：r < p/q 不成立，所以 token 30 应当被拒绝，循环应在这里停止。",
        "never_drew": "在这个用例上 torch.rand 一次也没有被调用，而位置 1 和 2 都是 p < q（0.4 < 0.5、0.1 < 0.9）：这两个位置各要抽取一次 r = torch.rand(1).item()。",
        "continued": "得到 {tokens}：token 30 被拒绝后 token 40 又出现了（token 30 处 r = 0.9 >= p/q = 0.11）。一旦拒绝，之后的 token 都不再保留：循环在那里停止。",
        "coin_p_ge_q": "在每个位置都满足 p >= q 的草稿上（token 10、20、30），torch.rand 被调用了 {calls} 次。测试按位置顺序，为每个 p < q 的位置准备一个预设值，交给那里的一次 torch.rand(1) 调用：p >= q 的位置直接接受，不抽随机数（p 和 q 要在 [i, token_id] 处读取）。",
        "position1_rejected": "得到 {tokens}，只抽取了一次：位置 1 在 r = 0.5 时被拒绝，但 r = 0.5 < p/q = 0.4/0.5 = 0.8，token 20 本应在那里被接受。",
        "draws": "得到 [10, 20]，抽取了 {calls} 次；期望恰好 2 次，在位置 1 和 2（p < q）。",
        "no_torch_draws": "得到 [10, 20]，但没有一次抽取是测试能够预设的。测试为 torch.rand 安排了固定的随机数：请用 r = torch.rand(1).item() 抽取（不要用 numpy 的 default_rng、torch.bernoulli 或其他采样方法）。",
        "foreign": "你的函数用 {others} 抽取了 r。测试把预设的抽取值（先 0.5，再 0.9）交给 torch.rand，隐藏检查也是这样：请像课程里那样用 r = torch.rand(1).item() 抽取。",
        "shapes": "你向 torch.rand 要的形状是 {shapes}。测试按位置顺序，为每个 p < q 的位置准备一个预设值，交给那里的一次 torch.rand(1) 调用：每次只抽一个值，r = torch.rand(1).item()，放在 p < q 的分支里。",
        "m2_other": "期望严格等于 [10, 20]，得到 {tokens}。",
        "accept_all_case": "在每个位置都满足 p >= q 的用例上（token 10、20、30），三个 token 都应返回，你却返回了 {tokens}。要遍历每个位置，包括最后一个。"
    },
    "say": {
        "m1_passed": "可见测试通过：[10] 和 [10, 20, 30]，没有抽随机数。",
        "m2_passed": "可见测试通过：[10, 20]，抽取了 2 次。"
    },
    "fact": {
        "returned": "{function} 返回了 {got}；正确答案在这里返回 {expected}",
        "draw_count": "{function} 在这里调用了 {calls} 次 {rand}；正确答案调用 {expected} 次 torch.rand",
        "draws_all_kept": "{function} 保留了每个草稿 token，调用了 {calls} 次 {rand}；这份草稿有 {want} 个 p < q 的位置，每个抽一次（p >= q 时，包括 p == q，不抽）",
        "draws_to_reject": "{function} 返回了 {got}，没有保留 token {token}（位置 {i}），调用了 {calls} 次 {rand}；到这个位置为止（含该位置）有 {want} 个 p < q 的位置，每个抽一次（p >= q 时，包括 p == q，不抽）",
        "kept_first": "{function} 返回了 {got}；正确答案在这里以 {expected} 开头（这些位置在各自的行和列上都有 p >= q）",
        "outright": "{function} 没有调用 torch.rand 就返回了 {got}：它保留了位置 {i} 的 token {token}，而那里 p = {p} < q = {q}（第 {i} 行、第 {token} 列）；正确答案要先在那里抽取 r",
        "after_reject": "{function} 返回了 {got}：token {rejected}（位置 {i}）没有出现在结果中，也就是被拒绝了，它后面的 token {token} 却又出现了",
        "draws_after_reject": "{function} 拒绝了 token {rejected}（位置 {i}，没有出现在结果中），却调用了 {calls} 次 {rand}；到这次拒绝为止只有 {allowed} 个 p < q 的位置",
        "shapes": "{function} 向 {rand} 要的形状是 {shapes}；每次抽取是 torch.rand(1)，只要一个值",
        "foreign": "{function} 用 {others} 而不是 torch.rand 抽取了 {calls} 个值；检查预设的是 torch.rand(1) 的值，所以请用 r = torch.rand(1).item() 抽取（其他检查把同样的值交给了 {others}，因此按你函数其余部分的原样来判断）",
        "not_plain": "{function} 返回的是 {type}，不是由 int 组成的普通 Python 列表",
        "items_not_int": "{function} 返回的列表里，并非每一项都是 Python int",
        "not_ids": "{function} 返回了 {got}，其中有的值不是这份草稿的 token_id {ids}；正确答案在这里返回 {expected}",
        "unreadable": "{function} 返回的 {count} 项都不是 token_id",
        "items": "{count} 个不是 token_id 的值",
        "tensor_raised": "draft_tokens 是 torch.LongTensor 时，{function} 抛出了 {error}；同样的 id 以列表给出时，它没有抛出异常",
        "tensor_differs": "draft_tokens 是 torch.LongTensor 时，{function} 抽取 {calls} 次后返回了 {got}；同样的 id 以列表给出时，它抽取 {other_calls} 次后返回了 {other}",
        "relabelled": "把可见用例的 token_id 换成 {ids} 后，{function} 抽取 {calls} 次后返回了 {got}，换回原来的 id 就是 {back}；但在可见用例本身上，它抽取 {other_calls} 次后返回了 {other}",
        "twin": "{function} 在草稿 {ids} 上返回了 {got}；在另一份草稿 {twin_ids} 上返回了 {twin}。两份草稿在每个位置自己的行和列上 p、q 都相同（其他行、列的值不同）；如果在第 i 行的 token_id 列读取 p 和 q，它在那里应返回 {expected}",
        "inputs": "{function} 修改了 draft_probs、target_probs 或 draft_tokens；它只应读取它们",
        "rate": "用真实的 torch.rand 运行 {trials} 次，p/q = {want:.2f} 的位置被接受的比例是 {rate:.1%}；正确答案约为 {want:.0%}",
        "mean": "用真实的 torch.rand 运行 {trials} 次，平均接受了 {mean:.2f} 个 token；精确期望是 {want:.2f}",
        "rate_hidden": "用真实的 torch.rand 运行 {trials} 次，p/q = {want:.2f} 的位置被接受的比例与 {want:.0%} 相差超过 {tol:.0%}（隐藏检查不显示这个比例本身）",
        "mean_hidden": "用真实的 torch.rand 运行 {trials} 次，平均接受的 token 数与精确期望 {want:.2f} 相差超过 {tol:.2f}（隐藏检查不显示这个平均数本身）",
        "end": "。",
        "sep": "；"
    }
}
# ---------------------------------------------------------------- text: END TEXT


def say(key, **blanks):
    """The edition's sentence ``key`` from TEXT["say"], with its blanks filled in."""
    return TEXT["say"][key].format(**blanks)


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
# The visible test case of both missions: (token_id, p, q) for positions 0..3.
VISIBLE_POSITIONS = [(10, 0.8, 0.5), (20, 0.4, 0.5), (30, 0.1, 0.9), (40, 0.6, 0.3)]
VISIBLE_DRAWS = [0.5, 0.9]
# Functions the student writes, and the helpers that call one of them. When grading, the
# checks run in the grader's own process and these helpers call the student's function
# in the student's sandboxed kernel (grading/judge/verdicts.py); results come back as plain data.
STUDENT_FUNCTIONS = ("verify_draft",)
REMOTE_HELPERS = ("run_verify", "sample_runs", "run_cases")
_equal, _is_tensor = torch.equal, torch.is_tensor  # taken before any student code runs
_initial_seed = torch.initial_seed
_OVERFLOW_DRAW = 0.99999  # handed out past the script: it rejects almost anything (below p / q = 0.9995 too)
CALL_BUDGET_SECONDS = 1.0  # one call of verify_draft takes microseconds; a loop gets cut here


class TimeBudgetExceeded(Exception):
    """verify_draft ran longer than its budget (probably an endless loop)."""


@contextlib.contextmanager
def seeded(seed):
    """Seed torch, random and numpy for a block, then put their states back.

    Code that (wrongly) draws from random or numpy still gets the same grade on every run.
    """
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
def time_budget(seconds, cpu=False):
    """Raise TimeBudgetExceeded in the main thread after ``seconds`` (no-op elsewhere): of wall-clock time, or with
    ``cpu`` of this process's own CPU time, which another process's load does not spend."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def _expired(signum, frame):
        raise TimeBudgetExceeded(TEXT["problem"]["too_long"].format(seconds=seconds))

    which, timer = (signal.SIGPROF, signal.ITIMER_PROF) if cpu else (signal.SIGALRM, signal.ITIMER_REAL)
    previous = signal.signal(which, _expired)
    signal.setitimer(timer, seconds)
    try:
        yield
    finally:
        signal.setitimer(timer, 0)
        signal.signal(which, previous)


_BUILTIN_FUNCTION = _type([].append)
_NAMES_USED_HERE = ("tuple", "float", "any", "all", "zip", "enumerate", "repr", "TypeError",
                    "AssertionError", "BaseException")


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


class Case:
    """One test input: K draft positions over a vocabulary of ``vocab`` tokens.

    ``positions`` is a list of ``(token_id, p, q)``. The other columns of each
    row share the remaining probability evenly. ``decoys`` is a list of
    ``(row, column, value)``: a value put at that place in ``target_probs``
    (and half of it in ``draft_probs``), a trap for code that reads the wrong
    row or the row's maximum. ``tokens_as="tensor"`` passes the token ids as a
    ``torch.LongTensor`` instead of a list. ``rows``: ``[target rows, draft rows]``, each K lists of ``vocab``
    values, used as they are instead (the generated cases' rows); each position's p and q are read from them.
    """

    def __init__(self, positions, vocab=41, decoys=(), tokens_as="list", rows=None):
        self.wire = [[list(pos) for pos in positions], vocab, [list(d) for d in decoys], tokens_as]
        if rows is not None:
            self.wire.append([[list(r) for r in rows[0]], [list(r) for r in rows[1]]])
        self.positions = [tuple(pos) for pos in positions]
        k = _count(self.positions)
        if rows is not None:
            self.target_probs = torch.tensor(rows[0], dtype=torch.float32).reshape(k, vocab)
            self.draft_probs = torch.tensor(rows[1], dtype=torch.float32).reshape(k, vocab)
        else:
            self.target_probs = torch.zeros(k, vocab, dtype=torch.float32)
            self.draft_probs = torch.zeros(k, vocab, dtype=torch.float32)
        for i, (token_id, p, q) in enumerate(self.positions if rows is None else ()):
            for probs, value in ((self.target_probs, p), (self.draft_probs, q)):
                probs[i] = (1.0 - value) / (vocab - 1)
                probs[i, token_id] = value
        for row, column, value in decoys:
            self.target_probs[row, column] = value
            self.draft_probs[row, column] = value / 2
        ids = [token_id for token_id, _, _ in self.positions]
        self.draft_tokens = torch.tensor(ids, dtype=torch.long) if tokens_as == "tensor" else ids

    def p_over_q(self, i):
        """p/q at position i, read the way the lesson reads it."""
        token_id = self.positions[i][0]
        return self.target_probs[i, token_id].item() / self.draft_probs[i, token_id].item()


def visible_case():
    """The tensors of the visible test: draft_tokens [10, 20, 30, 40], vocab 41."""
    return Case(VISIBLE_POSITIONS, vocab=41)


def one_value(shape):
    """Whether ``torch.rand(*shape)`` draws exactly one value: (1,) as the lesson writes it, and (), (1, 1), ...
    alike (each takes one value from torch's generator). An unreadable shape ("?") is not one value."""
    return all(n == 1 for n in shape)


# Where else a function might draw r: while a scripted call runs, each of these is a stand-in that hands out the
# same script as torch.rand (one value per call, in call order, whatever the source), and records its name. So a
# function that draws r with random.random() is graded on what it does with its draws, and the source is charged
# once, by the single-draw check and the visible test (the lesson scripts torch.rand, and says so).
FOREIGN = ("random.random", "random.uniform", "numpy.random.rand", "numpy.random.random",
           "numpy.random.random_sample", "numpy.random.uniform", "torch.rand_like", "torch.Tensor.uniform_",
           "torch.bernoulli")
GENERATORS = ("torch.rand",) + FOREIGN


def _owner(source):
    """The object that holds ``source``'s name (numpy only when it is loaded), or None."""
    where = source.rpartition(".")[0]
    if where == "numpy.random":
        numpy = sys.modules.get("numpy")
        return numpy.random if numpy is not None else None
    return {"random": random, "torch": torch, "torch.Tensor": torch.Tensor}[where]


def _size(size):
    """numpy's ``size`` (None, an int or a sequence of ints) as a shape: () for None, ("?",) when unreadable."""
    if size is None:
        return ()
    try:
        return (_int(size),) if _type(size) is _int else tuple(_int(n) for n in size)
    except (TypeError, ValueError):
        return ("?",)


def _shape(tensor):
    """A tensor's shape as a tuple of ints (the shape a stand-in records)."""
    return tuple(_int(n) for n in tensor.shape)


def _filled(shape, value):
    """numpy's answer for ``shape``: a float for (), else an array of that shape holding ``value``."""
    if shape == ():
        return value
    import numpy
    return numpy.full([n if _type(n) is _int and n >= 0 else 1 for n in shape], value)


class ScriptedRand:
    """A stand-in for ``torch.rand``: each call's scripted draw, every call recorded. ``stand_in(source)`` is one for
    another generator (FOREIGN) that draws from the same script. ``value``: a function that gives each draw instead
    of the script (sample_runs: torch's own generator)."""

    def __init__(self, draws, value=None):
        self.draws = [float(d) for d in draws]
        self.shapes = []   # the shape each call asked for, in order
        self.sources = []  # the generator each call used, in order
        self._value = value

    def reset(self, draws):
        """A new script, and no call recorded (run_cases: one stand-in for every case)."""
        self.draws = [float(d) for d in draws]
        self.shapes, self.sources = [], []

    def draw(self, shape, source="torch.rand"):
        """The next value, recorded as a draw of ``shape`` from ``source``."""
        self.shapes.append(shape)
        self.sources.append(source)
        if self._value is not None:
            return self._value()
        index = _count(self.shapes) - 1
        return self.draws[index] if index < _count(self.draws) else _OVERFLOW_DRAW

    def __call__(self, *size, **kwargs):
        shape = kwargs.get("size", size[0] if _count(size) == 1 and _type(size[0]) is not _int else size)
        try:
            shape = tuple(_int(n) for n in shape)
        except TypeError:
            shape = ("?",)
        value = self.draw(shape)
        if shape == (1,) or "?" in shape or any(n < 1 for n in shape):
            return torch.tensor([value], dtype=torch.float64)
        return torch.full(shape, value, dtype=torch.float64)

    def stand_in(self, source):
        """A function for ``source`` (one of FOREIGN) that answers as it would, with this script's values."""
        draw = self.draw
        if source == "random.random":
            return lambda: draw((), source)
        if source == "random.uniform":
            return lambda a=0.0, b=1.0: a + (b - a) * draw((), source)
        if source == "numpy.random.rand":
            return lambda *d: _filled(_size(d), draw(_size(d), source))
        if source == "numpy.random.uniform":
            return lambda low=0.0, high=1.0, size=None: _filled(
                _size(size), low + (high - low) * draw(_size(size), source))
        if source in ("numpy.random.random", "numpy.random.random_sample"):
            return lambda size=None: _filled(_size(size), draw(_size(size), source))
        if source == "torch.bernoulli":  # a coin with chance p: 1 when the scripted r < p, as r < p / q decides
            return lambda input, *args, **kwargs: (torch.full(
                _shape(input), draw(_shape(input), source), dtype=torch.float64) < input.double()).to(input.dtype)
        if source == "torch.rand_like":
            return lambda input, *args, **kwargs: torch.full(_shape(input), draw(_shape(input), source),
                                                             dtype=torch.float64)

        def uniform_(tensor, a=0.0, b=1.0, **kwargs):  # torch.Tensor.uniform_: in place
            return tensor.fill_(a + (b - a) * draw(_shape(tensor), source))
        return uniform_

    @property
    def calls(self):
        return _count(self.shapes)

    @property
    def drawn_with(self):
        """The generators the calls used, in the order of GENERATORS."""
        return [source for source in GENERATORS if source in self.sources]


@contextlib.contextmanager
def stand_ins(function, fake, sources=FOREIGN):
    """While the block runs, each generator of ``sources`` (and torch.rand when it is among them) is ``fake``'s
    stand-in, also under the student's own names for it (``from random import random`` binds it at import, where
    replacing the module's attribute does not reach): each global of ``function`` bound to the real one is the
    stand-in too, until the block ends."""
    swaps, put = {}, []
    for source in sources:
        owner = _owner(source)
        if owner is None:
            continue
        name = source.rpartition(".")[2]
        real, own = getattr(owner, name), name in vars(owner)  # uniform_ is torch.Tensor's by inheritance
        stand_in = fake if source == "torch.rand" else fake.stand_in(source)
        setattr(owner, name, stand_in)
        put.append((owner, name, real, own))
        swaps[id(real)] = (real, stand_in)
    names = getattr(function, "__globals__", None)
    aliased = []
    if _type(names) is _dict:
        for name, value in _list(names.items()):
            if id(value) in swaps and swaps[id(value)][0] is value:
                names[name] = swaps[id(value)][1]
                aliased.append((name, value))
    try:
        yield
    finally:
        for owner, name, real, own in put:
            if own:
                setattr(owner, name, real)
            else:
                delattr(owner, name)
        for name, real in aliased:
            names[name] = real


class Run:
    """What one call of ``verify_draft`` did."""

    result = tokens = error = problem = None
    result_type, result_repr = "NoneType", "None"
    calls = 0
    draws_used = bad_shapes = ()
    inputs_changed = rand_replaced = reseeded = False  # reseeded: the call set torch's seed itself
    rebound = ()
    drawn_with = ()           # the generators the draws came from: torch.rand and FOREIGN's, in GENERATORS' order
    exception = ename = None  # the student's exception (in the kernel), its type's name (in the grader)
    where = None              # [line, code] of the student's own line the exception came from, or None
    after = ()                # the inputs after the call (in the kernel)
    k = 0                     # the case's number of positions
    ids = ()                  # the case's drafted token ids, in order
    read = None               # the result read through (read_through): a list of ints, or None
    length = None             # how many items the result holds (a list, tuple or 1-D tensor), or None

    @property
    def foreign(self):
        """The generators other than torch.rand that the draws came from."""
        return [source for source in self.drawn_with if source != "torch.rand"]

    def __repr__(self):
        return f"Run(tokens={self.tokens!r}, calls={self.calls}, problem={self.problem!r})"


def _as_tokens(result):
    """The result as a list of Python ints, or None when it is not a plain list of ids. A token id is an int:
    a tensor in the list (a 0-d tensor from draft_tokens[i], torch.multinomial's [1]) is not one, as the TODO says."""
    if _type(result) is not _list or not all(_type(item) is _int for item in result):
        return None
    return _list(result)


def read_through(result):
    """The result's ids as a list of Python ints wherever its intent is plain: a plain list of ints as it is, and a
    tuple, a 1-D integer tensor, or a list whose items are one-element integer tensors (draft_tokens[i] of a
    LongTensor) read as their ints; None otherwise. A check about the result's type still says when it is not a
    plain list (check_plain); every other check reads through it, so one mistake costs once."""
    if _is_tensor(result):
        if result.dim() != 1 or result.dtype.is_floating_point or result.dtype.is_complex or result.dtype == torch.bool \
                or result.numel() > MAX_VALUES:
            return None
        return [_int(v) for v in result.tolist()]
    if _type(result) not in (_list, tuple) or _count(result) > MAX_VALUES:
        return None
    out = []
    for item in result:
        if _type(item) is _int:
            out.append(item)
        elif (_is_tensor(item) and item.numel() == 1 and not item.dtype.is_floating_point
              and not item.dtype.is_complex and item.dtype != torch.bool):
            out.append(_int(item.reshape(-1)[0].item()))
        else:
            return None
    return out


def result_length(result):
    """How many items the result holds when it is a list, a tuple or a 1-D tensor; None otherwise."""
    if _is_tensor(result):
        return _int(result.shape[0]) if result.dim() == 1 else None
    return _count(result) if _type(result) in (_list, tuple) else None


def _snapshot(case):
    tokens = case.draft_tokens
    return (case.draft_probs.clone(), case.target_probs.clone(),
            tokens.clone() if _is_tensor(tokens) else _list(tokens))


def _same(a, b):
    if _is_tensor(a):
        return _is_tensor(b) and a.shape == b.shape and a.dtype == b.dtype and _equal(a, b)
    return _type(b) is _list and a == b


CALL_SEED = 2300  # torch's seed while the student's function runs (seeded)


def run_verify(verify_draft, case, draws=(), rand=None):
    """Call ``verify_draft`` on ``case`` with scripted draws and return a ``Run``.

    ``rand`` replaces the default ``ScriptedRand(draws)`` (the replay passes one that
    also notes the position of each draw).
    """
    fake = rand or ScriptedRand(draws)
    made = []
    try:
        with stand_ins(verify_draft, fake, GENERATORS):
            with time_budget(CALL_BUDGET_SECONDS), seeded(CALL_SEED):
                made.append(_called(verify_draft, case, fake))
    except BaseException as exc:  # raised around the call (its budget ran out in the course's own code): the call's
        if not made:
            made.append(_called(_raiser(exc), case, fake))
        run = made[0]
        run.exception, run.ename = exc, _type(exc).__name__
        run.error = f"{run.ename}: {exc}"
        run.problem = _first_problem(run)
    return made[0]


def _raiser(exc):
    def raises(*args):
        raise exc
    return raises


def _called(verify_draft, case, fake):
    """One call of ``verify_draft`` on ``case``, with ``fake`` standing in for the generators: a Run."""
    run = Run()
    run.k = _count(case.positions)
    run.ids = [token_id for token_id, _, _ in case.positions]
    before = _snapshot(case)
    try:
        try:
            try:
                run.result = verify_draft(case.draft_probs, case.target_probs, case.draft_tokens)
            finally:  # torch.manual_seed (or torch.seed) inside the function changes the seed torch reports
                run.reseeded = _initial_seed() != CALL_SEED
        finally:
            run.rand_replaced = torch.rand is not fake
    except BaseException as exc:  # the student's error is what we report
        run.exception, run.ename = exc, _type(exc).__name__
        run.error = f"{run.ename}: {exc}"
        run.where = _where(exc, verify_draft)
    run.calls = fake.calls
    run.drawn_with = fake.drawn_with
    run.draws_used = fake.draws[: fake.calls]
    run.bad_shapes = [s for s in fake.shapes if not one_value(s)]
    run.tokens = _as_tokens(run.result)
    try:
        run.read, run.length = read_through(run.result), result_length(run.result)
    except Exception:  # a result whose reading raises (a subclass of the student's) is read as nothing
        run.read = run.length = None
    run.result_type, run.result_repr = _type(run.result).__name__, repr(run.result)[:80]
    run.after = (case.draft_probs, case.target_probs, case.draft_tokens)
    run.inputs_changed = not all(_same(b, a) for b, a in zip(before, run.after))
    run.rebound = _rebound_builtins()
    run.problem = _first_problem(run)
    return run


class Cases:
    """Several cases sent to the kernel at once (``run_cases``): the grader's generated cases."""

    def __init__(self, cases):
        self.cases = _list(cases)
        self.wire = ["cases", [case.wire for case in self.cases]]
        self.positions = ()


MAX_CASES = 1000            # cases in one run_cases call
CASES_BUDGET_SECONDS = 4.0  # of the kernel's own CPU time for one run_cases call (a right answer takes 30 ms)
CASES_WALL_SECONDS = 8.0    # and of wall-clock time, for a function that sleeps (the grader's deadline is 10 s)


def run_cases(verify_draft, cases, draws):
    """``run_verify`` on each of ``cases.cases`` with its scripted ``draws[j]``, in order: a list of Runs. The batch
    has CASES_BUDGET_SECONDS of the kernel's own CPU time (so a classmate's load cannot cut it) and
    CASES_WALL_SECONDS of wall-clock time; the call that runs out is cut (TimeBudgetExceeded, its error) and the
    batch stops there (the grader reads the cases not run as not run)."""
    runs = []
    fake = ScriptedRand(())
    try:  # one set of stand-ins, one seed and one time budget for the whole batch; each call its own script
        with stand_ins(verify_draft, fake, GENERATORS), seeded(CALL_SEED), time_budget(CASES_BUDGET_SECONDS, cpu=True), \
                time_budget(CASES_WALL_SECONDS):
            for case, script in zip(cases.cases, draws):
                fake.reset(script)
                runs.append(_called(verify_draft, case, fake))
                if runs[-1].ename == "TimeBudgetExceeded":
                    break
    except BaseException:  # the budget ran out between two calls (or the course's code around them failed): the cases
        pass               # not run are read as not run
    return runs


def check_generated(function, mission):
    """The hidden check of the generated cases. It compares ``function`` with the grader's own reference on many
    generated drafts, so it runs in the grader only (grading/judge/generated.py, which replaces this function there):
    nothing of the reference is in this folder. Run in a kernel (an instructor's ``nbgrader validate`` of source/),
    there is nothing to compare with, and it passes."""
    return None


def _where(exc, function):
    """(line, code) of the last line of ``function``'s own cell that ``exc`` passed through, or None: the line of
    the student's own code an error came from (the course's code and torch's are not shown)."""
    import linecache
    try:
        filename = function.__code__.co_filename
    except AttributeError:
        return None
    tb, found = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            found = tb.tb_lineno
        tb = tb.tb_next
    if found is None:
        return None
    return [_int(found), linecache.getline(filename, found).strip()[:120]]


def _first_problem(run, hidden=False):
    """The first thing wrong with the run, or None; ``hidden``: in words of the grader's only (hide())."""
    if run.rebound:
        return TEXT["problem"]["rebound"].format(names=", ".join(run.rebound))
    if run.rand_replaced:
        return TEXT["problem"]["rand_replaced"]
    if run.error is not None and run.error.split(":")[0] == "NotImplementedError":
        return TEXT["problem"]["not_written"]
    if run.error is not None and hidden:
        return TEXT["hidden"]["raised"].format(error=run.ename, function="verify_draft")
    if run.error is not None and run.where:
        return TEXT["problem"]["raised_at" if run.where[1] else "raised_line"].format(
            error=run.error, line=run.where[0], code=run.where[1])
    if run.error is not None:
        return TEXT["problem"]["raised"].format(error=run.error)
    if run.tokens is None and run.result_type == "list":
        return TEXT["hidden"]["not_ids"] if hidden else TEXT["problem"]["not_ids"].format(result=run.result_repr)
    if run.tokens is None and hidden:
        return TEXT["hidden"]["not_list"].format(type=run.result_type)
    if run.tokens is None:
        return TEXT["problem"]["not_list"].format(type=run.result_type, result=run.result_repr)
    return None


# ------------------------------------------------------------------ hidden checks
# Each check decides one property on its own case and says what happened there: what came back, how many draws
# were asked for. It names no cause: when the grader's diagnosis (grading/judge/) replays the mistake it named and
# that replay gives this check's failure, the grader adds that this failure follows from it. Every check but the
# ones about the result's type reads the result through (read_through), so a tensor or a list of positions costs
# one check, not all of them.

class Failed(AssertionError):
    """A check that failed: its sentence, and ``kind``, what it compared (tokens, calls, ids, plain, shapes, inputs,
    tensor, relabel, rate, mean, or whole: the call itself went wrong)."""

    def __init__(self, message, kind):
        super().__init__(message)
        self.kind = kind


def _facts(*facts):
    words = TEXT["fact"]
    return words["sep"].join(facts) + words["end"]


def _fact(key, run=None, **blanks):
    return TEXT["fact"][key].format(function=STUDENT_FUNCTIONS[0], rand=drawer(run), **blanks)


def drawer(run):
    """What the run drew with, as a sentence names it: torch.rand, or the generators it used instead (and torch.rand
    too when it also used that)."""
    return " / ".join(run.drawn_with) if run is not None and run.foreign else "torch.rand"


def prefix(run):
    """The accepted prefix as the checks read it: the result read through when it holds drafted ids; a list of as
    many other values (positions, probabilities) as the first that many drafted ids (check_ids says what they are);
    None when it cannot be read."""
    return read_prefix(run.read, run.length, run.ids)


def read_prefix(read, length, ids):
    """prefix() of a result read through as ``read`` with ``length`` items, on a draft of ``ids``."""
    ids = _list(ids)
    if read is not None and all(t in ids for t in read):
        return _list(read)
    if length is not None and length <= _count(ids):
        return ids[: _int(length)]
    return _list(read) if read is not None else None


def whole_problem(run):
    """What went wrong with the call as a whole (builtins or torch.rand replaced, an error, a result no check can
    read), or None."""
    if run.rebound or run.rand_replaced or run.error is not None:
        return run.problem
    if prefix(run) is None:  # nothing to read: not a list, tuple or 1-D tensor
        return run.problem or TEXT["problem"]["not_list_short"]
    return None


def said(run):
    """The result as a failed check shows it: the plain list, or what it read, or how many items it held."""
    if run.tokens is not None:
        return run.tokens
    if run.read is not None:
        return run.read
    return TEXT["fact"]["items"].format(count=run.length) if run.length is not None else run.result_type


def _whole(run):
    problem = whole_problem(run)
    if problem is not None:
        end = TEXT["fact"]["end"]
        raise Failed(problem if problem.endswith((".", end)) else problem + end, "whole")


def check(run, expected_tokens=None, calls=None, upto=None):
    """The accepted prefix (read through) against ``expected_tokens``, and the number of draws against ``calls``
    (None: not compared); ``upto``: only the prefix's first ``upto`` tokens are compared (the case's positions
    after them are there for other reasons, and what the function does there is other checks' to judge); raises
    Failed."""
    _whole(run)
    facts, kind = [], None
    expected = [_int(t) for t in expected_tokens] if expected_tokens is not None else None
    got = prefix(run)
    if upto is not None and _type(got) is _list:
        got = got[:upto]
    if expected is not None and got != expected[:upto]:
        facts.append(_fact("returned", got=said(run), expected=expected))
        kind = "tokens"
    if calls is not None and run.calls != calls:
        facts.append(_fact("draw_count", run, calls=run.calls, expected=calls))
        kind = kind or "calls"
    if facts:
        raise Failed(_facts(*facts), kind)


def _by_role(run, case):
    """(the accepted prefix, the drafted ids, k): k is where the function rejected, read by role (the first drafted
    token the result leaves out, whichever way its coin compared), or K when it kept them all. Raises Failed for a
    result that cannot be read as ids."""
    _whole(run)
    got, ids = prefix(run), [t for t, _, _ in case.positions]
    if _type(got) is not _list:
        raise Failed(_facts(_fact("returned", got=said(run), expected="?")), "tokens")
    k = 0
    while k < _count(got) and k < _count(ids) and got[k] == ids[k]:
        k += 1
    return got, ids, k


def check_stops(run, case, draws=True):
    """Nothing after the function's own first rejection: no later token comes back, and (``draws``) no draw is made
    past it. Read by role: the first drafted token the result leaves out is where this function rejected, whichever
    way its coin compares, so a coin mistake (another check's) is not charged here as well."""
    got, ids, k = _by_role(run, case)
    if k == _count(ids):
        return
    if _count(got) > k:
        raise Failed(_facts(_fact("after_reject", got=said(run), token=got[k], rejected=ids[k], i=k)), "tokens")
    allowed = sum(1 for _, p, q in case.positions[: k + 1] if p < q)
    calls = run.calls
    if draws and (_type(calls) is not _int or calls > allowed):
        raise Failed(_facts(_fact("draws_after_reject", run, rejected=ids[k], i=k, calls=calls, allowed=allowed)), "calls")


def check_draw_order(run, case):
    """One draw per p < q position and none for p >= q, over the positions the function went through: up to its own
    first rejection (the first drafted token the result leaves out, itself included), or every position when it keeps
    them all. Read by role, as check_stops: a coin mistake that rejects earlier is the coin checks', not this one's."""
    got, ids, k = _by_role(run, case)
    want = sum(1 for _, p, q in case.positions[:k + 1] if p < q)
    if run.calls == want:
        return
    if k == _count(ids):
        raise Failed(_facts(_fact("draws_all_kept", run, calls=run.calls, want=want)), "calls")
    raise Failed(_facts(_fact("draws_to_reject", run, got=said(run), token=ids[k], i=k, calls=run.calls, want=want)),
                 "calls")


def check_not_outright(run, case, kept):
    """The first ``kept`` drafted tokens come back (p >= q at each one's own row and column), and the next one, where
    p < q at its own row and column, is not kept without a draw. What its coin then decides is the coin checks' (a
    reversed or misread coin is not charged here as well), and the positions after it are the loop checks'."""
    _whole(run)
    got, ids = prefix(run), [t for t, _, _ in case.positions]
    expected = ids[:kept]
    if _type(got) is not _list or got[:kept] != expected:
        raise Failed(_facts(_fact("kept_first", got=said(run), expected=expected)), "tokens")
    if _count(got) > kept and run.calls == 0:
        token, p, q = case.positions[kept]
        raise Failed(_facts(_fact("outright", got=said(run), token=token, i=kept, p=p, q=q)), "tokens")


def check_calls(run, calls):
    """Only the number of draws: ``calls``."""
    check(run, None, calls)


def check_ids(run, expected_tokens, upto=None):
    """The result's items are the drafted token ids (read through a tensor or a tuple): exactly ``expected_tokens``
    (``upto``: its first ``upto`` items, as check's)."""
    _whole(run)
    expected = [_int(t) for t in expected_tokens]
    read = run.read[:upto] if upto is not None and run.read is not None else run.read
    if read != expected[:upto]:
        if run.read is None:
            raise Failed(_facts(_fact("returned", got=said(run), expected=expected)), "ids")
        raise Failed(_facts(_fact("not_ids", got=said(run), ids=_list(run.ids), expected=expected)
                            if not all(t in run.ids for t in run.read) else
                            _fact("returned", got=said(run), expected=expected)), "ids")


def check_plain(run):
    """The result is a plain Python list of ints."""
    _whole(run)
    if run.tokens is None:
        if run.result_type == "list":
            raise Failed(_facts(_fact("items_not_int")), "plain")
        raise Failed(_facts(_fact("not_plain", type=run.result_type)), "plain")


def check_shapes(run):
    """At least one draw, each from torch.rand, and each a single value."""
    _whole(run)
    if run.calls == 0:
        raise Failed(_facts(_fact("draw_count", run, calls=0, expected=_count(run.ids))), "calls")
    if run.foreign:
        raise Failed(_facts(_fact("foreign", run, calls=run.calls, others=" / ".join(run.foreign))), "foreign")
    if run.bad_shapes:
        raise Failed(_facts(_fact("shapes", run, shapes=run.bad_shapes)), "shapes")  # hide() may have made it "not shown"


def check_unchanged(run):
    """The inputs are as they were sent."""
    if run.inputs_changed:
        raise Failed(_facts(_fact("inputs")), "inputs")
    _whole(run)


def check_tensor(tensor_run, list_run, plain=True):
    """The same draft with draft_tokens as a LongTensor (``tensor_run``) and as a list (``list_run``): the same
    prefix and draws, no error only with the tensor, and (``plain``) a plain list back."""
    _whole(list_run)
    if tensor_run.error is not None and not (tensor_run.rebound or tensor_run.rand_replaced):
        raise Failed(_facts(_fact("tensor_raised", error=tensor_run.ename)), "tensor")
    _whole(tensor_run)
    if prefix(tensor_run) != prefix(list_run) or tensor_run.calls != list_run.calls:
        raise Failed(_facts(_fact("tensor_differs", got=said(tensor_run), calls=tensor_run.calls,
                                  other=said(list_run), other_calls=list_run.calls)), "tensor")
    if plain:
        check_plain(tensor_run)


def relabelled(case, ids, vocab):
    """``case`` with its token ids renamed to ``ids`` (in order) over ``vocab`` tokens: the same p and q."""
    return Case([(new, p, q) for new, (_, p, q) in zip(ids, case.positions)], vocab=vocab)


def check_relabelled(run, visible_run):
    """``run`` on the visible draft with its ids renamed gives what ``visible_run`` (the visible draft) gave,
    renamed: nothing depends on the visible draft's ids."""
    _whole(visible_run)
    _whole(run)
    back = dict(zip(run.ids, visible_run.ids))
    got = run.read if run.read is not None and all(t in back for t in run.read) else None  # the ids, not a reading
    if got is None:
        expected = [t for t, v in zip(run.ids, visible_run.ids) if v in prefix(visible_run)]
        raise Failed(_facts(_fact("returned", got=said(run), expected=expected) if run.read is None else
                            _fact("not_ids", got=said(run), ids=_list(run.ids), expected=expected)), "relabel")
    if [back[t] for t in got] != prefix(visible_run) or run.calls != visible_run.calls:
        raise Failed(_facts(_fact("relabelled", ids=_list(run.ids), got=said(run), calls=run.calls,
                                  back=[back[t] for t in got], other=said(visible_run),
                                  other_calls=visible_run.calls)), "relabel")


def check_twin(run, twin_run):
    """``run`` on a draft of distinct ids and ``twin_run`` on its twin (the same p and q at each position's own row
    and column, other values elsewhere, an id drafted twice): a function that reads row i at column token_id keeps
    the same positions of both. Whatever the function decides there (a comparison, the loop) is other checks' to
    judge: this one compares the function with itself."""
    _whole(run)
    _whole(twin_run)
    position = {t: i for i, t in enumerate(run.ids)}
    got = prefix(run)
    if any(t not in position for t in got):
        raise Failed(_facts(_fact("not_ids", got=said(run), ids=_list(run.ids), expected="?")), "tokens")
    expected = [twin_run.ids[position[t]] for t in got]
    if prefix(twin_run) != expected or twin_run.calls != run.calls:
        raise Failed(_facts(_fact("twin", got=said(run), ids=_list(run.ids), twin_ids=_list(twin_run.ids),
                                  twin=said(twin_run), expected=expected)), "twin")


def check_rate(sampled, case, trials, tol=0.03):
    """sample_runs' share of runs that accepted position 0 against p/q there."""
    rate, _ = sampled
    want = case.p_over_q(0)
    if rate < 0:
        raise Failed(TEXT["problem"]["not_list_short"] + TEXT["fact"]["end"], "whole")
    if not close(rate, want, tol):
        key = "rate" if _type(rate) is float else "rate_hidden"  # hide() gives a value whose text is "not shown"
        raise Failed(_facts(_fact(key, rate=rate, want=want, trials=trials, tol=tol)), "rate")


def check_mean(sampled, case, trials, tol=0.08):
    """sample_runs' mean accepted length against its exact expectation."""
    _, mean = sampled
    want = expected_length(case)
    if mean < 0:
        raise Failed(TEXT["problem"]["not_list_short"] + TEXT["fact"]["end"], "whole")
    if not close(mean, want, tol):
        key = "mean" if _type(mean) is float else "mean_hidden"
        raise Failed(_facts(_fact(key, mean=mean, want=want, trials=trials, tol=tol)), "mean")


# ------------------------------------------------------------------ visible tests
# What each visible test says when it fails. Every message states what the run showed,
# then the likely fix; the rules that pick one are below.

MULTI_ACCEPT_POSITIONS = [(10, 0.8, 0.5), (20, 0.6, 0.3), (30, 0.5, 0.5), (40, 0.1, 0.9)]

VISIBLE_MESSAGES = TEXT["visible"]


def multi_accept_case():
    """Mission 1's second visible case: positions 0, 1 and 2 have p >= q, position 3 has p < q."""
    return Case(MULTI_ACCEPT_POSITIONS, vocab=41)


def _say(key, run, tokens=None):
    return VISIBLE_MESSAGES[key].format(tokens=run.tokens if tokens is None else tokens, calls=run.calls,
                                        shapes=[list(s) for s in run.bad_shapes])


def _accept_all_problem(accepting):
    """Both visible tests' last question: on accept_case() (every position has p >= q) all three tokens come back."""
    if accepting is not None and accepting.tokens != [10, 20, 30]:
        return _say("accept_all_case", accepting)
    return None


def visible_problem_m1(run, multi, accepting=None):
    """Mission 1's visible test: ``run`` on the visible case, ``multi`` on the multi-accept case, ``accepting`` on
    accept_case() (every position has p >= q, the last one included)."""
    for r in (run, multi) + ((accepting,) if accepting is not None else ()):
        if r.problem is not None:
            return r.problem
    if run.calls or multi.calls:
        return VISIBLE_MESSAGES["drew"].format(calls=run.calls + multi.calls, rand=drawer(run if run.foreign else multi))
    if accepting is not None and accepting.calls:
        return VISIBLE_MESSAGES["drew"].format(calls=accepting.calls, rand=drawer(accepting))
    drafted = {10, 20, 30, 40}
    if not set(run.tokens + multi.tokens) <= drafted:
        return _say("not_token_ids", run, run.tokens + multi.tokens)
    if run.tokens[:1] != [10]:
        return _say("first_not_accepted", run)
    if 20 in run.tokens:
        return _say("accepted_p_below_q", run)
    if 40 in run.tokens:
        return _say("kept_after_stop", run)
    if run.tokens == [10] and multi.tokens == [10]:
        return _say("stopped_after_accept", multi)
    if run.tokens == [10] and multi.tokens == [10, 20]:
        return _say("stopped_at_equal", multi)
    if run.tokens != [10] or multi.tokens != [10, 20, 30]:
        return _say("m1_other", run, [run.tokens, multi.tokens])
    return _accept_all_problem(accepting)


ACCEPT_POSITIONS = MULTI_ACCEPT_POSITIONS[:3]  # every position has p >= q: no draw at all


def accept_case():
    """Mission 2's second visible case: positions 0, 1 and 2, all with p >= q (so no draw)."""
    return Case(ACCEPT_POSITIONS, vocab=41)


def visible_problem_m2(run, accepting=None):
    """Mission 2's visible test: the visible case with the draws 0.5, then 0.9, and ``accepting`` (accept_case(),
    where every position has p >= q). The draw contract comes first: one torch.rand(1) per p < q position."""
    runs = (run,) if accepting is None else (run, accepting)
    for r in runs:
        if r.problem is not None:
            return r.problem
    foreign = [g for g in FOREIGN if any(g in r.foreign for r in runs)]
    if foreign:
        return VISIBLE_MESSAGES["foreign"].format(others=" / ".join(foreign))
    shapes = [list(s) for r in runs for s in r.bad_shapes]
    if shapes:
        return VISIBLE_MESSAGES["shapes"].format(shapes=shapes)
    if accepting is not None and accepting.calls:
        return _say("coin_p_ge_q", accepting)
    if not set(run.tokens) <= {10, 20, 30, 40}:
        return _say("not_token_ids", run)
    if 30 in run.tokens:
        return _say("accepted_all", run) + (VISIBLE_MESSAGES["never_drew"] if not run.calls else "")
    if 40 in run.tokens:
        return _say("continued", run)
    if run.tokens[:2] != [10, 20]:
        if run.tokens[:1] == [10] and run.calls == 1:
            return _say("position1_rejected", run)
        return _say("m2_other", run)
    if run.calls == 0:
        return _say("no_torch_draws", run)
    if run.calls != 2:
        return _say("draws", run)
    return _accept_all_problem(accepting)


def sample_runs(verify_draft, case, trials, seed):
    """Run ``case`` ``trials`` times with the real ``torch.rand`` under a fixed seed (FOREIGN's generators draw from
    it too).

    Returns (fraction of runs that accepted position 0, mean accepted length), each result read as the checks read
    it (prefix); (-1.0, -1.0) when a result cannot be read as token ids. The same seed gives the same draws, so
    the same code gets the same grade.
    """
    real = torch.rand
    first, total = 0, 0
    ids = [token_id for token_id, _, _ in case.positions]
    # another generator (random.random, numpy, ...) draws what torch.rand would: the same grade on every run, and
    # its source is charged once, by the single-draw check
    torch_draws = ScriptedRand((), value=lambda: real(1).item())
    try:
        with seeded(seed), time_budget(CALL_BUDGET_SECONDS * 4), stand_ins(verify_draft, torch_draws):
            for _ in range(trials):
                result = verify_draft(case.draft_probs, case.target_probs, case.draft_tokens)
                run = Run()
                run.ids, run.read, run.length = ids, read_through(result), result_length(result)
                tokens = prefix(run)
                if tokens is None:
                    return -1.0, -1.0
                first += 1 if tokens[:1] == ids[:1] else 0
                total += _count(tokens)
    finally:
        torch.rand = real
    return first / trials, total / trials


def expected_length(case):
    """The exact expected number of accepted tokens for ``case``."""
    expected, survive = 0.0, 1.0
    for i, (_, p, q) in enumerate(case.positions):
        survive *= 1.0 if p >= q else case.p_over_q(i)
        expected += survive
    return expected


# ------------------------------------------------------------------ wire format
# The grader sends a Case and the draws to the student's kernel, and reads back a Run
# as plain JSON data. The kernel never holds the expected answers or the checks, and the
# grader decides every property itself: it compares the inputs' values after the call with
# what it sent, and knows the draws it scripted. Every field is checked for content (types,
# lengths, ranges); a reply that fails is refused (ValueError), never half-read.
# Non-finite floats cross the wire as values (grading/sandbox/kernel_harness.py encodes them).

MAX_TOKENS_OVER = 2        # tokens past the case's K that are sent (more cannot change a verdict)
MAX_SHAPES = 16            # bad draw shapes sent (the first ones)
MAX_DIMS = 8
MAX_VALUES = 100_000       # values of one input sent back; a larger input (resize_) counts as changed
MAX_CALLS = 10_000_000
_BIG = 2 ** 63


def case_from_wire(wire):
    if wire[0] == "cases":
        if _count(wire[1]) > MAX_CASES:
            raise ValueError("too many cases")
        return Cases([case_from_wire(w) for w in wire[1]])
    positions, vocab, decoys, tokens_as, *rows = wire
    return Case([tuple(p) for p in positions], vocab=vocab, decoys=[tuple(d) for d in decoys], tokens_as=tokens_as,
                rows=rows[0] if rows else None)


def _state(x):
    """What one input holds after the call (in the kernel): [shape, dtype, values or None]."""
    if _is_tensor(x):
        values = x.detach().double().reshape(-1).tolist() if x.numel() <= MAX_VALUES else None
        return [[_int(n) for n in x.shape], str(x.dtype), values]
    if _type(x) is _list:
        values = [v if _type(v) is _int and -_BIG <= v < _BIG else None for v in x] if _count(x) <= MAX_VALUES else None
        return [[_count(x)], "list", values]
    return [[], _type(x).__name__[:20], None]


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


def to_wire(helper, result):
    """What ``helper`` returned, as JSON-able data (in the student's kernel)."""
    if helper == "sample_runs":
        return [float(x) for x in result]
    if helper == "run_cases":
        return [to_wire("run_case", run) for run in result]
    tokens = result.tokens
    read = result.read
    return {"tokens": tokens[: result.k + MAX_TOKENS_OVER] if tokens is not None else None,
            "read": [t for t in read[: result.k + MAX_TOKENS_OVER] if -_BIG <= t < _BIG] if read is not None else None,
            "length": result.length if result.length is not None and result.length <= MAX_VALUES else None,
            "calls": result.calls, "shapes": [[n if _type(n) is _int else "?" for n in s[:MAX_DIMS]]
                                             for s in result.bad_shapes[:MAX_SHAPES]],
            "error": [_type(result.exception).__name__[:60], str(result.exception)[:500]]
            if result.exception is not None else None,
            "after": [digest(x) if helper == "run_case" else _state(x) for x in result.after],
            "rand_replaced": result.rand_replaced,
            "rebound": list(result.rebound), "result_type": result.result_type[:40],
            "result_repr": result.result_repr[:80], "reseeded": result.reseeded,
            "drawn_with": list(result.drawn_with), "where": result.where}


def _bound(args, kwargs, name, position, default):
    return args[position] if _count(args) > position else kwargs.get(name, default)


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


def from_wire(helper, data, case, args=(), kwargs=None, function=None, digests=False):
    """A reply from the student's kernel to ``helper(function, case, *args, **kwargs)``, checked field by
    field and decided here (in the grader). Raises ValueError."""
    kwargs = kwargs or {}
    k = _count(case.positions)
    if helper == "sample_runs":
        unreadable = data == [-1.0, -1.0] or data == [-1, -1]
        if not unreadable and not (type(data) is list and len(data) == 2 and _is_number(data[0], 0, 1)
                                   and _is_number(data[1], 0, MAX_CALLS) and data[0] == data[0] and data[1] == data[1]):
            raise ValueError("a malformed sample_runs reply")
        return float(data[0]), float(data[1])
    if helper == "run_cases":
        if not (type(data) is list and 1 <= len(data) <= len(case.cases) or data == [] and not case.cases):
            raise ValueError("a malformed run_cases reply")
        scripts = _bound(args, kwargs, "draws", 0, ())
        return [from_wire("run_verify", one, sub, (script,), {}, function, digests=True)
                for one, sub, script in zip(data, case.cases, scripts)]
    fields = ("tokens", "read", "length", "calls", "shapes", "error", "after", "rand_replaced", "rebound",
              "result_type", "result_repr", "reseeded", "drawn_with", "where")
    if type(data) is not dict or set(data) != set(fields):
        raise ValueError("a malformed run_verify reply")
    try:
        tokens, error = data["tokens"], data["error"]
        if not (tokens is None or (type(tokens) is list and len(tokens) <= k + MAX_TOKENS_OVER
                                   and all(type(t) is int and -_BIG <= t < _BIG for t in tokens))):
            raise ValueError("tokens")
        read, length = data["read"], data["length"]
        if not (read is None or (type(read) is list and len(read) <= k + MAX_TOKENS_OVER
                                 and all(type(t) is int and -_BIG <= t < _BIG for t in read))):
            raise ValueError("read")
        if not (length is None or (type(length) is int and 0 <= length <= MAX_VALUES)):
            raise ValueError("length")
        if tokens is not None and (read != tokens or length != len(tokens) and len(tokens) < k + MAX_TOKENS_OVER):
            raise ValueError("read")
        if not (type(data["calls"]) is int and 0 <= data["calls"] <= MAX_CALLS):
            raise ValueError("calls")
        shapes = data["shapes"]
        if not (type(shapes) is list and len(shapes) <= min(MAX_SHAPES, data["calls"])
                and all(type(s) is list and len(s) <= MAX_DIMS
                        and all(n == "?" or (type(n) is int and -_BIG <= n < _BIG) for n in s) for s in shapes)):
            raise ValueError("shapes")
        if not (error is None or (type(error) is list and len(error) == 2 and type(error[0]) is str
                                  and _IDENTIFIER(error[0]) and type(error[1]) is str and len(error[1]) <= 500)):
            raise ValueError("error")
        if not (type(data["after"]) is list and len(data["after"]) == 3):
            raise ValueError("after")
        sent = (case.draft_probs, case.target_probs, case.draft_tokens)
        if digests:  # run_cases: a fingerprint of each input (digest)
            if not all(type(d) is str and len(d) == 24 for d in data["after"]):
                raise ValueError("after")
            unchanged = [_digest_of(case, n, a) == d for n, (a, d) in enumerate(zip(sent, data["after"]))]
        else:
            unchanged = [_same_state(a, b) for a, b in zip(sent, data["after"])]
        if type(data["rand_replaced"]) is not bool:
            raise ValueError("rand_replaced")
        if type(data["reseeded"]) is not bool:
            raise ValueError("reseeded")
        drawn_with = data["drawn_with"]
        if not (type(drawn_with) is list and all(type(g) is str and g in GENERATORS for g in drawn_with)
                and len(set(drawn_with)) == len(drawn_with) and (drawn_with or not data["calls"])
                and len(drawn_with) <= data["calls"]):
            raise ValueError("drawn_with")
        if not (type(data["rebound"]) is list and all(n in _NAMES_USED_HERE for n in data["rebound"])
                and len(set(data["rebound"])) == len(data["rebound"])):
            raise ValueError("rebound")
        where = data["where"]
        if not (where is None or type(where) is list and len(where) == 2 and type(where[0]) is int
                and 0 < where[0] < 1_000_000 and type(where[1]) is str and len(where[1]) <= 120 and error):
            raise ValueError("where")
        if not (type(data["result_type"]) is str and len(data["result_type"]) <= 40
                and type(data["result_repr"]) is str and len(data["result_repr"]) <= 80):
            raise ValueError("result")
    except ValueError as exc:
        raise ValueError(f"a malformed run_verify reply ({exc})") from None
    run = Run()
    run.k = k
    run.ids = [token_id for token_id, _, _ in case.positions]
    run.tokens, run.calls = tokens, data["calls"]
    run.read, run.length = read, length
    run.error = f"{error[0]}: {error[1]}" if error else None
    run.ename = error[0] if error else None
    run.where = list(where) if where else None
    run.bad_shapes = [tuple(s) for s in shapes]
    draws = [float(d) for d in _bound(args, kwargs, "draws", 0, ())]
    run.draws_used = tuple(draws[: run.calls])
    run.inputs_changed = not all(unchanged)
    run.rand_replaced, run.rebound = data["rand_replaced"], list(data["rebound"])
    run.reseeded = data["reseeded"]
    run.drawn_with = [g for g in GENERATORS if g in drawn_with]
    run.result_type, run.result_repr = data["result_type"], data["result_repr"]
    run.problem = _first_problem(run)
    return run


def _digest_of(case, n, x):
    """digest(x) of the case's n-th input as sent, made once per case (the grader sends the same cases to every
    student)."""
    kept = getattr(case, "_digests", None)
    if kept is None:
        kept = case._digests = [digest(v) for v in (case.draft_probs, case.target_probs, case.draft_tokens)]
    return kept[n]


def _IDENTIFIER(name):
    return 0 < len(name) <= 60 and name.isidentifier()


def trace(helper, run):
    """What one run showed, without the student's own wording: the diagnosis compares these."""
    return {"tokens": run.tokens, "calls": run.calls, "shapes": [list(s) for s in run.bad_shapes],
            "draws_used": list(run.draws_used), "error": run.ename, "inputs_changed": run.inputs_changed,
            "rand_replaced": run.rand_replaced, "rebound": list(run.rebound), "result_type": run.result_type,
            "reseeded": run.reseeded, "foreign": list(run.foreign)}


HIDDEN_TEXT = TEXT["hidden"]
SHOWN_TYPES = ("tuple", "Tensor", "generator", "dict", "set", "NoneType", "int", "float", "str", "map", "zip",
               "range", "ndarray", "bool", "list", "filter", "reversed", "list_iterator")


def hide(helper, result, case, shown, args=(), kwargs=None):
    """``result`` as a hidden check sees it: no word or value of the student's own in its messages.

    The error keeps its type only, the result its type name (when it is a common one); the tokens,
    counts and shapes are shown only when they could come from the case's own ids and positions;
    ``shown(value, safe)`` (from the grader) gives a value whose text says it is not shown unless safe.
    """
    k = _count(case.positions)
    if helper == "sample_runs":
        return tuple(shown(float(x), False) for x in result)
    ids = {p[0] for p in case.positions} | set(range(k)) | {p[0] for p in VISIBLE_POSITIONS}  # public or the case's
    run = result
    run.error = run.ename
    run.result_repr = ""
    run.result_type = run.result_type if run.result_type in SHOWN_TYPES else "object"
    if run.tokens is not None:
        run.tokens = shown(list(run.tokens), _count(run.tokens) <= max(k, _count(VISIBLE_POSITIONS)) + MAX_TOKENS_OVER
                           and all(t in ids for t in run.tokens))
    if run.read is not None:
        run.read = shown(list(run.read), _count(run.read) <= max(k, _count(VISIBLE_POSITIONS)) + MAX_TOKENS_OVER
                         and all(t in ids for t in run.read))
    if run.length is not None:
        run.length = shown(run.length, run.length <= k + 2)
    run.calls = shown(run.calls, run.calls <= k + 2)
    run.bad_shapes = shown([tuple(s) for s in run.bad_shapes],
                           len(run.bad_shapes) <= k + 1 and all(all(n == "?" or 0 <= n <= k + 1 for n in s)
                                                                for s in run.bad_shapes))
    run.problem = _first_problem(run, hidden=True)
    return run


def close(a, b, tol):
    return math.isfinite(a) and abs(a - b) <= tol
