"""Hostile students (tests/submissions/attacks/) graded in one class run with honest ones.

The whole class goes through `make grade`'s parallel grader (grading/grade.py, 2 workers),
with every kernel in the sandbox. For each attack the tests prove:

- it gains nothing over the same honest mistake (its baseline answer, graded in the same run);
- its feedback shows no hidden test line and no solution line it did not write itself;
- nothing outside its own folder changed: source/, release/, submitted/, the config and
  grading/ hash the same before and after, and the gradebook holds no trigger;
- every other student's grade is unchanged: each honest student's grades equal the pinned
  grades of the same answer (tests/golden_grades.json). They were made by the grader before the
  sandbox; since then only deliberate changes to the checks have changed them (issue 11: the
  visible tests' second case and draw shapes), each listed in that commit.

The network attack's listener is started here, on 127.0.0.1:47913; it must receive nothing.

The XSS attack (`xss_in_pages`) is opened in headless Chromium, on its feedback page (file://) and
in the formgrader of a real `jupyter lab` over the graded class: no script of the student's runs
(its marks, a request to a listener on 127.0.0.1:47931, event handlers or script URLs in the page).
"""

import hashlib
import re
import json
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest

from conftest import SUBMISSIONS, header, sandbox_processes
from grading import ASSIGNMENT, demo, grade, pipeline
from grading.build import catalogue
from grading.sandbox import cgroups, kernels as sandbox
from grading.plugins.preprocessors import FEEDBACK_RECORDS
from test_feedback import hidden_lines, html_text

ATTACKS = sorted((SUBMISSIONS / "attacks").glob("*.py"))
GOLDEN = json.loads((Path(__file__).parent / "golden_grades.json").read_text())
SOURCE_DIR = pipeline.ROOT / "source" / ASSIGNMENT
LISTENER_PORT = 47913
XSS_PORT = 47931  # where the XSS attack's scripts, if they ran, would ask for a picture
XSS = SUBMISSIONS / "attacks" / "xss_in_pages.py"
XSS_DONE = "ATTACK xss_in_pages: 19 outputs with script vectors displayed"  # what it prints once all are out


def attack_student(path):
    return "attack-" + path.stem.replace("_", "-")


def tree_hash(path):
    digest = hashlib.sha256()
    for item in sorted(Path(path).rglob("*")):
        if item.is_file() and "__pycache__" not in item.parts:
            digest.update(str(item.relative_to(path)).encode() + b"\0" + item.read_bytes())
    return digest.hexdigest()


def snapshot(root):
    return {name: tree_hash(root / name) for name in ("source", "release", "submitted", "grading")} | {
        "nbgrader_config.py": hashlib.sha256((root / "nbgrader_config.py").read_bytes()).hexdigest()}


class Listener:
    """A TCP listener on 127.0.0.1 that records whatever reaches it."""

    def __init__(self, port):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.received, self.running = [], True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.settimeout(1)
            try:
                self.received.append(conn.recv(200) or b"(connected)")
            except OSError:
                self.received.append(b"(connected)")
            conn.close()

    def close(self):
        self.running = False
        self.thread.join()
        self.sock.close()


class AttackedClass:
    def __init__(self, root, results, before, after, received, seconds):
        self.root, self.results, self.before, self.after = root, results, before, after
        self.received, self.seconds = received, seconds
        self.table = pipeline.scores(root)

    def total(self, student, notebook):
        return sum(score for score, _ in self.table.get(student, {}).get(notebook, {}).values())

    def notebook_text(self, student, notebook):
        path = self.root / "autograded" / student / ASSIGNMENT / f"{notebook}.ipynb"
        return path.read_text() if path.exists() else ""


CELL_BREAK = "\n# %% a code cell of its own\n"


