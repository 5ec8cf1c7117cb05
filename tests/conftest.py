"""Shared fixtures: one temporary nbgrader course, graded once per test session.

Every answer of the catalogue (answers/, every assignment's), every gaming and fault
submission and every example student of `make demo` is submitted to a fresh course in a
temporary folder and autograded there by the real nbgrader: each English assignment by one
`nbgrader autograde` run, the Chinese editions (ZH: Level 23's answers, gaming and fault
submissions under the same student ids; Level 24's: the demo's students) by `make grade`'s
parallel workers, in the same course. Tests read its gradebook, its autograded notebooks and its feedback, for any assignment
or edition.
"""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grading import ASSIGNMENT, ASSIGNMENTS, demo, grade, pipeline, template  # noqa: E402
from grading.build import catalogue

ZH = "level23_speculative_decoding_zh"  # the Chinese edition, graded in the same course
# The editions whose whole catalogue is graded by nbgrader here. Every other edition (Level 24's) gets the
# demo's students only; its catalogue's scores are checked against the English grades in-process
# (tests/test_editions.py), which costs seconds rather than minutes.
CATALOGUE_EDITIONS = (ZH,)

SUBMISSIONS = Path(__file__).resolve().parent / "submissions"


def header(text, key):
    for line in text.splitlines():
        if line.startswith(f"# {key}: "):
            return line.split(": ", 1)[1].strip()
    return None


def hostile_submissions():
    """(student id, notebook, path) for every file in tests/submissions/{gaming,faults}/."""
    out = []
    for kind in ("gaming", "faults"):
        for path in sorted((SUBMISSIONS / kind).glob("*")):
            if path.suffix not in (".py", ".ipynb"):
                continue
            notebook = header(path.read_text(errors="replace"), "notebook") or "02_reject_and_break"
            out.append((f"{kind}-{path.stem}".replace("_", "-"), notebook, path))
    return out


def apply_edits(nb_path, edits):
    """Tamper with test cells as a student could: blank the visible test, delete a cell."""
    import nbformat
    nb = nbformat.read(nb_path, as_version=4)
    for edit in (e.strip() for e in edits.split(",")):
        if edit == "blank-visible-test":
            for cell in nb.cells:
                if cell.metadata.get("nbgrader", {}).get("grade_id", "").startswith("test_visible"):
                    cell.source = "pass"
        elif edit.startswith("delete "):
            gone = edit.split()[1]
            nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") != gone]
    nbformat.write(nb, nb_path)


def write_hostile(root, release, assignment=ASSIGNMENT):
    for student, notebook, path in hostile_submissions():
        if path.suffix == ".ipynb":
            target = root / "submitted" / student / assignment / f"{notebook}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
            continue
        code = path.read_text()
        target = catalogue.write_submission(root / "submitted", student, notebook, code, release, assignment)
        if header(code, "edit"):
            apply_edits(target, header(code, "edit"))


class GradedCourse:
    def __init__(self, root, answers, logs):
        self.root = root
        self.answers = answers
        self.logs = logs
        # Every assignment's own table; ``table`` joins the English assignments' (their notebook names
        # differ) for tests that look a student up without naming the assignment.
        self.tables = {a: pipeline.scores(root, assignment=a) for a in ASSIGNMENTS}
        self.table = {}
        for assignment in ASSIGNMENTS:
            if template(assignment) == assignment:
                for student, notebooks in self.tables[assignment].items():
                    self.table.setdefault(student, {}).update(notebooks)

    def grades(self, student, notebook, assignment=None):
        """One notebook's {grade_id: (score, max)}; any English assignment's unless ``assignment`` is given."""
        return (self.table if assignment is None else self.tables[assignment])[student][notebook]

    def feedback(self, student, notebook, assignment=ASSIGNMENT):
        return (self.root / "feedback" / student / assignment / f"{notebook}.html").read_text()

    def autograded(self, student, notebook, assignment=ASSIGNMENT):
        return self.root / "autograded" / student / assignment / f"{notebook}.ipynb"


@pytest.fixture(scope="session")
def graded_course(tmp_path_factory):
    root = pipeline.make_course(tmp_path_factory.mktemp("course"))
    logs = {}
    for assignment in ASSIGNMENTS:
        logs[f"generate {assignment}"] = pipeline.nbgrader(root, "generate_assignment", assignment, "--force")
        demo.build_class(root / "submitted", prefix="demo-", assignment=assignment, release_root=root / "release")
    logs["generate"], logs["generate_zh"] = logs[f"generate {ASSIGNMENT}"], logs[f"generate {ZH}"]
    answers = catalogue.load_all()
    for answer in answers:  # each answer to its assignment and to every edition of it
        for assignment in [answer.assignment] + [e for e in CATALOGUE_EDITIONS if template(e) == answer.assignment]:
            catalogue.write_submission(root / "submitted", answer.student, answer.notebook, answer.code,
                                       root / "release" / assignment, assignment)
    for assignment in (ASSIGNMENT, ZH):
        write_hostile(root, root / "release" / assignment, assignment)
    # `make grade`'s parallel workers grade every assignment and edition but Level 23 in English, and Level 23's
    # catalogue answers in English, in one mixed-class queue (grade.Submission): on 2 cores about half as long
    # as plain runs one after the other.
    catalogued = {a.student for a in answers if a.assignment == ASSIGNMENT}
    queue = [i for i in grade.submissions(root) if i.assignment != ASSIGNMENT or i.student in catalogued]
    logs["autograde_zh"] = grade.run_workers(root, queue, 2, grade.default_db_url(root), echo=False,
                                             log=root / "grading_zh.log")
    # Then the plain `nbgrader autograde` grades the rest of Level 23 in English, skipping what is graded (no
    # --force): the demo class, the faults and the attacks. A broken submission makes nbgrader exit non-zero;
    # the run itself must still grade everyone else (tests/test_faults.py reads its log).
    logs[f"autograde {ASSIGNMENT}"] = pipeline.nbgrader(root, "autograde", ASSIGNMENT, check=False)
    for assignment in ASSIGNMENTS:
        logs[f"feedback {assignment}"] = pipeline.nbgrader(root, "generate_feedback", assignment, "--force")
    logs["autograde"], logs["feedback"] = logs[f"autograde {ASSIGNMENT}"], logs[f"feedback {ASSIGNMENT}"]
    logs["feedback_zh"] = logs[f"feedback {ZH}"]
    logs["export"] = pipeline.nbgrader(root, "export")
    return GradedCourse(root, answers, logs)


