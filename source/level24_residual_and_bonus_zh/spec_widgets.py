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
# This edition's text, written by `python -m grading.build` from lessons/i18n/level24_residual_and_bonus_zh.py: edit it there.
TEXT = {
    "lang": "zh",
    "fonts": [
        "Noto Sans CJK SC",
        "Noto Sans CJK JP",
        "Noto Sans CJK TC"
    ],
    "quiz": {
        "l24_pair_check": {
            "question": "在这台 CPU 上，这个小目标模型一次调用带 5 个位置，只比带 1 个位置稍慢一点（上面的计时中约为 1.2 倍）。对这个模型来说，原因是什么？",
            "options": [
                "从内存读取权重占了大部分时间，和论文里的加速器上一样",
                "一次调用的大部分时间是每次调用都有的固定开销（Python 和 PyTorch 为每个运算做准备），而不是计算本身",
                "目标模型跳过了草稿位置"
            ],
            "why": [
                "对这个模型不是这样：它的权重（float32 下 2.6 MB）读一遍远用不了 1 毫秒。内存带宽是加速器上大模型的原因；对这个小模型来说，原因是每次调用的固定开销。",
                "正确：上面的计时正说明了这一点：一次调用的用时远不随位置数成比例增长，所以大部分时间是每次调用的开销（启动其中许多小运算）。无论是哪种原因，同一次调用里多带几个位置都几乎没有额外开销。",
                "不对：目标模型会计算给它的每个位置，包括草稿位置：这正是投机解码要付出的额外计算（Leviathan 等（2023）的定理 3.11）。"
            ]
        },
        "l24_guess": {
            "question": "草稿模型提出了 token 1（p = 0.2，q = 0.5），掷硬币的结果是拒绝。这一步仍然必须输出一个 token。这个 token 应该从哪里采样？",
            "options": [
                "从 p，目标模型的那一行",
                "从 q，草稿模型的那一行",
                "从归一化后的残差分布 max(0, p - q)"
            ],
            "why": [
                "不对：被接受的草稿已经给了每个 token min(p, q) 的概率。拒绝之后再从 p 采样，会在此之上再加 P(拒绝) · p，于是草稿模型给得偏多的那些 token，最终概率就超过了 p。",
                "不对：q 正是刚才给 token 1 概率给得过多的那个分布。再从它采样，输出会偏向草稿模型，离目标模型更远。",
                "正确：被接受的草稿已经给了每个 token min(p, q)；还缺的恰好是 p - min(p, q) = max(0, p - q)，而拒绝发生的概率正好等于它的总和。把它归一化后再采样，正好补齐缺口，输出的 token 就服从 p。"
            ]
        },
        "l24_check": {
            "question": "p = [0.5, 0.2, 0.2, 0.1]，q = [0.2, 0.5, 0.1, 0.2]。一个草稿 token 被拒绝的概率是多少？",
            "options": [
                "0.4",
                "0.6",
                "0.3"
            ],
            "why": [
                "正确：这两行的接受率 β = Σ min(p, q) = 0.2 + 0.2 + 0.1 + 0.1 = 0.6，所以 P(拒绝) = 1 - 0.6 = 0.4。它也等于 Σ max(0, p - q) = 0.3 + 0.1。",
                "不对：0.6 是 β = Σ min(p, q)，即接受的概率。拒绝的概率是 1 - β = 0.4。",
                "不对：0.3 只是 token 0 的 max(0, p - q)。P(拒绝) = Σ max(0, p - q) = 0.3 + 0.1 = 0.4。"
            ]
        },
        "l24_bonus_guess": {
            "question": "K = 3 个草稿全部被接受。target_probs 有 4 行（0..3）。额外（bonus）token 来自哪一行？",
            "options": [
                "target_probs[2]，最后一个草稿位置",
                "target_probs[3]，第 K 行",
                "draft_probs[2]"
            ],
            "why": [
                "不对：第 2 行是目标模型对位置 2（第三个草稿 token）的分布，而这个 token 已经被接受了。下一个 token 的分布在它的下一行。",
                "正确：目标模型调用一次，就为 K + 1 个位置各算出一行；第 K 行是它对 K 个草稿之后那个 token 的分布。额外 token 是这次调用白送的。",
                "不对：额外 token 来自目标模型。验证时从来不从草稿模型的行里采样。"
            ]
        },
        "l24_speed_check": {
            "question": "α = 0.8，草稿模型不花时间（c = 0），K 越大，加速比会怎样？",
            "options": [
                "无限增长",
                "增长并趋近 1 / (1 - α) = 5",
                "K = 1 之后就下降"
            ],
            "why": [
                "不对：第 K 个草稿只有在它和前面的草稿全部被接受时才算数，概率是 α^K。1 + α + α² + ... 这个和始终小于 1 / (1 - α)。",
                "正确：K 增大时，(1 - α^(K+1)) / (1 - α) 趋近 1 / (1 - α) = 5。c > 0 时生成草稿要花时间，曲线上就会有一个最佳的 K。",
                "不对：c = 0 时多提几个草稿不花任何代价，所以加速比从不下降，最终趋于 1 / (1 - α)。"
            ]
        },
        "l24_some_k_helps": {
            "question": "草稿被接受的概率 α = 0.25，草稿模型调用一次的代价是 c = 0.3 次目标模型调用。有没有哪个 K 能让投机解码比普通解码更快？",
            "options": [
                "有：K 足够大就一定划算",
                "没有：α < c，这时任何 K 都超不过 1×",
                "有：K = 1，因为每一步至少输出一个 token"
            ],
            "why": [
                "不对：每多一个草稿要多花 c = 0.3，平均却只多得 α^K 个 token，而且越往后越少。这里 K 越大，加速比越低。",
                "正确：Leviathan 等（2023）的推论 3.9 证明：若 α > c，就有某个 K 能带来加速，K = 1 时至少是 (1 + α)/(1 + c)。反过来也成立：α ≤ c 时 1 + α + ... + α^K ≤ 1 + Kα ≤ 1 + Kc，所以加速比至多为 1。这里 K = 1 得到 1.25 / 1.3 = 0.96×。",
                "不对：K = 1 时一步平均输出 1 + α = 1.25 个 token，但要花 1 + c = 1.3 次目标模型调用的时间：0.96×，比普通解码还慢。"
            ]
        }
    },
    "table_head": [
        "token x",
        "p(x)",
        "q(x)",
        "接受：min(p, q)",
        "residual(x)",
        "P(拒绝) · residual(x)",
        "合计"
    ],
    "table_foot": "β = Σ min(p, q) = {alpha}，P(拒绝) = 1 - β = {reject} = Σ max(0, p - q)。最后一列逐个 token 等于 p。",
    "bar_accepted": "被接受的草稿：min(p, q)",
    "bar_correction": "修正 token：P(拒绝) · residual(x)",
    "bar_target": "目标概率 p",
    "bar_token": "token {token}",
    "probability": "概率",
    "exactness_title": "投机解码输出每个 token 的概率都是 p",
    "speculative": "投机解码",
    "accept_only": "只接受、拒绝即停",
    "fit_line": "总变差距离 = {tv}，卡方 = {stat}，p 值 = {p_value}（假如采样正确，差距至少这么大的概率；与目标概率 p 无关）",
    "best_k_label": "c = {c}",
    "best_k_paper": "论文：α = {alpha}，γ = {k}",
    "best_k_xlabel": "α（接受率）",
    "best_k_ylabel": "最佳 K（1..{k_max}）",
    "best_k_title": "最佳 K 随 α 的变化；每条曲线从 α > c 处开始",
    "markov": {
        "no_token": "{function} 没有返回任何 token：每一步至少要返回一个新 token",
        "outside": "{function} 返回了 0..{last} 范围之外的 token_id：{seq}",
        "skipped": "批改时跳过这个实验（它不计分）。",
        "head": "{runs} 次运行的前 {length} 个 token（K = {k}），27 种三元组的比例与目标链对比：",
        "gap": "差距最大的是 {seq}：它出现的比例是 {share}，目标链给它的概率是 {want}"
    },
    "first_emitted": "输出的第一个 token",
    "share_of_runs": "占 {n} 次运行的比例",
    "speedup_text": "K = {k}：每次目标模型调用得到 {tokens} 个 token，加速比 {speedup}×；最佳 K = {best}（{best_speedup}×）",
    "speedup_text_none": "K = {k}：每次目标模型调用得到 {tokens} 个 token，加速比 {speedup}×；这里没有哪个 K 比普通解码（1×）更快",
    "speedup_axis": "K（每步的草稿 token 数）；绿圈：最佳 K；红点：你选的 K",
    "headline": [
        "英译德，t = 0（贪心）：α = 0.75",
        "英译德，t = 1（采样）：α = 0.62"
    ],
    "speedup_static": "在 JupyterLab 中运行这个单元格，才能拖动滑块。",
    "generation": [
        "α（目标模型检查过的位置上 β = Σ min(p, q) 的平均值）= {alpha}；计数得到的接受率 = {acceptance}",
        "每次目标模型调用得到的 token 数：计数为 {counted} ± {error}（标准误差，{steps} 步），公式 (1 - α^(K+1)) / (1 - α) 给出 {formula}",
        "没有计时：假设 c = {c}，按这些计数会得到 {counted}× 的加速比（按公式是 {formula}×）；而对这两个查表模型来说，c 约为 1"
    ],
    "alpha_axes": [
        "温度 T（两个模型相同）",
        "测得的 α",
        "一对真实模型：α 随 T 的变化",
        "固定前缀（每个 T 都相同）",
        "目标模型在该 T 下自己生成的文本"
    ],
    "forward_lines": [
        "每次调用带 {n} 个位置，共 {calls} 次：最快 {low} 毫秒，中位数 {median} 毫秒，最慢 {high} 毫秒",
        "带 {n} 个位置与带 {first} 个位置的调用逐次相比：用时的中位数是后者的 {ratio} 倍（最小 {low} 倍，最大 {high} 倍）"
    ],
    "greedy_lines": [
        "提示词 {prompt} 之后的贪心文本（{n} 个 token）：",
        "    其中最常见的字符 {char} 占 {share}",
        "在提示词 {prompt} 上计时。每次运行中，投机解码给出的 token 是否都与普通生成相同：{same}",
        "普通生成：{runs} 次运行，最快 {low} 毫秒，中位数 {median} 毫秒，最慢 {high} 毫秒",
        "投机解码：K = {k}，最快 {low} 毫秒，中位数 {median} 毫秒，最慢 {high} 毫秒",
        "每次运行的加速比：中位数 {median}×（最小 {low}×，最大 {high}×）；每次目标模型调用得到 {per_call} 个 token，检查过的 {checked} 个草稿中接受了 {accepted} 个（共提出 {drafted} 个）"
    ],
    "pair_report": [
        "T = {temperature}，普通生成和投机解码（K = {k}）轮流运行，各 {runs} 次，每次 {n} 个 token；下面一步中各部分的用时，都取所有运行中所有步的中位数（普通生成时，一个 token 算一步）：",
        "c = {c}：生成一个草稿 token 用时 {draft} 毫秒，除以一次只带 1 个位置的目标模型调用用时 {call} 毫秒（两者都在运行中计时）；α = {alpha}，是在目标模型于该 T 下自己生成的文本的 {positions} 个前缀上求的平均",
        "公式（定理 3.8）：每步 {tokens} 个 token，一步的代价为 K·c + 1 = {cost} 次目标模型调用：加速比 {speedup}×",
        "实测：每步 {tokens} 个 token；检查过的 {checked} 个草稿中接受了 {accepted} 个（{rate}）；另有 {unchecked} 个草稿排在拒绝之后，没有被检查",
        "一步用时 {step} 毫秒，相当于 {tokens} 个普通 token 的用时（一个普通 token 用时 {plain} 毫秒，其中目标模型调用 {call} 毫秒），分解如下：",
        "    提出 {k} 个草稿 token {draft} 毫秒；带 {positions} 个位置的调用 {call} 毫秒（是只带 1 个位置的调用的 {ratio} 倍）；其余部分（算出各行、speculative_step、裁剪、循环）{rest} 毫秒",
        "所以得到 {tokens} 个 token 花了 {cost} 个普通 token 的时间：加速 {explained}×；按整次运行实测（机器的每一次停顿都算在内）：中位数 {median}×（最小 {low}×，最大 {high}×）",
        "代价：每输出一个 token，目标模型要计算 {positions} 个位置（普通生成：1.00）"
    ],
    "say": {
        "pair_sizes": "目标模型：{parameters} 个参数；草稿模型：一张 {rows} × {columns} 的二元（bigram）表",
        "not_timed": "批改时不计时：用时取决于机器，而且这里没有要计分的内容。",
        "not_timed_short": "批改时不计时。",
        "not_measured": "批改时不测量。",
        "alpha_at": "T = {temperature:.1f}：固定前缀上 α = {alpha:.3f}（{texts} 段文本各自在 {low:.3f} 到 {high:.3f} 之间）；目标模型在该 T 下自己生成的文本上 α = {own:.3f}，{char} 占这段文本的 {share:.0%}",
        "derivation": "min(p, q)                 = {accept}   β = {alpha}\nP(拒绝)                   = {reject} = max(0, p - q) 之和 = {leftover}\n残差分布                  = {residual}\nmin + P(拒绝) * 残差分布  = {total}   p = {p}",
        "one_draw": "抽取一次：{tensor} -> {item}",
        "draw_shares": "10,000 次抽取中各 token 的比例：{shares}",
        "all_zeros": "全为零",
        "refused": "{name} → RuntimeError：{error}",
        "emitted_shares": "输出 token 的比例：{shares}   期望：{want}",
        "steps_in": "100,000 步用时 {seconds:.2f} 秒",
        "float32_rows": "q[1] = {q1}   p/q = {ratio}   残差 max(0, p - q) = {residual}",
        "formula_and_simulation": "α = {alpha:.2f}，K = {k}，每次目标模型调用得到的 token 数：逐项求和 1 + α + ... + α^K = {term_by_term:.4f}，闭式公式 {formula:.4f}，模拟 {simulation:.4f}"
    }
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
