"""Grades into the LMS: an nbgrader export plugin (`make export`, or
`nbgrader export --exporter=grading.plugins.export.LMSExport`).

It writes what nbgrader's own CSV export writes (grades.csv), and beside it:

- ``canvas_grades.csv``, when ``--LMSExport.canvas=<gradebook exported from Canvas>`` is given: that
  file with every one of its own columns and rows kept, each student matched by ``SIS Login ID`` to
  the nbgrader student id, one column per assignment (its existing ``Name (id)`` column when the name
  is the assignment's, else a new column, which Canvas makes a new assignment on import) and the
  assignment's points in the ``Points Possible`` row;
- ``moodle_grades.csv``, a Moodle grade import CSV (Moodle's import reads the columns of its own
  export: map ``ID number`` to ``useridnumber`` and each assignment's column to its grade item). With
  ``--LMSExport.moodle=<grades exported from Moodle>`` that file's rows and columns are kept and
  students are matched by ``ID number``; without it, one row per student of the gradebook.
- ``lms_report.txt``: the students missing on either side, by name, never dropped silently.

An edition (grading.EDITIONS: the Chinese Level 23) is the same LMS assignment as its template: a
student's score is the edition's they submitted. Scores are after the late penalty, as in the
gradebook and grades.csv (grading/plugins/late.py): score - penalty, at least 0. A student with no submission
keeps the LMS's own cell (empty) and is listed. A malformed LMS file stops the export with a message
naming the problem; nothing is written over it, and no LMS file is written half.
"""

import csv
import io
import os
import re
import tempfile
from pathlib import Path

from nbgrader.api import MissingEntry
from nbgrader.plugins import CsvExportPlugin
from traitlets import Dict, Unicode

from grading import template

CANVAS_FIXED = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
POINTS_POSSIBLE = "Points Possible"
MOODLE_ID = "ID number"


class LMSFileError(ValueError):
    """An LMS file this export cannot read: the message says which file, which row and what is wrong."""


def lms_scores(gradebook):
    """({LMS assignment: max score}, {LMS assignment: {student: score after the late penalty}}, [notes])."""
    out_of, latest, notes = {}, {}, []
    for assignment in gradebook.assignments:
        name = template(assignment.name)
        out_of.setdefault(name, assignment.max_score)
        for submission in assignment.submissions:
            score = max(0.0, submission.score - (submission.late_submission_penalty or 0.0))
            latest.setdefault((name, submission.student.id), []).append(
                (str(submission.timestamp or ""), assignment.name, round(score, 2)))
    scores = {}
    for (name, student), made in sorted(latest.items()):
        made.sort()
        if len(made) > 1:
            notes.append(f"{student} submitted {name} in {len(made)} editions "
                         f"({', '.join(m[1] for m in made)}): the latest, {made[-1][1]}, counts")
        scores.setdefault(name, {})[student] = made[-1][2]
    return out_of, scores, notes


def number(value):
    return f"{value:g}"


def read_table(path, what):
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise LMSFileError(f"{what} {path}: no such file") from None
    except UnicodeDecodeError as e:
        raise LMSFileError(f"{what} {path}: not UTF-8 text ({e.reason} at byte {e.start}); export it again as CSV") \
            from None
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as e:
        raise LMSFileError(f"{what} {path}: not a CSV file ({e})") from None
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise LMSFileError(f"{what} {path}: the file is empty")
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(rows[0]):
            raise LMSFileError(f"{what} {path}: row {n} has {len(row)} columns, the header {len(rows[0])}")
    return rows


def unique_ids(rows, column, path, what, start):
    seen = {}
    for n, row in enumerate(rows, start=start):
        key = row[column].strip()
        if not key:
            raise LMSFileError(f"{what} {path}: row {n} ({row[0]!r}) has no id")
        if key in seen:
            raise LMSFileError(f"{what} {path}: rows {seen[key]} and {n} have the same id {key!r}")
        seen[key] = n
    return seen


def fill(header, rows, id_column, out_of, scores, points_row=None, names=None):
    """Fill one column per assignment (the column named ``names[assignment]`` or the assignment, with
    Canvas's " (id)" after it or not), adding it where there is none; return {assignment: column}."""
    columns = {}
    for name in out_of:
        lms_name = (names or {}).get(name, name)
        named = [i for i, h in enumerate(header) if re.sub(r"\s*\(\d+\)$", "", h).strip() == lms_name]
        if named:
            columns[name] = named[0]
        else:
            header.append(lms_name)
            for row in rows:
                row.append("")
            if points_row is not None:
                points_row.append("")
            columns[name] = len(header) - 1
    for name, column in columns.items():
        if points_row is not None:
            points_row[column] = number(out_of[name])
        for row in rows:
            score = scores.get(name, {}).get(row[id_column].strip())
            if score is not None:
                row[column] = number(score)
    return columns


