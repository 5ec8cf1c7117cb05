"""The grading kernel: an ordinary IPython kernel that also answers the grader's calls.

Started inside the sandbox (grading/sandbox/kernels.py) as

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
the grader compares the reply itself (grading/judge/verdicts.py).
"""

import contextlib
import importlib.util
import math
import os
import sys


def load_private(path, name="_grader_helpers"):
    """The helper module at ``path``, as a module object that is not in ``sys.modules``."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NON_FINITE = ("nan", "inf", "-inf")


def encode(data):
    """JSON data with each non-finite float as ``{"float": "nan" | "inf" | "-inf"}``: a value, not an error.

    (JSON has no nan; jupyter_client refuses it.) grading/judge/verdicts.py decodes it.
    """
    if type(data) is float and not math.isfinite(data):
        return {"float": repr(data)}
    if type(data) in (list, tuple):
        return [encode(x) for x in data]
    if type(data) is dict:
        return {k: encode(v) for k, v in data.items()}
    return data


def answer(helpers, user_ns, request):
    """The reply to one grader call: run the named helper on the student's function, as plain data.

    ``helpers`` is the helper module, or anything with its REMOTE_HELPERS, STUDENT_FUNCTIONS,
    case_from_wire, to_wire and the remote helpers as attributes (``_helpers_only``).
    """
    helper, name = request.get("helper"), request.get("function")
    if helper not in helpers.REMOTE_HELPERS or name not in helpers.STUDENT_FUNCTIONS:
        return {"status": "refused"}
    function = user_ns.get(name)
    if function is None:
        return {"status": "missing"}
    case = helpers.case_from_wire(request["case"])
    run = getattr(helpers, helper)
    try:
        result = run(function, case, *request.get("args", []), **request.get("kwargs", {}))
    except BaseException as exc:  # the student's error is part of the answer
        if _raised_by(exc, run):  # the helper's own refusal (a result it cannot read), not the student's error
            return {"status": "helper"}
        return {"status": "raised", "ename": type(exc).__name__[:60], "evalue": str(exc)[:500]}
    return {"status": "ok", "data": encode(helpers.to_wire(helper, result))}


def _raised_by(exc, function):
    """Whether ``exc`` was raised in ``function``'s own frame (its innermost frame), not in a call it made."""
    tb, last = exc.__traceback__, None
    while tb is not None:
        last, tb = tb, tb.tb_next
    return last is not None and last.tb_frame.f_code is getattr(function, "__code__", None)


def _helpers_only(helpers):
    """What ``answer`` needs of the helper module, as an object of its own: not the module itself."""
    names = ("REMOTE_HELPERS", "STUDENT_FUNCTIONS", "case_from_wire", "to_wire") + tuple(helpers.REMOTE_HELPERS)
    values = {name: getattr(helpers, name) for name in names}
    values["REMOTE_HELPERS"], values["STUDENT_FUNCTIONS"] = tuple(values["REMOTE_HELPERS"]), tuple(
        values["STUDENT_FUNCTIONS"])
    return type("helpers", (), {"__slots__": (), **{k: staticmethod(v) if callable(v) else v
                                                    for k, v in values.items()}})()


def _handler(kernel, helpers):
    """The grader_call_request handler. Its closure holds the few functions ``answer`` calls, not the
    helper module; student code can still reach them (as any Python object in its process), but no
    verdict rests on what they report: the grader decides (grading/judge/verdicts.py)."""
    settrace, setprofile, send = sys.settrace, sys.setprofile, kernel.session.send  # taken before student code
    helpers = _helpers_only(helpers)

    def grader_call_request(stream, idents, parent):
        settrace(None)
        setprofile(None)
        try:
            content = answer(helpers, kernel.shell.user_ns, parent["content"])
        except BaseException as exc:
            content = {"status": "raised", "ename": type(exc).__name__[:60], "evalue": str(exc)[:500]}
        send(stream, "grader_call_reply", content, parent, idents)
    return grader_call_request


def _quiet_for_grader_calls(publish_status, kernel):
    """The kernel's status publisher, silent around a grader call: the grader reads its reply on the shell channel
    and nothing reads the busy and idle messages ipykernel would put on IOPub for it (two messages, signed and
    sent, for each of a notebook's dozens of calls: issue 24). Every other message keeps its status."""
    def publish(status, channel, parent=None):
        message = parent or kernel.get_parent(channel)
        if isinstance(message, dict) and message.get("header", {}).get("msg_type") == "grader_call_request":
            return None
        return publish_status(status, channel, parent)
    return publish


