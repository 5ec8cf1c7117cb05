"""The zh-CN edition of Level 24 (nbgrader assignment level24_residual_and_bonus_zh).

Everything here is text; the code is the English edition's (grading/build/notebooks.py writes the edition):

- CELLS: each lesson's markdown cells, by the l10n id in lessons/level24_residual_and_bonus/NN_name.py, as
  (the hash of the English cell this translates, the translation). When the English cell changes, the
  build stops and names the cell: translate the change, then put the new hash here.
- COMMENTS: the comments of the code cells, keyed by the English comment.
- HELPERS: the TEXT block of each helper module (spec_checks.py, spec_widgets.py, spec_quiz.py), same ids.
- DIAGNOSES: the diagnosis line of the feedback, by catalogue answer (answers/level24_residual_and_bonus/).

What is the same in every Chinese edition (the words of the shared spec_quiz, the diagnosis line's frame,
the code stub, "check failed") is taken from Level 23's edition, not copied.

Terms: lessons/i18n/glossary_zh.py, one glossary for every Chinese edition (草稿模型, 目标模型, 投机解码, 修正 token,
额外 token, 裁剪 the cache, ...), with its typesetting rules (full-width punctuation, ×, Leviathan 等（2023）);
tests/test_glossary_zh.py checks them. Code identifiers stay as they are. Each Chinese paragraph is one line (a line break
between two Chinese characters renders as a space).
"""

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("_i18n_level23_zh", Path(__file__).with_name("level23_speculative_decoding_zh.py"))
_LEVEL23 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_LEVEL23)

