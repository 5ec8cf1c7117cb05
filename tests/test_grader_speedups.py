"""The grader's own speed-ups of issue 24 change no result: each is checked against the path without it.

- the trusted helper module is loaded once per grading process while its bytes stay the same
  (grading/judge/verdicts.py trusted_helpers);
- Level 23's diagnosis models are run once per case, draws and mistakes in a grading process
  (grading/judge/rules23.py _memo_model): every catalogued answer gets the same line with it as without it;
- the kernel publishes no busy/idle status for a grader call, and keeps it for everything else
  (grading/sandbox/kernel_harness.py _quiet_for_grader_calls);
- the kernel client is ready without jupyter_client's fixed waits (grading/sandbox/kernels.py
  GradingKernelClient): a real kernel answers a cell right after it;
- nbformat's validation of one output or cell (``validate(node, ref)``) is checked first by a compiled
  validator (grading/plugins/speedups.py _fast_ref_validate): valid and invalid nodes get what nbformat gave;
- the kernel's logger makes no record its handler would drop (grading/sandbox/kernel_harness.py);
- the kernel's stdout and stderr skip the IOPub thread's round trip when nothing was written, and send what was
  written before their flush returns (grading/sandbox/kernel_harness.py _flush_when_written);
- a forked kernel's IPythonKernel lists its module files from the fork server's list, not by reading every module
  (grading/sandbox/kernel_harness.py _ModulesListed): the same files; and a kernel starting after the prewarm
  imports nothing.

How much each saves is measured by benchmarks/grading_speed.py, not here.
"""

import asyncio

import pytest

import mutants
from conftest import run_cells
from grading import ASSIGNMENT, ROOT, grade, pipeline
from grading.build import catalogue
from grading.judge import diagnosis, rules23, verdicts
from grading.sandbox import kernel_harness
from grading.plugins import speedups

HELPERS = ROOT / "source" / ASSIGNMENT / "spec_checks.py"


def test_the_helper_module_is_loaded_once_while_its_bytes_stay_the_same(tmp_path, monkeypatch):
    path = tmp_path / "spec_checks.py"
    path.write_text("VALUE = 1\n")
    first = verdicts.trusted_helpers(path)
    assert verdicts.trusted_helpers(path) is first and first.VALUE == 1
    path.write_text("VALUE = 2\n")  # an instructor's edit between two gradings: the new file is what counts
    second = verdicts.trusted_helpers(path)
    assert second is not first and second.VALUE == 2
    monkeypatch.setenv(speedups.OFF_ENV, "1")  # the old path: loaded afresh every time
    assert verdicts.trusted_helpers(path) is not second


def test_a_judge_gets_its_own_remote_module_over_the_shared_helpers():
    a, b = verdicts.Judge(HELPERS, lambda content: {}), verdicts.Judge(HELPERS, lambda content: {})
    assert a.helpers is b.helpers
    assert a.remote is not b.remote and a.remote.run_verify is not b.remote.run_verify


def test_the_memoised_models_give_every_catalogued_answer_the_same_diagnosis(monkeypatch, tmp_path):
    """In a grading process (its memo), and in make grade's workers, where one worker makes the models' runs and the
    others read them from the run's folder (speedups.made_once_per_run): the same line as made afresh."""
    runs = []
    for notebook in ("01_accept_branch", "02_reject_and_break"):
        for answer in catalogue.load(notebook, ASSIGNMENT):
            if not answer.full_marks:
                runs.append((notebook, mutants.grade(answer.code, ASSIGNMENT, notebook)[0]))
    rules23.forget()
    memoised = [diagnosis.line(nb, judge, assignment=ASSIGNMENT) for nb, judge in runs]
    again = [diagnosis.line(nb, judge, assignment=ASSIGNMENT) for nb, judge in runs]  # from the memo
    assert rules23._MODELLED and rules23._GROUPED and rules23._SAMPLED, "the models' runs were kept"

    made, original = [], speedups.made_once_per_run
    monkeypatch.setattr(speedups, "made_once_per_run", lambda kind, key, make, *codec: original(
        kind, key, lambda: made.append(kind) or make(), *codec))
    monkeypatch.setenv(speedups.SHARED_ENV, str(tmp_path))
    rules23.forget()
    first_worker = [diagnosis.line(nb, judge, assignment=ASSIGNMENT) for nb, judge in runs]  # makes and writes
    assert {"rules23.grouped", "rules23.sampled"} <= set(made) and len(list(tmp_path.glob("*.lock"))) == len(made)
    made.clear()
    rules23.forget()  # another worker: nothing in its memo
    other_worker = [diagnosis.line(nb, judge, assignment=ASSIGNMENT) for nb, judge in runs]  # reads
    assert made == [], "a worker made again what another had made"
    monkeypatch.delenv(speedups.SHARED_ENV)

    monkeypatch.setenv(speedups.OFF_ENV, "1")
    fresh = [diagnosis.line(nb, judge, assignment=ASSIGNMENT) for nb, judge in runs]
    assert memoised == again == first_worker == other_worker == fresh
    rules23.forget()


