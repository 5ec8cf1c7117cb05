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
your function do with this input".
"""

import builtins
import contextlib
import io
import re

import nbformat
from nbgrader import utils

from grading.kernel_harness import load_private

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


def behaviour(data):
    """What one run showed, without the student's own wording (error messages, reprs)."""
    out = {k: v for k, v in data.items() if k != "result_repr"}
    out["error"] = data["error"].split(":", 1)[0] if data.get("error") else None
    return out


def _student_error(ename, evalue):
    """An exception named like the one raised in the kernel (the name is checked, not trusted)."""
    ename = ename if isinstance(ename, str) and _IDENTIFIER.fullmatch(ename) else "Error"
    evalue = str(evalue)[:500]
    if ename == "AssertionError":
        return AssertionError(evalue)
    return type(ename, (Exception,), {})(evalue)


class Judge:
    """Runs test cells in the grader, calling the student's functions through ``call``.

    ``call(content)`` sends one request to the kernel and returns the reply's content,
    or raises KernelGone.
    """

    def __init__(self, helpers_path, call):
        self.helpers = load_private(helpers_path, "_trusted_helpers")
        self.call = call
        self.remote = self._remote_module()
        self.trace = []        # what the student's function did in each traced call (run_verify), for the diagnosis
        self.kernel_gone = None

    def _remote_module(self):
        helpers = self.helpers
        remote = type(helpers)("spec_checks")
        remote.__dict__.update({k: v for k, v in vars(helpers).items() if not k.startswith("__")})
        for name in helpers.REMOTE_HELPERS:
            setattr(remote, name, self._remote_helper(name))
        return remote

    def _remote_helper(self, helper):
        def remote(function, case, *args, **kwargs):
            if not isinstance(function, StudentFunction):
                raise TypeError(f"{helper} needs the student's function")
            reply = self.call({"helper": helper, "function": function.name, "case": case.wire,
                               "args": list(args), "kwargs": kwargs})
            status = reply.get("status") if isinstance(reply, dict) else None
            if status == "ok":
                try:
                    result = self.helpers.from_wire(helper, reply.get("data"))
                except ValueError as exc:
                    raise KernelGone(f"the kernel sent {exc}") from None
                if helper in getattr(self.helpers, "TRACED_HELPERS", ("run_verify",)):
                    self.trace.append(behaviour(reply["data"]))
                return result
            if status == "missing":
                raise NameError(f"name '{function.name}' is not defined: run the cell that defines it")
            if status == "raised":
                raise _student_error(reply.get("ename"), reply.get("evalue", ""))
            raise KernelGone("the kernel sent no valid answer")
        remote.__name__ = helper
        return remote

    def namespace(self):
        import torch

        ns = {k: v for k, v in vars(self.remote).items() if not k.startswith("_")}
        ns.update({"__builtins__": builtins, "__name__": "__grader__", "spec_checks": self.remote, "torch": torch})
        for name in self.helpers.STUDENT_FUNCTIONS:
            ns[name] = StudentFunction(name)
        return ns

    def outputs(self, source):
        """Run one whole test cell here; return its outputs (printed lines, then the error if it failed)."""
        printed = io.StringIO()
        error = None
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(source, "<test cell>", "exec"), self.namespace())
        except KernelGone as exc:
            self.kernel_gone = str(exc)
            error = ("NotRun", f"not checked: {exc}")
        except Exception as exc:
            error = (type(exc).__name__, str(exc))
        outputs = []
        if printed.getvalue():
            outputs.append(nbformat.v4.new_output("stream", name="stdout", text=printed.getvalue()))
        if error:
            outputs.append(nbformat.v4.new_output("error", ename=error[0], evalue=error[1],
                                                  traceback=[f"{error[0]}: {error[1]}"]))
        return outputs