CELLS = {
    "01_correction_token": {
        "title": ("3be22616", """
# Level 24 · 投机解码 · Notebook 1：输出为什么与目标分布完全一致，以及修正 token

Level 23 最后得到的是被接受的前缀：`p >= q` 时接受，`r < p/q` 时接受，遇到第一次拒绝就停止。只做到这一步，输出**并不**服从目标模型的分布。这个 notebook 先用具体的数字算出还缺哪一块，再由你把它补上：第一次拒绝之后，从归一化的残差分布 `max(0, p - q)` 中采样一个**修正 token**。

同一个算法有两个名字。Leviathan 等（2023）把整个方法叫作*投机解码*（speculative decoding），而把其中“接受或修正”这条规则叫作*投机采样*（speculative sampling），见论文第 2.3 节；Chen 等（2023）则把整个方法都叫作“投机采样”。中文版的两关一律用“投机解码”指整个方法。Level 23 也提到过，Chen 等（2023）的字母用法与本课程相反：他们的 `p` 是草稿模型，`q` 是目标模型，所以照着他们的论文写的代码里的 `max_fn(q - p)`，算的正是本课程写作 `max(0, p - q)` 的那个量。

**本 notebook 共 15 分**：答案下方的可见测试 3 分，批改时运行的隐藏检查 12 分。
"""),
        "guess-first": ("1332f7c5", """
## 🎯 先猜一猜
"""),
        "idea": ("f2e582e8", """
## 今天的核心

**草稿模型提出 token `x` 之后，`x` 以概率 `min(1, p(x)/q(x))` 被留下，所以“提出 `x` 并且留下它”的概率是 `q(x) · min(1, p(x)/q(x)) = min(p(x), q(x))`。被拒绝时采样的修正 token 恰好补上所缺的 `max(0, p - q)`，于是每个 token 最终的概率都是 `p(x)`。**
"""),
        "why-exact": ("1cfeb20d", r"""
## 用数字看它为什么分毫不差

只看一个草稿位置，词表只有 4 个 token。目标模型在这个位置上的一行是 `p`，草稿模型的一行是 `q`：

| token x | 0 | 1 | 2 | 3 |
|---|---|---|---|---|
| p(x)（目标概率）| 0.5 | 0.2 | 0.2 | 0.1 |
| q(x)（草稿概率）| 0.2 | 0.5 | 0.1 | 0.2 |

1. **接受**。草稿模型以概率 `q(x)` 提出 `x`，Level 23 的规则以概率 `min(1, p(x)/q(x))` 留下它。所以 token `x` *作为被接受的草稿*输出的概率是 `q(x) · min(1, p(x)/q(x)) = min(p(x), q(x))`。
2. **拒绝**。对所有 token 求和，一个草稿被接受的概率是 `β = Σ min(p, q)`，所以拒绝的概率是 `1 - β`。由于 `p` 的和为 1，`1 - Σ min(p, q) = Σ (p - min(p, q)) = Σ max(0, p - q)`。（`β` 只属于这一对行，也就是文本的一个前缀：Leviathan 等（2023）把它叫作 `β`（定义 3.1），而把 `α` 留给它在各个前缀上的平均，`α = E(β)`，也就是 notebook 2 的加速比公式所用的那个数。）
3. **残差分布**。每个 token 还差的部分是 `p(x) - min(p(x), q(x)) = max(0, p(x) - q(x))`。把它归一化成一个分布，`residual(x) = max(0, p(x) - q(x)) / Σ max(0, p - q)`，修正 token 就从它里面采样。于是

$$\min(p(x), q(x)) + P(\text{拒绝}) \cdot \text{residual}(x) = \min(p(x), q(x)) + \max(0, p(x) - q(x)) = p(x).$$

同样的数字，用 torch 算一遍：
"""),
        "bars": ("87b7f4f7", """
每个 token 画两根柱子：左边是接受带来的概率（绿色），上面叠着修正 token 的份额（橙色）；右边是目标概率 `p`（蓝色）。两根一样高。
"""),
        "multinomial": ("82cc5c9f", """
## 用 `torch.multinomial` 采样一个 token

`torch.multinomial(weights, 1)` 按与 `weights` 成正比的概率抽取一个下标，返回形状为 `[1]` 的张量；`.item()` 把它转成 Python int。权重的和不为 1 它也接受，但本课程要求你传入**归一化后**的残差分布：推导里用的就是这个分布，测试也会核对你传入的值，允许的误差是 1e-6。
"""),
        "zero-residual": ("4259640d", """
## 残差全为零时

如果每个 token 都满足 `p == q`，`max(0, p - q)` 就全为零，归一化时成了 0 除以 0。`torch.multinomial` 不接受这样的权重：
"""),
        "never-zero": ("6c63ee79", """
如果按精确的实数运算，你的代码永远走不到这一步。`torch.rand` 返回的 `r < 1`，而在 `p >= q` 的位置比值 `p/q` 至少为 1，所以硬币一定接受（何况 Level 23 在那里根本不掷硬币）。让 `p >= q` 安全的是 `r < 1`，而不是 `r < p/q` 里的严格 `<`：换成 `<=` 也一样安全。所以拒绝要求草稿 token 满足 `p(x) < q(x)`。如果两行的和都恰好是 1，`p > q` 的那些 token 必须把差额补回来：`Σ max(0, p - q) = Σ max(0, q - p) >= q(x) - p(x) > 0`，于是只要发生拒绝，残差分布的总量就一定大于零。

在 float32 下这可能不成立，因为 softmax 的一行只在舍入误差范围内和为 1。取 `p = [0.5, 0.5]`、`q = [0.5, 0.50000006]`（比 0.5 大一个 float32 步长）。token 1 的 `p/q = 0.99999988`，所以抽到 `r >= 0.99999988` 时它被拒绝（对 float32 的行和 `torch.rand` 的 float32 随机数而言，大约每 800 万次抽取一次），而这时 `max(0, p - q)` 全为零：下面的单元格演示了这一点。用 Python 的浮点数（float64）时，因舍入而偏离 1 的行只偏离大约 `1e-16`，这样的拒绝大约每 `10^16` 次抽取才出现一次：罕见得多，但仍不是永远不会发生。这里的测试从不构造这样的行，所以题目不要求你加保护。生产环境里的采样器是有保护的：vLLM 的拒绝采样器（`_get_recovered_probs`，v0.6.3）把 `p - q` 截断在最小的正浮点数而不是 0，于是全为零的残差变成均匀分布；vLLM 的代码注释也承认这会带来一点偏差。
"""),
        "check-yourself": ("bd4557ab", """
## ✅ 巩固一下
"""),
        "problem": ("f5d63e91", """
## 题目：`verify_and_correct`

循环就是你在 Level 23 写的 `verify_draft`，只是写得更紧凑：`p >= q` 时不抽随机数、直接接受，否则掷一次硬币 `r < p / q`。你要补上的是第一次拒绝时该做的事（**TODO**）：

1. **第 `i` 行**的残差：`max(0, target_probs[i] - draft_probs[i])`，例如用 `torch.clamp(..., min=0)`；
2. 把它归一化（除以它的和）；
3. 用 `torch.multinomial(residual, 1)` 抽取**一个** token，转成 int 追加到列表，然后停止。

`target_probs[i]` 是一个*视图*：调用者张量的一行，而不是副本。对它做原地操作（`target_probs[i] -= draft_probs[i]`、`.clamp_(min=0)`、`/=`）会改动调用者的张量，有一项隐藏检查专门查这一点。`torch.clamp(target_probs[i] - draft_probs[i], min=0)` 则会生成一个新张量，不动输入。

每个草稿都被接受时，函数暂时只返回前缀；额外（bonus）token 留到 notebook 2 再加。

如果测试报错：
- 说修正 token *是从 p 中抽取的*或*是从 q 中抽取的*：应从残差分布中采样，而不是直接用某个模型的那一行；
- *没有归一化*：把残差除以它的和；
- *max(0, q - p)*：残差是目标概率减去草稿概率，即 `max(0, p - q)`；
- *用了第 j 行*：拒绝发生在位置 `i`，所以用第 `i` 行；
- *在掷硬币之前被调用*，或*被调用了 N 次*：只在拒绝之后抽取，而且只抽一次；
- 说你*用 numpy.random.choice 采样*（或 `random.choices`）：测试预设的是 `torch.multinomial` 给出的 token，所以请用它采样。
"""),
        "visible-test": ("538abcd4", """
## 可见测试

用例：词表有 4 个 token，草稿有两个 token。草稿模型在位置 0 提出 token 0，`p = 0.4 >= q = 0.3`（不抽随机数，直接接受）；在位置 1 提出 token 1，用的是上面表格里的两行（`p/q = 0.4`）。`torch.rand` 换成了一个总是返回 `0.7` 的替身（于是拒绝），`torch.multinomial` 换成了一个记下传入的权重、返回 token `2` 的替身。期望：`[0, 2]`，并且在掷硬币之后对 `[0.75, 0, 0.25, 0]` 调用一次 multinomial。
"""),
        "real-randomness": ("d31a931f", """
## 用真实的随机数检验

用表格里的那一个位置作为用例，把你的函数运行 5,000 次，草稿 token 固定为 token 1。`spec_checks.Case(draft_rows, target_rows, tokens)` 依次接收草稿模型的行（每个草稿 token 一行）、目标模型的行和草稿 token。这里两者都只有一行，因为 `verify_and_correct` 只读取第 `0..K-1` 行；到了 notebook 2，目标模型会多出一行，即第 `K` 行：最后一个草稿之后那个 token 的分布（额外 token 就从这一行采样）。

已知草稿模型提出的*就是* token 1，它被留下的概率是 `min(1, p/q) = 0.2/0.5 = 0.4`。（不是 `min(p, q) = 0.2`：那是它被提出*并且*被留下的概率。）所以 token 1 应当在 40% 的运行中被输出，其余 60% 的运行应服从残差分布 `[0.75, 0, 0.25, 0]`：合起来是 `[0.45, 0.4, 0.15, 0]`。各 token 的比例用总变差距离 `½ Σ |share(x) - want(x)|` 和 Pearson 卡方检验来比较。检验的 *p 值*是：假如函数是正确的，计数离 `want` 至少这么远的概率。p 值接近 0 说明函数有错，大于 0.01 左右就没有什么可疑之处。（它描述的是计数，和目标概率 `p` 无关。）
"""),
        "not-p": ("1afeffac", """
这个分布不是 `p` 本身，因为这里的草稿 token 是*固定的*。在真实的一步中，草稿模型从 `q` 中采样它，这时输出的 token 才精确地服从 `p`：notebook 2 会用课程自带的向量化 `simulate`（而不是你的函数）把这个实验做 100,000 次。
"""),
        "hidden-checks": ("6bf7c704", """
## 隐藏检查

最上面是诊断：批改时用一句话指出你的函数犯的是哪一种已知错误（如果是我们见过的错误）。诊断下面的单元格在这里看起来是空的；批改你的 notebook 时，它们各检查一种行为（每项 1 分）：在决定拒绝的那次掷硬币之前不调用 `torch.multinomial`；只有一个修正 token；被拒绝那一行的精确归一化残差；在位置 0 就被拒绝的情形；追加的正是 `torch.multinomial` 给出的 token；修正 token 之后不再有别的 token；所有草稿都被接受时没有修正 token；`p >= q` 的位置不掷硬币；token 以 `torch.LongTensor` 给出时结果与列表相同，且结果是由 Python int 组成的普通列表；不修改输入；以及在固定种子下用真实的随机数检查输出 token 的分布。最后一个单元格把你的函数和规则放在一起，在大约 200 个生成的草稿上运行，并给出二者结果不一致的最小一例。
"""),
    },
    "02_bonus_and_step": {
        "title": ("09508b98", """
# Level 24 · 投机解码 · Notebook 2：额外 token、完整的一步，以及能快多少

目标模型调用一次，就为全部 `K` 个草稿位置各算出一行概率，**还多算一行**：`target_probs` 有 `K + 1` 行。每个草稿都被接受时，第 `K` 行就是目标模型对下一个 token 的分布，于是这一步白得一个 token：**额外（bonus）token**。再加上 notebook 1 的修正 token，每一步返回的都是被接受的前缀，外加恰好一个新 token。

先用课程自带的向量化实现 `simulate` 来测量它能带来什么：运行 100,000 步，和目标模型的分布对比，再看能快多少。然后你自己写出这一步，在依赖上下文的概率行上、以及两个小语言模型上运行它。

**本 notebook 共 15 分**：答案下方的可见测试 3 分，批改时运行的隐藏检查 12 分。
"""),
        "guess-first": ("1332f7c5", """
## 🎯 先猜一猜
"""),
        "idea": ("942d8089", """
## 今天的核心

**每一步都以一个来自目标模型的 token 结束：有拒绝，就是修正 token；`K` 个草稿全部被接受，就是从第 `K` 行采样的额外 token。两者不会同时出现，也不会都不出现。**

| 发生了什么 | 新 token | 采样自 |
|---|---|---|
| 在位置 `i` 被拒绝 | 修正 token | `max(0, target_probs[i] - draft_probs[i])`（归一化后） |
| `K` 个全部被接受 | 额外 token | `target_probs[K]` |
"""),
        "whole-step": ("b55e9868", """
## 完整的一步：`speculative_step`

循环仍是你在 Level 23 写的 `verify_draft`。这次两个 TODO 都要写：

- **TODO 1**（来自 notebook 1）：第一次拒绝时，追加一个从第 `i` 行归一化残差中采样的修正 token，然后 return；
- **TODO 2**：循环结束之后（说明每个草稿都被接受了），用 `torch.multinomial` 从 `target_probs[K]` 中采样一个额外 token 并追加，其中 `K = len(draft_tokens)`。

如果测试报错：
- 说额外 token 来自*第 K-1 行*：被接受的草稿用的是第 `0..K-1` 行，额外 token 用第 `K` 行；
- 拒绝之后*被调用了 2 次*：有了修正 token 就没有额外 token（追加修正 token 后立即 return）；
- 全部接受时*从未被调用*：缺了额外 token；
- 说你*用 numpy.random.choice 采样*（或 `random.choices`）：测试预设的是 `torch.multinomial` 给出的 token，所以请用它采样。
"""),
        "visible-test": ("0b090419", """
## 可见测试

还是 notebook 1 的用例，只是目标模型多了第 `K = 2` 行：`[0.1, 0.2, 0.3, 0.4]`。运行两次：`r = 0.7` 时位置 1 被拒绝，`torch.multinomial`（替身）返回 `2`，期望 `[0, 2]`；`r = 0.1` 时两个草稿都被接受，替身为额外 token 返回 `3`，而这个 token 必须从 `target_probs[2]` 中抽取，期望 `[0, 1, 3]`。
"""),
        "experiment": ("bab66969", """
## 课程的 `simulate` 运行 100,000 步：第一个 token 服从目标模型吗？

在真实的一步中，草稿 token 是从 `q` 中采样的。`simulate` 把这个算法一次性运行 100,000 步（向量化实现，每次运行的随机数相互独立）。它不遵守你的函数所用的抽取约定：它在每个位置都掷硬币，`p >= q` 的位置也掷（那里的硬币总是接受），而且还不知道要用哪一行，就先为每一行都抽好了修正 token。两种做法输出的 token 服从同一个分布。它用 `K = 3` 个位置，每个位置都用表格里的 `p` 和 `q` 这两行。它还运行了**只接受、拒绝即停**的做法：只有 Level 23 的前缀，没有修正 token；第一个草稿就被拒绝时，这一步什么也不输出，下一步重新生成草稿。

有些错误这个实验看不出来：每个位置的两行都一样，又只统计第一个 token，所以无论额外 token 取自第 `K - 1` 行，还是修正 token 取自第 0 行，得到的直方图都和正确的一样。下一个实验能把它们区分开。
"""),
        "experiment-reading": ("45afe309", """
投机解码与 `p` 一致（运行 100,000 次时，千分之几的总变差距离只是抽样噪声，卡方检验的 p 值也没有异常）。只接受、拒绝即停的做法输出 token `x` 的概率与 `min(p(x), q(x))` 成正比：它偏向草稿模型喜欢的 token（token 1 和 token 3），离 `p` 很远（p 值为 0）。和 notebook 1 一样，p 值是“假如方法正确，计数离 `p` 至少这么远的概率”，不是目标模型给出的概率。
"""),
        "what-it-buys": ("afe3653d", r"""
## 能快多少

Level 23 对固定的草稿算出了被接受 token 数的期望 `E[accepted] = Σ_i Π_{j≤i} min(1, p_j/q_j)`：只有位置 `i` 和它之前的每个位置都通过，位置 `i` 才会留下。现在草稿模型的 token 是*采样*出来的。对草稿的选择 `x ~ q` 取平均，其中每个因子变成

$$E_{x \sim q}\left[\min\left(1, \frac{p(x)}{q(x)}\right)\right] = \sum_x q(x) \min\left(1, \frac{p(x)}{q(x)}\right) = \sum_x \min(p(x), q(x)) = \beta,$$

这就是给定前缀下的接受率（Leviathan 等（2023）的定义 3.1），它对所有前缀的平均就是 `α`（推论 3.6）。如果每个位置的 `β` 都等于 `α`，并且各位置相互独立（论文第 3 节的简化假设），位置 `i` 的乘积就是 `α^(i+1)`，于是 `E[accepted] = α + α² + ... + α^K`。每一步还会多出一个 token（修正 token 或额外 token），所以目标模型调用**一次**，一步平均返回

$$E[\text{每次目标模型调用得到的 token 数}] = 1 + \alpha + \alpha^2 + \dots + \alpha^K = \frac{1 - \alpha^{K+1}}{1 - \alpha},$$

这是等比数列求和：乘以 `1 - α` 之后，除了 `1` 和 `-α^(K+1)`，其余各项都两两抵消。下面用三种方法核对一下：逐项求和、闭式公式，以及上面的模拟（`K = 3`，`α = 0.6`）：
"""),
        "draft-cost": ("a85451be", r"""
生成草稿也要花时间。如果草稿模型调用一次的代价是目标模型调用的 `c` 倍，一步的代价就是 `K·c + 1`，所以

$$\text{加速比} = \frac{1 - \alpha^{K+1}}{(1 - \alpha)(K c + 1)}.$$

（Leviathan 等（2023）的定理 3.8。）这个定理依赖论文与它一起给出的一个条件（第 3.3 节）：一步中目标模型的 `K + 1` 次计算（论文中是 `γ + 1` 次）并行进行，只花一次的墙钟时间，而且没有别的东西花时间。这样，带 `K + 1` 个位置的调用与只带一个位置的调用花费相同。只有当调用的瓶颈不在计算上时，真实的调用才接近这一点；notebook 03 会测量在这台 CPU 上接近到什么程度。

拖动滑块：草稿模型越好（`α` 越大），每一步越值得多提几个草稿；草稿越贵（`c` 越大），每一步就该少提几个。绿圈标出最佳的 `K`。

两个按钮设置的是论文自己对 T5-XXL（11B）做英译德（EnDe）、以 T5-small 为草稿模型、`K = γ = 7` 时的数字。`α = 0.75` 是贪心解码（温度 0），`α = 0.62` 是标准采样（温度 1）（表 2）。`c = 0.02` 是论文根据性能分析记录对 T5-small 的估计（附录 A.3，表 4）。用这些数，公式预测 3.2× 和 2.3×；论文实测是 3.4× 和 2.6×（表 2）。在两个任务（EnDe 和 CNN/DM）上，T5-small 的 `α` 在 0.53 到 0.75 之间，实测加速比在 2.3× 到 3.4× 之间。论文的 `γ = 7` 并不是公式在这些数字下的最佳 `K`：取 `c = 0.02` 时，`α = 0.75` 的最佳值是 `K = 9`（3.20×，而 `K = 7` 时为 3.16×），`α = 0.62` 的最佳值是 `K = 6`（2.27×，而 `K = 7` 时为 2.26×）。在最佳值附近曲线很平，所以一个 `γ` 对两者都适用。
"""),
        "tiny-models": ("a6b173c9", """
## 两个很小的语言模型

上面的公式假设每个位置都以同样的 `α` 相互独立地被接受，真实的模型可不是这样。下面是两个字符级模型，用 `tiny_corpus.txt`（课程自带的一小段英文文本，约 1,800 个字符）一转眼就能拟合出来：**二元（bigram）**模型作为草稿模型（根据前一个字符预测下一个字符），**三元（trigram）**模型作为目标模型（根据前两个字符预测）。你的 `speculative_step` 以 `K = 4` 生成 200 步；我们测量目标模型检查过的位置上的 `α`、实际的接受率，以及每次目标模型调用得到的 token 数，并与公式对照。
"""),
        "tiny-models-reading": ("9e0857fc", """
生成的文本出自一个三元模型，所以读起来半通不通。测得的每次调用 token 数与公式的差距，远小于计数本身的噪声：`±` 后面打印的标准误差，表示 200 步的平均值换一个种子会波动多少。而且公式的假设在这里并不成立：`β = Σ min(p, q)`（定义 3.1）取决于前缀，每个位置都不一样。空格之后几乎任何字母都可能出现，而在常见单词内部，两个模型的看法一致。`α` 是 `β` 的平均（推论 3.6），而靠后的位置只有在前面都被接受之后才轮得到，那里两个模型更一致。公式是选择 `K` 的参考，不是保证。

这里没有任何计时。打印出的加速比是公式在假设 `c = 0.05` 时给出的；对这两个查表模型来说，草稿模型的代价和目标模型差不多（`c` 约为 1），所以这一对模型根本带不来加速。Notebook 03 会给一对真实的模型计时。
"""),
        "check-yourself": ("bd4557ab", """
## ✅ 巩固一下
"""),
        "hidden-checks": ("d22386cb", """
## 隐藏检查

最上面是诊断。下面的单元格各检查一种行为（每项 1 分）：每个草稿都被接受时有一个额外 token；额外 token 从 `target_probs[K]` 中抽取；拒绝之后没有额外 token；修正 token 从被拒绝那一行的精确归一化残差中抽取；掷硬币之前不调用 `torch.multinomial`；每一步恰好一个新 token；草稿为空的情形；token 以 `torch.LongTensor` 给出时结果与列表相同，且结果是由 Python int 组成的普通列表；不修改输入；以及在固定种子下用真实的随机数检查第一个 token 的分布和每一步平均得到的 token 数。最后一个单元格把你的函数和规则放在一起，在大约 200 个生成的草稿上运行，并给出二者结果不一致的最小一例。
"""),
        "why-return": ("e831bef4", """
为什么这里用 `return`，而 notebook 1 用的是 `break`？在 notebook 1 里，循环之后什么也没有，所以 `break` 和 `return` 结束函数的效果一样。这里循环之后是额外 token（TODO 2）：`break` 之后会接着执行到那里，在修正 token 后面再加一个额外 token，一步就有了两个新 token。`return` 则让这一步只以修正 token 结束。
"""),
        "markov": ("30af23c3", """
## 带上下文的完整步骤：前三个 token

现在用的是你自己的 `speculative_step`，而且每一行都取决于上下文。目标模型和草稿模型是 3 个 token 上的两条小**马尔可夫链**：每条链只根据前一个 token 给出下一个 token 的分布，目标模型强烈偏好“前一个 + 1”。每一步先从草稿链中逐个采样出 `K = 2` 个草稿 token，再取目标模型在同样上下文下的 `K + 1` 行（第 `K` 行属于最后一个草稿之后的位置），调用你的函数，把它返回的 token 接到文本后面；下一步从那里接着生成。凑够 3 个 token 之后，我们统计输出的是哪个三元组 `(x1, x2, x3)`，把 27 种三元组的比例与目标链自己给出的概率 `p(x1 | 0) · p(x2 | x1) · p(x3 | x2)` 对比。额外 token 取错了行，或者修正 token 取自第 0 行，在这里都会出现很大的差距。（你的函数要在 Python 循环里一次次调用，所以只运行 3,000 次；这个单元格不计分，批改时会跳过，隐藏检查会测同样的内容。）
"""),
        "best-k": ("a438b3e4", """
下图是几种草稿代价 `c` 下最佳 `K` 随 `α` 的变化。每条曲线都从 `α` 超过 `c` 的地方开始：`α` 低于 `c` 时，任何 `K` 都不比普通解码快（见推论 3.9 和后面的小测验）。
"""),
        "temperature": ("bb5825f6", """
## 温度与贪心解码

贪心解码、top-k、核采样（nucleus sampling）和温度，都是从一个*调整过的*分布中采样，所以投机解码不需要为它们做任何改动：在这一步之前，用同样的方式（同样的温度）调整两个模型的行即可（Leviathan 等（2023）第 2.2 节“Standardized Sampling”）。贪心解码（温度 0）就是**独热行**的情形：每一行把概率 1 放在自己的 argmax 上。这时两个 argmax 一致则 `Σ min(p, q)` 为 1，不一致则为 0，所以草稿 token 恰好在它是目标模型的 argmax 时被留下，而修正 token（独热 `p` 的残差）就是目标模型的 argmax：输出与普通贪心解码逐个 token 相同。在两个模型看法一致的地方，越尖锐的行重叠越多，这与论文中 T5 模型对在温度 0 时的 `α`（0.75）高于温度 1 时（0.62）相符。这取决于模型对：notebook 03 会在一个真实的 transformer 和一个二元草稿模型上测量 `α` 随温度的变化，那里的方向正好相反。
"""),
    },
    "03_real_pair": {
        "title": ("d40b167a", """
# Level 24 · 投机解码 · Notebook 3：一对真实模型，实际计时

Notebook 1 和 2 用的都是概率表。这一次，概率的每一行都来自真实的模型：目标模型是一个小型的因果 **transformer**（3 层，644,000 个参数，带 KV 缓存），草稿模型是一张**二元（bigram）**表（只根据前一个字符预测下一个字符）。两个模型都以字符为单位读入和输出，训练数据都是 Python 自带的标准库（训练代码在 `tiny_lm.py` 里；权重随课程一起提供，就是 `tiny_lm.pt`）。

你会看到，为什么检查 `K` 个草稿只比调用一次目标模型多花一点时间；然后把一步投机解码接到真实的目标模型上，并在这台机器上和普通生成比一比用时。

**本 notebook 共 9 分**：答案下方的可见测试 3 分，批改时运行的隐藏检查 6 分。
"""),
        "checking-is-free": ("25bc3041", """
## 为什么检查几乎没有额外开销

生成一个 token 要调用一次目标模型：它把所有权重读一遍，算出一行。如果在同一次调用里给它 `K + 1` 个位置，权重同样只读一遍，却能算出 `K + 1` 行。在论文所用的加速器上，只算一个 token 的调用，瓶颈在于把权重从内存里搬出来，而不在计算本身，所以多算几行几乎不花时间。在这台 CPU 上，模型又这么小，一次调用的大部分时间是它自身的固定开销（Python 和 PyTorch 为每一层安排运算）；结果是一样的。来计时看看：缓存里已有 64 个位置时，比较一次调用带 1 个位置和带 5 个位置的用时，各调用 60 次。两种调用轮流进行（1、5、5、1、1、5……），这样即使机器某一刻忙于别的工作，两者受到的影响也相同。每一行给出最快、中位数和最慢的一次调用；最后一行把每次带 5 个位置的调用，与紧挨着它的那次带 1 个位置的调用相比。
"""),
        "the-price": ("52ff9039", """
**代价**。计算量不会凭空消失：每个草稿位置都要由目标模型算一遍，随后被拒绝、被丢掉的那些也不例外。Leviathan 等（2023）在第 3.4 节（定理 3.11）算过这笔账：投机解码用更多的总计算量，换来更少的串行调用。有 `K` 个草稿、每次调用平均得到 `E` 个 token 时，目标模型每输出一个 token，要计算 `(K + 1) / E` 个位置，而不是 1 个。

**什么时候不划算**。只有当一次调用的瓶颈不在计算上时，才有空闲的时间可以利用。如果硬件本来就忙于计算（大批请求放在一起处理，或者计算本身就是瓶颈的机器），多算的每一行都要实打实地付出代价，被拒绝的位置就成了纯粹的浪费。
"""),
        "one-step": ("23555ff3", """
## 在真实的目标模型上走一步

目标模型维护着一个 **KV 缓存**，里面存着它见过的每个位置的键和值，所以每次调用只需计算新的位置。`cache.length` 是缓存中的位置数；`cache.crop(n)` 只保留前 `n` 个位置。一步开始时，缓存里是 `last_token` 之前的全部位置；`last_token` 是文本中最新的 token，目标模型还没有见过它。

对 `[last_token] + draft_tokens`（`K + 1` 个位置）调用一次，得到 `K + 1` 行 logits：第 `i` 行是目标模型在看过 `last_token` 和前 `i` 个草稿之后，对下一个 token 的分布。所以第 `0..K-1` 行用来检查草稿，第 `K` 行用来采样额外（bonus）token。`rows(logits, temperature)` 把这些行变成概率。

这里的 `speculative_step` 是课程给出的参考实现，对应 notebook 2 里的那个函数（从 `spec_pair.py` 导入）：你自己写的版本在 notebook 2 里，而每个 notebook 都在各自的内核中运行。

这一步之后，缓存多了 `K + 1` 个新位置，但属于这段文本的只有 `last_token` 和被接受的草稿：被拒绝的草稿的键和值必须去掉，而这一步新得到的 token（修正 token 或额外 token）还不在缓存里。所以要保留 `start + len(tokens)` 个位置，其中 `start` 是调用之前缓存的长度。
"""),
        "task": ("f22dde58", """
## 你的任务：`verify_drafts`

**TODO**：调用**一次** `target.forward_cached([last_token] + draft_tokens, cache)`，按 `temperature` 把各行变成概率，调用 `speculative_step`，把缓存裁剪到 `start + len(tokens)`，然后返回这些 token。

请使用课程提供的 `rows` 和 `speculative_step`：测试会给每次 `torch.rand` 一个预设的随机数 `r`（也就是硬币），给每次 `torch.multinomial` 一个预设的 token，这样才能在同一个状态上，把你的这一步和参考实现逐个 token 地比较，温度为 0 和大于 0 时都是如此。

如果测试报错：
- 说的是*调用目标模型*的次数或位置：每一步只调用一次，带上全部 `K + 1` 个位置（不要每个草稿调用一次，也不要在缓存的副本上调用）；
- 说*缓存增加了*多少个位置：没有裁剪缓存，或者多留、少留了一个位置；
- 说的是*交给 torch.multinomial 的那一行*：目标模型的各行不是 `rows(logits, temperature)`（温度用了两次，或者根本没用），或者改动了 `draft_probs`。
"""),
        "visible-test": ("958cad01", """
## 可见测试

测试构造了六个状态，每个状态都用一个新的缓存，在每个状态上运行一次你的 `verify_drafts`，走一步投机解码。其中三个是贪心状态（温度 0：每一行都是落在最可能的 token 上的独热分布），草稿分别是全部、除最后一个以外、一个也不与目标模型一致；两个状态的温度为 0.7，一个的硬币 `r` 拒绝中间的某个草稿，另一个接受全部草稿；最后一个没有草稿（`K = 0`），温度为 1。温度大于 0 时，预设的 `torch.multinomial` 给出的是一个比较可能、但不是最可能的 token，这样“采样”和“直接取 argmax”就能区分开。在每个状态上，测试都和同一状态上的参考实现比较以下几点：是否只调用一次目标模型、带 `K + 1` 个位置并用上了缓存；这一步之后缓存的长度和内容（在它上面再调用一次，必须得到这段文本的行）；返回的 token；以及交给 `torch.multinomial` 的那一行。
"""),
        "faster": ("46291d94", """
## 同样的文本，能更快吗？

先看贪心解码（`T = 0`）。计时之前，先读一读生成的文本：这个目标模型太小，贪心解码几个字符之后就会陷入循环。下面是三个提示词和各自之后的 120 个贪心 token；我们试过的每个提示词，结果都一样，最后变成一串空格或下划线。然后在第一个提示词上，普通生成（每个 token 调用一次）和你的版本（`K = 4`）轮流运行，各 5 次，用 `time.perf_counter` 计时。
"""),
        "faster-reading": ("dbc50857", """
可见，贪心解码的加速比是在一串空格上测出来的，而二元模型几乎能完美地预测它（空格之后还是空格）：几乎每个草稿都被接受。这是退化文本上的最理想情况，既不代表投机解码在真实代码上的收益，也不说明贪心解码适合这对模型。下面改用采样（`T = 1`），生成的文本会保持多样。
"""),
        "sampling": ("6ac04822", """
接下来是采样（温度 1），并与 notebook 2 的公式对比。`c` 是生成一个草稿 token 的用时与一次只带 1 个位置的目标模型调用的用时之比，两者都在下面的运行中计时；`α` 是 `β = Σ min(p, q)` 在 800 个前缀上的平均值，这些前缀取自目标模型在 `T = 1` 下自己生成的文本（Leviathan 等（2023）的定义 3.1 和推论 3.6：`β` 属于某一个前缀，`α` 是它的期望）。普通生成和投机解码轮流运行，各 5 次，每次 200 个 token（第 `i` 次运行用种子 `i` 采样），单元格输出中位数和波动范围。

这个公式（定理 3.8）依赖一个条件，论文在第 3.3 节写明：一步中目标模型的 `K + 1` 次计算（论文中是 `γ + 1` 次）并行完成，只花一次调用的实际时间，而且除了草稿模型和目标模型，没有别的环节花时间。所以一步的代价是 `K·c + 1` 次目标模型调用。这个单元格则实际测量真实一步中的各个部分：生成草稿、带 `K + 1` 个位置的那次调用，以及其余部分（算出各行、`speculative_step`、裁剪、循环），都以一个普通 token 的用时为单位。

接受率只统计**检查过的**草稿：一步中第一次拒绝之后的草稿根本没有被检查，所以既不算被接受，也不算被拒绝。
"""),
        "sampling-reading": ("e3e6b732", """
**差距从哪里来**。公式把一步算作 `K·c + 1` 次目标模型调用，把一个普通 token 算作一次调用。在这台 CPU 上，两者都不成立：带 `K + 1` 个位置的调用比只带 1 个位置的调用更慢（上面输出的那一行给出了倍数）；一步中的其余部分（算出各行、掷硬币、裁剪缓存、Python 的循环）要花掉相当于一次调用的不小一部分，而 `c` 没有把它算进去；一个普通 token 的用时也比它那次调用本身稍长。合起来，一步所花的时间折合成普通 token 要多于 `K·c + 1` 个，测得的加速比也就大约按这个比例低于公式的预测。每步得到的 token 数则与公式吻合得好得多：`α` 就是在同一类文本上测的。各次运行之间的波动很大：每次运行采样出的文本都不同，而且机器随时可能在忙别的工作。
"""),
        "temperature": ("e847a539", """
## 温度

两个模型在相同的温度下采样（*标准化采样*：两行都是 `softmax(logits / T)`）。`T = 0` 时，每一行都是落在该模型最可能的 token 上的独热分布，所以两个模型在这个 token 上一致时 `β` 为 1，不一致时为 0。先猜一猜：从 `T = 1` 到 `T = 0`，`α` 会怎样变化？然后在这对模型上测一测。

要看清温度对各行的影响，前缀必须保持不变：取目标模型在 `T = 1` 下采样的四段文本，每段 200 个 token（种子 0 到 3），在每个 `T` 下都计算这 800 个前缀上的 `β`。每一行还给出两项：在该 `T` 下目标模型自己生成的文本上的 `α`（同一个提示词之后的 200 个前缀），这才是投机解码在这个温度下实际遇到的情况；以及这段文本中最常见的字符所占的比例：
"""),
        "temperature-reading": ("650edf23", """
在相同的前缀上，这对模型的 `α` 随 `T` 降低而**下降**：从 `T = 1` 时的约 0.5，降到 `T = 0` 时的约 0.35。`T = 0` 时，`α` 就是“二元模型最可能的字符恰好也是目标模型最可能的字符”的前缀所占的比例：二元模型只看一个字符，目标模型看整段文本，两者只在大约三分之一的前缀上一致。`T = 1` 时，各行保留了第二、第三选择，`Σ min(p, q)` 把两个模型共同分给同一些 token 的概率累加起来，即使两者的第一选择不同也是如此。`T` 继续升高，两行都变得平坦，趋向同一个均匀分布，`α` 趋近 1（`T = 1.5` 时已经又升高了）。

在目标模型*自己*生成的文本上，低温一侧看起来正好相反：`T <= 0.7` 时，这段文本大部分是空格，二元模型能很好地预测，所以那里的 `α` 很高。这测的是文本，而不是各行本身；这也正是上面的贪心运行中投机解码效果那么好的原因。

论文里的几对模型则正好相反：在 EnDe（英译德）任务上，用 T5-small 为 T5-XXL 生成草稿，`T = 0` 时 `α` = 0.75，`T = 1` 时为 0.62（Leviathan 等（2023）的表 2）。一个真正的、较小的语言模型作为草稿模型，和目标模型第一选择一致的次数远多于二元模型，这时各行越尖锐越有利。`α` 随 `T` 降低是升还是降，取决于具体是哪一对模型。
"""),
        "check-yourself": ("bd4557ab", """
## ✅ 巩固一下
"""),
        "hidden-checks": ("f7eb2c1e", """
## 隐藏检查

先是诊断，然后每项检查一种行为（各 1 分）。用到的都是批改程序用别的提示词构造的单步状态，每个状态一个新的缓存：在缓存上调用一次目标模型，带 `K + 1` 个位置；这一步之后，缓存里只有这段文本的位置（长度和内容都对），只有最后一个草稿被拒绝时也是如此；贪心状态下返回的 token 与参考实现相同，所有草稿都一致时也是如此；`K = 0`（没有草稿）时，一步就是一次普通的解码；温度为 0.7、1 和 1.3 时，在同样的预设硬币下，返回的 token 和交给 `torch.multinomial` 的那一行都与参考实现相同；最后用真实的随机抽取运行 200 步，每一步的第一个 token 服从目标模型的那一行。
"""),
    },
}

