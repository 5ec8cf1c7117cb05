"""The zh-CN edition of Level 23 (nbgrader assignment level23_speculative_decoding_zh).

Everything here is text; the code is the English edition's (grading/build/notebooks.py writes the edition):

- CELLS: each lesson's markdown cells, by the l10n id in lessons/NN_name.py, as (the hash of the
  English cell this translates, the translation). When the English cell changes, the build stops
  and names the cell: translate the change, then put the new hash here.
- COMMENTS: the comments of the code cells, keyed by the English comment.
- HELPERS: the TEXT block of each helper module (spec_checks.py, spec_widgets.py), same ids.
- DIAGNOSIS, DIAGNOSES: the diagnosis line of the feedback, by catalogue answer (answers/).

Wording follows the original lesson page (草稿, 目标概率, 草稿概率, 接受, 拒绝, 前缀, 掷一次硬币 …);
code identifiers stay as they are.
"""

CELLS = {
    "01_accept_branch": {
        "title": ("65ed72c7", """
# Level 23 · 投机解码 · Mission 1：接受分支

一个小的**草稿**模型连续提出 `K` 个 token；一个大的**目标**模型一次性检查它们全部。本关讲的就是这次检查，
也就是*验证步骤*：哪些草稿 token 能留下来。在这个 notebook 里，你先写出它的前一半。

**本 notebook 共 16 分**：答案下方的可见测试 3 分，批改时运行的隐藏检查 13 分。

怎么做：从上到下运行每个单元格（用**运行 ▸ 运行所有单元格**即可），回答小测验，然后填写标有
`YOUR CODE HERE` 的单元格。提交之前，点工具栏里的 **Validate** 按钮：它会像批改程序一样运行整个 notebook。
"""),
        "guess-first": ("d22779d2", """
## 🎯 先猜一猜

先猜一个答案，再对照下面的讲解。可以随时修改选择，猜错会得到解释。
"""),
        "idea": ("b3c647ad", """
## 今天的核心

**先对齐当前位置：p 不小于 q 时，当前草稿必接受。**

对每个草稿位置 `i`，我们在两个模型里各看一个数：草稿在这里实际提出的那个 token 的概率。目标模型给出的是 `p`，
草稿模型给出的是 `q`。

这两个数从哪里来：在位置 `i`，每个模型用 softmax 把自己的 logits 变成整个词表上的概率分布。草稿模型从自己的这一行里
*采样*出它的 token，所以 `q` 是它提出这个 token 的概率，`p` 是目标模型给这个 token 的概率。（Chen 等（2023）
的记号正好相反：那里 `p` 是草稿，`q` 是目标。本课程沿用 Leviathan 等（2023）的记号。）
"""),
        "what-you-need": ("5d67c551", """
## 先补的知识

- `draft_probs` 和 `target_probs` 都是形状为 `[K, vocab_size]` 的浮点张量。**第 `i` 行**对应第 `i` 个草稿位置；
  **列 `token_id`** 对应该 token 的概率。
- `draft_tokens` 是 `K` 个草稿 token_id。在可见测试中它是 Python 列表 `[10, 20, 30, 40]`；token_id
  可直接作为张量列索引。
- `p` 和 `q` 通过 `[i, token_id].item()` 读取，`.item()` 把单元素张量转为 **Python float**。后续比较是普通的浮点数比较，
  不是张量广播。
- 接受概率是 `min(1, p/q)`。当 `p >= q` 时结果正好为 1，因此**不需要抽随机数**。

下面是可见测试的张量，你可以亲眼看看这些形状：
"""),
        "principle": ("5258f023", """
## 图解原理

验证时必须同时对齐“位置 `i`”和“该位置草稿选中的 `token_id`”。验证按位置顺序进行，在位置 `i`：

1. 取草稿 token：`token_id = draft_tokens[i]`；
2. 在两个张量的第 `i` 行读取**同一列**：`p = target_probs[i, token_id]`，`q = draft_probs[i, token_id]`；
3. 比较二者；当 `p >= q` 时，把 `token_id` 追加到 `accepted_tokens`。

我们只比较这个候选 token 在两个模型下的概率，不比较整行最大值。若目标模型给它的概率至少和草稿模型一样高，
说明草稿没有过度推荐它，可以直接接受。

不过，只有接受还不是全部。单靠接受规则，token `x` 被输出的概率是 `min(p, q)`，所以目标模型比草稿更喜欢的 token
（`p > q`）出现得会偏少。完整算法在拒绝之后做出补偿：从残差 `max(0, p - q)`（归一化后）中抽取一个修正 token。
两者合在一起，输出才精确服从目标模型；本关只实现“接受并停止”这一部分。

下图画的是可见测试的位置 0：两个矩阵的第 0 行都加了方框，第 10 列画成虚线，红色方格就是我们在每个矩阵里读取的那个数。
"""),
        "legend-intro": ("1c96b9f3", """
代码中会遇到的对象：
"""),
        "worked-example": ("7b11318d", """
**例题**。在位置 0，`p = 0.8`，`q = 0.5`。由于 `p >= q`，接受概率为 `min(1, 0.8/0.5) = 1`：追加 token 10，
不抽随机数。
"""),
        "pitfall": ("a49f83f6", """
## ⚠️ 不要比较错误位置

`target_probs[i].max()` 回答的是*“目标模型最喜欢谁”*。而这里要问的是另一件事：*“草稿 token 能否接受”*。在下图的位置 1，
目标模型最喜欢的是 token 7（✗ 处），但草稿提出的是 token 20，所以 `p` 要在第 20 列读取。
"""),
        "syntax-warm-up": ("b10a99a2", """
## 语法热身：逐项核验候选商品的两方评分

两位评审在两轮中给两件商品打分。第 `i` 轮审核的商品是 `chosen_items[i]`。当评审 A 的分数不低于评审 B 时，通过这件商品。
运行单元格，并手算核对结果。
"""),
        "from-warm-up": ("47b5cbc1", """
## 从语法例子迁移到 TODO 1

| 热身 | 在 `verify_draft` 中 |
|---|---|
| `i` | 草稿位置：选择概率矩阵的哪一**行** |
| `item_id` | `token_id`：选择该行中的哪一**列**（词表列） |
| `reviewer_a` | `target_probs`，取目标概率 `p` |
| `reviewer_b` | `draft_probs`，取草稿概率 `q` |
| `approved.append(item_id)` | `accepted_tokens.append(token_id)` |
"""),
        "check-yourself": ("bd4557ab", """
## ✅ 巩固一下
"""),
        "try-it": ("eded2e2a", """
## 学完这一段，试着做：手工核对位置 0

读取可见测试位置 0 的 `p` 和 `q`（第 0 行、第 10 列）。你应该看到 `p = 0.8`、`q = 0.5`，所以 token 10 被无条件接受。
把 `i` 改成 1 或 2，再运行一次。
"""),
        "todo-1": ("462ad1e7", """
## TODO 1：接受分支

完成下面的 `verify_draft`。循环和 `p`、`q` 的读取已经给出。你要写的部分：**当 `p >= q` 时，把 `token_id` 追加到
`accepted_tokens`，然后 `continue`**，不抽随机数。`continue` 跳到下一个位置；没有它，程序会继续执行到预先写好的 `break`，
在第一个被接受的 token 之后就停下。

目前，遇到 `p < q` 的位置，循环就会停止（预先写好的 `break`）。Mission 2 会把这个停止换成一次掷硬币。

如果测试报错：
- *位置 0 没有被接受*：检查比较方向是否写反（`p >= q` 才接受），以及读取的行和列；
- *token 20 出现了，但位置 1 的 p = 0.4 < q = 0.5*：只在 `p >= q` 时追加，并且要先比较、再追加；
- 第二个用例中*只返回了 [10]*：追加之后要 `continue` 到下一个位置；
- *停在位置 2，而那里 p == q*：`p >= q` 包含相等；
- *`accepted_tokens` 中出现错误 token*（不是草稿 token_id 的值）：检查追加的是不是 `token_id`，而不是 `i` 或 `p`；
- *调用了 torch.rand*：Mission 1 从不抽随机数。
"""),
        "visible-test": ("0440d696", """
## 可见测试

三个用例，`torch.rand` 被替换成一个记录每次调用的替身（一旦调用，测试失败）：

- 表格中的用例，`draft_tokens = [10, 20, 30, 40]`：位置 0 有 `p = 0.8 >= q = 0.5`，不抽随机数，直接接受；位置 1 有
  `p < q`，所以这个 Mission 1 版本在那里停止。期望：`[10]`。
- 第二个用例中位置 0、1、2 都有 `p >= q`（最后一个是 `p == q`），位置 3 有 `p < q`。期望：`[10, 20, 30]`。
- 第三个用例的三个位置（包括最后一个）都有 `p >= q`：每个 token 都要返回。期望：`[10, 20, 30]`。
"""),
        "hidden-checks": ("d99b79af", """
## 隐藏检查

首先是诊断：用一行文字指出你的函数犯了哪一种已知错误（如果能认出来）。它下面的单元格在这里看起来是空的；
批改你的 notebook 时，它们各检查一种行为（每项 1 分）：`p == q`；所有位置都接受；在第一个 `p < q` 处停止；
`q == 0`；空草稿；`draft_tokens` 为 `torch.LongTensor`；读取第 `i` 行；追加 token_id；从不调用 `torch.rand`；
不修改输入；返回普通列表；以及一个不同于可见用例的草稿。最后一个单元格把你的函数和规则放在一起，
在大约 250 个生成的草稿上运行，并给出二者结果不一致的最小一例。
"""),
    },
    "02_reject_and_break": {
        "title": ("25ddf646", """
# Level 23 · 投机解码 · Mission 2：拒绝并 break

在 Mission 1 中，每个 `p < q` 的位置都直接停止循环。这样会丢掉本该留下的 token：草稿模型虽然过于自信，这个 token 却仍可能是对的。
现在你来完成验证中“接受前缀”的部分，然后写出官方题目：`verify_draft`，它返回留下来的草稿 token。

它在完整算法中的位置（Leviathan 等（2023）的算法 1）：第一次拒绝之后，投机解码会从残差 `max(0, p - q)`
（归一化后）中抽取一个*修正* token；当 `K` 个草稿全部被接受时，它会从目标模型的下一行再抽取一个额外（bonus）token。
有了这两个 token，输出才精确服从目标模型，但它们不属于本关：这里你写的是它们之前的那段前缀。

**本 notebook 共 20 分**：答案下方的可见测试 3 分，批改时运行的隐藏检查 17 分。

从上到下运行单元格，玩一玩数轴，填写标有 `YOUR CODE HERE` 的单元格，提交前点 **Validate**。
"""),
        "guess-first": ("1332f7c5", """
## 🎯 先猜一猜
"""),
        "idea": ("5ba79a26", """
## 今天的核心

**p 小于 q 时掷一次硬币；一旦拒绝，后续草稿全部停止。**
"""),
        "what-you-need": ("d7abb638", """
## 先补的知识

- 只有 `p < q` 才进入随机分支。此时接受概率 `p/q` 严格位于 0 到 1 之间（`p > 0` 时）。
- `torch.rand(1)` 返回形状为 `[1]` 的张量，在 `[0, 1)` 上均匀分布；`.item()` 把它转为 Python float，便于与
  `p / q` 比较。
- 接受时继续循环，验证下一个草稿 token。
- 拒绝时必须 `break`，而不是 `continue`：后续每个草稿 token 都建立在包含当前 token 的前缀上。当前 token
  被拒绝后，这个条件上下文已经不成立。
"""),
        "principle": ("7f6d7d24", """
## 图解原理：数轴

当小模型比大模型更自信时（`p < q`），需要按 `p/q` 打折：这个 token 只以概率 `p/q` 被保留。从 `[0, 1)` 中均匀抽取 `r`：`r` 落在绿色的
接受区间 `[0, p/q)` 内就接受，否则拒绝。由于 `r` 是均匀的，它落在区间内的概率正好是 `p/q`。拒绝不仅影响当前 token，还切断整条草稿链，因为后面的 token
是基于这个未被接受的前缀生成的。

- **位置 1**：`p/q = 0.8`，`r = 0.5`。在区间内：追加 token 20 并继续。
- **位置 2**：`p/q ≈ 0.11`，`r = 0.9`。在区间外：拒绝并 `break`。位置 3 不再验证。

先点两个位置的按钮，再拖动滑块。`p >= q` 时会怎样？边界 `r = p/q` 本身属于哪一边？
"""),
        "number-line-answers": ("902481f6", """
<details><summary><b>答案</b>（先试试滑块）</summary>

- **当 `p >= q` 时**，`p/q` 至少为 1，所以接受概率 `min(1, p/q)` 是 1：绿色区间覆盖整个 `[0, 1)`，任何 `r`
  都会接受。这就是代码在那里根本不抽随机数的原因。
- **边界 `r = p/q`** 属于拒绝区：区间 `[0, p/q)` 左闭右开，不含 `p/q`，所以 `r == p/q` 时拒绝。写成代码就是严格的
  `r < p / q`。

</details>
"""),
        "three-steps": ("7bf73f81", """
## `p < q` 分支的三步

1. `r = torch.rand(1).item()`，只在这个分支抽随机数；
2. `if r < p / q:` 成功则追加当前的 `token_id`；
3. `else: break`，失败立即终止整个循环。

为什么用严格的 `<`？Leviathan 等（2023）只在 `r > p/q` 时拒绝，所以 `r = p/q` 时他们接受。由于 `torch.rand` 取值于
`[0, 1)`，两种规则的接受概率都是 `p/q`，所以两者都精确。本课程约定用严格比较，测试也按这个约定检查：这样即使 `r`
恰好是 `0.0`，`p == 0` 也会被拒绝。
"""),
        "test-contract": ("e814f179", """
## 测试契约

可见测试把 `torch.rand` 临时替换成一个替身：第一次调用返回 `0.5`，第二次返回 `0.9`。因此**随机调用的次数和顺序**
也是测试的一部分：位置 0 有 `p >= q`，不能提前消耗随机数。否则位置 1 拿到的是 `0.9` 而不是 `0.5`，就会被拒绝。

下面把可见测试按位置逐项回放，使用预设的随机数：
"""),
        "syntax-warm-up": ("e8257ff1", """
## 语法热身：按通过率逐关检查，失败立即停止

玩家按顺序闯关：某一关抽到的数低于这一关的通过率，就算通过；第一次失败，整轮就结束。运行单元格：它输出 `[0]`。
"""),
        "from-warm-up": ("30a2a9de", """
## 从语法例子迁移到 TODO 2

| 热身 | 在 `verify_draft` 中 |
|---|---|
| `rate` | `p / q`，本轮草稿 token 的接受概率 |
| `draw` | `r = torch.rand(1).item()` |
| `passed.append(level)` | `accepted_tokens.append(token_id)` |
| `break` | 拒绝当前 token 后停止验证后续草稿 |
| `passed` | `accepted_tokens`，保持前缀顺序 |
"""),
        "check-yourself": ("bd4557ab", """
## ✅ 巩固一下
"""),
        "try-it": ("c2227f2b", """
## 学完这一段，试着做：按可见测试走表

| 位置 | token | p | q | p/q | r | 结果 |
|---|---|---|---|---|---|---|
| 0 | 10 | 0.8 | 0.5 | ≥ 1 | 不抽 | 接受 |
| 1 | 20 | 0.4 | 0.5 | 0.8 | 0.5 | 接受，继续 |
| 2 | 30 | 0.1 | 0.9 | ≈ 0.11 | 0.9 | 拒绝，break |
| 3 | 40 | 0.6 | 0.3 | | 不会到达 | 不再验证 |

位置 0 必接受，位置 1 用 `r = 0.5` 接受，位置 2 用 `r = 0.9` 拒绝：结果严格等于 `[10, 20]`。位置 3 故意设为
`p >= q`：误用 `continue` 的代码会不抽第三个随机数就接受它，返回 `[10, 20, 40]`。

下面的单元格直接从张量里打印每个位置的数值。请先自己判断每个位置的结果（用哪个随机数、接受还是拒绝、在哪里停下），再对照上面的表格。
"""),
        "official-problem": ("ea54c52e", """
## 官方题目：`verify_draft`

写出整个函数。它有两个 TODO：

- **TODO 1**（来自 Mission 1）：当 `p >= q` 时，追加 `token_id` 并继续，不抽随机数；
- **TODO 2**：否则抽一次 `r = torch.rand(1).item()`；若 `r < p / q` 则追加 `token_id`，否则 `break`。

如果测试报错：
- *token 30 出现了*：检查比值（`p / q`，不是 `q / p`）和比较（`r < p / q`）；
- *token 30 被拒绝后 token 40 又出现了*：拒绝时你用了 `continue`，应该用 `break`；
- *位置 0 提前消耗了第一个随机数*：只在 `p < q` 处抽随机数；
- *位置 1 在 r = 0.5 时被拒绝*：检查比较符号是否写反，以及是否读取了第 `i` 行；
- *只有 1 次抽取*：位置 2（`p < q`）也必须验证，用它自己的随机数。
- *用 random.random 抽取了 r*（或 numpy、`uniform_`）：测试把预设的抽取值交给 `torch.rand`，
  所以请用 `r = torch.rand(1).item()` 抽取；其他检查会把同样的值交给那个生成器，所以这个错误只扣一次分。
"""),
        "visible-test": ("7cc57f26", """
## 可见测试

表格中的用例，`torch.rand` 被替换成依次返回 `0.5`、`0.9` 的替身。结果必须严格等于 `[10, 20]`，并且恰好抽取两次。
第二个用例的三个位置（token 10、20、30）都有 `p >= q`：三个 token 都要返回，而且不抽随机数。
"""),
        "replay-yours": ("8599c78e", """
## 回放你自己的函数

还是同样的回放，这次用预设的随机数运行**你自己的** `verify_draft`：每个随机数被哪个位置用掉、哪里与期望不同，一目了然。
调试随机数的顺序，这是最快的办法。
"""),
        "mean-length": ("2a35cb63", r"""
## 一步能保留多少个 token？

位置 `i` 只有在它之前（含它自己）的每个位置都被接受时才会留下，而位置 `j` 被接受的概率是 `min(1, p_j/q_j)`。
所以被接受 token 数的期望是

$$E[\text{接受数}] = \sum_{i} \prod_{j \le i} \min(1, p_j/q_j).$$

对可见用例，它等于 `1 + 0.8 + 0.8·0.11 + 0.8·0.11·1 ≈ 1.98`。有一项隐藏检查会用真实的 `torch.rand` 多次运行你的函数，
并把平均值和这个数比较。你可以自己检查：下面的单元格用真实的 `torch.rand` 运行你的 `verify_draft` 2,000 次
（如果它一直不返回，几秒后会被停止）。
"""),
        "hidden-checks": ("c4a38fba", """
## 隐藏检查

首先是诊断：用一行文字指出你的函数犯了哪一种已知错误（如果能认出来）。它下面的单元格在这里看起来是空的；
批改你的 notebook 时，它们各检查一种行为（每项 1 分）：每个 `p < q` 位置抽一次、按位置顺序；在第 `i` 行的
`token_id` 列读取；拒绝之后不再抽取；每次只抽一个值；`r == p/q` 时拒绝；`p == 0` 时拒绝；用 `break` 而不是
`continue`；掷硬币成功就追加；全部接受的草稿；`q == 0`；空草稿；`torch.LongTensor` 形式的 token；
不修改输入；一个不同于可见用例的草稿；以及在固定种子下用真实的 `torch.rand` 检查接受率和平均接受长度。
最后一个单元格把你的函数和规则放在一起，在大约 250 个生成的草稿上运行，并给出二者结果不一致的最小一例。
"""),
    },
}

