"""`make demo`: the whole grading job on the bundled example class.

Regenerates release/ from source/, writes the example submissions into
submitted/, then runs the real nbgrader: autograde, generate_feedback and
export. Prints the score table; feedback/ and grades.csv are left for you.

The class is mixed: most students do the English edition, two do the Chinese
one (level23_speculative_decoding_zh) with the same mistakes as two English
students, and get the same scores.
"""

import shutil
import sys
import time

from grading import ASSIGNMENT, ASSIGNMENTS, NOTEBOOKS, ROOT, language
from grading import catalogue, pipeline

# Each example student picks one catalogue answer per notebook.
CLASS = {
    "ada": ("correct_for_enumerate", "correct_for_enumerate"),
    "ben": ("correct_for_enumerate", "continue_not_break"),
    "cy": ("strict_greater", "draw_every_position"),
    "dee": ("appends_position", "correct_while_loop"),
}
# The students of the Chinese edition: lan makes ben's mistakes, mei makes cy's.
CLASS_ZH = {
    "lan": ("correct_for_enumerate", "continue_not_break"),
    "mei": ("strict_greater", "draw_every_position"),
}
ROSTER = {ASSIGNMENT: CLASS, "level23_speculative_decoding_zh": CLASS_ZH}


def build_class(submitted, release_dir=None, prefix="", assignment=ASSIGNMENT):
    """Write the example class's submissions to ``assignment`` (student ids get ``prefix``) into ``submitted``."""
    answers = {(a.notebook, a.name): a for a in catalogue.load()}
    for student, picks in ROSTER[assignment].items():
        for notebook, name in zip(ASSIGNMENTS[assignment], picks):
            catalogue.write_submission(submitted, prefix + student, notebook, answers[notebook, name].code,
                                       release_dir, assignment)


def score_table(totals, editions=None):
    """The score table; ``editions`` ({student: language}) adds an edition column."""
    widths = [8] + ([9] if editions else []) + [len(nb) + 2 for nb in NOTEBOOKS] + [10]
    head = ["student", *(["edition"] if editions else []), *NOTEBOOKS, "total"]
    lines = ["".join(h.ljust(w) for h, w in zip(head, widths))]
    for student in sorted(totals):
        row = [student] + ([editions[student]] if editions else [])
        got = want = 0
        for nb in NOTEBOOKS:
            score, out_of = totals[student].get(nb, (0.0, 0.0))
            got, want = got + score, want + out_of
            row.append(f"{score:g} / {out_of:g}")
        row.append(f"{got:g} / {want:g}")
        lines.append("".join(c.ljust(w) for c, w in zip(row, widths)))
    return "\n".join(lines)


def main(argv=None):
    import argparse

    from grading import grade

    ap = argparse.ArgumentParser(description="Grade the example class")
    ap.add_argument("--unsafe-no-sandbox", action="store_true", help="run student code without the sandbox")
    args = ap.parse_args(argv)
    if not grade.sandbox_ready(args.unsafe_no_sandbox):
        return 2
    started = time.time()
    for stale in ("submitted", "feedback"):
        shutil.rmtree(ROOT / stale, ignore_errors=True)
    for path in (ROOT / "autograded").glob("*"):
        if path.is_dir():
            shutil.rmtree(path)
    (ROOT / "gradebook.db").unlink(missing_ok=True)

    editions = ", ".join(ROSTER)
    students = sum(len(c) for c in ROSTER.values())
    print(f"1/5 nbgrader generate_assignment: release/ from source/ ({editions})")
    for assignment in ROSTER:
        pipeline.nbgrader(ROOT, "generate_assignment", assignment, "--force")
    print(f"2/5 example submissions: {students} students in submitted/, "
          + ", ".join(f"{len(c)} in {language(a)}" for a, c in ROSTER.items()))
    for assignment in ROSTER:
        build_class(ROOT / "submitted", assignment=assignment)
    print("3/5 nbgrader autograde")
    t0 = time.time()
    for assignment in ROSTER:
        pipeline.nbgrader(ROOT, "autograde", assignment, "--force")
    per_student = (time.time() - t0) / students
    print("4/5 nbgrader generate_feedback")
    for assignment in ROSTER:
        pipeline.nbgrader(ROOT, "generate_feedback", assignment, "--force")
    print("5/5 nbgrader export -> grades.csv")
    pipeline.nbgrader(ROOT, "export")

    print("\nScores (autograded by nbgrader):\n")
    tables = pipeline.class_scores(ROOT)
    merged = {s: nbs for table in tables.values() for s, nbs in table.items()}
    print(score_table(pipeline.totals(merged), {s: language(a) for a, t in tables.items() for s in t}))
    from grading import report
    page = report.write(ROOT)
    print("\nMost failed checks:")
    print("\n".join("  " + line for line in report.summary(ROOT)))
    print(f"\nFeedback: feedback/<student>/<assignment>/*.html   Grades: grades.csv   Class report: {page.relative_to(ROOT)}")
    print(f"Autograde: {per_student:.1f} s per student (2 notebooks each). Whole demo: {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
