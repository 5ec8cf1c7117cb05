"""Verdicts the student's code cannot touch.

A test cell's pass or fail, and its message, is decided here, in the grader's own
process, never in the student's kernel:

- The student's kernel runs only the *visible* part of each test cell, so the hidden
  tests' code never enters it (``In``, tracebacks and exception messages cannot leak it).
- After the notebook has run, each whole test cell (visible and hidden part) is run
  here, with the course's own helper module (``spec_checks.py`` from source/). Its
  helpers that call a student function (``REMOTE_HELPERS``, e.g. ``run_verify``) send
  the case and the scripted draws to the kernel and get back plain data: the result,
  the draws, any error. The comparison with the expected answer happens here.
- The cell's outputs become what happened here: the lines it printed, and on failure
  one error whose traceback is its message, with no code.

So display hooks, patched sessions, tracebacks switched off, rebound builtins or a
traced check in the kernel change nothing: the kernel only ever answers "what did
your function do with this input". No verdict rests on the kernel's word about a
property: the helpers' ``from_wire`` checks every field of a reply for content and
decides each property from results it compares with its own (the inputs' values after
the call against what it sent, the draws it scripted against the calls made).

Where visible ends and hidden begins is the ``### BEGIN HIDDEN TESTS`` marker. While the
hidden part of a cell runs, what it prints is dropped, and its messages hold no word or
value of the student's own: the student's exception keeps only its type (``hidden_error``),
and the helpers' ``hide`` turns the reply's values into ones whose text says they are not
shown, unless they could only be the case's own ids. The visible part still shows the
student's own message.
"""

import builtins
import contextlib
import io
import os
import re

import nbformat
from nbgrader import utils

from grading.judge import grader_text
from grading.sandbox.kernel_harness import NON_FINITE, load_private

HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?^[ \t]*### END HIDDEN TESTS[^\n]*\n?", re.M | re.S)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,59}")


class KernelGone(Exception):
    """The kernel could not answer (it died, hung, or sent no valid reply)."""


def is_test_cell(cell):
    return cell.cell_type == "code" and utils.is_grade(cell) and not utils.is_solution(cell)


def visible_part(source):
    """The test cell without its hidden tests: what the student's kernel runs."""
    return HIDDEN.sub("", source)


def has_code(source):
    return any(line.strip() and not line.strip().startswith("#") for line in source.splitlines())


class StudentFunction:
    """Stands for a function defined in the student's kernel; the remote helpers call it there."""

    def __init__(self, name):
        self.name = name

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.name} runs in the student's kernel: call it through a helper of spec_checks")

    def __repr__(self):
        return f"<student function {self.name}>"


MAX_NODES = 1_000_000  # values in one reply, past which decode() refuses it (the message size caps it first)


def decode(data):
    """A reply's data with each ``{"float": "nan" | "inf" | "-inf"}`` (kernel_harness.encode) as that float.

    Walks without recursion and refuses (ValueError) more than MAX_NODES values.
    """
    if type(data) is dict and set(data) == {"float"} and data["float"] in NON_FINITE:
        return float(data["float"])
    root = [data]
    stack, nodes = [(root, 0)], 0
    while stack:
        parent, key = stack.pop()
        value = parent[key]
        nodes += 1
        if nodes > MAX_NODES:
            raise ValueError("a reply too large to read")
        if type(value) is dict and set(value) == {"float"} and value["float"] in NON_FINITE:
            parent[key] = float(value["float"])
        elif type(value) is dict:
            stack.extend((value, k) for k in value)
        elif type(value) is list:
            stack.extend((value, i) for i in range(len(value)))
    return root[0]


_KNOWN_ERRORS = frozenset(name for name, obj in vars(builtins).items()
                          if isinstance(obj, type) and issubclass(obj, BaseException)) | {"TimeBudgetExceeded"}


def _student_error(ename, evalue):
    """An exception named like the one raised in the kernel (the name is checked, not trusted)."""
    ename = ename if isinstance(ename, str) and _IDENTIFIER.fullmatch(ename) else "Error"
    evalue = str(evalue)[:500]
    if ename == "AssertionError":
        return AssertionError(evalue)
    return type(ename, (Exception,), {})(evalue)


def known_error(ename):
    """``ename`` if it names a builtin exception (or the helpers' TimeBudgetExceeded), else "Exception"."""
    return ename if ename in _KNOWN_ERRORS else "Exception"


def hidden_error(helpers, ename, function):
    """The student's exception in a hidden check: its type (a known name, else "Exception") and the
    grader's words, never the student's message."""
    ename = known_error(ename)
    return _student_error(ename, helpers.HIDDEN_TEXT["raised"].format(error=ename, function=function))


