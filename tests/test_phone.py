"""The number line on a phone (issue 42 item 2): Chromium with a phone's viewport (device emulation: 375 x 667 CSS
px, a device pixel ratio of 2, touch, a mobile user agent's layout), not a narrow desktop window. In JupyterLab
and in Notebook 7 the whole drawing shows: the r mark and label and both ends of [0, 1] lie inside the page.
"""

import shutil
from pathlib import Path

import pytest

import lab

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "test-artifacts" / "screenshots"
PHONE = dict(viewport={"width": 375, "height": 667}, device_scale_factor=2, is_mobile=True, has_touch=True)

if not lab.chromium_path():
    pytest.skip("no chromium: install it with `apt-get install chromium` to run the browser test",
                allow_module_level=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    work = tmp_path_factory.mktemp("phone")
    course = work / "course"
    shutil.copytree(ROOT / "source" / "level23_speculative_decoding", course)  # the helpers as the build wrote them
    with lab.jupyter_lab(course, work / "jupyter.log") as (url, token):
        with lab.browser() as b:
            yield b, url, token


def assert_whole(page, name):
    """Every part of the number line (its box, r, and the ticks 0 and 1) inside the phone's 375 px."""
    line = page.locator(".spec-number-line-widget svg.spec-number-line").first
    line.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    width = page.viewport_size["width"]
    boxes = {"svg": line.bounding_box(), "r": line.locator(".label-r").bounding_box(),
             "1": line.locator(".label-tick").nth(1).bounding_box(), "0": line.locator(".label-tick").nth(0).bounding_box()}
    for what, box in boxes.items():
        assert box and box["width"] > 0, f"{name}: {what} not drawn"
        assert 0 <= box["x"] and box["x"] + box["width"] <= width, f"{name}: {what} at {box}, outside 0..{width} px"
    # the drawing is not cut by its output area either (a clipped overflow would still report the full box)
    clipped = line.evaluate("svg => { const out = svg.closest('.jp-OutputArea-output') || svg.parentElement;"
                            " const a = out.getBoundingClientRect(), b = svg.getBoundingClientRect();"
                            " return b.right > a.right + 1 || b.left < a.left - 1; }")
    assert not clipped, f"{name}: the number line is wider than its output area"


def test_number_line_whole_on_a_phone_in_jupyterlab(server):
    b, url, token = server
    context = b.new_context(**PHONE)
    page = context.new_page()
    nb = lab.Notebook(page, url, token, "02_reject_and_break.ipynb")
    page.evaluate("() => { window.jupyterapp.shell.collapseLeft(); window.jupyterapp.shell.collapseRight(); }")
    nb.run_all()
    assert_whole(page, "phone_number_line_lab")
    context.close()


def test_number_line_whole_on_a_phone_in_notebook_7(server):
    b, url, token = server
    context = b.new_context(**PHONE)
    page = context.new_page()
    page.goto(f"{url}/notebooks/02_reject_and_break.ipynb?token={token}")
    page.wait_for_function("() => document.querySelector('.jp-Notebook') &&"
                           " [...document.querySelectorAll('.jp-Notebook-ExecutionIndicator, .jp-KernelStatus')]"
                           ".length >= 0", timeout=90_000)
    page.wait_for_timeout(3000)  # the kernel starts
    page.get_by_text("Run", exact=True).first.click()
    page.get_by_text("Run All Cells", exact=True).first.click()
    page.wait_for_selector(".spec-number-line-widget svg.spec-number-line", timeout=90_000)
    assert_whole(page, "phone_number_line_notebook7")
    context.close()
