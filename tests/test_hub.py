"""One assignment through a real JupyterHub classroom, in headless Chromium.

The hub is hub/jupyterhub_config.py, laid out by hub/classroom.py with its own users
(l23t-instructor, l23t-student-a/b/c), its own root and free ports on 127.0.0.1:

1. the instructor releases Level 23 through nbgrader's exchange;
2. student A logs in, fetches in the Assignments tab, submits once early, then opens
   02_reject_and_break.ipynb, types a correct answer, runs the visible test, presses Validate
   and submits again; student B does the same with `continue` instead of `break`, and with the
   script vectors of tests/submissions/attacks/xss_in_pages.py after her answer;
3. a due date is set and student C submits a correct answer after it (from a terminal);
4. the instructor collects, grades with `make grade` (the grading sandbox, as the instructor),
   and releases feedback;
5. each student fetches the feedback in the browser: A has full marks, B sees the failed
   checks' hints and the diagnosis and no hidden test code, and none of her scripts runs there
   nor in the instructor's formgrader view of her submission; the gradebook and grades.csv hold
   every student, C with the course's late penalty.

A cannot list the submissions in the exchange, nor open the instructor's course through the
file browser. The hub, the users and the exchange are removed afterwards, also on failure.
Each step's time goes to test-artifacts/hub_timings.json; screenshots to
test-artifacts/screenshots/ (and docs/ with SAVE_DOCS_SCREENSHOTS=1).
"""

import csv
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import expect

import lab
from grading import ASSIGNMENT, pipeline
from grading.build import catalogue
from grading.sandbox import cgroups
from test_attacks import XSS, XSS_DONE, XSS_PORT, Listener, scripts_that_ran
from test_feedback import hidden_lines

pytestmark = pytest.mark.hub

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hub"))
import classroom  # noqa: E402

ARTIFACTS = ROOT / "test-artifacts"
SHOTS = ARTIFACTS / "screenshots"
DOCS = ROOT / "docs"
NB = "02_reject_and_break"
NB_PATH = f"{ASSIGNMENT}/{NB}.ipynb"
HUB_ROOT = Path("/tmp/level23-hub-test")
PREFIX = "l23t-"


def _missing():
    if os.geteuid() != 0:
        return "the hub test runs as root (it creates local users and starts JupyterHub)"
    if not lab.chromium_path():
        return "no chromium: install it with `apt-get install chromium`"
    if not shutil.which("node"):
        return "no node: install it (`apt-get install nodejs npm`, node >= 20), then `npm ci --prefix hub`"
    if not classroom.CHP.exists():
        return "configurable-http-proxy is not installed: run `npm ci --prefix hub`"
    if not shutil.which("bwrap"):
        return "no bubblewrap (the grading sandbox): apt-get install bubblewrap"
    return None


if _missing():
    if os.environ.get("CI"):
        raise RuntimeError(f"CI must run the JupyterHub test: {_missing()}")
    pytest.skip(f"JupyterHub test skipped: {_missing()}", allow_module_level=True)

# What a student types: the catalogue's answer without its header comments (# expect/why/diagnosis),
# so that nothing on B's feedback page says "diagnosis" but the grader.
ANSWER = {a.name: "\n".join(line for line in a.code.splitlines() if not line.startswith("# "))
          for a in catalogue.load(NB)}
GOLDEN = json.loads((ROOT / "tests" / "golden_grades.json").read_text())
# B's answer: `continue` (the XSS attack's baseline, verbatim), then the attack's script outputs.
ANSWER_B = "\n".join(line for line in XSS.read_text().splitlines() if not line.startswith("# "))
assert ANSWER_B.startswith(ANSWER["continue_not_break"])


class Steps:
    """Times each step; writes them to test-artifacts/hub_timings.json as they finish."""

    def __init__(self):
        self.times = []
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / "hub_timings.json").unlink(missing_ok=True)

    @contextmanager
    def __call__(self, name):
        started = time.monotonic()
        try:
            yield
        finally:
            self.times.append((name, round(time.monotonic() - started, 1)))
            (ARTIFACTS / "hub_timings.json").write_text(json.dumps(self.times, indent=1))
            print(f"[hub] {self.times[-1][1]:6.1f} s  {name}", flush=True)


