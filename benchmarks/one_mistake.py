"""One mistake, one cause (issue 39): every single-mistake answer of the catalogue and every AST mutant of the
reference solutions, graded in-process by the real checks, per notebook:

- failed checks per mistake, and among them the checks outside the mistake's concept (CONCEPTS below: the
  visible test and the runs with real randomness are every mistake's; a mistake's concept is that of the
  checks its catalogued answer's header names, or, for a mutant, of the rule the diagnosis named);
- points lost, as a share of the notebook's;
- sentences whose cause the replay does not support: a failed check that says it follows from the diagnosed
  mistake where the named rule's model, run here on each of the check's calls, does not give what the student's
  function gave (Level 23), or that the named Level 24 rules do not explain (grading/judge/rules.py: no call of the
  check shows the rule's model). Must be 0.

    python benchmarks/one_mistake.py           # the table
    python benchmarks/one_mistake.py --limit 40
"""

import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import mutants  # noqa: E402
from grading import ASSIGNMENT  # noqa: E402
from grading.build import catalogue  # noqa: E402
from grading.judge import rules, rules23  # noqa: E402

ALWAYS = {"test_visible", "test_visible_m1", "hidden_acceptance_rate", "hidden_mean_length", "hidden_generated_cases",
          "hidden_emitted_distribution", "hidden_first_token_distribution", "hidden_tokens_per_step"}
LEVEL24 = "level24_residual_and_bonus"
# Each notebook's checks by the concept they test (Level 23, then Level 24's notebooks 01 and 02).
CONCEPTS = {
    "01_accept_branch": {
        "hidden_equal_accepts": "accept", "hidden_all_accept": "loop", "hidden_stops_first_reject": "loop",
        "hidden_q_zero": "accept", "hidden_empty_draft": "loop", "hidden_long_tensor": "types",
        "hidden_rows_aligned": "rows", "hidden_appends_token_ids": "ids", "hidden_no_draw": "draws",
        "hidden_inputs_unchanged": "inputs", "hidden_plain_list": "types", "hidden_other_draft": "ids"},
    "02_reject_and_break": {
        "hidden_draw_order": "draws", "hidden_rows_aligned": "rows", "hidden_no_draw_after_reject": "loop",
        "hidden_single_value_draws": "draws", "hidden_strict_boundary": "coin", "hidden_p_zero_rejects": "coin",
        "hidden_break_not_continue": "loop", "hidden_coin_success_appends": "coin", "hidden_all_accepted": "accept",
        "hidden_q_zero": "accept", "hidden_empty_draft": "loop", "hidden_long_tensor": "types",
        "hidden_inputs_unchanged": "inputs", "hidden_other_draft": "ids"},
    "01_correction_token": {
        "hidden_no_multinomial_before_coin": "order", "hidden_one_correction": "one", "hidden_residual_exact":
        "residual", "hidden_reject_at_first": "first", "hidden_correction_appended": "append",
        "hidden_stops_after_correction": "loop", "hidden_all_accepted": "accept", "hidden_no_coin_when_p_ge_q": "accept",
        "hidden_long_tensor": "types", "hidden_inputs_unchanged": "inputs"},
    "02_bonus_and_step": {
        "hidden_bonus_when_all_accepted": "bonus", "hidden_bonus_row_k": "bonus_row", "hidden_no_bonus_after_reject":
        "one", "hidden_residual_exact": "residual", "hidden_call_order": "order", "hidden_one_new_token": "one",
        "hidden_empty_draft": "empty", "hidden_long_tensor": "types", "hidden_inputs_unchanged": "inputs"},
}
# Level 23's catalogued mistakes by the concept they get wrong. A catalogue header lists only some of the checks an
# answer must lose (row_zero_only's lists the visible test alone), so an answer's own concepts are its header's and
# its mistake's (Level 24's headers list every check an answer loses).
MISTAKE_CONCEPT = {
    "01_accept_branch": {
        "appends_before_check": "loop", "appends_position": "ids", "appends_probability": "ids",
        "coin_in_mission1": "draws", "draw_before_compare": "draws", "first_token_peek": "loop",
        "forgets_continue": "loop", "hard_coded_visible": "ids", "keeps_every_token": "loop", "mutates_inputs": "inputs",
        "ratio_divides_by_q": "accept", "reads_next_row": "rows", "returns_tensor": "types", "returns_tuple": "types",
        "reversed_comparison": "accept", "row_maximum": "rows", "row_zero_only": "rows",
        "skips_instead_of_stopping": "loop", "strict_greater": "accept", "tensor_compare_no_item": "accept"},
    "02_reject_and_break": {
        "accept_falls_through": "accept", "all_draws_up_front": "draws", "appends_position": "ids",
        "appends_probability": "ids", "break_after_accept": "loop", "coin_forgets_append": "coin",
        "continue_not_break": "loop", "draw_every_position": "draws", "unscripted_torch_draw": "draws",
        "greater_coin": "coin", "hard_coded_visible": "ids", "less_equal_coin": "coin", "mutates_inputs": "inputs",
        "never_draws": "coin", "no_coin": "coin", "numpy_rand": "draws", "q_over_p": "coin", "random_module": "draws",
        "reads_next_row": "rows", "rejected_flag": "loop", "row_maximum": "rows", "row_zero_only": "rows",
        "strict_accept_branch": "accept", "vector_draw_in_loop": "draws"},
}
ASSIGNMENT_OF = {nb: ASSIGNMENT if nb.startswith(("01_accept", "02_reject")) else LEVEL24 for nb in CONCEPTS}
FOLLOWS = rules.FRAME["en"]["follows"].strip()


