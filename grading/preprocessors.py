"""nbgrader preprocessors of this course, switched on in nbgrader_config.py.

- ``ResilientExecute`` (autograde): see its docstring; hangs and crashes cost
  only the submission's own points.

- ``CapOutputSize`` (autograde): a submission that prints megabytes keeps only
  the head and tail of each output, so the autograded notebook stays small.
- ``HideHiddenTestDetails`` (feedback): a failed hidden check shows the
  student its one-line message, never the hidden test's code. Tracebacks and
  anything printed inside a hidden test cell are removed.
"""

import nbformat
from jupyter_core.utils import ensure_async, run_sync
from nbclient.exceptions import DeadKernelError
from nbgrader import utils
from nbgrader.preprocessors import Execute, NbGraderPreprocessor
from traitlets import Bool, Integer, Unicode

HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"


class CapOutputSize(NbGraderPreprocessor):
    max_chars = Integer(20_000, help="Characters kept of each text output").tag(config=True)

    def _cap(self, text):
        if len(text) <= self.max_chars:
            return text
        half = self.max_chars // 2
        cut = len(text) - 2 * half
        return f"{text[:half]}\n... [{cut} characters cut by the grader] ...\n{text[-half:]}"

    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                output.text = self._cap(output.text)
            elif output.output_type in ("execute_result", "display_data"):
                for mime, value in list(output.get("data", {}).items()):
                    if isinstance(value, str):
                        output.data[mime] = self._cap(value)
            elif output.output_type == "error":
                output.evalue = self._cap(output.evalue)
                output.traceback = [self._cap(line) for line in output.traceback[-30:]]
        return cell, resources


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
                 "traceback": [f"Hidden check failed. {message}"]})
        return cell, resources


class ResilientExecute(Execute):
    """nbgrader's Execute, but a submission that hangs or kills its kernel loses only its own points.

    nbgrader alone drops the whole submission ("Removing failed assignment") when a
    cell outlives its timeout and ignores the interrupt (a loop that catches
    KeyboardInterrupt), or when the kernel dies (``os._exit``, out of memory). Here
    the kernel is restarted instead: the cell gets an error that says what happened,
    and the remaining cells run (and fail) in the fresh kernel, so everything graded
    before still counts.
    """

    raise_on_iopub_timeout = Bool(False).tag(config=True)

    def _error_reply(self, ename, evalue):
        line = f"{ename}: {evalue}"
        return {"content": {"status": "error", "ename": ename, "evalue": evalue, "traceback": [line]}}

    async def _restart(self):
        self.log.warning("Restarting the kernel of %s", self._student_label())
        await ensure_async(self.km.restart_kernel(now=True))
        await ensure_async(self.kc.wait_for_ready(timeout=self.startup_timeout))

    def _student_label(self):
        """The autograded folder being run: autograded/<student>/<assignment>."""
        return (getattr(self, "resources", None) or {}).get("metadata", {}).get("path", "?")

    async def _async_handle_timeout(self, timeout, cell=None):
        self.log.error("Cell ran longer than %s s in %s; restarting its kernel", timeout, self._student_label())
        await self._restart()
        return self._error_reply(
            "CellTimeoutError",
            f"this cell ran longer than {timeout} s and did not stop when interrupted, so the kernel was "
            "restarted; the cells after it run without your earlier definitions")

    def preprocess_cell(self, cell, resources, index):
        try:
            return super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self.log.error("The kernel died in cell %s of %s; restarting it", index, self._student_label())
            run_sync(self._restart)()
            reply = self._error_reply(
                "DeadKernelError",
                "the Python kernel stopped while running this cell (os._exit, a crash, or too much memory), "
                "so it was restarted; the cells after it run without your earlier definitions")["content"]
            cell.outputs.append(nbformat.v4.new_output("error", ename=reply["ename"], evalue=reply["evalue"],
                                                       traceback=reply["traceback"]))
            return cell, self.resources