def shot(locator, name, height=None):
    """A screenshot of ``locator``, or of ``height`` pixels of the page from the top of it."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    if height:
        page = locator.page
        locator.scroll_into_view_if_needed()
        # the locator's box is in the viewport's coordinates, a full-page clip in the page's: add the scroll,
        # and keep the clip inside the page (a short page would leave it empty)
        scroll_y, page_height = page.evaluate("[window.scrollY, document.documentElement.scrollHeight]")
        top = locator.bounding_box()["y"] + scroll_y
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True,
                        clip={"x": 0, "y": top, "width": page.viewport_size["width"],
                              "height": max(1, min(height, page_height - top))})
    else:
        locator.screenshot(path=str(SHOTS / f"{name}.png"))
    if os.environ.get("SAVE_DOCS_SCREENSHOTS"):
        shutil.copy(SHOTS / f"{name}.png", DOCS / f"{name}.png")


def owner(path):
    import pwd
    return pwd.getpwuid(os.stat(path).st_uid).pw_name


def write_lab_settings(room, user):
    """No news prompt and every cell rendered, in the user's own JupyterLab settings."""
    settings = room.home(user) / ".jupyter" / "lab" / "user-settings" / "@jupyterlab"
    for rel, text in (("apputils-extension/notification.jupyterlab-settings",
                       '{"fetchNews": "false", "checkForUpdates": false}'),
                      ("notebook-extension/tracker.jupyterlab-settings", '{"windowingMode": "none"}')):
        (settings / rel).parent.mkdir(parents=True, exist_ok=True)
        (settings / rel).write_text(text)
    subprocess.run(["chown", "-R", f"{user}:{user}", str(room.home(user) / ".jupyter")], check=True)


@pytest.fixture(scope="module")
def room():
    room = classroom.Classroom(root=HUB_ROOT, prefix=PREFIX, port=lab.free_port(), api_port=lab.free_port(),
                               proxy_api_port=lab.free_port())
    room.teardown()  # what a killed earlier run may have left
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "jupyterhub.log").unlink(missing_ok=True)
    step = Steps()
    try:
        with step("0. set-up: users, environment copy, exchange, course; start the hub"):
            room.setup()
            for user in room.users:
                write_lab_settings(room, user)
            room.start(ARTIFACTS / "jupyterhub.log", {"LEVEL23_HUB_TEST": "1"})
        room.steps = step
        yield room
    finally:
        with step("8. teardown: stop the hub and the servers, remove the users, homes, exchange"):
            room.teardown()
        assert not any(Path(f"/home/{u}").exists() for u in room.users)


@pytest.fixture(scope="module")
def browser():
    with lab.browser() as b:
        yield b


def login(browser, room, user):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{room.url}/hub/login")
    page.fill("input[name=username]", user)
    page.fill("input[name=password]", room.passwords[user])
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"**/user/{user}/lab**", timeout=240_000)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=180_000)
    return page


def assignments_tab(page):
    """nbgrader's Assignments tab, opened from the Nbgrader menu as a person would."""
    tab = page.locator("#assignments")
    if tab.count() and tab.is_visible():
        tab.locator("#refresh_assignments_list").click()
    else:
        page.get_by_role("menuitem", name="Nbgrader").click()
        page.get_by_role("menuitem", name="Assignment List").click()
    expect(tab.locator("#released_assignments_list_loading")).to_be_hidden(timeout=60_000)
    expect(tab.locator("#submitted_assignments_list_loading")).to_be_hidden(timeout=60_000)
    return tab


def submissions(tab):
    """The timestamps the Submitted list shows, oldest first as nbgrader lists them."""
    items = tab.locator("#submitted_assignments_list .nested_list_item .item_name")
    return [t.strip().split(" (")[0] for t in items.all_inner_texts() if t.strip()]


def fetch_and_submit_early(page, user, room):
    tab = assignments_tab(page)
    tab.locator("#released_assignments_list").get_by_role("button", name="Fetch").click()
    expect(tab.locator("#fetched_assignments_list")).to_contain_text(ASSIGNMENT, timeout=60_000)
    fetched = room.home(user) / NB_PATH
    assert fetched.exists() and owner(fetched) == user
    tab.locator("#fetched_assignments_list").get_by_role("button", name="Submit").click()
    expect(tab.locator("#submitted_assignments_list .nested_list_item")).to_have_count(1, timeout=60_000)
    return tab


