"""Widgets, pictures and the experiments of the Level 24 notebooks.

Every widget is a thin shell over a plain function, so the logic is tested
with pytest and no display:

    grade_choice(quiz_id, index)           -> Feedback    # the quizzes
    exactness_rows(p, q)                   -> list[dict]  # the derivation, token by token
    simulate(draft_probs, target_probs, n) -> Simulation  # the 100,000-run experiment, vectorised
    speedup_view(alpha, k, c)              -> dict        # what the speed-up widget draws

and a notebook cell calls one of ``quiz``, ``show_exactness``, ``show_histograms``
or ``speedup_widget`` in one line. Nothing here waits for a person, so the
notebooks run unattended under nbgrader (which sets NBGRADER_EXECUTION).
"""

import html
import os
from dataclasses import dataclass

import torch

import spec_quiz
from spec_checks import (LESSON_P, LESSON_Q, Case, chi_square, expected_speedup,  # noqa: F401 (for the notebooks)
                         expected_tokens_per_call, lesson_case, tv_distance)
from spec_quiz import AUTOGRADING, Feedback, live, on_sliders  # noqa: F401 (Feedback: what grade_choice returns)

# --------------------------------------------------------------------------- quizzes

# ---------------------------------------------------------------- text: BEGIN TEXT
# Every sentence the widgets and the notebooks' code cells show, by id. This is the English edition's
# text; `python -m grading.build` writes each translated edition's copy of this file with this block
# taken from lessons/i18n/ (everything outside the block is copied unchanged, and a test says so).
TEXT = {
    "lang": "en",
    "fonts": [],
    "quiz": {
        "l24_pair_check": {
            "question": "On this CPU, one call of the small target over 5 positions took only a little longer than over 1 (about 1.2 times, in the timing above). Why, for this model?",
            "options": [
                "Reading the weights from memory dominates, as on the papers' accelerators",
                "Most of a call is a fixed cost per call (Python and PyTorch setting up each operation), not arithmetic",
                "The drafted positions are skipped by the target",
            ],
            "why": [
                "Not for this model: its weights (2.6 MB in float32) are read in well under a millisecond. Memory bandwidth is the reason for large models on accelerators; for this one the fixed cost of each call is.",
                "Right: the timing above shows it: a call's time grows far more slowly than its positions, so most of it is a cost per call (starting each of its many small operations). Either way, extra positions in the same call are nearly free.",
                "Not quite: the target computes every position it is given, the drafts included: that is the extra computation speculation pays (Leviathan et al. 2023, Theorem 3.11).",
            ],
        },
        "l24_guess": {
            "question": "The draft proposed token 1 (p = 0.2, q = 0.5) and the coin rejected it. The step must still emit one token. Where should that token be sampled from?",
            "options": [
                "From p, the target's row",
                "From q, the draft's row",
                "From the residual max(0, p - q), normalised",
            ],
            "why": [
                "Not quite: the accepted drafts already gave each token min(p, q) of probability. Sampling from p after a rejection adds P(reject) · p on top, so tokens where the draft was generous get too much.",
                "Not quite: q is the distribution that was just too generous to token 1. Sampling from it again pushes the output towards the draft, away from the target.",
                "Right: the accepted drafts cover min(p, q) of each token; what is missing is exactly p - min(p, q) = max(0, p - q), and a rejection happens with probability equal to its total. Normalised, it fills the gap so the token follows p.",
            ],
        },
        "l24_check": {
            "question": "p = [0.5, 0.2, 0.2, 0.1] and q = [0.2, 0.5, 0.1, 0.2]. What is the probability that one drafted token is rejected?",
            "options": ["0.4", "0.6", "0.3"],
            "why": [
                "Right: the acceptance rate of these rows is β = Σ min(p, q) = 0.2 + 0.2 + 0.1 + 0.1 = 0.6, so P(reject) = 1 - 0.6 = 0.4. It also equals Σ max(0, p - q) = 0.3 + 0.1.",
                "Not quite: 0.6 is β = Σ min(p, q), the probability of accepting. A rejection has probability 1 - β = 0.4.",
                "Not quite: 0.3 is max(0, p - q) for token 0 alone. P(reject) = Σ max(0, p - q) = 0.3 + 0.1 = 0.4.",
            ],
        },
        "l24_bonus_guess": {
            "question": "K = 3 drafts, all accepted. target_probs has 4 rows (0..3). Which row gives the bonus token?",
            "options": [
                "target_probs[2], the last drafted position",
                "target_probs[3], row K",
                "draft_probs[2]",
            ],
            "why": [
                "Not quite: row 2 is the target's distribution for the third drafted token, which is already accepted. The next token's distribution is the row after it.",
                "Right: the target scored K + 1 positions in one call; row K is its distribution for the token after all K drafts. The bonus comes free with the same call.",
                "Not quite: the bonus is a token of the target model. The draft's rows are never sampled from during verification.",
            ],
        },
        "l24_speed_check": {
            "question": "With α = 0.8 and a free draft (c = 0), what does a larger K do to the speed-up?",
            "options": [
                "It grows without limit",
                "It grows towards 1 / (1 - α) = 5",
                "It falls after K = 1",
            ],
            "why": [
                "Not quite: each extra draft is accepted only if all before it were, with probability α^K. The sum 1 + α + α² + ... stays below 1 / (1 - α).",
                "Right: (1 - α^(K+1)) / (1 - α) tends to 1 / (1 - α) = 5 as K grows. With c > 0 the drafts cost time, and the curve has a best K.",
                "Not quite: with c = 0 more drafts never cost anything, so the speed-up never falls; it levels off at 1 / (1 - α).",
            ],
        },
        "l24_some_k_helps": {
            "question": "A draft is accepted with α = 0.25 and one draft call costs c = 0.3 target calls. Is there a K that makes speculative sampling faster than plain decoding?",
            "options": [
                "Yes: a large enough K always pays",
                "No: α < c, and then no K gives more than 1×",
                "Yes: K = 1, since every step emits at least one token",
            ],
            "why": [
                "Not quite: each extra draft costs c = 0.3 but adds only α^K tokens on average, less and less. Here the speed-up falls as K grows.",
                "Right: Leviathan et al. (Corollary 3.9) show that if α > c some K helps, at least (1 + α)/(1 + c) with K = 1. The other way round also holds: 1 + α + ... + α^K ≤ 1 + Kα ≤ 1 + Kc when α ≤ c, so the speed-up is at most 1. Here K = 1 gives 1.25 / 1.3 = 0.96×.",
                "Not quite: the step emits 1 + α = 1.25 tokens on average with K = 1, but costs 1 + c = 1.3 target calls of time: 0.96×, slower than plain decoding.",
            ],
        },
    },
    "table_head": ["token x", "p(x)", "q(x)", "accept: min(p, q)", "residual(x)", "P(reject) · residual(x)", "sum"],
    "table_foot": "β = Σ min(p, q) = {alpha}, P(reject) = 1 - β = {reject} = Σ max(0, p - q). The last column equals p, token by token.",
    "bar_accepted": "accepted draft: min(p, q)",
    "bar_correction": "correction: P(reject) · residual",
    "bar_target": "target p",
    "bar_token": "token {token}",
    "probability": "probability",
    "exactness_title": "Speculative sampling emits each token with probability p",
    "speculative": "speculative sampling",
    "accept_only": "accept-only-then-stop",
    "fit_line": "TV distance = {tv}, chi-square = {stat}, p-value = {p_value} (if the sampling is right, the chance of a gap at least this large; not the target's p)",
    "best_k_label": "c = {c}",
    "best_k_paper": "paper: α = {alpha}, γ = {k}",
    "best_k_xlabel": "α (acceptance rate)",
    "best_k_ylabel": "best K (1..{k_max})",
    "best_k_title": "The best K against α; each curve starts where α > c",
    "markov": {
        "no_token": "{function} returned no token: a step must return at least one new token",
        "outside": "{function} returned a token id outside 0..{last}: {seq}",
        "skipped": "Skipped while your notebook is graded (this experiment is not graded).",
        "head": "first {length} tokens of {runs} runs (K = {k}), 27 sequences against the target chain:",
        "gap": "largest gap: {seq} came out {share} of the time, the target chain gives it {want}",
    },
    "first_emitted": "first emitted token",
    "share_of_runs": "share of {n} runs",
    "speedup_text": "K = {k}: {tokens} tokens per target call, speed-up {speedup}×; best K = {best} ({best_speedup}×)",
    "speedup_text_none": "K = {k}: {tokens} tokens per target call, speed-up {speedup}×; no K beats plain decoding "
                         "(1×) here",
    "speedup_axis": "K (drafted tokens per step); green ring: best K; red dot: your K",
    "headline": ["EnDe, t = 0 (greedy): α = 0.75", "EnDe, t = 1 (sampling): α = 0.62"],
    "speedup_static": "Run this cell in JupyterLab to move the sliders.",
    "generation": [
        "alpha (mean of β = Σ min(p, q) where verified) = {alpha};  counted acceptance = {acceptance}",
        "tokens per target call: counted {counted} ± {error} (standard error, {steps} steps), formula (1 - α^(K+1)) / (1 - α) = {formula}",
        "not timed: with an assumed c = {c} these counts would give {counted}× (formula {formula}×); for these two table look-ups c is about 1",
    ],
    "alpha_axes": ["temperature T (both models)", "measured alpha", "the real pair: alpha against T",
                   "fixed prefixes (the same at every T)", "the target's own text at T"],
    "forward_lines": [
        "one call, {n} position(s), {calls} calls: min {low} ms, median {median} ms, max {high} ms",
        "{n} positions against {first}, call by call: median {ratio} times as long (min {low}, max {high})",
    ],
    "greedy_lines": [
        "greedy text after {prompt} ({n} tokens):",
        "    its commonest character, {char}, is {share} of it",
        "timed on {prompt}: speculative gives the same tokens as plain in every run: {same}",
        "plain:       {runs} runs, min {low} ms, median {median} ms, max {high} ms",
        "speculative: K = {k}, min {low} ms, median {median} ms, max {high} ms",
        "speed-up per run: median {median}x (min {low}, max {high}); {per_call} tokens per target call, "
        "{accepted} of {checked} checked drafts accepted ({drafted} drafted)",
    ],
    "pair_report": [
        "{runs} runs of {n} tokens each at T = {temperature}, plain and speculative (K = {k}) taking turns; each part of a "
        "step below is its median over every step of every run (a plain token is one step):",
        "c = {c}: one draft token {draft} ms over one target call of 1 position {call} ms (both timed inside the runs); "
        "alpha = {alpha} over {positions} prefixes of the target's own text at this T",
        "formula (Theorem 3.8): {tokens} tokens per step, a step costs K·c + 1 = {cost} target calls: speed-up {speedup}x",
        "measured: {tokens} tokens per step; {accepted} of {checked} checked drafts accepted ({rate}); "
        "{unchecked} more drafts came after a rejection and were never checked",
        "one step takes {step} ms = {tokens} plain tokens (a plain token takes {plain} ms, its call {call} ms), made of:",
        "    drafting {k} tokens {draft} ms; the call of {positions} positions {call} ms ({ratio} times a call of 1); "
        "the rest (rows, speculative_step, crop, the loop) {rest} ms",
        "so {tokens} tokens for the time of {cost} plain tokens: {explained}x; measured on whole runs (every pause "
        "of the machine included): median {median}x (min {low}, max {high})",
        "the price: the target computed {positions} positions per emitted token (plain: 1.00)",
    ],
    "say": {
        "pair_sizes": "target: {parameters} parameters; draft: a {rows} x {columns} bigram table",
        "not_timed": "Not timed while grading: timings depend on the machine, and nothing here is graded.",
        "not_timed_short": "Not timed while grading.",
        "not_measured": "Not measured while grading.",
        "alpha_at": "T = {temperature:.1f}: alpha = {alpha:.3f} on the fixed prefixes ({texts} texts: {low:.3f} to "
                    "{high:.3f});  on the target's own text at this T: {own:.3f}, and {char} is {share:.0%} of that text",
        "derivation": "min(p, q)      = {accept}   beta = {alpha}\nP(reject)      = {reject} = sum of max(0, p - q) = {leftover}\nresidual       = {residual}\nmin + P(reject) * residual = {total}   p = {p}",
        "one_draw": "one draw: {tensor} -> {item}",
        "draw_shares": "shares of 10,000 draws: {shares}",
        "all_zeros": "all zeros",
        "refused": "{name:>9}: RuntimeError: {error}",
        "emitted_shares": "emitted-token shares: {shares}   want: {want}",
        "steps_in": "100,000 steps in {seconds:.2f} s",
        "float32_rows": "q[1] = {q1}   p/q = {ratio}   residual max(0, p - q) = {residual}",
        "formula_and_simulation": "alpha = {alpha:.2f}, K = {k}: 1 + α + ... + α^K = {term_by_term:.4f}, closed form "
                                  "{formula:.4f}, simulation {simulation:.4f} tokens per target call",
    },
}
# ---------------------------------------------------------------- text: END TEXT
QUIZ_ANSWERS = {'l24_guess': 2, 'l24_check': 0, 'l24_bonus_guess': 1, 'l24_speed_check': 1, 'l24_some_k_helps': 1, 'l24_pair_check': 1}
QUIZZES = {quiz_id: dict(TEXT["quiz"][quiz_id], answer=QUIZ_ANSWERS[quiz_id]) for quiz_id in QUIZ_ANSWERS}


