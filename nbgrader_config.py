"""nbgrader configuration of the Level 23 course (speculative decoding).

The course root is the folder of this file, whatever the current directory,
so every command works from any clone path:

    nbgrader generate_assignment level23_speculative_decoding --force
    nbgrader autograde level23_speculative_decoding
"""

import os
import sys

from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties, CheckCellMetadata, ClearHiddenTests, ClearMarkScheme, ClearOutput, ComputeChecksums,
    DeduplicateIds, GetGrades, IgnorePattern, IncludeHeaderFooter, InstantiateTests, LimitOutput, LockCells,
    OverwriteCells, OverwriteKernelspec, SaveCells,
)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
try:
    from grading import ids
    from grading.plugins import exchange, sanitize, speedups
    from grading.plugins.late import TenthPerDayLate
    from grading.plugins.preprocessors import (CapOutputSize, ClearHiddenTestsInTestCells, CoalesceStreams,
                                               EditionClearSolutions, HideHiddenTestDetails, PageExporter,
                                               SandboxedExecute, SanitizeStudentContent, feedback_html_only)
    from grading.sandbox import budgets
    speedups.apply()  # nbgrader's metadata checks, without re-checking an unchanging schema per cell
    ids.refuse_odd_ids()  # a student or assignment id with a space, a slash, "..", ... is refused by name
    sanitize.refuse_unreadable()  # a notebook nbformat cannot read scores 0 alone, with the reason
    from grading.sandbox import cgroups
    _confined = cgroups.confine_plain_autograde()  # the plain `nbgrader autograde` in a cgroup of its own (issue 41)
    if _confined:
        print(f"[nbgrader_config] {_confined}", file=sys.stderr)
except ImportError:  # this file copied without the grading/ package beside it
    print("[nbgrader_config] grading/ not found beside this file: autograde, feedback and the exchange use nbgrader's defaults",
          file=sys.stderr)
    SandboxedExecute = exchange = None

c = get_config()  # noqa: F821 - provided by nbgrader

c.CourseDirectory.course_id = "level23"
c.CourseDirectory.root = HERE
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".DS_Store"]
if exchange:
    # An exchange that knows who submitted: owners, the exchange's time, no links, limits (grading/plugins/exchange.py).
    exchange.register(c, "grading.plugins.exchange")

# What the student sees where a solution was.
c.ClearSolutions.code_stub = {
    "python": "# YOUR CODE HERE\n"
              "raise NotImplementedError(\"Write this TODO: replace these two lines with your code\")",
}

# Autograding: an endless loop costs its cell 10 seconds, not the whole class.
# A hung or crashed kernel is restarted (grading/plugins/preprocessors.py), so the rest still counts.
# A notebook and a student have wall-clock budgets too (ResilientExecute; the numbers: grading/sandbox/budgets.py).
c.Execute.timeout = budgets.CELL if SandboxedExecute else 10
c.Execute.startup_timeout = 120
c.LimitOutput.max_lines = 200
c.LimitOutput.max_traceback = 40
c.OverwriteCells.add_missing_cells = True  # a deleted test cell is put back, and still runs
if SandboxedExecute:
    # nbgrader's own list, with the code stub in each edition's language (the Chinese edition's is Chinese).
    c.GenerateAssignment.preprocessors = [
        IncludeHeaderFooter, InstantiateTests, LockCells, EditionClearSolutions, ClearOutput, CheckCellMetadata,
        ComputeChecksums, SaveCells, ClearHiddenTests, ClearMarkScheme, ComputeChecksums, CheckCellMetadata,
    ]
    # Student code runs in a sandboxed kernel; every test cell's verdict is decided by the
    # grader, with the helpers from source/ (grading/sandbox/kernels.py, grading/judge/verdicts.py).
    c.SandboxedExecute.source_dir = os.path.join(HERE, "source", "{assignment}")
    # No student's metadata can stop the run: every cell's nbgrader metadata is the instructor's (grading/plugins/sanitize.py).
    c.Autograde.sanitize_preprocessors = [
        sanitize.RestoreInstructorMetadata, ClearOutput, DeduplicateIds, OverwriteKernelspec, OverwriteCells,
        CheckCellMetadata,
    ]
    if speedups.enabled():  # the notebook is validated once, after the last preprocessor, not after each of 14
        c.Exporter.optimistic_validation = True
    c.Autograde.autograde_preprocessors = [
        SandboxedExecute, CoalesceStreams, IgnorePattern, ClearMetadataPreprocessor, LimitOutput, CapOutputSize,
        speedups.save_autogrades(), AssignLatePenalties, CheckCellMetadata,
    ]
    # Feedback: the hint of each failed hidden check, never its code; HTML pages only.
    feedback_html_only()
    # Late policy (with a due date in the gradebook): a tenth of the notebook's score per started day late.
    c.AssignLatePenalties.plugin_class = TenthPerDayLate
    c.GenerateFeedback.preprocessors = [
        GetGrades, HideHiddenTestDetails, ClearHiddenTestsInTestCells, CSSHTMLHeaderPreprocessor,
    ]
    # Every page of a student's notebook runs no script of the student's: the feedback pages and the
    # formgrader's view of a submission (both nbconvert's HTMLExporter) sanitise it first; the feedback
    # page also forbids inline script (PageExporter: a content security policy).
    c.HTMLExporter.preprocessors = [SanitizeStudentContent]
    # The formgrader's MathJax from its own server, not a CDN (grading/templates/formgrader/base/mathjax.html.j2,
    # found before nbconvert's base; nbgrader's formgrade templates stay as they are; issue 42 item 3).
    import nbgrader as _nbgrader
    c.HTMLExporter.extra_template_basedirs = [
        os.path.join(HERE, "grading", "templates", "formgrader"),
        os.path.join(os.path.dirname(_nbgrader.__file__), "server_extensions", "formgrader", "templates")]
    c.GenerateFeedback.exporter_class = PageExporter
    # The page: a summary on top (score, diagnosis, every check with its hint, failed first), readable at any
    # width, in the edition's language (grading/templates/). The hub's release_feedback hands out this page.
    PageExporter.configure(c)
c.ClearHiddenTests.enforce_metadata = True
# The feedback page has no widget manager: show each widget's static picture (its text/html).
# Set on the pages' data-type filters (WidgetsDataTypeFilter is HTMLExporter's), not on NbConvertBase: there every
# nbgrader preprocessor, which has its own fixed list, logged "Config option not recognized" (30 lines a run, issue 41).
c.WidgetsDataTypeFilter.display_data_priority = c.DataTypeFilter.display_data_priority = [
    "text/html", "application/pdf", "text/latex", "image/svg+xml", "image/png", "image/jpeg", "text/markdown",
    "text/plain"]
