"""nbgrader preprocessors of this course, switched on in nbgrader_config.py.

- ``CapOutputSize`` (autograde): a submission that prints megabytes keeps only
  the head and tail of each output, so the autograded notebook stays small.
- ``HideHiddenTestDetails`` (feedback): a failed hidden check shows the
  student its one-line message, never the hidden test's code. Tracebacks and
  anything printed inside a hidden test cell are removed.
"""

from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader import utils
from traitlets import Integer, Unicode

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
