"""The grader's own memory is bounded when a student floods output or submits a huge notebook (issue 41).

The real `nbgrader autograde` CLI grades, one student each, an honest student and two attacks in notebook 02:
a cell that writes 1.7 MB output messages for 8 s, and an answer whose first call by a hidden check writes 650
messages of 1.5 MB to IOPub while the grader waits for the check's reply. The grader process's own peak memory
(ru_maxrss of the nbgrader process, not of its kernels; for feedback, of the nbgrader process or of a page's
child process, whichever is larger) stays within BOUND_MB of the honest student's, every one
scores full marks, and the flooded cell says how much was dropped. Before the caps the first attack held the
grader at 5.0 GB for 609 s, the second at 491 MB (the honest student: 294 MB).

The first attack is made on Level 24's first notebook too, against an honest Level 24 student's peak.

Three more students submit notebooks too large to show (item 2): a 3.2 MB answer cell, a 12 MB markdown attachment
and 40,000 markdown cells. Autograde and `nbgrader generate_feedback` each stay within BOUND_MB of the honest
student's peak, the notebook is cut with a note on top saying what was cut, and the answer still scores full marks.
Before: the big cell's feedback took 1,117 MB and 31 s for a 14 MB page; the attachment made a 12 MB autograded
notebook.
"""
import json

import subprocess
import sys

import pytest

from grading import ASSIGNMENT, pipeline
from grading.build import catalogue

NB2 = "02_reject_and_break"
L24, NB24 = "level24_residual_and_bonus", "01_correction_token"
BOUND_MB = 200  # over the honest student's peak
PEAK = ("import atexit, resource, sys\n"
        "who = [resource.RUSAGE_SELF] + ([resource.RUSAGE_CHILDREN] if sys.argv[1] == 'generate_feedback' else [])\n"
        "atexit.register(lambda: sys.stderr.write('PEAK_KB %d\\n' % max(resource.getrusage(w).ru_maxrss for w in who)))\n"
        "from nbgrader.apps.nbgraderapp import main\n"
        "sys.argv = ['nbgrader'] + sys.argv[1:]\n"
        "main()\n")
FLOOD_CELL = """
import sys, time
_chunk = "y" * 1_700_000
_end = time.time() + 8
while time.time() < _end:
    sys.stdout.write(_chunk)
    sys.stdout.flush()
"""
FLOOD_CHECK = """
import sys
_flooded = []
_plain = verify_draft
def verify_draft(draft_probs, target_probs, draft_tokens):
    if not _flooded:  # the first check the grader runs: 650 messages of 1.5 MB on IOPub while it waits
        _flooded.append(1)
        for _ in range(650):
            sys.stdout.write("z" * 1_500_000)
            sys.stdout.flush()
    return _plain(draft_probs, target_probs, draft_tokens)
"""
ATTACKS = {"flood-cell": FLOOD_CELL, "flood-check": FLOOD_CHECK}
# 3.2 MB of comments: valid and boring, and quick for the kernel (110,000 assignments take it 4-12 s to run, the
# student's own time, charged to their cell's timeout): what is tested here is the grader's cost of showing it.
BIG_CELL = "".join(f"# a boring comment line number {i:07d}, nothing more\n" for i in range(60_000))


def attachment(nb):
    import base64
    import os

    blob = base64.b64encode(os.urandom(9_000_000)).decode()  # 12 MB of base64
    nb["cells"].insert(1, {"cell_type": "markdown", "id": "att1", "metadata": {}, "source": "![x](attachment:x.png)",
                           "attachments": {"x.png": {"image/png": blob}}})


def many_cells(nb):
    nb["cells"][1:1] = [{"cell_type": "markdown", "id": f"m{i}", "metadata": {}, "source": f"*note {i}*"}
                        for i in range(40_000)]


LARGE = {"big-cell": None, "attachment": attachment, "many-cells": many_cells}