def write_attack(root, path, release):
    """The attack's submission; its ``markdown-cell`` header, if any, becomes a markdown cell above the answer.

    Each line ``# %% a code cell of its own`` starts a code cell the student added below the answer cell (the
    way a student adds cells), so that an attack of many steps has a cell's time for each."""
    text, *extra = path.read_text().split(CELL_BREAK)
    target = catalogue.write_submission(root / "submitted", attack_student(path), header(text, "notebook"), text, release)
    nb = nbformat.read(target, as_version=4)
    below = nb.cells.index(catalogue.solution_cell(nb)) + 1
    for k, source in enumerate(extra):
        cell = nbformat.v4.new_code_cell(source)
        if nb.nbformat_minor < 5:
            del cell["id"]
        nb.cells.insert(below + k, cell)
    nbformat.write(nb, target)
    if header(text, "markdown-cell"):
        nb = nbformat.read(target, as_version=4)
        cell = nbformat.v4.new_markdown_cell(header(text, "markdown-cell"))
        if nb.nbformat_minor < 5:
            del cell["id"]  # cell ids came with nbformat 4.5
        nb.cells.insert(nb.cells.index(catalogue.solution_cell(nb)), cell)
        nbformat.write(nb, target)
    return target


@pytest.fixture(scope="session")
def attacked_class(tmp_path_factory):
    root = pipeline.make_course(tmp_path_factory.mktemp("attacked"))
    pipeline.nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")
    release = root / "release" / ASSIGNMENT
    answers = {(a.notebook, a.name): a for a in catalogue.load()}
    honest = {(header(p.read_text(), "notebook"), header(p.read_text(), "baseline")) for p in ATTACKS}
    honest |= {(nb, "correct_for_enumerate") for nb in ("01_accept_branch", "02_reject_and_break")}
    for nb, name in sorted(honest):
        a = answers[nb, name]
        catalogue.write_submission(root / "submitted", a.student, nb, a.code, release)
    demo.build_class(root / "submitted", release, prefix="demo-")
    for path in ATTACKS:
        write_attack(root, path, release)
    before = snapshot(root)
    listener = Listener(LISTENER_PORT)
    started = time.time()
    try:
        results = grade.run_workers(root, grade.students(root), 2, grade.default_db_url(root), echo=False,
                                    deadline=300, log=root / "grading.log")
        pipeline.nbgrader(root, "generate_feedback", ASSIGNMENT, "--force")
    finally:
        listener.close()
    return AttackedClass(root, results, before, snapshot(root), listener.received, time.time() - started)


def normalized(text):
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def solution_blocks(notebook):
    """Each solution region of the source, as normalized lines, unless the student version shows it anyway."""
    public = normalized("\n".join(c.source for c in nbformat.read(
        pipeline.ROOT / "release" / ASSIGNMENT / f"{notebook}.ipynb", as_version=4).cells))
    blocks, current = [], None
    for cell in nbformat.read(SOURCE_DIR / f"{notebook}.ipynb", as_version=4).cells:
        for line in cell.source.splitlines():
            if "BEGIN SOLUTION" in line:
                current = []
            elif "END SOLUTION" in line:
                blocks.append(normalized("\n".join(current)))
                current = None
            elif current is not None:
                current.append(line)
    return [b for b in blocks if b.count("\n") >= 1 and b not in public]


@pytest.mark.parametrize("path", ATTACKS, ids=[p.stem for p in ATTACKS])
def test_attack_gains_nothing_over_the_same_honest_mistake(attacked_class, path):
    text = path.read_text()
    notebook, baseline = header(text, "notebook"), header(text, "baseline")
    honest_student = catalogue.parse(catalogue.answers_dir() / notebook / f"{baseline}.py").student
    attacked = attacked_class.total(attack_student(path), notebook)
    honest = attacked_class.total(honest_student, notebook)
    assert attacked <= honest, f"{header(text, 'attack')}: scored {attacked}, the honest mistake {honest}"


