"""The feedback page a student opens, in headless Chromium at a laptop's and a phone's width, in both
editions, for a right, a half-right and a crashing answer: the graded_course fixture's own pages (the
plain `nbgrader generate_feedback`'s), no new grading run.

Screenshots go to test-artifacts/screenshots/ (and to docs/ with SAVE_DOCS_SCREENSHOTS=1)."""

import json
import os
import re
from pathlib import Path

import pytest

from grading import ASSIGNMENT, EDITIONS, language
from grading.plugins.preprocessors import TEMPLATES, page_labels

ZH = "level23_speculative_decoding_zh"
NB = "02_reject_and_break"
ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "test-artifacts" / "screenshots"
STUDENTS = {"right": "02-correct-for-enumerate", "half": "02-continue-not-break", "crash": "faults-kills-kernel"}
WIDTHS = (1280, 375)


def test_every_language_of_an_edition_has_every_label_in_one_place():
    labels = json.loads((TEMPLATES / "labels.json").read_text())
    for lang in {"en"} | {language(e) for e in EDITIONS}:
        assert set(page_labels(lang)) == set(labels["en"]), lang
    zh = page_labels("zh")
    assert (zh["score"], zh["diagnosis"], zh["checks"], zh["passed"], zh["failed"], zh["top"]) == \
        ("得分", "诊断", "检查", "通过", "未通过", "返回顶部")


def test_the_page_has_a_viewport_so_a_phone_lays_it_out_at_its_own_width():
    """Without the meta tag a phone renders the page 980 px wide at 5-6 px text (issue 42 item 2); the page is
    rendered here by the course's exporter, as generate_feedback does, with no grading run."""
    import nbformat
    from traitlets.config import Config

    from grading.plugins.preprocessors import PageExporter

    config = Config()
    PageExporter.configure(config)
    nb = nbformat.read(ROOT / "release" / ASSIGNMENT / "01_accept_branch.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.metadata.nbgrader["score"] = 0
    resources = {"nbgrader": {"assignment": ASSIGNMENT, "notebook": "01_accept_branch", "student": "ada",
                              "score": 0, "max_score": 15, "late_penalty": 0}}
    page, _ = PageExporter(config=config).from_notebook_node(nb, resources)
    from html.parser import HTMLParser

    class Metas(HTMLParser):
        def __init__(self):
            super().__init__()
            self.viewports, self.in_head = [], False

        def handle_starttag(self, tag, attrs):
            self.in_head = self.in_head or tag == "head"
            if tag == "meta" and dict(attrs).get("name") == "viewport":
                self.viewports.append((self.in_head, dict(attrs).get("content")))

        def handle_endtag(self, tag):
            self.in_head = self.in_head and tag != "head"

    metas = Metas()
    metas.feed(page)
    assert metas.viewports == [(True, "width=device-width, initial-scale=1")]


def hidden_lines():
    from test_feedback import hidden_lines as lines
    return lines(NB)


def test_each_check_is_described_by_its_own_cell(graded_course):
    """Every check of the page is a test cell's own sentence (or the visible test's words), once."""
    import nbformat
    from grading.plugins.preprocessors import feedback_summary

    nb = nbformat.read(graded_course.autograded(STUDENTS["half"], NB), as_version=4)
    checks = feedback_summary(nb, page_labels("en"))["checks"]
    assert "position i reads row i, at column token_id." in [c["description"] for c in checks]
    assert [c["passed"] for c in checks] == sorted(c["passed"] for c in checks)  # failed first


def pictures_in(notebook):
    """The pictures the graded notebook's outputs hold: each PNG, JPEG or SVG output, and each <svg> drawn in HTML."""
    import nbformat

    count = 0
    for cell in nbformat.read(notebook, as_version=4).cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            count += any(m in data for m in ("image/png", "image/jpeg", "image/svg+xml"))
            count += str(data.get("text/html", "")).count("<svg")
    return count


@pytest.mark.browser
@pytest.mark.parametrize("edition", [ASSIGNMENT, ZH])
@pytest.mark.parametrize("kind", list(STUDENTS))
def test_feedback_page_in_chromium(graded_course, chromium, edition, kind):
    student = STUDENTS[kind]
    path = graded_course.root / "feedback" / student / edition / f"{NB}.html"
    labels = page_labels(language(edition))
    grades = graded_course.grades(student, NB, edition)
    failed_ids = [g for g, (score, out_of) in grades.items() if score < out_of]
    assert (kind == "right") == (not failed_ids)
    assert kind == "crash" or pictures_in(graded_course.autograded(student, NB, edition)) >= 1
    for width in WIDTHS:
        page = chromium.new_page(viewport={"width": width, "height": 800})
        try:
            page.goto(path.as_uri())
            scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert scroll <= inner, f"{student} ({edition}) scrolls sideways at {width} px: {scroll} > {inner}"
            boxes = page.evaluate("Math.max(0, ...[...document.querySelectorAll('pre')].map(e => e.scrollWidth - e.clientWidth))")
            assert boxes == 0, f"a message or code box scrolls sideways at {width} px, by {boxes} px"  # messages wrap
            summary = page.locator("#summary")
            items = summary.locator("ol.checks > li:not(.late-penalty)")
            assert items.count() == len(grades)  # every check named
            texts = items.all_inner_texts()
            verdicts = [t.split("·")[0].strip() for t in texts]
            assert verdicts.count(labels["failed"]) == len(failed_ids)
            assert verdicts == sorted(verdicts, key=lambda v: v != labels["failed"])  # failed first
            for item in texts:
                name = item.split("·", 1)[1].strip()
                assert name and not name.startswith("(")
            diagnosis = summary.locator(".diagnosis")
            assert diagnosis.inner_text().startswith("Diagnosis: " if edition == ASSIGNMENT else "诊断：")
            links = summary.locator("ol.checks a")
            for i in range(links.count()):  # each check links to its cell below
                target = links.nth(i).get_attribute("href")[1:]
                assert page.locator(f"[id='{target}']").count() == 1
            if width == 1280:
                in_view = [diagnosis] + ([summary.locator("li.failed .hint").first] if failed_ids else [])
                for box in (loc.bounding_box() for loc in in_view):
                    assert box and box["y"] + box["height"] <= 800, f"not visible without scrolling: {box}"
            text = page.locator("body").inner_text()
            if edition == ZH:  # the page's own words (the lesson's code keeps its English names)
                for english in ("Grade cell", "Score:", "(Top)", "Test cell", "Student's answer"):
                    assert english not in text, english
                assert not re.search(r"passed|failed|Diagnosis", summary.inner_text())
            leaked = [line for line in hidden_lines() if line in text]
            assert not leaked and "BEGIN HIDDEN TESTS" not in text
            pictures = page.evaluate("[...document.images].filter(i => i.naturalWidth > 0).length"
                                     " + document.querySelectorAll('svg').length")
            assert pictures >= pictures_in(graded_course.autograded(student, NB, edition)), "the notebook's pictures are gone"
            shot = f"feedback_{kind}_{width}{'' if edition == ASSIGNMENT else '_zh'}"
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"{shot}.png"))
            if os.environ.get("SAVE_DOCS_SCREENSHOTS") and kind == "half":
                page.screenshot(path=str(ROOT / "docs" / f"{shot}.png"))
        finally:
            page.close()
