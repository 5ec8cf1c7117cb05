"""nbgrader preprocessors of this course, switched on in nbgrader_config.py.

- ``ResilientExecute`` (autograde): see its docstring; hangs and crashes cost
  only the submission's own points.

- ``CapOutputSize`` (autograde): a submission that prints megabytes keeps only
  the head and tail of each output, so the autograded notebook stays small.
- ``HideHiddenTestDetails`` (feedback): a failed hidden check shows the
  student its one-line message, never the hidden test's code. Tracebacks and
  anything printed inside a hidden test cell are removed.
- ``SanitizeStudentContent`` (every HTML page of a notebook: feedback and the
  formgrader) and ``PageExporter`` (feedback): no student script runs there.
"""

import html
import json
import os
import re
import shutil
import time
from pathlib import Path
from queue import Empty

import nbformat
import zmq

from jupyter_core.utils import ensure_async, run_sync
from nbclient.exceptions import DeadKernelError
from nbconvert.exporters import HTMLExporter
from nbconvert.preprocessors.sanitize import SanitizeHTML
from nbgrader import utils
from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions, Execute, NbGraderPreprocessor
from traitlets import Any, Bool, Float, Integer, List, Set, Unicode, default

from grading.sandbox import budgets
from grading.judge import grader_text

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
        from grading.plugins import sanitize

        self._total = 0
        assignment = (resources or {}).get("nbgrader", {}).get("assignment", "")
        self._words = grader_text.words(assignment)
        cut = sanitize.bound_notebook(nb, assignment)  # the autograded notebook is bounded in size too (issue 41)
        if cut:
            self.log.warning("Notebook of %s cut before it is saved: %s", (resources or {}).get("metadata", {}).get(
                "path", "?"), "; ".join(cut))
        return super().preprocess(nb, resources)

    def _cap(self, text):
        if len(text) <= self.max_chars:
            return text
        half = self.max_chars // 2
        marker = getattr(self, "_words", grader_text.ENGLISH)["output_chars_cut"].format(count=len(text) - 2 * half)
        return f"{text[:half]}\n... [{marker}] ...\n{text[-half:]}"

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
                data["text/plain"] = f"[{getattr(self, '_words', grader_text.ENGLISH)['output_too_large']}]"
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
                kept.append(self._note(getattr(self, "_words", grader_text.ENGLISH)["output_rest_cut"]))
                self._total = self.max_total_chars + 1
                break
            self._total += size
            kept.append(output)
        if len(outputs) > self.max_outputs and self._total <= self.max_total_chars:
            kept.append(self._note(getattr(self, "_words", grader_text.ENGLISH)["outputs_cut"].format(
                count=len(outputs) - self.max_outputs)))
        cell.outputs = kept
        return cell, resources


class CoalesceStreams(NbGraderPreprocessor):
    """One output for each run of a cell's consecutive prints to one stream.

    The kernel sends what a cell prints in pieces, cut wherever its flush timer fell, so one print could
    reach the page as one block or as two from one grading to the next (and LimitOutput, which counts lines
    per output, could cut one and not the other). Joined, the page is the same every time."""

    def preprocess_cell(self, cell, resources, index):
        merged = []
        for output in cell.get("outputs", []):
            last = merged[-1] if merged else None
            if (output.get("output_type") == "stream" and last is not None and last.get("output_type") == "stream"
                    and last.get("name") == output.get("name")):
                last["text"] = str(last.get("text", "")) + str(output.get("text", ""))
            else:
                merged.append(output)
        if "outputs" in cell:
            cell.outputs = merged
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
            failed = self._check_failed(resources)
            space = "" if "\u3000" <= failed[-1:] <= "\u303f" or "\uff00" <= failed[-1:] <= "\uffef" else " "  # 。 takes no space after it
            cell.outputs.append(
                {"output_type": "error", "ename": error.ename, "evalue": error.evalue,
                 "traceback": [f"{failed}{space}{message}"]})
        return cell, resources

    @staticmethod
    def _check_failed(resources):
        """'Check failed.' in the edition's language (a translated edition's CHECK_FAILED)."""
        from grading import language
        from grading.build import notebooks as build

        assignment = (resources or {}).get("nbgrader", {}).get("assignment", "")
        return "Check failed." if language(assignment) == "en" else build.load_i18n(assignment).CHECK_FAILED


# --------------------------------------------------------------------------- pages (issue 19)
# Every page that shows a student's notebook (the feedback pages, the formgrader's view of a
# submission) renders it through nbconvert's HTMLExporter: SanitizeStudentContent runs first, so no
# student HTML, SVG, markdown or script output can run anything there. The pages that are ours
# (feedback, the class report) also carry PAGE_CSP, which forbids every inline script.

# MathJax is inside each feedback page (issue 42 item 3: a classroom without the internet never reached the CDN):
# MathJax 3's self-contained tex-svg-full.js from the pinned django-static-mathjax package, and its configuration,
# as two inline scripts (templates/base/mathjax.html.j2, found before nbconvert's base); the page's CSP allows
# these two by hash, no other.
MATHJAX_CONFIG = ("window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], "
                  "displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']], processEscapes: true}, "
                  "svg: {fontCache: 'global'}, options: {enableMenu: false}};")