COMMENTS = {
    "the picture's tensors": "图中用的张量",
    "round 0: 0.8 < 0.9, no; round 1: 0.7 >= 0.6, approve item 0": "第 0 轮：0.8 < 0.9，不通过；第 1 轮：0.7 >= 0.6，通过商品 0",
    "works for a list or a torch.LongTensor": "列表和 torch.LongTensor 都适用",
    "TODO 1: accept when p >= q (no random number), then go on to the next position.":
        "TODO 1：p >= q 时接受（不抽随机数），然后继续下一个位置。",
    "p < q: Mission 2 replaces this stop with a coin flip.": "p < q：Mission 2 会把这里的停止换成一次掷硬币。",
    "When your notebook is graded, the grader writes here, in one line, which known mistake your":
        "批改你的 notebook 时，批改程序会在这里用一行写出：你的 verify_draft",
    'verify_draft behaves like (or "none").': "的行为像哪一种已知错误（或者没有发现错误）。",
    "Hidden check: p == q is accepted, and p just below q (0.4995 against 0.5) is not.":
        "隐藏检查：p == q 时接受；p 略小于 q（0.4995 对 0.5）时不接受。",
    "Hidden check: every position has p >= q, so every token comes back.": "隐藏检查：每个位置都有 p >= q，所以每个 token 都返回。",
    "Hidden check: the loop stops at the first position with p < q.": "隐藏检查：循环在第一个 p < q 的位置停止。",
    "Hidden check: q == 0 (with p > 0) is accepted and raises nothing.": "隐藏检查：q == 0（且 p > 0）时接受，不抛出异常。",
    "Hidden check: an empty draft returns [].": "隐藏检查：空草稿返回 []。",
    "Hidden check: draft_tokens as a torch.LongTensor gives what the same ids as a list give.":
        "隐藏检查：draft_tokens 是 torch.LongTensor 时，结果与同样的 id 以列表给出时相同。",
    "Hidden check: draft_tokens as a torch.LongTensor gives what the same ids as a list give, and the result is a "
    "plain list of Python ints.":
        "隐藏检查：draft_tokens 是 torch.LongTensor 时，结果与同样的 id 以列表给出时相同，而且返回的是由 Python int "
        "组成的普通列表。",
    "Hidden check: position i reads row i, at column token_id.": "隐藏检查：位置 i 读取第 i 行的 token_id 列。",
    "A last position (p < q) after the ones this check decides, which it does not compare: a loop that stops one position early is the loop checks' to find.":
        "最后加一个 p < q 的位置，在这项检查要判断的位置之后，不参与比较：循环提前一个位置结束的问题，留给检查循环的那几项去发现。",
    "The draws reject at position 3; position 4 (p >= q) is past the end of a right answer's loop.":
        "预设的随机数在位置 3 拒绝；位置 4（p >= q）在正确答案的循环结束之后。",
    "Each other row holds, at these tokens' columns, values with p >= q too: a row misread is the rows check's to find.":
        "其他各行在这些 token 的列上也都是 p >= q 的值：读错行的问题留给“读取行”的那项检查去发现。",
    "Two drafts with the same p and q at each position's own row and column, other values elsewhere: the same positions are kept in both.":
        "两份草稿在每个位置自己的行和列上 p、q 都相同，其他地方的值不同：两份草稿保留的位置相同。",
    "Token 12 is accepted outright at position 0; at position 1 (p < q in row 1, not in row 0; the row's largest "
    "value is elsewhere) it is not kept without a draw.":
        "位置 0 的 token 12 直接被接受；到了位置 1（第 1 行里 p < q，第 0 行里不是；该行的最大值在别的列），"
        "不抽随机数就不能保留它。",
    "Hidden check: accepted_tokens holds token ids (not probabilities, not positions), a token drafted twice kept twice.":
        "隐藏检查：accepted_tokens 里是 token id（不是概率，也不是位置）；同一个 token 被提出两次，就保留两次。",
    "Hidden check: Mission 1 never calls torch.rand.": "隐藏检查：Mission 1 从不调用 torch.rand。",
    "Hidden check: on about 250 generated drafts, verify_draft does what the rule does: the same tokens, "
    "the same number of draws. The drafts have 0 to 5 positions over 2 to 6 token ids: ties, p == 0, q == 0, each "
    "followed by other positions, tokens drafted twice, lists and tensors, draws at the boundaries. A failure shows "
    "the smallest draft where they part, position by position.":
        "隐藏检查：在大约 250 个生成的草稿上，verify_draft 的做法与规则相同：返回的 token 相同，抽取次数也相同。"
        "这些草稿有 0 到 5 个位置，词表只有 2 到 6 个 token id，包括 p == q、p == 0、q == 0（后面都还跟着别的位置）、"
        "同一个 token 被提出两次、列表和张量两种形式，以及落在边界上的随机数。未通过时，会给出二者结果不一致的最小草稿，"
        "并逐个位置走一遍。",
    "Hidden check: the input tensors and the token list are left unchanged.": "隐藏检查：输入张量和 token 列表保持不变。",
    "Hidden check: the result is a plain Python list of ints, also when draft_tokens is a torch.LongTensor.":
        "隐藏检查：结果是由 int 组成的普通 Python 列表，draft_tokens 是 torch.LongTensor 时也一样。",
    "Hidden check: nothing depends on the visible draft's ids: renamed, they give the same result, renamed.":
        "隐藏检查：结果不依赖可见用例的 token_id：把这些 id 换成别的，得到的是同样的结果，只是 id 随之换过。",
    "[0]: level 1 fails (0.7 >= 0.2), so level 2 is never tried": "[0]：第 1 关失败（0.7 >= 0.2），所以第 2 关不会尝试",
    "TODO 1: when p >= q, accept token_id without a random draw, and go on.":
        "TODO 1：p >= q 时接受 token_id，不抽随机数，然后继续。",
    "TODO 2: here p < q. Draw r once; accept if r < p / q, otherwise stop the loop.":
        "TODO 2：这里 p < q。抽一次 r；若 r < p / q 则接受，否则停止循环。",
    "Hidden check: one draw per p < q position, in position order; none for p >= q (p == q included).":
        "隐藏检查：每个 p < q 的位置抽一次，按位置顺序；p >= q（包括 p == q）时不抽。",
    "Hidden check: nothing is drawn after the function's own first rejection (the first drafted token it leaves out).":
        "隐藏检查：函数自己第一次拒绝之后（即结果中第一个缺少的草稿 token 之后）不再抽随机数。",
    "Hidden check: each draw asks for a single value.": "隐藏检查：每次抽取只要一个值。",
    "Hidden check: r == p/q rejects (the comparison is strict).": "隐藏检查：r == p/q 时拒绝（严格比较）。",
    "Hidden check: p == 0 rejects, even when r is 0.": "隐藏检查：p == 0 时拒绝，即使 r 为 0。",
    "Hidden check: a rejection stops the loop (break, not continue): no token after the function's own first rejection comes back.":
        "隐藏检查：拒绝会停止循环（break，不是 continue）：函数自己第一次拒绝之后的 token 不会再出现在结果中。",
    "Hidden check: a successful coin flip appends the drafted token id (token 7 is the target's most likely here).":
        "隐藏检查：掷硬币成功时追加草稿 token 的 id（此处目标模型概率最高的是 token 7）。",
    "Hidden check: a draft whose every position has p >= q comes back whole, a token drafted twice kept twice, and p just "
    "below q (0.4995 against 0.5) is not accepted outright: it costs a draw.":
        "隐藏检查：每个位置都满足 p >= q 的草稿完整返回（同一个 token 被提出两次，就保留两次）；p 略小于 q（0.4995 与 0.5）时不能直接接受，要抽一次随机数。",
    "Hidden check: with the real torch.rand (fixed seed), a p < q position is accepted about p/q of the time.":
        "隐藏检查：用真实的 torch.rand（固定种子），p < q 的位置被接受的比例约为 p/q。",
    "Hidden check: with the real torch.rand (fixed seed), the mean accepted length matches its exact expectation.":
        "隐藏检查：用真实的 torch.rand（固定种子），平均接受长度与精确期望一致。",
}