def rule_named(line, notebook):
    """The catalogued rule whose sentence the diagnosis line starts with, or None."""
    words = rules23.sentences(notebook)
    text = line.strip()[len("Diagnosis: "):]
    for name, sentence in sorted(words.items(), key=lambda kv: -len(kv[1])):
        if text.startswith(sentence):
            return name
    return None


def concepts_of(checks, notebook):
    return {CONCEPTS[notebook].get(c) for c in checks if c in CONCEPTS[notebook]}


def points(notebook):
    import nbformat
    nb = nbformat.read(Path(__file__).resolve().parents[1] / "source" / ASSIGNMENT_OF[notebook] / f"{notebook}.ipynb",
                       as_version=4)
    return {c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"]["points"]) for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade") and not c.metadata["nbgrader"].get("solution")}


def unsupported(judge, notebook, name):
    """Failed checks that say they follow from the diagnosis where the named rule's model, replayed here on each
    of the check's calls, does not give what the function gave."""
    out = []
    for check in judge.failed:
        said = "".join(o.get("evalue", "") for o in getattr(judge, "outputs_by_check", {}).get(check, ()) if o.get("output_type") == "error")
        if FOLLOWS not in said or check in ALWAYS:
            continue
        if ASSIGNMENT_OF[notebook] == LEVEL24:  # said only of the checks the named rules explain
            if check not in (judge.diagnosed or {}).get("explained", ()):
                out.append(check)
            continue
        known = rules23._rules(notebook)
        mistakes = frozenset().union(*(known[n] for n in name.split("+"))) if name and all(
            n in known for n in name.split("+")) else None
        calls = [c for c in judge.calls if c[0] == check and c[1] == "run_verify"]
        ok = mistakes is not None and bool(calls) and all(
            rules23._did((t.get("tokens"), t.get("calls"), t.get("error")),
                         rules23.model(case, rules23._draws(a, k), notebook, mistakes), len(case.positions))
            for _, _, case, a, k, t in calls)
        if not ok and not (judge.diagnosed or {}).get("shown"):
            out.append(check)
    return out


def measure(limit=None):
    table = {}
    for notebook in CONCEPTS:
        pts = points(notebook)
        total = sum(pts.values())
        rows = collections.Counter()
        worst = []
        assignment = ASSIGNMENT_OF[notebook]
        singles = [(a.name, a.code, set(a.must_lose)) for a in catalogue.load(notebook, assignment) if not a.full_marks]
        reference = mutants.reference(assignment, notebook)
        generated = [(d, src, None) for d, src in mutants.mutants(reference)[:limit]]
        for kind, answers in (("catalogue", singles), ("mutants", generated)):
            for name, code, header in answers:
                judge, line = mutants.grade(code, assignment, notebook)
                failed = [c for c in judge.failed if c is not None]
                if not failed:
                    continue
                named = rule_named(line, notebook) if assignment == ASSIGNMENT else (
                    "+".join(sorted(r for r, _ in rules.diagnose(judge, 24))) or None)
                if header is None and named is None:  # a mutant no rule names: its concept is unknown
                    rows[kind, "not named"] += 1
                    continue
                own = concepts_of(header, notebook) | {MISTAKE_CONCEPT.get(notebook, {}).get(name)} if header else \
                    concepts_of(rules23_checks(judge, notebook, named), notebook)
                outside = [c for c in failed if c not in ALWAYS and CONCEPTS[notebook].get(c) not in own]
                lost = sum(pts.get(c, 0) for c in failed)
                bad = unsupported(judge, notebook, named)
                r = rows
                r[kind, "answers"] += 1
                r[kind, "failed"] += len(failed)
                r[kind, "outside"] += len(outside)
                r[kind, "over one outside"] += len(outside) > 1
                r[kind, "lost"] += lost / total
                r[kind, "unsupported"] += len(bad)
                worst.append((len(outside), lost, kind, name, outside))
        table[notebook] = (rows, sorted(worst, reverse=True)[:5])
    return table


def rules23_checks(judge, notebook, named):
    """The failed checks the named rule's replay explains: its concept's checks for a mutant."""
    from grading.judge import causes
    return causes.explained(judge, notebook, 23 if ASSIGNMENT_OF[notebook] == ASSIGNMENT else 24)


def report(table):
    lines = ["| notebook | answers (mutants no rule names) | failed checks per mistake | outside its concept per mistake | with more than one "
             "outside | points lost, mean | unsupported cause sentences |", "|---" * 7 + "|"]
    for notebook, (r, _) in table.items():
        for kind in ("catalogue", "mutants"):
            n = r[kind, "answers"] or 1
            lines.append(f"| {notebook} ({kind}) | {r[kind, 'answers']} ({r[kind, 'not named']}) | {r[kind, 'failed'] / n:.1f} | "
                         f"{r[kind, 'outside'] / n:.1f} | {r[kind, 'over one outside']} | {r[kind, 'lost'] / n:.0%} | "
                         f"{r[kind, 'unsupported']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    limit = int(sys.argv[sys.argv.index("--limit") + 1]) if "--limit" in sys.argv else None
    only = sys.argv[sys.argv.index("--level") + 1] if "--level" in sys.argv else None
    if only:
        CONCEPTS = {nb: c for nb, c in CONCEPTS.items() if (ASSIGNMENT_OF[nb] == LEVEL24) == (only == "24")}
    t = measure(limit)
    print(report(t))
    for notebook, (_, worst) in t.items():
        print(notebook, "most outside:", [(w[3][:40], w[4]) for w in worst[:3]])
