"""Grade a folder of answers kept apart from answers/ (``# intent: right`` or ``# intent: wrong: ...`` on the
first line), in-process with the real checks, and print each one's marks and diagnosis, then the counts.

    python benchmarks/heldout.py /work/wt/notes/indep
"""

import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import mutants  # noqa: E402


def main(folder):
    counts = collections.defaultdict(collections.Counter)
    for assignment, notebooks in mutants.NOTEBOOKS.items():
        for notebook in notebooks:
            for path in sorted((Path(folder) / assignment / notebook).glob("*.py")):
                code = path.read_text()
                right = code.splitlines()[0].strip() == "# intent: right"
                judge, line = mutants.grade(code, assignment, notebook)
                c = counts[assignment]
                if right:
                    c["right"] += 1
                    c["right, full marks"] += not judge.failed
                    c["right, told none"] += line.startswith("Diagnosis: " + mutants.diagnosis_none())
                else:
                    c["wrong"] += 1
                    c["wrong, lost points"] += bool(judge.failed)
                    kind = mutants.classify(judge, line, None) if judge.failed else "missed"
                    c[f"wrong, {kind}"] += 1
                print(f"{notebook[:2]} {path.name}: lost {judge.failed}\n    {line.strip()}")
    for assignment, c in counts.items():
        print(assignment, dict(c))


if __name__ == "__main__":
    main(sys.argv[1])
