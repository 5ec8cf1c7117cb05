"""Multiple-choice quizzes for the notebooks: the mechanism only (each level's texts live in its spec_widgets).

One source for every assignment: this file is written in source/level23_speculative_decoding/
and copied by `python -m grading.build` into the other assignments' folders (a test fails
when a copy drifts).

    grade_choice(quizzes, quiz_id, index) -> Feedback   # plain logic, tested without a display
    quiz(quizzes, quiz_id)                              # the widget, with a static fallback
    live(make_widget, fallback_html)                    # a widget, or its static picture while grading
    on_sliders(values, ranges)                          # the values a widget's sliders hold
"""

import html
import os
from dataclasses import dataclass

# nbgrader runs the notebook (autograde, or the student's Validate button): nobody is looking.
AUTOGRADING = bool(os.environ.get("NBGRADER_EXECUTION"))
# The grader's old path (GRADER_NO_SPEEDUPS=1) asks for the widgets while grading all the same, so that a test
# can compare its pages with the static pictures' (tests/test_forked_kernels.py).
LIVE_WHILE_GRADING = os.environ.get("SPEC_WIDGETS") == "live"

# ---------------------------------------------------------------- text: BEGIN TEXT
# The mechanism's own words (each quiz's question, options and explanations live in its level's
# spec_widgets). This is the English text; `python -m grading.build` writes each translated
# edition's copy of this file with this block taken from lessons/i18n/.
TEXT = {
    "lang": "en",
    "pick": "Pick an answer: you can change it at any time.",
    "quiz_static": "Run this cell in JupyterLab to answer and see why.",
    # A mark only: every explanation already opens with its verdict ("Right: ...", "Not quite: ..."), so
    # "✔ Correct. Right: ..." said it twice (issue 42 item 4).
    "correct": "✔",
    "wrong": "✘",
}
# ---------------------------------------------------------------- text: END TEXT


@dataclass
class Feedback:
    correct: bool
    text: str


def grade_choice(quizzes, quiz_id, index):
    """The verdict and explanation for choosing option ``index`` of quiz ``quiz_id``."""
    quiz = quizzes[quiz_id]
    if index is None:
        return Feedback(False, TEXT["pick"])
    correct = index == quiz["answer"]
    return Feedback(correct, quiz["why"][index])


def with_fallback(widget, fallback_html):
    """``widget``, which shows ``fallback_html`` wherever widgets cannot render.

    A static viewer, the feedback page or a notebook opened without a kernel has no widget
    manager: it falls back to the output's text/html, so the student still sees the content.
    JupyterLab prefers the live widget.
    """
    live = widget._repr_mimebundle_

    def bundle(**kwargs):
        data = live(**kwargs) or {}
        if isinstance(data, tuple):
            data = data[0]
        return {**data, "text/html": fallback_html}

    widget._repr_mimebundle_ = bundle
    return widget


class Static:
    """A widget's static picture, shown in its place: the same text/html, and no widget."""

    def __init__(self, fallback_html):
        self.html = fallback_html

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/plain": "[a widget: run this cell in JupyterLab]", "text/html": self.html}


def live(make_widget, fallback_html):
    """``make_widget()`` with ``fallback_html`` for viewers without widgets (``with_fallback``); while nbgrader
    runs the notebook, only that static picture. Nobody moves a slider then, and the pages made from the graded
    notebook (feedback, formgrader) show a widget's text/html and nothing else of it, so they come out the same.
    A widget would cost the kernel and the grader a message for each of its parts (a quiz has eleven)."""
    if AUTOGRADING and not LIVE_WHILE_GRADING:
        return Static(fallback_html)
    return with_fallback(make_widget(), fallback_html)


def on_sliders(values, ranges):
    """``values`` as sliders with these ``ranges`` ((low, high) each) hold them: ipywidgets clamps a value to its
    slider's range, so a widget's static picture is drawn from the same values as the widget's own."""
    return [min(max(value, low), high) for value, (low, high) in zip(values, ranges)]


def quiz_html(quizzes, quiz_id):
    """The quiz as static HTML: the question and its options (answers need the live widget)."""
    spec = quizzes[quiz_id]
    items = "".join(f"<li>({'abcdefgh'[k]}) {html.escape(text)}</li>" for k, text in enumerate(spec["options"]))
    return (f"<div class='spec-quiz-static'><b>{html.escape(spec['question'])}</b><ul>{items}</ul>"
            f"<i>{html.escape(TEXT['quiz_static'])}</i></div>")


def quiz(quizzes, quiz_id):
    """A multiple-choice quiz: no option preselected, feedback on every choice."""
    return live(lambda: _quiz_widget(quizzes, quiz_id), quiz_html(quizzes, quiz_id))


def _quiz_widget(quizzes, quiz_id):
    import ipywidgets as widgets

    spec = quizzes[quiz_id]
    letters = "abcdefgh"
    labels = [f"({letters[k]}) {text}" for k, text in enumerate(spec["options"])]
    choice = widgets.RadioButtons(options=labels, value=None, layout=widgets.Layout(width="auto"))
    verdict = widgets.HTML(feedback_html(grade_choice(quizzes, quiz_id, None), pending=True))

    def on_change(change):
        index = labels.index(change["new"]) if change["new"] is not None else None
        verdict.value = feedback_html(grade_choice(quizzes, quiz_id, index), pending=index is None)

    choice.observe(on_change, names="value")
    box = widgets.VBox([widgets.HTML(f"<b>{html.escape(spec['question'])}</b>"), choice, verdict])
    box.add_class("spec-quiz")
    box.add_class(f"spec-quiz-{quiz_id}")
    return box


def feedback_html(feedback, pending=False):
    if pending:
        return f"<div class='spec-verdict spec-pending'><i>{html.escape(feedback.text)}</i></div>"
    mark, colour = (TEXT["correct"], "#1a7f37") if feedback.correct else (TEXT["wrong"], "#b42318")
    return (f"<div class='spec-verdict' style='border-left:4px solid {colour};padding-left:8px'>"
            f"<b style='color:{colour}'>{mark}</b> {html.escape(feedback.text)}</div>")


def use_fonts(fonts):
    """Put ``fonts`` (an edition's font families, e.g. a CJK one) first in matplotlib's sans-serif list."""
    if not fonts:
        return
    import matplotlib
    from matplotlib import font_manager

    installed = {f.name for f in font_manager.fontManager.ttflist}
    if not installed & set(fonts):  # a font installed after matplotlib built its font cache
        for path in font_manager.findSystemFonts():
            if "CJK" in path and "Sans" in path:
                font_manager.fontManager.addfont(path)
        installed = {f.name for f in font_manager.fontManager.ttflist}
    wanted = [name for name in fonts if name in installed]
    families = matplotlib.rcParams["font.sans-serif"]
    if wanted and families[: len(wanted)] != wanted:
        matplotlib.rcParams["font.sans-serif"] = wanted + [f for f in families if f not in wanted]