def say(key, **blanks):
    """The edition's sentence ``key`` (TEXT["say"]) for a notebook's code cell to print, its blanks filled in."""
    return TEXT["say"][key].format(**blanks)


def use_fonts():
    """Put the edition's fonts (TEXT["fonts"], e.g. a CJK one) first in matplotlib's sans-serif list."""
    spec_quiz.use_fonts(TEXT["fonts"])


def grade_choice(quiz_id, index):
    """The verdict and explanation for choosing option ``index`` of quiz ``quiz_id``."""
    return spec_quiz.grade_choice(QUIZZES, quiz_id, index)


def quiz(quiz_id):
    """A multiple-choice quiz: no option preselected, feedback on every choice."""
    return spec_quiz.quiz(QUIZZES, quiz_id)


# --------------------------------------------------------------------------- the derivation

def exactness_rows(p=LESSON_P, q=LESSON_Q):
    """Per token: p, q, min(p, q), the residual and P(reject) · residual, and their sum (which is p)."""
    accept = [min(a, b) for a, b in zip(p, q)]
    reject = 1.0 - sum(accept)
    leftover = [max(0.0, a - b) for a, b in zip(p, q)]
    mass = sum(leftover)
    residual = [x / mass for x in leftover] if mass > 0 else [0.0] * len(p)
    return [dict(token=k, p=p[k], q=q[k], accept=accept[k], residual=residual[k],
                 correction=reject * residual[k], total=accept[k] + reject * residual[k], reject=reject)
            for k in range(len(p))]