def test_after_the_worker_templates_warm_up_a_workers_notebooks_compile_no_validator():
    """make grade's worker template compiles what each worker's first notebook compiled (grade._warm_up): then
    validating the course's released notebooks (either way nbconvert and nbgrader do) and making outputs and cells
    as nbclient does compiles nothing more."""
    assert _in_a_fresh_python(
        "import glob, os, fastjsonschema, nbformat\n"
        "from nbformat import v4\n"
        f"os.chdir({str(ROOT)!r})\n"
        "from grading import grade\nfrom grading.plugins import speedups\n"
        "speedups.apply()\n"
        "grade._warm_up()\n"
        "def refuse(*args, **kwargs):\n"
        "    raise SystemExit('compiled in a worker')\n"
        "fastjsonschema.compile = refuse\n"
        "for path in glob.glob('release/*/*.ipynb'):\n"
        "    nb = nbformat.read(path, 4)\n"
        "    nbformat.validate(nb)\n"
        "    nbformat.validate(nb, relax_add_props=True)\n"
        "cell = v4.new_code_cell('x', outputs=[v4.new_output('stream', name='stderr', text='y'),\n"
        "    v4.new_output('error', ename='E', evalue='', traceback=['t']),\n"
        "    v4.new_output('execute_result', data={'text/plain': '2'}, execution_count=2),\n"
        "    v4.new_output('display_data', data={'text/html': '<b>'})])\n"
        "nbformat.validate(v4.new_notebook(cells=[cell, v4.new_markdown_cell('m')]))\n"
        "print(json.dumps('none compiled'))\n") == "none compiled"


def _made_once(folder, make_code, key='["k", [1.5, 2]]', env=None):
    """What made_once_per_run gives in a new process with ``folder`` as the run's folder: [value, made?]."""
    return _in_a_fresh_python(
        "import os, time\n"
        "from grading.plugins import speedups\n"
        f"os.environ[speedups.SHARED_ENV] = {str(folder)!r}\n"
        f"os.environ.update({env or {}!r})\n"
        "made = []\n"
        "def make():\n"
        "    made.append(1)\n"
        f"    {make_code}\n"
        f"value = speedups.made_once_per_run('test', {key}, make, lambda v: v, lambda d: tuple(d))\n"
        "print(json.dumps([value, bool(made)]))\n")


def test_a_result_made_once_per_run_is_made_by_one_process_and_read_by_the_others(tmp_path):
    assert _made_once(tmp_path, "return [1, 'a']") == [[1, "a"], True]
    assert _made_once(tmp_path, "raise SystemExit('made again')") == [[1, "a"], False]  # read, decoded
    assert _made_once(tmp_path, "return [2]", key='["k", [1.5, 3]]') == [[2], True]  # another key
    assert _made_once(tmp_path, "return [3]", env={speedups.OFF_ENV: "1"}) == [[3], True]  # the old path: no folder
    stored = [p for p in tmp_path.iterdir() if not p.name.endswith(".lock")]
    assert len(stored) == 2
    for path, text in ((stored[0], "{not json"), (stored[1], '["another key", [9]]')):
        path.write_text(text)  # a broken file, or one made under another name: made again, and written
    assert _made_once(tmp_path, "return [4]") == [[4], True]
    assert _made_once(tmp_path, "return [5]", key='["k", [1.5, 3]]') == [[5], True]
    assert _made_once(tmp_path, "raise SystemExit('made again')") == [[4], False]


def test_two_workers_that_need_the_same_result_at_once_make_it_once(tmp_path):
    """The second waits for the first (the lock), then reads what it made."""
    import concurrent.futures

    make = "time.sleep(1.5); return [os.getpid()]"
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        both = list(pool.map(lambda _: _made_once(tmp_path, make), range(2)))
    assert sorted(made for _, made in both) == [False, True] and both[0][0] == both[1][0]


class _Kernel:
    def __init__(self, parent):
        self.parent, self.sent = parent, []

    def get_parent(self, channel):
        return self.parent

    def publish(self, status, channel, parent=None):
        self.sent.append(status)


@pytest.mark.parametrize("msg_type,published", [("grader_call_request", []), ("execute_request", ["busy", "idle"]),
                                                ("kernel_info_request", ["busy", "idle"])])
def test_a_grader_call_publishes_no_status_and_every_other_request_does(msg_type, published):
    kernel = _Kernel({"header": {"msg_type": msg_type}})
    publish = kernel_harness._quiet_for_grader_calls(kernel.publish, kernel)
    publish("busy", "shell")
    publish("idle", "shell")
    assert kernel.sent == published


def test_a_kernel_is_ready_and_answers_with_the_quick_wait():
    from jupyter_client.manager import start_new_kernel

    from grading.sandbox import kernels as sandbox

    km, kc = start_new_kernel(startup_timeout=120)
    kc.stop_channels()  # a fresh client of our own, whose IOPub subscription starts now
    client = sandbox.GradingKernelClient(**km.get_connection_info(session=True))
    client.start_channels()

    async def ready_then_run():
        await client.wait_for_ready(timeout=60)
        msg_id = client.execute("print(6 * 7)")
        while True:
            msg = await client.get_iopub_msg(timeout=30)
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
                return msg["content"]["text"]

    try:
        assert asyncio.run(ready_then_run()) == "42\n"
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)


def test_a_grading_kernel_logs_what_it_logged_and_makes_no_record_it_drops():
    from grading.sandbox import kernels as sandbox

    cell = ("import json\nlog = get_ipython().kernel.log; log.warning('still logged')\n"
            "print(json.dumps([log.getEffectiveLevel(), sorted(h.level for h in log.handlers)]))")
    level, handlers = run_cells([cell], sandbox.ForkedKernelManager)[0]
    assert level == min(handlers) == 30  # WARNING: records below it would be dropped by every handler


