"""The widgets' logic, tested as plain functions and as headless ipywidgets (no display)."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "source" / "level23_speculative_decoding"))

import spec_widgets as sw  # noqa: E402


def reference(draft_probs, target_probs, draft_tokens):
    import torch
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p, q = target_probs[i, token_id].item(), draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        if torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens


def draws_everywhere(draft_probs, target_probs, draft_tokens):
    import torch
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        p, q = target_probs[i, token_id].item(), draft_probs[i, token_id].item()
        r = torch.rand(1).item()
        if p >= q or r < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens


# ---------------------------------------------------------------- quizzes

@pytest.mark.parametrize("quiz_id", sorted(sw.QUIZZES))
def test_every_option_gets_a_verdict_and_only_the_answer_is_right(quiz_id):
    quiz = sw.QUIZZES[quiz_id]
    verdicts = [sw.grade_choice(quiz_id, k) for k in range(len(quiz["options"]))]
    assert [v.correct for v in verdicts].count(True) == 1
    assert verdicts[quiz["answer"]].correct
    for k, v in enumerate(verdicts):
        assert v.text.startswith("Right" if k == quiz["answer"] else "Not quite")


def test_no_choice_yet_is_not_graded():
    fb = sw.grade_choice("m1_guess", None)
    assert not fb.correct and "Pick an answer" in fb.text


def test_quiz_widget_starts_unselected_and_updates_on_every_change():
    box = sw.quiz("m1_guess")
    _, choice, verdict = box.children
    assert choice.value is None and choice.index is None
    assert "Pick an answer" in verdict.value
    choice.index = 1
    assert "✘" in verdict.value and "min(1, 0.8/0.5) = 1" in verdict.value
    choice.index = 0  # the student can change their mind
    assert "✔" in verdict.value and "Right:" in verdict.value


def test_a_quiz_verdict_says_it_once():
    """The mark, then the explanation that opens with its own verdict: never "✔ Correct. Right: ..." (issue 42)."""
    import re

    for quiz_id, quiz in sw.QUIZZES.items():
        for index in range(len(quiz["options"])):
            shown = re.sub(r"<[^>]+>", "", sw.spec_quiz.feedback_html(sw.grade_choice(quiz_id, index)))
            words = re.findall(r"Correct|Right|Not this one|Not quite|Wrong", shown)
            assert len(words) == 1, f"{quiz_id} option {index}: {shown!r}"


# ---------------------------------------------------------------- number line

@pytest.mark.parametrize("p,q,r,draw,accepted", [
    (0.8, 0.5, 0.99, False, True),    # p >= q: no draw, accept
    (0.5, 0.5, 0.99, False, True),    # p == q too
    (0.3, 0.0, 0.5, False, True),     # q == 0 never divides
    (0.4, 0.5, 0.5, True, True),      # position 1: r = 0.5 < 0.8
    (0.1, 0.9, 0.9, True, False),     # position 2: r = 0.9 >= 0.11
    (0.25, 0.5, 0.5, True, False),    # r == p/q rejects (strict <)
    (0.0, 0.5, 0.0, True, False),     # p == 0 rejects even at r = 0
])
def test_acceptance(p, q, r, draw, accepted):
    v = sw.acceptance(p, q, r)
    assert (v.needs_draw, v.accepted) == (draw, accepted)
    assert v.threshold == min(1.0, p / q if q else float("inf"))


def test_number_line_svg_shades_the_interval_and_marks_r():
    svg = sw.number_line_svg(sw.acceptance(0.4, 0.5, 0.5), width=560)
    assert "width='400.0'" in svg  # [0, 0.8) of a 500-px span
    assert "r = 0.50" in svg and "accept and continue" in svg
    assert "r-mark" not in sw.number_line_svg(sw.acceptance(0.8, 0.5, 0.5))  # no draw, no r


@pytest.mark.parametrize("p,q,r", [(0.0, 0.5, 0.3), (0.005, 0.5, 0.0), (0.01, 0.5, 0.99), (0.25, 0.5, 0.5),
                                   (0.495, 0.5, 0.02), (0.5, 0.5, 0.5), (0.9, 0.3, 0.5), (0.3, 0.0, 0.5)])
def test_number_line_labels_never_overlap_or_leave_the_picture(p, q, r):
    """p/q at 0, 0.01, 0.5, 0.99 and 1, and p >= q (also q == 0): every label readable."""
    width = 560
    labels = sw.number_line_labels(sw.acceptance(p, q, r), width)
    boxes = [sw.label_box(label) for label in labels]
    for left, top, right, bottom in boxes:
        assert 0 <= left and right <= width and 0 <= top and bottom <= 124
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            (l1, t1, r1, b1), (l2, t2, r2, b2) = boxes[a], boxes[b]
            assert r1 <= l2 or r2 <= l1 or b1 <= t2 or b2 <= t1, (labels[a]["text"], labels[b]["text"])


def test_number_line_shades_the_reject_zone_too():
    svg = sw.number_line_svg(sw.acceptance(0.1, 0.9, 0.9), width=560)
    assert "reject-zone" in svg and "width='444.4'" in svg  # [0.11, 1) of a 500-px span
    assert "p &gt;= q: min(1, p/q) = 1" in sw.number_line_svg(sw.acceptance(0.8, 0.5, 0.5))


def test_number_line_widget_follows_sliders_and_presets():
    line = sw.NumberLine()
    picture = line.picture
    assert "accept and continue" in picture.value       # starts at position 1
    line.r.value = 0.85
    assert "reject and stop" in picture.value and line.verdict.accepted is False
    line.preset("Position 2: p/q ≈ 0.11, r = 0.9")
    assert (line.p.value, line.q.value, line.r.value) == (0.1, 0.9, 0.9)
    assert "reject and stop" in picture.value and "0.11" in picture.value
    line.preset("Position 1: p/q = 0.8, r = 0.5")
    assert "accept and continue" in picture.value
    assert line.picture is picture and line.widget.children[-1] is picture  # redrawn, not rebuilt


# ---------------------------------------------------------------- replay

def test_replay_of_the_visible_test():
    rows = sw.replay_rows()
    assert [r.draw for r in rows] == ["no draw", "0.50", "0.90", "-"]
    assert [r.verdict for r in rows] == ["accept", "accept, continue", "reject, break", "never verified"]
    assert rows[1].ratio == pytest.approx(0.8) and rows[2].ratio == pytest.approx(1 / 9, rel=1e-5)


def test_student_trace_of_a_correct_function_matches():
    trace = sw.student_trace(reference)
    assert trace["positions"] == trace["expected_positions"] == [1, 2]
    assert sw.trace_messages(trace) == ["Your draws match the expected ones, in number and order."]


def test_student_trace_points_at_the_first_wrong_draw():
    notes = sw.trace_messages(sw.student_trace(draws_everywhere))
    assert notes[0] == "draw 1 happened at position 0, expected at position 1"
    assert any("differs from the expected [10, 20]" in n for n in notes)


def test_student_trace_of_an_unwritten_function_reports_the_error():
    def stub(*args):
        raise NotImplementedError("Write this TODO")
    assert sw.trace_messages(sw.student_trace(stub))[0].startswith("verify_draft raised NotImplementedError")


def test_replay_html_names_the_columns_and_the_trace():
    page = sw.replay_html(draws_everywhere)
    assert "never verified" in page and "draw 1 happened at position 0" in page


def test_the_replay_line_of_a_generated_case_replays_the_students_own_path():
    """Issue 49: a failed generated check prints one line that replays its smallest case; the table is the rule's
    path through it (Mission 1 stops at p < q without a draw) and the notes say where the function's draws went."""
    from spec_checks import Case
    case = Case([(1, 0.0, 0.5), (0, 0.5, 0.25)], vocab=2, rows=[[[1.0, 0.0], [0.5, 0.5]], [[0.5, 0.5], [0.25, 0.75]]])

    def skips_p_zero(draft_probs, target_probs, draft_tokens):
        kept = []
        for i, t in enumerate(draft_tokens):
            p, q = target_probs[i, t].item(), draft_probs[i, t].item()
            if p == 0:
                continue
            if p >= q or torch.rand(1).item() < p / q:
                kept.append(t)
            else:
                break
        return kept
    rows = sw.replay_rows(case, [0.0])
    assert [(r.draw, r.verdict) for r in rows] == [("0.00", "reject, break"), ("-", "never verified")]
    notes = sw.trace_messages(sw.student_trace(skips_p_zero, case, [0.0]))
    assert "draw 1 expected at position 0 never happened" in notes[0] or "position 0" in notes[0], notes
    assert any("[0]" in n and "[]" in n for n in notes), notes
    assert [(r.draw, r.verdict) for r in sw.replay_rows(case, [0.0], mission=1)] == [
        ("no draw", "reject, break"), ("-", "never verified")]
    assert "never verified" in sw.replay_html(skips_p_zero, case, [0.0], mission=1)


