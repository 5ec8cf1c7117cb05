"""Widgets and pictures for the Level 23 notebooks.

Every widget is a thin shell over a plain function, so the logic is tested
with pytest and no display:

    grade_choice(quiz_id, index) -> Feedback   # the quizzes
    acceptance(p, q, r)          -> Verdict    # the number line
    replay_rows(case, draws)     -> list[Row]  # the position-by-position replay

and a notebook cell calls one of ``quiz``, ``show_principle``, ``number_line``
or ``show_replay`` in one line. Nothing here waits for a person, so the
notebooks run unattended under nbgrader (which sets NBGRADER_EXECUTION).
"""

import html
import sys
import unicodedata
from dataclasses import dataclass


import spec_quiz
from spec_checks import VISIBLE_DRAWS, ScriptedRand, run_verify, visible_case  # noqa: F401 (visible_case: for the notebooks)

from spec_quiz import AUTOGRADING, Feedback, live, on_sliders  # noqa: F401 (Feedback: what grade_choice returns)

# --------------------------------------------------------------------------- quizzes

# ---------------------------------------------------------------- text: BEGIN TEXT
# Every sentence the widgets show, by id. This is the English edition's text;
# `python -m grading.build` writes each translated edition's copy of this file with this block
# taken from lessons/i18n/ (everything outside the block is copied unchanged, and a test says so).
TEXT = {
    "lang": "en",
    "fonts": [],  # font families the pictures need first (a CJK one for Chinese)
    "quiz": {
        "m1_guess": {
            "question": "Position 0 drafted token 10, with p = 0.8 and q = 0.5. What should TODO 1 do?",
            "options": [
                "Append 10 to accepted_tokens directly",
                "Call torch.rand first, then decide",
                "break at once",
            ],
            "why": [
                "Right: p >= q, so the acceptance probability min(1, p/q) is 1. Token 10 is accepted "
                "and no random number is spent.",
                "Not quite: a draw only matters when the acceptance probability is below 1. Here "
                "min(1, 0.8/0.5) = 1, so drawing would waste a random number (and the tests count "
                "them). Append 10 directly.",
                "Not quite: break means 'reject and stop', but nothing was rejected. The target gives "
                "token 10 more probability (0.8) than the draft did (0.5), so it is accepted: append 10.",
            ],
        },
        "m1_check": {
            "question": "Why do we read probabilities with [i, token_id]?",
            "options": [
                "To transpose the [K, V] matrix",
                "To fetch the whole vocabulary at once",
                "To align both the draft position and the token actually drafted there",
            ],
            "why": [
                "Not quite: indexing never transposes. [i, token_id] picks one number: row i "
                "(the position), column token_id (the drafted token). That alignment is the point.",
                "Not quite: [i] alone would give the whole row (every token of the vocabulary). Adding "
                "token_id picks the single probability of the token the draft actually chose.",
                "Right: row i is the draft position, column token_id is the token drafted there, so "
                "p and q are the two models' probabilities of the same token at the same place.",
            ],
        },
        "m2_guess": {
            "question": "Positions 0 and 1 were accepted. Position 2 has p = 0.1, q = 0.9 and the draw is "
                     "r = 0.9. What does the function finally do?",
            "options": [
                "Reject position 2 and stop, returning the first two tokens",
                "Skip position 2 and go on to verify position 3",
                "Accept position 2 because r is large",
            ],
            "why": [
                "Right: p/q = 0.1/0.9 is about 0.11, and r = 0.9 is not below it, so position 2 is "
                "rejected and the loop breaks. The result is [10, 20].",
                "Not quite: that is what continue would do. Token 40 was drafted on top of token 30; once "
                "30 is rejected, 40's context is gone. Reject position 2 and stop: [10, 20].",
                "Not quite: a draw accepts only when r < p/q. A large r lands outside [0, 0.11), so it "
                "rejects. Position 2 is rejected and the loop stops: [10, 20].",
            ],
        },
        "m2_check": {
            "question": "Why break rather than continue after a rejection?",
            "options": [
                "Later drafts depend on the prefix with this token accepted, and rejecting changes that context",
                "Because Python lists can't keep looping",
                "Because continue deletes target_probs",
            ],
            "why": [
                "Right: the draft model wrote each token after the ones before it. Reject one and every "
                "later draft token was written for a prefix that no longer exists.",
                "Not quite: Python loops over lists happily. The reason is about the model: later drafts "
                "were built on the prefix that included the rejected token.",
                "Not quite: continue only skips to the next loop step; it deletes nothing. The reason is "
                "that later drafts depend on the rejected token being in the prefix.",
            ],
        },
    },
    "principle_accept": "p = {p:.2f} >= q = {q:.2f}: acceptance probability 1, append {token_id} (no draw)",
    "principle_reject": "p = {p:.2f} < q = {q:.2f}: not accepted for sure; Mission 2 flips a coin here",
    "xlabel": "column = token_id (vocabulary)",
    "ylabel": "row = draft position i",
    "colorbar": "probability",
    "row_maximum": "row maximum",
    "max_is_drafted": "target_probs[i].max() is the drafted token here, by chance",
    "max_elsewhere": "x = target_probs[{i}].max() at column {column}: the target's favourite, not the question",
    "principle_title": "Position i = {i}, draft_tokens[{i}] = {token_id}.  {verdict}\n{note}",
    "legend_head": ["object", "what it is"],
    "legend": [
        ["draft_probs", "[K, V] float tensor: the draft model's probabilities, row i = position i"],
        ["target_probs", "[K, V] float tensor: the target model's probabilities, same layout"],
        ["draft_tokens", "K token ids the draft proposed (a Python list in the visible test)"],
        ["p, q", "Python floats: target_probs[i, token_id].item() and draft_probs[i, token_id].item()"],
        ["accepted_tokens", "the Python list you return: accepted ids, in draft order"],
    ],
    "no_draw_needed": "p >= q: accept, no draw needed (acceptance probability 1)",
    "line_accept": "r = {r:.2f} < p/q = {ratio:.2f}: accept and continue",
    "line_reject": "r = {r:.2f} >= p/q = {ratio:.2f}: reject and stop (break)",
    "preset_1": "Position 1: p/q = 0.8, r = 0.5",
    "preset_2": "Position 2: p/q ≈ 0.11, r = 0.9",
    "line_static": "Run this cell in JupyterLab to move the sliders.",
    "replay_head": ["position", "token", "p", "q", "p/q", "r", "verdict"],
    "no_draw": "no draw",
    "none_left": "none left",
    "accept": "accept",
    "accept_continue": "accept, continue",
    "reject_break": "reject, break",
    "never_verified": "never verified",
    "trace_raised": "verify_draft raised {error}",
    "trace_missing": "draw {n} never happened: expected one at position {expected}",
    "trace_extra": "draw {n} (at position {got}) is extra: expected only {count} draw(s)",
    "trace_moved": "draw {n} happened at position {got}, expected at position {expected}",
    "trace_result": "result {result} differs from the expected {expected}",
    "trace_match": "Your draws match the expected ones, in number and order.",
    "trace_summary": "<b>Your verify_draft</b> returned <code>{result}</code> with {calls} draw(s), at positions "
                     "{positions}.",
}
# ---------------------------------------------------------------- text: END TEXT
QUIZ_ANSWERS = {'m1_guess': 0, 'm1_check': 2, 'm2_guess': 0, 'm2_check': 0}
QUIZZES = {quiz_id: dict(TEXT["quiz"][quiz_id], answer=QUIZ_ANSWERS[quiz_id]) for quiz_id in QUIZ_ANSWERS}