def mathjax_source():
    """MathJax 3's tex-svg-full.js, as the feedback page inlines it. The full one holds every TeX extension: one
    that MathJax would load by itself (e.g. for a student's \\href) is refused by the CSP, which stopped all
    typesetting. A "</script" in it, were there one, would end the script early: written "<\\/script"."""
    import mathjax

    with open(Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg-full.js", encoding="utf-8") as fh:
        return re.sub(r"</(script)", r"<\\/\1", fh.read(), flags=re.IGNORECASE)


def _script_hash(text):
    import base64
    import hashlib

    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


try:
    MATHJAX_SCRIPTS = f"{_script_hash(MATHJAX_CONFIG)} {_script_hash(mathjax_source())}"
except ImportError:  # without the package the page shows formulas as TeX, and allows no script at all
    MATHJAX_SCRIPTS = "'none'"
PAGE_CSP = ("default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; "
            f"script-src {MATHJAX_SCRIPTS}; "
            "base-uri 'none'; form-action 'none'; frame-src 'none'; object-src 'none'")
CSP_META = f'<meta http-equiv="Content-Security-Policy" content="{PAGE_CSP}">'

PAGE_TAGS = [
    "a", "abbr", "acronym", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd", "del",
    "details", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img",
    "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp", "small", "span", "strong", "sub", "summary",
    "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul", "var",
    # SVG drawn inline by the course's own pictures (spec_widgets.number_line_svg); never script, use or foreignObject
    "svg", "g", "rect", "line", "polyline", "polygon", "path", "circle", "ellipse", "text", "tspan", "title",
]
SVG_TAGS = ("svg", "g", "rect", "line", "polyline", "polygon", "path", "circle", "ellipse", "text", "tspan")
SVG_ATTRIBUTES = {
    "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "d", "points", "width", "height", "viewbox",
    "fill", "fill-opacity", "stroke", "stroke-width", "stroke-opacity", "stroke-dasharray", "opacity", "transform",
    "text-anchor", "dominant-baseline", "font-family", "font-size", "font-weight", "xmlns",
}
PAGE_ATTRIBUTES = {
    "*": {"class", "title", "style", "align"},
    "a": {"href"}, "img": {"src", "alt", "width", "height"}, "td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan"},
    **{f"h{n}": {"id"} for n in range(1, 7)},  # nbconvert's heading anchors
    **{tag: SVG_ATTRIBUTES for tag in SVG_TAGS},
}
PAGE_STYLES = ["color", "background-color", "font-style", "font-weight", "font-size", "font-family", "text-align",
               "text-decoration", "vertical-align", "white-space", "width", "height", "max-width", "display",
               "border", "border-left", "border-right", "border-top", "border-bottom", "border-collapse",
               "padding", "padding-left", "padding-right", "padding-top", "padding-bottom",
               "margin", "margin-left", "margin-right", "margin-top", "margin-bottom", "opacity", "line-height"]
LINK_SCHEMES = ("http", "https", "mailto")
IMAGE_DATA = ("data:image/png;", "data:image/jpeg;", "data:image/gif;", "data:image/svg+xml;")


def page_attribute(tag, name, value):
    """bleach's attribute filter: PAGE_ATTRIBUTES; a picture only from a data: URI (never a request),
    a link only to LINK_SCHEMES."""
    name = name.lower()
    if name not in PAGE_ATTRIBUTES.get(tag, ()) and name not in PAGE_ATTRIBUTES["*"]:
        return False
    if tag == "img" and name == "src":
        return value.strip().lower().startswith(IMAGE_DATA)
    if tag in SVG_TAGS and "url(" in re.sub(r"\s", "", value).lower() and not value.strip().startswith("url(#"):
        return False  # an SVG paint from another document (fill="url(http://...)") would be a request
    if name == "href":  # bleach misses javascript: in an SVG <a>: only these schemes, or none (a relative link)
        scheme = re.match(r"([a-z][a-z0-9+.-]*):", re.sub(r"[\x00-\x20]", "", value).lower())
        return not scheme or scheme.group(1) in LINK_SCHEMES
    return True


_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)[^>]*?(/?)>")
VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
             "param"}


def nesting_depth(markup):
    """How deeply the tags of ``markup`` nest (void and self-closed tags do not count), in one linear pass."""
    depth = deepest = 0
    for closing, tag, self_closed in _TAG.findall(markup):
        if tag.lower() in VOID_TAGS or self_closed:
            continue
        depth = max(depth - 1, 0) if closing else depth + 1
        deepest = max(deepest, depth)
    return deepest