def _nodes():
    """Outputs and cells, valid and broken in the ways a kernel's message or a student's file could be."""
    from nbformat.v4 import nbbase

    good = [nbbase.new_output("stream", text="hi\n"), nbbase.new_output("stream", name="stderr", text=["a", "b"]),
            nbbase.new_output("display_data", data={"text/plain": "x", "image/png": "iVBOR"}, metadata={"a": 1}),
            nbbase.new_output("execute_result", data={"text/plain": "1"}, execution_count=3),
            nbbase.new_output("error", ename="ValueError", evalue="bad", traceback=["line"]),
            nbbase.new_code_cell("x = 1", metadata={"nbgrader": {"grade": False}}),
            nbbase.new_markdown_cell("# title"), nbbase.new_raw_cell("raw")]
    nodes = list(good)
    for node in good:
        for key in list(node):
            nodes.append({k: v for k, v in node.items() if k != key})       # a required key missing
            for wrong in (None, 7, "s", [], {}, [1, 2], {"x": object.__name__}):
                nodes.append({**node, key: wrong})                          # a value of another type
        nodes.append({**node, "unexpected": 1})                             # a key the schema does not allow
    nodes += [{}, {"output_type": "nonsense"}, {"cell_type": "code"}]
    return nodes


@pytest.mark.parametrize("ref", ["output", "stream", "display_data", "execute_result", "error", "code_cell",
                                 "markdown_cell", "raw_cell"])
def test_the_fast_ref_validation_raises_what_nbformat_raises(ref, monkeypatch):
    import copy

    from nbformat.v4 import nbbase

    speedups.apply()
    fast = nbbase.validate
    assert getattr(fast, "_grading_fast", False)
    original = fast.__wrapped__
    seen = set()
    for node in _nodes():
        outcomes = []
        for validate in (original, fast):
            try:
                validate(copy.deepcopy(node), ref)
                outcomes.append(None)
            except Exception as exc:  # noqa: BLE001 - what each raised is compared
                outcomes.append((type(exc), str(exc)))
        assert outcomes[0] == outcomes[1], (ref, node)
        seen.add(outcomes[0] is None)
    assert seen == {True, False}, "valid and invalid nodes of this kind were both tried"


@pytest.fixture(scope="module")
def generated_course(tmp_path_factory):
    """A course whose gradebook holds the released assignment (nbgrader generate_assignment)."""
    root = pipeline.make_course(tmp_path_factory.mktemp("generated"))
    pipeline.nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")
    return root


def test_the_preloaded_cells_overwrite_what_nbgrader_overwrites(generated_course, monkeypatch):
    """OverwriteCells with the notebook's cells read once (grading/plugins/speedups.py _preloaded_cells) repairs a tampered
    notebook exactly as nbgrader's per-cell queries do, with fewer queries."""
    import copy

    import nbformat
    from nbgrader.preprocessors import OverwriteCells
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    speedups.apply()
    notebook = "02_reject_and_break"
    nb = nbformat.read(generated_course / "release" / ASSIGNMENT / f"{notebook}.ipynb", as_version=4)
    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id")]
    locked = next(c for c in graded if c.metadata.nbgrader.get("locked") and c.cell_type == "code")
    locked.source += "\nprint('changed')"                                  # a locked cell edited
    points = next(c for c in graded if c.metadata.nbgrader.get("grade"))
    points.metadata.nbgrader["points"] = 100                               # a grade cell's points raised
    nb.cells.append(nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": {
        "grade_id": "not_in_the_gradebook", "grade": False, "solution": False, "locked": False,
        "schema_version": 3}}))                                            # an id the gradebook does not know
    resources = {"nbgrader": {"notebook": notebook, "assignment": ASSIGNMENT, "student": "someone",
                              "db_url": grade.default_db_url(generated_course)}}
    statements = []
    count = lambda *args: statements.append(1)  # noqa: E731
    event.listen(Engine, "before_cursor_execute", count)
    outs, queries = [], []
    try:
        for off in ("1", "0"):
            monkeypatch.setenv(speedups.OFF_ENV, off)
            OverwriteCells().preprocess(copy.deepcopy(nb), copy.deepcopy(resources))  # the gradebook's engine made
            statements.clear()
            out, _ = OverwriteCells().preprocess(copy.deepcopy(nb), copy.deepcopy(resources))
            outs.append(out)
            queries.append(len(statements))
    finally:
        event.remove(Engine, "before_cursor_execute", count)
    assert outs[0] == outs[1]
    repaired = outs[1]
    assert "changed" not in repaired.cells[nb.cells.index(locked)].source
    assert repaired.cells[nb.cells.index(points)].metadata.nbgrader["points"] != 100
    assert "grade_id" not in repaired.cells[-1].metadata.nbgrader
    assert queries[1] < queries[0] / 3, queries  # measured: 53 statements (the old path), 6