def grade_choice(quiz_id, index):
    """The verdict and explanation for choosing option ``index`` of quiz ``quiz_id``."""
    return spec_quiz.grade_choice(QUIZZES, quiz_id, index)


def quiz_html(quiz_id):
    """The quiz as static HTML: the question and its options (answers need the live widget)."""
    return spec_quiz.quiz_html(QUIZZES, quiz_id)


def quiz(quiz_id):
    """A multiple-choice quiz: no option preselected, feedback on every choice."""
    return spec_quiz.quiz(QUIZZES, quiz_id)


# --------------------------------------------------------------------------- principle picture

def lesson_case():
    """The visible test's tensors, with one change for the picture: at position 1 the target
    likes token 7 (0.45) more than the drafted token 20 (0.4), so the row's maximum and the
    drafted token differ there."""
    case = visible_case()
    row = case.target_probs[1]
    row[:] = (1.0 - 0.4 - 0.45) / 39
    row[20], row[7] = 0.4, 0.45
    return case


def principle_summary(case, i):
    """Everything the principle picture says about position ``i``, as plain values."""
    token_id = int(case.draft_tokens[i])
    p = case.target_probs[i, token_id].item()
    q = case.draft_probs[i, token_id].item()
    best = int(case.target_probs[i].argmax())
    if p >= q:
        verdict = TEXT["principle_accept"].format(p=p, q=q, token_id=token_id)
    else:
        verdict = TEXT["principle_reject"].format(p=p, q=q, token_id=token_id)
    return dict(i=i, token_id=token_id, p=p, q=q, accept=p >= q, verdict=verdict,
                max_column=best, max_value=case.target_probs[i, best].item())


