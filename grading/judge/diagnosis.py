"""The diagnosis line: which known mistake a submission's run shows.

When a notebook is graded, every test cell runs in the grader (grading/judge/verdicts.py) and each
call of the student's function comes back as plain data: tokens, draws, errors. Rules over that
record name the mistake (Level 23: grading/judge/rules23.py, Level 24: grading/judge/rules.py), and the
feedback says it in one line:

    Diagnosis: you draw r at every position, also where p >= q: draw only in the p < q branch

A right answer gets "Diagnosis: none". A run no rule fits is said to fit none, with the failed
checks named, rather than guessed at. The catalogue (answers/) is the rules' test set: this module
also builds grading/judge/diagnoses.json, the catalogued answers' sentences (Level 23's rules say their
mistakes in those words), and fails the build when two answers that behave alike are given
different sentences.

    python -m grading.judge.diagnosis           # rebuild grading/judge/diagnoses.json from answers/ and source/
    python -m grading.judge.diagnosis --check   # exit 1 if it is out of date (a test runs this)
"""

import contextlib
import hashlib
import json
import sys
from pathlib import Path

import nbformat

from grading import ASSIGNMENT, ASSIGNMENTS, ROOT, language, template

TABLE = Path(__file__).resolve().with_name("diagnoses.json")


def _frame(lang):
    from grading.judge import rules
    return rules.FRAME[lang]


def fingerprint(trace):
    return hashlib.sha256(json.dumps(trace, sort_keys=True).encode()).hexdigest()[:20]


def load():
    return json.loads(TABLE.read_text()) if TABLE.exists() else {}


def texts(assignment=ASSIGNMENT):
    """The diagnosis words of an edition: prefix, none, unknown, not_made, and (Level 23's catalogue lookup)
    {notebook: {answer: text}} for a translated edition (None for English)."""
    words = {k: v for k, v in _frame("en" if language(assignment) == "en" else "zh").items()
             if k in ("prefix", "none", "unknown", "not_made")}
    if language(assignment) == "en":
        return words, None
    from grading.build import notebooks as build

    return words, getattr(build.load_i18n(assignment), "DIAGNOSES", None)  # Level 24: none (rules.SENTENCES)


def level(assignment=ASSIGNMENT):
    return 24 if template(assignment).startswith("level24") else 23


def line(notebook, judge, table=None, assignment=ASSIGNMENT, outputs=None):
    """The diagnosis of the run ``judge`` just made, as one line starting with 'Diagnosis:' (in the
    edition's language). "none" only when every check passed; when no rule fits, the line says so and
    names the failed checks. Both levels' diagnoses are made of rules: Level 24's in grading/judge/rules.py,
    Level 23's models of its mistakes and what a run shows directly in grading/judge/rules23.py, whose sentences
    are the catalogued answers' own (read from ``table``, the built grading/judge/diagnoses.json, or the edition's
    DIAGNOSES) and grading/judge/rules.py's.

    ``outputs`` ({grade_id: a test cell's outputs}): each failed check whose failure the named mistake, replayed
    on its case, gives is told so there (grading/judge/causes.py)."""
    from grading.judge import causes

    judge.diagnosed = None
    text = _line(notebook, judge, table, assignment)
    if outputs is not None:
        causes.annotate(judge, outputs, notebook, level(assignment), "en" if language(assignment) == "en" else "zh")
        if level(assignment) == 23:
            from grading.judge import generated
            generated.attach(judge, outputs)
    return text


def _line(notebook, judge, table, assignment):
    from grading.judge import rules, rules23

    lang = "en" if language(assignment) == "en" else "zh"
    words = _frame(lang)
    if level(assignment) == 24 or judge.kernel_gone or not [c for c in judge.failed if c is not None]:
        text = rules.line(judge, level(assignment), lang)
        if level(assignment) == 24 and text.startswith(words["prefix"] + words["unknown"].split("{")[0]):
            from grading.judge import generated24
            from grading.judge.walk_text import WORDS
            smallest = generated24.summary(judge)  # no rule fits: lead with the smallest case it gets wrong
            if smallest is not None:
                return words["prefix"] + WORDS[lang]["unknown_case"].format(summary=smallest)
        return text
    from grading.judge import generated
    from grading.judge.walk_text import WORDS
    text = rules23.line_text(judge, notebook, assignment, table if table is not None else load())
    smallest = generated.summary(judge)
    if text is not None and smallest is not None and not (judge.diagnosed or {}).get("mistakes"):
        # no model names the mistake: what the run shows, then the smallest generated case it gets wrong
        end = "" if text.endswith((".", "。")) else "." if lang == "en" else "。"
        return words["prefix"] + text + end + WORDS[lang]["smallest"].format(summary=smallest)
    if text is not None:
        return words["prefix"] + text
    if smallest is not None:
        return words["prefix"] + WORDS[lang]["unknown_case"].format(summary=smallest)
    failed = ", ".join(dict.fromkeys(c for c in judge.failed if c is not None))
    return words["prefix"] + words["unknown"].format(checks=failed)


