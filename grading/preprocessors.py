"""nbgrader preprocessors of this course, switched on in nbgrader_config.py.

- ``ResilientExecute`` (autograde): see its docstring; hangs and crashes cost
  only the submission's own points.

- ``CapOutputSize`` (autograde): a submission that prints megabytes keeps only
  the head and tail of each output, so the autograded notebook stays small.
- ``HideHiddenTestDetails`` (feedback): a failed hidden check shows the
  student its one-line message, never the hidden test's code. Tracebacks and
  anything printed inside a hidden test cell are removed.
"""

import json
import os
import shutil
import time
from pathlib import Path
from queue import Empty

import nbformat
import zmq

from jupyter_core.utils import ensure_async, run_sync
from nbclient.exceptions import DeadKernelError
from nbgrader import utils
from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions, Execute, NbGraderPreprocessor
from traitlets import Bool, Integer, Unicode

HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"
DIAGNOSIS_CELL = "diagnosis"  # the locked cell above the hidden checks where the grader writes its diagnosis


class CapOutputSize(NbGraderPreprocessor):
    """Caps every output a submission can make, whatever its type.

    Text of any MIME type, JSON data (as its serialised size), output metadata, error
    names, values and tracebacks, the number of outputs per cell, and the notebook's
    total: past ``max_total_chars`` every further output is replaced by one line.
    """

    max_chars = Integer(20_000, help="Characters kept of each text output").tag(config=True)
    max_outputs = Integer(50, help="Outputs kept per cell").tag(config=True)
    max_metadata_chars = Integer(2_000, help="Characters of output metadata kept (else it is dropped)").tag(config=True)
    max_total_chars = Integer(2_000_000, help="Characters of output kept per notebook").tag(config=True)

    def preprocess(self, nb, resources):
        self._total = 0
        return super().preprocess(nb, resources)

    def _cap(self, text):
        if len(text) <= self.max_chars:
            return text
        half = self.max_chars // 2
        cut = len(text) - 2 * half
        return f"{text[:half]}\n... [{cut} characters cut by the grader] ...\n{text[-half:]}"

    @staticmethod
    def _note(text):
        return nbformat.v4.new_output("stream", name="stdout", text=f"[{text}]\n")

    def _cap_output(self, output):
        if len(json.dumps(output.get("metadata", {}), default=str)) > self.max_metadata_chars:
            output["metadata"] = {}
        if output.output_type == "stream":
            output.text = self._cap(str(output.get("text", "")))
        elif output.output_type in ("execute_result", "display_data"):
            data = output.get("data", {})
            for mime, value in list(data.items()):
                if isinstance(value, str):
                    data[mime] = self._cap(value)
                elif len(json.dumps(value, default=str)) > self.max_chars:
                    del data[mime]
            if not data:
                data["text/plain"] = "[an output too large to keep, cut by the grader]"
            output.pop("transient", None)
        elif output.output_type == "error":
            output.ename = self._cap(str(output.get("ename", "")))[:200]
            output.evalue = self._cap(str(output.get("evalue", "")))
            output.traceback = [self._cap(str(line)) for line in output.get("traceback", [])[-30:]]
        return output

    def preprocess_cell(self, cell, resources, index):
        outputs = cell.get("outputs", [])
        if not outputs:
            return cell, resources
        kept = []
        for output in outputs[: self.max_outputs]:
            output = self._cap_output(output)
            size = len(json.dumps(output, default=str))
            if self._total + size > self.max_total_chars:
                kept.append(self._note("the rest of this notebook's output was cut by the grader"))
                self._total = self.max_total_chars + 1
                break
            self._total += size
            kept.append(output)
        if len(outputs) > self.max_outputs and self._total <= self.max_total_chars:
            kept.append(self._note(f"{len(outputs) - self.max_outputs} more outputs cut by the grader"))
        cell.outputs = kept
        return cell, resources