# The texts the code cells print or show, by the English string literal (its text between the quotes);
# grading/build/notebooks.py replaces the literal's text and nothing else, so both editions run the same code.
STRINGS = {
    "target_probs[0, 10] is a": "target_probs[0, 10] 的类型是",
    "; .item() turns it into a": "→ .item() 之后是",
    " <- token 7: not the question": " <- token 7：目标模型最喜欢的 token，与本题无关",
    " <- p for the drafted token 20": " <- p：草稿 token 20 的目标概率",
    " <- q: p < q, so not accepted for sure": " <- q：p < q，所以不能直接接受",
    "row {i}, column {token_id}: p = {p:.1f}, q = {q:.1f}, p >= q: {p >= q}":
        "第 {i} 行、第 {token_id} 列：p = {p:.1f}，q = {q:.1f}，p >= q：{p >= q}",
    "Return the accepted prefix of draft_tokens, as a list of token ids (Mission 1 form).":
        "返回 draft_tokens 中被接受的前缀：由 token_id 组成的列表（Mission 1 版本）。",
    "Return the accepted prefix of draft_tokens, as a list of token ids.":
        "返回 draft_tokens 中被接受的前缀：由 token_id 组成的列表。",
    " shape": " 形状",
    "position {i}: token {token_id}, p = {p:.2f}, q = {q:.2f}, p/q = {p / q:.2f}":
        "位置 {i}：token {token_id}，p = {p:.2f}，q = {q:.2f}，p/q = {p / q:.2f}",
    "the scripted draws, in the order they are used: ": "预设的随机数，按使用顺序：",
    "average accepted: {mean_length:.2f}   expected: {spec_checks.expected_length(case):.2f}":
        "平均接受数：{mean_length:.2f}   期望：{spec_checks.expected_length(case):.2f}",
}