def use_fonts():
    """Put the edition's fonts (TEXT["fonts"], e.g. a CJK font) first in matplotlib's sans-serif list."""
    spec_quiz.use_fonts(TEXT["fonts"])


def principle_figure(case=None, i=0):
    """The two [K, V] matrices side by side, row i and column token_id highlighted."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    use_fonts()
    case = case or lesson_case()
    info = principle_summary(case, i)
    k, v = case.target_probs.shape
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.2), constrained_layout=True)
    panels = [(axes[0], case.target_probs, "target_probs  [K, V]", "p"),
              (axes[1], case.draft_probs, "draft_probs  [K, V]", "q")]
    for ax, probs, title, name in panels:
        image = ax.imshow(probs.numpy(), aspect="auto", cmap="viridis", vmin=0, vmax=1)
        ax.set_title(title, fontsize=11)
        ax.set_xlabel(TEXT["xlabel"])
        ax.set_ylabel(TEXT["ylabel"])
        ax.set_yticks(range(k))
        ax.set_xticks([0, 10, 20, 30, 40] if v > 40 else range(0, v, max(1, v // 8)))
        ax.add_patch(Rectangle((-0.5, i - 0.5), v, 1, fill=False, ec="#f59e0b", lw=2.5))
        ax.add_patch(Rectangle((info["token_id"] - 0.5, -0.5), 1, k, fill=False, ec="#f59e0b", lw=1.5, ls="--"))
        value = info[name]
        ax.add_patch(Rectangle((info["token_id"] - 0.5, i - 0.5), 1, 1, fill=False, ec="#dc2626", lw=3))
        ax.annotate(f"{name} = {value:.2f}", (info["token_id"], i), xytext=(info["token_id"] + 3, i + 0.35),
                    color="#dc2626", fontsize=11, fontweight="bold",
                    arrowprops=dict(arrowstyle="->", color="#dc2626"))
    fig.colorbar(image, ax=axes, label=TEXT["colorbar"], shrink=0.9)
    best = info["max_column"]
    if best != info["token_id"]:  # on the drafted token's own cell the mark would hide p
        axes[0].plot(best, i, marker="x", color="white", ms=12, mew=3, label=TEXT["row_maximum"])
    note = (TEXT["max_is_drafted"] if best == info["token_id"] else TEXT["max_elsewhere"].format(i=i, column=best))
    fig.suptitle(TEXT["principle_title"].format(i=i, token_id=info["token_id"], verdict=info["verdict"], note=note),
                 fontsize=11, color="#1a7f37" if info["accept"] else "#b42318")
    return fig


def show_principle(i=0):
    """Draw the principle picture for position ``i`` of the lesson example. Its caption is the picture's title, so
    nothing is returned (a returned caption was echoed again as the cell's Out[]; issue 42 item 5). While
    autograding no picture is drawn and the caption is returned instead: the feedback page shows it in its place."""
    verdict = principle_summary(lesson_case(), i)["verdict"]
    if AUTOGRADING:  # nobody looks at it while grading: skip matplotlib (about 1 CPU-second a notebook)
        return verdict
    import matplotlib.pyplot as plt

    principle_figure(lesson_case(), i)
    plt.show()


LEGEND = [tuple(row) for row in TEXT["legend"]]


def legend():
    """The legend of objects, as an HTML table."""
    from IPython.display import HTML

    rows = "".join(f"<tr><td><code>{html.escape(a)}</code></td><td>{html.escape(b)}</td></tr>" for a, b in LEGEND)
    head = "".join(f"<th>{html.escape(name)}</th>" for name in TEXT["legend_head"])
    return HTML(f"<table class='spec-legend'><tr>{head}</tr>{rows}</table>")


# --------------------------------------------------------------------------- number line

@dataclass
class Verdict:
    p: float
    q: float
    r: float
    ratio: float       # p / q (inf when q == 0)
    threshold: float   # min(1, p/q): the shaded interval is [0, threshold)
    needs_draw: bool   # only p < q draws a random number
    accepted: bool
    text: str


def acceptance(p, q, r):
    """What the verification step does with p, q and a draw r in [0, 1)."""
    p, q, r = float(p), float(q), float(r)
    ratio = p / q if q > 0 else float("inf")
    threshold = min(1.0, ratio)
    needs_draw = p < q
    if not needs_draw:
        return Verdict(p, q, r, ratio, threshold, False, True, TEXT["no_draw_needed"])
    accepted = r < ratio
    if accepted:
        text = TEXT["line_accept"].format(r=r, ratio=ratio)
    else:
        text = TEXT["line_reject"].format(r=r, ratio=ratio)
    return Verdict(p, q, r, ratio, threshold, True, accepted, text)


PRESETS = {
    TEXT["preset_1"]: (0.4, 0.5, 0.5),
    TEXT["preset_2"]: (0.1, 0.9, 0.9),
}


CHAR_WIDTH, LINE_HEIGHT = 7.5, 15  # px per character and per line at font-size 13 (an upper bound)
PAD, LINE_Y = 30, 46                # the number line runs from x = PAD to width - PAD, at height LINE_Y


def text_width(text):
    """An upper bound of ``text``'s width in px: a wide (CJK) character counts twice."""
    return CHAR_WIDTH * sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _x_of(width):
    """Where t in [0, 1] sits on a number line ``width`` pixels wide."""
    return lambda t: PAD + (width - 2 * PAD) * t


def number_line_labels(verdict, width=560):
    """Every text label of the number line: dicts of text, x, y and anchor, none overlapping.

    Each kind of label has its own row: r above the line; the ticks 0 and 1 just below it;
    the interval's end (p/q) on the next row, moved inwards when it would leave the picture;
    the verdict at the bottom.
    """
    y, x_of = LINE_Y, _x_of(width)
    labels = [dict(kind="tick", text="0", x=x_of(0), y=y + 24, anchor="middle"),
              dict(kind="tick", text="1", x=x_of(1), y=y + 24, anchor="middle")]
    if verdict.ratio < 1:
        text = f"p/q = {verdict.ratio:.2f}"
    else:
        text = "p >= q: min(1, p/q) = 1" if verdict.q > 0 else "q = 0: min(1, p/q) = 1"
    labels.append(dict(kind="threshold", text=text, x=x_of(verdict.threshold), y=y + 42, anchor="middle"))
    if verdict.needs_draw:
        labels.append(dict(kind="r", text=f"r = {verdict.r:.2f}", x=x_of(verdict.r), y=y - 26, anchor="middle"))
    labels.append(dict(kind="verdict", text=verdict.text, x=PAD, y=y + 68, anchor="start"))
    for label in labels:  # keep every label inside the picture
        half = text_width(label["text"]) / 2
        if label["anchor"] == "middle":
            label["x"] = min(max(label["x"], half + 2), width - half - 2)
    return labels


def label_box(label):
    """(left, top, right, bottom) of a label, from the same character width the layout uses."""
    w = text_width(label["text"])
    left = {"start": label["x"], "middle": label["x"] - w / 2, "end": label["x"] - w}[label["anchor"]]
    return left, label["y"] - LINE_HEIGHT + 3, left + w, label["y"] + 3


def number_line_svg(verdict, width=560):
    """The number line [0, 1] as SVG: [0, min(1, p/q)) green (accept), [p/q, 1) red (reject), r marked."""
    pad, y, span, x_of = PAD, LINE_Y, width - 2 * PAD, _x_of(width)
    colour = "#1a7f37" if verdict.accepted else "#b42318"
    r_mark = ""
    if verdict.needs_draw:
        r_mark = (f"<line class='r-mark' x1='{x_of(verdict.r):.1f}' y1='{y - 20}' x2='{x_of(verdict.r):.1f}' "
                  f"y2='{y + 12}' stroke='{colour}' stroke-width='3'/>")
    ticks = "".join(f"<line x1='{x_of(t / 10):.1f}' y1='{y - 4}' x2='{x_of(t / 10):.1f}' y2='{y + 4}' stroke='#555'/>"
                    for t in range(11))
    fills = {"r": colour, "verdict": colour, "threshold": "#166534", "tick": "#333"}
    texts = ""
    for label in number_line_labels(verdict, width):
        kind = label["kind"]
        css = f"label-{kind} verdict" if kind == "verdict" else f"label-{kind}"
        bold = " font-weight='bold'" if kind in ("r", "verdict") else ""
        texts += (f"<text class='{css}' x='{label['x']:.1f}' y='{label['y']}' text-anchor='{label['anchor']}' "
                  f"fill='{fills[kind]}'{bold}>{html.escape(label['text'])}</text>")
    accept_w = span * verdict.threshold
    return (
        # viewBox and max-width: on a narrow screen (a phone, 375 px) the whole drawing shrinks to the output's
        # width instead of being cut at the right edge (r and the "1" end hidden; issue 42 item 2).
        f"<svg class='spec-number-line' width='{width}' height='124' viewBox='0 0 {width} 124' "
        f"style='max-width: 100%; height: auto' xmlns='http://www.w3.org/2000/svg' "
        f"font-family='sans-serif' font-size='13'>"
        f"<rect class='accept-zone' x='{pad}' y='{y - 10}' width='{accept_w:.1f}' height='20' "
        f"fill='#86efac' opacity='0.8'/>"
        f"<rect class='reject-zone' x='{pad + accept_w:.1f}' y='{y - 10}' width='{span - accept_w:.1f}' height='20' "
        f"fill='#fca5a5' opacity='0.6'/>"
        f"<line x1='{pad}' y1='{y}' x2='{pad + span}' y2='{y}' stroke='#333' stroke-width='2'/>{ticks}"
        f"{r_mark}{texts}</svg>"
    )


SLIDERS = {"p": (0.0, 1.0), "q": (0.0, 1.0), "r": (0.0, 0.999)}  # each slider's range; a value outside is clamped


class NumberLine:
    """Sliders for p, q and r, two presets, and the number line they drive.

    Moving a slider only rewrites one SVG string; nothing is rebuilt.
    """

    def __init__(self, p=0.4, q=0.5, r=0.5):
        import ipywidgets as widgets

        slider = lambda name, value: widgets.FloatSlider(  # noqa: E731
            value=value, min=SLIDERS[name][0], max=SLIDERS[name][1], step=0.01, description=name,
            continuous_update=True, readout_format=".2f")
        self.p, self.q, self.r = slider("p", p), slider("q", q), slider("r", r)
        self.buttons = [widgets.Button(description=name, layout=widgets.Layout(width="auto"))
                        for name in PRESETS]
        for button in self.buttons:
            button.on_click(lambda b: self.preset(b.description))
        self.picture = widgets.HTML()
        for s in (self.p, self.q, self.r):
            s.observe(self.redraw, names="value")
        self.widget = widgets.VBox([widgets.HBox(self.buttons), self.p, self.q, self.r, self.picture])
        self.widget.add_class("spec-number-line-widget")
        self.redraw()

    @property
    def verdict(self):
        return acceptance(self.p.value, self.q.value, self.r.value)

    def preset(self, name):
        p, q, r = PRESETS[name]
        self.p.value, self.q.value, self.r.value = p, q, r
        self.redraw()

    def redraw(self, _change=None):
        self.picture.value = number_line_svg(self.verdict)


def number_line(p=0.4, q=0.5, r=0.5):
    """The interactive number line (starts at visible-test position 1)."""
    p, q, r = on_sliders((p, q, r), SLIDERS.values())  # what the sliders start at
    static = (f"<div class='spec-number-line-static'><p>p = {p:.2f}, q = {q:.2f}, r = {r:.2f}</p>"
              f"{number_line_svg(acceptance(p, q, r))}<p><i>{html.escape(TEXT['line_static'])}</i></p></div>")
    return live(lambda: NumberLine(p, q, r).widget, static)


# --------------------------------------------------------------------------- replay

@dataclass
class Row:
    position: int
    token_id: int
    p: float
    q: float
    ratio: float
    draw: str
    verdict: str


def replay_rows(case=None, draws=VISIBLE_DRAWS, mission=2):
    """The reference verification of ``case``, position by position, with scripted draws (``mission=1``: stop at the
    first p < q without a draw, as Mission 1's given break does)."""
    case = case or visible_case()
    rows, draws, stopped = [], list(draws), False
    for i, (token_id, _, _) in enumerate(case.positions):
        p = case.target_probs[i, token_id].item()
        q = case.draft_probs[i, token_id].item()
        ratio = p / q if q > 0 else float("inf")
        if stopped:
            rows.append(Row(i, token_id, p, q, ratio, "-", TEXT["never_verified"]))
            continue
        if p >= q:
            rows.append(Row(i, token_id, p, q, ratio, TEXT["no_draw"], TEXT["accept"]))
            continue
        if mission == 1:
            rows.append(Row(i, token_id, p, q, ratio, TEXT["no_draw"], TEXT["reject_break"]))
            stopped = True
            continue
        r = draws.pop(0) if draws else None
        if r is not None and r < ratio:
            rows.append(Row(i, token_id, p, q, ratio, f"{r:.2f}", TEXT["accept_continue"]))
        else:
            rows.append(Row(i, token_id, p, q, ratio, f"{r:.2f}" if r is not None else TEXT["none_left"],
                            TEXT["reject_break"]))
            stopped = True
    return rows


class _PositionTrackingRand(ScriptedRand):
    """Scripted draws that also note the caller's loop variable ``i`` (the draft position)."""

    def __init__(self, draws):
        super().__init__(draws)
        self.positions = []

    def draw(self, shape, source="torch.rand"):
        frame = sys._getframe(1)  # the student's frame: the first outside the stand-ins' own module
        while frame is not None and frame.f_code.co_filename == ScriptedRand.draw.__code__.co_filename:
            frame = frame.f_back
        self.positions.append(frame.f_locals.get("i", "?") if frame is not None else "?")
        return super().draw(shape, source)


def student_trace(verify_draft, case=None, draws=VISIBLE_DRAWS, mission=2):
    """Run ``verify_draft`` with scripted draws; say which position used each draw."""
    case = case or visible_case()
    fake = _PositionTrackingRand(draws)
    run = run_verify(verify_draft, case, rand=fake)
    rows = replay_rows(case, draws, mission)
    expected = [row.position for row in rows if row.draw not in (TEXT["no_draw"], "-")]
    kept = [row.token_id for row in rows if row.verdict in (TEXT["accept"], TEXT["accept_continue"])]
    return dict(result=run.result, error=run.error, calls=run.calls,
                positions=fake.positions, expected_positions=expected, expected_result=kept)


def trace_messages(trace, expected_result=None):
    """Plain-language differences between a student's draws and the expected ones."""
    if expected_result is None:
        expected_result = trace.get("expected_result", (10, 20))
    notes = []
    if trace["error"]:
        notes.append(TEXT["trace_raised"].format(error=trace["error"]))
    mine, want = trace["positions"], trace["expected_positions"]
    for n in range(max(len(mine), len(want))):
        got = mine[n] if n < len(mine) else None
        exp = want[n] if n < len(want) else None
        if got == exp:
            continue
        if got is None:
            notes.append(TEXT["trace_missing"].format(n=n + 1, expected=exp))
        elif exp is None:
            notes.append(TEXT["trace_extra"].format(n=n + 1, got=got, count=len(want)))
        else:
            notes.append(TEXT["trace_moved"].format(n=n + 1, got=got, expected=exp))
    if not trace["error"] and list(trace["result"] or []) != list(expected_result):
        notes.append(TEXT["trace_result"].format(result=trace["result"], expected=list(expected_result)))
    return notes or [TEXT["trace_match"]]


SKIPPED_ROW = " class='skipped' style='color:#999;font-style:italic'"


def replay_html(verify_draft=None, case=None, draws=VISIBLE_DRAWS, mission=2):
    rows = replay_rows(case, draws, mission)
    body = "".join(
        f"<tr{SKIPPED_ROW if r.verdict == TEXT['never_verified'] else ''}><td>{r.position}</td><td>{r.token_id}</td>"
        f"<td>{r.p:.2f}</td><td>{r.q:.2f}</td><td>{'>= 1' if r.ratio >= 1 else f'{r.ratio:.2f}'}</td>"
        f"<td>{r.draw}</td><td>{r.verdict}</td></tr>" for r in rows)
    head = "".join(f"<th>{html.escape(name)}</th>" for name in TEXT["replay_head"])
    table = f"<table class='spec-replay'><tr>{head}</tr>{body}</table>"
    if verify_draft is None:
        return table
    trace = student_trace(verify_draft, case, draws, mission)
    items = "".join(f"<li>{html.escape(m)}</li>" for m in trace_messages(trace))
    summary = TEXT["trace_summary"].format(result=html.escape(repr(trace["result"])), calls=trace["calls"],
                                           positions=trace["positions"])
    return table + f"<p>{summary}</p><ul class='spec-trace'>{items}</ul>"


def show_replay(verify_draft=None, case=None, draws=VISIBLE_DRAWS, mission=2):
    """Display the replay of the visible test (and of ``verify_draft``, if given), or of ``case`` with ``draws``:
    a failed generated check prints the call that replays its smallest case."""
    from IPython.display import HTML, display

    display(HTML(replay_html(verify_draft, case, draws, mission)))
