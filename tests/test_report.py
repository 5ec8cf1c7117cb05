"""The class report (grading/report.py) escapes every string it did not write, and runs no script."""

from html.parser import HTMLParser

import pytest

from grading import ASSIGNMENT, report
from grading.plugins.preprocessors import PAGE_CSP

HOSTILE_ID = "eve<script>document.title='xss-report'</script>"
HOSTILE_WHY = "<img src=x onerror=\"document.title='xss-report-why'\"> worker died"
HOSTILE_CHECK = "x<svg onload=\"document.title='xss-report-check'\">"


class Elements(HTMLParser):
    def __init__(self, text):
        super().__init__()
        self.elements = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))


@pytest.fixture
def hostile_report(tmp_path, monkeypatch):
    """A report whose gradebook holds a hostile student id, notebook and check id, and a hostile reason."""
    table = {HOSTILE_ID: {"02_reject_and_break": {HOSTILE_CHECK: (0.0, 1.0), "visible": (1.0, 1.0)}},
             "ada": {"02_reject_and_break": {HOSTILE_CHECK: (1.0, 1.0), "visible": (1.0, 1.0)}}}
    monkeypatch.setattr(report.pipeline, "class_scores", lambda course, db_url=None: {ASSIGNMENT: table})
    monkeypatch.setattr(report, "check_labels", lambda course, assignment: {})
    return report.write(tmp_path, not_graded={HOSTILE_ID: HOSTILE_WHY})


def test_report_escapes_student_ids_reasons_and_check_ids(hostile_report):
    page = hostile_report.read_text()
    elements = Elements(page).elements
    assert [tag for tag, _ in elements if tag in ("script", "svg")] == []
    assert [(tag, a) for tag, attrs in elements for a in attrs if a.startswith("on")] == []
    assert [attrs.get("src") for tag, attrs in elements if tag == "img"] == ["scores.png"]
    assert ("meta", {"http-equiv": "Content-Security-Policy", "content": PAGE_CSP}) in elements
    for text in (HOSTILE_ID, HOSTILE_WHY, HOSTILE_CHECK):
        assert text not in page and report.html.escape(text) in page  # shown, as text


@pytest.mark.browser
def test_report_runs_no_script_and_shows_its_histogram(hostile_report, chromium):
    page = chromium.new_page()
    try:
        page.goto(hostile_report.as_uri(), wait_until="load")
        shown = page.evaluate("() => ({title: document.title, text: document.body.innerText,"
                              " histogram: [...document.images].map(i => i.naturalWidth)})")
    finally:
        page.close()
    assert shown["title"] == "Class report"  # no script set it
    assert HOSTILE_ID in shown["text"] and HOSTILE_WHY in shown["text"]
    assert shown["histogram"] and all(w > 0 for w in shown["histogram"])  # the picture loads under the policy