def write_atomically(path, rows):
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def missing_lines(lms, lms_ids, students, scores):
    """The report's lines: students in the LMS without a submission, submitted students not in the LMS."""
    lines = []
    for name, by_student in scores.items():
        absent = sorted(lms_ids - set(by_student))
        lines.append(f"{lms} {name}: no submission in nbgrader (cell left as it was): "
                     f"{', '.join(absent) if absent else 'none'}")
    unknown = sorted({s for by_student in scores.values() for s in by_student} - lms_ids)
    lines.append(f"{lms}: submitted in nbgrader but not in the {lms} file (not exported there): "
                 f"{', '.join(unknown) if unknown else 'none'}")
    return lines


def canvas(path, out_of, scores, names=None):
    """(rows of the filled Canvas gradebook, report lines)."""
    what = "Canvas gradebook"
    rows = read_table(path, what)
    header = rows[0]
    missing = [c for c in CANVAS_FIXED if c not in header]
    if missing:
        raise LMSFileError(f"{what} {path}: no column {', '.join(repr(m) for m in missing)}; the header is "
                           f"{header[:6]}: export it from Canvas's Gradebook (Export, CSV)")
    points = [i for i, r in enumerate(rows[1:], start=1) if r[0].strip() == POINTS_POSSIBLE]
    if not points:
        raise LMSFileError(f"{what} {path}: no {POINTS_POSSIBLE!r} row under the header")
    login = header.index("SIS Login ID")
    first_student = points[0] + 1
    while first_student < len(rows) and not rows[first_student][login].strip() and rows[first_student][0].strip() \
            in ("", "Manual Posting"):  # Canvas's rows of settings between the points and the students
        first_student += 1
    students = rows[first_student:]
    ids = unique_ids(students, login, path, what, first_student + 1)
    fill(header, students, login, out_of, scores, rows[points[0]], names)
    return rows, missing_lines("Canvas", set(ids), students, scores)


def moodle(path, out_of, scores, gradebook, names=None):
    what = "Moodle grades"
    if path:
        rows = read_table(path, what)
        header = rows[0]
        if MOODLE_ID not in header:
            raise LMSFileError(f"{what} {path}: no column {MOODLE_ID!r}; export the grades from Moodle (Grade "
                               "administration, Export, Plain text file) with the users' ID numbers")
        students = rows[1:]
        ids = unique_ids(students, header.index(MOODLE_ID), path, what, 2)
        fill(header, students, header.index(MOODLE_ID), out_of, scores, names=names)
        return rows, missing_lines("Moodle", set(ids), students, scores)
    header = ["First name", "Last name", MOODLE_ID, "Email address"]
    students = [[s.first_name or "", s.last_name or "", s.id, s.email or ""] for s in gradebook.students]
    fill(header, students, 2, out_of, scores, names=names)
    lines = [f"Moodle: one row per student of the gradebook ({len(students)}); without --LMSExport.moodle "
             "the students Moodle has and nbgrader lacks cannot be listed"]
    lines += [line for line in missing_lines("Moodle", {s.id for s in gradebook.students}, students, scores)
              if "no submission" in line]
    return [header] + students, lines


class LMSExport(CsvExportPlugin):
    """nbgrader's CSV export (grades.csv), then the LMS files (this module's docstring)."""

    canvas = Unicode("", help="A gradebook CSV exported from Canvas, to fill (canvas_grades.csv)").tag(config=True)
    moodle = Unicode("", help="A grades CSV exported from Moodle, to fill (else one row per student)").tag(config=True)
    names = Dict({}, help="The LMS's name of an assignment, where it is not the nbgrader name: "
                        "{'level23_speculative_decoding': 'Level 23'}").tag(config=True)
    out_dir = Unicode("", help="Where the LMS files go (default: beside grades.csv)").tag(config=True)

    def export(self, gradebook):
        out_of, scores, notes = lms_scores(gradebook)
        # Every LMS file is read and checked before anything is written: a bad one stops the export whole.
        try:
            canvas_rows, canvas_lines = canvas(self.canvas, out_of, scores, self.names) if self.canvas else (None, [])
            moodle_rows, moodle_lines = moodle(self.moodle, out_of, scores, gradebook, self.names)
        except LMSFileError as e:
            self.log.error("%s. Nothing was written (grades.csv and the LMS files are as they were).", e)
            raise SystemExit(2) from None
        super().export(gradebook)
        out = Path(self.out_dir or Path(self.to or "grades.csv").resolve().parent)
        if canvas_rows is not None:
            write_atomically(out / "canvas_grades.csv", canvas_rows)
            self.log.info("Canvas gradebook filled from %s: %s", self.canvas, out / "canvas_grades.csv")
        write_atomically(out / "moodle_grades.csv", moodle_rows)
        self.log.info("Moodle grade import: %s", out / "moodle_grades.csv")
        report = notes + canvas_lines + moodle_lines
        (out / "lms_report.txt").write_text("\n".join(report) + "\n", encoding="utf-8")
        for line in report:
            (self.log.info if line.endswith(": none") else self.log.warning)(line)