class _NotShown:
    """A value whose text (str, repr, format) is the grader's "not shown"; it compares and computes as itself."""

    __slots__ = ()
    text = "(not shown)"

    def __repr__(self):
        return self.text

    __str__ = __repr__

    def __format__(self, spec):
        return self.text


def not_shown(text):
    """``shown(value, safe)``: ``value`` if safe, else the same value whose text is ``text``."""
    classes = {}

    def shown(value, safe):
        if safe:
            return value
        base = type(value)
        if base not in classes:
            classes[base] = type(f"NotShown{base.__name__}", (_NotShown, base), {"__slots__": (), "text": text})
        return classes[base](value)
    return shown


def segments(source):
    """The cell as [(code, hidden)], in order, split at the hidden tests' markers.

    A cell whose parts do not compile on their own (a hidden block inside an indented one) is one hidden segment.
    """
    parts, at = [], 0
    for match in HIDDEN.finditer(source):
        parts.append((source[at:match.start()], False))
        parts.append((match.group(0), True))
        at = match.end()
    parts.append((source[at:], False))
    parts = [(code, hidden) for code, hidden in parts if code.strip()]
    try:
        for code, _ in parts:
            compile(code, "<test cell>", "exec")
    except SyntaxError:
        return [(source, HIDDEN.search(source) is not None)]
    return parts


_HELPERS = {}  # real path: (the file's bytes, its module), the trusted helpers of this grading process


def trusted_helpers(path):
    """The course's helper module at ``path``, loaded once per grading process while the file's bytes stay the same
    (executing it again costs a few milliseconds per notebook; the tenth of the grader's time a profile put under
    it was the first load's torch import, which this does not change). The grader's copy runs
    no student code; each Judge builds its own remote module from it (``_remote_module``). With
    GRADER_NO_SPEEDUPS=1 it is loaded afresh each time, as before."""
    from grading.plugins import speedups

    real = os.path.realpath(path)
    with open(real, "rb") as fh:
        text = fh.read()
    kept = _HELPERS.get(real)
    if kept is not None and kept[0] == text and speedups.enabled():
        return kept[1]
    load = lambda: load_private(real, "_trusted_helpers")  # noqa: E731
    module = speedups.loaded_and_frozen(load) if speedups.enabled() else load()
    _HELPERS[real] = (text, module)
    return module