class ClearHiddenTestsInTestCells(ClearHiddenTests):
    """nbgrader's ClearHiddenTests, for test cells only.

    Hidden tests live only in the instructor's test cells. A student who writes the marker
    ``### BEGIN HIDDEN TESTS`` in their own cell (in a comment, say) must not make the
    whole notebook's feedback fail ("No end hidden tests statement found").
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not utils.is_grade(cell) or utils.is_solution(cell):
            return cell, resources
        return super().preprocess_cell(cell, resources, index)


FEEDBACK_RECORDS = ("timestamp.txt", "submission_secret.txt")  # what `nbgrader release_feedback` reads


def feedback_html_only():
    """``nbgrader generate_feedback`` writes the HTML pages, and of the other files of the autograded
    folder only nbgrader's own records that ``release_feedback`` needs (FEEDBACK_RECORDS).

    nbgrader copies every non-notebook file it finds there into feedback/; a student's
    kernel cannot write there any more (it runs in the sandbox), but nothing else
    belongs in feedback either.
    """
    from nbgrader.converters import GenerateFeedback

    def copy_records(self, assignment_id, student_id):
        source = self._format_source(assignment_id, student_id)
        dest = self._format_dest(assignment_id, student_id)
        for name in FEEDBACK_RECORDS:
            path = os.path.join(source, name)
            if os.path.isfile(path) and not os.path.islink(path):
                os.makedirs(dest, exist_ok=True)
                shutil.copyfile(path, os.path.join(dest, name))

    GenerateFeedback.init_assignment = copy_records


class HideHiddenTestDetails(NbGraderPreprocessor):
    passed_note = Unicode("").tag(config=True)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not utils.is_grade(cell) or HIDDEN_BEGIN not in cell.source:
            return cell, resources
        errors = [o for o in cell.outputs if o.output_type == "error"]
        cell.outputs = []
        for error in errors[:1]:
            message = f"{error.ename}: {error.evalue}".strip()
            cell.outputs.append(
                {"output_type": "error", "ename": error.ename, "evalue": error.evalue,
                 "traceback": [f"{self._check_failed(resources)} {message}"]})
        return cell, resources

    @staticmethod
    def _check_failed(resources):
        """'Check failed.' in the edition's language (a translated edition's CHECK_FAILED)."""
        from grading import build, language

        assignment = (resources or {}).get("nbgrader", {}).get("assignment", "")
        return "Check failed." if language(assignment) == "en" else build.load_i18n(assignment).CHECK_FAILED


class ResilientExecute(Execute):
    """nbgrader's Execute, but a submission that hangs or kills its kernel loses only its own points.

    nbgrader alone drops the whole submission ("Removing failed assignment") when a
    cell outlives its timeout and ignores the interrupt (a loop that catches
    KeyboardInterrupt), or when the kernel dies (``os._exit``, a crash, the
    out-of-memory killer). Here the cell gets an error that says what happened, and
    every later cell an error saying it was not run, so all that was graded before
    still counts and the rest of the class is graded as usual.
    """

    raise_on_iopub_timeout = Bool(False).tag(config=True)
    interrupt_grace = Integer(3, help="Seconds a timed-out cell gets to stop after the interrupt").tag(config=True)

    _stopped = None  # why the kernel is gone, once it is

    def _student_label(self):
        """The autograded folder being run: autograded/<student>/<assignment>."""
        return (getattr(self, "resources", None) or {}).get("metadata", {}).get("path", "?")

    async def _async_handle_timeout(self, timeout, cell=None):
        self.log.error("Cell ran longer than %s s in %s; interrupting it", timeout, self._student_label())
        await ensure_async(self.km.interrupt_kernel())
        try:  # an interruptible cell answers at once, and the kernel keeps its state
            await ensure_async(self.kc.shell_channel.get_msg(timeout=self.interrupt_grace))
        except Empty:
            self.log.error("The cell ignored the interrupt in %s; stopping its kernel", self._student_label())
            self._stopped = (f"this cell ran longer than {timeout} s and ignored the interrupt, so its kernel "
                             "was stopped")
            await ensure_async(self.km.shutdown_kernel(now=True))
        evalue = self._stopped or f"this cell ran longer than {timeout} s and was interrupted"
        return {"content": {"status": "error", "ename": "CellTimeoutError", "evalue": evalue,
                            "traceback": [f"CellTimeoutError: {evalue}"]}}

    def preprocess(self, nb, resources=None, km=None):
        self._stopped = None  # each notebook starts with a live kernel
        return super().preprocess(nb, resources, km=km)

    def _error(self, cell, ename, evalue):
        cell.outputs.append(nbformat.v4.new_output("error", ename=ename, evalue=evalue,
                                                   traceback=[f"{ename}: {evalue}"]))

    def preprocess_cell(self, cell, resources, index):
        if self._stopped and cell.cell_type == "code":
            self._error(cell, "NotRun", f"not run: {self._stopped} in an earlier cell")
            return cell, self.resources
        try:
            return super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            if not self._stopped:
                self.log.error("The kernel died in cell %s of %s", index, self._student_label())
                self._stopped = ("the Python kernel stopped (os._exit, a crash, or too much memory)")
                self._error(cell, "DeadKernelError", self._stopped + " while running this cell")
            else:
                self._error(cell, "CellTimeoutError", self._stopped)
            return cell, self.resources


class SandboxedExecute(ResilientExecute):
    """Autograde with the student's kernel in the sandbox and every verdict decided by the grader.

    Phase 1 runs the notebook in a sandboxed kernel (grading/sandbox.py), test cells
    without their hidden tests. Phase 2, with the same kernel still alive, runs each
    whole test cell in the grader (grading/verdicts.py), which calls the student's
    function in the kernel and compares the answers itself. A test cell's outputs are
    then the grader's: what the checks printed, or one error with the check's message.

    With ``GRADER_UNSAFE_NO_SANDBOX=1`` (``make grade ARGS=--unsafe-no-sandbox``) the kernel
    runs unconfined; the verdicts are still decided here.
    """

    source_dir = Unicode(help="The assignment's source folder, with {assignment} in it").tag(config=True)
    helpers_file = Unicode("spec_checks.py", help="The course's helper module in the source folder").tag(config=True)
    max_message_bytes = Integer(2 * 2**20, help="Largest message part read from the kernel (zmq MAXMSGSIZE): a "
                                "larger one is dropped before it is parsed, and the connection reset").tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        from nbclient import NotebookClient

        from grading import sandbox, verdicts

        self._stopped = None
        assignment = (resources or {}).get("nbgrader", {}).get("assignment", "")
        helpers = Path(self.source_dir.format(assignment=assignment)) / self.helpers_file
        self._judge = verdicts.Judge(helpers, self._call)
        self._sandboxed = not sandbox.unsafe()
        problem = sandbox.check_once() if self._sandboxed else None
        if problem:
            raise sandbox.SandboxUnavailable(problem)
        self.kernel_manager_class = sandbox.kernel_manager_class()
        NotebookClient.__init__(self, nb, km)
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        tests = []
        with self.setup_kernel():
            info = self.wait_for_reply(self.kc.kernel_info())
            self.nb.metadata["language_info"] = info["content"]["language_info"]
            diagnosis_cell = None
            for index, cell in enumerate(self.nb.cells):
                if verdicts.is_test_cell(cell):
                    tests.append(cell)
                    self._run_visible_part(cell, resources, index)
                else:
                    self.preprocess_cell(cell, resources, index)
                    if cell.metadata.get("nbgrader", {}).get("grade_id") == DIAGNOSIS_CELL:
                        diagnosis_cell = cell
            for cell in tests:
                cell.outputs = self._judge.outputs(cell.source)
            if diagnosis_cell is not None:
                from grading import diagnosis

                notebook = (resources or {}).get("nbgrader", {}).get("notebook", "")
                text = diagnosis.line(notebook, self._judge, assignment=assignment) + "\n"
                diagnosis_cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
        self.set_widgets_metadata()
        return self.nb, self.resources

    def create_kernel_manager(self):
        from grading import sandbox

        km = super().create_kernel_manager()
        km.helpers_path = str(self._judge.helpers.__file__)
        client, cap = km.client, self.max_message_bytes

        def capped_client(**kwargs):  # every socket of the grader's client refuses larger messages unread
            kc = client(**kwargs)
            kc.context.setsockopt(zmq.MAXMSGSIZE, cap)
            return kc
        km.client = capped_client
        if isinstance(km, sandbox.SandboxedKernelManager):
            folder = self.resources.get("metadata", {}).get("path") or "."
            km.sandbox_files = {rel: str(host) for host, rel in sandbox.workdir_files(folder)}
        return km

    def _run_visible_part(self, cell, resources, index):
        from grading import verdicts

        source = cell.source
        visible = verdicts.visible_part(source)
        if not verdicts.has_code(visible):
            cell.outputs = []
            return
        cell.source = visible
        try:
            self.preprocess_cell(cell, resources, index)
        finally:
            cell.source = source

    def _call(self, content):
        """Send one grader call to the kernel; its reply's content, or KernelGone."""
        from grading.verdicts import KernelGone

        if self._stopped:
            raise KernelGone(self._stopped)
        return run_sync(self._async_call)(content)

    async def _async_call(self, content):
        """The reply to one grader call, within an absolute deadline (``timeout``, then ``interrupt_grace``
        after an interrupt): messages that answer something else, or cannot be read, are skipped and
        extend nothing."""
        from grading.verdicts import KernelGone

        msg = self.kc.session.msg("grader_call_request", content)
        self.kc.shell_channel.send(msg)
        deadline = time.monotonic() + (self.timeout or 60)
        interrupted, unreadable = False, 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                alive = await ensure_async(self.km.is_alive())
                if alive and not interrupted:
                    self.log.error("A check ran longer than %s s in %s; interrupting it", self.timeout,
                                   self._student_label())
                    await ensure_async(self.km.interrupt_kernel())
                    deadline, interrupted = time.monotonic() + self.interrupt_grace, True
                    continue
                why = ("the kernel stopped answering" if alive else "the Python kernel stopped")
                self.log.error("No answer to a check in %s: %s", self._student_label(), why)
                self._stopped = f"{why}, so this check could not run"
                await ensure_async(self.km.shutdown_kernel(now=True))
                raise KernelGone(self._stopped) from None
            try:
                reply = await ensure_async(self.kc.shell_channel.get_msg(timeout=min(0.5, left)))
            except Empty:
                if not await ensure_async(self.km.is_alive()):
                    deadline = 0  # a dead kernel sends nothing more: say so now
                continue
            except Exception as exc:  # a message jupyter_client could not read (signature, JSON): skip it
                if not unreadable:
                    self.log.warning("An unreadable message from the kernel of %s: %s", self._student_label(), exc)
                unreadable += 1
                continue
            parent = reply.get("parent_header") if isinstance(reply, dict) else None
            if isinstance(parent, dict) and parent.get("msg_id") == msg["header"]["msg_id"]:
                if reply["header"]["msg_type"] != "grader_call_reply" or not isinstance(reply.get("content"), dict):
                    raise KernelGone("the kernel sent no valid answer")
                return reply["content"]


class EditionClearSolutions(ClearSolutions):
    """ClearSolutions with the code stub in the edition's language: a translated edition's
    CODE_STUB (lessons/i18n/<assignment>.py) in place of ``ClearSolutions.code_stub``."""

    def preprocess(self, nb, resources):
        from grading import build, language

        assignment = (resources or {}).get("nbgrader", {}).get("assignment", "")
        english = dict(self.code_stub)
        if language(assignment) != "en":
            self.code_stub = dict(english, python=build.load_i18n(assignment).CODE_STUB)
        try:
            return super().preprocess(nb, resources)
        finally:
            self.code_stub = english