COMMENTS = {
    "for a model this small, a second thread costs more in coordination than it saves": "对这么小的模型，第二个线程在协调上的开销比它省下的还多",
    "noqa: E731 (float32 prints 0.2 as 0.20000000298)": "noqa: E731（float32 会把 0.2 打印成 0.20000000298）",
    "Level 23: accept": "Level 23：接受",
    "The rejected token's id is also a row of the draft, so a residual read from row token_id still reaches torch.multinomial: a row misread is the residual check's to find.": "被拒绝的 token 的 id 也是草稿里一个存在的行号，所以从第 token_id 行读出的残差照样会传到 torch.multinomial：读错行的问题留给检查残差的那项去发现。",
    "one call: K + 1 rows": "一次调用：K + 1 行",
    "last_token and the accepted drafts stay; rejected ones go": "last_token 和被接受的草稿留下；被拒绝的去掉",
    "verify_drafts behaves like (or \"none\").": "（verify_drafts）的行为像哪一种已知错误（或者没有发现错误）。",
    "Hidden check: one target call per step, forward_cached on the cache it was given, over [last_token] + draft_tokens.": "隐藏检查：每一步在给定的缓存上调用一次 forward_cached，输入是 [last_token] + draft_tokens。",
    "Hidden check: after each step the cache holds last_token and the drafts kept, no more and no fewer.": "隐藏检查：每一步之后，缓存里正好是 last_token 和被保留的草稿，不多也不少。",
    "Hidden check: on greedy states the step's tokens, token for token.": "隐藏检查：在贪心状态上，返回的 token 与参考实现逐个相同。",
    "Hidden check: with K = 0 each step is one call of one position, and one new token.": "隐藏检查：K = 0 时每一步只调用一次、带一个位置，并得到一个新 token。",
    "Hidden check: at temperatures above 0, the step's tokens and the row handed to torch.multinomial.": "隐藏检查：温度大于 0 时，返回的 token 和交给 torch.multinomial 的那一行都与参考实现相同。",
    "Hidden check: with real random draws, the first token of a step follows the target's row.": "隐藏检查：用真实的随机数时，每一步的第一个 token 服从目标模型的那一行。",
    "The draw contract: keep the given loop. The tests hand scripted values to one torch.rand(1)":
        "抽取约定：不要改动写好的循环。测试按位置顺序，为每个 p < q 位置上的那一次 torch.rand(1)",
    "per p < q position, in position order (none where p >= q, none after the rejection), and":
        "提供一个预设的随机数（p >= q 处不抽，拒绝之后也不抽），并记下每一次 torch.multinomial 调用；",
    "record each torch.multinomial call, which needs num_samples as in torch: (weights, 1).":
        "和真正的 torch 一样，调用时必须给出 num_samples：torch.multinomial(weights, 1)。",
    "one call, printed twice: as the tensor and as the int": "只调用一次，打印两遍：一次是张量，一次是 int",
    "TODO: rejected at position i. Sample one correction token from row i's normalised":
        "TODO：位置 i 被拒绝了。用 torch.multinomial 从第 i 行的残差 max(0, p - q)（归一化后）",
    "residual max(0, p - q) with torch.multinomial, append it (as an int), and stop.":
        "中采样一个修正 token，转成 int 追加到列表，然后停止。",
    "When your notebook is graded, the grader writes here, in one line, which known mistake your":
        "批改你的 notebook 时，批改程序会在这里用一行写出：你的函数",
    "verify_and_correct behaves like (or \"none\").": "（verify_and_correct）的行为像哪一种已知错误（或者没有发现错误）。",
    "speculative_step behaves like (or \"none\").": "（speculative_step）的行为像哪一种已知错误（或者没有发现错误）。",
    "Hidden check: torch.multinomial is not called before the coin that rejects.":
        "隐藏检查：在决定拒绝的那次掷硬币之前不调用 torch.multinomial。",
    "Hidden check: a rejection (at position 1 of 3, the only p < q position) draws its correction with exactly one torch.multinomial call, for one sample (num_samples given, as torch requires).":
        "隐藏检查：3 个位置中只有位置 1 满足 p < q，它被拒绝时，只调用一次 torch.multinomial、只抽一个样本作为修正 token（并且给出 torch 要求的 num_samples）。",
    "Hidden check: the correction's torch.multinomial call gets row i's normalised max(0, p - q), to within 1e-6, for a rejection at position 2 and at position 1.":
        "隐藏检查：拒绝发生在位置 2 和位置 1 时，为修正 token 调用的 torch.multinomial 收到的都是第 i 行归一化的 max(0, p - q)，误差在 1e-6 以内。",
    "Hidden check: a rejection at position 0 returns the correction token first, and the rejected draft nowhere.":
        "隐藏检查：位置 0 被拒绝时，修正 token 排在最前，被拒绝的草稿不出现在结果中。",
    "The correction is token 0, the rejected position's index too, and a second call would hand out token 2, not the rejected one: appending i, or a second correction, is another check's to find.":
        "修正 token 是 token 0，恰好也是被拒绝位置的下标；第二次调用会给出 token 2，而不是被拒绝的那个：追加 i 或多抽一个修正 token 的问题留给别的检查去发现。",
    "Hidden check: the token torch.multinomial returned is appended right after the accepted prefix.":
        "隐藏检查：追加在被接受的前缀之后的，正是 torch.multinomial 返回的 token。",
    "Hidden check: nothing after the correction token is verified: no further coin, no later draft.":
        "隐藏检查：有了修正 token 就不再验证后面的位置，既不再掷硬币，也不返回后面的草稿。",
    "Hidden check: when every draft is accepted there is no correction (notebook 2 adds the bonus).":
        "隐藏检查：每个草稿都被接受时没有修正 token（notebook 2 会加上额外 token）。",
    "Hidden check: positions with p >= q are accepted without a coin (Level 23's rule still holds).":
        "隐藏检查：p >= q 的位置不掷硬币直接接受（Level 23 的规则仍然成立）。",
    "Hidden check: draft_tokens as a torch.LongTensor gives what the same ids as a list give, and the result is a plain list of Python ints.":
        "隐藏检查：draft_tokens 以 torch.LongTensor 给出时，结果与同样的 id 以列表给出时相同，且结果是由 Python int 组成的普通列表。",
    "Hidden check: draft_probs, target_probs and draft_tokens are left unchanged.":
        "隐藏检查：draft_probs、target_probs 和 draft_tokens 保持不变。",
    "Hidden check: with the real randomness (fixed seed), the drafted token is kept with probability p/q, and otherwise the emitted token follows the residual: (p/q)·[the drafted token] + (1 - p/q)·residual.":
        "隐藏检查：用真实的随机数（固定种子），草稿 token 以概率 p/q 被保留，否则输出的 token 服从残差分布：(p/q)·[草稿 token] + (1 - p/q)·残差。",
    "Hidden check: on about 200 generated drafts, verify_and_correct does what the rule does: the same tokens, the same calls of torch.rand and torch.multinomial in the same order, each sample drawn from the same weights. The drafts have 0 to 4 positions over 3 to 5 token ids: ties, p == 0, q == 0, each followed by other positions, tokens drafted twice, lists and tensors, draws at the boundaries. A failure shows the smallest draft where they part, position by position.":
        "隐藏检查：在大约 200 个生成的草稿上，verify_and_correct 的做法与规则相同：返回的 token 相同，torch.rand 和 torch.multinomial 的调用相同、顺序相同，每次采样用的权重也相同。这些草稿有 0 到 4 个位置，词表只有 3 到 5 个 token id，包括 p == q、p == 0、q == 0（后面都还跟着别的位置）、同一个 token 被提出两次、列表和张量两种形式，以及落在边界上的随机数。未通过时，会给出二者结果不一致的最小草稿，并逐个位置走一遍。",
    "Hidden check: on about 200 generated drafts, speculative_step does what the rule does: the same tokens, the same calls of torch.rand and torch.multinomial in the same order, each sample drawn from the same weights. The drafts have 0 to 4 positions over 3 to 5 token ids: ties, p == 0, q == 0, each followed by other positions, tokens drafted twice, lists and tensors, draws at the boundaries. A failure shows the smallest draft where they part, position by position.":
        "隐藏检查：在大约 200 个生成的草稿上，speculative_step 的做法与规则相同：返回的 token 相同，torch.rand 和 torch.multinomial 的调用相同、顺序相同，每次采样用的权重也相同。这些草稿有 0 到 4 个位置，词表只有 3 到 5 个 token id，包括 p == q、p == 0、q == 0（后面都还跟着别的位置）、同一个 token 被提出两次、列表和张量两种形式，以及落在边界上的随机数。未通过时，会给出二者结果不一致的最小草稿，并逐个位置走一遍。",
    "token 1 accepted with p/q = 0.2; else (0.8) the residual [0.75, 0, 0.25, 0]":
        "token 1 以 p/q = 0.2 的概率被接受；其余 0.8 服从残差分布 [0.75, 0, 0.25, 0]",
    "TODO 1: the correction token from row i's normalised residual; then return.":
        "TODO 1：从第 i 行归一化的残差分布中采样修正 token，然后 return。",
    "TODO 2: every draft was accepted: append one bonus token sampled from target_probs[K].":
        "TODO 2：走到这里，说明每个草稿都被接受了。追加一个从 target_probs[K] 中采样的额外 token。",
    "Hidden check: when all K drafts are accepted, one bonus token follows them.":
        "隐藏检查：K 个草稿全部被接受时，后面跟一个额外 token。",
    "Hidden check: the bonus token is drawn from target_probs[K], with one torch.multinomial call.":
        "隐藏检查：额外 token 从 target_probs[K] 中抽取，只调用一次 torch.multinomial。",
    "Hidden check: after a rejection the correction is the only new token: no bonus.":
        "隐藏检查：拒绝之后，修正 token 是唯一的新 token，没有额外 token。",
    "Hidden check: the correction's torch.multinomial call gets the rejected row's normalised max(0, p - q), to within 1e-6, for a rejection at position 2 and at position 1.":
        "隐藏检查：拒绝发生在位置 2 和位置 1 时，为修正 token 调用的 torch.multinomial 收到的都是被拒绝那一行归一化的 max(0, p - q)，误差在 1e-6 以内。",
    "Hidden check: torch.multinomial is called only after the coins have decided.":
        "隐藏检查：只在硬币都掷完之后才调用 torch.multinomial。",
    "Hidden check: whatever happens, a step returns its accepted prefix plus exactly one new token, and calls torch.multinomial with num_samples, as torch requires.":
        "隐藏检查：无论发生什么，一步都返回被接受的前缀再加恰好一个新 token，并且调用 torch.multinomial 时给出 num_samples（torch 要求必须给出）。",
    "Hidden check: an empty draft (K = 0) still gives one token, the bonus from target_probs[0].":
        "隐藏检查：空草稿（K = 0）也给出一个 token，即来自 target_probs[0] 的额外 token。",
    "Hidden check: with the real randomness (fixed seed) and drafts sampled from q, the first token follows p.":
        "隐藏检查：用真实的随机数（固定种子），草稿从 q 中采样时，第一个 token 服从 p。",
    "each drafted token, run as often as q drafts it": "每个草稿 token 运行的次数与 q 提出它的概率成正比",
    "Hidden check: with the real randomness (fixed seed), the mean number of tokens per step matches its expectation.":
        "隐藏检查：用真实的随机数（固定种子），每一步平均得到的 token 数与期望一致。",
    "each draft accepted with p/q = 0.625": "每个草稿以 p/q = 0.625 的概率被接受",
}

