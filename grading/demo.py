"""`make demo`: the whole grading job on the bundled example class.

Regenerates release/ from source/, writes the example submissions into
submitted/, then runs the real nbgrader: autograde, generate_feedback and
export. Prints the score table; feedback/ and grades.csv are left for you.
"""

import shutil
import sys
import time

from grading import ASSIGNMENT, NOTEBOOKS, ROOT
from grading import catalogue, pipeline

# Each example student picks one catalogue answer per notebook.
CLASS = {
    "ada": ("correct_for_enumerate", "correct_for_enumerate"),
    "ben": ("correct_for_enumerate", "continue_not_break"),
    "cy": ("strict_greater", "draw_every_position"),
    "dee": ("appends_position", "correct_while_loop"),
}


def build_class(submitted, release_dir=None, prefix=""):
    """Write the example class's submissions (student ids get ``prefix``) into ``submitted``."""
    answers = {(a.notebook, a.name): a for a in catalogue.load()}
    for student, picks in CLASS.items():
        for notebook, name in zip(NOTEBOOKS, picks):
            catalogue.write_submission(submitted, prefix + student, notebook, answers[notebook, name].code,
                                       release_dir)


def score_table(totals):
    widths = [8] + [len(nb) + 2 for nb in NOTEBOOKS] + [10]
    head = ["student", *NOTEBOOKS, "total"]
    lines = ["".join(h.ljust(w) for h, w in zip(head, widths))]
    for student in sorted(totals):
        row = [student]
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
    ap.add_argument("--cold-kernels", action="store_true", help="start each kernel as a new process, not forked")
    args = ap.parse_args(argv)
    grade.kernels(args.cold_kernels)
    if not grade.sandbox_ready(args.unsafe_no_sandbox):
        return 2
    started = time.time()
    for stale in ("submitted", "feedback"):
        shutil.rmtree(ROOT / stale, ignore_errors=True)
    for path in (ROOT / "autograded").glob("*"):
        if path.is_dir():
            shutil.rmtree(path)
    (ROOT / "gradebook.db").unlink(missing_ok=True)

    print("1/5 nbgrader generate_assignment: release/ from source/")
    pipeline.nbgrader(ROOT, "generate_assignment", ASSIGNMENT, "--force")
    print(f"2/5 example submissions: {len(CLASS)} students in submitted/")
    build_class(ROOT / "submitted")
    print("3/5 nbgrader autograde")
    t0 = time.time()
    pipeline.nbgrader(ROOT, "autograde", ASSIGNMENT, "--force")
    per_student = (time.time() - t0) / len(CLASS)
    print("4/5 nbgrader generate_feedback")
    pipeline.nbgrader(ROOT, "generate_feedback", ASSIGNMENT, "--force")
    print("5/5 nbgrader export -> grades.csv")
    pipeline.nbgrader(ROOT, "export")

    print("\nScores (autograded by nbgrader):\n")
    print(score_table(pipeline.totals(pipeline.scores(ROOT))))
    from grading import report
    page = report.write(ROOT)
    print("\nMost failed checks:")
    print("\n".join("  " + line for line in report.summary(ROOT)))
    print(f"\nFeedback: feedback/<student>/{ASSIGNMENT}/*.html   Grades: grades.csv   Class report: {page.relative_to(ROOT)}")
    print(f"Autograde: {per_student:.1f} s per student (2 notebooks each). Whole demo: {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