# The terms and the words kept in Latin letters of every Chinese edition: lessons/i18n/glossary_zh.py.

# The grader's own messages in this edition (grading/judge/grader_text.py holds the English and the ids).
GRADER = {
    "not_defined": "{name} 还没有定义：请先运行定义它的单元格",
    "not_checked": "未检查：{why}",
    "not_run": "未运行：之前的单元格中，{why}",
    "not_answering": "内核不再响应",
    "kernel_stopped": "Python 内核已停止",
    "check_could_not_run": "{why}，所以这项检查无法运行",
    "no_valid_answer": "内核没有返回有效的答复",
    "kernel_sent": "内核返回了无法读取的答复（{error}）",
    "kernel_died": "Python 内核已停止（os._exit、程序崩溃或内存不足）",
    "while_running": "运行这个单元格时，{why}",
    "ran_longer": "这个单元格运行超过了 {seconds} 秒",
    "while_cell_ran": "这个单元格运行时，{why}",
    "ignored_interrupt": "{ran}；中断后过了 {grace} 秒它仍未停止，因此内核被停止了",
    "budget_interrupted": "这个单元格运行时，{why}，所以它被中断了",
    "timeout_interrupted": "这个单元格运行超过了 {seconds} 秒，已被中断",
    "notebook_budget": "这个 notebook 的批改时限（{seconds:g} 秒）已用完",
    "student_budget": "这名学生这份作业的批改时限（{seconds:g} 秒，所有 notebook 合计）已用完",
    "notebook_cut": "**批改程序在显示前截断了这个 notebook**：{what}。",
    "cut_joiner": "；",
    "cut_cells": "{total:,} 个单元格中的 {count:,} 个（最多显示 {most:,} 个）",
    "cut_long_cells": "超过 {chars:,} 个字符的单元格的中间部分（{count:,} 个单元格）",
    "cut_short_cells": "notebook 前 {chars:,} 个字符之后的单元格只保留开头 {short:,} 个字符（{count:,} 个单元格）",
    "cut_attachments": "{count:,} 个附件（最多保留 {most} 个，每个不超过 {chars:,} 个字符，合计不超过 {total:,} 个字符）",
    "cut_in_cell": "批改程序截去了这个单元格的 {count:,} 个字符",
    "cut_rest_of_cell": "批改程序截去了这个单元格的其余部分",
    "arrived_chars_cut": "批改程序在接收时截去了这个输出的 {count:,} 个字符",
    "arrived_output_cut": "一个约 {size:,} 个字符的输出，批改程序在接收时截去了它",
    "arrived_dropped": "批改程序在接收时丢弃了这个单元格的另外 {count:,} 条输出消息（约 {chars:,} 个字符）：一个单元格的输出最多保留 "
                       "{cell:,} 个字符，一个 notebook 的输出最多保留 {notebook:,} 个字符",
    "output_chars_cut": "批改程序截去了 {count:,} 个字符",
    "output_too_large": "一个过大的输出，批改程序没有保留它",
    "output_rest_cut": "批改程序截去了这个 notebook 其余的输出",
    "outputs_cut": "批改程序截去了另外 {count:,} 个输出",
    "page_cut": "**批改程序截断了这个反馈页面**：{why}。下面仍列出你的得分和各项检查，但不显示你自己的单元格。",
    "page_cut_alone": "**批改程序截断了这个反馈页面**：{why}。你的得分已记入成绩册，请向老师询问。",
    "page_time": "显示你的 notebook 超过了 {seconds:g} 秒",
    "page_student_time": "你这份作业的反馈页面已经用了 {seconds:g} 秒",
    "page_memory": "显示你的 notebook 需要超过 {mb:,} MB 内存",
    "page_failed": "显示你的 notebook 时出错",
}