def exactness_table(p=LESSON_P, q=LESSON_Q):
    """The derivation as an HTML table: every column a step, the last column equal to p."""
    rows = exactness_rows(p, q)
    head = "<tr>" + "".join(f"<th>{html.escape(label)}</th>" for label in TEXT["table_head"]) + "</tr>"
    body = "".join(
        f"<tr><td>{r['token']}</td><td>{r['p']:.2f}</td><td>{r['q']:.2f}</td><td>{r['accept']:.2f}</td>"
        f"<td>{r['residual']:.2f}</td><td>{r['correction']:.2f}</td><td><b>{r['total']:.2f}</b></td></tr>"
        for r in rows)
    alpha = sum(r["accept"] for r in rows)
    foot = f"<p>{html.escape(TEXT['table_foot'].format(alpha=f'{alpha:.2f}', reject=f'{1 - alpha:.2f}'))}</p>"
    from IPython.display import HTML
    return HTML(f"<table class='spec-exactness'>{head}{body}</table>{foot}")


def exactness_figure(p=LESSON_P, q=LESSON_Q):
    """Per token, a stacked bar (min(p, q), then P(reject) · residual) beside the bar of p."""
    import matplotlib.pyplot as plt

    use_fonts()
    rows = exactness_rows(p, q)
    x = torch.arange(len(rows)).tolist()
    fig, ax = plt.subplots(figsize=(7, 3.2), constrained_layout=True)
    accept = [r["accept"] for r in rows]
    ax.bar([t - 0.2 for t in x], accept, 0.38, color="#22c55e", label=TEXT["bar_accepted"])
    ax.bar([t - 0.2 for t in x], [r["correction"] for r in rows], 0.38, bottom=accept, color="#f59e0b",
           label=TEXT["bar_correction"])
    ax.bar([t + 0.2 for t in x], [r["p"] for r in rows], 0.38, color="#3b82f6", label=TEXT["bar_target"])
    ax.set_xticks(x, [TEXT["bar_token"].format(token=t) for t in x])
    ax.set_ylabel(TEXT["probability"])
    ax.set_title(TEXT["exactness_title"])
    ax.legend(fontsize=8, loc="upper right")
    return fig