def _formatted_once(formatter):
    """``formatter.structured_traceback`` (IPython's InteractiveTB), giving the last exception's lines again when
    asked for them again: IPython 9 formats a cell's exception twice, once to show it and once for its history
    (``_format_exception_for_storage``), the same exception, frames and options both times, and the second
    formatting (each frame's source and its module found again) was a fiftieth of a kernel's time. Anything else
    is formatted afresh."""
    original = formatter.structured_traceback
    last = []  # (exception type, value, traceback, options, lines) of the last formatting

    def structured_traceback(etype, evalue, etb=None, tb_offset=None, context=5):
        options = (formatter.tb_offset if tb_offset is None else tb_offset, context, formatter.mode,
                   getattr(formatter, "_theme_name", None))
        if etype is not None and last and last[0][0] is etype and last[0][1] is evalue and last[0][2] is etb \
                and last[0][3] == options:
            formatter.tb = etb[0] if isinstance(etb, tuple) else etb  # what AutoFormattedTB records, for %debug
            return list(last[0][4])
        lines = original(etype, evalue, etb, tb_offset, context)
        last[:] = [(etype, evalue, etb, options, list(lines))] if etype is not None else []
        return lines
    return structured_traceback


def _flush_when_written(stream):
    """``stream.flush`` (ipykernel's OutStream, sys.stdout or sys.stderr), without the trip to the IOPub thread when
    nothing waits in the stream's buffers. ipykernel flushes both streams after every shell message, the grader's
    calls included: each flush hands the thread a flush and an event and waits for it (two wake-ups of that thread,
    four for a message), sending nothing when nothing was written. Whatever was written is still flushed, in
    order: a write puts its text in ``_buffers`` before it returns, and the IOPub thread sends every message in
    the order it was handed them, so the idle status still comes after the output. An echoing stream, or one of
    another ipykernel whose buffers are not where this looks, is flushed as before."""
    flush = stream.flush
    if not isinstance(getattr(stream, "_buffers", None), dict):
        return flush

    def flush_when_written():
        if stream._buffers or stream.echo is not None:
            return flush()
        return None
    return flush_when_written


def dates_reader():
    """(parse_date, extract_dates): jupyter_client.jsonutil's two, the same results sooner for the date a header holds.

    Every message the grader and a grading kernel read has two headers (its own and its parent's), and
    jupyter_client turns each header's ``date`` into a datetime with dateutil's general ISO 8601 parser: about
    9 us a date, hundreds of dates a notebook on each side (issue 24). Both sides write that date in one format,
    ``2026-12-03T14:45:32.087003Z``; a string of exactly that shape is built here into the datetime dateutil
    gives (its ``tzutc()``), and any other goes to jupyter_client's own parse_date (tests/test_grader_speedups.py
    compares the two on generated strings)."""
    import re
    from datetime import datetime

    from dateutil.tz import tzutc
    from jupyter_client import jsonutil

    header_date = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{6})Z", re.ASCII)
    utc = tzutc()  # one shared instance, as dateutil's parser uses

    def parse_date(s):
        if type(s) is str and len(s) == 27:
            m = header_date.fullmatch(s)
            if m is not None:
                try:
                    return datetime(*map(int, m.groups()), tzinfo=utc)
                except ValueError:  # month 13, hour 24, ...: the general parser says what it says of them
                    pass
        return jsonutil.parse_date(s)

    def extract_dates(obj):
        if isinstance(obj, dict):  # a loop, not a comprehension (a frame of its own): as deep as jupyter_client's
            new_obj = {}
            for k, v in obj.items():
                new_obj[k] = extract_dates(v)
            return new_obj
        if isinstance(obj, list | tuple):
            return [extract_dates(o) for o in obj]
        if isinstance(obj, str):
            return parse_date(obj)
        return obj

    return parse_date, extract_dates


def read_dates_sooner():
    """jupyter_client's Session reads every message's dates with ``dates_reader``'s extract_dates, in this process."""
    from jupyter_client import session

    if getattr(session.extract_dates, "__qualname__", "") != "dates_reader.<locals>.extract_dates":
        session.extract_dates = dates_reader()[1]


def list_module_files():
    """What ipykernel's IPythonKernel lists when it is made, from this process's modules: its debugger's
    "just my code" files (the file of every module that has one), as (how many modules, the last module, the files
    joined by NUL). The fork server takes it once, after its imports."""
    modules = sys.modules.copy()
    files = [m.__file__ for m in modules.values() if hasattr(m, "__file__") and m.__file__]
    return len(modules), next(reversed(modules.values()), None), "\0".join(files)


class _Listed:
    """A module as that list reads it: only its file."""

    __slots__ = ("__file__",)

    def __init__(self, file):
        self.__file__ = file


