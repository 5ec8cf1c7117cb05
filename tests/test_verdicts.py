"""The Judge (grading/verdicts.py) against hostile replies: what a hidden check may say, what decides a
verdict, and what the grader reads.

Most tests call the student's function in this process through the kernel's own ``answer``
(grading/kernel_harness.py), with each request and reply through JSON as jupyter_client carries
them, and a ``forge`` that rewrites the reply as a student's code in the kernel could. The last
ones drive a real sandboxed kernel through SandboxedExecute._call.
"""

import json
import resource
import time

import nbformat
import pytest
import torch

from grading import ASSIGNMENT, ROOT
from grading.kernel_harness import answer, encode, load_private
from grading.verdicts import MAX_NODES, Judge, KernelGone, decode, segments

L24 = "level24_residual_and_bonus"
NOT_SHOWN = "(not shown for hidden checks)"


def answer_code(notebook, name, assignment=ASSIGNMENT):
    from grading import catalogue

    folder = catalogue.answers_dir(assignment) / notebook
    return catalogue.parse(folder / f"{name}.py").code


def cell(notebook, grade_id, assignment=ASSIGNMENT):
    nb = nbformat.read(ROOT / "source" / assignment / f"{notebook}.ipynb", as_version=4)
    return next(c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def graded_cells(notebook, assignment=ASSIGNMENT):
    from grading.verdicts import is_test_cell

    nb = nbformat.read(ROOT / "source" / assignment / f"{notebook}.ipynb", as_version=4)
    return [(c.metadata["nbgrader"]["grade_id"], c.source) for c in nb.cells if is_test_cell(c)]


def judge_for(code, assignment=ASSIGNMENT, forge=None):
    """A Judge whose calls run ``code``'s function here, as the kernel would, with ``forge(reply, request)``."""
    path = ROOT / "source" / assignment / "spec_checks.py"
    kernel_helpers = load_private(path, "_kernel_side_helpers")
    user_ns = {"torch": torch, "__name__": "__main__"}
    exec(compile(code, "<answer>", "exec"), user_ns)

    def call(request):
        reply = answer(kernel_helpers, user_ns, json.loads(json.dumps(request)))
        if forge:
            reply = forge(reply, request)
        return json.loads(json.dumps(reply, allow_nan=False))  # jupyter_client refuses nan
    return Judge(path, call)


def error_of(outputs):
    errors = [o for o in outputs if o.output_type == "error"]
    return f"{errors[0].ename}: {errors[0].evalue}" if errors else None


LEAKY = """
def verify_draft(draft_probs, target_probs, draft_tokens):
    raise ValueError(f"LEAK {draft_probs.tolist()} {target_probs.tolist()} {list(draft_tokens)}")
"""


# ------------------------------------------------------------------ item 3: hidden checks say only the grader's words

def test_a_hidden_check_names_the_exception_type_but_never_its_message():
    judge = judge_for(LEAKY)
    hidden = []
    for grade_id, source in graded_cells("02_reject_and_break"):
        said = error_of(judge.outputs(source))
        if grade_id.startswith("hidden"):
            hidden.append(said)
        else:  # the visible test may still show the student's own message
            assert "LEAK" in said, said
    hidden = [said for said in hidden if said]  # (the inputs check passes: it changes nothing)
    assert not [said for said in hidden if "LEAK" in said or "0.2" in said]
    named = [s for s in hidden if "ValueError raised by verify_draft (its message is not shown for hidden checks)" in s]
    assert len(named) >= 10, hidden


def test_a_hidden_check_drops_what_its_hidden_part_prints():
    judge = judge_for(answer_code("02_reject_and_break", "correct_gather"))
    source = ("print('visible part')\n### BEGIN HIDDEN TESTS\nprint('hidden part')\n"
              "run = spec_checks.run_verify(verify_draft, spec_checks.Case([(4, 0.3, 0.6)]), draws=[0.2])\n"
              "print(run.tokens)\n### END HIDDEN TESTS\n")
    assert [o.text for o in judge.outputs(source)] == ["visible part\n"]
    assert segments(source)[1][1] is True and segments("x = 1\n") == [("x = 1\n", False)]


ENCODES_THE_CASE = """
def verify_draft(draft_probs, target_probs, draft_tokens):
    torch.rand(int(target_probs[0].argmax()) + 40)    # a draw shape that carries the case
    return [int(1000 * draft_probs[i, int(t)]) for i, t in enumerate(draft_tokens)] + [987654]
"""


def test_a_hidden_check_shows_no_value_the_students_code_made_from_the_case():
    judge = judge_for(ENCODES_THE_CASE)
    said = [error_of(judge.outputs(source)) or "" for grade_id, source in graded_cells("02_reject_and_break")
            if grade_id.startswith("hidden")]
    assert all("987654" not in s and "NotRun" not in s for s in said), said
    got = [s for s in said if "(got " in s]
    assert got and all(f"(got {NOT_SHOWN}" in s for s in got), got
    assert f"shapes {NOT_SHOWN}" in "".join(said)


@pytest.mark.parametrize("notebook,assignment", [("01_accept_branch", ASSIGNMENT), ("02_reject_and_break", ASSIGNMENT),
                                                 ("01_correction_token", L24), ("02_bonus_and_step", L24)])
def test_an_honest_mistake_still_sees_its_tokens_counts_and_shapes(notebook, assignment):
    """Every catalogue answer: no hidden message hides a value (they are all the case's own ids, or small)."""
    from grading import catalogue

    for a in catalogue.load(notebook, assignment):
        judge = judge_for(a.code, assignment)
        for grade_id, source in graded_cells(notebook, assignment):
            said = error_of(judge.outputs(source)) or ""
            # Statistics over many runs (sample_runs, sample_steps) and the values passed to
            # torch.multinomial are never shown in a hidden check.
            assert NOT_SHOWN not in said or ".sample_" in source or f"drawn from {NOT_SHOWN}" in said, \
                (a.name, grade_id, said)


# ------------------------------------------------------------------ item 4: no self-reported property decides a check

MUTATES = answer_code("02_reject_and_break", "mutates_inputs")
INPUTS_CHECK = cell("02_reject_and_break", "hidden_inputs_unchanged")


def test_changed_inputs_are_seen_by_their_values_whatever_the_reply_claims():
    assert "changed draft_probs" in error_of(judge_for(MUTATES).outputs(INPUTS_CHECK))

    def claims_unchanged(reply, request):  # the issue's forgery: a flag saying the inputs were left alone
        reply["data"]["inputs_changed"] = False
        return reply
    said = error_of(judge_for(MUTATES, forge=claims_unchanged).outputs(INPUTS_CHECK))
    assert said.startswith("NotRun") and "malformed" in said  # no such field: the grader decides


def test_draws_and_the_function_name_are_the_graders_own():
    judge = judge_for(answer_code("02_reject_and_break", "correct_gather"))
    judge.outputs(cell("02_reject_and_break", "hidden_draw_order"))
    assert judge.trace[-1]["draws_used"] == [0.1, 0.2]


def forged(field, value, helper="run_verify"):
    def forge(reply, request):
        if request["helper"] == helper:
            reply["data"][field] = value
        return reply
    return forge


@pytest.mark.parametrize("field,value", [
    ("tokens", ["3"]), ("tokens", [3] * 10), ("tokens", [2 ** 70]), ("tokens", {"float": "nan"}),
    ("calls", -1), ("calls", True), ("shapes", [[1]] * 100), ("shapes", [[[]]]), ("error", ["not a name", "x"]),
    ("error", ["ValueError", "x" * 600]), ("after", []), ("after", [[[2, 41], "torch.float32", [0.0]]] * 3),
    ("after", [[[1] * 9, "x", None]] * 3), ("rebound", ["open"]), ("rebound", ["zip", "zip"]),
    ("result_repr", "x" * 200), ("rand_replaced", 0),
])
def test_a_reply_is_checked_for_content_not_only_type(field, value):
    said = error_of(judge_for(MUTATES, forge=forged(field, value)).outputs(INPUTS_CHECK))
    assert said.startswith("NotRun") and "malformed" in said, said


@pytest.mark.parametrize("data", [[1.5, 0.5], [0.5, -1.0], [{"float": "nan"}, 0.5], [0.5, {"float": "inf"}], [0.5],
                                  "0.5"])
def test_a_sample_reply_out_of_range_is_refused(data):
    source = cell("02_reject_and_break", "hidden_acceptance_rate")
    forge = lambda reply, request: dict(reply, data=data)  # noqa: E731
    said = error_of(judge_for(answer_code("02_reject_and_break", "correct_gather"), forge=forge).outputs(source))
    assert said.startswith("NotRun") and "malformed" in said, said


def test_a_reply_too_large_to_walk_is_refused_cheaply():
    with pytest.raises(ValueError):
        decode([[]] * (MAX_NODES + 1))
    assert decode(encode([float("nan"), [float("-inf")], {"a": 1.0}]))[1] == [float("-inf")]


NAN_INTO_INPUTS = """
def verify_draft(draft_probs, target_probs, draft_tokens):
    draft_probs[0, 0] = float("nan")
    return [int(t) for t in draft_tokens][:1]
"""
NAN_WEIGHTS = """
def verify_and_correct(draft_probs, target_probs, draft_tokens):
    torch.rand(1)
    return [int(torch.multinomial(torch.full((4,), float("nan")), 1))]
"""


def test_non_finite_values_cross_the_wire_as_values():
    judge = judge_for(NAN_INTO_INPUTS)
    assert "changed draft_probs" in error_of(judge.outputs(INPUTS_CHECK))
    assert judge.kernel_gone is None
    judge = judge_for(NAN_WEIGHTS, L24)
    said = error_of(judge.outputs(cell("01_correction_token", "test_visible", L24)))
    assert "torch.multinomial refused" in said and judge.kernel_gone is None, said