@contextlib.contextmanager
def _folder(notebook, source_dir):
    """(the names the student's code starts with, the notebook's cells). A notebook whose setup cell (grade_id
    "setup") imports its model helpers (spec_pair: notebook 03) gets what that cell makes, with the notebook's
    folder on sys.path and its own modules in sys.modules while the checks run, as in the kernel; afterwards
    sys.path, sys.modules, the thread count and the output are the grader's again."""
    import io

    import torch

    user_ns = {"torch": torch, "__name__": "__main__"}
    cells = nbformat.read(Path(source_dir) / f"{notebook}.ipynb", as_version=4).cells
    setup = [c.source for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == "setup"]
    if not (setup and "spec_pair" in setup[0]):
        yield user_ns, cells
        return
    own = {f.stem for f in Path(source_dir).glob("*.py")}
    saved_modules = {name: sys.modules.pop(name) for name in own if name in sys.modules}
    saved_path, threads = list(sys.path), torch.get_num_threads()
    sys.path.insert(0, str(source_dir))
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(setup[0], f"<setup of {notebook}>", "exec"), user_ns)
        yield user_ns, cells
    finally:
        for name in own:
            sys.modules.pop(name, None)
        sys.modules.update(saved_modules)
        sys.path[:] = saved_path
        torch.set_num_threads(threads)


def judge_of(code, notebook, source_dir, outputs=None):
    """The Judge after running the answer ``code`` through every test cell of ``notebook``, here (no kernel):
    the same checks nbgrader runs, with the same verdict code (grading/judge/verdicts.py). ``outputs``, a dict,
    gets each test cell's outputs by grade_id, with the cell's metadata: {grade_id: (nbgrader metadata, outputs)}."""
    from grading.sandbox.kernel_harness import answer, load_private
    from grading.judge.verdicts import Judge, is_test_cell

    helpers_path = Path(source_dir) / "spec_checks.py"
    helpers = load_private(helpers_path, "_diagnosis_helpers")
    with _folder(notebook, source_dir) as (user_ns, cells):
        try:
            exec(compile(code, f"<answer for {notebook}>", "exec"), user_ns)
        except Exception:
            pass  # a broken answer cell: its function is missing, and every check says so
        judge = Judge(helpers_path, lambda request: answer(helpers, user_ns, request))
        judge.solutions = [code]
        for cell in cells:
            if is_test_cell(cell):
                meta = cell.metadata.get("nbgrader", {})
                made = judge.outputs(cell.source, meta.get("grade_id"))
                if outputs is not None:
                    outputs[meta.get("grade_id")] = (meta, made)
    return judge


def trace_of(code, notebook, source_dir):
    """The behaviour of the answer ``code`` in the test cells of ``notebook``, run here."""
    return judge_of(code, notebook, source_dir).trace


def build(source_root=ROOT / "source"):
    """{assignment: {notebook: {fingerprint: {diagnosis, answers}}}} for every catalogue answer.

    Only the English assignments have a catalogue and an entry: a translated edition runs the same
    checks as its template, so it uses its template's (``line``).
    """
    from grading.build import catalogue

    table, problems = {}, []
    for assignment, notebook in ((a, n) for a, names in ASSIGNMENTS.items() if template(a) == a for n in names):
        entries = table.setdefault(assignment, {}).setdefault(notebook, {})
        for a in catalogue.load(notebook, assignment):
            if template(assignment) != "level23_speculative_decoding":
                continue  # Level 24 is diagnosed by rules (grading/judge/rules.py)
            text = NONE if a.full_marks else a.diagnosis
            if not text:
                problems.append(f"{catalogue.answers_dir(assignment).relative_to(ROOT)}/{notebook}/{a.name}.py "
                                "has no '# diagnosis:' line")
                continue
            key = fingerprint(trace_of(a.code, notebook, Path(source_root) / assignment))
            entry = entries.setdefault(key, {"diagnosis": text, "answers": []})
            entry["answers"].append(a.name)
            if entry["diagnosis"] != text:
                problems.append(f"{notebook}: {entry['answers']} behave the same but have different diagnoses")
    if problems:
        raise ValueError("\n".join(problems))
    return table


NONE = _frame("en")["none"]
UNKNOWN = _frame("en")["unknown"]


def main(argv):
    text = json.dumps(build(), indent=1, sort_keys=True) + "\n"
    if "--check" in argv:
        if not TABLE.exists() or TABLE.read_text() != text:
            print(f"{TABLE} is out of date: run `python -m grading.judge.diagnosis`")
            return 1
        return 0
    TABLE.write_text(text)
    print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