def show_exactness(p=LESSON_P, q=LESSON_Q):
    """The table, then the stacked bars (the bars are skipped while autograding: nobody sees them)."""
    from IPython.display import display

    display(exactness_table(p, q))
    if AUTOGRADING:
        return
    import matplotlib.pyplot as plt
    fig = exactness_figure(p, q)
    display(fig)
    plt.close(fig)


# --------------------------------------------------------------------------- the experiment

@dataclass
class Simulation:
    target: list          # p at position 0: what the first emitted token should follow
    speculative: list     # counts of the first emitted token, full speculative sampling
    accept_only: list     # counts of the first emitted token, Level 23's prefix without the correction
    tokens_per_call: float  # mean tokens emitted per target call (accepted prefix + 1)
    alpha: float          # Σ min(p, q) at position 0
    n: int


def _residual_rows(draft_probs, target_probs):
    leftover = torch.clamp(target_probs - draft_probs, min=0)
    mass = leftover.sum(dim=1, keepdim=True)
    # A row with no leftover mass is never sampled (no draft there can be rejected); keep it valid anyway.
    return torch.where(mass > 0, leftover / mass.clamp(min=1e-30), torch.ones_like(leftover))


def simulate(draft_probs, target_probs, n=100_000, seed=0):
    """Run n speculative steps at once: draft K tokens, flip the coins, correct or add the bonus.

    Vectorised over the n runs, which is honest here: each run's draws are independent, and the
    rows do not depend on earlier tokens. Every draw a loop would make is made (coins also where
    p >= q; they always accept there, so the distribution is the same).
    """
    g = torch.Generator().manual_seed(seed)
    draft_probs, target_probs = draft_probs.double(), target_probs.double()
    k = draft_probs.shape[0]
    rows = torch.arange(k)
    drafts = torch.stack([torch.multinomial(draft_probs[i], n, replacement=True, generator=g) for i in range(k)], 1)
    p_x, q_x = target_probs[rows, drafts], draft_probs[rows, drafts]
    accepted = torch.rand(n, k, generator=g, dtype=torch.float64) < p_x / q_x
    n_accepted = accepted.long().cumprod(dim=1).sum(dim=1)             # the accepted prefix's length
    residual = _residual_rows(draft_probs, target_probs[:k])
    corrections = torch.stack([torch.multinomial(residual[i], n, replacement=True, generator=g) for i in range(k)], 1)
    bonus = torch.multinomial(target_probs[k], n, replacement=True, generator=g)
    new = torch.where(n_accepted < k, corrections.gather(1, n_accepted.clamp(max=k - 1)[:, None])[:, 0], bonus)
    first = torch.where(n_accepted > 0, drafts[:, 0], new)
    vocab = target_probs.shape[1]
    return Simulation(
        target=target_probs[0].tolist(),
        speculative=torch.bincount(first, minlength=vocab).tolist(),
        accept_only=torch.bincount(_accept_only_first(draft_probs[0], target_probs[0], n, g), minlength=vocab).tolist(),
        tokens_per_call=(n_accepted + 1).double().mean().item(),
        alpha=torch.minimum(draft_probs[0], target_probs[0]).sum().item(),
        n=n)