def test_the_preloaded_grades_save_what_nbgrader_saves(generated_course, monkeypatch):
    """SaveAutoGrades with a notebook's grades and comments read once (grading/plugins/speedups.py _preload_rows) writes
    the rows nbgrader's per-cell queries write (scores of passing and failing tests, the answer's comment), and a
    cell whose id the gradebook does not know raises what nbgrader raises."""
    import copy

    import nbformat
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.preprocessors import SaveAutoGrades
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    speedups.apply()
    notebook = "02_reject_and_break"
    db_url = grade.default_db_url(generated_course)
    nb = nbformat.read(generated_course / "release" / ASSIGNMENT / f"{notebook}.ipynb", as_version=4)
    tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"]
    for cell in tests[::2]:  # every other test fails
        cell.outputs = [nbformat.v4.new_output("error", ename="AssertionError", evalue="no", traceback=[])]
    answer = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution"))
    answer.source += "\n# answered"
    rows, queries = {}, {}
    statements = []
    count = lambda *args: statements.append(1)  # noqa: E731
    for off in ("1", "0"):
        student = f"student-{off}"
        with Gradebook(db_url) as gb:
            gb.update_or_create_student(student)
            gb.add_submission(ASSIGNMENT, student)
        monkeypatch.setenv(speedups.OFF_ENV, off)
        resources = {"nbgrader": {"notebook": notebook, "assignment": ASSIGNMENT, "student": student,
                                  "db_url": db_url}}
        event.listen(Engine, "before_cursor_execute", count)
        try:
            statements.clear()
            speedups.save_autogrades()().preprocess(copy.deepcopy(nb), resources)
            queries[off] = len(statements)
        finally:
            event.remove(Engine, "before_cursor_execute", count)
        with Gradebook(db_url) as gb:
            submitted = gb.find_submission_notebook(notebook, ASSIGNMENT, student)
            rows[off] = (sorted((g.name, g.auto_score, g.needs_manual_grade) for g in submitted.grades),
                         sorted((c.name, c.auto_comment) for c in submitted.comments))
        stranger = copy.deepcopy(nb)
        stranger.cells[nb.cells.index(tests[0])].metadata.nbgrader["grade_id"] = "not_in_the_gradebook"
        with pytest.raises(MissingEntry):
            speedups.save_autogrades()().preprocess(stranger, resources)
    assert speedups.save_autogrades() is not SaveAutoGrades
    assert rows["1"] == rows["0"]
    scores = [score for _, score, _ in rows["0"][0]]
    assert 0 in scores and any(scores), scores  # the case holds failing and passing tests
    assert rows["0"][1] and {comment for _, comment in rows["0"][1]} == {None}, rows["0"][1]  # answered
    assert queries["0"] < queries["1"] / 2, queries  # measured: 50 statements (the old path), 22


@pytest.mark.parametrize("cell", ["def f(x):\n    return 1 / x\n\nf(0)", "assert 1 == 2, 'no'", "raise KeyError('k') from ValueError('v')",
                                  "import spec_checks_missing"])
def test_a_cell_exception_is_formatted_once_with_the_same_lines(cell):
    """The kernel's traceback formatter gives the exception it formatted last again (grading/sandbox/kernel_harness.py
    _formatted_once): the lines shown and the lines kept for the history are IPython's own, and the exception
    is formatted once, not twice."""
    from IPython.core.interactiveshell import InteractiveShell

    results = []
    for memo in (False, True):
        shell = InteractiveShell()
        shown, formatted = [], []
        shell._showtraceback = lambda etype, evalue, stb: shown.append(list(stb))
        tracebacks = shell.InteractiveTB
        original = tracebacks.structured_traceback

        def counted(*args, _original=original, **kwargs):
            formatted.append(1)
            return _original(*args, **kwargs)

        tracebacks.structured_traceback = counted
        if memo:
            tracebacks.structured_traceback = kernel_harness._formatted_once(tracebacks)
        shell.run_cell(cell, store_history=True)
        shell.run_cell("1 / 0", store_history=True)  # a second exception is formatted afresh
        results.append((shown, [e["traceback"] for e in shell.history_manager.exceptions.values()], len(formatted)))
        shell.clear_instance()
    (shown, kept, times), (shown_memo, kept_memo, times_memo) = results
    assert shown == shown_memo and kept == kept_memo and len(shown) == 2 and kept[0] == shown[0]
    assert times == 4 and times_memo == 2


def _stream_on_a_real_iopub_thread():
    """(an ipykernel OutStream on a running IOPubThread, the messages its session sent, the thread's scheduled
    callbacks, stop)."""
    import zmq
    from ipykernel.iostream import IOPubThread, OutStream
    from jupyter_client.session import Session

    sent = []

    class Recording(Session):
        def send(self, stream, msg_or_type, content=None, *args, **kwargs):
            sent.append(msg_or_type if content is None else content)  # OutStream sends a message it built

    context = zmq.Context()
    socket = context.socket(zmq.PUB)
    socket.bind("inproc://iopub-test")
    thread = IOPubThread(socket)
    thread.start()
    scheduled, schedule = [], thread.schedule
    thread.schedule = lambda f: (scheduled.append(f), schedule(f))[1]
    stream = OutStream(Recording(), thread, "stdout", watchfd=False)

    def stop():
        thread.stop()
        thread.close()
        context.term()
    return stream, sent, scheduled, stop


def test_an_unwritten_stream_skips_the_iopub_thread_and_a_written_one_is_sent_before_its_flush_returns():
    stream, sent, scheduled, stop = _stream_on_a_real_iopub_thread()
    try:
        assert stream.echo is None
        flush = kernel_harness._flush_when_written(stream)
        stream.flush()  # ipykernel's own: a flush and an event handed to the thread, nothing to send
        assert len(scheduled) == 2 and sent == []
        flush()
        assert len(scheduled) == 2 and sent == []  # nothing written: no trip to the thread
        stream.write("first ")
        stream.write("second\n")
        flush()
        assert [msg["content"]["text"] for msg in sent] == ["first second\n"]  # sent before flush returned
        flush()
        assert len(sent) == 1
    finally:
        stop()


