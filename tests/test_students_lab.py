"""The student's JupyterLab as `make lab` starts it (issue 42): the released notebooks open saved (not marked
unsaved); a failed visible test's message, the fix included, reads whole, unbroken words, both under the cell and
in nbgrader's Validate dialog; Level 24 notebook 02's Run All runs every demonstration before stopping at the
unwritten step; on a phone the first lesson opens with the sidebars collapsed; Validate speaks the interface's
language. Real JupyterLab in headless Chromium.
"""

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

import lab
from grading.build import catalogue

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "test-artifacts" / "screenshots"
# as `make lab` starts JupyterLab: the course's lab config, and its own labextension on JUPYTER_PATH
LAB_ENV = {"JUPYTER_CONFIG_PATH": str(ROOT / "grading" / "lab"), "JUPYTER_PATH": str(ROOT / "grading" / "lab" / "share")}
FIX = "After a rejection nothing more is kept: the loop stops."  # the message's last line, whole

if not lab.chromium_path():
    pytest.skip("no chromium: install it with `apt-get install chromium` to run the browser test",
                allow_module_level=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    work = tmp_path_factory.mktemp("students_lab")
    course = work / "course"
    shutil.copytree(ROOT / "release", course)
    with lab.jupyter_lab(course, work / "jupyter.log", env=LAB_ENV) as (url, token), lab.browser() as b:
        yield b, url, token, course


# The text of ``node`` from character ``start`` on: each line box it takes on screen (left, right, top), found with
# a DOM Range over its text nodes.
LINE_BOXES = """(node, start) => {
  const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  let seen = 0, t, begun = false, last = null;
  while ((t = walker.nextNode())) {
    const n = t.textContent.length;
    if (!begun && seen + n > start) { range.setStart(t, start - seen); begun = true; }
    seen += n; last = t;
  }
  range.setEnd(last, last.textContent.length);
  return [...range.getClientRects()].filter(r => r.width > 0)
    .map(r => ({left: r.left, right: r.right, top: Math.round(r.top)}));
}"""


def message_lines(pre):
    """The failed assertion's message in ``pre`` (from its last 'AssertionError: ' on): its text lines and the
    distinct line boxes it takes on screen."""
    text = pre.evaluate("e => e.textContent")
    start = text.rindex("AssertionError: ")
    boxes = pre.evaluate(LINE_BOXES, start)
    return text[start:].rstrip("\n").split("\n"), boxes


def fail_the_visible_test(page, url, token):
    nb = lab.Notebook(page, url, token, "level23_speculative_decoding/02_reject_and_break.ipynb")
    page.evaluate("() => { window.jupyterapp.shell.collapseLeft(); window.jupyterapp.shell.collapseRight(); }")
    answer = next(a for a in catalogue.load("02_reject_and_break") if a.name == "continue_not_break")
    nb.set_cell_source("verify_draft", answer.code)
    nb.run_all()
    return nb


def test_released_notebooks_open_saved(server):
    """JupyterLab writes the kernel's language_info into a notebook as it opens: if the build's differs, the
    notebook is marked unsaved before the student has typed anything."""
    b, url, token, course = server
    page = b.new_context(viewport={"width": 1400, "height": 900}).new_page()
    dirty = {}
    for path in sorted(course.glob("*/*.ipynb")):
        name = str(path.relative_to(course))
        lab.Notebook(page, url, token, name)
        page.wait_for_timeout(1500)  # the kernel's info has come and been written into the model
        dirty[name] = page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty")
    page.context.close()
    assert len(dirty) >= 10 and not any(dirty.values()), dirty


@pytest.mark.parametrize("width", [1024, 1400])
def test_failed_visible_test_reads_whole_under_the_cell(server, width):
    b, url, token, course = server
    page = b.new_context(viewport={"width": width, "height": 900}).new_page()
    fail_the_visible_test(page, url, token)
    pre = page.locator(".jp-Cell", has=page.get_by_text(FIX, exact=False)).locator(
        ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr'] pre").last
    pre.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    pre.screenshot(path=str(SHOTS / f"visible_test_failed_{width}.png"))
    lines, boxes = message_lines(pre)
    assert FIX in lines, lines  # the fix is a line of its own
    # as many line boxes as text lines: JupyterLab wrapped none of them (it would break anywhere, mid-word)
    assert len({box["top"] for box in boxes}) == len(lines), (lines, boxes)
    page.context.close()


def test_failed_visible_test_reads_whole_in_the_validate_dialog(server):
    b, url, token, course = server
    page = b.new_context(viewport={"width": 1024, "height": 800}).new_page()
    nb = fail_the_visible_test(page, url, token)
    nb.save()
    page.locator(".validate-button").first.click()
    pre = page.locator(".nbgrader-ErrorDialog #validation-message pre", has_text="AssertionError").first
    pre.wait_for(timeout=120_000)
    body = page.locator(".nbgrader-ErrorDialog .jp-Dialog-body")
    body.evaluate("e => { e.scrollTop = e.scrollHeight; }")  # the student scrolls down to the message's end
    page.locator(".jp-Dialog-content").screenshot(path=str(SHOTS / "validate_failed.png"))
    lines, boxes = message_lines(pre)
    assert lines[-1] == FIX, lines  # the fix is the message's last line, a line of its own
    # The pre never wraps and the body scrolls sideways, cutting what is wider: every line box of the message lies
    # inside the body's visible width, one box per text line, and the fix's line inside the visible height.
    box = body.bounding_box()
    left, right = box["x"], box["x"] + body.evaluate("e => e.clientWidth")
    top, bottom = box["y"], box["y"] + body.evaluate("e => e.clientHeight")
    outside = [b for b in boxes if b["left"] < left - 1 or b["right"] > right + 1]
    assert not outside, ((left, right), outside, lines)
    assert len({b["top"] for b in boxes}) == len(lines), (lines, boxes)
    fix_top = max(b["top"] for b in boxes)
    assert top <= fix_top and fix_top + 14 <= bottom, (top, bottom, fix_top)
    page.context.close()


def test_every_line_break_of_the_message_falls_between_words():
    """The laid-out message is the message: only spaces became line breaks (no word is cut)."""
    import sys
    sys.path.insert(0, str(ROOT / "source" / "level23_speculative_decoding"))
    import spec_checks
    message = "Got [10, 20, 40]: token 40 came back after token 30 was rejected (r = 0.9 >= p/q = 0.11 there). After a rejection nothing more is kept: the loop stops."
    laid = spec_checks.readable(message)
    assert laid.replace("\n", " ") == message and FIX in laid.split("\n")
    assert re.search(r"\S\n\S", laid) and all(len(line) <= 60 for line in ("AssertionError: " + laid).split("\n"))


def test_level24_notebook_02_run_all_with_the_stub_runs_every_demonstration(server):
    """Run All stops at the visible test while the step is unwritten. Everything that does not call the
    student's speculative_step comes before it, so it has run: the 100,000-step histograms, the formula check, the
    speed-up widget, the best-K chart and the quizzes. Only the cells that call speculative_step wait."""
    b, url, token, course = server
    page = b.new_context(viewport={"width": 1400, "height": 900}).new_page()
    nb = lab.Notebook(page, url, token, "level24_residual_and_bonus/02_bonus_and_step.ipynb")
    nb.run_all()
    cells = page.evaluate("() => window.jupyterapp.shell.currentWidget.content.widgets.map(c => [c.model.type,"
                          " c.model.sharedModel.getSource(), (c.model.getMetadata('nbgrader') || {}).grade_id || '',"
                          " c.model.type === 'code' ? c.model.outputs.length : 0])")
    test = next(i for i, (_, _, grade_id, _) in enumerate(cells) if grade_id == "test_visible")
    assert [i for i, _ in nb.error_cells()] == [test]
    unrun = [source.splitlines()[0] for kind, source, grade_id, outputs in cells[test + 1:]
             if kind == "code" and not grade_id and outputs == 0]
    assert unrun and all("speculative_step" in source for kind, source, grade_id, outputs in cells[test + 1:]
                         if kind == "code" and not grade_id and "(" in source), unrun
    outputs = page.locator(".jp-OutputArea-output")
    assert outputs.locator("img").count() == 2  # the histograms and the best K against α
    assert page.locator(".spec-speedup-widget svg").count() >= 1
    for quiz_id in ("l24_bonus_guess", "l24_speed_check", "l24_some_k_helps"):
        assert page.locator(f".spec-quiz-{quiz_id}").count() == 1, quiz_id
    page.context.close()


PHONE = dict(viewport={"width": 375, "height": 667}, device_scale_factor=2, is_mobile=True, has_touch=True)


def first_layout():
    import importlib.util
    spec = importlib.util.spec_from_file_location("first_layout", ROOT / "grading" / "lab" / "first_layout.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_students_lab_opens_on_a_phone_with_the_lesson_not_the_file_browser(server, tmp_path, edition):
    """`make lab` hands JupyterLab grading/lab/first_layout.py's layout: on a phone (device emulation, 375 px) the
    first lesson fills the screen, both sidebars collapsed; a fresh JupyterLab would open its file browser over it."""
    course = tmp_path / "course"
    shutil.copytree(ROOT / "release", course)
    workspace = first_layout().write(course, tmp_path / "workspaces", zh=edition == "zh")
    first = ("level23_speculative_decoding_zh" if edition == "zh" else "level23_speculative_decoding") + \
        "/01_accept_branch.ipynb"
    env = dict(LAB_ENV, JUPYTERLAB_WORKSPACES_DIR=str(workspace.parent))
    b = server[0]  # the module's browser (Playwright's sync API runs one at a time), a JupyterLab of its own
    with lab.jupyter_lab(course, tmp_path / "jupyter.log", env=env) as (url, token):
        page = b.new_context(**PHONE).new_page()
        page.goto(f"{url}/lab?token={token}")
        nb = lab.Notebook.opened(page, first)
        page.wait_for_timeout(1500)  # everything the layout restorer and the plugins do after the notebook opened
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"phone_lab_start_{edition}.png"))
        assert page.evaluate("() => [window.jupyterapp.shell.leftCollapsed, window.jupyterapp.shell.rightCollapsed]") \
            == [True, True]
        assert page.locator("#filebrowser").is_hidden()
        panel = page.locator(".jp-NotebookPanel").first.bounding_box()
        assert panel["x"] < 60 and panel["width"] > 0.75 * 375, panel  # the notebook, not a sidebar, fills the screen
        assert not nb.page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty")
        page.context.close()
    # JupyterLab keeps the student's layout in that workspace from then on, and a second `make lab` leaves it
    own = workspace.read_text()
    assert first_layout().write(course, tmp_path / "workspaces") == workspace
    assert workspace.read_text() == own


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_validate_speaks_the_interfaces_language(server, tmp_path, edition):
    """nbgrader writes the Validate button's and dialog's words as plain strings, which no language pack reaches;
    the course's labextension (grading/lab/share/labextensions/@course/student-lab) puts the Chinese interface's
    words in their place, leaves the English interface as nbgrader wrote it, and never touches the test's output."""
    b = server[0]
    course = tmp_path / "course"
    shutil.copytree(ROOT / "release" / ("level23_speculative_decoding" + ("_zh" if edition == "zh" else "")), course)
    with lab.jupyter_lab(course, tmp_path / "jupyter.log", locale="zh_CN" if edition == "zh" else None,
                         env=LAB_ENV) as (url, token):
        page = b.new_context(viewport={"width": 1200, "height": 900}).new_page()
        lab.Notebook(page, url, token, "01_accept_branch.ipynb")
        button = page.locator(".validate-button").first
        assert page.evaluate("() => window.jupyterapp.isPluginActivated('@course/student-lab:nbgrader-words')")
        label, title = ("验证", "验证作业") if edition == "zh" else ("Validate", "Validate Assignment")
        expect(button).to_have_text(label)
        assert button.get_attribute("title") == title
        button.click()
        dialog = page.locator(".nbgrader-ErrorDialog")
        dialog.locator("#validation-message pre").first.wait_for(timeout=120_000)
        header, failed = ("验证结果", "下面这个单元格没有通过：") if edition == "zh" else \
            ("Validation Results", "The following cell failed:")
        expect(dialog.locator(".jp-Dialog-header")).to_have_text(header)
        expect(dialog.locator("#validation-message p").first).to_have_text(failed)
        # the cell and its traceback are shown as nbgrader gave them (the source's 'Validate'-free code, the message)
        source = dialog.locator("#validation-message pre").first.inner_text()
        assert "spec_checks.readable(problem)" in source
        page.context.close()