def _accept_only_first(q, p, n, g):
    """The first emitted token without the correction: a rejected draft emits nothing, the next step drafts again."""
    first = torch.full((n,), -1, dtype=torch.long)
    pending = torch.arange(n)
    while pending.numel():
        x = torch.multinomial(q, pending.numel(), replacement=True, generator=g)
        ok = torch.rand(pending.numel(), generator=g, dtype=torch.float64) < p[x] / q[x]
        first[pending[ok]] = x[ok]
        pending = pending[~ok]
    return first


def fit_line(counts, want):
    """Counts against a distribution, in one line: TV distance, chi-square, and what its p-value is."""
    stat, p_value = chi_square(counts, want)
    return TEXT["fit_line"].format(tv=f"{tv_distance(counts, want):.4f}", stat=f"{stat:.1f}", p_value=f"{p_value:.3g}")


def experiment_summary(sim):
    """The lines the experiment prints: TV distance and chi-square p-value of each method against p."""
    names = (TEXT["speculative"], TEXT["accept_only"])
    width = max(_width(name) for name in names) + 2  # two spaces at least: a column gap, not a word space
    return [name + " " * (width - _width(name)) + fit_line(counts, sim.target)
            for name, counts in zip(names, (sim.speculative, sim.accept_only))]


def _width(text):
    """Columns ``text`` takes in a monospaced output: a CJK character takes two."""
    return sum(2 if ord(ch) >= 0x2E80 else 1 for ch in text)


def histogram_figure(sim):
    import matplotlib.pyplot as plt

    use_fonts()
    vocab = len(sim.target)
    fig, axes = plt.subplots(1, 3, figsize=(10, 3), sharey=True, constrained_layout=True)
    panels = [(TEXT["bar_target"], sim.target, "#3b82f6"),
              (TEXT["speculative"], [c / sim.n for c in sim.speculative], "#22c55e"),
              (TEXT["accept_only"], [c / sim.n for c in sim.accept_only], "#ef4444")]
    for ax, (title, values, colour) in zip(axes, panels):
        ax.bar(range(vocab), values, color=colour)
        ax.plot(range(vocab), sim.target, "k_", markersize=18, label="p")
        ax.set_title(title)
        ax.set_xticks(range(vocab))
        ax.set_xlabel(TEXT["first_emitted"])
    axes[0].set_ylabel(TEXT["share_of_runs"].format(n=f"{sim.n:,}"))
    return fig


def show_histograms(sim):
    from IPython.display import display

    if AUTOGRADING:
        return
    import matplotlib.pyplot as plt
    fig = histogram_figure(sim)
    display(fig)
    plt.close(fig)


# --------------------------------------------------------------------------- speed-up