def test_a_stream_that_echoes_or_is_not_ipykernels_flushes_as_before():
    import io

    stream, sent, scheduled, stop = _stream_on_a_real_iopub_thread()
    try:
        stream.echo = io.StringIO()
        kernel_harness._flush_when_written(stream)()
        assert len(scheduled) == 2  # an echo is flushed by the thread: the round trip is kept
    finally:
        stop()
    plain = io.StringIO()
    assert kernel_harness._flush_when_written(plain) == plain.flush


def test_a_grading_kernel_flushes_only_written_streams_and_its_output_arrives_whole():
    from grading.sandbox import kernels as sandbox

    cells = ["import sys, json\nsys.stderr.write('to stderr'); sys.stderr.flush()\nprint('a', end='')\nprint('b')\n"
             "print(json.dumps([sys.stdout.flush.__name__, sys.stderr.flush.__name__, sys.stdout.echo is None]))",
             "import threading\nt = threading.Thread(target=lambda: print('from a thread'))\nt.start(); t.join()\n"
             "print(json.dumps('last'))"]
    first, last, _ = run_cells(cells, sandbox.ForkedSandboxedKernelManager)
    assert first == ["flush_when_written", "flush_when_written", True]  # the kernel's streams do not echo
    assert last == "last"


def _in_a_fresh_python(code, *args):
    """What ``code`` prints last (as JSON), run in a new Python process with the grading package importable,
    ``forkserver`` imported and ``sys.argv[1:]`` = ``args``: the fork server's warm-ups are per process."""
    import json
    import subprocess
    import sys

    preamble = f"import json, sys\nsys.path.insert(0, {str(ROOT)!r})\nfrom grading.sandbox import forkserver\n"
    out = subprocess.run([sys.executable, "-c", preamble + code, *args], capture_output=True, text=True, check=True,
                         env=pipeline.env())
    return json.loads(out.stdout.splitlines()[-1])


def test_the_fork_servers_warm_up_traceback_changes_no_cells_traceback():
    """The fork server formats one traceback before it forks kernels (grading/sandbox/forkserver.py warm_tracebacks): a
    shell's tracebacks after it are, line for line and colour for colour, those of a process that never warmed
    up, and the warm-up's source is not left in linecache."""
    code = ("import linecache\n"
            "from IPython.core.interactiveshell import InteractiveShell\n"
            "if sys.argv[1] == 'warm':\n"
            "    forkserver.warm_tracebacks()\n"
            "shell = InteractiveShell.instance()\n"
            "shown = []\n"
            "shell._showtraceback = lambda etype, evalue, stb: shown.append(stb)\n"
            "for cell in ['def verify_draft(p):\\n    return p[3] / 0\\nverify_draft([1])', '1 / 0',\n"
            "             'import torch\\ntorch.ones(2) @ torch.ones(3)', 'x = (']:\n"
            "    shell.run_cell(cell)\n"
            "print(json.dumps([shown, forkserver.WARM_UP_FILE in linecache.cache]))\n")
    runs = {how: _in_a_fresh_python(code, how) for how in ("cold", "warm")}
    assert runs["warm"] == runs["cold"]
    shown, left = runs["warm"]
    assert len(shown) == 4 and not left
    assert "\x1b[" in "".join(shown[0]) and "verify_draft" in "".join(shown[0])  # coloured, the cell's own frame


GRADED_CELLS = ["import torch\ntorch.ones(2)", "1 / 0", "def f(a):\n    return a\nf?",
                "import spec_widgets\nspec_widgets.quiz('m1_guess')", "spec_widgets.number_line()",
                "spec_widgets.show_principle(0)", "spec_widgets.legend()", "spec_widgets.show_replay()"]


def _graded_shell_imports(prewarm):
    """The modules a shell imports running GRADED_CELLS as nbgrader runs them (NBGRADER_EXECUTION set), after the
    fork server's prewarm or in a fresh process."""
    return _in_a_fresh_python(
        "import os\n"
        "os.environ['NBGRADER_EXECUTION'] = 'autograde'\n"
        + ("forkserver.prewarm()\n" if prewarm else "") +
        f"sys.path.insert(0, {str(ROOT / 'source' / ASSIGNMENT)!r})\n"
        "before = set(sys.modules)\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        f"for cell in {GRADED_CELLS!r}:\n"
        "    shell.run_cell(cell)\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n")


def test_a_graded_shell_imports_nothing_the_fork_server_could_have_imported_for_it():
    """After the fork server's prewarm, a shell's cells as nbgrader runs them (torch, a display, a traceback, an
    inspection, a quiz, the number line, the principle picture, the replay) import only the course's own modules:
    what every kernel would import is imported once."""
    imported = _graded_shell_imports(prewarm=True)
    assert "spec_widgets" in imported  # the cells ran
    assert [m for m in imported if not m.startswith("spec_")] == []


