"""The grader's own messages: what it writes into a graded notebook when a function is missing, a
check cannot run, a cell runs too long or the kernel stops (grading/judge/verdicts.py, grading/plugins/preprocessors.py).

ENGLISH holds them, by id; a translated edition's words are the GRADER dict of its text file
(lessons/i18n/<edition>.py), or of another edition in the same language: the same ids and {blanks}
(tests/test_i18n.py checks them).
"""

import functools

from grading import EDITIONS, language

ENGLISH = {
    "not_defined": "name '{name}' is not defined: run the cell that defines it",
    "not_checked": "not checked: {why}",
    "not_run": "not run: {why} in an earlier cell",
    "not_answering": "the kernel stopped answering",
    "kernel_stopped": "the Python kernel stopped",
    "check_could_not_run": "{why}, so this check could not run",
    "no_valid_answer": "the kernel sent no valid answer",
    "kernel_sent": "the kernel sent {error}",
    "kernel_died": "the Python kernel stopped (os._exit, a crash, or too much memory)",
    "while_running": "{why} while running this cell",
    "ran_longer": "this cell ran longer than {seconds} s",
    "while_cell_ran": "{why} while this cell ran",
    "ignored_interrupt": "{ran}; it had not stopped {grace} s after the interrupt, so its kernel was stopped",
    "budget_interrupted": "{why} while this cell ran, so it was interrupted",
    "timeout_interrupted": "this cell ran longer than {seconds} s and was interrupted",
    "notebook_budget": "this notebook's grading time budget ({seconds:g} s) was spent",
    "student_budget": "the grading time budget of this student's assignment ({seconds:g} s, all notebooks "
                      "together) was spent",
    # A notebook cut to the grader's bounds before anything shows it (grading/plugins/sanitize.py, issue 41): the note
    # on top ({what}: the phrases below, joined), and the markers left inside a cut cell's source.
    "notebook_cut": "**The grader cut this notebook before showing it**: {what}.",
    "cut_joiner": "; ",
    "cut_cells": "{count:,} of its {total:,} cells (at most {most:,} are shown)",
    "cut_long_cells": "the middle of each cell longer than {chars:,} characters ({count:,} cells)",
    "cut_short_cells": "all but the first {short:,} characters of each cell past the notebook's first {chars:,} "
                       "characters ({count:,} cells)",
    "cut_attachments": "{count:,} attachments (at most {most} of {chars:,} characters each are kept, {total:,} in all)",
    "cut_in_cell": "{count:,} characters of this cell cut by the grader",
    "cut_rest_of_cell": "the rest of this cell cut by the grader",
    # Output cut by the grader: as it arrived (ResilientExecute) and in the autograded notebook (CapOutputSize).
    "arrived_chars_cut": "{count:,} characters of this output cut by the grader as they arrived",
    "arrived_output_cut": "an output of about {size:,} characters, cut by the grader as it arrived",
    "arrived_dropped": "{count:,} more output messages of this cell (about {chars:,} characters) were dropped by the "
                       "grader as they arrived: it keeps at most {cell:,} characters of a cell's output and {notebook:,} "
                       "of a notebook's",
    "output_chars_cut": "{count:,} characters cut by the grader",
    "output_too_large": "an output too large to keep, cut by the grader",
    "output_rest_cut": "the rest of this notebook's output was cut by the grader",
    "outputs_cut": "{count:,} more outputs cut by the grader",
    # A feedback page cut to its bounds (PageExporter, issue 41): the note on top of the short page.
    "page_cut": "**The grader cut this feedback page**: {why}. Your scores and checks are below; your own cells "
                "are not shown.",
    "page_cut_alone": "**The grader cut this feedback page**: {why}. Your scores are in the gradebook: ask your "
                      "instructor for them.",
    "page_time": "showing your notebook took longer than {seconds:g} s",
    "page_student_time": "your feedback pages for this assignment had already taken {seconds:g} s",
    "page_memory": "showing your notebook needed more than {mb:,} MB of memory",
    "page_failed": "showing your notebook failed",
}


@functools.lru_cache(maxsize=None)
def translated(assignment):
    """The GRADER dict of ``assignment``'s text file, or of another edition in its language; None if none has one."""
    from grading.build import notebooks as build

    lang = language(assignment)
    for edition in [assignment] + [e for e in EDITIONS if e != assignment and language(e) == lang]:
        if edition in EDITIONS and build.i18n_path(edition).exists():
            words = getattr(build.load_i18n(edition), "GRADER", None)
            if words is not None:
                return words
    return None


def words(assignment):
    """{id: text} of the grader's messages in ``assignment``'s language (English for an English one)."""
    if language(assignment) == "en":
        return ENGLISH
    return dict(ENGLISH, **(translated(assignment) or {}))