# What the student finds where a solution was (nbgrader's ClearSolutions.code_stub, in this edition).
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError(\"请写这个 TODO：把这两行换成你的代码\")"

# What the feedback says above a failed hidden check's message (grading/plugins/preprocessors.py).
CHECK_FAILED = "检查未通过。"

HELPERS = {
    "spec_checks": {
        "lang": "zh",
        "problem": {
            "rebound": "你的代码替换了 Python 内置函数（{names}）：请删掉这部分",
            "rand_replaced": "你的代码替换了 torch.rand：请用 torch.rand(1).item() 抽取，不要改动 torch.rand 本身",
            "not_written": "NotImplementedError：verify_draft 还没有写；把 raise 那一行换成你的代码",
            "raised": "verify_draft 抛出了 {error}",
            "raised_at": "verify_draft 抛出了 {error}，出错的是你的 verify_draft 单元格第 {line} 行：{code}",
            "raised_line": "verify_draft 抛出了 {error}，出错的是你的 verify_draft 单元格第 {line} 行",
            "not_ids": "verify_draft 返回的列表里有不是 token_id（int）的东西：{result}；请追加 token_id",
            "not_list": "verify_draft 应当返回由 token_id 组成的普通 Python 列表，但它返回了 {type}：{result}",
            "not_list_short": "verify_draft 应当返回由 token_id 组成的普通 Python 列表",
            "too_long": "verify_draft 运行超过了 {seconds:g} 秒：是不是有死循环？",
        },
        "hidden": {
            "raised": "{function} 抛出了 {error}（隐藏检查不显示它的消息）",
            "not_ids": "verify_draft 返回的列表里有不是 token_id（int）的东西；请追加 token_id",
            "not_list": "verify_draft 应当返回由 token_id 组成的普通 Python 列表，但它返回了 {type}",
            "value": "[隐藏]",
        },
        "visible": {
            "drew": "{rand} 被调用了 {calls} 次，但 Mission 1 从不抽随机数：p >= q 时直接接受。",
            "not_token_ids": "结果 {tokens} 中有不是草稿 token_id 的值：请追加 token_id（不是位置 i，也不是 p）。",
            "first_not_accepted": "得到 {tokens}：位置 0（p = 0.8 >= q = 0.5）没有被接受。p >= q 时追加 token_id，"
                                  "p 和 q 在 [i, token_id] 读取。",
            "accepted_p_below_q": "得到 {tokens}：token 20 出现了，但位置 1 的 p = 0.4 < q = 0.5，Mission 1 在这里停止"
                                  "（预先写好的 break），只保留之前接受的 token。",
            "stopped_after_accept": "第二个用例：位置 0、1、2 都有 p >= q（在 [i, token_id] 读取：0.8 >= 0.5、0.6 >= 0.3、"
                                    "0.5 >= 0.5），三个都应接受，你却只返回了 {tokens}。",
            "stopped_at_equal": "第二个用例：你返回了 {tokens}，停在了位置 2，而那里 p == q = 0.5。p >= q 包含相等，"
                                "所以 token 30 在那里应当被接受。",
            "kept_after_stop": "得到 {tokens}：token 40 出现了，但 Mission 1 在位置 1（p = 0.4 < q = 0.5）停止，"
                               "之后的 token 都不保留。",
            "m1_other": "第一个用例期望 [10]，第二个用例期望 [10, 20, 30]；得到 {tokens}。",
            "accepted_all": "得到 {tokens}：token 30 出现了，但位置 2 的 p/q = 0.1/0.9 = 0.11，那里抽到的 r = 0.9："
                            "r < p/q 不成立，所以 token 30 应当被拒绝，循环应在这里停止。",
            "never_drew": "在这个用例上 torch.rand 一次也没有被调用，而位置 1 和 2 都是 p < q（0.4 < 0.5、0.1 < 0.9）："
                          "这两个位置各要抽取一次 r = torch.rand(1).item()。",
            "continued": "得到 {tokens}：token 30 被拒绝后 token 40 又出现了（token 30 处 r = 0.9 >= p/q = 0.11）。"
                         "一旦拒绝，之后的 token 都不再保留：循环在那里停止。",
            "coin_p_ge_q": "在每个位置都满足 p >= q 的草稿上（token 10、20、30），torch.rand 被调用了 {calls} 次。"
                           "测试按位置顺序，为每个 p < q 的位置准备一个预设值，交给那里的一次 torch.rand(1) 调用："
                           "p >= q 的位置直接接受，不抽随机数（p 和 q 要在 [i, token_id] 处读取）。",
            "position1_rejected": "得到 {tokens}，只抽取了一次：位置 1 在 r = 0.5 时被拒绝，但 r = 0.5 < p/q = 0.4/0.5 = 0.8，"
                                  "token 20 本应在那里被接受。",
            "draws": "得到 [10, 20]，抽取了 {calls} 次；期望恰好 2 次，在位置 1 和 2（p < q）。",
            "no_torch_draws": "得到 [10, 20]，但没有一次抽取是测试能够预设的。测试为 torch.rand 安排了固定的随机数："
                              "请用 r = torch.rand(1).item() 抽取（不要用 numpy 的 default_rng、torch.bernoulli 或其他采样方法）。",
            "foreign": "你的函数用 {others} 抽取了 r。测试把预设的抽取值（先 0.5，再 0.9）交给 torch.rand，"
                       "隐藏检查也是这样：请像课程里那样用 r = torch.rand(1).item() 抽取。",
            "shapes": "你向 torch.rand 要的形状是 {shapes}。测试按位置顺序，为每个 p < q 的位置准备一个预设值，"
                      "交给那里的一次 torch.rand(1) 调用：每次只抽一个值，r = torch.rand(1).item()，放在 p < q 的分支里。",
            "m2_other": "期望严格等于 [10, 20]，得到 {tokens}。",
            "accept_all_case": "在每个位置都满足 p >= q 的用例上（token 10、20、30），三个 token 都应返回，"
                               "你却返回了 {tokens}。要遍历每个位置，包括最后一个。",
        },
        "say": {
            "m1_passed": "可见测试通过：[10] 和 [10, 20, 30]，没有抽随机数。",
            "m2_passed": "可见测试通过：[10, 20]，抽取了 2 次。",
        },
        "fact": {
            "returned": "{function} 返回了 {got}；正确答案在这里返回 {expected}",
            "draw_count": "{function} 在这里调用了 {calls} 次 {rand}；正确答案调用 {expected} 次 torch.rand",
            "draws_all_kept": "{function} 保留了每个草稿 token，调用了 {calls} 次 {rand}；这份草稿有 {want} 个 p < q "
                              "的位置，每个抽一次（p >= q 时，包括 p == q，不抽）",
            "draws_to_reject": "{function} 返回了 {got}，没有保留 token {token}（位置 {i}），调用了 {calls} 次 {rand}；"
                               "到这个位置为止（含该位置）有 {want} 个 p < q 的位置，每个抽一次（p >= q 时，包括 p == q，不抽）",
            "kept_first": "{function} 返回了 {got}；正确答案在这里以 {expected} 开头（这些位置在各自的行和列上都有 p >= q）",
            "outright": "{function} 没有调用 torch.rand 就返回了 {got}：它保留了位置 {i} 的 token {token}，而那里 "
                        "p = {p} < q = {q}（第 {i} 行、第 {token} 列）；正确答案要先在那里抽取 r",
            "after_reject": "{function} 返回了 {got}：token {rejected}（位置 {i}）没有出现在结果中，也就是被拒绝了，"
                            "它后面的 token {token} 却又出现了",
            "draws_after_reject": "{function} 拒绝了 token {rejected}（位置 {i}，没有出现在结果中），却调用了 {calls} 次 "
                                  "{rand}；到这次拒绝为止只有 {allowed} 个 p < q 的位置",
            "shapes": "{function} 向 {rand} 要的形状是 {shapes}；每次抽取是 torch.rand(1)，只要一个值",
            "foreign": "{function} 用 {others} 而不是 torch.rand 抽取了 {calls} 个值；检查预设的是 torch.rand(1) 的值，"
                       "所以请用 r = torch.rand(1).item() 抽取（其他检查把同样的值交给了 {others}，"
                       "因此按你函数其余部分的原样来判断）",
            "not_plain": "{function} 返回的是 {type}，不是由 int 组成的普通 Python 列表",
            "items_not_int": "{function} 返回的列表里，并非每一项都是 Python int",
            "not_ids": "{function} 返回了 {got}，其中有的值不是这份草稿的 token_id {ids}；正确答案在这里返回 {expected}",
            "unreadable": "{function} 返回的 {count} 项都不是 token_id",
            "items": "{count} 个不是 token_id 的值",
            "tensor_raised": "draft_tokens 是 torch.LongTensor 时，{function} 抛出了 {error}；同样的 id 以列表给出时，"
                             "它没有抛出异常",
            "tensor_differs": "draft_tokens 是 torch.LongTensor 时，{function} 抽取 {calls} 次后返回了 {got}；"
                              "同样的 id 以列表给出时，它抽取 {other_calls} 次后返回了 {other}",
            "relabelled": "把可见用例的 token_id 换成 {ids} 后，{function} 抽取 {calls} 次后返回了 {got}，换回原来的 id "
                          "就是 {back}；但在可见用例本身上，它抽取 {other_calls} 次后返回了 {other}",
            "twin": "{function} 在草稿 {ids} 上返回了 {got}；在另一份草稿 {twin_ids} 上返回了 {twin}。两份草稿在每个位置"
                    "自己的行和列上 p、q 都相同（其他行、列的值不同）；如果在第 i 行的 token_id 列读取 p 和 q，"
                    "它在那里应返回 {expected}",
            "inputs": "{function} 修改了 draft_probs、target_probs 或 draft_tokens；它只应读取它们",
            "rate": "用真实的 torch.rand 运行 {trials} 次，p/q = {want:.2f} 的位置被接受的比例是 {rate:.1%}；"
                    "正确答案约为 {want:.0%}",
            "mean": "用真实的 torch.rand 运行 {trials} 次，平均接受了 {mean:.2f} 个 token；精确期望是 {want:.2f}",
            "rate_hidden": "用真实的 torch.rand 运行 {trials} 次，p/q = {want:.2f} 的位置被接受的比例与 {want:.0%} "
                           "相差超过 {tol:.0%}（隐藏检查不显示这个比例本身）",
            "mean_hidden": "用真实的 torch.rand 运行 {trials} 次，平均接受的 token 数与精确期望 {want:.2f} 相差超过 "
                           "{tol:.2f}（隐藏检查不显示这个平均数本身）",
            "end": "。",
            "sep": "；",
        },
    },
    "spec_quiz": {
        "lang": "zh",
        "pick": "选一个答案：可以随时修改。",
        "quiz_static": "在 JupyterLab 中运行这个单元格，才能作答并看到解释。",
        "correct": "✔",
        "wrong": "✘",
    },
    "spec_widgets": {
        "lang": "zh",
        "fonts": ["Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans CJK TC"],
        "quiz": {
            "m1_guess": {
                "question": "位置 0 的草稿 token 是 10，目标概率 p = 0.8，草稿概率 q = 0.5。TODO 1 应执行什么？",
                "options": [
                    "直接把 10 追加到 accepted_tokens",
                    "先调用 torch.rand 再决定",
                    "立刻 break",
                ],
                "why": [
                    "正确：p >= q，所以接受概率 min(1, p/q) 为 1。token 10 被接受，不消耗随机数。",
                    "不对：只有接受概率小于 1 时抽随机数才有意义。这里 min(1, 0.8/0.5) = 1，抽取只会浪费一个随机数"
                    "（而且测试会数随机数的调用次数）。直接追加 10。",
                    "不对：break 表示“拒绝并停止”，但这里什么也没有被拒绝。目标模型给 token 10 的概率（0.8）比草稿（0.5）"
                    "更高，所以它被接受：追加 10。",
                ],
            },
            "m1_check": {
                "question": "为什么读取概率要写 [i, token_id]？",
                "options": [
                    "为了把 [K, V] 转置",
                    "为了一次取出整张词表",
                    "既对齐草稿位置，又对齐该位置实际采样的 token",
                ],
                "why": [
                    "不对：索引从不转置。[i, token_id] 只取一个数：第 i 行（位置），第 token_id 列（草稿 token）。"
                    "对齐才是关键。",
                    "不对：只写 [i] 才会取出整行（整张词表）。加上 token_id，取出的是草稿实际选中的那个 token 的概率。",
                    "正确：第 i 行是草稿位置，第 token_id 列是该位置草稿选中的 token，所以 p 和 q 是两个模型在同一位置、"
                    "对同一 token 给出的概率。",
                ],
            },
            "m2_guess": {
                "question": "前两项（位置 0、1）已接受；第三项（位置 2，token 30）p = 0.1、q = 0.9、r = 0.9。函数最终应做什么？",
                "options": [
                    "拒绝第三项并停止，返回前两个 token",
                    "跳过第三项后继续验证第四项",
                    "仍接受第三项，因为 r 大",
                ],
                "why": [
                    "正确：p/q = 0.1/0.9 约为 0.11，r = 0.9 不小于它，所以第三项被拒绝，循环 break。结果是 [10, 20]。",
                    "不对：那是 continue 的做法。token 40 是在 token 30 之后生成的；30 被拒绝，40 的上下文就不存在了。"
                    "拒绝第三项并停止：[10, 20]。",
                    "不对：只有 r < p/q 时才接受。r 大就落在 [0, 0.11) 之外，所以拒绝。第三项被拒绝，循环停止：[10, 20]。",
                ],
            },
            "m2_check": {
                "question": "为什么拒绝分支是 break 而不是 continue？",
                "options": [
                    "后续草稿依赖当前 token 已接受的前缀，拒绝后条件上下文改变",
                    "因为 Python 列表不能继续循环",
                    "因为 continue 会删除 target_probs",
                ],
                "why": [
                    "正确：草稿模型是在前面 token 的基础上写出每个 token 的。拒绝一个，后面每个草稿 token 依赖的前缀就不存在了。",
                    "不对：Python 可以在列表上正常循环。原因在模型：后续草稿建立在包含被拒绝 token 的前缀之上。",
                    "不对：continue 只是跳到下一次循环，不会删除任何东西。原因是后续草稿依赖于被拒绝的 token 在前缀中。",
                ],
            },
        },
        "principle_accept": "p = {p:.2f} >= q = {q:.2f}：接受概率为 1，追加 {token_id}（不抽随机数）",
        "principle_reject": "p = {p:.2f} < q = {q:.2f}：不能直接接受；Mission 2 会在这里掷硬币",
        "xlabel": "列 = token_id（词表）",
        "ylabel": "行 = 草稿位置 i",
        "colorbar": "概率",
        "row_maximum": "整行最大值",
        "max_is_drafted": "这里 target_probs[i].max() 恰好就是草稿 token",
        "max_elsewhere": "x = target_probs[{i}].max() 在第 {column} 列：目标模型最喜欢的 token，与本题无关",
        "principle_title": "位置 i = {i}，draft_tokens[{i}] = {token_id}。{verdict}\n{note}",
        "legend_head": ["对象", "含义"],
        "legend": [
            ["draft_probs", "[K, V] 浮点张量：草稿模型分布，第 i 行对应位置 i"],
            ["target_probs", "[K, V] 浮点张量：目标模型分布，排列相同"],
            ["draft_tokens", "长度为 K 的 token_id 序列（可见测试中是 Python 列表）"],
            ["p, q", "当前 i、当前 token_id 对应的 Python float：target_probs[i, token_id].item() 和 "
                     "draft_probs[i, token_id].item()"],
            ["accepted_tokens", "你返回的 Python 列表：按草稿原顺序追加的已接受 token_id"],
        ],
        "no_draw_needed": "p >= q：接受，不需要随机数（接受概率为 1）",
        "line_accept": "r = {r:.2f} < p/q = {ratio:.2f}：接受并继续",
        "line_reject": "r = {r:.2f} >= p/q = {ratio:.2f}：拒绝并停止（break）",
        "preset_1": "位置 1：p/q = 0.8，r = 0.5",
        "preset_2": "位置 2：p/q ≈ 0.11，r = 0.9",
        "line_static": "在 JupyterLab 中运行这个单元格，才能拖动滑块。",
        "replay_head": ["位置", "token", "p", "q", "p/q", "r", "结果"],
        "no_draw": "不抽",
        "none_left": "已用完",
        "accept": "接受",
        "accept_continue": "接受，继续",
        "reject_break": "拒绝，break",
        "never_verified": "不再验证",
        "trace_raised": "verify_draft 抛出了 {error}",
        "trace_missing": "第 {n} 次抽取没有发生：期望在位置 {expected} 抽取",
        "trace_extra": "第 {n} 次抽取（在位置 {got}）是多余的：期望只抽取 {count} 次",
        "trace_moved": "第 {n} 次抽取发生在位置 {got}，期望在位置 {expected}",
        "trace_result": "结果 {result} 与期望的 {expected} 不同",
        "trace_match": "你的随机数抽取与期望一致，次数和顺序都对。",
        "trace_summary": "<b>你的 verify_draft</b> 返回了 <code>{result}</code>，抽取了 {calls} 次，位置为 {positions}。",
    },
}

# The diagnosis line's frame (prefix, none, unknown, not made, also) and Level 24's rule sentences are in
# grading/judge/rules.py (FRAME, SENTENCES: one table, both languages).

# By catalogue answer (answers/<notebook>/<name>.py, its '# diagnosis:' line), for the wrong answers; an answer
# whose run shows its mistake directly (changed inputs, not a list, a vector of coins: grading/judge/rules23.py
# PREDICATES) is named in grading/judge/rules.py's words instead, so it has no entry here.
DIAGNOSES = {
    "01_accept_branch": {
        "appends_before_check": "你在比较之前就追加了 token_id，所以第一个 p < q 的 token 在 break 之前被留下了：只在 p >= q 时追加",
        "appends_position": "p >= q 时你追加的是位置 i 而不是 token_id：请追加 token_id",
        "coin_in_mission1": "你在 p < q 的地方已经抽了 r（Mission 2 的硬币），但 Mission 1 从不抽随机数：p < q 时直接 break",
        "draw_before_compare": "你在每个位置比较之前都调用了 torch.rand，但 Mission 1 从不抽随机数：去掉抽取，只判断 p >= q",
        "first_token_peek": "草稿为空（K = 0）时你的函数抛出 IndexError，例如因为在循环之前就读取了 draft_tokens[0]：没有 token 时，返回一个空列表",
        "forgets_continue": "p >= q 时你追加了 token_id，程序却继续执行到预先写好的 break，所以一个 token 之后就停了：追加之后加上 continue",
        "hard_coded_visible": "无论输入是什么，你总是返回可见测试的答案 [10]：在每个位置判断 p >= q，并追加它的 token_id",
        "keeps_every_token": "你保留了每一个 token，连 p < q 的也保留了：在每个位置比较 p 和 q，遇到第一个 p < q 就 break",
        "ratio_divides_by_q": "你用 p 除以 q 来比较（p / q >= 1），q == 0 时会抛出 ZeroDivisionError：直接比较 p >= q，不做除法",
        "reversed_comparison": "你在 p <= q 时接受（或者从 draft_probs 读 p、从 target_probs 读 q，效果相同），所以留下了 p < q 的 token，又在 p > q 处停止：应在 p >= q 时接受，其中 p = target_probs[i, token_id]",
        "row_maximum": "你拿整行最大值 target_probs[i].max() 代替 p（草稿 token 的目标概率）去比较：应比较在 [i, token_id] 处读取的 p 和 q",
        "row_zero_only": "你在每个位置都从第 0 行读取 p 和 q：应读取第 i 行，即 target_probs[i, token_id] 和 draft_probs[i, token_id]",
        "reads_next_row": "对位置 i 上的 token，你从第 i + 1 行读取了 p 和 q，错后了一行（最后一个位置没有第 i + 1 行，会抛出 IndexError）：应读取第 i 行，即 target_probs[i, token_id] 和 draft_probs[i, token_id]",
        "skips_instead_of_stopping": "你把预先写好的 break 换成了 continue，所以跳过 p < q 的位置并接受了后面的 token：保留 break，在那里停止",
        "strict_greater": "你只在 p > q 时接受，所以 p == q 会停止循环：p >= q 时接受",
        "tensor_compare_no_item": "你比较的是整行 (target_probs[i] >= draft_probs[i]).all()，这几乎从不成立：应比较两个数 p >= q",
    },
    "02_reject_and_break": {
        "accept_falls_through": "p >= q 时你追加了 token_id，却没有转到下一个位置，所以这里也抽了 r，这个 token 可能被追加两次：追加之后加上 continue",
        "never_draws": "你在每个 p < q 处都不抽 r 就停下了，和 Mission 1 一样：要在那里抽 r = torch.rand(1).item()，r < p / q 时接受这个 token",
        "appends_position": "p >= q 和 r < p / q 时你追加的都是位置 i 而不是 token_id：请追加 token_id",
        "break_after_accept": "每次抽取之后你都 break，即使 r < p / q 已经接受了这个 token：只在 r >= p / q 时 break，否则继续",
        "continue_not_break": "拒绝之后你用了 continue，所以后面的 token 仍被检查、还可能被接受：拒绝必须 break",
        "draw_every_position": "你在每个位置都抽取 r，包括 p >= q 的位置：只在 p < q 分支抽随机数",
        "unscripted_torch_draw": "你用 torch 的其他采样方法（uniform_、rand_like 或 bernoulli）而不是 torch.rand 来抽取，而检查是通过 torch.rand 发放抽取值的：请改为抽取 r = torch.rand(1).item()，r < p / q 时接受",
        "greater_coin": "你在 r > p / q 时接受，硬币方向反了，所以可能性大的 token 反而被拒绝：r < p / q 时接受",
        "hard_coded_visible": "你调用两次 torch.rand，然后总是返回可见测试的答案 [10, 20]：根据 p、q 和 r 判断每个位置",
        "less_equal_coin": "你在 r <= p / q 时接受，所以边界 r == p / q 也被接受（即使 p == 0）：用严格的 r < p / q",
        "no_coin": "你接受了每个 token，包括 p < q 的位置，而没有抽取 r：在那里抽取 r = torch.rand(1).item()，只在 r < p / q 时接受",
        "numpy_rand": "你用 numpy 的随机数生成器（np.random）而不是用 torch.rand 来抽取 r：请改为 r = torch.rand(1).item()",
        "q_over_p": "你用了 r < q / p，p < q 时它总是成立，p == 0 时还会除以零：用 r < p / q",
        "random_module": "你用 Python 的 random 模块（random.random() 之类）而不是用 torch.rand 来抽取 r：请改为 r = torch.rand(1).item()",
        "row_maximum": "你用整行最大值 target_probs[i].max() 覆盖了 p，而没有用草稿 token 的目标概率：保持 p = target_probs[i, token_id].item()",
        "row_zero_only": "你在每个位置都从第 0 行读取 p 和 q：应读取第 i 行，即 target_probs[i, token_id] 和 draft_probs[i, token_id]",
        "reads_next_row": "对位置 i 上的 token，你从第 i + 1 行读取了 p 和 q，错后了一行（最后一个位置没有第 i + 1 行，会抛出 IndexError）：应读取第 i 行，即 target_probs[i, token_id] 和 draft_probs[i, token_id]",
        "coin_forgets_append": "r < p / q 接受了一个 token 时，你没有追加它就直接进入下一个位置，所以硬币接受的 token 都不见了：在那里也要追加 token_id",
        "rejected_flag": "拒绝之后你仍然继续执行循环（用一个标志变量代替了 break），所以在后面 p < q 的位置又抽取了 r：应在第一次拒绝时就 break",
        "strict_accept_branch": "你只在 p > q 时接受，所以 p == q 进入了掷硬币分支并消耗一个随机数：p >= q 时不抽随机数直接接受",
    },
}