def test_a_kernel_starting_after_the_prewarm_imports_nothing(tmp_path):
    """An ipykernel application made and initialised as a grading kernel is (the fork server's modules listed as
    each forked kernel gets them) imports no module after the prewarm: every kernel imported IPython's debugger,
    the %store extension and tornado's asyncio loop itself (6 modules) before they were in PREWARM. Its
    IPythonKernel lists the very files it would list reading sys.modules itself."""
    imported, listed, real = _in_a_fresh_python(
        "import os\n"
        "from jupyter_client.connect import write_connection_file\n"
        "forkserver.prewarm()\n"
        "harness = forkserver._harness()\n"
        "harness.MODULES_LISTED = harness.list_module_files()\n"
        "connection, _ = write_connection_file(os.path.join(sys.argv[1], 'kernel.json'))\n"
        "from ipykernel import ipkernel\n"
        "from ipykernel.kernelapp import IPKernelApp\n"
        "before = set(sys.modules)\n"
        "app = IPKernelApp.instance()\n"
        "with harness.modules_listed():\n"
        "    app.initialize(['-f', connection])\n"
        "assert ipkernel.sys is sys\n"
        "imported = sorted(set(sys.modules) - before)\n"
        "real = [m.__file__ for m in sys.modules.copy().values() if hasattr(m, '__file__') and m.__file__]\n"
        "sys.__stdout__.write(json.dumps([imported, app.kernel._kernel_modules, real]) + '\\n')\n"
        "sys.__stdout__.flush()\n"
        "os._exit(0)\n", str(tmp_path))
    assert imported == []
    assert len(real) > 1000 and listed == real


def test_a_forked_kernel_lists_its_modules_from_the_fork_servers_list():
    """In a real forked, sandboxed kernel: its IPythonKernel's list of module files came from the server's one string
    (no string but those of the few modules added since the fork, at its end, is a module's own ``__file__``), holds
    the same files as the kernel's sys.modules, and
    ipykernel.ipkernel sees the real ``sys`` again once the kernel is made."""
    check = ("import json, sys\n"
             "from ipykernel import ipkernel\n"
             "listed = get_ipython().kernel._kernel_modules\n"
             "own = {id(m.__file__) for m in list(sys.modules.values()) if getattr(m, '__file__', None)}\n"
             "real = {m.__file__ for m in list(sys.modules.values()) if getattr(m, '__file__', None)}\n"
             "print(json.dumps([ipkernel.sys is sys, len(listed),"
             " [i for i, f in enumerate(listed) if id(f) in own], sorted(set(listed) - real)]))")
    (restored, count, own, extra), _ = run_cells([check])
    assert restored and count > 1000 and len(own) < 10 and own == list(range(count - len(own), count)) and extra == []


def test_the_listed_modules_are_those_sys_modules_holds():
    """``_ModulesListed`` answers sys.modules.copy() for IPythonKernel from the fork server's list and the modules
    added since; where one was removed since, or the last one listed replaced, from sys.modules itself. Each way, the
    files listed are those the real sys.modules gives."""
    import sys
    import types

    def files(modules):
        return [m.__file__ for m in modules.copy().values() if hasattr(m, "__file__") and m.__file__]

    def module(name, file):
        sys.modules[name] = types.ModuleType(name)
        sys.modules[name].__file__ = file
        return sys.modules[name]

    names = [f"_listed_test_{k}" for k in range(5)]
    try:
        module(names[0], "/somewhere/old.py")
        listed = kernel_harness.list_module_files()
        stand_ins = kernel_harness._ModulesListed(listed).copy()
        assert stand_ins.keys() != sys.modules.keys() and files(stand_ins) == files(sys.modules)
        module(names[1], "/somewhere/one.py")  # added since: two with a file, one without
        module(names[2], None)
        module(names[3], "/somewhere/three.py")
        assert files(kernel_harness._ModulesListed(listed)) == files(sys.modules)
        assert files(kernel_harness._ModulesListed(listed))[-2:] == ["/somewhere/one.py", "/somewhere/three.py"]
        del sys.modules[names[3]]  # an added one gone again
        assert files(kernel_harness._ModulesListed(listed)) == files(sys.modules)
        for change in ("replaced", "removed"):  # the last one listed, replaced in place; then gone, more added
            if change == "replaced":
                module(names[0], "/somewhere/new.py")
            else:
                del sys.modules[names[0]]
                module(names[4], "/somewhere/four.py")
            modules = kernel_harness._ModulesListed(listed).copy()
            assert modules.keys() == sys.modules.keys()  # the real copy
            assert files(kernel_harness._ModulesListed(listed)) == files(sys.modules)
    finally:
        for name in names:
            sys.modules.pop(name, None)


def test_graded_cells_never_import_matplotlib_or_ipywidgets():
    """Why the fork server does not import them (0.8 CPU-s a server): while nbgrader runs a notebook, its figures
    are skipped and its widgets are static pictures, so a graded kernel never imports matplotlib or ipywidgets, and
    neither does the prewarm. Outside grading the same cells do import them (the test can fail)."""
    graded = _graded_shell_imports(prewarm=False)
    assert "spec_widgets" in graded and "torch" in graded  # the cells ran, in a process that had imported nothing
    assert not [m for m in graded if m.split(".")[0] in ("matplotlib", "ipywidgets")]
    prewarmed = _in_a_fresh_python("before = set(sys.modules)\nforkserver.prewarm()\n"
                                   "print(json.dumps(sorted(set(sys.modules) - before)))\n")
    assert "torch" in prewarmed and not [m for m in prewarmed if m.split(".")[0] in ("matplotlib", "ipywidgets")]
    live = _in_a_fresh_python(
        f"sys.path.insert(0, {str(ROOT / 'source' / ASSIGNMENT)!r})\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        "shell.run_cell('import spec_widgets\\nspec_widgets.quiz(\"m1_guess\")\\nspec_widgets.show_principle(0)')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m in ('matplotlib', 'ipywidgets'))))\n")
    assert live == ["ipywidgets", "matplotlib"]