class Judge:
    """Runs test cells in the grader, calling the student's functions through ``call``.

    ``call(content)`` sends one request to the kernel and returns the reply's content,
    or raises KernelGone.
    """

    def __init__(self, helpers_path, call):
        self.helpers = trusted_helpers(helpers_path)
        self.call = call
        self.remote = self._remote_module()
        self.trace = []        # what the student's function did in each traced call (run_verify), for the diagnosis
        self.calls = []        # [(check, helper, case, args, kwargs, trace)] of each traced call (grading/judge/rules.py)
        self.samples = []      # [(check, helper, case, args, kwargs, result)] of every other call (sample_runs, ...)
        self.failed = []       # the checks (grade ids) that failed, in order
        self.kinds = {}        # failed check: what its failure compared (spec_checks' Failed.kind), or None
        self.diagnosed = None  # what the diagnosis named, for the checks' causes (grading/judge/causes.py)
        self.checks = []       # every check run, in order
        self.check = None      # the check now running
        self.kernel_gone = None
        self.words = grader_text.ENGLISH  # the grader's messages: the edition's (SandboxedExecute sets them)
        self.hidden = False    # True while the hidden part of a test cell runs
        self.shown = not_shown(self.helpers.HIDDEN_TEXT["value"])
        self.generated = None  # the generated cases' Result (grading/judge/generated.py), once its check has run
        self.solutions = []    # the submission's answer cells, as submitted: an error's line is read from these

    def _remote_module(self):
        helpers = self.helpers
        remote = type(helpers)("spec_checks")
        remote.__dict__.update({k: v for k, v in vars(helpers).items() if not k.startswith("__")})
        for name in helpers.REMOTE_HELPERS:
            setattr(remote, name, self._remote_helper(name))
        if "run_cases" in helpers.REMOTE_HELPERS:  # the grader's own check, which no student folder holds
            remote.check_generated = self._check_generated
        return remote

    def run_cases(self, function, cases, *args):
        """Runs of the student's ``function`` on each of ``cases`` (one request; ``args``: each case's script), as
        the grader reads them (not hidden: the generated check writes its own message)."""
        if not isinstance(function, StudentFunction):
            raise TypeError("run_cases needs the student's function")
        reply = self.call({"helper": "run_cases", "function": function.name, "case": cases.wire,
                           "args": list(args), "kwargs": {}})
        status = reply.get("status") if isinstance(reply, dict) else None
        if status == "missing":
            raise NameError(self.words["not_defined"].format(name=function.name))
        if status != "ok":
            raise KernelGone(self.words["no_valid_answer"])
        try:
            return self.helpers.from_wire("run_cases", decode(reply.get("data")), cases, tuple(args), {},
                                          function.name)
        except (ValueError, TypeError, RecursionError) as exc:
            raise KernelGone(self.words["kernel_sent"].format(error=exc)) from None

    def _check_generated(self, function, mission):
        from grading.judge import generated, generated24
        (generated if "verify_draft" in self.helpers.STUDENT_FUNCTIONS else generated24).check(self, function, mission)

    def line_of(self, function, line):
        """The submitted text of line ``line`` of the answer cell that defines ``function``, or None."""
        for source in self.solutions:
            if f"def {function}" in source:
                lines = source.splitlines()
                return lines[line - 1].strip()[:120] if 0 < line <= len(lines) else None
        return None

    def _remote_helper(self, helper):
        def remote(function, case, *args, **kwargs):
            if not isinstance(function, StudentFunction):
                raise TypeError(f"{helper} needs the student's function")
            reply = self.call({"helper": helper, "function": function.name, "case": case.wire,
                               "args": list(args), "kwargs": kwargs})
            status = reply.get("status") if isinstance(reply, dict) else None
            if status == "ok":
                try:
                    result = self.helpers.from_wire(helper, decode(reply.get("data")), case, args, kwargs,
                                                    function.name)
                except (ValueError, TypeError, RecursionError) as exc:
                    raise KernelGone(self.words["kernel_sent"].format(error=exc)) from None
                if helper in getattr(self.helpers, "TRACED_HELPERS", ("run_verify",)):
                    self.trace.append(self.helpers.trace(helper, result))
                    self.calls.append((self.check, helper, case, tuple(args), dict(kwargs), self.trace[-1]))
                else:
                    self.samples.append((self.check, helper, case, tuple(args), dict(kwargs), result))
                if not self.hidden:
                    return result
                if getattr(result, "ename", None) is not None:  # a class name is the student's own words too
                    result.ename = known_error(result.ename)
                return self.helpers.hide(helper, result, case, self.shown, args, kwargs)
            if status == "missing":
                raise NameError(self.words["not_defined"].format(name=function.name))
            if status == "helper":  # the course's helper refused the result: the check's failure, raised by no one
                raise AssertionError(self.helpers.TEXT["problem"]["not_list_short"].format(function=function.name))
            if status == "raised" and self.hidden:
                raise hidden_error(self.helpers, reply.get("ename"), function.name)
            if status == "raised":
                raise _student_error(reply.get("ename"), reply.get("evalue", ""))
            raise KernelGone(self.words["no_valid_answer"])
        remote.__name__ = helper
        return remote

    def namespace(self):
        import torch

        ns = {k: v for k, v in vars(self.remote).items() if not k.startswith("_")}
        ns.update({"__builtins__": builtins, "__name__": "__grader__", "spec_checks": self.remote, "torch": torch})
        for name in self.helpers.STUDENT_FUNCTIONS:
            ns[name] = StudentFunction(name)
        return ns

    def outputs(self, source, check=None):
        """Run one whole test cell here; return its outputs (printed lines, then the error if it failed).

        What the hidden part prints is dropped. ``check`` (the cell's grade id) is noted with each traced
        call and in ``failed`` when the cell fails, for the diagnosis.
        """
        self.check = check
        self.checks.append(check)
        printed = io.StringIO()
        error = None
        namespace = self.namespace()
        try:
            for code, hidden in segments(source):
                self.hidden = hidden
                out = io.StringIO() if hidden else printed
                with contextlib.redirect_stdout(out):
                    exec(compile(code, "<test cell>", "exec"), namespace)
        except KernelGone as exc:
            self.kernel_gone = str(exc)
            error = ("NotRun", self.words["not_checked"].format(why=exc))
        except AssertionError as exc:  # a check's failure (spec_checks' Failed among them): its sentence
            error = ("AssertionError", str(exc))
            self.kinds[check] = getattr(exc, "kind", None)
        except Exception as exc:
            error = (type(exc).__name__, str(exc))
        finally:
            self.hidden = False
        outputs = []
        if printed.getvalue():
            outputs.append(nbformat.v4.new_output("stream", name="stdout", text=printed.getvalue()))
        if error:
            self.failed.append(check)
            outputs.append(nbformat.v4.new_output("error", ename=error[0], evalue=error[1],
                                                  traceback=[f"{error[0]}: {error[1]}"]))
        return outputs
