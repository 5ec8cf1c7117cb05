"""The class report after grading: what the class got wrong, and the score histograms.

    reports/index.html                 per assignment and check: how many students failed it, and what it checks
    reports/scores.png                 the histogram of Level 23's total scores
    reports/scores_<assignment>.png    the same for every later assignment
"""

import html
import re
from collections import Counter
from pathlib import Path

import nbformat

from grading import ASSIGNMENT, ASSIGNMENTS, ROOT, pipeline


def not_graded_key(student, assignment):
    """How the report names a student whose submission could not be graded."""
    return student if assignment == ASSIGNMENT else f"{student} ({assignment})"


def histogram_name(assignment):
    return "scores.png" if assignment == ASSIGNMENT else f"scores_{assignment}.png"


def check_labels(course=ROOT, assignment=ASSIGNMENT):
    """{(notebook, grade_id): what the check is about}, read from the source notebooks."""
    labels = {}
    for name in ASSIGNMENTS[assignment]:
        nb = nbformat.read(Path(course) / "source" / assignment / f"{name}.ipynb", as_version=4)
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if not meta.get("grade") or meta.get("solution"):
                continue
            said = re.search(r"^# Hidden check: (.+)$", cell.source, re.M)
            labels[name, meta["grade_id"]] = said.group(1) if said else "the visible test"
    return labels


def failures(table, labels):
    """[(notebook, grade_id, failed, graded, label)], most failed first."""
    failed, graded = Counter(), Counter()
    for notebooks in table.values():
        for nb, grades in notebooks.items():
            for grade_id, (score, out_of) in grades.items():
                graded[nb, grade_id] += 1
                failed[nb, grade_id] += score < out_of
    rows = [(nb, g, failed[nb, g], graded[nb, g], labels.get((nb, g), g)) for nb, g in graded]
    return sorted(rows, key=lambda r: (-r[2], r[0], r[1]))


def histogram(totals, path, out_of, assignment=ASSIGNMENT):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.2), constrained_layout=True)
    ax.hist(list(totals.values()), bins=range(0, int(out_of) + 2), color="#3b82f6", edgecolor="white", align="left")
    ax.set_xlabel(f"total score (out of {out_of:g})")
    ax.set_ylabel("students")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_title(f"{assignment}: {len(totals)} students graded")
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(course=ROOT, db_url=None, not_graded=None):
    """Write reports/index.html and reports/scores.png for the course; return the page's path."""
    course = Path(course)
    out = course / "reports"
    out.mkdir(exist_ok=True)
    sections = []
    for assignment in ASSIGNMENTS:
        table = pipeline.scores(course, db_url, assignment)
        if not table:
            continue
        totals = {s: sum(score for g in nbs.values() for score, _ in g.values()) for s, nbs in table.items()}
        out_of = max((sum(m for g in nbs.values() for _, m in g.values()) for nbs in table.values()), default=0)
        picture = histogram_name(assignment)
        histogram(totals, out / picture, out_of, assignment)
        rows = failures(table, check_labels(course, assignment))
        body = "".join(
            f"<tr><td>{html.escape(nb)}</td><td><code>{html.escape(g)}</code></td><td>{f}</td><td>{n}</td>"
            f"<td>{html.escape(label)}</td></tr>" for nb, g, f, n, label in rows)
        sections.append(
            f"<h2 id='{assignment}'>{assignment}</h2><p>{len(totals)} students graded.</p>"
            f"<img src='{picture}' alt='score histogram of {assignment}'>"
            f"<h3>Checks, most failed first</h3><table class='checks' data-assignment='{assignment}'><tr>"
            f"<th>notebook</th><th>check</th><th>failed</th><th>of</th><th>what it checks</th></tr>{body}</table>")
    missing = "".join(f"<li><b>{html.escape(s)}</b>: {html.escape(e)}</li>" for s, e in sorted((not_graded or {}).items()))
    page = out / "index.html"
    page.write_text(
        "<!doctype html><meta charset='utf-8'><title>Class report</title>"
        "<style>body{font-family:sans-serif;max-width:60rem;margin:2rem auto}td,th{padding:2px 8px;"
        "border-bottom:1px solid #ddd;text-align:left}</style>"
        "<h1>Class report</h1>"
        + (f"<h2>Not graded</h2><ul class='not-graded'>{missing}</ul>" if missing else "")
        + "".join(sections))
    return page


def summary(course=ROOT, db_url=None, top=5):
    """The most failed checks of each assignment, as text lines."""
    lines = []
    for assignment in ASSIGNMENTS:
        rows = failures(pipeline.scores(course, db_url, assignment), check_labels(course, assignment))
        level = assignment.split("_")[0]
        lines += [f"{f:>3}/{n:<3} {level} {nb[:2]} {label}" for nb, g, f, n, label in rows[:top] if f]
    return lines