def _date_strings():
    """Header dates as both sides write them, and strings around that shape: other lengths, offsets, separators,
    out-of-range fields, non-ASCII digits, and strings that are not dates."""
    import random
    from datetime import datetime, timedelta, timezone

    from jupyter_client.jsonutil import json_default
    from jupyter_client.session import utcnow

    rng = random.Random(24)
    out = [json_default(utcnow()), "2026-12-03T14:45:32.087003Z", "2026-12-03T14:45:32.087003", "2026-12-03",
           "2026-12-03T14:45:32Z", "2026-12-03T14:45:32.0870Z", "2026-12-03T14:45:32.087003+01:00",
           "2026-13-03T14:45:32.087003Z", "2026-02-30T14:45:32.087003Z", "2026-12-03T24:00:00.000000Z",
           "2026-12-03T23:59:60.000000Z", "2026-12-03 14:45:32.087003Z", "２０２６-12-03T14:45:32.087003Z",
           "0000-01-01T00:00:00.000000Z", "abcdefghijklmnopqrstuvwxyz!", "5.4", "", "execute_request"]
    for _ in range(300):
        moment = datetime(2000, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=rng.uniform(0, 2e9))
        text = json_default(moment)
        out.append(text)
        k = rng.randrange(len(text))
        out.append(text[:k] + rng.choice("0123456789:-.TZ+ x") + text[k + 1:])  # one character changed
    return out


def test_the_sooner_dates_are_what_jupyter_client_reads():
    import warnings

    from jupyter_client import jsonutil

    from grading.sandbox.kernel_harness import dates_reader

    parse_date, extract_dates = dates_reader()
    strings = _date_strings()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # a naive date is read as local time, with a warning
        for s in strings:
            outcomes = []
            for parse in (jsonutil.parse_date, parse_date):
                try:
                    value = parse(s)
                    outcomes.append((type(value), value, repr(getattr(value, "tzinfo", None))))
                except Exception as exc:  # noqa: BLE001 - what each raised is compared
                    outcomes.append((type(exc), str(exc)))
            assert outcomes[0] == outcomes[1], s
        header = {"msg_id": "a", "date": strings[0], "version": "5.4", "nested": [{"when": strings[1]}, (strings[2],)]}
        assert extract_dates(header) == jsonutil.extract_dates(header) and header["date"] == strings[0]
    for depth in (300, 600, 900, 1200, 5000):  # a kernel's hostile header, nested: read as deep as before, or refused alike
        nested = strings[0]
        for _ in range(depth):
            nested = {"d": nested}
        outcomes = []
        for extract in (jsonutil.extract_dates, extract_dates):
            try:
                outcomes.append(extract(nested))
            except RecursionError:
                outcomes.append(RecursionError)
        assert outcomes[0] == outcomes[1], depth
    assert outcomes[0] is RecursionError  # the deepest: refused by both


def test_the_grader_and_a_grading_kernel_read_dates_sooner():
    from jupyter_client import session

    speedups.apply()
    assert session.extract_dates.__qualname__ == "dates_reader.<locals>.extract_dates"
    [kernels] = run_cells(["from jupyter_client import session; import json\n"
                           "print(json.dumps(session.extract_dates.__qualname__))"])[:1]
    assert kernels == "dates_reader.<locals>.extract_dates"


def test_a_warmed_helper_source_changes_no_traceback_and_an_edited_copy_gets_its_own(tmp_path):
    """The fork server builds stack_data's Source of each helper module for the path a kernel reads it from
    (grading/sandbox/forkserver.py warm_source): a shell's traceback through spec_checks is, colours included, that of a
    process that never warmed it, and uses the warmed Source; a student's edited copy shows its own lines."""
    original = (ROOT / "source" / ASSIGNMENT / "spec_checks.py").read_bytes()
    edited = original.replace(b"def check(run, ", b"# an edited line\ndef check(run, ", 1)
    assert edited != original
    code = ("import stack_data\n"
            "from IPython.core.interactiveshell import InteractiveShell\n"
            "folder, how = sys.argv[1], sys.argv[2]\n"
            "path = folder + '/spec_checks.py'\n"
            "if how == 'warm':\n"
            f"    forkserver.warm_source(path, open({str(ROOT / 'source' / ASSIGNMENT / 'spec_checks.py')!r}, 'rb').read())\n"
            "    warmed = stack_data.Source._class_local('__source_cache_with_lines', {}).copy()\n"
            "sys.path.insert(0, folder)\n"
            "shell = InteractiveShell.instance()\n"
            "shown = []\n"
            "shell._showtraceback = lambda etype, evalue, stb: shown.append(stb)\n"
            "shell.run_cell('import spec_checks\\n'\n"
            "               'run = spec_checks.run_verify(lambda d, t, k: [10, 20, 30], spec_checks.visible_case(),'\n"
            "               ' draws=spec_checks.VISIBLE_DRAWS)\\nspec_checks.check(run, [10, 20], 2)')\n"
            "used = stack_data.Source.for_filename(path)\n"
            "print(json.dumps([shown, how == 'warm' and any(s is used for s in warmed.values())]))\n")
    runs = {}
    for name, data in (("same", original), ("edited", edited)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "spec_checks.py").write_bytes(data)
        runs[name] = {how: _in_a_fresh_python(code, str(folder), how) for how in ("cold", "warm")}
    for name in runs:
        (cold, _), (warm, _) = runs[name]["cold"], runs[name]["warm"]
        assert warm == cold and len(warm) == 1 and "\x1b[" in "".join(warm[0]), name  # one coloured traceback
    assert runs["same"]["warm"][1] and not runs["edited"]["warm"][1]  # the warmed Source, and only for its lines


