"""Rebuild tests/golden_grades.json (Level 23's catalogued answers and demo class, graded in-process by the real
checks) and print every grade that changed. The attack and hub tests compare honest students' grades with it.

    python benchmarks/regrade_golden.py          # print the changes
    python benchmarks/regrade_golden.py --write  # and write the file
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import nbformat  # noqa: E402

from grading import ASSIGNMENT, ROOT, demo  # noqa: E402
from grading.build import catalogue  # noqa: E402
from grading.judge import diagnosis  # noqa: E402

GOLDEN = ROOT / "tests" / "golden_grades.json"
STUB = 'def verify_draft(draft_probs, target_probs, draft_tokens):\n    raise NotImplementedError()\n'


def points(notebook):
    nb = nbformat.read(ROOT / "source" / ASSIGNMENT / f"{notebook}.ipynb", as_version=4)
    return {c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"]["points"]) for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade") and not c.metadata["nbgrader"].get("solution")}


def grades(code, notebook):
    judge = diagnosis.judge_of(code, notebook, ROOT / "source" / ASSIGNMENT)
    return {g: 0.0 if g in judge.failed else p for g, p in points(notebook).items()}


def build():
    answers = {(a.notebook, a.name): a for a in catalogue.load(assignment=ASSIGNMENT)}
    table = {}
    for (notebook, name), a in answers.items():
        student = a.student
        table.setdefault(student, {})
        for nb in ("01_accept_branch", "02_reject_and_break"):
            table[student][nb] = grades(a.code if nb == notebook else STUB, nb)
    for student, picks in demo.CLASSES[ASSIGNMENT].items():
        table["demo-" + student] = {nb: grades(answers[nb, name].code, nb)
                                    for nb, name in zip(("01_accept_branch", "02_reject_and_break"), picks)}
    return table


def main(argv):
    old = json.loads(GOLDEN.read_text())
    made = build()
    # the students the file pins (the attack tests' honest baselines and the demo class); the visible tests did not
    # change with the hidden checks, so their pinned grades are kept as the real grader gave them
    new = {s: {nb: {g: (old[s][nb][g] if g.startswith("test_visible") and g in old[s].get(nb, {}) else v)
                    for g, v in made[s][nb].items()} for nb in made[s]} for s in old if s in made}
    for student in sorted(set(old) | set(new)):
        for nb in sorted(set(old.get(student, {})) | set(new.get(student, {}))):
            a, b = old.get(student, {}).get(nb, {}), new.get(student, {}).get(nb, {})
            changed = {g: (a.get(g), b.get(g)) for g in sorted(set(a) | set(b)) if a.get(g) != b.get(g)}
            if changed:
                print(f"{student} {nb}: {sum(a.values()):g} -> {sum(b.values()):g}  " +
                      ", ".join(f"{g} {x}->{y}" for g, (x, y) in changed.items()))
    if "--write" in argv:
        GOLDEN.write_text(json.dumps(new, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