# ---------------------------------------------------------------- principle picture

def test_principle_summary_reads_row_i_at_the_drafted_column():
    first = sw.principle_summary(sw.lesson_case(), 0)
    assert (first["token_id"], round(first["p"], 2), round(first["q"], 2), first["accept"]) == (10, 0.8, 0.5, True)
    second = sw.principle_summary(sw.lesson_case(), 1)
    assert second["token_id"] == 20 and second["max_column"] == 7 and not second["accept"]


def test_principle_figure_draws_both_matrices():
    import matplotlib
    matplotlib.use("Agg")
    fig = sw.principle_figure(sw.lesson_case(), 1)
    titles = [ax.get_title() for ax in fig.axes[:2]]
    assert titles == ["target_probs  [K, V]", "draft_probs  [K, V]"]
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert "p = 0.40" in texts and "max() at column 7" in fig._suptitle.get_text()


def test_principle_figure_has_a_colour_scale_and_covers_no_cell():
    import matplotlib
    matplotlib.use("Agg")
    for i in (0, 1):
        fig = sw.principle_figure(sw.lesson_case(), i)
        assert len(fig.axes) == 3 and fig.axes[2].get_ylabel() == "probability"  # the colour bar
        assert not [t for ax in fig.axes[:2] for t in ax.texts if t.get_bbox_patch() is not None]  # no caption box
        marks = [line for line in fig.axes[0].lines if line.get_marker() == "x"]
        # position 0: the row maximum is the drafted token, so no x over the red p cell
        assert len(marks) == (0 if i == 0 else 1)