def test_a_forked_kernel_starts_with_its_helpers_sources_built():
    """The real path: a forked, sandboxed kernel finds the Sources of its folder's helper modules already built,
    and the one for spec_checks.py is what its own file reads as; none for the trusted copy (/grader/helpers.py),
    whose errors reach the grader as data, never as a traceback."""
    [(names, used)] = run_cells([
        "import json, stack_data, spec_checks\n"
        "built = stack_data.Source._class_local('__source_cache_with_lines', {})\n"
        "names = sorted({name.rsplit('/', 1)[-1] for name, _ in built})\n"
        "print(json.dumps([names, any(s is stack_data.Source.for_filename(spec_checks.__file__) for s in built.values())]))"
    ])[:1]
    assert {"spec_checks.py", "spec_widgets.py", "spec_quiz.py"} <= set(names) and used
    assert "helpers.py" not in names


def test_imports_run_with_the_collector_paused_and_are_then_frozen():
    import gc

    from grading.sandbox.forkserver import imported_then_frozen

    seen, before = [], gc.get_freeze_count()
    made = imported_then_frozen(lambda: (seen.append(gc.isenabled()), [[i] for i in range(1000)])[1])
    assert seen == [False] and gc.isenabled()
    assert gc.get_freeze_count() >= before + 1000 and len(made) == 1000  # the load's objects are frozen
    with pytest.raises(ZeroDivisionError):
        imported_then_frozen(lambda: 1 / 0)
    assert gc.isenabled()
    gc.disable()
    try:  # a collector the caller had paused stays paused
        imported_then_frozen(lambda: None)
        assert not gc.isenabled()
    finally:
        gc.enable()
    gc.unfreeze()  # this test process's heap, as it was for the tests after it


def test_grading_processes_and_kernels_start_from_a_frozen_heap():
    """A forked kernel's heap is the fork server's, frozen, with its collector on; the grader freezes its own once
    it has loaded the course's helpers (their imports: torch), and not on the old path (GRADER_NO_SPEEDUPS=1)."""
    [(frozen, enabled)] = run_cells(["import gc, json; print(json.dumps([gc.get_freeze_count(), gc.isenabled()]))"])[:1]
    assert frozen > 100_000 and enabled
    code = ("import gc\n"
            "from grading.judge import verdicts\n"
            f"verdicts.trusted_helpers({str(ROOT / 'source' / ASSIGNMENT / 'spec_checks.py')!r})\n"
            "print(json.dumps([gc.get_freeze_count(), gc.isenabled()]))\n")
    frozen, enabled = _in_a_fresh_python(code)
    assert frozen > 100_000 and enabled
    import os
    os.environ[speedups.OFF_ENV] = "1"
    try:
        assert _in_a_fresh_python(code) == [0, True]
    finally:
        del os.environ[speedups.OFF_ENV]


def test_a_graded_kernel_is_stopped_not_asked_to_shut_down(monkeypatch):
    """Every output and verdict is in when nbclient stops a graded kernel: it is killed (its sandbox with it), not
    sent a shutdown request it would answer and act on; the old path (speed-ups off), and a kernel without a sandbox
    (whose processes are not in a namespace that dies with it), still asks. That nothing of it
    shows on a page: test_forked_kernels.py's byte-for-byte comparison of the feedback pages of both paths."""
    from grading.plugins.preprocessors import SandboxedExecute

    from grading.sandbox import kernels as sandbox

    assert SandboxedExecute().shutdown_kernel == "immediate"
    monkeypatch.setenv(sandbox.UNSAFE_ENV, "1")  # unconfined, a kernel ends its own processes only when asked
    assert SandboxedExecute().shutdown_kernel == "graceful"
    monkeypatch.delenv(sandbox.UNSAFE_ENV)
    monkeypatch.setenv(speedups.OFF_ENV, "1")
    assert SandboxedExecute().shutdown_kernel == "graceful"


@pytest.mark.parametrize("argv", [["-f", "/tmp/sandbox-x/kernel-1.json"], ["-f", "kernel.json"],
                                  ["-f", "/a path/with spaces/k.json"], ["-f", "/tmp/a=b.json"], ["--f", "/k.json"],
                                  ["-f", "/k.json", "--debug"], ["-f"], [], ["-f", "--debug"]])
def test_a_kernels_command_line_of_only_its_connection_file_is_read_as_traitlets_reads_it(argv):
    """``-f <file>`` alone (what a forked kernel is given) is read without traitlets' argparse parser, into the same
    cli_config, argv and extra_args; anything else is left to traitlets (the shortcut declines it)."""
    from ipykernel.kernelapp import IPKernelApp

    def parsed(shortcut):
        app = IPKernelApp()
        if shortcut:
            if not kernel_harness.parsed_connection_file(app, list(argv)):
                return None
        else:
            try:
                app.parse_command_line(list(argv))
            except SystemExit:
                return "exit"
        return app.cli_config, app.argv, app.extra_args, app.connection_file

    fast = parsed(True)
    if argv[:1] == ["-f"] and len(argv) == 2 and not argv[1].startswith("-") and "=" not in argv[1]:
        assert fast is not None and fast == parsed(False)
    else:
        assert fast is None