# The docstrings of the answer cells' functions, by the English text between the quotes (grading/build/notebooks.py
# replaces the literal's text and nothing else, so both editions run the same code).
STRINGS = {
    "draft_probs, target_probs: [K, V]; draft_tokens: K token ids (a list or a torch.LongTensor).\n\n"
    "    Returns the accepted prefix, plus one correction token after the first rejection.\n    ":
        "draft_probs、target_probs：[K, V]；draft_tokens：K 个 token id（列表或 torch.LongTensor）。\n\n"
        "    返回被接受的前缀；第一次拒绝之后，再加上一个修正 token。\n    ",
    "One step of speculative sampling.\n\n"
    "    draft_probs:  [K, V]     the draft's distribution at each drafted position\n"
    "    target_probs: [K + 1, V] the target's distribution at the same positions, then row K after the last draft\n"
    "    draft_tokens: K token ids (a list or a torch.LongTensor)\n"
    "    Returns the accepted prefix plus exactly one new token (a correction or the bonus), as a list of ints.\n    ":
        "投机解码的一步。\n\n"
        "    draft_probs：[K, V]，草稿模型在每个草稿位置上的分布\n"
        "    target_probs：[K + 1, V]，目标模型在同样这些位置上的分布，最后的第 K 行属于最后一个草稿之后的位置\n"
        "    draft_tokens：K 个 token id（列表或 torch.LongTensor）\n"
        "    返回被接受的前缀，再加恰好一个新 token（修正 token 或额外 token），是一个 int 列表。\n    ",
    "One speculative step with the real target.\n\n"
    "    cache:        the target's KV cache, holding every position before last_token\n"
    "    last_token:   the newest token of the text (not yet in the cache)\n"
    "    draft_tokens: the K tokens the draft proposed after it; draft_probs: their [K, V] rows\n"
    "    Returns the accepted drafts plus one new token, as speculative_step does; afterwards the\n"
    "    cache holds the positions of last_token and the accepted drafts, and no others.\n    ":
        "在真实的目标模型上走一步投机解码。\n\n"
        "    cache：目标模型的 KV 缓存，保存 last_token 之前的每个位置\n"
        "    last_token：文本中最新的 token（还不在缓存里）\n"
        "    draft_tokens：草稿模型在它之后提出的 K 个 token；draft_probs：这些 token 的 [K, V] 行\n"
        "    和 speculative_step 一样，返回被接受的草稿再加一个新 token；之后缓存恰好保存\n"
        "    last_token 和被接受的草稿的位置，不多也不少。\n    ",
}