def test_autograding_skips_the_pictures(monkeypatch):
    monkeypatch.setattr(sw, "AUTOGRADING", True)
    import matplotlib.pyplot as plt
    before = plt.get_fignums()
    assert sw.show_principle(0).startswith("p = 0.80 >= q = 0.50")
    assert plt.get_fignums() == before


def test_the_principle_caption_is_not_echoed_as_out(monkeypatch):
    """In JupyterLab the caption is the picture's title; returning it too printed it again as Out[] (issue 42)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.setattr(sw, "AUTOGRADING", False)
    assert sw.show_principle(0) is None
    assert "p = 0.80 >= q = 0.50" in plt.gcf()._suptitle.get_text()
    plt.close("all")


def test_widgets_carry_a_static_picture_for_viewers_without_widgets():
    from IPython.core.formatters import DisplayFormatter
    formatter = DisplayFormatter()
    data, _ = formatter.format(sw.quiz("m1_guess"))
    assert "application/vnd.jupyter.widget-view+json" in data
    assert sw.QUIZZES["m1_guess"]["question"].split(" ")[0] in data["text/html"]
    assert all(html_escape(option) in data["text/html"] for option in sw.QUIZZES["m1_guess"]["options"])
    data, _ = formatter.format(sw.number_line())
    assert "<svg class='spec-number-line'" in data["text/html"] and "accept and continue" in data["text/html"]


def html_escape(text):
    import html
    return html.escape(text)


@pytest.mark.parametrize("make", [*(lambda q=q: sw.quiz(q) for q in sorted(sw.QUIZZES)), sw.number_line],
                         ids=[*sorted(sw.QUIZZES), "number_line"])
def test_while_grading_a_widget_is_only_its_static_picture_and_its_pages_are_the_same(monkeypatch, make):
    from conftest import static_while_grading

    static_while_grading(monkeypatch, sw.live, make)


@pytest.mark.parametrize("p,q,r", [(0.4, 0.5, 0.5), (0.3, 0.5, 1.0), (1.4, 0.5, 0.2), (0.2, -0.1, 0.5)])
def test_the_number_lines_static_picture_is_what_its_sliders_draw(p, q, r):
    """Also for values the sliders clamp (r at most 0.999): the picture shown while grading is the live one's."""
    from conftest import shown

    live = sw.number_line(p, q, r)
    assert live.children[-1].value in shown(live)["text/html"]