class _ModulesListed:
    """``sys.modules`` as IPythonKernel reads it once (``sys.modules.copy()``, each module's ``__file__``), answered
    from the fork server's list (``list_module_files``) and the modules added since, read from the end.

    A forked kernel that read every module itself wrote to each module object and each file name, a page copied
    from the server for each (some 2,500 copy-on-write faults, 9 ms of every kernel: issue 24); the same files
    come from the server's one string. Where the modules are not the server's plus some added at the end (one was
    removed, or the server's last one replaced), it is the real copy. Only the debugger reads the list; a grading
    kernel never debugs."""

    def __init__(self, listed):
        self.listed = listed

    def copy(self):
        import itertools

        count, last, files = self.listed
        added = len(sys.modules) - count
        tail = list(itertools.islice(reversed(sys.modules.items()), added + 1)) if added >= 0 else []
        if not tail or tail[-1][1] is not last:
            return sys.modules.copy()
        out = {i: _Listed(file) for i, file in enumerate(files.split("\0") if files else ())}
        out.update(reversed(tail[:-1]))
        return out


class _SysListed:
    """The ``sys`` that ipykernel.ipkernel sees while its kernel is made: ``sys`` itself but for ``modules``."""

    def __init__(self, listed):
        self.modules = _ModulesListed(listed)

    def __getattr__(self, name):
        return getattr(sys, name)


def parsed_connection_file(app, argv):
    """What traitlets' ``parse_command_line`` makes of ``argv`` on ipykernel's app, when ``argv`` is only
    ``-f <connection file>`` (what a forked kernel is given): the same cli_config, argv and extra_args, without
    building an argparse parser of every configurable class and alias (4 ms and 430 copy-on-write faults of every
    kernel: issue 24). Any other ``argv``: False, and nothing done."""
    from traitlets.config import Config

    if len(argv) != 2 or argv[0] != "-f" or argv[1].startswith("-") or "=" in argv[1]:
        return False
    app.argv = list(argv)
    app.cli_config = Config({"IPKernelApp": {"connection_file": argv[1]}})
    app.update_config(app.cli_config)
    app.extra_args = []
    return True


MODULES_LISTED = None  # set by the fork server (list_module_files): each forked kernel lists its modules from it


@contextlib.contextmanager
def modules_listed():
    """While ipykernel's kernel is made: ``ipykernel.ipkernel`` sees ``_SysListed`` (the fork server's list) for
    ``sys``, where the server left one; the real ``sys`` after, whatever happens."""
    from ipykernel import ipkernel

    if MODULES_LISTED is not None and ipkernel.sys is sys:
        ipkernel.sys = _SysListed(MODULES_LISTED)
    try:
        yield
    finally:
        ipkernel.sys = sys


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        del sys.path[0]  # the notebook must import its own spec_checks, not this folder's files
    launch(load_private(sys.argv.pop(1)))  # the helpers are loaded before any student code runs


def launch(helpers):
    """Run an IPython kernel (options from sys.argv) that also answers the grader's calls with ``helpers``."""
    from ipykernel.kernelapp import IPKernelApp

    read_dates_sooner()

    class GradingKernelApp(IPKernelApp):
        def parse_command_line(self, argv=None):
            argv = sys.argv[1:] if argv is None else argv
            if not parsed_connection_file(self, argv):
                super().parse_command_line(argv)

        def initialize(self, argv=None):
            super().initialize(argv)
            # traitlets sets the app's logger to DEBUG and filters at its handler (WARNING): ipykernel then made a
            # log record, thrown away, for each of its debug lines at every message. The same lines reach the log.
            self.log.setLevel(max(self.log.getEffectiveLevel(), min(h.level for h in self.log.handlers or [self.log])))

        def init_kernel(self):
            with modules_listed():
                super().init_kernel()
            self.kernel.shell_handlers["grader_call_request"] = _handler(self.kernel, helpers)
            self.kernel._publish_status = _quiet_for_grader_calls(self.kernel._publish_status, self.kernel)
            for stream in (sys.stdout, sys.stderr):
                stream.flush = _flush_when_written(stream)
            tracebacks = self.kernel.shell.InteractiveTB
            tracebacks.structured_traceback = _formatted_once(tracebacks)

    from traitlets.config import Config

    config = Config()
    # No input history database: a grading kernel never reads it back, and its SQLite writes (a thread of
    # their own) were a tenth of a kernel's time. In, Out and %history still work from memory.
    config.HistoryManager.enabled = False
    GradingKernelApp.launch_instance(config=config)


if __name__ == "__main__":
    main()
