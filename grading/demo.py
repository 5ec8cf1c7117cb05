"""`make demo`: the whole grading job on the bundled example class, for every assignment.

Regenerates release/ from source/, writes the example submissions into
submitted/, then runs the real nbgrader: autograde and generate_feedback per
assignment, and one export. Prints the score tables; feedback/ and grades.csv
are left for you.

The class is mixed: most Level 23 students do the English edition, two do the
Chinese one (level23_speculative_decoding_zh) with the same mistakes as two
English students, and get the same scores; four students have reached Level 24,
two of them in its Chinese edition (level24_residual_and_bonus_zh).
"""

import shutil
import sys
import time
from pathlib import Path

from grading import ASSIGNMENT, ASSIGNMENTS, NOTEBOOKS, ROOT, language, template
from grading import pipeline
from grading.build import catalogue

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
# The students who have reached Level 24 (two of them).
CLASS_LEVEL24 = {
    "ada": ("correct_clamp", "correct_for_enumerate", "correct_crop_accepted"),
    "eve": ("residual_from_p", "no_bonus", "no_rollback"),
}
# The students of Level 24's Chinese edition: lan makes ada's choices, mei makes eve's mistakes.
CLASS_LEVEL24_ZH = {
    "lan": ("correct_clamp", "correct_for_enumerate", "correct_crop_accepted"),
    "mei": ("residual_from_p", "no_bonus", "no_rollback"),
}
CLASSES = {ASSIGNMENT: CLASS, "level23_speculative_decoding_zh": CLASS_ZH, "level24_residual_and_bonus": CLASS_LEVEL24,
           "level24_residual_and_bonus_zh": CLASS_LEVEL24_ZH}
ROSTER = CLASSES  # every assignment and edition, with its students


def build_class(submitted, release_dir=None, prefix="", assignment=ASSIGNMENT, release_root=None):
    """Write the example class's submissions to ``assignment`` (student ids get ``prefix``) into ``submitted``.

    ``release_dir`` is the assignment's release folder (default: release/<assignment>), or give
    ``release_root`` (a course's release/) to have each assignment's folder found there. A translated
    edition's students pick from its template's catalogue.
    """
    if release_root is not None:
        release_dir = Path(release_root) / assignment
    answers = {(a.notebook, a.name): a for a in catalogue.load(assignment=template(assignment))}
    for student, picks in CLASSES[assignment].items():
        for notebook, name in zip(ASSIGNMENTS[assignment], picks):
            catalogue.write_submission(submitted, prefix + student, notebook, answers[notebook, name].code,
                                       release_dir, assignment)


def score_table(totals, notebooks=NOTEBOOKS, editions=None):
    """The score table; ``editions`` ({student: language}) adds an edition column."""
    widths = [8] + ([9] if editions else []) + [len(nb) + 2 for nb in notebooks] + [10]
    head = ["student", *(["edition"] if editions else []), *notebooks, "total"]
    lines = ["".join(h.ljust(w) for h, w in zip(head, widths))]
    for student in sorted(totals):
        row = [student] + ([editions[student]] if editions else [])
        got = want = 0
        for nb in notebooks:
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
    for name in ("gradebook.db", "gradebook.db-wal", "gradebook.db-shm"):  # with SQLite's write-ahead log (grading/plugins/speedups.py)
        (ROOT / name).unlink(missing_ok=True)

    timing = []
    for assignment in ASSIGNMENTS:
        students = CLASSES[assignment]
        print(f"{assignment} ({language(assignment)}):")
        print("  1/4 nbgrader generate_assignment: release/ from source/")
        pipeline.nbgrader(ROOT, "generate_assignment", assignment, "--force")
        print(f"  2/4 example submissions: {len(students)} students in submitted/")
        build_class(ROOT / "submitted", assignment=assignment)
        print("  3/4 nbgrader autograde")
        t0 = time.time()
        pipeline.nbgrader(ROOT, "autograde", assignment, "--force")
        timing.append(f"{assignment}: {(time.time() - t0) / len(students):.1f} s per student "
                      f"({len(ASSIGNMENTS[assignment])} notebooks each)")
        print("  4/4 nbgrader generate_feedback")
        pipeline.nbgrader(ROOT, "generate_feedback", assignment, "--force")
    print("nbgrader export -> grades.csv")
    pipeline.nbgrader(ROOT, "export")

    # One table per assignment, its translated editions' students in it with an edition column.
    for base in (a for a in ASSIGNMENTS if template(a) == a):
        editions = [a for a in ASSIGNMENTS if template(a) == base]
        tables = {a: pipeline.scores(ROOT, assignment=a) for a in editions}
        merged = {s: nbs for table in tables.values() for s, nbs in table.items()}
        languages = {s: language(a) for a, table in tables.items() for s in table} if len(editions) > 1 else None
        print(f"\nScores of {base}{' (every edition)' if languages else ''} (autograded by nbgrader):\n")
        print(score_table(pipeline.totals(merged), ASSIGNMENTS[base], languages))
    from grading import report
    page = report.write(ROOT)
    print("\nMost failed checks:")
    print("\n".join("  " + line for line in report.summary(ROOT)))
    print(f"\nFeedback: feedback/<student>/<assignment>/*.html   Grades: grades.csv   Class report: {page.relative_to(ROOT)}")
    print("Autograde: " + "; ".join(timing) + f". Whole demo: {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
