"""Each failed check's cause, only where this run supports it.

A check says what happened on its own case (spec_checks: what came back, how many draws, what was passed to
torch.multinomial). Whether that failure follows from the mistake the diagnosis line named is decided here, by
replaying that mistake on the check's own case:

- Level 23: the named model (grading/judge/rules23.py) run on every scripted call of the check must give what the
  student's function gave, where the right answer does not; a run with real randomness must come out exactly as
  the model's replay of it; a failure about the inputs, the draws' shapes or the result's type follows from a
  mistake the diagnosis shows directly (rules23.PREDICATES).
- Level 24: the failed checks the named rules explain (grading/judge/rules.py fired: a call of the check shows
  the rule's model in the rule's aspect).

Only then does the check add, in the edition's language, that it follows from the mistake named above. Anything
else stays the facts alone: no check names a cause its case does not show.
"""

from grading.judge import rules, rules23

# What a failure of each kind (spec_checks' Failed.kind) needs among the predicates the diagnosis showed.
_SHOWN = {"inputs": ("inputs_changed",), "shapes": ("vector_coin",), "plain": ("not_a_list", "not_token_ids"),
          "tensor": ("tensor_tokens_fail",), "foreign": tuple(rules23.FOREIGN_RULES["02_reject_and_break"])}


GENERATED = "hidden_generated_cases"  # grading/judge/generated.py's check


def _replays23(judge, check, notebook, mistakes):
    """Whether the model with ``mistakes`` gives this check's failure: every scripted call as the function did it
    (and one of them not as the right answer does), every run with real randomness as the function's came out."""
    calls = [c for c in judge.calls if c[0] == check and c[1] == "run_verify"]
    samples = [s for s in rules23._runs(judge.samples) if s[0] == check]
    if not calls and not samples:
        return False
    differs = False
    for _, _, case, args, kwargs, trace in calls:
        draws, k = rules23._draws(args, kwargs), len(case.positions)
        student = (trace.get("tokens"), trace.get("calls"), trace.get("error"))
        if not rules23._did(student, rules23.model(case, draws, notebook, mistakes), k):
            return False
        differs = differs or not rules23._did(student, rules23.model(case, draws, notebook), k)
    for _, case, trials, seed, result in samples:
        replay = rules23._sampled(case, trials, seed, notebook, mistakes)
        if not rules23._gives(replay, result):
            return False
        differs = differs or replay != rules23._sampled(case, trials, seed, notebook, frozenset())
    return differs


def explained(judge, notebook, level):
    """The failed checks whose failure the diagnosis's named mistake, replayed on their cases, gives."""
    named = judge.diagnosed
    if not named:
        return set()
    failed = set(c for c in judge.failed if c is not None)
    if level == 24:
        return failed & set(named.get("explained", ()))
    out = set()
    mistakes, shown = named.get("mistakes"), set(named.get("shown", ()))
    for check in failed:
        kind = judge.kinds.get(check)
        if any(p in shown for p in _SHOWN.get(kind, ())):
            out.add(check)
        elif mistakes and check == GENERATED:  # a model is named only when it does what the function did on every
            out.add(check)                     # generated case (grading/judge/rules23.py line_text)
        elif mistakes:
            try:
                if _replays23(judge, check, notebook, mistakes):
                    out.add(check)
            except Exception:  # a model that cannot follow this case supports nothing
                pass
    return out


def annotate(judge, outputs, notebook, level, lang="en"):
    """Add to each failed check's error in ``outputs`` ({grade_id: outputs list}) that it follows from the
    diagnosed mistake, where the replay supports it. Returns the checks so annotated."""
    follows = rules.FRAME[lang]["follows"]
    done = explained(judge, notebook, level)
    for check in done:
        for output in outputs.get(check, ()):
            if output.get("output_type") == "error":
                said = output["evalue"].rstrip()
                output["evalue"] = said + ("" if said.endswith((".", "。", "!", "?")) else "." if lang == "en" else
                                           "。") + follows
                output["traceback"] = [f"{output['ename']}: {output['evalue']}"]
    return done
