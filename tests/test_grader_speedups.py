"""The grader's own speed-ups of issue 24 change no result: each is checked against the path without it.

- the trusted helper module is loaded once per grading process while its bytes stay the same
  (grading/verdicts.py trusted_helpers);
- Level 23's diagnosis models are run once per case, draws and mistakes in a grading process
  (grading/rules23.py _memo_model): every catalogued answer gets the same line with it as without it;
- the kernel publishes no busy/idle status for a grader call, and keeps it for everything else
  (grading/kernel_harness.py _quiet_for_grader_calls);
- the kernel client is ready without jupyter_client's fixed waits (grading/preprocessors.py
  _wait_for_ready): a real kernel answers a cell right after it.

How much each saves is measured by benchmarks/grading_speed.py, not here.
"""

import asyncio

import pytest

import mutants
from grading import ASSIGNMENT, ROOT, catalogue, diagnosis, kernel_harness, rules23, speedups, verdicts

HELPERS = ROOT / "source" / ASSIGNMENT / "spec_checks.py"


def test_the_helper_module_is_loaded_once_while_its_bytes_stay_the_same(tmp_path, monkeypatch):
    path = tmp_path / "spec_checks.py"
    path.write_text("VALUE = 1\n")
    first = verdicts.trusted_helpers(path)
    assert verdicts.trusted_helpers(path) is first and first.VALUE == 1
    path.write_text("VALUE = 2\n")  # an instructor's edit between two gradings: the new file is what counts
    second = verdicts.trusted_helpers(path)
    assert second is not first and second.VALUE == 2
    monkeypatch.setenv(speedups.OFF_ENV, "1")  # the old path: loaded afresh every time
    assert verdicts.trusted_helpers(path) is not second


def test_a_judge_gets_its_own_remote_module_over_the_shared_helpers():
    a, b = verdicts.Judge(HELPERS, lambda content: {}), verdicts.Judge(HELPERS, lambda content: {})
    assert a.helpers is b.helpers
    assert a.remote is not b.remote and a.remote.run_verify is not b.remote.run_verify


def test_the_memoised_models_give_every_catalogued_answer_the_same_diagnosis(monkeypatch):
    runs = []
    for notebook in ("01_accept_branch", "02_reject_and_break"):
        for answer in catalogue.load(notebook, ASSIGNMENT):
            if not answer.full_marks:
                runs.append((notebook, mutants.grade(answer.code, ASSIGNMENT, notebook)[0]))
    rules23.forget()
    memoised = [diagnosis.line(nb, judge, assignment=ASSIGNMENT) for nb, judge in runs]
    again = [diagnosis.line(nb, judge, assignment=ASSIGNMENT) for nb, judge in runs]  # from the memo
    assert rules23._MODELLED and rules23._GROUPED and rules23._SAMPLED, "the models' runs were kept"
    monkeypatch.setenv(speedups.OFF_ENV, "1")
    fresh = [diagnosis.line(nb, judge, assignment=ASSIGNMENT) for nb, judge in runs]
    assert memoised == again == fresh


class _Kernel:
    def __init__(self, parent):
        self.parent, self.sent = parent, []

    def get_parent(self, channel):
        return self.parent

    def publish(self, status, channel, parent=None):
        self.sent.append(status)


@pytest.mark.parametrize("msg_type,published", [("grader_call_request", []), ("execute_request", ["busy", "idle"]),
                                                ("kernel_info_request", ["busy", "idle"])])
def test_a_grader_call_publishes_no_status_and_every_other_request_does(msg_type, published):
    kernel = _Kernel({"header": {"msg_type": msg_type}})
    publish = kernel_harness._quiet_for_grader_calls(kernel.publish, kernel)
    publish("busy", "shell")
    publish("idle", "shell")
    assert kernel.sent == published


def test_a_kernel_is_ready_and_answers_with_the_quick_wait():
    from jupyter_client.asynchronous import AsyncKernelClient
    from jupyter_client.manager import start_new_kernel

    from grading import preprocessors

    km, kc = start_new_kernel(startup_timeout=120)
    kc.stop_channels()  # a fresh client of our own, whose IOPub subscription starts now
    client = AsyncKernelClient(**km.get_connection_info(session=True))
    client.start_channels()

    async def ready_then_run():
        await preprocessors._wait_for_ready(client, timeout=60)
        msg_id = client.execute("print(6 * 7)")
        while True:
            msg = await client.get_iopub_msg(timeout=30)
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
                return msg["content"]["text"]

    try:
        assert asyncio.run(ready_then_run()) == "42\n"
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)