# What the student finds where a solution was, and above a failed hidden check: as in every Chinese edition.
CODE_STUB = _LEVEL23.CODE_STUB
CHECK_FAILED = _LEVEL23.CHECK_FAILED

HELPERS = {
    "spec_checks": {
        "lang": "zh",
        "your_function": "你的函数",
        "problem": {
            "too_long": "{function} 运行超过了 {seconds:g} 秒：是不是有死循环？",
            "rebound": "你的代码替换了 Python 内置函数（{names}）：请删掉这部分",
            "foreign": "{function} 用 {others} 采样，而不是 torch.multinomial；检查预设的是 torch.multinomial "
                       "给出的 token，所以请用 torch.multinomial(weights, 1) 采样（其他检查让 {others} 也返回同样的预设 "
                       "token，所以它们照常评判你函数的其余部分）",
            "replaced": "你的代码替换了 torch.rand 或 torch.multinomial：调用它们即可，不要改动它们本身",
            "not_written": "NotImplementedError：{function} 还没有写；把 raise 那一行换成你的代码",
            "no_num_samples": "调用 torch.multinomial 时没有给出 num_samples（{error}）：torch 不为它提供默认值；抽取一个 token 要写 torch.multinomial(weights, 1)",
        "refused": "torch.multinomial 不接受你传入的权重（{error}）：请传入一行权重，不能有负数，也不能全为零",
            "raised": "{function} 抛出了 {error}",
            "not_list": "{function} 应当返回由 token_id（int）组成的普通 Python 列表，但它返回了 {type}：{result}",
            "not_list_short": "{function} 应当返回由 token_id 组成的普通 Python 列表",
            "not_ids": "{function} 返回的列表里有不是 Python int 的元素（{types}）：从 draft_tokens[i] 或 torch.multinomial "
                       "得到的 token_id 是张量，要用 int(...) 转成 int",
        },
        "refusals": [
            "prob_dist 必须是一维或二维张量",
            "概率张量中含有 inf、nan 或负数",
            "不是合法的多项分布（概率之和 <= 0）",
            "multinomial() 缺少 1 个必需的位置参数：num_samples",
        ],
        "hidden": {
            "raised": "{function} 抛出了 {error}（隐藏检查不显示错误信息）",
            "not_list": "{function} 应当返回由 token_id（int）组成的普通 Python 列表，但它返回了 {type}",
            "value": "[隐藏]",
        },
        "calls": {"rand": "rand", "multinomial": "multinomial", "none": "无", "separator": "、"},
        "distribution": {
            "not_normalised": "修正 token 是从没有归一化的 max(0, p - q) 中抽取的：这些值的和是 {total}，不是 1。调用 torch.multinomial 之前，先把残差除以它的和",
            "from_p": "修正 token 是从 p（目标模型的那一行）中抽取的：拒绝之后，应从归一化的残差分布 max(0, p - q) 中抽取",
            "from_q": "修正 token 是从 q（草稿模型的那一行）中抽取的：应从归一化的残差分布 max(0, p - q) 中抽取",
            "flipped": "修正 token 是从 max(0, q - p) 中抽取的：残差是 max(0, p - q)，即目标概率减去草稿概率",
            "other_row": "修正 token 用了第 {j} 行，但拒绝发生在位置 {i}：请取第 i 行（被拒绝的位置）的残差",
            "other": "修正 token 是从 {values} 中抽取的；应从第 {i} 行归一化后的残差 max(0, p - q)，即 {want} 中抽取",
        },
        "correction": {
            "never_called": "torch.multinomial 从未被调用：在位置 {i} 被拒绝之后，用 torch.multinomial(residual, 1) 采样一个修正 token",
            "too_few_coins": "torch.rand 被调用了 {coins} 次，但在位置 {i} 被拒绝之前，需要掷 {needed} 次硬币（和 Level 23 一样，每个 p < q 的位置掷一次）",
            "before_coin": "决定拒绝的那次掷硬币之前，torch.multinomial 就被调用了（调用顺序：{calls}）：只能在拒绝之后抽取修正 token",
            "too_many": "torch.multinomial 被调用了 {count} 次：拒绝之后恰好抽取一个修正 token，然后停止",
            "samples": "torch.multinomial 一次抽取了 {n} 个样本：一个修正 token 只需要 num_samples=1",
        },
        "tokens": "得到 {got}，期望 {expected}",
        "tensor_differs": "draft_tokens 是 torch.LongTensor 时结果为 {got}；同样的 id 以列表传入时，结果却是 {listed}",
        "after_correction": {
            "coins": "torch.rand 被调用了 {coins} 次，而位置 {i} 在第 {needed} 次掷硬币时就被拒绝了：有了修正 token 之后，不应再验证后面的位置",
            "drafts": "得到 {got}：位置 {i} 的修正 token 后面，还跟着之后的草稿 {later}",
        },
        "rejected_kept": "得到 {got}：位置 {i} 已经被拒绝，被拒绝的草稿 {token} 却还在结果里",
        "tokens_why": "得到 {got}，期望 {expected}：{why}",
        "bonus": {
            "never_called": "{k} 个草稿全部被接受，但 torch.multinomial 从未被调用：请从 target_probs[{k}]（第 K 行）中采样一个额外 token",
            "too_many": "torch.multinomial 被调用了 {count} 次：一个额外 token 只需要调用一次",
            "samples": "torch.multinomial 一次抽取了 {n} 个样本：额外 token 只需要 num_samples=1",
            "row_k_minus_1": "额外 token 是从 target_probs[{row}]（第 K-1 行）中抽取的：K 个草稿都被接受之后，下一个 token 的分布是 target_probs[{k}]（第 K 行）",
            "from_draft": "额外 token 是从草稿模型的那一行中抽取的：应从目标模型的 target_probs[{k}] 中抽取",
            "other": "额外 token 是从 {values} 中抽取的；应从 target_probs[{k}] = {want} 中抽取",
        },
        "order": {
            "too_few_coins": "torch.rand 被调用了 {coins} 次，但这个用例需要先掷 {needed} 次硬币（和 Level 23 一样，每个 p < q 的位置掷一次）",
            "before_coin": "还有硬币没掷，torch.multinomial 就被调用了（调用顺序：{calls}）：等硬币都掷完，再采样新 token",
        },
        "one_new": {
            "calls": "torch.multinomial 被调用了 {count} 次：每一步只抽取一个新 token，恰好调用一次",
            "samples": "torch.multinomial 一次抽取了 {n} 个样本：一个新 token 只需要 num_samples=1",
            "count": "得到 {count} 个 token：{tokens}；这里被接受的前缀有 {accepted} 个 token，后面应当恰好再跟一个新 token",
        },
        "check": {"problem": "{problem}。"},
        "pair": {
            "not_written": "NotImplementedError：verify_drafts 还没有写；把 raise 那一行换成你的代码",
            "raised": "在{state}中，verify_drafts 在 {where} 里抛出了 {error}",
            "stopped": "verify_drafts 在第 {n} 步没有给出结果",
            "state": "第 {n} 步（K = {k}，温度 {temperature}：{what}）",
            "labels": {"all": "这一步接受全部草稿", "first": "这一步拒绝第一个草稿", "last": "这一步只拒绝最后一个草稿",
                       "middle": "这一步拒绝中间的一个草稿", "empty": "没有草稿"},
            "no_cache": "在{state}中，verify_drafts 调用目标模型时没有用它的缓存（target(...) 或 target.forward）：应当调用 target.forward_cached([last_token] + draft_tokens, cache)",
            "other_cache": "在{state}中，verify_drafts 没有在传给它的缓存上调用 forward_cached，而是用了另一个缓存（副本或新建的缓存），所以这段文本的缓存根本没有经历这一步",
            "calls": "在{state}中，verify_drafts 调用了 {calls} 次目标模型；一步只应调用一次，输入是 [last_token] + draft_tokens",
            "positions": "在{state}中，调用目标模型时输入了 {n} 个位置，{what}；有 K = {k} 个草稿时，输入应是 [last_token] + draft_tokens，共 K + 1 = {k1} 个位置",
            "without_last": "只有草稿，没有 last_token",
            "other_ids": "不是 [last_token] + draft_tokens",
            "no_tokens": "在{state}中，verify_drafts 没有返回 token id，无法据此核对缓存",
            "shrunk": "{state}之后，缓存只有 {length} 个位置，比这一步之前的 {start} 个还少",
            "cache": "{state}之后，缓存增加了 {new} 个位置，而不是 len(tokens) = {returned} 个（last_token 和这一步保留的草稿：start + len(tokens)）",
            "no_probe": "{state}之后，无法在这一步留下的缓存上调用目标模型",
            "contents": "{state}之后，缓存增加了 len(tokens) = {returned} 个位置，但这些位置不是这段文本的：在它上面再调用一次，得到的行与在这段文本的缓存上得到的不同",
            "tokens": "在{state}中，verify_drafts 返回了 {got}；这一步应得到 {want}（接受 {accepted} 个草稿，再加上 torch.multinomial 给出的 token）",
            "tokens_hidden": "在{state}中，verify_drafts 返回的 token 与这一步应得到的不同（len(tokens) = {n}，应为 {m}：接受 {accepted} 个草稿，再加上 torch.multinomial 给出的 token）",
            "no_multinomial": "在{state}中，verify_drafts 没有调用 torch.multinomial；这一步的新 token 要调用它一次来抽取",
            "weights_shape": "在{state}中，交给 torch.multinomial 的不是一行覆盖全部 128 个 token 的概率",
            "weights": "在{state}中，交给 torch.multinomial 的那一行与这一步的{where}最多相差 {gap}（两者都已归一化）",
            "bonus_row": "额外 token 那一行（目标模型在这个温度下的第 K 行）",
            "residual_row": "第 {i} 行的残差 max(0, p - q)（p 取目标模型在这个温度下的行，q 取 draft_probs）",
            "samples_raised": "verify_drafts 在重复运行的第 {n} 步抛出了 {error}",
            "samples_missing": "在重复运行的 {n} 步中，verify_drafts 并不是每一步都返回了 token id",
            "samples": "在温度 {temperature} 下用真实的随机抽取运行 {n} 步，第一个 token 的分布与目标模型那一行的总变差距离为 {tv}；如果 verify_drafts 是对的，出现至少这么大差距的概率是 {p}",
        },
        "contract": {
            "rule": "测试按位置顺序，为每个 p < q 位置上的那一次 torch.rand(1) 调用提供一个预设的随机数，并记下每一次 torch.multinomial 调用",
            "shapes": "你让 torch.rand 生成了形状为 {shapes} 的张量，但{rule}。在循环里每次只掷一枚硬币：torch.rand(1)",
            "too_many": "torch.rand 被调用了 {calls} 次，但这个用例在这一步结束之前只有 {coins} 个 p < q 的位置，而{rule}。每个 p < q 的位置掷一枚硬币，p >= q 的位置不掷（不要改动写好的循环）",
        },
        "visible": {
            "foreign": "你的函数用 {others} 采样。测试预设的是 torch.multinomial 返回的 token：请像课程里那样用 "
                       "torch.multinomial(weights, 1) 采样。",
            "n1_tokens": "位置 0 被接受（p >= q），位置 1 被拒绝，所以结果是 token 0，再加 torch.multinomial 给出的修正 token（2）",
            "n2_rejected": "拒绝之后，这一步返回前缀 [0] 和修正 token 2，仅此而已",
            "n2_accepted": "两个草稿都被接受（r = 0.1 < 0.4），所以这一步返回 [0, 1] 和 torch.multinomial 给出的额外 token（3）",
        },
        "say": {
            "n1_passed": "可见测试通过：[0, 2]，掷硬币之后对残差分布 [0.75, 0, 0.25, 0] 调用了一次 multinomial。",
            "n3_passed": "可见测试通过：在 {steps} 个状态上，每一步都只调用一次目标模型、带 K + 1 个位置，缓存留下的正是这段文本，返回的 token 正确，温度大于 0 时交给 torch.multinomial 的那一行也正确。",
            "n2_passed": "可见测试通过：拒绝之后得到 [0, 2]，全部接受时得到 [0, 1, 3]，额外 token 来自 target_probs[2]。",
            "never_called_after_reject": "拒绝之后 torch.multinomial 从未被调用",
            "called_without_reject": "没有任何拒绝，torch.multinomial 却被调用了 {count} 次",
            "coins_where_p_below_q": "torch.rand 被调用了 {count} 次，但只有位置 2 满足 p < q",
            "n1_inputs_unchanged": "verify_and_correct 修改了 draft_probs、target_probs 或 draft_tokens：请在新张量里计算残差（不要对输入的某一行做原地的 -=、/= 或 clamp_）。",
            "n1_distribution": "输出 token 的分布与正确分布的总变差距离是 {tv:.2f}。",
            "n2_inputs_unchanged": "speculative_step 修改了 draft_probs、target_probs 或 draft_tokens：请在新张量里计算（不要对输入的某一行做原地的 -=、/= 或 clamp_）。",
            "n2_first_token": "草稿从 q 中采样时，第一个 token 与目标概率 p 的总变差距离是 {tv:.2f}。",
            "n2_tokens_per_step": "每一步平均返回 {mean:.2f} 个 token，期望值是 {want:.2f}。",
        },
    },
    "tiny_lm": {
        "lang": "zh",
        "crop": "无法把保存了 {length} 个位置的缓存裁剪到 {n} 个位置",
        "context": "{positions} 个位置超出了模型的上下文长度 {context}",
    },
    # spec_quiz is one helper for every assignment (grading/build/notebooks.py SHARED_HELPERS): its words too.
    "spec_quiz": _LEVEL23.HELPERS["spec_quiz"],
    "spec_widgets": {
            "lang": "zh",
            "fonts": ["Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans CJK TC"],
            "quiz": {
                "l24_pair_check": {
                    "question": "在这台 CPU 上，这个小目标模型一次调用带 5 个位置，只比带 1 个位置稍慢一点（上面的计时中约为 1.2 倍）。对这个模型来说，原因是什么？",
                    "options": [
                        "从内存读取权重占了大部分时间，和论文里的加速器上一样",
                        "一次调用的大部分时间是每次调用都有的固定开销（Python 和 PyTorch 为每个运算做准备），而不是计算本身",
                        "目标模型跳过了草稿位置",
                    ],
                    "why": [
                        "对这个模型不是这样：它的权重（float32 下 2.6 MB）读一遍远用不了 1 毫秒。内存带宽是加速器上大模型的原因；对这个小模型来说，原因是每次调用的固定开销。",
                        "正确：上面的计时正说明了这一点：一次调用的用时远不随位置数成比例增长，所以大部分时间是每次调用的开销（启动其中许多小运算）。无论是哪种原因，同一次调用里多带几个位置都几乎没有额外开销。",
                        "不对：目标模型会计算给它的每个位置，包括草稿位置：这正是投机解码要付出的额外计算（Leviathan 等（2023）的定理 3.11）。",
                    ],
                },
                "l24_guess": {
                    "question": "草稿模型提出了 token 1（p = 0.2，q = 0.5），掷硬币的结果是拒绝。这一步仍然必须输出一个 token。这个 token 应该从哪里采样？",
                    "options": [
                        "从 p，目标模型的那一行",
                        "从 q，草稿模型的那一行",
                        "从归一化后的残差分布 max(0, p - q)",
                    ],
                    "why": [
                        "不对：被接受的草稿已经给了每个 token min(p, q) 的概率。拒绝之后再从 p 采样，会在此之上再加 P(拒绝) · p，于是草稿模型给得偏多的那些 token，最终概率就超过了 p。",
                        "不对：q 正是刚才给 token 1 概率给得过多的那个分布。再从它采样，输出会偏向草稿模型，离目标模型更远。",
                        "正确：被接受的草稿已经给了每个 token min(p, q)；还缺的恰好是 p - min(p, q) = max(0, p - q)，而拒绝发生的概率正好等于它的总和。把它归一化后再采样，正好补齐缺口，输出的 token 就服从 p。",
                    ],
                },
                "l24_check": {
                    "question": "p = [0.5, 0.2, 0.2, 0.1]，q = [0.2, 0.5, 0.1, 0.2]。一个草稿 token 被拒绝的概率是多少？",
                    "options": ["0.4", "0.6", "0.3"],
                    "why": [
                        "正确：这两行的接受率 β = Σ min(p, q) = 0.2 + 0.2 + 0.1 + 0.1 = 0.6，所以 P(拒绝) = 1 - 0.6 = 0.4。它也等于 Σ max(0, p - q) = 0.3 + 0.1。",
                        "不对：0.6 是 β = Σ min(p, q)，即接受的概率。拒绝的概率是 1 - β = 0.4。",
                        "不对：0.3 只是 token 0 的 max(0, p - q)。P(拒绝) = Σ max(0, p - q) = 0.3 + 0.1 = 0.4。",
                    ],
                },
                "l24_bonus_guess": {
                    "question": "K = 3 个草稿全部被接受。target_probs 有 4 行（0..3）。额外（bonus）token 来自哪一行？",
                    "options": ["target_probs[2]，最后一个草稿位置", "target_probs[3]，第 K 行", "draft_probs[2]"],
                    "why": [
                        "不对：第 2 行是目标模型对位置 2（第三个草稿 token）的分布，而这个 token 已经被接受了。下一个 token 的分布在它的下一行。",
                        "正确：目标模型调用一次，就为 K + 1 个位置各算出一行；第 K 行是它对 K 个草稿之后那个 token 的分布。额外 token 是这次调用白送的。",
                        "不对：额外 token 来自目标模型。验证时从来不从草稿模型的行里采样。",
                    ],
                },
                "l24_speed_check": {
                    "question": "α = 0.8，草稿模型不花时间（c = 0），K 越大，加速比会怎样？",
                    "options": ["无限增长", "增长并趋近 1 / (1 - α) = 5", "K = 1 之后就下降"],
                    "why": [
                        "不对：第 K 个草稿只有在它和前面的草稿全部被接受时才算数，概率是 α^K。1 + α + α² + ... 这个和始终小于 1 / (1 - α)。",
                        "正确：K 增大时，(1 - α^(K+1)) / (1 - α) 趋近 1 / (1 - α) = 5。c > 0 时生成草稿要花时间，曲线上就会有一个最佳的 K。",
                        "不对：c = 0 时多提几个草稿不花任何代价，所以加速比从不下降，最终趋于 1 / (1 - α)。",
                    ],
                },
                "l24_some_k_helps": {
                    "question": "草稿被接受的概率 α = 0.25，草稿模型调用一次的代价是 c = 0.3 次目标模型调用。有没有哪个 K 能让投机解码比普通解码更快？",
                    "options": ["有：K 足够大就一定划算", "没有：α < c，这时任何 K 都超不过 1×", "有：K = 1，因为每一步至少输出一个 token"],
                    "why": [
                        "不对：每多一个草稿要多花 c = 0.3，平均却只多得 α^K 个 token，而且越往后越少。这里 K 越大，加速比越低。",
                        "正确：Leviathan 等（2023）的推论 3.9 证明：若 α > c，就有某个 K 能带来加速，K = 1 时至少是 (1 + α)/(1 + c)。反过来也成立：α ≤ c 时 1 + α + ... + α^K ≤ 1 + Kα ≤ 1 + Kc，所以加速比至多为 1。这里 K = 1 得到 1.25 / 1.3 = 0.96×。",
                        "不对：K = 1 时一步平均输出 1 + α = 1.25 个 token，但要花 1 + c = 1.3 次目标模型调用的时间：0.96×，比普通解码还慢。",
                    ],
                },
            },
            "table_head": ["token x", "p(x)", "q(x)", "接受：min(p, q)", "residual(x)", "P(拒绝) · residual(x)", "合计"],
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
                "gap": "差距最大的是 {seq}：它出现的比例是 {share}，目标链给它的概率是 {want}",
            },
            "first_emitted": "输出的第一个 token",
            "share_of_runs": "占 {n} 次运行的比例",
            "speedup_text": "K = {k}：每次目标模型调用得到 {tokens} 个 token，加速比 {speedup}×；最佳 K = {best}（{best_speedup}×）",
            "speedup_text_none": "K = {k}：每次目标模型调用得到 {tokens} 个 token，加速比 {speedup}×；这里没有哪个 K 比普通解码（1×）更快",
            "speedup_axis": "K（每步的草稿 token 数）；绿圈：最佳 K；红点：你选的 K",
            "headline": ["英译德，t = 0（贪心）：α = 0.75", "英译德，t = 1（采样）：α = 0.62"],
            "speedup_static": "在 JupyterLab 中运行这个单元格，才能拖动滑块。",
            "generation": [
                "α（目标模型检查过的位置上 β = Σ min(p, q) 的平均值）= {alpha}；计数得到的接受率 = {acceptance}",
                "每次目标模型调用得到的 token 数：计数为 {counted} ± {error}（标准误差，{steps} 步），公式 (1 - α^(K+1)) / (1 - α) 给出 {formula}",
                "没有计时：假设 c = {c}，按这些计数会得到 {counted}× 的加速比（按公式是 {formula}×）；而对这两个查表模型来说，c 约为 1",
            ],
            "alpha_axes": ["温度 T（两个模型相同）", "测得的 α", "一对真实模型：α 随 T 的变化",
                           "固定前缀（每个 T 都相同）", "目标模型在该 T 下自己生成的文本"],
            "forward_lines": [
                "每次调用带 {n} 个位置，共 {calls} 次：最快 {low} 毫秒，中位数 {median} 毫秒，最慢 {high} 毫秒",
                "带 {n} 个位置与带 {first} 个位置的调用逐次相比：用时的中位数是后者的 {ratio} 倍（最小 {low} 倍，最大 {high} 倍）",
            ],
            "greedy_lines": [
                "提示词 {prompt} 之后的贪心文本（{n} 个 token）：",
                "    其中最常见的字符 {char} 占 {share}",
                "在提示词 {prompt} 上计时。每次运行中，投机解码给出的 token 是否都与普通生成相同：{same}",
                "普通生成：{runs} 次运行，最快 {low} 毫秒，中位数 {median} 毫秒，最慢 {high} 毫秒",
                "投机解码：K = {k}，最快 {low} 毫秒，中位数 {median} 毫秒，最慢 {high} 毫秒",
                "每次运行的加速比：中位数 {median}×（最小 {low}×，最大 {high}×）；每次目标模型调用得到 {per_call} 个 token，检查过的 {checked} 个草稿中接受了 {accepted} 个（共提出 {drafted} 个）",
            ],
            "pair_report": [
                "T = {temperature}，普通生成和投机解码（K = {k}）轮流运行，各 {runs} 次，每次 {n} 个 token；下面一步中各部分的用时，都取所有运行中所有步的中位数（普通生成时，一个 token 算一步）：",
                "c = {c}：生成一个草稿 token 用时 {draft} 毫秒，除以一次只带 1 个位置的目标模型调用用时 {call} 毫秒（两者都在运行中计时）；α = {alpha}，是在目标模型于该 T 下自己生成的文本的 {positions} 个前缀上求的平均",
                "公式（定理 3.8）：每步 {tokens} 个 token，一步的代价为 K·c + 1 = {cost} 次目标模型调用：加速比 {speedup}×",
                "实测：每步 {tokens} 个 token；检查过的 {checked} 个草稿中接受了 {accepted} 个（{rate}）；另有 {unchecked} 个草稿排在拒绝之后，没有被检查",
                "一步用时 {step} 毫秒，相当于 {tokens} 个普通 token 的用时（一个普通 token 用时 {plain} 毫秒，其中目标模型调用 {call} 毫秒），分解如下：",
                "    提出 {k} 个草稿 token {draft} 毫秒；带 {positions} 个位置的调用 {call} 毫秒（是只带 1 个位置的调用的 {ratio} 倍）；其余部分（算出各行、speculative_step、裁剪、循环）{rest} 毫秒",
                "所以得到 {tokens} 个 token 花了 {cost} 个普通 token 的时间：加速 {explained}×；按整次运行实测（机器的每一次停顿都算在内）：中位数 {median}×（最小 {low}×，最大 {high}×）",
                "代价：每输出一个 token，目标模型要计算 {positions} 个位置（普通生成：1.00）",
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
                "formula_and_simulation": "α = {alpha:.2f}，K = {k}，每次目标模型调用得到的 token 数：逐项求和 1 + α + ... + α^K = {term_by_term:.4f}，闭式公式 {formula:.4f}，模拟 {simulation:.4f}",
            },
    },
}

# The diagnosis line: Level 24 is diagnosed by rules, each with its sentence in both languages in one table
# (grading/judge/rules.py SENTENCES), so this edition has no DIAGNOSES of its own.
