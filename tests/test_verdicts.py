"""The Judge (grading/judge/verdicts.py) against hostile replies: what a hidden check may say, what decides a
verdict, and what the grader reads.

Most tests call the student's function in this process through the kernel's own ``answer``
(grading/sandbox/kernel_harness.py), with each request and reply through JSON as jupyter_client carries
them, and a ``forge`` that rewrites the reply as a student's code in the kernel could. The last
ones drive a real sandboxed kernel through SandboxedExecute._call.
"""

import json
import resource
import time
import warnings

import nbformat
import pytest
import torch
from jupyter_client.session import json_packer, json_unpacker

from grading import ASSIGNMENT, ROOT
from grading.sandbox.kernel_harness import answer, encode, load_private
from grading.judge.verdicts import MAX_NODES, Judge, KernelGone, decode, segments

L24 = "level24_residual_and_bonus"
NOT_SHOWN = "[hidden]"


def answer_code(notebook, name, assignment=ASSIGNMENT):
    from grading.build import catalogue

    folder = catalogue.answers_dir(assignment) / notebook
    return catalogue.parse(folder / f"{name}.py").code


def cell(notebook, grade_id, assignment=ASSIGNMENT):
    nb = nbformat.read(ROOT / "source" / assignment / f"{notebook}.ipynb", as_version=4)
    return next(c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def graded_cells(notebook, assignment=ASSIGNMENT):
    from grading.judge.verdicts import is_test_cell

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
        with warnings.catch_warnings():  # jupyter_client warns when it has to clean a message (nan)
            warnings.simplefilter("ignore")
            return json_unpacker(json_packer(reply))
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


NAMED_ERROR = """
def verify_draft(draft_probs, target_probs, draft_tokens):
    raise type("p_" + "_".join(str(int(1000 * draft_probs[i, int(t)])) for i, t in enumerate(draft_tokens)),
               (Exception,), {})()
"""


def test_a_hidden_check_does_not_show_an_exception_class_the_student_named():
    judge = judge_for(NAMED_ERROR)
    said = error_of(judge.outputs(cell("02_reject_and_break", "hidden_other_draft")))
    assert "p_" not in said and "Exception raised by verify_draft" in said, said
    assert "p_" in error_of(judge.outputs(cell("02_reject_and_break", "test_visible")))


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
    got = [s for s in said if " returned " in s]
    assert got and all(f"returned {NOT_SHOWN}" in s for s in got), got
    assert f"shapes {NOT_SHOWN}" in "".join(said)


@pytest.mark.parametrize("notebook,assignment", [("01_accept_branch", ASSIGNMENT), ("02_reject_and_break", ASSIGNMENT),
                                                 ("01_correction_token", L24), ("02_bonus_and_step", L24)])
def test_an_honest_mistake_still_sees_its_tokens_counts_and_shapes(notebook, assignment):
    """Every catalogue answer: no hidden message hides a value (they are all the case's own ids, or small)."""
    from grading.build import catalogue

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
    assert judge.trace[-1]["draws_used"] == [0.1, 0.9]


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
    ("result_repr", "x" * 200), ("rand_replaced", 0), ("reseeded", 1), ("reseeded", None),
    ("drawn_with", ["os.system"]), ("drawn_with", ["torch.rand", "torch.rand"]), ("drawn_with", "torch.rand"),
    ("drawn_with", [["torch.rand"]]), ("drawn_with", list(("torch.rand", "random.random") * 9)),
])
def test_a_reply_is_checked_for_content_not_only_type(field, value):
    said = error_of(judge_for(MUTATES, forge=forged(field, value)).outputs(INPUTS_CHECK))
    assert said.startswith("NotRun") and "malformed" in said, said


@pytest.mark.parametrize("value", [["os.system"], ["torch.multinomial", "torch.multinomial"], "torch.multinomial",
                                   [["numpy.random.choice"]], ["torch.multinomial", "numpy.random.choice"],
                                   ["random.choices"] * 3, []])
def test_level24s_samplers_are_checked_against_the_calls_it_records(value):
    # one correction call recorded: at most one sampler, a known one, and none without a call
    code = answer_code("01_correction_token", "correct_clamp", L24)
    said = error_of(judge_for(code, L24, forge=forged("drawn_with", value, "run_step")).outputs(
        cell("01_correction_token", "hidden_one_correction", L24)))
    assert said.startswith("NotRun") and "malformed" in said, said


def test_level24s_sampler_claim_is_read_as_sent():
    code = answer_code("01_correction_token", "correct_clamp", L24)
    said = error_of(judge_for(code, L24, forge=forged("drawn_with", ["random.choices"], "run_step")).outputs(
        cell("01_correction_token", "hidden_one_correction", L24)))
    assert "random.choices" in said and "malformed" not in said, said


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


