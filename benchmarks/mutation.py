"""The mutation benchmark: for both levels, AST mutants of the reference solutions (tests/mutants.py),
each graded in-process by the real checks; prints how many change behaviour, are caught (lose points),
get a named diagnosis, "cannot name", a wrong diagnosis or a false "none".

    python benchmarks/mutation.py            # the lesson's reference solutions
    python benchmarks/mutation.py --answers  # also every right answer of the catalogue
"""

import collections
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import mutants  # noqa: E402


def run(answers=False, out=sys.stdout, limit=None):
    table = {}
    for assignment, notebooks in mutants.NOTEBOOKS.items():
        counts = collections.Counter()
        for notebook in notebooks:
            for name, code in mutants.references(assignment, notebook, answers):
                baseline = mutants.grade(code, assignment, notebook)[0].trace
                for description, source in mutants.mutants(code)[:limit]:
                    judge, line = mutants.grade(source, assignment, notebook)
                    kind = mutants.classify(judge, line, baseline)
                    counts["mutants"] += 1
                    counts[kind] += 1
                    if kind in ("missed", "false none", "cannot name", "wrong (equivalent not none)"):
                        print(f"  {assignment[:7]} {notebook} {name} {description}: {kind}: {line.strip()}", file=out)
        table[assignment] = counts
    return table


COLUMNS = ("mutants", "behaviour-changing", "caught", "named", "cannot name", "wrong diagnosis", "false none",
           "missed", "equivalent")


def report(table):
    lines = ["| level | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for assignment, c in table.items():
        changing = c["mutants"] - c["equivalent"] - c["wrong (equivalent not none)"]
        caught = changing - c["missed"]
        row = [c["mutants"], changing, caught, c["named"], c["cannot name"], c["wrong (equivalent not none)"],
               c["false none"], c["missed"], c["equivalent"]]
        lines.append(f"| {assignment} | " + " | ".join(str(x) for x in row) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    started = time.time()
    print(report(run(answers="--answers" in sys.argv)))
    print(f"{time.time() - started:.0f} s")