def sandbox_processes(wait=0):
    """Every process of any sandbox running this environment's Python (another clone's are not ours), after
    waiting up to ``wait`` seconds for them to go."""
    import subprocess
    import sys
    import time

    end = time.time() + wait
    while True:
        out = subprocess.run(["ps", "-eo", "uid=,args="], capture_output=True, text=True).stdout
        left = [line for line in out.splitlines() if int(line.split()[0]) >= 200_000 and sys.executable in line]
        if not left or time.time() >= end:
            return left
        time.sleep(0.2)


def processes_of(uid):
    """The pids of every process running as ``uid`` (a sandbox's uid)."""
    import subprocess

    return subprocess.run(["ps", "-o", "pid=", "-u", str(uid)], capture_output=True, text=True).stdout.split()


@pytest.fixture(scope="module")
def chromium():
    """One headless Chromium per test module (Playwright's sync API allows one at a time): the pages' tests."""
    import os

    import lab

    if not lab.chromium_path():
        if os.environ.get("CI"):
            raise RuntimeError("CI must run the browser tests: install Debian's chromium (apt-get install chromium)")
        pytest.skip("no chromium: install it with `apt-get install chromium`")
    with lab.browser() as browser:
        yield browser


ROOT_SOURCE = pipeline.ROOT / "source" / ASSIGNMENT


async def _run_cells(manager_class, cells, env=None, files=None):
    """Start one kernel of ``manager_class``, run ``cells``; what each printed (its last line, as JSON).
    ``files``: {relative path: host path} of its working folder (default: the instructor's folder's files)."""
    import json
    import os

    from grading.sandbox import kernels as sandbox

    km = manager_class()
    km.helpers_path = str(ROOT_SOURCE / "spec_checks.py")
    if isinstance(km, sandbox.SandboxedKernelManager):
        km.sandbox_files = files or {rel: str(host) for host, rel in sandbox.workdir_files(ROOT_SOURCE)}
    await km.start_kernel(cwd=str(ROOT_SOURCE), env={**os.environ, **(env or {})})
    kc = km.client()
    kc.start_channels()
    out = []
    try:
        await kc.wait_for_ready(timeout=120)
        for code in cells:
            printed = []
            hook = lambda m: printed.append(m["content"]["text"]) if m["msg_type"] == "stream" else None  # noqa: E731
            reply = await kc.execute_interactive(code, output_hook=hook, timeout=60)
            assert reply["content"]["status"] == "ok", reply["content"]
            text = "".join(printed).strip()
            out.append(json.loads(text.splitlines()[-1]) if text else None)
        out.append(km.provisioner.process.pid)
    finally:
        kc.stop_channels()
        await km.shutdown_kernel(now=True)
    return out


def run_cells(cells, manager_class=None, env=None, files=None):
    """Start one grading kernel (default: forked and sandboxed), run ``cells``; [what each printed (its last line,
    as JSON)..., the kernel's pid]."""
    import asyncio

    from grading.sandbox import kernels as sandbox

    return asyncio.run(_run_cells(manager_class or sandbox.ForkedSandboxedKernelManager, cells, env, files))


def shown(obj):
    """The MIME bundle a kernel sends for ``obj`` as a cell's result (IPython's display formatter)."""
    from IPython.core.formatters import DisplayFormatter

    data, _ = DisplayFormatter().format(obj)
    return data


def page_of(data):
    """The page the course makes of a notebook whose one cell gave ``data`` (a MIME bundle): nbconvert's HTML
    exporter with the course's nbgrader_config.py (its sanitiser and MIME priority), as the formgrader's view of a
    submission and the feedback page render every cell."""
    import nbformat
    from nbconvert import HTMLExporter
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    result = nbformat.v4.new_output("execute_result", data=data, execution_count=1)
    cell = nbformat.v4.new_code_cell("shown()", id="the-cell", execution_count=1, outputs=[result])
    nb = nbformat.v4.new_notebook(cells=[cell])
    return HTMLExporter(config=config).from_notebook_node(nb)[0]


def static_while_grading(monkeypatch, live_function, make):
    """What ``make()`` shows while nbgrader runs the notebook is only the static picture of what it shows live: the
    same text/html, no widget made, and the same page made of it. ``live_function``: the spec_quiz.live that
    ``make`` calls (each assignment's folder has its copy)."""
    from ipywidgets.widgets.widget import _instances  # every widget made and not closed, by model id

    live = shown(make())
    monkeypatch.setitem(live_function.__globals__, "AUTOGRADING", True)
    before = set(_instances)
    static = shown(make())
    assert "application/vnd.jupyter.widget-view+json" in live and set(_instances) == before
    assert set(static) == {"text/plain", "text/html"} and static["text/html"] == live["text/html"]
    assert page_of(static) == page_of(live)