def answer_in_notebook(page, tab, code):
    """Open the notebook from the Assignments tab, type ``code``, run everything, press Validate."""
    tab.locator("#fetched_assignments_list .assignment-notebooks-link").click()
    tab.locator("#fetched_assignments_list").get_by_role("link", name=NB).click()
    nb = lab.Notebook.opened(page, NB_PATH)
    nb.set_cell_source("verify_draft", code)
    nb.run_all(timeout=240_000)
    nb.save()
    page.locator(".jp-NotebookPanel:visible").get_by_role("button", name="Validate").click()
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_be_visible(timeout=180_000)
    expect(dialog.locator(".jp-Dialog-content")).not_to_contain_text("Validating", timeout=180_000)
    text = dialog.inner_text()
    dialog.get_by_role("button").last.click()
    return nb, text


def latest_ctime(inbound, student):
    """The latest ctime (seconds) in any of ``student``'s submission folders: what the exchange dates it by."""
    latest = 0.0
    for folder in inbound.glob(f"{student}+*"):
        for path in (folder, *folder.rglob("*")):
            latest = max(latest, path.lstat().st_ctime)
    return latest


def submit_again(page, user):
    page.locator(".lm-TabBar-tab", has_text="Assignments").click()
    tab = assignments_tab(page)
    tab.locator("#fetched_assignments_list").get_by_role("button", name="Submit").click()
    expect(tab.locator("#submitted_assignments_list .nested_list_item")).to_have_count(2, timeout=60_000)
    return tab


def fetch_feedback(page, room, user):
    tab = assignments_tab(page)
    expect(tab.locator("#submitted_assignments_list")).to_contain_text("feedback available to fetch")
    tab.locator("#submitted_assignments_list").get_by_role("button", name="Fetch Feedback").click()
    expect(tab.locator("#submitted_assignments_list")).to_contain_text("view feedback", timeout=60_000)
    html = sorted((room.home(user) / ASSIGNMENT / "feedback").glob(f"*/{NB}.html"))
    assert len(html) == 1 and owner(html[0]) == user, html
    feedback = page.context.new_page()
    feedback.goto(f"{room.url}/user/{user}/files/{html[0].relative_to(room.home(user))}")
    return tab, feedback


