"""The grading kernel: an ordinary IPython kernel that also answers the grader's calls.

Started inside the sandbox (grading/sandbox.py) as

    python kernel_harness.py <trusted helpers.py> -f <connection file> [kernel options]

Before any student code runs it loads the course's helper module (``spec_checks.py``
from the instructor's source/, bound read-only into the sandbox) under a private
name that is not in ``sys.modules``, so ``import spec_checks`` in the notebook gets
the student's own copy and patching it changes nothing here.

The grader then sends ``grader_call_request`` messages on the shell channel. They
bypass IPython (no input transformers, history, display hooks or tracebacks): the
handler looks up the student's function in the notebook's namespace, calls the named
helper (for example ``run_verify``, which scripts ``torch.rand``) and replies with
plain JSON data. The expected answers and the checks never enter this process:
the grader compares the reply itself (grading/verdicts.py).
"""

import importlib.util
import os
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or ".") == HERE:
    del sys.path[0]  # the notebook must import its own spec_checks, not this folder's files

_HELPERS_PATH = sys.argv.pop(1)
_spec = importlib.util.spec_from_file_location("_grader_helpers", _HELPERS_PATH)
_helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_helpers)
_settrace, _setprofile, _thread_settrace = sys.settrace, sys.setprofile, threading.settrace
_getattr, _str, _type, _dict = getattr, str, type, dict
_remote = frozenset(_helpers.REMOTE_HELPERS)
_functions = frozenset(_helpers.STUDENT_FUNCTIONS)


def _answer(kernel, request):
    helper, name = request.get("helper"), request.get("function")
    if helper not in _remote or name not in _functions:
        return {"status": "refused"}
    function = kernel.shell.user_ns.get(name)
    if function is None:
        return {"status": "missing"}
    case = _helpers.case_from_wire(request["case"])
    try:
        result = _getattr(_helpers, helper)(function, case, *request.get("args", []), **request.get("kwargs", {}))
    except BaseException as exc:  # the student's error is part of the answer
        return {"status": "raised", "ename": _type(exc).__name__, "evalue": _str(exc)[:500]}
    return {"status": "ok", "data": _helpers.to_wire(helper, result)}


def _handler(kernel):
    def grader_call_request(stream, idents, parent):
        _settrace(None)
        _setprofile(None)
        try:
            content = _answer(kernel, parent["content"])
        except BaseException as exc:
            content = {"status": "raised", "ename": _type(exc).__name__, "evalue": _str(exc)[:500]}
        kernel.session.send(stream, "grader_call_reply", content, parent, idents)
    return grader_call_request


def main():
    from ipykernel.kernelapp import IPKernelApp

    class GradingKernelApp(IPKernelApp):
        def init_kernel(self):
            super().init_kernel()
            self.kernel.shell_handlers["grader_call_request"] = _handler(self.kernel)

    GradingKernelApp.launch_instance()


if __name__ == "__main__":
    main()
