"""What a run shows directly, whatever else the function does (grading/judge/rules23.py PREDICATES, grading/judge/rules.py):
a seed set inside the function, changed inputs, a result that is not a list, a list of something other than ids.

Each case wraps a right answer (the lesson's reference and a right catalogue answer, both levels), so the
mistake is the only one, written around code nobody wrote for this test; the line must name it, in the
edition's language, and no other mistake."""

import re

import pytest

from grading import ASSIGNMENT
from grading.judge import diagnosis, rules
from mutants import NOTEBOOKS, references
from test_rules23 import SOURCE

# rule: the wrapper around the right function ``_right`` (named ``{name}`` again)
WRAPPERS = {
    "reseeds": "def {name}(*args):\n    torch.manual_seed(7)\n    return _right(*args)\n",
    "inputs_changed": "def {name}(*args):\n    out = _right(*args)\n    args[0].mul_(0.5)\n    return out\n",
    "not_a_list": "def {name}(*args):\n    return tuple(_right(*args))\n",
    "not_token_ids": "def {name}(*args):\n    return [float(t) for t in _right(*args)]\n",
}
LEVEL24_RULES = ("reseeds", "inputs_changed", "not_a_list")  # Level 24's own predicates (grading/judge/rules.py)


def wrapped(code, rule):
    name = re.search(r"^def (\w+)\(draft_probs", code, re.M).group(1)
    right = re.sub(rf"^def {name}\(", "def _right(", code, count=1, flags=re.M)
    return right + "\n\n" + WRAPPERS[rule].format(name=name)


CASES = [(assignment, notebook, rule, label, code)
         for assignment, notebooks in NOTEBOOKS.items() for notebook in notebooks
         for rule in (WRAPPERS if assignment == ASSIGNMENT else LEVEL24_RULES)
         if not (rule == "reseeds" and notebook == "01_accept_branch")  # Mission 1 draws nothing: no harm done
         for label, code in references(assignment, notebook)[:2]]  # the lesson's, and one student's


@pytest.mark.parametrize("assignment,notebook,rule,label,code", CASES,
                         ids=[f"{a[:7]}-{n[:2]}-{r}-{label}" for a, n, r, label, _ in CASES])
def test_what_the_run_shows_is_named_in_both_languages(assignment, notebook, rule, label, code):
    judge = diagnosis.judge_of(wrapped(code, rule), notebook, SOURCE.parent / assignment)
    assert judge.failed, "the wrapped answer must lose points"
    line = diagnosis.line(notebook, judge, assignment=assignment)
    assert line == "Diagnosis: " + rules.sentence(rule), line
    if assignment == ASSIGNMENT:  # the zh edition grades with the same checks, and says it in its own words
        zh = diagnosis.line(notebook, judge, assignment=ASSIGNMENT + "_zh")
        assert zh == "诊断：" + rules.sentence(rule, "zh"), zh


def test_a_seed_set_before_the_function_runs_is_not_blamed():
    """The grader seeds torch itself around each call; a seed the student sets at import time is not the
    function's doing, and a right answer with it gets full marks and "none"."""
    code = "torch.manual_seed(0)\n" + references(ASSIGNMENT, "02_reject_and_break")[0][1]
    judge = diagnosis.judge_of(code, "02_reject_and_break", SOURCE)
    assert not judge.failed
    assert diagnosis.line("02_reject_and_break", judge) == "Diagnosis: " + diagnosis.NONE
