"""`make export`: grades.csv plus a filled Canvas gradebook and a Moodle import CSV, run by the real
`nbgrader export --exporter=grading.plugins.export.LMSExport` on the graded course (no new grading run)."""

import csv
import io
import shutil

import pytest

from grading import ASSIGNMENT, pipeline

EXPORTER = "--exporter=grading.plugins.export.LMSExport"
LEVEL23_MAX = 36


def canvas_file(path, logins):
    """A gradebook as Canvas exports it: the five fixed columns, 'Name (id)' per assignment, read-only scores,
    the Points Possible row; the last login is a Canvas student who submitted nothing."""
    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Level 23 (4711)", "Quiz 0 (4700)",
             "Current Score", "Final Score"],
            ["    Points Possible", "", "", "", "", "36.00", "5.00", "(read only)", "(read only)"]]
    rows += [[f"Student, {login}", str(100 + n), f"s{n}", login, "Sec A", "", "4", "", ""]
             for n, login in enumerate(logins)]
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows(rows)
    return path


def export(course, *args):
    return pipeline.nbgrader(course, "export", EXPORTER, "--LMSExport.names={'%s': 'Level 23'}" % ASSIGNMENT, *args,
                             check=False)


def grades_csv(course):
    return {(r["assignment"], r["student_id"]): float(r["score"]) for r in csv.DictReader(open(course / "grades.csv"))}


@pytest.fixture(scope="module")
def exported(graded_course, tmp_path_factory):
    course = graded_course.root
    students = sorted(graded_course.tables[ASSIGNMENT])
    logins = students[:5] + ["no-submission-student"]
    canvas_in = canvas_file(tmp_path_factory.mktemp("lms") / "canvas_export.csv", logins)
    proc = export(course, f"--LMSExport.canvas={canvas_in}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return course, students, logins, canvas_in, proc.stderr


def test_canvas_gradebook_is_filled_with_its_own_columns_kept(exported):
    course, students, logins, canvas_in, _ = exported
    before = list(csv.reader(open(canvas_in)))
    after = list(csv.reader(open(course / "canvas_grades.csv")))
    assert after[0][:len(before[0])] == before[0]  # Canvas's columns, in its order
    level23 = after[0].index("Level 23 (4711)")
    assert after[1][level23] == f"{LEVEL23_MAX}"  # the Points Possible row
    quiz = after[0].index("Quiz 0 (4700)")
    scores = grades_csv(course)
    for row in after[2:]:
        assert row[quiz] == "4"  # another assignment's grades are Canvas's own
        login = row[3]
        if login == "no-submission-student":
            assert row[level23] == ""
        else:
            assert float(row[level23]) == scores[ASSIGNMENT, login]  # after the late penalty, as grades.csv
    assert len(after) == len(before)


def test_missing_students_are_listed_on_both_sides(exported):
    course, students, logins, _, log = exported
    report = (course / "lms_report.txt").read_text()
    assert f"Canvas {ASSIGNMENT}: no submission in nbgrader (cell left as it was): no-submission-student" in report
    line = next(l for l in report.splitlines() if l.startswith("Canvas: submitted in nbgrader but not in"))
    for student in students[5:8]:
        assert student in line.rsplit(": ", 1)[1].split(", ")  # the names follow the last colon
    assert "no-submission-student" in log


def test_moodle_import_has_every_student_with_the_gradebook_score(exported):
    course, students, *_ = exported
    rows = list(csv.DictReader(open(course / "moodle_grades.csv")))
    scores = grades_csv(course)
    by_id = {r["ID number"]: r for r in rows}
    assert set(students) <= set(by_id)
    for student in students:
        assert float(by_id[student]["Level 23"]) == scores[ASSIGNMENT, student]


def test_moodle_export_is_filled_and_its_extra_students_listed(exported, tmp_path):
    course, students, *_ = exported
    moodle_in = tmp_path / "moodle_export.csv"
    moodle_in.write_text("First name,Last name,ID number,Institution,Department,Email address,Level 23\n"
                         f"A,B,{students[0]},,,a@example.org,\nC,D,moodle-only,,,c@example.org,\n")
    proc = export(course, f"--LMSExport.moodle={moodle_in}", f"--LMSExport.out_dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = list(csv.DictReader(open(tmp_path / "moodle_grades.csv")))
    assert [r["ID number"] for r in rows] == [students[0], "moodle-only"]
    assert rows[0]["Level 23"] != "" and rows[1]["Level 23"] == ""
    report = (tmp_path / "lms_report.txt").read_text()
    assert "no submission in nbgrader (cell left as it was): moodle-only" in report
    assert students[1] in report


@pytest.mark.parametrize("content,says", [
    ("Student,ID,SIS User ID,Section,Level 23 (4711)\n    Points Possible,,,,34\n", "no column 'SIS Login ID'"),
    ("Student,ID,SIS User ID,SIS Login ID,Section,Level 23 (4711)\nA,1,s1,ada,S,\n", "no 'Points Possible' row"),
    ("Student,ID,SIS User ID,SIS Login ID,Section,Level 23 (4711)\n    Points Possible,,,,,34\nA,1,s1,ada,S\n",
     "row 3 has 5 columns, the header 6"),
    ("Student,ID,SIS User ID,SIS Login ID,Section\n    Points Possible,,,,\nA,1,s1,ada,S\nB,2,s2,ada,S\n",
     "rows 3 and 4 have the same id 'ada'"),
])
def test_a_malformed_canvas_file_gets_a_clear_error_and_loses_nothing(exported, tmp_path, content, says):
    course, *_ = exported
    bad = tmp_path / "canvas_export.csv"
    bad.write_text(content)
    kept = {name: (course / name).read_bytes() for name in ("grades.csv", "canvas_grades.csv", "moodle_grades.csv")}
    proc = export(course, f"--LMSExport.canvas={bad}")
    assert proc.returncode != 0
    assert says in proc.stderr and "Nothing was written" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert bad.read_text() == content
    assert {name: (course / name).read_bytes() for name in kept} == kept
