"""The class report after grading: what the class got wrong, and the score histograms.

    reports/index.html                 per assignment and check: how many students failed it, and what it checks
    reports/scores.png                 the histogram of Level 23's total scores
    reports/scores_<assignment>.png    the same for every later assignment

An assignment whose class mixes editions (English and Chinese, grading.EDITIONS) is reported side
by side in its section: one row per check, under its English name, with one failed/of column pair
per edition, and one histogram of every edition's students.
"""

import html
import re
from collections import Counter
from pathlib import Path

import nbformat

from grading import ASSIGNMENT, ASSIGNMENTS, ROOT, language, pipeline, template
from grading.plugins.preprocessors import CSP_META


def not_graded_key(student, assignment):
    """How the report names a student whose submission could not be graded."""
    return student if assignment == ASSIGNMENT else f"{student} ({assignment})"


def histogram_name(assignment):
    return "scores.png" if assignment == ASSIGNMENT else f"scores_{assignment}.png"


def check_labels(course=ROOT, assignment=ASSIGNMENT):
    """{(notebook, grade_id): what the check is about}, read from the (English) source notebooks."""
    labels = {}
    for name in ASSIGNMENTS[template(assignment)]:
        nb = nbformat.read(Path(course) / "source" / template(assignment) / f"{name}.ipynb", as_version=4)
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


def side_by_side(tables, labels):
    """[(notebook, grade_id, {edition language: (failed, graded)}, label)], most failed (all editions) first.

    ``tables`` is {assignment: scores}, the editions of one assignment: they share their grade ids,
    so a check is one row.
    """
    per = {}
    for a, table in tables.items():
        per.setdefault(language(a), {}).update({(nb, g): (f, n) for nb, g, f, n, _ in failures(table, labels)})
    keys = sorted({k for counts in per.values() for k in counts})
    rows = [(nb, g, {lang: counts.get((nb, g), (0, 0)) for lang, counts in per.items()}, labels.get((nb, g), g))
            for nb, g in keys]
    return sorted(rows, key=lambda r: (-sum(f for f, _ in r[2].values()), r[0], r[1]))


def by_assignment(course, db_url=None):
    """{English assignment: {assignment or edition: scores}} of every assignment with submissions."""
    out = {}
    for a, table in pipeline.class_scores(course, db_url).items():
        out.setdefault(template(a), {})[a] = table
    return {base: out[base] for base in ASSIGNMENTS if base in out}


def histogram(totals, path, out_of, title=ASSIGNMENT):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.2), constrained_layout=True)
    ax.hist(list(totals.values()), bins=range(0, int(out_of) + 2), color="#3b82f6", edgecolor="white", align="left")
    ax.set_xlabel(f"total score (out of {out_of:g})")
    ax.set_ylabel("students")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_title(f"{title}: {len(totals)} students graded")
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(course=ROOT, db_url=None, not_graded=None, cut=None):
    """Write reports/index.html and reports/scores.png for the course; return the page's path.

    Every string from the gradebook or a worker (ids, reasons) is escaped, and the page's policy
    (CSP_META) runs no script at all.
    """
    course = Path(course)
    out = course / "reports"
    out.mkdir(exist_ok=True)
    sections = []
    for base, tables in by_assignment(course, db_url).items():
        table = {s: nbs for t in tables.values() for s, nbs in t.items()}
        totals = {s: sum(score for g in nbs.values() for score, _ in g.values()) for s, nbs in table.items()}
        out_of = max((sum(m for g in nbs.values() for _, m in g.values()) for nbs in table.values()), default=0)
        picture = histogram_name(base)
        histogram(totals, out / picture, out_of, base)
        rows = side_by_side(tables, check_labels(course, base))
        languages = list(dict.fromkeys(language(a) for a in tables))
        editions = "".join(f"<th>failed ({lang})</th><th>of ({lang})</th>" for lang in languages)
        body = "".join(
            f"<tr><td>{html.escape(nb)}</td><td><code>{html.escape(g)}</code></td>"
            + "".join(f"<td>{counts[lang][0]}</td><td>{counts[lang][1]}</td>" for lang in languages)
            + f"<td>{html.escape(label)}</td></tr>" for nb, g, counts, label in rows)
        by_edition = f" ({', '.join(f'{len(t)} in {a}' for a, t in tables.items())})" if len(tables) > 1 else ""
        name, picture = html.escape(base), html.escape(picture)
        sections.append(
            f"<h2 id='{name}'>{name}</h2><p>{len(totals)} students graded{html.escape(by_edition)}.</p>"
            f"<img src='{picture}' alt='score histogram of {name}'>"
            f"<h3>Checks, most failed first</h3><table class='checks' data-assignment='{name}'><tr>"
            f"<th>notebook</th><th>check</th>{editions}<th>what it checks</th></tr>{body}</table>")
    missing = "".join(f"<li><b>{html.escape(s)}</b>: {html.escape(e)}</li>" for s, e in sorted((not_graded or {}).items()))
    shortened = "".join(f"<li><b>{html.escape(s)}</b>: {html.escape(e)}</li>" for s, e in sorted((cut or {}).items()))
    page = out / "index.html"
    page.write_text(
        f"<!doctype html><meta charset='utf-8'>{CSP_META}<title>Class report</title>"
        "<style>body{font-family:sans-serif;max-width:60rem;margin:2rem auto}td,th{padding:2px 8px;"
        "border-bottom:1px solid #ddd;text-align:left}</style>"
        "<h1>Class report</h1>"
        + (f"<h2>Not graded</h2><ul class='not-graded'>{missing}</ul>" if missing else "")
        + (f"<h2>Notebooks cut before they were shown, and feedback pages cut</h2><ul class='cut'>{shortened}</ul>" if shortened else "")
        + "".join(sections))
    return page


def summary(course=ROOT, db_url=None, top=5):
    """The most failed checks of each assignment (every edition of it together), as text lines."""
    lines = []
    for base, tables in by_assignment(course, db_url).items():
        level = base.split("_")[0]
        for nb, g, counts, label in side_by_side(tables, check_labels(course, base))[:top]:
            f, n = sum(c[0] for c in counts.values()), sum(c[1] for c in counts.values())
            split = " + ".join(f"{c[0]} {lang}" for lang, c in counts.items()) if len(counts) > 1 else ""
            if f:
                lines.append(f"{f:>3}/{n:<3} {level} {nb[:2]} {label}" + (f"  ({split})" if split else ""))
    return lines