K_MAX = 16
# Leviathan et al. (2023), T5-XXL (11B) translating English to German with a T5-small draft at
# gamma = 7: alpha = 0.75 at temperature 0 and 0.62 at temperature 1 (Table 2, measured 3.4x and
# 2.6x); c = 0.02 is the paper's estimate for T5-small (Appendix A.3, Table 4, predicted 3.2x, 2.3x).
# (label, alpha, c, K)
HEADLINE = [(TEXT["headline"][0], 0.75, 0.02, 7), (TEXT["headline"][1], 0.62, 0.02, 7)]


def best_k(alpha, c, k_max=K_MAX):
    """The K in 1..k_max with the largest expected speed-up."""
    return max(range(1, k_max + 1), key=lambda k: expected_speedup(alpha, k, c))


def speedup_view(alpha, k, c, k_max=K_MAX):
    """Everything the speed-up picture shows, as plain values."""
    curve = [expected_speedup(alpha, j, c) for j in range(1, k_max + 1)]
    best = best_k(alpha, c, k_max)
    helps = curve[best - 1] > 1  # some K beats plain decoding (Corollary 3.9: exactly when α > c)
    return dict(alpha=alpha, k=k, c=c, curve=curve, best=best, best_speedup=curve[best - 1], helps=helps,
                speedup=expected_speedup(alpha, k, c), tokens=expected_tokens_per_call(alpha, k),
                text=TEXT["speedup_text" if helps else "speedup_text_none"].format(
                    k=k, tokens=f"{expected_tokens_per_call(alpha, k):.2f}", speedup=f"{expected_speedup(alpha, k, c):.2f}",
                    best=best, best_speedup=f"{curve[best - 1]:.2f}"))