# ------------------------------------------------------------------ item 5: the grader bounds what it reads (a real kernel)

class LiveKernel:
    """One sandboxed kernel driven as SandboxedExecute drives it in phase 2: ``call`` is its ``_call``."""

    def __init__(self, timeout=3, grace=1):
        from nbclient import NotebookClient

        from grading.sandbox import kernels as sandbox
        from grading.plugins.preprocessors import SandboxedExecute

        source = ROOT / "source" / ASSIGNMENT
        self.ex = SandboxedExecute(timeout=timeout, interrupt_grace=grace)
        self.ex._judge = Judge(source / "spec_checks.py", self.ex._call)
        self.ex._stopped = None
        self.ex.kernel_manager_class = sandbox.kernel_manager_class()
        NotebookClient.__init__(self.ex, nbformat.v4.new_notebook(), None)
        self.ex.resources = {"metadata": {"path": str(source)}}
        self._setup = self.ex.setup_kernel()

    def __enter__(self):
        self._setup.__enter__()
        return self

    def __exit__(self, *exc):
        return self._setup.__exit__(*exc)

    def run(self, code):
        reply = self.ex.wait_for_reply(self.ex.kc.execute(code))
        assert reply["content"]["status"] == "ok", reply["content"]

    def call(self, content):
        return self.ex._call(content)


REQUEST = {"helper": "run_verify", "function": "verify_draft", "case": [[[4, 0.3, 0.6]], 41, [], "list"],
           "args": [], "kwargs": {"draws": [0.2]}}

STRAY_REPLIES = """
import time
kernel = get_ipython().kernel
def stray(stream, idents, parent):   # answers no request, every 0.25 s, for 20 s
    socket = getattr(stream, "socket", stream)
    for _ in range(80):
        kernel.session.send(socket, "grader_call_reply", {"status": "ok", "data": None},
                            {"msg_id": "another request", "msg_type": "grader_call_request"}, idents)
        time.sleep(0.25)
kernel.shell_handlers["grader_call_request"] = stray
"""


def test_a_stream_of_stray_replies_cannot_hold_a_call_past_its_deadline():
    with LiveKernel(timeout=3, grace=1) as kernel:
        kernel.run(STRAY_REPLIES)
        started = time.monotonic()
        with pytest.raises(KernelGone):
            kernel.call(REQUEST)
        took = time.monotonic() - started
    assert took < 3 + 1 + 2.5, f"one call took {took:.1f} s; its budget is 3 + 1 s"


OVERSIZE_REPLY = """
kernel = get_ipython().kernel
packed = kernel.session.pack({"status": "ok", "data": [[]] * 15_000_000})   # 45 MB of JSON, made beforehand
def oversize(stream, idents, parent):   # one reply of 15 million empty lists
    kernel.session.send(getattr(stream, "socket", stream), "grader_call_reply", packed, parent, idents)
kernel.shell_handlers["grader_call_request"] = oversize
"""


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_an_oversize_reply_is_refused_before_it_is_read():
    with LiveKernel(timeout=3, grace=1) as kernel:
        kernel.run(OVERSIZE_REPLY)
        before, started = peak_rss_mib(), time.monotonic()
        with pytest.raises(KernelGone):
            kernel.call(REQUEST)
        grew, took = peak_rss_mib() - before, time.monotonic() - started
    assert grew < 50, f"the grader's peak memory grew by {grew:.0f} MiB reading one reply"
    assert took < 3 + 1 + 2.5, f"one call took {took:.1f} s"


def test_a_forged_reply_for_another_request_or_twice_is_not_taken():
    honest = answer_code("02_reject_and_break", "correct_gather")
    with LiveKernel(timeout=3, grace=1) as kernel:
        kernel.run("import torch\n" + honest + """
kernel = get_ipython().kernel
real = kernel.shell_handlers["grader_call_request"]
def twice(stream, idents, parent):
    socket = getattr(stream, "socket", stream)
    kernel.session.send(socket, "grader_call_reply", {"status": "ok", "data": "forged"},
                        {"msg_id": "another request"}, idents)
    real(stream, idents, parent)
    real(stream, idents, parent)
kernel.shell_handlers["grader_call_request"] = twice
""")
        first, second = kernel.call(REQUEST), kernel.call(dict(REQUEST, kwargs={"draws": [0.9]}))
    assert first["status"] == second["status"] == "ok"
    assert first["data"]["tokens"] == [4] and second["data"]["tokens"] == []
