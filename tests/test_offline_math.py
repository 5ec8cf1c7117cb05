"""Formulas on the course's pages with no network (issue 42 item 3): the feedback page carries MathJax 3 inside it,
the formgrader loads MathJax 2 from its own server (jupyter-server-mathjax). Chromium is given no network at all:
every request that is not the page itself or the local server is aborted, and the formula must still be typeset."""

import re
from pathlib import Path

import pytest

import lab

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "release" / "level23_speculative_decoding" / "02_reject_and_break.ipynb"

if not lab.chromium_path():
    pytest.skip("no chromium: install it with `apt-get install chromium` to run the browser test",
                allow_module_level=True)


def feedback_page(notebook=NOTEBOOK):
    """The page the course's exporter writes for ``notebook`` (as generate_feedback does; no grading run)."""
    import nbformat
    from traitlets.config import Config

    from grading.plugins.preprocessors import PageExporter

    config = Config()
    PageExporter.configure(config)
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.metadata.nbgrader["score"] = 0
    resources = {"nbgrader": {"assignment": "level23_speculative_decoding", "notebook": notebook.stem,
                              "student": "ada", "score": 0, "max_score": 15, "late_penalty": 0}}
    return PageExporter(config=config).from_notebook_node(nb, resources)[0]


def offline(page, allowed=("file://",)):
    """Abort every request but ``allowed``; return the list of what was refused and of console errors."""
    refused, errors = [], []
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(allowed)
               else (refused.append(route.request.url), route.abort()))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    return refused, errors


def test_feedback_page_typesets_formulas_with_no_network(tmp_path):
    html = feedback_page()
    assert not re.search(r"<script[^>]*\ssrc=", html), "the page loads a script from elsewhere"
    path = tmp_path / "02_reject_and_break.html"
    path.write_text(html)
    with lab.browser() as b:
        page = b.new_context(viewport={"width": 1000, "height": 800}).new_page()
        refused, errors = offline(page)
        page.goto(path.as_uri())
        page.wait_for_selector("mjx-container svg", timeout=30_000)
        formula = page.locator("mjx-container").filter(has=page.locator("svg")).first
        assert formula.bounding_box()["width"] > 50
        body = page.locator("body").inner_text()
        assert "\\sum_{i}" not in body and "\\prod" not in body, "a formula is still raw TeX"
        assert not refused, refused
        assert not [e for e in errors if "Content Security Policy" in e], errors


def test_formgrader_typesets_formulas_with_no_network(tmp_path):
    """The formgrader's own template (nbgrader's formgrade) rendered by an HTMLExporter configured as
    nbgrader_config.py configures the formgrader's, served by a Jupyter server with the formgrader and
    jupyter-server-mathjax, opened with every request outside 127.0.0.1 refused. Long lines wrap, not cut off."""
    import nbformat
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    course = tmp_path / "course"
    course.mkdir()
    config = Config()  # as FormgradeExtension: its extra config first, then the course's nbgrader_config.py
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    config.merge(PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config())
    with lab.jupyter_lab(course, tmp_path / "jupyter.log") as (url, token):
        resources = {"base_url": "", "notebook_id": "02_reject_and_break", "index": 0, "total": 1,
                     "submission_id": "x", "mathjax_url": "", "last_name": "L", "first_name": "F", "disable_ui": True}
        nb = nbformat.read(NOTEBOOK, as_version=4)
        long_line = "x = " + " + ".join(f"value_{i}" for i in range(60))  # about 650 characters
        nb.cells.append(nbformat.v4.new_code_cell(long_line, outputs=[nbformat.v4.new_output(
            "stream", name="stdout", text="an output line " * 40 + "that ends here\n")]))
        html, _ = HTMLExporter(config=config).from_notebook_node(nb, resources)
        assert not re.search(r"<script[^>]*\ssrc=[\"']https?:", html), "a script from another site"
        (course / "page.html").write_text(html)
        with lab.browser() as b:
            page = b.new_context(viewport={"width": 1000, "height": 800}).new_page()
            refused, _ = offline(page, allowed=(url,))
            page.goto(f"{url}/files/page.html?token={token}")
            page.wait_for_selector(".MathJax_CHTML, .MathJax, mjx-container", timeout=30_000)
            body = page.locator("body").inner_text()
            assert "\\sum_{i}" not in body, "a formula is still raw TeX"
            assert not refused, refused
            # long lines wrap: nothing is wider than its box, and the code's and the output's last words are visible
            cut = page.evaluate("() => [...document.querySelectorAll('pre')].filter(p => p.scrollWidth > p.clientWidth + 1)"
                                ".map(p => p.textContent.slice(0, 40))")
            assert not cut, f"lines cut off: {cut}"
            for words in ("value_59", "that ends here"):  # the ends of the long code line and of the output
                assert page.locator("pre", has_text=words).last.is_visible()


def test_a_students_tex_runs_no_script_on_the_feedback_page(tmp_path):
    """MathJax now runs on the page, over the student's markdown too: a \\href to javascript: is typeset, yet clicking
    it runs nothing (the page's CSP allows only MathJax's two scripts, by hash), and
    \\require or an extension MathJax would load stops nothing."""
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(
        "$$\\href{javascript:document.title='pwned'}{\\text{click me}}$$ and $\\require{physics} \\abs{x}$"))
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    page_html = feedback_page(path)
    (tmp_path / "page.html").write_text(page_html)
    with lab.browser() as b:
        page = b.new_context(viewport={"width": 1000, "height": 800}).new_page()
        refused, _ = offline(page)
        page.goto((tmp_path / "page.html").as_uri())
        page.wait_for_selector("mjx-container svg", timeout=30_000)
        link = page.locator("mjx-container a").first
        assert link.count() == 1, "the \\href was not typeset as a link"
        link.click()
        page.wait_for_timeout(500)
        assert page.locator("mjx-container").count() >= 3  # the student's two formulas and the lesson's
        assert page.title() != "pwned"
        assert not refused, refused
