"""Level 24's helpers as plain functions: the scripted randomness, the checks' messages, the derivation,
the experiment, the speed-up formula and its widget (headless), and the quizzes. No display, no nbgrader."""

import json
import math
import sys
from pathlib import Path

import pytest
import torch

import mutants

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "source" / "level24_residual_and_bonus"))
for name in ("spec_checks", "spec_widgets", "spec_quiz", "spec_markov"):  # Level 23's modules of the same names may be loaded
    sys.modules.pop(name, None)
import spec_checks as sc  # noqa: E402
import spec_markov as sm  # noqa: E402
import spec_widgets as sw  # noqa: E402

for name in ("spec_checks", "spec_widgets", "spec_quiz", "spec_markov"):
    sys.modules.pop(name, None)


@pytest.fixture(autouse=True)
def _level24_modules(monkeypatch):
    """spec_markov imports its siblings when it runs; they must be Level 24's, whichever level another test left on sys.path."""
    for name, module in (("spec_checks", sc), ("spec_markov", sm), ("spec_widgets", sw)):
        monkeypatch.setitem(sys.modules, name, module)


def reference(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p, q = target_probs[i, token_id].item(), draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
            continue
        residual = torch.clamp(target_probs[i] - draft_probs[i], min=0)
        accepted_tokens.append(int(torch.multinomial(residual / residual.sum(), 1).item()))
        return accepted_tokens
    accepted_tokens.append(int(torch.multinomial(target_probs[len(accepted_tokens)], 1).item()))
    return accepted_tokens
reference.__name__ = "speculative_step"


def from_p(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        p, q = target_probs[i, token_id].item(), draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
            continue
        return accepted_tokens + [int(target_probs[i].multinomial(1))]  # the tensor method, from p
    return accepted_tokens + [int(torch.multinomial(target_probs[len(draft_tokens)], 1))]


# ------------------------------------------------------------------ scripted randomness

def test_scripted_multinomial_records_calls_in_order_with_their_values():
    run = sc.run_step(reference, sc.visible_case(bonus_row=True), draws=[0.7], picks=[2])
    assert run.order == "rm" and run.tokens == [0, 2]
    assert run.multinomials == [(1, [0.75, 0.0, 0.25, 0.0])]
    assert sc.visible_problem_n2(run, sc.run_step(reference, sc.visible_case(True), draws=[0.1], picks=[3])) is None


def test_the_tensor_method_is_scripted_too_and_the_real_functions_come_back():
    real = torch.multinomial, torch.Tensor.multinomial, torch.rand
    run = sc.run_step(from_p, sc.visible_case(bonus_row=True), draws=[0.7], picks=[1])
    assert run.order == "rm" and run.tokens == [0, 1]
    assert "drawn from p" in sc.correction_problem(run, sc.visible_case(True), 1, 1)
    assert (torch.multinomial, torch.Tensor.multinomial, torch.rand) == real


@pytest.mark.parametrize("weights", [[0.0, 0.0, 0.0], [0.5, -0.1, 0.6], [float("nan"), 0.5, 0.5]])
def test_the_stand_in_knows_what_torch_refuses_and_says_it_in_torchs_words(weights):
    with pytest.raises(RuntimeError) as real:
        torch.multinomial(torch.tensor(weights), 1)
    with pytest.raises(RuntimeError) as fake:  # notebook 03's stand-in raises as torch does
        sc.Script(picks=[0], refuse=True).multinomial(torch.tensor(weights), 1)
    assert str(fake.value) in str(real.value)
    # run_step's records the weights and hands out the scripted token, so one mistake in the weights costs the
    # checks that read them, which say what torch says
    script = sc.Script(picks=[2])
    assert script.multinomial(torch.tensor(weights), 1).tolist() == [2]
    said = sc.refused(script.events[-1][2])
    assert said is not None and str(real.value).split(":")[0].split(" (")[0][:30] in said, said


# the reference with its residual made from the scalar q and divided by the unclamped sum (0, so nan), as a blind
# answer of the thirteenth session did
REFUSED_WEIGHTS = [("torch.clamp(target_probs[i] - draft_probs[i], min=0)", "torch.clamp(target_probs[i] - q, min=0)"),
                   ("residual = residual / residual.sum()",
                    "residual = residual / (target_probs[i] - draft_probs[i]).sum()")]


def test_weights_torch_refuses_cost_the_checks_that_read_them_and_no_other():
    code = mutants.edited(mutants.LEVEL24, "01_correction_token", REFUSED_WEIGHTS)
    judge, line = mutants.grade(code, mutants.LEVEL24, "01_correction_token")
    assert sorted(c for c in judge.failed if c) == ["hidden_emitted_distribution", "hidden_generated_cases",
                                                     "hidden_residual_exact", "test_visible"], judge.failed
    said = "".join(o.get("evalue", "") for o in judge.outputs_by_check["hidden_residual_exact"])
    assert "torch.multinomial refused" in said, said


def test_messages_name_each_wrong_distribution():
    case = sc.Case([[0.1, 0.6, 0.2, 0.1], [0.5, 0.1, 0.2, 0.2]], [[0.3, 0.3, 0.2, 0.2], [0.1, 0.3, 0.2, 0.4]], [1, 0])
    said = lambda values: sc.distribution_problem(values, case, 1)  # noqa: E731
    assert said(sc.residual(case, 1)) is None
    assert "without normalising" in said(sc.residual(case, 1, normalised=False))
    assert "drawn from p" in said(case.row("p", 1))
    assert "drawn from q" in said(case.row("q", 1))
    assert "max(0, q - p)" in said(sc.residual(case, 1, flip=True))
    assert "used row 0" in said(sc.residual(case, 0))
    near = [v + 2e-6 for v in sc.residual(case, 1)]
    assert said(near) is not None, "the values are checked to within 1e-6"


def test_from_wire_refuses_malformed_replies():
    case = sc.visible_case(True)
    good = sc.to_wire("run_step", sc.run_step(reference, case, draws=[0.7], picks=[2]))
    assert sc.from_wire("run_step", json.loads(json.dumps(good)), case).tokens == [0, 2]
    for bad in ({**good, "events": [["multinomial", 1, "x"]]}, {**good, "tokens": [1.5]}, {**good, "extra": 1},
                {**good, "events": [["rand"]] * 2}, {**good, "events": [["rand", [1]]] * 1001},
                {**good, "inputs_changed": False}, {**good, "after": good["after"][:2]}):
        with pytest.raises(ValueError):
            sc.from_wire("run_step", bad, case)
    for bad in ([[1, -2], 0.5], [[1, 2], 0.5], [[1, 2, 3, 4], float("inf")], [[4000, 1, 0, 0], 1.0]):
        with pytest.raises(ValueError):
            sc.from_wire("sample_steps", bad, case, (4000,))


def test_sample_steps_is_seeded():
    case = sc.Case([sc.LESSON_Q], [sc.LESSON_P, sc.LESSON_P], [1])
    assert sc.sample_steps(reference, case, 500, seed=3) == sc.sample_steps(reference, case, 500, seed=3)


# ------------------------------------------------------------------ statistics and formulas

def test_chi_square_p_value_matches_the_closed_form_for_two_degrees_of_freedom():
    stat, p_value = sc.chi_square([30, 50, 20], [0.25, 0.5, 0.25])
    assert stat == pytest.approx(5 ** 2 / 25 + 0 + 5 ** 2 / 25)
    assert p_value == pytest.approx(math.exp(-stat / 2), rel=1e-9)
    assert sc.chi_square([1, 0], [0.0, 1.0])[1] == 0.0


def test_tv_distance():
    assert sc.tv_distance([50, 50], [0.5, 0.5]) == 0
    assert sc.tv_distance([100, 0], [0.5, 0.5]) == pytest.approx(0.5)


def test_speedup_formulas():
    assert sc.expected_tokens_per_call(0.6, 3) == pytest.approx(1 + 0.6 + 0.36 + 0.216)
    assert sc.expected_tokens_per_call(1.0, 3) == 4
    assert sc.expected_speedup(0.75, 7, 0.0) == pytest.approx((1 - 0.75 ** 8) / 0.25)
    assert sc.expected_speedup(0.5, 4, 1.0) < 1  # a draft as costly as the target never pays


def test_the_derivation_adds_up_to_p():
    rows = sw.exactness_rows()
    assert [r["total"] for r in rows] == pytest.approx(sc.LESSON_P)
    assert rows[0]["reject"] == pytest.approx(0.4)
    g = torch.Generator().manual_seed(1)
    for _ in range(20):
        p, q = torch.rand(6, generator=g), torch.rand(6, generator=g)
        p, q = (p / p.sum()).tolist(), (q / q.sum()).tolist()
        assert [r["total"] for r in sw.exactness_rows(p, q)] == pytest.approx(p)


def test_the_experiment_matches_p_and_the_formula_and_accept_only_does_not():
    k = 3
    sim = sw.simulate(torch.tensor([sc.LESSON_Q] * k), torch.tensor([sc.LESSON_P] * (k + 1)), n=100_000, seed=0)
    assert sum(sim.speculative) == sum(sim.accept_only) == 100_000
    assert sc.tv_distance(sim.speculative, sc.LESSON_P) < 0.01
    assert sc.chi_square(sim.speculative, sc.LESSON_P)[1] > 0.01
    assert sc.tv_distance(sim.accept_only, sc.LESSON_P) > 0.15
    accept_only = [min(a, b) / 0.6 for a, b in zip(sc.LESSON_P, sc.LESSON_Q)]
    assert sc.tv_distance(sim.accept_only, accept_only) < 0.01, "accept-only emits x with probability ∝ min(p, q)"
    assert sim.tokens_per_call == pytest.approx(sc.expected_tokens_per_call(0.6, k), abs=0.01)
    lines = sw.experiment_summary(sim)
    assert "TV distance" in lines[0] and "p-value" in lines[1]


# ------------------------------------------------------------------ speed-up widget

def test_speedup_view_marks_the_best_k():
    view = sw.speedup_view(0.8, 3, 0.1)
    assert view["best"] == max(range(1, sw.K_MAX + 1), key=lambda k: sc.expected_speedup(0.8, k, 0.1))
    assert view["best_speedup"] >= max(view["curve"]) - 1e-12
    assert "best K" in view["text"]
    assert sw.best_k(0.9, 0.0) == sw.K_MAX and sw.best_k(0.2, 0.5) == 1


def test_headline_points_are_the_papers_and_give_its_predictions():
    # Leviathan et al. 2023: EnDe, T5-small draft, gamma = 7; alpha 0.75 at t = 0 and 0.62 at t = 1 (Table 2),
    # c = 0.02 (Appendix A.3, Table 4), predicted 3.2x and 2.3x (Table 4).
    assert [(a, c, k) for _, a, c, k in sw.HEADLINE] == [(0.75, 0.02, 7), (0.62, 0.02, 7)]
    assert [round(sw.speedup_view(a, k, c)["speedup"], 1) for _, a, c, k in sw.HEADLINE] == [3.2, 2.3]
    assert "t = 0" in sw.HEADLINE[0][0] and "t = 1" in sw.HEADLINE[1][0]


def test_speedup_widget_redraws_from_its_sliders_and_presets():
    widget = sw.SpeedUp(alpha=0.5, k=2, c=0.1)
    before = widget.picture.value
    widget.alpha.value = 0.9
    assert widget.picture.value != before and "0.9" not in before
    assert "class='best'" in widget.picture.value and "class='current'" in widget.picture.value
    name, alpha, c, k = sw.HEADLINE[0]
    widget.preset(alpha, c, k)
    assert widget.k.value == k == 7 and widget.alpha.value == alpha
    assert f"K = 7:" in widget.picture.value and f"best K = {sw.best_k(alpha, c)}" in widget.picture.value
    widget.preset(0.5, 0.1)
    assert widget.k.value == sw.best_k(0.5, 0.1)


@pytest.mark.parametrize("make", [sw.speedup_widget, lambda: sw.quiz("l24_guess")], ids=["speedup", "quiz"])
def test_while_grading_the_speedup_curve_and_a_quiz_are_only_their_static_pictures(monkeypatch, make):
    from conftest import static_while_grading

    static_while_grading(monkeypatch, sw.live, make)


def test_quizzes_have_exactly_one_right_answer_and_a_reason_for_each_option():
    for quiz_id, quiz in sw.QUIZZES.items():
        verdicts = [sw.grade_choice(quiz_id, k) for k in range(len(quiz["options"]))]
        assert sum(v.correct for v in verdicts) == 1, quiz_id
        assert len(quiz["why"]) == len(quiz["options"])
    assert {"l24_guess", "l24_check"} <= set(sw.QUIZZES)
    assert "residual" in sw.QUIZZES["l24_guess"]["options"][sw.QUIZZES["l24_guess"]["answer"]]


# ------------------------------------------------------------------ visible-test messages, with the answers they are for

def visible_message(answer):
    from grading.build import catalogue  # noqa: F401
    ns = {"torch": torch}
    exec(answer.code, ns)
    if answer.notebook.startswith("01"):
        return sc.visible_problem_n1(sc.run_step(ns["verify_and_correct"], sc.visible_case(), draws=[0.7], picks=[2]))
    step = ns["speculative_step"]
    return sc.visible_problem_n2(sc.run_step(step, sc.visible_case(True), draws=[0.7], picks=[2]),
                                 sc.run_step(step, sc.visible_case(True), draws=[0.1], picks=[3]))


def level24_answers():
    sys.path.insert(0, str(ROOT))
    from grading.build import catalogue
    # notebooks 01 and 02 (speculative_step on tables); notebook 03's answers are checked in tests/test_tiny_lm.py
    return {(a.notebook[:2], a.name): a for a in catalogue.load(assignment="level24_residual_and_bonus")
            if a.notebook[:2] in ("01", "02")}


@pytest.mark.parametrize("key,says", [
    (("01", "residual_q_minus_p"), "max(0, q - p)"), (("01", "not_normalised"), "without normalising"),
    (("01", "residual_row_zero"), "used row 0"), (("01", "residual_from_p"), "drawn from p"),
    (("01", "residual_from_q"), "drawn from q"), (("01", "multinomial_before_coin"), "before the coin"),
    (("01", "two_corrections"), "2 samples"), (("01", "no_correction"), "never called"),
    (("01", "appends_position"), "expected [0, 2]"),
    (("02", "no_bonus"), "sample one bonus token from target_probs[2]"), (("02", "bonus_row_k_minus_1"), "row K-1"),
    (("02", "bonus_after_reject"), "called 2 times"), (("02", "bonus_from_draft"), "draft's row"),
    (("02", "bonus_before_coins"), "before the coin"), (("02", "bonus_replaces_last"), "expected [0, 1, 3]"),
    (("02", "residual_q_minus_p"), "max(0, q - p)"),
])
def test_visible_message_names_the_mistake(key, says):
    message = visible_message(level24_answers()[key])
    assert message is not None and says in message, message


def test_right_answers_pass_the_visible_tests():
    for (nb, name), answer in level24_answers().items():
        if answer.full_marks:
            assert visible_message(answer) is None, (nb, name)


# ------------------------------------------------------------------ the character models

def test_char_models_are_distributions_and_generation_follows_the_formula_roughly():
    models = sw.fit_char_models()
    assert torch.allclose(models.bigram.sum(-1), torch.ones(len(models.vocab)))
    assert torch.allclose(models.trigram.sum(-1), torch.ones(len(models.vocab), len(models.vocab)))
    gen = sw.generate(reference, models, steps=150, k=4, seed=1)
    assert gen.text.startswith("the ") and len(gen.text) == 4 + gen.tokens
    assert gen.tokens == gen.accepted + gen.steps, "every step adds its accepted drafts and one new token"
    assert 0.2 < gen.alpha < 0.9 and abs(gen.acceptance - gen.alpha) < 0.15
    assert abs(gen.tokens_per_call - sc.expected_tokens_per_call(gen.alpha, 4)) < 0.4
    assert "formula" in sw.generation_summary(gen)[1]


# ------------------------------------------------------------------ feedback (the shared graded course)

LEVEL24 = "level24_residual_and_bonus"


def hidden_lines(notebook):
    """Every non-trivial line of hidden test code that the student's notebook does not show anyway.

    (Notebook 02's own experiment cell sums counts the same way one hidden check does: seeing that
    line in the feedback reveals nothing.)
    """
    import nbformat
    nb = nbformat.read(ROOT / "source" / LEVEL24 / f"{notebook}.ipynb", as_version=4)
    hidden, shown = [], set()
    for cell in nb.cells:
        inside = False
        for line in cell.source.splitlines():
            if "BEGIN HIDDEN TESTS" in line:
                inside = True
            elif "END HIDDEN TESTS" in line:
                inside = False
            elif inside and len(line.strip()) > 12:
                hidden.append(line.strip())
            elif not inside:
                shown.add(line.strip())
    return [line for line in hidden if line not in shown]


def feedback_text(graded_course, student, notebook):
    import html as h
    import re
    return h.unescape(re.sub(r"<[^>]+>", "", graded_course.feedback(student, notebook, LEVEL24)))


@pytest.mark.parametrize("student,notebook,says", [
    ("demo-eve", "01_correction_token", "Diagnosis: you sample the correction from p"),
    ("demo-eve", "02_bonus_and_step", "Diagnosis: no bonus token"),
    ("l24-02-bonus-row-k-minus-1", "02_bonus_and_step", "(row K-1)"),
    ("l24-01-multinomial-before-coin", "01_correction_token", "called before the coin"),
])
def test_level24_feedback_names_the_mistake_and_shows_no_hidden_code(graded_course, student, notebook, says):
    text = feedback_text(graded_course, student, notebook)
    assert says in text
    leaked = [line for line in hidden_lines(notebook) if line in text]
    assert not leaked, f"hidden test code in {student}'s feedback: {leaked[:3]}"
    assert "BEGIN HIDDEN TESTS" not in text and "Traceback (most recent" not in text


def test_level24_feedback_shows_the_widgets_as_static_pictures(graded_course):
    text = feedback_text(graded_course, "demo-ada", "02_bonus_and_step")
    assert "Run this cell in JupyterLab to answer" in text and "Run this cell in JupyterLab to move the sliders" in text


# ------------------------------------------------------------------ whole steps on two Markov chains (issue 21)

def test_the_markov_target_joint_is_the_chains_probability_of_each_sequence():
    joint = sm.target_joint()
    assert len(joint) == 27 and math.isclose(sum(joint), 1.0)
    assert math.isclose(joint[sm.sequences().index((1, 2, 0))], 0.65 * 0.65 * 0.65)
    # the rows depend on the context: a mistake in which row is used cannot hide behind equal rows
    assert len({tuple(row) for row in sm.MARKOV_P}) == 3 and len({tuple(row) for row in sm.MARKOV_Q}) == 3


def _step_of(answer):
    ns = {"torch": torch}
    exec(answer.code, ns)
    return ns["speculative_step"]


def test_markov_experiment_shows_the_wrong_row_answers_a_clear_gap_and_the_right_ones_none():
    answers = {name: a for (nb, name), a in level24_answers().items() if nb == "02"}
    right = [name for name, a in answers.items() if a.full_marks]
    assert len(right) >= 4
    for name in right + ["bonus_row_k_minus_1", "correction_row_zero"]:
        result = sm.markov_experiment(_step_of(answers[name]), runs=1_500, seed=0)
        if name in right:
            assert result.p_value > 0.05 and result.tv < 0.06, (name, result.lines())
        else:
            assert result.p_value < 1e-20 and result.tv > 0.15, (name, result.lines())


def test_the_first_token_experiment_is_blind_to_the_wrong_rows_the_markov_one_is_not():
    # what the notebook says: identical rows and the first token only cannot tell row K - 1 from row K
    answers = {name: a for (nb, name), a in level24_answers().items() if nb == "02"}
    step = _step_of(answers["bonus_row_k_minus_1"])
    q_row, p_row = [0.1, 0.5, 0.2, 0.2], [0.4, 0.1, 0.3, 0.2]
    counts = [0, 0, 0, 0]
    for token in range(4):
        case = sc.Case([q_row] * 2, [p_row] * 3, [token, token])
        got, _ = sc.sample_steps(step, case, trials=int(2000 * q_row[token]), seed=token)
        counts = [a + b for a, b in zip(counts, got)]
    assert sc.tv_distance(counts, p_row) < 0.04


def test_markov_experiment_is_skipped_while_grading_and_says_so(monkeypatch):
    monkeypatch.setattr(sm, "AUTOGRADING", True)
    result = sm.markov_experiment(reference)
    assert result.skipped and "not graded" in result.lines()[0]


def test_markov_experiment_refuses_a_step_that_returns_nothing_with_a_clear_error():
    with pytest.raises(AssertionError, match="returned no token"):
        sm.markov_counts(lambda d, t, x: [], runs=1)


def test_fit_line_says_the_p_value_is_not_the_targets_p():
    line = sw.fit_line([50, 50], [0.5, 0.5])
    assert "p-value = 1" in line and "not the target's p" in line and "TV distance = 0.0000" in line


# ------------------------------------------------------------------ the formula, K and c (issue 21)

def test_averaging_level_23s_factor_over_the_drafts_gives_sum_min_and_the_sum_its_closed_form():
    p, q = sc.LESSON_P, sc.LESSON_Q
    assert math.isclose(sum(qx * min(1, px / qx) for px, qx in zip(p, q)), sum(map(min, p, q)))
    for alpha in (0.1, 0.6, 0.75, 0.99):
        for k in range(0, 9):
            assert math.isclose(1 + sum(alpha ** (i + 1) for i in range(k)), sc.expected_tokens_per_call(alpha, k))


def test_some_k_helps_exactly_when_alpha_exceeds_c():  # Corollary 3.9, and its converse (the quiz's answer)
    grid = [round(0.05 * i, 2) for i in range(0, 20)]
    for alpha in grid:
        for c in grid:
            helps = max(sc.expected_speedup(alpha, k, c) for k in range(1, 60)) > 1 + 1e-12
            assert helps == (alpha > c), (alpha, c)
    assert round(sc.expected_speedup(0.25, 1, 0.3), 2) == 0.96  # the quiz's K = 1 figure
    assert sw.QUIZZES["l24_some_k_helps"]["answer"] == 1


def test_best_k_curves_start_where_alpha_exceeds_c():
    curves = sw.best_k_curves(costs=(0.02, 0.3))
    for c, points in curves.items():
        alphas = [a for a, _ in points]
        assert alphas and min(alphas) > c and all(a in alphas for a in [round(0.02 * i, 2) for i in range(1, 50)]
                                                   if a > c + 1e-9)
        assert [k for _, k in points] == sorted(k for _, k in points), "a better draft never wants fewer drafts"
    assert dict(curves[0.02])[0.74] <= 9 <= dict(curves[0.02])[0.76]


def test_generation_summary_gives_the_standard_error_and_times_nothing():
    gen = sw.generate(reference, sw.fit_char_models(), steps=200, k=4, seed=0)
    lines = sw.generation_summary(gen)
    assert sum(gen.per_step) == gen.tokens and len(gen.per_step) == gen.steps
    assert 0.03 < gen.standard_error < 0.2
    assert "measured" not in " ".join(lines) and "not timed" in lines[2] and "standard error" in lines[1]


@pytest.mark.parametrize("alpha,k,c", [(0.75, 4, 0.05), (1.0, 40, 2.0), (-0.5, 0, 0.02)])
def test_the_speedup_curves_static_picture_is_what_its_sliders_draw(alpha, k, c):
    """Also for values the sliders clamp (α at most 0.99, K from 1 to K_MAX): the picture shown while grading is
    the live one's."""
    from conftest import shown

    live = sw.speedup_widget(alpha, k, c)
    assert live.children[-1].value in shown(live)["text/html"]


# ------------------------------------------------------------------ issue 42 item 5: the speed-up pictures

def test_speedup_axis_labels_never_crowd_even_at_alpha_099():
    import re

    for alpha in (0.0, 0.5, 0.75, 0.9, 0.95, 0.99):
        svg = sw.speedup_svg(sw.speedup_view(alpha, 4, 0.0))
        ys = sorted(float(y) for y in re.findall(r"<text x='36' y='([\d.]+)' text-anchor='end'>", svg))
        assert 2 <= len(ys) <= 8, (alpha, ys)
        assert min(b - a for a, b in zip(ys, ys[1:])) >= 16, f"α = {alpha}: y labels {ys} closer than 16 px"
    assert sw.y_ticks(17.6) == [0, 5, 10, 15] and sw.y_ticks(4.0) == [0, 1, 2, 3, 4]


def test_no_best_k_ring_when_no_k_beats_plain_decoding():
    none = sw.speedup_view(0.25, 1, 0.3)  # α < c: Corollary 3.9, no K gives a speed-up
    assert not none["helps"] and "class='best'" not in sw.speedup_svg(none)
    assert "no K beats plain decoding" in none["text"] and "best K" not in none["text"]
    some = sw.speedup_view(0.8, 3, 0.1)
    assert some["helps"] and "class='best'" in sw.speedup_svg(some) and "best K" in some["text"]


def test_speedup_svg_shrinks_to_a_narrow_screen():
    svg = sw.speedup_svg(sw.speedup_view(0.75, 4, 0.05))
    assert "viewBox='0 0 560 230'" in svg and "max-width: 100%" in svg


def test_best_k_chart_paper_labels_do_not_overlap():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = sw.best_k_figure()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in fig.axes[0].texts if t.get_gid() == "paper-label"]
    plt.close(fig)
    assert len(boxes) == 2 and not boxes[0].overlaps(boxes[1]), boxes
