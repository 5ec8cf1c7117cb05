"""Forked grading kernels (grading/sandbox/forkserver.py): isolated from each other, and grading exactly as cold ones.

Kernels here are real: forked by a real fork server into their sandboxes, driven over
their IPC channels by jupyter_client, as nbgrader drives them.
"""

import glob
import json
import os
import shutil
import subprocess
import tempfile

import pytest

from grading import ASSIGNMENT, grade, pipeline
from grading.build import catalogue
from grading.sandbox import kernels as sandbox
from grading.plugins import speedups
from conftest import ROOT_SOURCE, hostile_submissions, processes_of, run_cells as run, write_hostile

STATE = """
import json, os, random, sys, threading, torch, builtins
print(json.dumps({
    "rand_is_builtin": type(torch.rand).__name__ == "builtin_function_or_method",
    "has_mark": hasattr(json, "mark") or hasattr(builtins, "mark") or "mark" in os.environ,
    "cwd": os.getcwd(), "threads": threading.active_count(), "path": [p for p in sys.path if p],
    "torch_seed": torch.initial_seed(), "random": random.random(), "uid": os.getuid(),
    "execution": os.environ.get("NBGRADER_EXECUTION"),
}))
"""

HOSTILE = """
import json, os, sys, threading, time, torch, builtins
torch.rand = lambda *a, **k: torch.zeros(1)        # replace torch.rand
json.mark = builtins.mark = "left by the last student"   # patch modules and builtins
os.environ["mark"] = "1"                          # change the environment
os.chdir("/tmp")                                  # change the working directory
sys.path.insert(0, "/tmp/evil")                   # and the import path
torch.manual_seed(1234)
threading.Thread(target=time.sleep, args=(600,), daemon=False).start()   # leave a thread running
print(json.dumps("done"))
"""


def test_the_helpers_compiled_once_are_what_a_kernel_compiles_and_an_edited_copy_is_its_own(tmp_path):
    """The fork server compiles the instructor's helper modules once (grading/sandbox/forkserver.py precompile) for the
    paths a sandboxed kernel imports them from; a kernel importing the same bytes from that path gets that code,
    which is compile's own result (the same marshalled bytes); a student's edited copy is compiled from its own
    bytes and runs as edited."""
    import hashlib
    import marshal
    from importlib.machinery import SourceFileLoader

    from grading.sandbox import forkserver

    helpers = ROOT_SOURCE / "spec_checks.py"
    forkserver.precompile({"sandbox": sandbox.sandbox_spec(tmp_path, 0, grader_files=[(helpers, "helpers.py")])})
    targets = [(helpers, f"{sandbox.GRADER_DIR}/helpers.py")] + [
        (ROOT_SOURCE / name, f"{sandbox.WORKDIR}/{name}") for name in ("spec_checks.py", "spec_widgets.py", "spec_quiz.py")]
    loader = SourceFileLoader("m", str(helpers))
    hook = forkserver.compiled_source_to_code(SourceFileLoader.source_to_code, forkserver.COMPILED)
    for host, target in targets:
        data = host.read_bytes()
        cached = forkserver.COMPILED[(hashlib.sha256(data).digest(), target)]
        assert marshal.dumps(cached) == marshal.dumps(loader.source_to_code(data, target)), target
        assert hook(loader, data, target) is cached
        edited = data + b"\nEDITED = 1\n"
        assert marshal.dumps(hook(loader, edited, target)) == marshal.dumps(loader.source_to_code(edited, target))
        assert hook(loader, data, "/elsewhere/x.py").co_filename == "/elsewhere/x.py"

    work = tmp_path / "work"
    work.mkdir()
    for name in ("spec_checks.py", "spec_widgets.py", "spec_quiz.py"):
        shutil.copy(ROOT_SOURCE / name, work / name)
    with open(work / "spec_widgets.py", "a") as fh:
        fh.write("\nEDITED = True\n")
    cell = ("import json, spec_checks, spec_widgets, spec_quiz\n"
            "same = lambda m: m.__loader__.get_code(m.__name__) is m.__loader__.get_code(m.__name__)\n"
            "print(json.dumps([same(spec_checks), same(spec_quiz), same(spec_widgets), spec_widgets.EDITED]))")
    # compiled once: the same code object each time it is asked for; compiled afresh: a new one each time
    assert run([cell], files={p.name: str(p) for p in work.iterdir()})[0] == [True, True, False, True]