@pytest.mark.parametrize("path", ATTACKS, ids=[p.stem for p in ATTACKS])
def test_attack_feedback_shows_no_hidden_line_or_solution(attacked_class, path):
    text = path.read_text()
    notebook = header(text, "notebook")
    folder = attacked_class.root / "feedback" / attack_student(path) / ASSIGNMENT
    files = sorted(p.name for p in folder.rglob("*") if p.is_file()) if folder.exists() else []
    # Besides the pages: nbgrader's own records that `nbgrader release_feedback` reads.
    assert all(name.endswith(".html") or name in FEEDBACK_RECORDS for name in files), \
        f"feedback holds more than HTML pages: {files}"
    page = folder / f"{notebook}.html"
    if not page.exists():
        return
    shown = html_text(page.read_text())
    leaked = [line for line in hidden_lines(notebook) if line in shown]
    leaked += [block for block in solution_blocks(notebook) if block in normalized(shown)
               and block not in normalized(text)]
    assert not leaked, f"{header(text, 'attack')}: feedback shows {leaked[:3]}"


def test_nothing_outside_the_students_folders_changed(attacked_class):
    changed = [name for name in attacked_class.before if attacked_class.before[name] != attacked_class.after[name]]
    assert not changed, f"changed during grading: {changed}"
    db = sqlite3.connect(attacked_class.root / "gradebook.db")
    triggers = db.execute("select name from sqlite_master where type = 'trigger'").fetchall()
    db.close()
    assert not triggers


def test_every_honest_student_gets_exactly_the_grades_of_the_grader_before_the_sandbox(attacked_class):
    honest = [s for s in attacked_class.table if not s.startswith("attack-")]
    assert len(honest) >= 8
    differ = {}
    for student in honest:
        got = {nb: {g: v[0] for g, v in grades.items()} for nb, grades in attacked_class.table[student].items()}
        if got != GOLDEN[student]:
            differ[student] = got
    assert not differ, differ


def test_every_student_is_graded_or_listed_with_the_reason(attacked_class):
    assert set(attacked_class.results) == set(grade.students(attacked_class.root))
    not_graded = {s: why for s, why in attacked_class.results.items() if why}
    assert not [s for s in not_graded if not s.startswith("attack-")], not_graded
    assert all(isinstance(why, str) and why for why in not_graded.values())


def test_nothing_reached_the_listener_on_the_hosts_loopback(attacked_class):
    assert attacked_class.received == []
    text = attacked_class.notebook_text("attack-network-reach", "02_reject_and_break")
    assert "ATTACK network_reach" in text


def test_output_floods_and_big_files_stay_out_of_the_course(attacked_class):
    flood = attacked_class.root / "autograded" / "attack-output-flood" / ASSIGNMENT / "02_reject_and_break.ipynb"
    assert flood.stat().st_size < 3_000_000
    big = [p for p in attacked_class.root.rglob("*") if p.is_file() and p.stat().st_size > 20_000_000]
    assert not big


def test_no_process_of_any_sandbox_is_left(attacked_class):
    left = sandbox_processes()
    assert not left, left