class SanitizeStudentContent(SanitizeHTML):
    """nbconvert's SanitizeHTML (bleach), with the course's allow-list, for every page of a student's notebook.

    - text/html outputs and the SVG drawn in them keep the tags of PAGE_TAGS; any other tag
      (``<script>``, ``<iframe>``, ``<foreignObject>``, ...) is shown as text, every event handler
      and ``javascript:`` link is dropped, a picture is kept only from a data: URI.
    - Markdown (cells and text/markdown outputs) is rendered first, as the page would, and then
      sanitised; the page renders the result unchanged (one HTML block).
    - application/javascript, widget views and every MIME type not listed are dropped; SVG outputs
      stay (the page shows them as an <img>, where SVG runs no script); ``isolated`` HTML and output
      file names (an <img> pointing anywhere) are dropped from output metadata.
    """

    tags = List(Unicode(), default_value=PAGE_TAGS).tag(config=True)
    attributes = Any(default_value=page_attribute).tag(config=True)
    styles = List(Unicode(), default_value=PAGE_STYLES).tag(config=True)
    safe_output_keys = Set(default_value={"metadata", "text/plain", "text/latex", "application/json", "image/png",
                                          "image/jpeg", "image/svg+xml"}).tag(config=True)

    # What the sanitiser renders is bounded: bleach (html5lib) takes time quadratic in how deeply tags nest
    # (the red team's 20,000 nested <div>s took 32 s), so a string nested deeper than MAX_DEPTH, a markdown
    # cell longer than MAX_CELL_CHARS, and everything past MAX_NOTEBOOK_CHARS in one notebook is shown as
    # escaped text, saying why. The course's own notebooks render about 10,000 characters, nested < 20 deep.
    MAX_DEPTH, MAX_CELL_CHARS, MAX_NOTEBOOK_CHARS = 100, 50_000, 400_000
    # A student's markup is painted only inside its own box: with allowed CSS alone (negative margins,
    # opacity) a markdown cell could otherwise cover the page's real score with a fake one.
    CONTAINED = "contain: paint; overflow: hidden"

    def preprocess(self, nb, resources):
        from grading.plugins import sanitize

        nb.metadata.pop("widgets", None)  # a page with widget state would load a widget manager
        assignment = (resources or {}).get("nbgrader", {}).get("assignment", "") if isinstance(resources, dict) else ""
        sanitize.bound_notebook(nb, assignment, shown_graded=True)  # before anything renders it (issue 41)
        self._rendered_chars = 0
        return super().preprocess(nb, resources)

    def _too_much(self, text):
        """Why ``text`` is shown as text rather than rendered, or None."""
        self._rendered_chars = getattr(self, "_rendered_chars", 0) + len(text)
        if self._rendered_chars > self.MAX_NOTEBOOK_CHARS:
            return f"this notebook has more than {self.MAX_NOTEBOOK_CHARS:,} characters of markup"
        if nesting_depth(text) > self.MAX_DEPTH:
            return f"its tags nest more than {self.MAX_DEPTH} deep"
        return None

    @staticmethod
    def _as_text(text, why):
        return (f"<pre>{html.escape(text[:20_000])}</pre>"
                f"<p><i>[shown as text, not rendered: {html.escape(why)}]</i></p>")

    def sanitize_code_outputs(self, outputs):
        outputs = super().sanitize_code_outputs(outputs)
        for output in outputs:
            data = output.get("data")
            if isinstance(data, dict) and isinstance(data.get("text/html"), str):
                data["text/html"] = f"<div style='{self.CONTAINED}'>{data['text/html']}</div>"
        return outputs

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "markdown":
            cell.source = self.markdown_html(str(cell.source), cell.get("attachments") or {})
            return cell, resources
        if cell.cell_type == "code":
            if not isinstance(cell.get("execution_count"), (int, type(None))):
                cell.execution_count = None  # the page writes the prompt's number unescaped
            for output in cell.get("outputs", []):
                self._clean_output(output)
        return super().preprocess_cell(cell, resources, index)

    def _clean_output(self, output):
        metadata = output.get("metadata")
        if isinstance(metadata, dict):
            metadata.pop("filenames", None)
            for value in metadata.values():
                if isinstance(value, dict):
                    value.pop("isolated", None)
                    for size in ("width", "height"):  # nbconvert writes them unquoted into the <img>
                        if size in value and not isinstance(value[size], (int, float)):
                            del value[size]
        if "execution_count" in output and not isinstance(output["execution_count"], int):
            output["execution_count"] = None
        data = output.get("data")
        if not isinstance(data, dict):
            return
        for mime, value in list(data.items()):
            if mime != "application/json" and not isinstance(value, str):
                data[mime] = json.dumps(value, default=str)  # a non-string never reaches a template as markup
        if "text/markdown" in data:
            data["text/markdown"] = self.markdown_html(data["text/markdown"], {})

    # The lesson's cells and pictures repeat in every student's notebook: each short string is sanitised once
    # per command (bleach costs ~20 ms a cell). At most CACHED strings of at most CACHED_CHARS each (~20 MB).
    CACHED, CACHED_CHARS = 2_000, 4_000

    def _remembered(self, name, key, size, compute):
        if size > self.CACHED_CHARS:
            return compute()
        cache = self.__dict__.setdefault(name, {})
        if key not in cache:
            if len(cache) >= self.CACHED:
                cache.clear()
            cache[key] = compute()
        return cache[key]

    def sanitize_html_tags(self, html_str):
        from bleach import clean
        from bleach.css_sanitizer import CSSSanitizer

        why = self._too_much(html_str)
        if why:
            return self._as_text(html_str, why)
        return self._remembered("_cleaned", html_str, len(html_str), lambda: clean(
            html_str, tags=self.tags, attributes=self.attributes, protocols=["http", "https", "mailto", "data"],
            strip=self.strip, strip_comments=self.strip_comments,
            css_sanitizer=CSSSanitizer(allowed_css_properties=self.styles)))

    def markdown_html(self, source, attachments):
        """The sanitised HTML of ``source``, as one line, which markdown renders unchanged."""
        if attachments:
            return self._markdown_html(source, attachments)
        return self._remembered("_rendered", source, len(source), lambda: self._markdown_html(source, {}))

    def _markdown_html(self, source, attachments):
        from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

        if len(source) > self.MAX_CELL_CHARS:
            clean = self._as_text(source, f"a markdown cell of {len(source):,} characters (at most "
                                          f"{self.MAX_CELL_CHARS:,} are rendered)")
        elif getattr(self, "_rendered_chars", 0) + len(source) > self.MAX_NOTEBOOK_CHARS:  # past the budget: not
            clean = self._as_text(source, self._too_much(source))  # even given to mistune (issue 41)
        else:
            try:
                rendered = MarkdownWithMath(renderer=IPythonRenderer(escape=False, attachments=attachments)).render(
                    source)
            except Exception as e:  # e.g. a missing attachment: show the text, say why
                rendered = f"<pre>{html.escape(source)}</pre><p><i>[not rendered: {html.escape(str(e))}]</i></p>"
            clean = self.sanitize_html_tags(rendered)
        clean = clean.replace("\r", "").replace("\n", "&#10;")
        return f"<div class='sanitized' style='{self.CONTAINED}'>{clean}</div>"


TEMPLATES = Path(__file__).resolve().parent.parent / "templates"  # the feedback page's template and its words
PAGE_TEMPLATE = "course_feedback"


def page_labels(language):
    """The feedback page's own words in ``language`` (grading.language of an assignment), from
    templates/labels.json: one entry per language, shared by every edition in it."""
    labels = json.loads((TEMPLATES / "labels.json").read_text(encoding="utf-8"))
    if language not in labels:
        raise ValueError(f"grading/templates/labels.json has no labels for the language {language!r}: add them")
    return labels[language]


def check_description(cell, labels):
    """What a test cell checks: the sentence of its first line ("# Hidden check: position i reads row i, ..."
    gives "position i reads row i, ..."), or, for a cell without one (the visible test), the page's words for it."""
    first = cell.source.lstrip().split("\n", 1)[0] if isinstance(cell.source, str) else ""
    said = re.match(r"#\s*[^:：]{1,40}[:：]\s*(\S.*)$", first)
    return said.group(1).strip() if said else labels["visible_test"]