def test_nothing_one_kernel_does_reaches_the_next():
    fresh, _ = run([STATE])
    hostile, after, _ = run([HOSTILE, STATE])
    assert after["rand_is_builtin"] is False and after["has_mark"]  # the attack took effect in its own kernel
    following, _ = run([STATE])
    assert following["rand_is_builtin"] and not following["has_mark"]
    assert following["cwd"] == fresh["cwd"] == sandbox.WORKDIR
    assert following["threads"] == fresh["threads"]
    assert following["path"] == fresh["path"] and "/tmp/evil" not in following["path"]
    assert following["torch_seed"] not in (fresh["torch_seed"], 1234)  # reseeded, as a fresh process is


def test_each_kernel_has_its_own_random_state_and_uid():
    first, pid1 = run([STATE])
    second, pid2 = run([STATE])
    assert first["random"] != second["random"]  # Python's and torch's generators reseeded in each child
    assert first["torch_seed"] != second["torch_seed"]
    assert first["uid"] != second["uid"] and 0 not in (first["uid"], second["uid"])
    assert pid1 != pid2


def test_a_cold_kernel_and_a_forked_one_start_from_the_same_state(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")  # as nbgrader autograde sets it
    cold, _ = run([STATE], sandbox.SandboxedKernelManager)
    forked, _ = run([STATE])
    for key in ("rand_is_builtin", "has_mark", "cwd", "threads", "execution"):
        assert forked[key] == cold[key], key
    assert forked["execution"] == "autograde"


def test_the_fork_server_stays_single_threaded_and_untouched():
    run([HOSTILE])
    server = sandbox.fork_server()
    assert server.request({"ping": True}) == {"threads": 1}
    assert server.proc.poll() is None


def test_a_fork_server_that_cannot_sandbox_says_so():
    """A request the server cannot satisfy gets the reason back, and the server keeps serving."""
    server = sandbox.fork_server()
    private = sandbox.make_private_dir(uid := sandbox.sandbox_uid())
    try:
        spec = sandbox.sandbox_spec(private, uid, files=[("/nonexistent/file", "x.py")])
        reply = server.request({"python": "print(1)", "log": f"{private}/log", "env": {}, "sandbox": spec})
    finally:
        sandbox.remove_private_dir(private)
    assert "could not enter its sandbox" in reply["error"] and "/nonexistent/file" in reply["error"]
    assert run([STATE])[0]["rand_is_builtin"]


def test_a_forked_kernel_waits_for_its_own_children_as_a_new_process_would():
    """The server's children are reaped unasked (SIGCHLD ignored); a kernel, forked straight from it, sets SIGCHLD
    back: a student's subprocess gets its exit code."""
    private = sandbox.make_private_dir(uid := sandbox.sandbox_uid())
    try:
        code = ("import signal, subprocess, sys\n"
                "print(signal.getsignal(signal.SIGCHLD) == signal.SIG_DFL,"
                " subprocess.run([sys.executable, '-c', 'raise SystemExit(7)']).returncode)\n")
        failed, output = sandbox.run_forked(code, private, uid)
    finally:
        sandbox.remove_private_dir(private)
    assert not failed and output.split() == ["True", "7"], output


@pytest.mark.parametrize("warm", [True, False])
def test_a_fork_server_leaves_no_home_behind(warm):
    """The server's HOME and matplotlib's folder serve its imports (the font list), then the server removes it; the
    ForkServer removes it too when it ends (a server stopped before its imports). Every server used to leave one in
    /tmp; a server killed with its grader leaves none (test_forked_kernels_die_with_the_grading_process)."""
    from grading.sandbox import forkserver

    server = forkserver.ForkServer(sandbox.fork_server_env(), warm=warm)
    try:
        assert server.request({"ping": True}) == {"threads": 1}
        assert not os.path.exists(server.home)
    finally:
        server.stop()
    server = forkserver.ForkServer.__new__(forkserver.ForkServer)
    server.home = tempfile.mkdtemp(prefix="nbg-forkserver-home-")
    server.proc = subprocess.Popen(["sleep", "60"])
    server.stop()
    assert not os.path.exists(server.home)


def test_forked_kernels_die_with_the_grading_process(tmp_path, request):
    """Kill the process that owns the fork server: its server and kernels are gone too."""
    import sys
    import time

    script = tmp_path / "grader.py"
    script.write_text(
        "import sys, time; sys.path.insert(0, %r)\n"
        "from grading.sandbox import kernels as sandbox\n"
        "p = sandbox.make_private_dir(u := sandbox.sandbox_uid())\n"
        "code = 'import os, time\\nif os.fork() == 0:\\n    os.setsid()\\n    time.sleep(300)\\ntime.sleep(300)'\n"
        "r = sandbox.fork_server().request({'python': code, 'log': p + '/log', 'env': {},"
        " 'sandbox': sandbox.sandbox_spec(p, u)})\n"
        "print(u, p, flush=True); time.sleep(300)\n" % str(pipeline.ROOT))
    homes = set(glob.glob(os.path.join(tempfile.gettempdir(), "nbg-forkserver-home-*")))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    uid, private = (proc.stdout.readline().split() + ["", ""])[:2]
    request.addfinalizer(lambda: private and sandbox.remove_private_dir(private))
    assert uid, "the grader did not start its sandbox"
    time.sleep(1)
    assert processes_of(uid), "the forked program is not running"
    proc.kill()
    proc.wait()
    deadline = time.time() + 10
    while processes_of(uid) and time.time() < deadline:
        time.sleep(0.2)
    assert not processes_of(uid)
    assert set(glob.glob(os.path.join(tempfile.gettempdir(), "nbg-forkserver-home-*"))) <= homes



def test_cached_schema_validation_raises_what_jsonschema_raises():
    import jsonschema

    schema = {"type": "object", "properties": {"points": {"type": "number"}}, "required": ["points"]}
    for instance in ({"points": 3}, {"points": "three"}, {}):
        try:
            jsonschema.validate(instance, schema)
            expected = None
        except jsonschema.ValidationError as exc:
            expected = exc.message
        try:
            speedups.validate(instance, schema)
            got = None
        except jsonschema.ValidationError as exc:
            got = exc.message
        assert got == expected


# --- whole classes -----------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def cold_graded_course(graded_course, tmp_path_factory):
    """The shared course's Level 23 submissions, graded again on cold kernels: every demo, gaming and fault
    submission, and every eighth catalogue answer (the catalogue's answers differ in their mistakes, not in how
    a kernel starts; an eighth of them keeps CI under its time limit: cold kernels cost about 4 s a student)."""
    root = pipeline.make_course(tmp_path_factory.mktemp("cold"))
    pipeline.nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")
    catalogued = sorted({a.student for a in graded_course.answers if a.assignment == ASSIGNMENT})
    chosen = set(grade.students(graded_course.root)) - set(catalogued) | set(catalogued[::8])
    for student in chosen:
        shutil.copytree(graded_course.root / "submitted" / student / ASSIGNMENT,
                        root / "submitted" / student / ASSIGNMENT)
    # The old path throughout: cold kernels and none of grading/plugins/speedups.py (nor nbconvert's single validation).
    os.environ[sandbox.COLD_ENV] = os.environ[speedups.OFF_ENV] = "1"
    try:
        results = grade.run_workers(root, grade.students(root), 2, grade.default_db_url(root), echo=False)
        pipeline.nbgrader(root, "generate_feedback", ASSIGNMENT, "--force")
    finally:
        del os.environ[sandbox.COLD_ENV], os.environ[speedups.OFF_ENV]
    return root, results


def test_cold_and_forked_kernels_give_the_same_gradebook(graded_course, cold_graded_course):
    root, _ = cold_graded_course
    cold = pipeline.scores(root)
    forked = {s: t for s, t in graded_course.tables[ASSIGNMENT].items() if s in cold}  # Level 23 only
    assert set(cold) == set(grade.students(root)) and len(cold) > 20
    differ = {s: (forked[s], cold[s]) for s in cold if cold[s] != forked[s]}
    assert not differ


def test_the_speed_ups_leave_every_feedback_page_byte_for_byte_the_same(graded_course, cold_graded_course):
    """Fork server, frozen heap, no kernel history, cached schemas, shared engine, one validation, the widgets'
    static pictures while grading: none of it shows. The old path's pages (cold kernels, GRADER_NO_SPEEDUPS=1,
    the lessons' live widgets) against the shared course's."""
    root, _ = cold_graded_course
    assert _widget_views(root) and not _widget_views(graded_course.root)  # each path made what it says
    # The fault submissions are left out: their pages show where a stop landed (the line an interrupt hit, whether a
    # killed kernel had counted its cell), which no two gradings share on any path; their grades are compared above.
    students = [s for s in grade.students(root) if not s.startswith("faults-")]
    pages = {p.relative_to(root) for s in students for p in (root / "feedback" / s / ASSIGNMENT).glob("*.html")}
    shared = {p.relative_to(graded_course.root) for s in students
              for p in (graded_course.root / "feedback" / s / ASSIGNMENT).glob("*.html")}
    assert pages == shared and len(pages) > len(students)  # two notebooks for most students
    # Likewise a page whose notebook had a cell stopped (a hostile answer that hangs its kernel: builtins rebound):
    # whether that cell's execution count reached the grader before the stop is a race on either path.
    stopped = {p for p in pages if _stopped(root / p) or _stopped(graded_course.root / p)}
    assert len(stopped) < len(pages) / 10, stopped
    differ = sorted(str(p) for p in pages - stopped
                    if _unseeded_draw_masked(root / p) != _unseeded_draw_masked(graded_course.root / p))
    assert not differ, differ


def _widget_views(root):
    """How many widget outputs the autograded Level 23 notebooks under ``root`` hold."""
    return sum("application/vnd.jupyter.widget-view+json" in o.get("data", {})
               for nb in (root / "autograded").glob(f"*/{ASSIGNMENT}/*.ipynb")
               for c in json.loads(nb.read_text())["cells"] for o in c.get("outputs", ()))


def _stopped(page):
    """Whether the notebook behind a feedback page had a cell stopped at its timeout or by a dead kernel."""
    from pathlib import Path

    parts = page.parts
    notebook = Path(*parts[:-4], "autograded", *parts[-3:]).with_suffix(".ipynb")
    cells = json.loads(notebook.read_text())["cells"]
    return any(o.get("ename") in ("CellTimeoutError", "DeadKernelError") for c in cells for o in c.get("outputs", ()))


def _unseeded_draw_masked(page):
    """The page's bytes, with the one number no two gradings share masked: notebook 02's first cell shows what
    torch.rand(1) gives in an unseeded kernel (each kernel is seeded from the system's randomness, as a fresh
    process is)."""
    import re

    return re.sub(rb"torch\.rand\(1\) -&gt; tensor\(\[[0-9.]+\]\)(.*?)-&gt; [0-9.e-]+ float", rb"torch.rand(1) [masked]\1",
                  page.read_bytes())


def test_a_hostile_submission_graded_just_before_leaves_the_next_grade_unchanged(tmp_path):
    """Each gaming submission, then an honest one, by one worker on forked kernels: every honest one full marks."""
    root = pipeline.make_course(tmp_path / "course")
    pipeline.nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")
    release = root / "release" / ASSIGNMENT
    honest = {a.notebook: a for a in catalogue.load() if a.student.endswith("correct-gather")}
    order = []
    gaming = [(s, nb, p) for s, nb, p in hostile_submissions() if s.startswith("gaming-")]
    write_hostile(root, release)
    for student in list((root / "submitted").iterdir()):
        if not student.name.startswith("gaming-"):
            shutil.rmtree(student)
    for k, (student, notebook, _) in enumerate(gaming):
        after = f"honest-after-{student}"
        catalogue.write_submission(root / "submitted", after, notebook, honest[notebook].code, release)
        order += [student, after]
    results = grade.run_workers(root, order, 1, grade.default_db_url(root), echo=False)
    assert not [s for s in order if s.startswith("honest") and results[s]]
    table = pipeline.totals(pipeline.scores(root))
    for student, notebook, _ in gaming:
        score, out_of = table[f"honest-after-{student}"][notebook]
        assert score == out_of, f"{student} changed the next student's grade: {score}/{out_of}"



async def _ready_then_run(code, client_class=None):
    """Start a forked sandboxed kernel, wait for it as nbclient does (with ``client_class``, default the grader's),
    run ``code``: (the timeouts of the client's IOPub reads that ended empty while it waited, the reconnect interval
    of its shell socket, the messages of the cell's request in order)."""
    from queue import Empty

    import zmq

    km = sandbox.ForkedSandboxedKernelManager()
    if client_class is not None:
        km.client_factory = client_class
    km.helpers_path = str(ROOT_SOURCE / "spec_checks.py")
    km.sandbox_files = {rel: str(host) for host, rel in sandbox.workdir_files(ROOT_SOURCE)}
    await km.start_kernel(cwd=str(ROOT_SOURCE), env=dict(os.environ))
    kc = km.client()
    kc.start_channels()
    timeouts = []
    read = kc.iopub_channel.get_msg

    async def counted(timeout=None):
        try:
            return await read(timeout=timeout)
        except Empty:
            timeouts.append(timeout)
            raise

    try:
        kc.iopub_channel.get_msg = counted
        await kc.wait_for_ready(timeout=120)
        kc.iopub_channel.get_msg = read
        interval = kc.shell_channel.socket.getsockopt(zmq.RECONNECT_IVL)
        request = kc.execute(code)
        await kc.get_shell_msg(timeout=60)
        mine = []
        while not mine or mine[-1] != ("status", "idle"):
            message = await kc.get_iopub_msg(timeout=60)
            if message["parent_header"].get("msg_id") == request:
                mine.append((message["msg_type"], message["content"].get("execution_state")))
    finally:
        kc.stop_channels()
        await km.shutdown_kernel(now=True)
    return timeouts, interval, mine


@pytest.mark.parametrize("client", ["grader's", "grader's, speed-ups off", "jupyter_client's"])
def test_a_kernel_is_ready_once_it_has_answered_not_after_a_silence(monkeypatch, client):
    """The grader's client (grading/sandbox/kernels.py GradingKernelClient) never waits out jupyter_client's 0.2 s of IOPub
    silence, and the cell after it gets all its messages; its sockets retry their connection every 10 ms (100 ms,
    zmq's, with the speed-ups off). jupyter_client's own client does wait 0.2 s, so the test can fail."""
    import asyncio

    from jupyter_client.asynchronous import AsyncKernelClient

    if client == "grader's, speed-ups off":
        monkeypatch.setenv(speedups.OFF_ENV, "1")
    timeouts, interval, mine = asyncio.run(
        _ready_then_run("print(6 * 7)", AsyncKernelClient if client == "jupyter_client's" else None))
    assert mine == [("status", "busy"), ("execute_input", None), ("stream", None), ("status", "idle")]
    if client == "jupyter_client's":
        assert 0.2 in timeouts and interval == 100
    else:
        assert all(t < 0.2 for t in timeouts) and interval == (10 if client == "grader's" else 100)