def peak_mb(course, student, command="autograde", assignment=ASSIGNMENT):
    proc = subprocess.run([sys.executable, "-c", PEAK, command, assignment, "--student", student],
                          cwd=course, env=pipeline.env(), text=True, capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return int(proc.stderr.rsplit("PEAK_KB ", 1)[1].split()[0]) / 1024


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = pipeline.make_course(tmp_path_factory.mktemp("memory"))
    pipeline.nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    right = catalogue.parse(catalogue.answers_dir() / NB2 / "correct_while_loop.py").code
    release = course / "release" / ASSIGNMENT
    catalogue.write_submission(course / "submitted", "honest", NB2, right, release)
    for student, attack in ATTACKS.items():
        catalogue.write_submission(course / "submitted", student, NB2, right + "\n\n" + attack, release)
    for student, edit in LARGE.items():
        path = catalogue.write_submission(course / "submitted", student, NB2,
                                          right + ("\n\n" + BIG_CELL if edit is None else ""), release)
        if edit:
            nb = json.loads(path.read_text())
            edit(nb)
            path.write_text(json.dumps(nb))
    peaks = {student: peak_mb(course, student) for student in ["honest", *ATTACKS, *LARGE]}
    # The same output flood on Level 24 (its first notebook), against an honest Level 24 student's peak.
    pipeline.nbgrader(course, "generate_assignment", L24, "--force")
    right24 = catalogue.parse(catalogue.answers_dir(L24) / NB24 / "correct_where.py", L24).code
    for student, code in (("honest-24", right24), ("flood-cell-24", right24 + "\n\n" + FLOOD_CELL)):
        catalogue.write_submission(course / "submitted", student, NB24, code, course / "release" / L24, L24)
        peaks[student] = peak_mb(course, student, assignment=L24)
    for student in ["honest", *LARGE]:
        peaks[student, "feedback"] = peak_mb(course, student, "generate_feedback")
    return course, peaks


@pytest.mark.parametrize("student", sorted(ATTACKS))
def test_a_flood_leaves_the_grader_within_its_bound_and_the_student_graded(graded, student):
    course, peaks = graded
    assert peaks[student] < peaks["honest"] + BOUND_MB, peaks
    scores = pipeline.scores(course)
    for who in ("honest", student):
        assert sum(score for score, _ in scores[who][NB2].values()) == 20, scores[who]


def test_a_flood_in_level_24_leaves_the_grader_within_its_bound_and_the_student_graded(graded):
    import nbformat

    course, peaks = graded
    assert peaks["flood-cell-24"] < peaks["honest-24"] + BOUND_MB, peaks
    scores = pipeline.scores(course, assignment=L24)
    full = sum(points for _, points in scores["honest-24"][NB24].values())
    for who in ("honest-24", "flood-cell-24"):
        assert sum(score for score, _ in scores[who][NB24].values()) == full > 0, scores[who]
    nb = nbformat.read(course / "autograded" / "flood-cell-24" / L24 / f"{NB24}.ipynb", as_version=4)
    assert any("dropped by the grader" in o.get("data", {}).get("text/plain", "") for c in nb.cells
               for o in c.get("outputs", []) if o.get("output_type") == "display_data")


def test_the_flooded_cell_says_what_was_dropped(graded):
    import nbformat

    course, _ = graded
    nb = nbformat.read(course / "autograded" / "flood-cell" / ASSIGNMENT / f"{NB2}.ipynb", as_version=4)
    notes = [o["data"]["text/plain"] for c in nb.cells for o in c.get("outputs", [])
             if o.get("output_type") == "display_data" and "dropped by the grader" in o.get("data", {}).get("text/plain", "")]
    assert len(notes) == 1 and "more output messages of this cell" in notes[0], notes


@pytest.mark.parametrize("student", sorted(LARGE))
def test_a_huge_notebook_is_cut_before_it_is_shown(graded, student):
    import nbformat

    course, peaks = graded
    assert peaks[student] < peaks["honest"] + BOUND_MB, peaks
    assert peaks[student, "feedback"] < peaks["honest", "feedback"] + BOUND_MB, peaks
    assert sum(score for score, _ in pipeline.scores(course)[student][NB2].values()) == 20
    autograded = course / "autograded" / student / ASSIGNMENT / f"{NB2}.ipynb"
    assert autograded.stat().st_size < 2_000_000
    first = nbformat.read(autograded, as_version=4).cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("**The grader cut this notebook"), first.source
    page = (course / "feedback" / student / ASSIGNMENT / f"{NB2}.html").read_text()
    assert "The grader cut this notebook" in page and len(page) < 3_000_000



def test_code_past_the_highlighting_budget_is_plain_escaped_text(graded):
    """Item 2: past PageExporter.highlight_chars of code on a page (here 1,000), each further cell is shown as
    plain escaped text, not highlighted; the page is still made."""
    course, _ = graded
    pipeline.nbgrader(course, "generate_feedback", ASSIGNMENT, "--student", "honest", "--force",
                      "--PageExporter.highlight_chars=1000")
    page = (course / "feedback" / "honest" / ASSIGNMENT / f"{NB2}.html").read_text()
    plain = page.count('<div class="highlight"><pre>')
    assert plain > 10 and "accepted_tokens" in page, plain


def test_a_worker_confined_to_its_cgroup_is_stopped_at_its_limit_not_the_host():
    """Item 4: confine_worker puts the grading process into a cgroup of its own; past its memory it is ended."""
    from grading.sandbox import cgroups

    if cgroups.setup() is None:
        pytest.skip(f"no cgroup can be made here: {cgroups.why_not()}")
    code = ("from grading.sandbox import cgroups\n"
            "print(cgroups.confine_worker(200 * 2**20), flush=True)\n"
            "blob = bytearray(400 * 2**20)\n"
            "print('not stopped', flush=True)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=pipeline.ROOT if hasattr(pipeline, "ROOT") else None,
                          env=pipeline.env(), text=True, capture_output=True, timeout=120)
    assert "limited to 0.195312 GiB by cgroup" in proc.stdout and "not stopped" not in proc.stdout, proc.stdout
    assert proc.returncode == -9
    cgroups.remove_stale()


def test_the_class_report_names_every_notebook_cut(graded):
    """Item 3: the class report (make grade's) names each notebook cut before it was shown, and what was cut."""
    from grading import grade, report

    course, _ = graded
    cut = grade.cut_notebooks(course)
    assert {key.split("/")[0] for key in cut} >= set(LARGE), cut
    assert "honest/" + ASSIGNMENT + "/" + NB2 not in cut
    assert "40,047 cells" in cut[f"many-cells/{ASSIGNMENT}/{NB2}"]
    page = report.write(course, None, {}, cut).read_text()
    assert "Notebooks cut before they were shown" in page and f"big-cell/{ASSIGNMENT}/{NB2}" in page