def check_hint(cell, labels):
    """A failed check's message: its first error's (the grader's; an assertion's without the word
    AssertionError, any other error with its type), or, with none recorded, the page says it cannot tell."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            ename, evalue = str(output.get("ename", "")), str(output.get("evalue", "")).strip()
            if ename == "AssertionError" and evalue:
                return evalue
            return f"{ename}: {evalue}" if evalue else ename
    return labels["no_message"]


def feedback_summary(nb, labels, assignment=""):
    """The summary on top of a feedback page: the diagnosis line as the grader wrote it, and every
    graded cell by its description, with points, passed or failed and a failed one's hint, failed first."""
    checks, diagnosis = [], None
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade_id") == DIAGNOSIS_CELL and not meta.get("grade"):
            said = "".join(str(o.get("text", "")) for o in cell.get("outputs", []) if o.get("output_type") == "stream")
            if not said.strip():  # the diagnosis words' own prefix ("Diagnosis: ", "诊断："), grading/judge/diagnosis.py
                from grading.judge import diagnosis as diagnoses
                said = diagnoses.texts(assignment or "level23_speculative_decoding")[0]["prefix"] + labels["no_diagnosis"]
            diagnosis = said.strip()
        if not meta.get("grade") or (meta.get("solution") and cell.cell_type == "code"):
            continue
        score, points = float(meta.get("score") or 0), float(meta.get("points") or 0)
        passed = score >= points
        checks.append({"grade_id": meta.get("grade_id", ""), "description": check_description(cell, labels),
                       "score": score, "points": points, "passed": passed,
                       "hint": None if passed else check_hint(cell, labels)})
    checks.sort(key=lambda c: c["passed"])  # failed first, each group in the notebook's order
    return {"labels": labels, "diagnosis": diagnosis, "checks": checks}


class _MathJaxSource:
    """MathJax's 2 MB of script, read when a page is rendered, not when this module is imported."""

    def __str__(self):
        return mathjax_source()

    __html__ = __str__