def y_ticks(top, most=8):
    """The y-axis labels of the speed-up picture, 0 to ``top``: every 1×, 2×, 5×, 10×... so that at most ``most``
    labels share the axis (at α = 0.99 the curve reaches about 16×: 1× apart, 17 labels would collide)."""
    step = next(s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if int(top) // s + 1 <= most)
    return list(range(0, int(top) + 1, step))


def speedup_svg(view, width=560, height=230):
    """The speed-up against K as SVG: the curve, the current K, the best K, and 1× for reference."""
    pad_l, pad_r, pad_t, pad_b = 42, 14, 12, 58
    curve = view["curve"]
    top = max(4.0, max(curve) * 1.1)
    x_of = lambda k: pad_l + (width - pad_l - pad_r) * (k - 1) / (len(curve) - 1)  # noqa: E731
    y_of = lambda s: pad_t + (height - pad_t - pad_b) * (1 - s / top)  # noqa: E731
    points = " ".join(f"{x_of(k):.1f},{y_of(s):.1f}" for k, s in enumerate(curve, start=1))
    grid = "".join(
        f"<line x1='{pad_l}' y1='{y_of(s):.1f}' x2='{width - pad_r}' y2='{y_of(s):.1f}' stroke='#e5e7eb'/>"
        f"<text x='{pad_l - 6}' y='{y_of(s) + 4:.1f}' text-anchor='end'>{s}×</text>"
        for s in y_ticks(top))
    ticks = "".join(f"<text x='{x_of(k):.1f}' y='{height - pad_b + 16}' text-anchor='middle'>{k}</text>"
                    for k in range(1, len(curve) + 1))
    best, k = view["best"], view["k"]
    ring = (f"<circle class='best' cx='{x_of(best):.1f}' cy='{y_of(curve[best - 1]):.1f}' r='7' fill='none' "
            f"stroke='#16a34a' stroke-width='2.5'/>" if view["helps"] else "")  # no best K when none beats 1×
    return (
        f"<svg class='spec-speedup' width='{width}' height='{height}' viewBox='0 0 {width} {height}' "
        f"style='max-width: 100%; height: auto' xmlns='http://www.w3.org/2000/svg' "
        f"font-family='sans-serif' font-size='12'>{grid}"
        f"<line x1='{pad_l}' y1='{y_of(1):.1f}' x2='{width - pad_r}' y2='{y_of(1):.1f}' stroke='#9ca3af' "
        f"stroke-dasharray='4 3'/>"
        f"<polyline class='curve' points='{points}' fill='none' stroke='#2563eb' stroke-width='2.5'/>"
        f"{ring}<circle class='current' cx='{x_of(k):.1f}' cy='{y_of(curve[k - 1]):.1f}' r='4.5' fill='#dc2626'/>"
        f"{ticks}<text x='{(width + pad_l) / 2:.0f}' y='{height - pad_b + 32}' text-anchor='middle'>"
        f"{html.escape(TEXT['speedup_axis'])}</text>"
        f"<text class='verdict' x='{pad_l}' y='{height - 6}' font-weight='bold' fill='#111'>"
        f"{html.escape(view['text'])}</text></svg>")


SLIDERS = {"alpha": (0.0, 0.99), "k": (1, K_MAX), "c": (0.0, 1.0)}  # each slider's range; a value outside is clamped


class SpeedUp:
    """Sliders for α, K and c driving the speed-up curve. Moving a slider rewrites one SVG string."""

    def __init__(self, alpha=0.75, k=4, c=0.05):
        import ipywidgets as widgets

        (a_low, a_high), (k_low, k_high), (c_low, c_high) = SLIDERS.values()
        self.alpha = widgets.FloatSlider(value=alpha, min=a_low, max=a_high, step=0.01, description="α",
                                         readout_format=".2f")
        self.k = widgets.IntSlider(value=k, min=k_low, max=k_high, description="K")
        self.c = widgets.FloatSlider(value=c, min=c_low, max=c_high, step=0.01, description="c", readout_format=".2f")
        self.buttons = [widgets.Button(description=name, layout=widgets.Layout(width="auto")) for name, *_ in HEADLINE]
        for button, (_, a, cost, k_paper) in zip(self.buttons, HEADLINE):
            button.on_click(lambda b, a=a, cost=cost, k_paper=k_paper: self.preset(a, cost, k_paper))
        self.picture = widgets.HTML()
        for s in (self.alpha, self.k, self.c):
            s.observe(self.redraw, names="value")
        self.widget = widgets.VBox([widgets.HBox(self.buttons), self.alpha, self.k, self.c, self.picture])
        self.widget.add_class("spec-speedup-widget")
        self.redraw()

    @property
    def view(self):
        return speedup_view(self.alpha.value, self.k.value, self.c.value)

    def preset(self, alpha, c, k=None):
        """A headline point: α, c and the paper's K from the list (the best K for them if none is given)."""
        self.alpha.value, self.c.value = alpha, c
        self.k.value = best_k(alpha, c) if k is None else k
        self.redraw()

    def redraw(self, _change=None):
        self.picture.value = speedup_svg(self.view)


def speedup_widget(alpha=0.75, k=4, c=0.05):
    """The interactive speed-up curve."""
    alpha, k, c = on_sliders((alpha, k, c), SLIDERS.values())  # what the sliders start at
    static = (f"<div class='spec-speedup-static'>{speedup_svg(speedup_view(alpha, k, c))}"
              f"<p><i>{html.escape(TEXT['speedup_static'])}</i></p></div>")
    return live(lambda: SpeedUp(alpha, k, c).widget, static)


BEST_K_COSTS = (0.01, 0.02, 0.05, 0.1, 0.3)


def best_k_curves(costs=BEST_K_COSTS, alphas=None, k_max=K_MAX):
    """{c: [(α, best K)]} for α where some K beats 1× (Corollary 3.9: exactly where α > c)."""
    alphas = alphas or [round(0.02 * i, 2) for i in range(1, 50)]
    return {c: [(a, best_k(a, c, k_max)) for a in alphas if expected_speedup(a, best_k(a, c, k_max), c) > 1]
            for c in costs}


def best_k_figure(costs=BEST_K_COSTS):
    import matplotlib.pyplot as plt

    use_fonts()
    fig, ax = plt.subplots(figsize=(7, 3.2), constrained_layout=True)
    for c, points in best_k_curves(costs).items():
        ax.step([a for a, _ in points], [k for _, k in points], where="mid", label=TEXT["best_k_label"].format(c=c))
    # The paper's two points share γ = 7, 0.13 apart in α: one label above-left, the other below-right, never
    # on top of each other (issue 42 item 5).
    for (label, alpha, _, k), (dx, dy, ha, va) in zip(HEADLINE, [(6, -6, "left", "top"), (-6, 6, "right", "bottom")]):
        ax.plot([alpha], [k], "ko")
        ax.annotate(TEXT["best_k_paper"].format(alpha=alpha, k=k), (alpha, k), textcoords="offset points",
                    xytext=(dx, dy), ha=ha, va=va, fontsize=8, gid="paper-label")
    ax.set_xlabel(TEXT["best_k_xlabel"])
    ax.set_ylabel(TEXT["best_k_ylabel"].format(k_max=K_MAX))
    ax.set_xlim(0, 1)
    ax.set_title(TEXT["best_k_title"])
    ax.legend(fontsize=8, loc="upper left")
    return fig


def show_best_k(costs=BEST_K_COSTS):
    """The best-K plot (skipped while autograding: nobody sees it)."""
    from IPython.display import display

    if AUTOGRADING:
        return
    import matplotlib.pyplot as plt
    fig = best_k_figure(costs)
    display(fig)
    plt.close(fig)


# --------------------------------------------------------------------------- two tiny character models

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny_corpus.txt")


@dataclass
class CharModels:
    """A bigram draft and a trigram target over the characters of a short text (add-``smoothing`` counts)."""
    vocab: list
    bigram: torch.Tensor    # [V, V]:    q(next | previous character)
    trigram: torch.Tensor   # [V, V, V]: p(next | the two previous characters)

    def encode(self, text):
        return [self.vocab.index(ch) for ch in text]

    def decode(self, ids):
        return "".join(self.vocab[i] for i in ids)


def fit_char_models(path=CORPUS, smoothing=0.02):
    """Count bigrams and trigrams of the text at ``path`` (a second at most; no downloads, no weights)."""
    with open(path, encoding="utf-8") as f:
        text = f.read().replace("\n", " ")
    vocab = sorted(set(text))
    ids = torch.tensor([vocab.index(ch) for ch in text])
    v = len(vocab)
    bigram = torch.full((v, v), smoothing, dtype=torch.float64)
    bigram.index_put_((ids[:-1], ids[1:]), torch.ones(len(ids) - 1, dtype=torch.float64), accumulate=True)
    trigram = torch.full((v, v, v), smoothing, dtype=torch.float64)
    trigram.index_put_((ids[:-2], ids[1:-1], ids[2:]), torch.ones(len(ids) - 2, dtype=torch.float64), accumulate=True)
    return CharModels(vocab, (bigram / bigram.sum(-1, keepdim=True)).float(),
                      (trigram / trigram.sum(-1, keepdim=True)).float())


@dataclass
class Generation:
    text: str
    steps: int              # target calls
    tokens: int             # tokens emitted
    verified: int           # drafted positions the target looked at
    accepted: int           # of those, accepted
    alpha: float            # mean Σ min(p, q) over the verified positions
    k: int
    per_step: list = None   # tokens emitted by each step

    @property
    def standard_error(self):
        """The standard error of the measured tokens per call (the spread of per_step over sqrt(steps))."""
        n = len(self.per_step)
        mean = sum(self.per_step) / n
        return (sum((x - mean) ** 2 for x in self.per_step) / (n - 1) / n) ** 0.5

    @property
    def tokens_per_call(self):
        return self.tokens / self.steps

    @property
    def acceptance(self):
        return self.accepted / self.verified if self.verified else 0.0


def generate(step, models, prompt="the ", steps=200, k=4, seed=0):
    """Generate with ``step`` (a speculative_step): the bigram drafts k characters, the trigram verifies.

    Each step: draft k characters one by one from q(· | previous), score the k + 1 positions with
    p(· | two previous), call ``step(draft_probs, target_probs, draft_tokens)``, keep what it returns.
    """
    ids = models.encode(prompt)
    verified = accepted = 0
    alpha_sum = 0.0
    emitted, per_step = 0, []
    with _seeded(seed):
        for _ in range(steps):
            context, drafts, q_rows = list(ids), [], []
            for _ in range(k):
                q = models.bigram[context[-1]]
                token = int(torch.multinomial(q, 1))
                drafts.append(token)
                q_rows.append(q)
                context.append(token)
            p_rows = [models.trigram[context[len(ids) + j - 2], context[len(ids) + j - 1]] for j in range(k + 1)]
            new = step(torch.stack(q_rows), torch.stack(p_rows), drafts)
            n_accepted = len(new) - 1
            reached = min(n_accepted + 1, k)  # positions verified: the accepted ones, and the rejected one if any
            verified += reached
            accepted += n_accepted
            alpha_sum += sum(torch.minimum(p_rows[j], q_rows[j]).sum().item() for j in range(reached))
            ids += new
            emitted += len(new)
            per_step.append(len(new))
    return Generation(models.decode(ids), steps, emitted, verified, accepted, alpha_sum / max(verified, 1), k,
                      per_step)


def _seeded(seed):
    from spec_checks import seeded
    return seeded(seed)


def generation_summary(gen, c=0.05):
    """Counted against the formula: acceptance, tokens per target call (with its standard error), and the
    formula's speed-up for an assumed draft cost c (nothing is timed)."""
    formula = expected_tokens_per_call(gen.alpha, gen.k)
    lines = TEXT["generation"]
    return [lines[0].format(alpha=f"{gen.alpha:.3f}", acceptance=f"{gen.acceptance:.3f}"),
            lines[1].format(counted=f"{gen.tokens_per_call:.3f}", error=f"{gen.standard_error:.3f}", steps=gen.steps,
                            formula=f"{formula:.3f}"),
            lines[2].format(c=c, counted=f"{gen.tokens_per_call / (gen.k * c + 1):.2f}",
                            formula=f"{expected_speedup(gen.alpha, gen.k, c):.2f}")]
