"""Benchmark: how fast the course feels in JupyterLab (headless Chromium), side by side with floors.

    .venv/bin/python benchmarks/browser_speed.py

1. "Run all" of notebook 02 until every widget (quizzes, number line, replay) is visible,
   against "run all" of a one-cell notebook that only imports torch (the floor).
2. Latency from a slider key press to the number line's redraw, against the same round trip
   for a plain ipywidgets IntSlider driving a Label (the floor of any kernel-side widget).
3. The same latency for Level 24's speed-up widget (its K slider), against the number line.
"""

import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import lab  # noqa: E402

FLOOR_NB = {"cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                       "source": "import torch"},
                      {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                       "source": "import ipywidgets as w\ns = w.IntSlider(max=1000)\nl = w.Label('0')\n"
                                 "l.add_class('floor-label')\n"
                                 "s.observe(lambda c: setattr(l, 'value', str(c['new'])), names='value')\n"
                                 "w.VBox([s, l])"}],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def run_all_until(nb, selectors):
    t = time.perf_counter()
    nb.page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    for sel in selectors:
        nb.page.locator(sel).first.wait_for(state="visible", timeout=120_000)
    return time.perf_counter() - t


def key_latency(page, handle, text_of, presses=25):
    times = []
    handle.focus()
    for k in range(presses):
        before = page.evaluate(text_of)
        t = time.perf_counter()
        page.keyboard.press("ArrowRight" if k % 2 == 0 else "ArrowLeft")
        page.wait_for_function(f"(b) => ({text_of})() !== b", arg=before, timeout=10_000)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), sorted(times)[int(0.9 * len(times)) - 1]


def main():
    work = Path(tempfile.mkdtemp(prefix="bench-lab-"))
    course = work / "course"
    shutil.copytree(ROOT / "release" / "level23_speculative_decoding", course)
    (course / "floor.ipynb").write_text(json.dumps(FLOOR_NB))
    level24 = course / "level24"
    shutil.copytree(ROOT / "release" / "level24_residual_and_bonus", level24)
    from grading.build import catalogue  # the widget comes after the visible test: answer it so run-all gets there
    right = next(a for a in catalogue.load("02_bonus_and_step", "level24_residual_and_bonus") if a.full_marks)
    import nbformat
    nbformat.write(catalogue.fill(level24 / "02_bonus_and_step.ipynb", right.code), level24 / "02_bonus_and_step.ipynb")
    with lab.jupyter_lab(course, work / "jupyter.log") as (url, token), lab.browser() as b:
        page = b.new_page(viewport={"width": 1400, "height": 1000})
        floor_nb = lab.Notebook(page, url, token, "floor.ipynb")
        floor_run = run_all_until(floor_nb, [".floor-label"])
        floor_nb.wait_kernel_idle()
        floor_med, floor_p90 = key_latency(page, page.locator(".noUi-handle").first,
                                           "() => document.querySelector('.floor-label').textContent")

        page2 = b.new_page(viewport={"width": 1400, "height": 1000})
        nb = lab.Notebook(page2, url, token, "02_reject_and_break.ipynb")
        course_run = run_all_until(nb, [".spec-quiz-m2_guess", ".spec-number-line-widget", "table.spec-replay",
                                        ".spec-quiz-m2_check"])
        nb.wait_kernel_idle()
        line = page2.locator(".spec-number-line-widget")
        line.scroll_into_view_if_needed()
        line_med, line_p90 = key_latency(
            page2, line.locator(".widget-slider").nth(2).locator(".noUi-handle"),
            "() => document.querySelector('.spec-number-line text.verdict').textContent")

        page3 = b.new_page(viewport={"width": 1400, "height": 1000})
        nb24 = lab.Notebook(page3, url, token, "level24/02_bonus_and_step.ipynb")
        run_all_until(nb24, [".spec-speedup-widget"])
        nb24.wait_kernel_idle()
        widget = page3.locator(".spec-speedup-widget")
        widget.scroll_into_view_if_needed()
        speed_med, speed_p90 = key_latency(
            page3, widget.locator(".widget-slider").nth(1).locator(".noUi-handle"),
            "() => document.querySelector('.spec-speedup text.verdict').textContent")

    print(f"{'':44}{'course':>10}{'floor':>10}{'ratio':>8}")
    print(f"{'run all -> every widget visible (s)':44}{course_run:>10.2f}{floor_run:>10.2f}{course_run / floor_run:>8.2f}")
    print(f"{'slider key -> redraw, median (ms)':44}{line_med:>10.1f}{floor_med:>10.1f}{line_med / floor_med:>8.2f}")
    print(f"{'slider key -> redraw, p90 (ms)':44}{line_p90:>10.1f}{floor_p90:>10.1f}{line_p90 / floor_p90:>8.2f}")
    print(f"\n{'':44}{'speed-up':>10}{'num.line':>10}{'ratio':>8}")
    print(f"{'Level 24 K slider -> redraw, median (ms)':44}{speed_med:>10.1f}{line_med:>10.1f}{speed_med / line_med:>8.2f}")
    print(f"{'Level 24 K slider -> redraw, p90 (ms)':44}{speed_p90:>10.1f}{line_p90:>10.1f}{speed_p90 / line_p90:>8.2f}")


if __name__ == "__main__":
    main()