class PageExporter(HTMLExporter):
    """nbconvert's HTMLExporter for the feedback pages: the course's template (templates/course_feedback:
    nbgrader's feedback page with a summary on top, readable at any width, in the edition's language),
    and a page that forbids inline script (CSP_META first in its <head>).

    nbgrader_config.py selects the template with ``PageExporter.configure(c)``; ``nbgrader
    generate_feedback``, ``make grade`` and the hub's release_feedback all show the page it writes."""

    @staticmethod
    def configure(c):
        import nbgrader

        formgrader = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader"
        c.PageExporter.template_name = PAGE_TEMPLATE
        c.PageExporter.extra_template_basedirs = [str(TEMPLATES), str(formgrader / "templates")]
        # 'feedback/index.html.j2' (extended) and bootstrap.min.css (included), as nbgrader's own feedback finds them
        c.PageExporter.extra_template_paths = [str(formgrader / "templates"),
                                               str(formgrader / "static" / "node_modules" / "bootstrap" / "dist" / "css")]

    @property
    def default_config(self):
        """HTMLExporter's, with its list of preferred output types set on the filter that reads it
        (WidgetsDataTypeFilter), not on NbConvertBase: there each of nbgrader's feedback preprocessors, which
        has its own fixed list, logged "Config option not recognized" once a run (issue 41)."""
        c = super().default_config.copy()
        base = c.get("NbConvertBase")
        if base is not None and "display_data_priority" in base:
            priority = base.pop("display_data_priority")
            c.WidgetsDataTypeFilter.setdefault("display_data_priority", priority)
        return c

    def _create_environment(self):
        environment = super()._create_environment()
        environment.globals.update(mathjax_config=MATHJAX_CONFIG, mathjax_source=_MathJaxSource())
        return environment

    def _preprocess(self, nb, resources):
        from grading import language

        nb, resources = super()._preprocess(nb, resources)
        assignment = (resources or {}).get("nbgrader", {}).get("assignment", "")
        resources["summary"] = feedback_summary(nb, page_labels(language(assignment)), assignment)
        return nb, resources

    highlight_chars = Integer(200_000, help="Characters of code highlighted on one page; past them, each further cell "
                              "is shown as plain escaped text (pygments costs ~10 s a megabyte)").tag(config=True)

    def _budgeted_highlight(self, nb):
        """nbconvert's highlight_code filter, within highlight_chars a page (issue 41)."""
        from nbconvert.filters.highlight import Highlight2HTML

        langinfo = nb.metadata.get("language_info", {}) if isinstance(nb.metadata.get("language_info"), dict) else {}
        highlight = Highlight2HTML(pygments_lexer=langinfo.get("pygments_lexer", langinfo.get("name")), parent=self)
        used = [0]

        def highlight_code(source, language=None, metadata=None):
            used[0] += len(source)
            if used[0] > self.highlight_chars:
                return f'<div class="highlight"><pre>{html.escape(source)}</pre></div>'
            return highlight(source, language, metadata)
        return highlight_code

    page_seconds = Float(budgets.FEEDBACK_PAGE, help="Seconds to render one feedback page; past them the page is "
                         "replaced by a short one that says so, with the scores (0: no bound)").tag(config=True)
    student_seconds = Float(budgets.FEEDBACK_STUDENT, help="Seconds of all one student's feedback pages of an "
                            "assignment in one run; past them each further page is the short one").tag(config=True)
    page_memory = Integer(budgets.FEEDBACK_MEMORY, help="Bytes of address space rendering one page may add to the "
                          "process's own (0: no bound)").tag(config=True)

    def _render(self, nb, resources, **kw):
        filters = self.filters
        self.filters = dict(filters, highlight_code=self._budgeted_highlight(nb))
        try:
            output, resources = super().from_notebook_node(nb, resources, **kw)
        finally:
            self.filters = filters
        if "<head>" not in output:
            raise ValueError("the page template has no <head>: the content security policy cannot be set")
        return output.replace("<head>", f"<head>\n{CSP_META}", 1), resources

    def from_notebook_node(self, nb, resources=None, **kw):
        """The page, rendered in a child process within page_seconds, page_memory and what is left of the
        student's student_seconds (issue 41): one student's notebook cannot hold the class's feedback longer.
        Past a bound the page is a short one: a note saying it was cut and why, then the scores and checks."""
        info = (resources or {}).get("nbgrader", {}) if isinstance(resources, dict) else {}
        if not self.page_seconds or not hasattr(os, "fork"):
            return self._render(nb, resources, **kw)
        key = (info.get("assignment", ""), info.get("student", ""))
        started = time.monotonic()
        spent = vars(self).setdefault("_spent", {})  # per exporter: nbgrader makes one per run (a long-lived server too)
        left = min(self.page_seconds, self.student_seconds - spent.get(key, 0.0))
        try:
            if left <= 0:
                kind, value = "student", None
            else:
                self.template  # compiled once, here, not again in every child
                kind, value = bounded_call(lambda: _picklable(self._render(nb, resources, **kw)), left, self.page_memory)
            if kind == "ok":
                return value
            words = grader_text.words(info.get("assignment", ""))
            why, said = {
                "time": (words["page_time"].format(seconds=left), f"rendering it took longer than {left:g} s"),
                "student": (words["page_student_time"].format(seconds=self.student_seconds),
                            f"the student's pages had used their {self.student_seconds:g} s"),
                "memory": (words["page_memory"].format(mb=self.page_memory // 2**20),
                           f"rendering it needed more than {self.page_memory // 2**20:,} MB"),
            }.get(kind, (words["page_failed"], f"rendering it failed: {value}"))
            self.log.warning("Feedback page of %s/%s/%s cut: %s", key[1], key[0], info.get("notebook", "?"), said)
            return self._short_page(nb, resources, words["page_cut"].format(why=why), said,
                                    words["page_cut_alone"].format(why=why), **kw)
        finally:
            spent[key] = spent.get(key, 0.0) + time.monotonic() - started

    def _short_page(self, nb, resources, note, said, alone, **kw):
        """The page of a notebook whose own page was cut: the note, then the graded cells with the student's
        answers left out (the checks' sources and messages, the diagnosis), so the scores are still shown."""
        small = nbformat.v4.new_notebook()
        for name in ("kernelspec", "language_info"):
            if isinstance(nb.get("metadata", {}).get(name), dict):
                small.metadata[name] = nb.metadata[name]
        small.cells.append(nbformat.v4.new_markdown_cell(note))
        for cell in nb.get("cells", [])[:MAX_SHORT_PAGE_CELLS]:
            meta = cell.get("metadata", {}).get("nbgrader") if isinstance(cell, dict) else None
            if not isinstance(meta, dict) or cell.get("cell_type") not in ("code", "markdown") or not (
                    meta.get("grade") or meta.get("solution") or meta.get("grade_id") == DIAGNOSIS_CELL):
                continue
            answer = bool(meta.get("solution"))
            source = "" if answer else str(cell.get("source", ""))[:5_000]
            if cell["cell_type"] == "markdown":
                small.cells.append(nbformat.v4.new_markdown_cell(source, metadata={"nbgrader": meta}))
                continue
            outputs = [] if answer else [o for o in cell.get("outputs", []) if isinstance(o, dict)
                                          and o.get("output_type") in ("error", "stream")][:5]
            for output in outputs:
                if output["output_type"] == "error":
                    output.update(evalue=str(output.get("evalue", ""))[:2_000], traceback=[])
                else:
                    output["text"] = str(output.get("text", ""))[:2_000]
            small.cells.append(nbformat.v4.new_code_cell(source, metadata={"nbgrader": meta}, outputs=outputs))
        kind, value = bounded_call(lambda: _picklable(self._render(small, resources, **kw)),
                                   SHORT_PAGE_SECONDS, self.page_memory)
        if kind == "ok":
            output, resources = value
        else:  # the short page could not be made either: the note alone
            resources = dict(resources or {}, output_extension=self.file_extension)
            output = (f"<!DOCTYPE html>\n<html><head>\n<meta charset='utf-8'>\n<title>Feedback</title></head><body>"
                      f"<p>{html.escape(alone.replace('**', ''))}</p></body></html>")
        output = output.replace("<head>", f"<head>\n{CSP_META}", 1) if CSP_META not in output else output
        return output.replace("<head>", f"<head>\n<meta name='{PAGE_CUT_META}' content='{html.escape(said, quote=True)}'>",
                              1), resources


SHORT_PAGE_SECONDS = 10  # for the short page, whatever page_seconds is (the instructor's cells and the checks' messages: ~1.3 s)
MAX_SHORT_PAGE_CELLS = 2_000  # cells of a notebook read for its short page (the course's have 46)
PAGE_CUT_META = "grader-cut-page"  # <meta name=... content="why"> on a cut page, for the class report


def _picklable(rendered):
    """(page, resources) with only the resources that can come back from a child (nbgrader writes the page from
    its unique_key, output_extension, nbgrader and outputs; nbconvert adds functions, which cannot)."""
    import pickle

    output, resources = rendered
    kept = {}
    for key, value in (resources or {}).items():
        try:
            pickle.dumps(value)
        except Exception:  # noqa: BLE001 - a function or the like, used while rendering only
            continue
        kept[key] = value
    return output, kept


def bounded_call(function, seconds, memory=0):
    """Run ``function()`` in a forked child within ``seconds`` of wall clock and ``memory`` bytes of address space
    over this process's own; return ("ok", its value), or ("time" | "memory" | "error", why). The child's value
    comes back pickled; the child is killed past the time."""
    import pickle
    import resource
    import select
    import signal

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        try:
            os.close(read)
            if memory:
                with open("/proc/self/statm") as f:
                    own = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
                _, hard = resource.getrlimit(resource.RLIMIT_AS)
                limit = own + memory if hard == resource.RLIM_INFINITY else min(own + memory, hard)
                resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
            try:
                payload = pickle.dumps(("ok", function()), protocol=pickle.HIGHEST_PROTOCOL)
            except MemoryError:
                payload = pickle.dumps(("memory", None))
            except BaseException as e:  # noqa: BLE001 - the parent says what failed
                payload = pickle.dumps(("error", f"{type(e).__name__}: {str(e)[:500]}"))
            with os.fdopen(write, "wb") as out:
                out.write(payload)
        finally:
            os._exit(0)
    os.close(write)
    chunks, deadline, finished = [], time.monotonic() + seconds, False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([read], [], [], left)
            if ready:
                chunk = os.read(read, 1 << 20)
                if not chunk:
                    finished = True
                    break
                chunks.append(chunk)
    finally:
        os.close(read)
        if not finished:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if not finished:
        return "time", None
    try:
        return pickle.loads(b"".join(chunks))
    except Exception:  # noqa: BLE001 - a child ended by the kernel (out of memory) sends nothing readable
        return ("memory" if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL else "error",
                f"the page's process ended ({status})")


_GRADING_SECONDS = {}  # ResilientExecute._student_seconds without an exporter

# The kernel's messages that put something into the notebook (or the widget state): capped as they arrive.
CAPPED_MESSAGES = ("stream", "display_data", "execute_result", "error", "update_display_data", "comm_open", "comm_msg")


def content_chars(value, limit):
    """About how many characters ``value`` (a message's content) holds: its strings, keys and items, counted
    until past ``limit`` (a flood is not walked to its end)."""
    total, stack = 0, [value]
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, (str, bytes, bytearray, memoryview)):
            total += len(item)
        elif isinstance(item, dict):
            total += len(item)
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            total += len(item)
            stack.extend(item)
        else:
            total += 8
    return total