def test_grading_stops_with_the_fix_when_the_sandbox_cannot_start(tmp_path):
    course = pipeline.make_course(tmp_path / "course")
    env = pipeline.env()
    env["PATH"] = f"{pipeline.BIN}"  # no bwrap on PATH
    proc = subprocess.run([sys.executable, "-m", "grading.grade", "--course", str(course)], cwd=pipeline.ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "bubblewrap" in proc.stderr and "--unsafe-no-sandbox" in proc.stderr
    assert not (course / "autograded").exists() or not any((course / "autograded").iterdir())


HELPERS_CELL = """def _accepts(p, q, draw):
    return p >= q or draw() < p / q
"""
ANSWER_WITH_HELPERS = """def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p, q = target_probs[i, token_id].item(), draft_probs[i, token_id].item()
        if not _accepts(p, q, lambda: torch.rand(1).item()):
            break
        accepted_tokens.append(token_id)
    return accepted_tokens
"""


def with_extra_cell(path, helper_source):
    """A student adds their own code cell, just above the answer cell."""
    nb = nbformat.read(path, as_version=4)
    answer = nb.cells.index(catalogue.solution_cell(nb))
    nb.cells.insert(answer, nbformat.v4.new_code_cell(helper_source))
    nbformat.write(nb, path)


def test_a_student_past_the_deadline_costs_only_that_student(tmp_path):
    """Also: a right answer that calls helpers from the student's own extra cell gets full marks."""
    course = pipeline.make_course(tmp_path / "course")
    pipeline.nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    release = course / "release" / ASSIGNMENT
    right = catalogue.parse(catalogue.answers_dir() / "02_reject_and_break" / "correct_for_enumerate.py").code
    # Every later cell then takes 9 s: each inside the cell's 10 s, together far past the deadline.
    slow = right + "\nget_ipython().events.register('post_run_cell', lambda result: __import__('time').sleep(9))\n"
    for student, code in (("a-first", right), ("b-slow", slow), ("c-next", right), ("d-last", right),
                          ("e-extra-cell", ANSWER_WITH_HELPERS)):
        catalogue.write_submission(course / "submitted", student, "02_reject_and_break", code, release)
    with_extra_cell(course / "submitted" / "e-extra-cell" / ASSIGNMENT / "02_reject_and_break.ipynb", HELPERS_CELL)
    results = grade.run_workers(course, grade.students(course), 1, grade.default_db_url(course), echo=False,
                                deadline=25)
    assert "deadline" in results["b-slow"]
    assert not sandbox_processes(wait=10), "the stopped worker's kernel is still running"
    others = ("a-first", "c-next", "d-last", "e-extra-cell")
    assert {s: e for s, e in results.items() if s != "b-slow"} == {s: None for s in others}
    totals = pipeline.totals(pipeline.scores(course))
    assert all(totals[s]["02_reject_and_break"] == (20.0, 20.0) for s in others)


def test_unsafe_mode_warns_before_it_grades(tmp_path):
    course = pipeline.make_course(tmp_path / "course")
    proc = subprocess.run([sys.executable, "-m", "grading.grade", "--course", str(course), "--unsafe-no-sandbox"],
                          cwd=pipeline.ROOT, env=pipeline.env(), capture_output=True, text=True, timeout=120)
    assert "WARNING: --unsafe-no-sandbox" in proc.stderr and "unconfined" in proc.stderr
    assert "no submissions" in proc.stdout


def test_every_place_a_kernel_writes_is_capped_in_the_class_run(attacked_class):
    """sandbox_write_places, graded with the class: each place it fills stops at its cap (grading/sandbox/kernels.py)."""
    text = attacked_class.notebook_text("attack-sandbox-write-places", "02_reject_and_break")
    said = dict(re.findall(r"ATTACK sandbox_write_places: ([^:{]+): ([^\\\n\"]*)", text))
    assert set(said) == {"private folder", "/tmp inodes", "/dev", "/dev/shm", "memfd", "user namespace", "memory",
                         "processes"}, said
    held, each, n = map(int, re.search(r"held (\d+) x (\d+) MiB at once of (\d+)", said["memory"]).groups())
    if cgroups.setup():  # memory per sandbox (grading/sandbox/cgroups.py): not all of them, and no more than its limit
        assert held < n and held * each <= cgroups.MEMORY >> 20, said
    mib = lambda s: int(re.search(r"wrote (\d+) MiB", s).group(1))  # noqa: E731
    assert mib(said["private folder"]) <= sandbox.PRIVATE_BYTES >> 20 and mib(said["/dev/shm"]) <= 16, said
    assert int(re.search(r"made (\d+) files", said["/tmp inodes"]).group(1)) <= sandbox.TMPFS_INODES, said
    assert said["/dev"].startswith("blocked") and said["memfd"].startswith("blocked"), said
    assert said["user namespace"].startswith("refused"), said
    # it holds processes while classmates are graded (tests above: they are, and none is left); the sandbox's limit of
    # cgroups.PIDS, its kernel's own threads counted, may stop the last few of the 240
    held_processes = int(re.search(r"holding (\d+) of 240", said["processes"]).group(1))
    assert 200 <= held_processes <= 240 and (held_processes == 240 or cgroups.setup()), said


# --------------------------------------------------------------------------- pages (issue 19)

def scripts_that_ran(page, listener, scope="document"):
    """What shows that a student's script ran in ``page``: its marks on <html>, requests that reached the
    listener, and anything left in ``scope`` that could run one (an event handler, a script URL, a frame)."""
    for text in ("xss-link-html", "xss-link-svg", "xss-link-md"):  # a click on every script link
        for link in page.get_by_text(text, exact=True).all():
            try:
                link.click(force=True, no_wait_after=True, timeout=5_000)
            except Exception as exc:  # an SVG text clipped by its own box cannot be scrolled into view: the same
                if "outside of the viewport" not in str(exc):  # click, dispatched to it (a link's activation follows)
                    raise
                link.dispatch_event("click")
    page.wait_for_timeout(500)
    found = page.evaluate("""(scope) => {
        const root = (scope !== 'document' && document.querySelector(scope)) || document;
        const marks = [...document.documentElement.attributes].map(a => a.name).filter(n => n.startsWith('data-xss-'));
        const risky = [...root.querySelectorAll('*')].flatMap(el => [...el.attributes]
            .filter(a => a.name.startsWith('on') || /^\\s*(javascript|data:text)/i.test(a.value))
            .map(a => `${el.tagName} ${a.name}`));
        const frames = [...root.querySelectorAll('iframe, object, embed, frame')].map(el => el.tagName);
        return [...marks, ...risky, ...frames];
    }""", scope)
    return found + [r.decode(errors="replace").split(" HTTP")[0] for r in listener.received]


def open_without_scripts_running(browser, url, scope="document"):
    listener = Listener(XSS_PORT)
    page = browser.new_page()
    try:
        page.goto(url, wait_until="load", timeout=60_000)
        return page, scripts_that_ran(page, listener, scope)
    finally:
        listener.close()


def xss_feedback_page(root):
    return root / "feedback" / attack_student(XSS) / ASSIGNMENT / f"{header(XSS.read_text(), 'notebook')}.html"


def check_feedback_page(browser, root):
    """The XSS student's feedback page runs none of its scripts, and still shows its text and pictures."""
    page, ran = open_without_scripts_running(browser, xss_feedback_page(root).as_uri())
    try:
        assert not ran, f"a script of the student ran, or could run, in the feedback page: {ran}"
        shown = page.evaluate("() => ({text: document.body.innerText,"
                              " font: getComputedStyle(document.body).fontSize,"
                              " plots: [...document.images].filter(i => i.src.startsWith('data:image/png')"
                              " && i.naturalWidth > 100).length,"
                              " svg: document.querySelectorAll('svg.spec-number-line').length})")
        assert "<script>" in shown["text"] and XSS_DONE in shown["text"]
        assert shown["font"] == "14px"  # the page's own inline styles apply under its policy
        assert shown["plots"] == 1 and shown["svg"] >= 1  # its matplotlib PNG (data:) and the course's inline SVG show
    finally:
        page.close()


def formgrader_submission_url(root, url, token):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        sid = gb.find_submission_notebook(header(XSS.read_text(), "notebook"), ASSIGNMENT, attack_student(XSS)).id
    return f"{url}/formgrader/submissions/{sid}/?token={token}"


def check_formgrader(browser, root, log):
    """The instructor's formgrader view of the XSS submission, in a real `jupyter lab`, runs none of its scripts."""
    import lab

    with lab.jupyter_lab(root, log) as (url, token):
        page, ran = open_without_scripts_running(browser, formgrader_submission_url(root, url, token), "#notebook")
        try:
            assert not ran, f"a script of the student ran, or could run, in the instructor's formgrader: {ran}"
            text = page.locator("#notebook").first.inner_text()
            assert XSS_DONE in text and "<script>" in text
        finally:
            page.close()


@pytest.mark.browser
def test_xss_runs_no_script_in_the_feedback_page(attacked_class, chromium):
    check_feedback_page(chromium, attacked_class.root)


@pytest.mark.browser
def test_xss_runs_no_script_in_the_formgrader(attacked_class, chromium, tmp_path):
    check_formgrader(chromium, attacked_class.root, tmp_path / "lab.log")