def test_one_assignment_through_the_hub(room, browser):
    step = room.steps
    instructor, (a, b, c) = room.instructor, room.students
    course = room.course

    with step("1. instructor: nbgrader generate_assignment + release_assignment"):
        room.generate()
        room.release()
        released = room.exchange / "level23" / "outbound" / ASSIGNMENT / f"{NB}.ipynb"
        assert released.exists() and owner(released) == instructor

    with step("2a. student A: log in, Assignments tab, Fetch, Submit (the unanswered notebook)"):
        page_a = login(browser, room, a)
        fetch_and_submit_early(page_a, a, room)
    with step("2b. student A: open 02, type a correct answer, run the visible test, Validate"):
        nb, validated = answer_in_notebook(page_a, assignments_tab(page_a), ANSWER["correct_for_enumerate"])
        assert not nb.error_cells()
        expect(page_a.locator(".jp-NotebookPanel:visible .jp-OutputArea-output")
               .get_by_text("Visible test passed: [10, 20], with 2 draws.")).to_have_count(1)
        assert "Success! Your notebook passes all the tests." in validated
    with step("2c. student A: Submit again"):
        tab_a = submit_again(page_a, a)
        a_times = submissions(tab_a)
        assert len(a_times) == 2 and a_times[0] < a_times[1], a_times

    with step("2d. student B: log in, Fetch, Submit, answer with continue, visible test, Validate, Submit"):
        page_b = login(browser, room, b)
        fetch_and_submit_early(page_b, b, room)
        nb, validated = answer_in_notebook(page_b, assignments_tab(page_b), ANSWER_B)
        errors = nb.error_cells()
        said = " ".join(errors[0][1].split()) if len(errors) == 1 else ""  # the message is laid out in short lines
        assert "token 40 came back after token 30 was rejected" in said, errors
        assert "Success" not in validated and "token 40 came back" in validated, validated
        b_times = submissions(submit_again(page_b, b))

    with step("robustness: A cannot list the submissions in the exchange (nbgrader list --inbound, ls)"):
        inbound = room.exchange / "level23" / "inbound"
        assert sum(1 for p in inbound.iterdir() if p.name.startswith(f"{b}+")) == 2  # root sees B's two
        listed = room.run_as(a, "nbgrader", "list", "--inbound", check=False)
        assert b not in listed.stdout + listed.stderr
        peek = room.run_as(a, "ls", inbound, check=False)
        assert peek.returncode != 0 and "Permission denied" in peek.stderr and b not in peek.stdout
        # The modes the exchange classes check: nobody renames or replaces what is not theirs.
        assert (room.exchange.stat().st_mode & 0o7777, inbound.stat().st_mode & 0o7777) == (0o1777, 0o3733)

    with step("robustness: A cannot open the instructor's source/ through the file browser"):
        room.run_as(a, "ln", "-s", course, room.home(a) / "instructors-course")
        api = f"{room.url}/user/{a}/api/contents"
        own = page_a.request.get(f"{api}/{ASSIGNMENT}")
        assert own.status == 200 and NB in own.text()
        peek = page_a.request.get(f"{api}/instructors-course/source/{ASSIGNMENT}")
        # The server runs as A, so the system refuses: the contents API answers with an error, no listing.
        assert peek.status >= 400 and NB not in peek.text() and '"content"' not in peek.text(), peek.text()[:300]
        denied = f"Permission denied: '{room.home(a) / 'instructors-course' / 'source' / ASSIGNMENT}'"
        assert denied in (ARTIFACTS / "jupyterhub.log").read_text(), "A's server logged no PermissionError"

    with step("3. instructor sets the due date; student C submits a correct answer after it (terminal)"):
        # The exchange dates a submission by the latest ctime in its folder (grading/plugins/exchange.py), so the due
        # date is set from what the exchange will read, a second after A's and B's last change, not from the test's
        # clock: on a loaded machine B's last submission can end within the second the due date was taken from.
        inbound = room.exchange / "level23" / "inbound"
        submitted_at = {s: latest_ctime(inbound, s) for s in (a, b)}
        due = datetime.datetime.fromtimestamp(int(max(submitted_at.values())) + 2, datetime.timezone.utc)
        room.run_as(instructor, "nbgrader", "db", "assignment", "add", ASSIGNMENT,
                    f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC", cwd=course)
        while time.time() < due.timestamp() + 1:
            time.sleep(0.2)
        room.run_as(c, "nbgrader", "fetch_assignment", ASSIGNMENT)
        import nbformat
        target = room.home(c) / NB_PATH
        nbformat.write(catalogue.fill(target, ANSWER["correct_for_enumerate"]), target)
        room.run_as(c, "nbgrader", "submit", ASSIGNMENT)

    with step("4a. instructor: nbgrader collect"):
        room.run_as(instructor, "nbgrader", "collect", ASSIGNMENT, cwd=course)
        for student in (a, b, c):
            got = course / "submitted" / student / ASSIGNMENT / f"{NB}.ipynb"
            assert got.exists() and owner(got) == instructor
        # The later of A's two submissions, at the exchange's time: the latest ctime of its files, just after
        # the time A's own nbgrader wrote (grading/plugins/exchange.py).
        from nbgrader.utils import parse_utc
        for student, times in ((a, a_times), (b, b_times)):
            recorded = parse_utc((course / "submitted" / student / ASSIGNMENT / "timestamp.txt").read_text())
            assert -1 <= (recorded - parse_utc(times[-1])).total_seconds() < 60, (student, recorded, times)

    with step("4b. instructor: make grade (parallel, sandboxed, as the instructor)"):
        graded = room.run_as(instructor, "make", "grade", cwd=course, timeout=1200)
        assert "Graded 3 of 3" in graded.stdout, graded.stdout[-2000:]
        if cgroups.setup():  # the cgroup classroom.py delegates: each sandbox of the instructor's has one
            assert f"cgroup (v{cgroups.setup().version})" in graded.stderr and cgroups.delegated_path(instructor) \
                in graded.stderr, graded.stderr[-2000:]
    with step("4c. instructor: nbgrader release_feedback"):
        released = room.run_as(instructor, "nbgrader", "release_feedback", ASSIGNMENT, cwd=course).stderr
        for student in (a, b, c):
            assert f"Releasing feedback for student '{student}' on assignment 'level23/{ASSIGNMENT}/{NB}'" in released

    with step("5a. student A fetches the feedback: full marks"):
        tab_a, feedback = fetch_feedback(page_a, room, a)
        expect(feedback.locator("body")).to_contain_text("Score: 20.0 / 20.0")
        expect(feedback.locator("body")).to_contain_text("Diagnosis: none")
        shot(page_a.locator("#assignments"), "hub_assignments_tab", height=340)
    with step("5b. student B fetches the feedback: hints, the diagnosis, no hidden code, none of her scripts runs"):
        listener = Listener(XSS_PORT)
        try:
            _, feedback = fetch_feedback(page_b, room, b)
            ran = scripts_that_ran(feedback, listener)
        finally:
            listener.close()
        assert not ran, f"a script of B ran, or could run, in her feedback page: {ran}"
        text = feedback.locator("body").inner_text()
        assert XSS_DONE in text and "<script>" in text
        assert "Diagnosis: you use continue after a rejection" in text
        assert "token 40 came back after token 30 was rejected (r = 0.9 >= p/q = 0.11 there). After a rejection nothing more is kept: the loop stops." in \
            " ".join(text.split())  # the visible test's message is laid out in short lines
        # a failed check states what happened, and names the cause only where replaying the diagnosed mistake gives it
        assert "This follows from the mistake named in the diagnosis above." in text
        # The course's page (grading/templates/course_feedback), as `nbgrader generate_feedback` writes it: the summary first.
        summary = feedback.locator("#summary").inner_text()
        assert summary.startswith("Diagnosis: you use continue") and "failed · a rejection stops the loop" in summary
        leaked = [line for line in hidden_lines(NB) if line in text]
        assert not leaked, leaked[:3]
        for marker in ("BEGIN HIDDEN TESTS", "T.run_verify", "Traceback (most recent"):
            assert marker not in text
        feedback.set_viewport_size({"width": 1100, "height": 1000})
        shot(feedback.locator("#summary"), "hub_feedback_page", height=1000)  # the summary, then the first cells

    with step("6. gradebook and grades.csv"):
        expected_b = sum(GOLDEN["02-continue-not-break"][NB].values())
        totals = pipeline.totals(pipeline.scores(course))
        assert totals[a][NB] == (20.0, 20.0)
        assert totals[b][NB] == (expected_b, 20.0)
        assert totals[c][NB] == (20.0, 20.0)
        room.run_as(instructor, "nbgrader", "export", cwd=course)
        rows = {r["student_id"]: r for r in csv.DictReader((course / "grades.csv").open())}
        for student in (a, b, c):  # both notebooks: 01 was left as fetched
            assert float(rows[student]["raw_score"]) == sum(score for score, _ in totals[student].values())
            assert float(rows[student]["max_score"]) == 36.0
        times = {s: (course / "submitted" / s / ASSIGNMENT / "timestamp.txt").read_text() for s in (a, b, c)}
        why = (f"due {due}; recorded {times}; A's and B's latest ctimes at the due date {submitted_at}, "
               f"now {({s: latest_ctime(inbound, s) for s in (a, b)})}")
        assert float(rows[a]["late_submission_penalty"]) == float(rows[b]["late_submission_penalty"]) == 0, why
        assert float(rows[a]["score"]) == float(rows[a]["raw_score"])
        assert float(rows[b]["score"]) == float(rows[b]["raw_score"]) < float(rows[a]["score"])
        # C, with A's answers, is seconds late: one started day costs a tenth of each notebook's score (grading/plugins/late.py).
        assert float(rows[c]["raw_score"]) == float(rows[a]["raw_score"])
        assert float(rows[c]["late_submission_penalty"]) == pytest.approx(0.1 * float(rows[c]["raw_score"])), why
        assert float(rows[c]["score"]) == pytest.approx(0.9 * float(rows[c]["raw_score"]))

    with step("7. instructor: the formgrader shows the assignment and its three submissions"):
        page_i = login(browser, room, instructor)
        page_i.goto(f"{room.url}/user/{instructor}/formgrader")
        # Exactly this assignment's row: the course also holds level23_speculative_decoding_zh and Level 24.
        row = page_i.locator("tr", has=page_i.get_by_role("link", name=ASSIGNMENT, exact=True))
        expect(row).to_be_visible(timeout=60_000)
        expect(row).to_contain_text("3")
        shot(page_i.locator("body"), "hub_formgrader")

    with step("7b. instructor: the formgrader's view of B's submission runs none of B's scripts"):
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
            submission = gb.find_submission_notebook(NB, ASSIGNMENT, b).id
        listener = Listener(XSS_PORT)
        try:
            page_i.goto(f"{room.url}/user/{instructor}/formgrader/submissions/{submission}/")
            expect(page_i.locator("#notebook").first).to_contain_text(XSS_DONE, timeout=60_000)
            ran = scripts_that_ran(page_i, listener, "#notebook")
        finally:
            listener.close()
        assert not ran, f"a script of B ran, or could run, in the instructor's formgrader: {ran}"