class ResilientExecute(Execute):
    """nbgrader's Execute, but a submission that hangs or kills its kernel loses only its own points.

    nbgrader alone drops the whole submission ("Removing failed assignment") when a
    cell outlives its timeout and ignores the interrupt (a loop that catches
    KeyboardInterrupt), or when the kernel dies (``os._exit``, a crash, the
    out-of-memory killer). Here the cell gets an error that says what happened, and
    every later cell an error saying it was not run, so all that was graded before
    still counts and the rest of the class is graded as usual.

    A notebook has a wall-clock budget (``notebook_budget``) and a student's notebooks of one
    assignment one together (``student_budget``), counted from each notebook's first cell
    (grading/sandbox/budgets.py): cells that each stay under the cell timeout cannot hold the grader
    longer. The cell running when a budget ends is interrupted then; every later cell gets a
    NotRun error saying the budget was spent, and the checks not yet run fail with that message.
    """

    raise_on_iopub_timeout = Bool(False).tag(config=True)
    interrupt_grace = Integer(budgets.INTERRUPT_GRACE,
                              help="Seconds a timed-out cell gets to stop after the interrupt").tag(config=True)
    notebook_budget = Float(budgets.NOTEBOOK, help="Seconds one notebook's cells and checks may take together "
                                                   "(0: no budget)").tag(config=True)
    student_budget = Float(budgets.STUDENT, help="Seconds one student's notebooks of an assignment may take "
                                                 "together (0: no budget)").tag(config=True)

    # Output is capped as it arrives (issue 41), not only after the notebook (CapOutputSize): the grader keeps at most
    # these many characters of one message, one cell and one notebook; the rest is dropped unkept and counted, and
    # the cell gets a line saying so. A flood costs the grader the time to read it, not the memory to hold it.
    output_message_chars = Integer(100_000, help="Characters kept of one output message as it arrives (a stream's "
                                   "head and tail; any other output is replaced by a line)").tag(config=True)
    output_cell_chars = Integer(1_000_000, help="Characters of output kept of one cell as they arrive").tag(config=True)
    output_notebook_chars = Integer(1_500_000, help="Characters of output kept of one notebook as they arrive "
                                    "(under CapOutputSize's 2,000,000 after, which counts JSON)").tag(config=True)

    _stopped = None  # why the kernel is gone (or may not be used any more), once it is
    _notebook_output = 0  # characters of output kept of this notebook
    _cell_output = None  # [characters kept, messages dropped, characters dropped, errors kept] of the running cell
    _clock = None  # when this notebook's first cell started (time.monotonic())
    _budget_cut = None  # the message of the budget that cut the running cell short

    def _say(self, key, **fields):
        """The grader's message ``key`` in the language of the assignment being graded (grading/judge/grader_text.py)."""
        assignment = (getattr(self, "resources", None) or {}).get("nbgrader", {}).get("assignment", "")
        return grader_text.words(assignment)[key].format(**fields)

    def _student_key(self):
        nbgrader = (getattr(self, "resources", None) or {}).get("nbgrader", {})
        return nbgrader.get("assignment", "?"), nbgrader.get("student", "?")

    def _student_seconds(self):
        """{(assignment, student): seconds spent on their earlier notebooks}, for this grading run: kept on the
        exporter, which one `nbgrader autograde` (or one student of `make grade`'s workers) keeps throughout."""
        if self.parent is None:  # used on its own: this process's run
            return _GRADING_SECONDS
        return vars(self.parent).setdefault("_grading_seconds", {})

    def _budget_left(self):
        """(seconds left, the message to give when none is), the tighter of the notebook's and student's budgets."""
        if self._clock is None:
            self._clock = time.monotonic()
        used = time.monotonic() - self._clock
        before = self._student_seconds().get(self._student_key(), 0.0)
        left = []
        if self.notebook_budget > 0:
            left.append((self.notebook_budget - used, self._say("notebook_budget", seconds=self.notebook_budget)))
        if self.student_budget > 0:
            left.append((self.student_budget - before - used, self._say("student_budget", seconds=self.student_budget)))
        return min(left, key=lambda pair: pair[0]) if left else (float("inf"), "")

    def _check_budget(self):
        """Stop using the kernel once a budget is spent; True if one is."""
        left, why = self._budget_left()
        if left > 0:
            return False
        if not self._stopped:
            self.log.error("%s: %s; the rest is not run", self._student_label(), why)
            self._stopped = why
        return True

    def _charge_student(self):
        """Add this notebook's time to the student's; called once, when the notebook is done."""
        if self._clock is not None:
            seconds = self._student_seconds()
            key = self._student_key()
            seconds[key] = seconds.get(key, 0.0) + time.monotonic() - self._clock
            self._clock = None

    def _student_label(self):
        """The autograded folder being run: autograded/<student>/<assignment>."""
        return (getattr(self, "resources", None) or {}).get("metadata", {}).get("path", "?")

    async def _async_handle_timeout(self, timeout, cell=None):
        if self._budget_cut:
            self.log.error("%s: %s while a cell ran; interrupting it", self._student_label(), self._budget_cut)
        else:
            self.log.error("Cell ran longer than %s s in %s; interrupting it", timeout, self._student_label())
        await ensure_async(self.km.interrupt_kernel())
        try:  # an interruptible cell answers at once, and the kernel keeps its state
            await ensure_async(self.kc.shell_channel.get_msg(timeout=self.interrupt_grace))
        except Empty:
            self.log.error("The cell had not stopped %s s after the interrupt in %s; stopping its kernel",
                           self.interrupt_grace, self._student_label())
            ran = (self._say("while_cell_ran", why=self._budget_cut) if self._budget_cut
                   else self._say("ran_longer", seconds=timeout))
            self._stopped = self._say("ignored_interrupt", ran=ran, grace=self.interrupt_grace)
            await ensure_async(self.km.shutdown_kernel(now=True))
        if self._stopped:
            evalue = self._stopped
        elif self._budget_cut:
            self._stopped = self._budget_cut
            evalue = self._say("budget_interrupted", why=self._budget_cut)
        else:
            evalue = self._say("timeout_interrupted", seconds=timeout)
        return {"content": {"status": "error", "ename": "CellTimeoutError", "evalue": evalue,
                            "traceback": [f"CellTimeoutError: {evalue}"]}}

    def preprocess(self, nb, resources=None, km=None):
        self._stopped = None  # each notebook starts with a live kernel
        self._clock = None
        self._notebook_output = 0
        try:
            return super().preprocess(nb, resources, km=km)
        finally:
            self._charge_student()

    def _error(self, cell, ename, evalue):
        cell.outputs.append(nbformat.v4.new_output("error", ename=ename, evalue=evalue,
                                                   traceback=[f"{ename}: {evalue}"]))

    def process_message(self, msg, cell, cell_index):
        """nbclient's, with each output capped as it arrives: see output_message_chars."""
        if msg.get("msg_type") in CAPPED_MESSAGES:
            counts = self._cell_output if self._cell_output is not None else [0, 0, 0, 0]
            self._cell_output = counts
            size = (content_chars(msg.get("content"), self.output_notebook_chars)
                    + sum(len(b) for b in msg.get("buffers") or () if hasattr(b, "__len__")))
            if size > self.output_message_chars:
                size = self._trim_message(msg, size)
            first_error = msg.get("msg_type") == "error" and not counts[3]  # a cell's own error is always kept
            if size is None or (not first_error and (counts[0] + size > self.output_cell_chars
                                                     or self._notebook_output + size > self.output_notebook_chars)):
                counts[1] += 1
                counts[2] += size or self.output_message_chars
                return None
            counts[0] += size
            counts[3] += msg.get("msg_type") == "error"
            self._notebook_output += size
        return super().process_message(msg, cell, cell_index)

    def _trim_message(self, msg, size):
        """Cut one message over output_message_chars to that size, in place; its new size, or None to drop it."""
        content, kind, keep = msg.get("content"), msg.get("msg_type"), self.output_message_chars
        if not isinstance(content, dict) or kind in ("comm_open", "comm_msg"):
            return None
        if kind == "stream" and isinstance(content.get("text"), str):
            text, half = content["text"], keep // 2
            marker = self._say("arrived_chars_cut", count=len(text) - 2 * half)
            content["text"] = f"{text[:half]}\n... [{marker}] ...\n{text[-half:]}"
            return len(content["text"])
        if kind == "error":
            msg["content"] = {"ename": str(content.get("ename", ""))[:200],
                              "evalue": str(content.get("evalue", ""))[:keep // 2],
                              "traceback": [str(line)[:2_000] for line in (content.get("traceback") or [])[-30:]]
                              if isinstance(content.get("traceback"), list) else []}
            return content_chars(msg["content"], keep)
        transient = content.get("transient")
        display_id = transient.get("display_id") if isinstance(transient, dict) else None
        note = f"[{self._say('arrived_output_cut', size=size)}]"
        msg["content"] = dict({k: content[k] for k in ("execution_count",) if isinstance(content.get(k), int)},
                              data={"text/plain": note}, metadata={})
        if isinstance(display_id, str) and len(display_id) < 200:
            msg["content"]["transient"] = {"display_id": display_id}
        return len(note)

    def _output_note(self, cell):
        """After a cell: a line saying how much of its output was dropped as it arrived, if any was."""
        counts, self._cell_output = self._cell_output, None
        if counts and counts[1] and cell.cell_type == "code":
            # a display, not a stream: CoalesceStreams would join it to the flood before it, CapOutputSize cut it
            cell.outputs.append(nbformat.v4.new_output("display_data", data={"text/plain": "[" + self._say(
                "arrived_dropped", count=counts[1], chars=counts[2], cell=self.output_cell_chars,
                notebook=self.output_notebook_chars) + "]"}))

    def preprocess_cell(self, cell, resources, index):
        self._cell_output = None
        try:
            return self._preprocess_cell(cell, resources, index)
        finally:
            self._output_note(cell)

    def _preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and (self._stopped or self._check_budget()):
            self._error(cell, "NotRun", self._say("not_run", why=self._stopped))
            return cell, self.resources
        timeout = self.timeout
        left, why = self._budget_left()
        if cell.cell_type == "code" and left < (timeout or float("inf")):
            self.timeout, self._budget_cut = max(1, int(left + 0.999)), why  # the budget ends first
        try:
            return super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            if not self._stopped:
                self.log.error("The kernel died in cell %s of %s", index, self._student_label())
                self._stopped = self._say("kernel_died")
                self._error(cell, "DeadKernelError", self._say("while_running", why=self._stopped))
            else:
                self._error(cell, "CellTimeoutError", self._stopped)
            return cell, self.resources
        finally:
            self.timeout, self._budget_cut = timeout, None


class SandboxedExecute(ResilientExecute):
    """Autograde with the student's kernel in the sandbox and every verdict decided by the grader.

    Phase 1 runs the notebook in a sandboxed kernel (grading/sandbox/kernels.py), test cells
    without their hidden tests. Phase 2, with the same kernel still alive, runs each
    whole test cell in the grader (grading/judge/verdicts.py), which calls the student's
    function in the kernel and compares the answers itself. A test cell's outputs are
    then the grader's: what the checks printed, or one error with the check's message.

    With ``GRADER_UNSAFE_NO_SANDBOX=1`` (``make grade ARGS=--unsafe-no-sandbox``) the kernel
    runs unconfined; the verdicts are still decided here.
    """

    source_dir = Unicode(help="The assignment's source folder, with {assignment} in it").tag(config=True)
    helpers_file = Unicode("spec_checks.py", help="The course's helper module in the source folder").tag(config=True)
    max_message_bytes = Integer(2 * 2**20, help="Largest message part read from the kernel (zmq MAXMSGSIZE): a "
                                "larger one is dropped before it is parsed, and the connection reset").tag(config=True)
    receive_queue = Integer(64, help="Messages the grader's sockets queue unread (zmq RCVHWM): past it the kernel's "
                            "IOPub drops further messages, so a flood the grader reads slower than it comes costs at "
                            "most this many times max_message_bytes of its memory").tag(config=True)

    @default("shutdown_kernel")
    def _stop_at_once(self):
        """A graded kernel is stopped, not asked to shut down: every output and verdict is in by then, and nothing
        it would still do (a student's atexit hooks, ipykernel's search for child processes to end) reaches the
        notebook. Its sandbox goes with it (PID 1 of its namespace; a cold kernel's process group). The shutdown
        request and its replies, and the kernel's own shutdown, were some milliseconds of CPU a notebook (issue 24).
        With the speed-ups off (grading/plugins/speedups.py), the old path: asked to shut down; and without a
        sandbox too (GRADER_UNSAFE_NO_SANDBOX), whose kernel ends the processes it started only when asked."""
        from grading.plugins import speedups
        from grading.sandbox import kernels as sandbox

        return "immediate" if speedups.enabled() and not sandbox.unsafe() else "graceful"

    def preprocess(self, nb, resources=None, km=None):
        from nbclient import NotebookClient

        from grading.sandbox import kernels as sandbox
        from grading.judge import verdicts

        from grading import ids

        self._stopped = self._clock = None
        self._notebook_output = 0
        assignment = (resources or {}).get("nbgrader", {}).get("assignment", "")
        ids.require_id("assignment", assignment)  # also where nbgrader's converters are not guarded (grading/ids.py)
        ids.require_id("student", (resources or {}).get("nbgrader", {}).get("student", ""))
        helpers = Path(self.source_dir.format(assignment=assignment)) / self.helpers_file
        self._judge = verdicts.Judge(helpers, self._call)
        self._judge.words = grader_text.words(assignment)
        self._judge.solutions = [cell.source for cell in nb.cells if cell.cell_type == "code"
                                 and cell.metadata.get("nbgrader", {}).get("solution")]
        self._sandboxed = not sandbox.unsafe()
        problem = sandbox.check_once() if self._sandboxed else None
        if problem:
            raise sandbox.SandboxUnavailable(problem)
        self.kernel_manager_class = sandbox.kernel_manager_class()
        NotebookClient.__init__(self, nb, km)
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        tests = []
        try:
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
                    self._check_budget()  # past a budget, _call refuses: the check fails with the budget's message
                    cell.outputs = self._judge.outputs(cell.source, cell.metadata.get("nbgrader", {}).get("grade_id"))
                if diagnosis_cell is not None:
                    from grading.judge import diagnosis

                    notebook = (resources or {}).get("nbgrader", {}).get("notebook", "")
                    outputs = {cell.metadata.get("nbgrader", {}).get("grade_id"): cell.outputs for cell in tests}
                    text = diagnosis.line(notebook, self._judge, assignment=assignment, outputs=outputs) + "\n"
                    diagnosis_cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
        finally:
            self._charge_student()
        self.set_widgets_metadata()
        return self.nb, self.resources

    def create_kernel_manager(self):
        from grading.sandbox import kernels as sandbox

        km = super().create_kernel_manager()
        km.helpers_path = str(self._judge.helpers.__file__)
        client, cap, queue = km.client, self.max_message_bytes, self.receive_queue

        def capped_client(**kwargs):  # every socket of the grader's client refuses larger messages unread
            kc = client(**kwargs)
            kc.context.setsockopt(zmq.MAXMSGSIZE, cap)
            kc.context.setsockopt(zmq.RCVHWM, queue)
            return kc
        km.client = capped_client
        if isinstance(km, sandbox.SandboxedKernelManager):
            folder = self.resources.get("metadata", {}).get("path") or "."
            km.sandbox_files = {rel: str(host) for host, rel in sandbox.workdir_files(folder)}
        return km

    def _run_visible_part(self, cell, resources, index):
        from grading.judge import verdicts

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
        from grading.judge.verdicts import KernelGone

        if self._stopped:
            raise KernelGone(self._stopped)
        return run_sync(self._async_call)(content)

    async def _drain_iopub(self, most=1_000):
        """Read and drop what the kernel sent on IOPub (a grader call's output is its reply, never IOPub): else
        a check that floods IOPub while the grader waits for its reply piles messages up in the grader (issue 41)."""
        for _ in range(most):
            try:
                await ensure_async(self.kc.iopub_channel.get_msg(timeout=0))
            except Empty:
                return
            except Exception:  # noqa: BLE001 - an unreadable message is dropped all the same
                continue

    async def _async_call(self, content):
        """The reply to one grader call, within an absolute deadline (``timeout``, then ``interrupt_grace``
        after an interrupt): messages that answer something else, or cannot be read, are skipped and
        extend nothing."""
        from grading.judge.verdicts import KernelGone

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
                why = self._say("not_answering") if alive else self._say("kernel_stopped")
                self.log.error("No answer to a check in %s: %s", self._student_label(), why)
                self._stopped = self._say("check_could_not_run", why=why)
                await ensure_async(self.km.shutdown_kernel(now=True))
                raise KernelGone(self._stopped) from None
            await self._drain_iopub()
            try:
                reply = await ensure_async(self.kc.shell_channel.get_msg(timeout=min(0.1, left)))
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
                    raise KernelGone(self._say("no_valid_answer"))
                return reply["content"]


class EditionClearSolutions(ClearSolutions):
    """ClearSolutions with the code stub in the edition's language: a translated edition's
    CODE_STUB (lessons/i18n/<assignment>.py) in place of ``ClearSolutions.code_stub``."""

    def preprocess(self, nb, resources):
        from grading import language
        from grading.build import notebooks as build

        assignment = (resources or {}).get("nbgrader", {}).get("assignment", "")
        english = dict(self.code_stub)
        if language(assignment) != "en":
            self.code_stub = dict(english, python=build.load_i18n(assignment).CODE_STUB)
        try:
            return super().preprocess(nb, resources)
        finally:
            self.code_stub = english

