"""The diagnosis by rules: each known mistake is a rule over what the function did in the checks.

A rule is a small model of one mistake (the reference algorithm with one thing changed) and the
*aspect* of a run it is about: the values passed to the correction's torch.multinomial call, the
bonus's, the order of the torch.rand and torch.multinomial calls, the tokens returned. For every
traced call of the graded run (grading/judge/verdicts.py: the case, the scripted draws and picks, and
what the student's function did) the grader runs the reference and the rule's model on the same
case. A call *shows* the mistake when the model differs from the reference in the rule's aspect
and the student's call agrees with the model there. A rule fires when some call in a failed check
shows it and most calls where it could show (where the model differs from the reference) do; it
explains the failed checks holding a call that shows it. Predicates cover what no model draws: an
error by type, changed inputs, a vectorised coin, a missing num_samples.

Only the aspect is compared, so a second mistake elsewhere (a different order, an extra token)
does not hide the first one: both fire, and the line names the one that explains most failed
checks, then "also: ...". The catalogue (answers/) is the rules' test set, not their definition.

Each rule's sentence is in one table, ``SENTENCES``, in both languages (en, zh-CN).
"""

import math

import torch

TOL = 1e-6

# ------------------------------------------------------------------ the sentences, both languages

FRAME = {
    "en": {"prefix": "Diagnosis: ",
           "none": "none: your function behaved like a right answer in every check.",
           "unknown": "your function does not behave like any mistake we know, so none is named here; these checks "
                      "failed: {checks} (each says below what it saw).",
           "not_made": "not made: {why}.",
           "also": " (also: {others})",
           "follows": " This follows from the mistake named in the diagnosis above.",
           "sep": "; "},
    "zh": {"prefix": "诊断：",
           "none": "没有发现错误，你的函数在每项检查中的行为都和正确答案一样。",
           "unknown": "你的函数不像我们见过的任何一种错误，所以这里说不出具体是哪种错误；未通过的检查是：{checks}（下面每一项都写明了它看到的情况）。",
           "not_made": "没有做出，因为{why}。",
           "also": "（另外：{others}）",
           "follows": "这一项未通过，正是上面诊断指出的那个错误造成的。",
           "sep": "；"},
}

SENTENCES = {  # rule id: (en, zh)
    # Level 24 notebook 03 (verify_drafts on the real pair): what the target calls and the cache show
    "pair_call_per_position": (
        "you call the target more than once per step: one call on [last_token] + draft_tokens gives all K + 1 rows",
        "你每一步调用目标模型不止一次：对 [last_token] + draft_tokens 调用一次，就能得到全部 K + 1 行"),
    "pair_positions_k": (
        "your call covers the K drafts but not last_token: call the target on [last_token] + draft_tokens, K + 1 "
        "positions, so row i checks draft i and row K is the bonus row",
        "你的调用只包含 K 个草稿，漏掉了 last_token：要对 [last_token] + draft_tokens 这 K + 1 个位置调用目标模型，"
        "这样第 i 行用来检查第 i 个草稿，第 K 行用来采样额外 token"),
    "pair_no_rollback": (
        "you do not roll the cache back: after the step, crop it to start + len(tokens) so rejected drafts leave it",
        "你没有裁剪缓存：这一步之后要把它裁剪到 start + len(tokens)，把被拒绝的草稿从缓存中去掉"),
    "pair_crop_short": (
        "your cache keeps one position too few: last_token and every accepted draft stay, start + len(tokens)",
        "你的缓存少留了一个位置：last_token 和每个被接受的草稿都要留下，即 start + len(tokens)"),
    "pair_crop_long": (
        "your cache keeps one position too many: a rejected draft stays; crop it to start + len(tokens), since the "
        "step's new token is not in the cache yet",
        "你的缓存多留了一个位置：一个被拒绝的草稿留在了里面；要裁剪到 start + len(tokens)，因为这一步的新 token 还不在缓存里"),
    "pair_cache_not_grown": (
        "your cache is no longer after a step than before it, so last_token and the accepted drafts are lost: "
        "crop it to start + len(tokens)",
        "你的缓存在一步之后并不比这一步之前长，所以 last_token 和被接受的草稿都丢掉了：要裁剪到 start + len(tokens)"),
    "pair_crop_fixed": (
        "your cache keeps the same number of positions after every step, whatever was accepted: crop it to "
        "start + len(tokens)",
        "无论接受了多少草稿，你的缓存每一步都保留同样多的位置：要裁剪到 start + len(tokens)"),
    "pair_no_cache": (
        "you call the target without its cache (target(...) or target.forward): every position is computed again "
        "and the cache never grows; call target.forward_cached([last_token] + draft_tokens, cache)",
        "你调用目标模型时没有用它的缓存（target(...) 或 target.forward）：每个位置都要重新计算，缓存也不会增长；"
        "应当调用 target.forward_cached([last_token] + draft_tokens, cache)"),
    "pair_other_cache": (
        "you call forward_cached on a copy of the cache (or a new one), so the cache you were given never sees the "
        "step: call it on cache itself, then crop cache",
        "你在缓存的副本（或新建的缓存）上调用 forward_cached，传进来的那个缓存根本没有经历这一步：应当直接在 cache 上调用，"
        "然后裁剪 cache"),
    "pair_cache_below_start": (
        "your crop leaves the cache shorter than it was before the step, so the text before last_token is lost: keep "
        "start + len(tokens), where start = cache.length before the call",
        "你裁剪后的缓存比这一步之前还短，last_token 之前的文本也丢了：应当保留 start + len(tokens) 个位置，"
        "其中 start 是调用之前的 cache.length"),
    "pair_greedy_acceptance": (
        "you accept a draft when it is the target's most likely token and then append the most likely token, with no "
        "coin and no torch.multinomial: that is greedy decoding's rule, right only at temperature 0; call "
        "speculative_step(draft_probs, rows(logits, temperature), draft_tokens)",
        "你在草稿恰好是目标模型最可能的 token 时接受它，然后直接追加最可能的 token，既不掷硬币也不调用 torch.multinomial："
        "这是贪心解码的规则，只在温度为 0 时才对；应当调用 speculative_step(draft_probs, rows(logits, temperature), "
        "draft_tokens)"),
    "pair_temperature_twice": (
        "you apply the temperature twice (rows(logits / temperature, temperature)): rows() already divides the "
        "logits by it; pass rows(logits, temperature)",
        "你把温度用了两次（rows(logits / temperature, temperature)）：rows() 本身已经把 logits 除以温度了；"
        "应当传入 rows(logits, temperature)"),
    "pair_temperature_missing": (
        "your target rows ignore the temperature (they are the rows at temperature 1): pass rows(logits, temperature)",
        "你算出的目标模型各行没有考虑温度（用的是温度为 1 时的行）：应当传入 rows(logits, temperature)"),
    "pair_probs_as_logits": (
        "you give rows() probabilities instead of logits (rows(torch.softmax(logits, -1), temperature)): rows() "
        "takes the logits the target returned",
        "你交给 rows() 的是概率而不是 logits（rows(torch.softmax(logits, -1), temperature)）：rows() 要的是目标模型"
        "返回的 logits"),
    "pair_draft_retempered": (
        "you apply the temperature to draft_probs again: they are already the draft's rows at this temperature; pass "
        "draft_probs as they are",
        "你又对 draft_probs 用了一次温度：它们已经是草稿模型在这个温度下的各行；应当原样传入 draft_probs"),
    "pair_last_rejected_kept": (
        "when the step rejects only the last draft (len(tokens) == K), your cache keeps that draft: crop to start + "
        "len(tokens) after every step, whatever its length",
        "当这一步只拒绝最后一个草稿（len(tokens) == K）时，你的缓存把这个草稿留了下来：每一步之后都要裁剪到 start + "
        "len(tokens)，不管返回了多少个 token"),
    "pair_never_accepts": (
        "your step never keeps a draft: it returns one token each time, also where the target accepts drafts; return "
        "what speculative_step gives for draft_probs and rows(logits, temperature)",
        "你的这一步从不保留草稿：每次都只返回一个 token，即使目标模型本该接受草稿也是如此；应当返回 speculative_step 对 "
        "draft_probs 和 rows(logits, temperature) 给出的结果"),
    "pair_drops_last_draft": (
        "your call leaves out the last draft: call the target on [last_token] + draft_tokens, all K + 1 positions, so "
        "row i checks draft i and row K is the bonus row",
        "你的调用漏掉了最后一个草稿：要对 [last_token] + draft_tokens 全部 K + 1 个位置调用目标模型，这样第 i 行用来检查"
        "第 i 个草稿，第 K 行用来采样额外 token"),
    "pair_returns_last_token": (
        "you return last_token as well: it is already the text's last token; return the accepted drafts and the new "
        "token, what speculative_step gives",
        "你把 last_token 也返回了：它已经是这段文本的最后一个 token；应当只返回被接受的草稿和新 token，也就是 "
        "speculative_step 给出的结果"),
    "pair_new_token_argmax": (
        "you take the most likely token as the step's new token instead of sampling it: above temperature 0 the new "
        "token is drawn with torch.multinomial from its row, as speculative_step does",
        "你把最可能的 token 当作这一步的新 token，而没有采样：温度大于 0 时，新 token 要用 torch.multinomial 从它那一行"
        "中抽取，speculative_step 就是这样做的"),
    "pair_raises": (
        "your verify_drafts raises {error} in {where} ({n} of the {m} steps the checks ran); a hidden check does not "
        "show its message: run the visible test in the notebook to see the traceback",
        "你的 verify_drafts 在 {where} 里抛出了 {error}（检查共运行 {m} 步，其中 {n} 步如此）；隐藏检查不会显示错误信息："
        "在 notebook 里运行可见测试，就能看到完整的回溯信息"),
    "pair_tokens_not_greedy": (
        "your target calls and your cache are right, but the tokens are not the step's: return what "
        "speculative_step gives for draft_probs and rows(logits, temperature), the target's rows at this temperature",
        "你对目标模型的调用和缓存都是对的，但返回的 token 与这一步应得到的不同：要返回 speculative_step 对 draft_probs "
        "和 rows(logits, temperature)（目标模型在这个温度下的各行）给出的结果"),
    "no_num_samples": (
        "you call torch.multinomial without num_samples, which torch requires: torch.multinomial(weights, 1)",
        "你调用 torch.multinomial 时没有给 num_samples，而 torch 要求必须给出：torch.multinomial(weights, 1)"),
    "vector_coin": (
        "you draw several coins at once (torch.rand asked for more than one value); the tests hand one scripted "
        "value to each torch.rand(1), one per p < q position, in order",
        "你一次性掷了多个硬币（一次调用 torch.rand 要了不止一个值）；测试按顺序为每次 torch.rand(1) 调用提供一个预设值，"
        "每个 p < q 的位置一次"),
    "coin_every_position": (
        "you flip a coin also where p >= q (torch.rand at every position); flip one only where p < q, as the given "
        "loop does",
        "你在 p >= q 的位置也掷了硬币（每个位置都调用 torch.rand）；应像写好的循环那样，只在 p < q 的位置掷一次"),
    "ratio_q_over_p": (
        "your coin compares r with q / p; accept when r < p / q, the target's probability over the draft's",
        "你掷硬币时拿 r 和 q / p 比较；应当在 r < p / q 时接受，p / q 是目标概率除以草稿概率"),
    "residual_from_p": (
        "you sample the correction from p, the target's row; after a rejection sample from the normalised residual "
        "max(0, p - q)",
        "你从目标模型的那一行 p 中采样修正 token；拒绝之后应从归一化的残差 max(0, p - q) 中采样"),
    "residual_from_q": (
        "you sample the correction from q, the draft's row; after a rejection sample from the normalised residual "
        "max(0, p - q)",
        "你从草稿模型的那一行 q 中采样修正 token；拒绝之后应从归一化的残差 max(0, p - q) 中采样"),
    "residual_not_normalised": (
        "you pass max(0, p - q) to torch.multinomial without normalising it: divide it by its sum first",
        "你把 max(0, p - q) 直接交给 torch.multinomial，没有归一化：先除以它的和"),
    "residual_q_minus_p": (
        "your correction comes from max(0, q - p); the residual is max(0, p - q), the target minus the draft",
        "你的修正 token 来自 max(0, q - p)；残差是 max(0, p - q)，即目标概率减去草稿概率"),
    "residual_row_zero": (
        "your residual comes from row 0 whatever position was rejected: take max(0, p - q) of row i, the rejected "
        "position",
        "无论在哪个位置拒绝，你的残差都来自第 0 行：应取被拒绝位置的那一行（第 i 行）的 max(0, p - q)"),
    "residual_other_row": (
        "your residual reads another row than the rejected position's (of target_probs, of draft_probs, or of both): "
        "take max(0, p - q) of row i in both, target_probs[i] - draft_probs[i]",
        "你的残差读的不是被拒绝位置的那一行（读错的是 target_probs、draft_probs，或两者都读错了）：两者都要取第 i 行的 "
        "max(0, p - q)，即 target_probs[i] - draft_probs[i]"),
    "residual_without_token": (
        "your correction comes from the target's row with only the rejected token taken out; the residual "
        "max(0, p - q) takes the draft's share away from every token, not just from the rejected one: sample from "
        "max(0, target_probs[i] - draft_probs[i]), normalised",
        "你的修正 token 来自目标模型的那一行，只是去掉了被拒绝的 token；残差 max(0, p - q) 要从每个 token 上减去草稿模型的份额，"
        "而不只是从被拒绝的那个 token 上减去：应从归一化的 max(0, target_probs[i] - draft_probs[i]) 中采样"),
    "bonus_other_row": (
        "your bonus is not sampled from target_probs[K] itself (another row, the draft's, or weights made from them): "
        "pass the target's row after the last draft, target_probs[K], to torch.multinomial, K = len(draft_tokens)",
        "你的额外 token 不是从 target_probs[K] 本身采样的（而是另一行、草稿模型的行，或由它们算出的权重）："
        "应把目标模型在最后一个草稿之后的那一行 target_probs[K] 交给 torch.multinomial，K = len(draft_tokens)"),
    "coin_reversed": (
        "your coin keeps the token when r >= p / q and rejects it when r < p / q, the other way round: accept when "
        "r < p / q",
        "你的硬币在 r >= p / q 时保留 token、在 r < p / q 时拒绝，正好反了：应在 r < p / q 时接受"),
    "accepts_every_draft": (
        "you accept every draft, also where p < q, whatever r is: where p < q draw r = torch.rand(1).item() and "
        "accept only if r < p / q",
        "你接受了每一个草稿，连 p < q 的位置也不管 r 是多少一律接受：在 p < q 的位置应抽取 r = torch.rand(1).item()，"
        "只有 r < p / q 时才接受"),
    "residual_row_token": (
        "your residual comes from row token_id (the drafted token's id used as a row number); the rows are "
        "positions: take max(0, p - q) of row i, target_probs[i] - draft_probs[i]",
        "你的残差来自第 token_id 行（把草稿 token 的 id 当成了行号）；行对应的是位置：取第 i 行的 max(0, p - q)，"
        "即 target_probs[i] - draft_probs[i]"),
    "residual_next_target_row": (
        "your residual reads the target's row i + 1, the next position's (the tests cannot tell which row of the "
        "draft it subtracts); row i of target_probs and row i of draft_probs are the same position (the target's "
        "extra row K is only the bonus's): take max(0, target_probs[i] - draft_probs[i])",
        "你的残差读的是目标模型的第 i + 1 行，即下一个位置的行（测试分辨不出减去的是草稿模型的哪一行）；target_probs 的第 i 行和 "
        "draft_probs 的第 i 行对应同一个位置（目标模型多出的第 K 行只给额外 token 用）：取 "
        "max(0, target_probs[i] - draft_probs[i])"),
    "residual_min": (
        "your correction comes from min(p, q), the part the two models share, which acceptance already covers; "
        "after a rejection sample from what the target has beyond the draft, max(0, p - q), normalised",
        "你的修正 token 来自 min(p, q)，也就是两个模型重合的部分，而这部分已经由接受那一步覆盖了；拒绝之后应从目标模型超出草稿模型的部分 max(0, p - q) 中采样（先归一化）"),
    "residual_scaled": (
        "your residual max(0, p - q) is divided by something other than its sum (its max, the sum over every row, "
        "...), so its weights do not add up to 1: divide it by its own sum, residual / residual.sum()",
        "你的残差 max(0, p - q) 除以的不是它自己的和（而是它的最大值、所有行的总和等），所以权重加起来不等于 1：应除以它自己的和，"
        "即 residual / residual.sum()"),
    "many_samples": (
        "you ask torch.multinomial for more than one sample (num_samples above 1); each new token is one draw: "
        "torch.multinomial(weights, 1)",
        "你向 torch.multinomial 要了不止一个样本（num_samples 大于 1）；每个新 token 只抽一次：torch.multinomial(weights, 1)"),
    "correction_only": (
        "after a rejection you return the correction token alone and drop the accepted drafts before it: append it "
        "to accepted_tokens and return them all",
        "拒绝之后你只返回了修正 token，丢掉了它前面被接受的草稿：应把它追加到 accepted_tokens 后面，一起返回"),
    "correction_appends_draft": (
        "you sample the correction but append token_id, the rejected draft, instead of the token torch.multinomial "
        "returned",
        "你采样了修正 token，却追加了 token_id，也就是被拒绝的草稿，而不是 torch.multinomial 返回的 token"),
    "correction_after_draft": (
        "after a rejection you append the rejected draft token_id and then the correction; the rejected token is "
        "not kept: the correction takes its place",
        "拒绝之后你先追加了被拒绝的草稿 token_id，再追加修正 token；被拒绝的 token 不应保留：修正 token 要取代它的位置"),
    "residual_softmax": (
        "you normalise the residual with softmax (or hand it over as logits, as Categorical(logits=...) takes them), "
        "which exponentiates it, so tokens where max(0, p - q) is 0 still get some probability: divide "
        "max(0, p - q) by its sum",
        "你用 softmax 归一化残差（或者把它当作 logits 传了进去，比如 Categorical(logits=...)），它会先取指数，于是 "
        "max(0, p - q) 为 0 的 token 也分到了概率：应把 max(0, p - q) 除以它的和"),
    "residual_whole_matrix": (
        "your residual adds up max(0, p - q) over all the rows; it belongs to the rejected row i alone",
        "你的残差把所有行的 max(0, p - q) 加在了一起；残差只取被拒绝的那一行，即第 i 行"),
    "correction_argmax": (
        "you take the residual's most likely token (argmax) instead of sampling it with torch.multinomial",
        "你取了残差中概率最大的 token（argmax），而不是用 torch.multinomial 采样"),
    "no_correction": (
        "no correction token: after a rejection you stop without sampling from the residual",
        "没有修正 token：拒绝之后你直接停止了，没有从残差中采样"),
    "correction_not_multinomial": (
        "after a rejection you add a token without calling torch.multinomial (random.choices, numpy, ...): sample "
        "the correction with torch.multinomial(residual, 1)",
        "拒绝之后你没有调用 torch.multinomial 就加了一个 token（random.choices、numpy 等）：用 torch.multinomial(residual, 1) 采样修正 token"),
    # a token sampled with another sampler, whose stand-in the checks hand the scripted tokens (spec_checks.FOREIGN)
    "sampler_numpy_choice": (
        "you sample with numpy.random.choice instead of torch.multinomial; the checks script the tokens "
        "torch.multinomial hands out: sample with torch.multinomial(weights, 1)",
        "你用 numpy.random.choice 采样，而不是 torch.multinomial；检查预设的是 torch.multinomial 给出的 token，"
        "所以请用 torch.multinomial(weights, 1) 采样"),
    "sampler_random_choices": (
        "you sample with random.choices instead of torch.multinomial; the checks script the tokens "
        "torch.multinomial hands out: sample with torch.multinomial(weights, 1)",
        "你用 random.choices 采样，而不是 torch.multinomial；检查预设的是 torch.multinomial 给出的 token，"
        "所以请用 torch.multinomial(weights, 1) 采样"),
    "correction_appends_position": (
        "you sample the correction but append the position i, not the token torch.multinomial returned",
        "你采样了修正 token，却追加了位置 i，而不是 torch.multinomial 返回的 token"),
    "two_corrections": (
        "you add two tokens after a rejection (two samples); a rejection adds exactly one token, "
        "torch.multinomial(residual, 1)",
        "拒绝之后你加了两个 token（采样了两次）；一次拒绝只加一个 token：torch.multinomial(residual, 1)"),
    "multinomial_before_coin": (
        "you call torch.multinomial before the coin has decided; sample the correction only after a rejection",
        "硬币还没掷出结果，你就调用了 torch.multinomial；应只在拒绝之后采样修正 token"),
    "correction_every_coin": (
        "you call torch.multinomial after every coin, also when it accepts; draw only after a rejection",
        "每次掷硬币之后你都调用 torch.multinomial，接受时也一样；应只在拒绝之后采样"),
    "continue_after_correction": (
        "you go on verifying after the correction token (continue); the step ends with it: break or return",
        "加上修正 token 之后你还在继续验证（continue）；这一步应在修正 token 处结束：用 break 或 return"),
    "inputs_changed": (
        "your function changes its inputs (draft_probs, target_probs or draft_tokens), for instance an in-place "
        "-=, clamp_ or /= on a row: compute in a new tensor",
        "你的函数改动了输入（draft_probs、target_probs 或 draft_tokens），例如在某一行上原地做 -=、clamp_ 或 /=：应在新的张量里计算"),
    "bonus_row_k_minus_1": (
        "your bonus comes from target_probs[K-1], the last drafted position; the next token's row is target_probs[K]",
        "你的额外 token 来自 target_probs[K-1]，即最后一个草稿位置；下一个 token 的分布是 target_probs[K]"),
    "bonus_from_draft": (
        "your bonus comes from the draft's row; it is a token of the target: sample it from target_probs[K]",
        "你的额外 token 来自草稿模型的那一行，但它应当来自目标模型：从 target_probs[K] 中采样"),
    "bonus_argmax": (
        "you take target_probs[K]'s most likely token (argmax) as the bonus instead of sampling it with "
        "torch.multinomial",
        "你取了 target_probs[K] 中概率最大的 token（argmax）作为额外 token，而不是用 torch.multinomial 采样"),
    "no_bonus_empty_draft": (
        "with an empty draft (K = 0) your step returns no token; every step adds one: with nothing to verify, the "
        "bonus sampled from target_probs[0] is the step's token (add it whether or not anything was accepted)",
        "草稿为空（K = 0）时，你这一步没有返回任何 token；每一步都会追加一个 token：没有可验证的草稿时，从 target_probs[0] 中采样的额外 token 就是这一步的 "
        "token（无论有没有草稿被接受，都要追加它）"),
    "no_bonus": (
        "no bonus token: when every draft is accepted, append one token sampled from target_probs[K]",
        "没有额外 token：所有草稿都被接受时，应从 target_probs[K] 中采样一个 token 并追加"),
    "bonus_replaces_last": (
        "your bonus replaces the last accepted token; it comes after all K accepted drafts, so the step returns "
        "K + 1 tokens",
        "你的额外 token 顶替了最后一个被接受的 token；它应排在全部 K 个被接受的草稿之后，所以这一步返回 K + 1 个 token"),
    "bonus_before_coins": (
        "you draw the bonus before the coins (torch.multinomial first); draw it only after every draft was accepted",
        "你在掷硬币之前就抽取了额外 token（先调用了 torch.multinomial）；应在所有草稿都被接受之后再抽取"),
    "bonus_after_reject": (
        "you add a bonus token after a rejection too; the correction is the step's only new token: return right "
        "after it",
        "拒绝之后你还加了额外 token；修正 token 应是这一步唯一的新 token：追加它之后立即 return"),
    "empty_draft_error": (
        "your function raises an error for an empty draft (K = 0), where the step is the bonus from target_probs[0] "
        "alone, with K = len(draft_tokens)",
        "草稿为空时你的函数会报错，而这时 K = len(draft_tokens) = 0，这一步只返回从 target_probs[0] 中采样的额外 token"),
    "multinomial_refused": (
        "torch.multinomial refused the weights you gave it (a negative, nan or inf value, or all zero): the residual "
        "is max(0, p - q) (clamped at 0), divided by its sum",
        "torch.multinomial 拒绝了你给它的权重（有负数、nan 或 inf，或者全为 0）：残差是 max(0, p - q)（在 0 处截断），再除以它的和"),
    "residual_abs": (
        "your residual is |p - q|; it is max(0, p - q): the tokens where the draft is above the target get 0",
        "你的残差是 |p - q|；它应当是 max(0, p - q)：草稿概率高于目标概率的 token 取 0"),
    "extra_token_all_accepted": (
        "when every draft is accepted you add a token anyway; in this notebook the step then returns the accepted "
        "drafts alone (notebook 2 adds the bonus)",
        "所有草稿都被接受时你仍然加了一个 token；在这个 notebook 里，这时这一步只返回被接受的草稿（notebook 2 才加额外 token）"),
    "bonus_error": (
        "your function raises an error when every draft is accepted, where the bonus is sampled from "
        "target_probs[K], K = len(draft_tokens)",
        "所有草稿都被接受时你的函数会报错，而这时应从 target_probs[K] 中采样额外 token，其中 K = len(draft_tokens)"),
    "not_token_ids": (
        "your function returns a list holding something other than token ids (a float such as p, or a tensor such "
        "as draft_tokens[i] or torch.multinomial's [1]): append each token as a Python int, token_id itself or "
        "int(torch.multinomial(weights, 1).item())",
        "你的函数返回的列表里有不是 token id 的东西（像 p 这样的浮点数，或者像 draft_tokens[i]、torch.multinomial "
        "返回的 [1] 这样的张量）：每个 token 都要以 Python int 的形式追加，即 token_id 本身或 "
        "int(torch.multinomial(weights, 1).item())"),
    # Level 23's own rules (grading/judge/rules23.py OWN_RULES)
    "accepts_target_argmax": (
        "you accept a draft only where it is the target's most likely token (the argmax of target_probs[i]); the "
        "test is p >= q, the target's probability of the drafted token against the draft's",
        "你只在草稿 token 恰好是目标模型最可能的 token（target_probs[i] 的 argmax）时才接受它；应判断的是 p >= q，"
        "即比较目标模型和草稿模型给这个草稿 token 的概率"),
    "loop_starts_at_one": (
        "your loop starts at position 1, so the draft at position 0 is never checked or kept: go over every "
        "position, for i, token_id in enumerate(draft_tokens)",
        "你的循环从位置 1 开始，所以位置 0 的草稿从来没有被检查，也没有被保留：要遍历每个位置，"
        "for i, token_id in enumerate(draft_tokens)"),
    "reads_previous_row": (
        "you read p and q from row i - 1, the previous position's (row -1, the last, at position 0): row i holds "
        "position i's probabilities, p = target_probs[i, token_id]",
        "你从第 i - 1 行读 p 和 q，也就是上一个位置的行（位置 0 读到的是第 -1 行，即最后一行）：第 i 行才是位置 i 的概率，"
        "p = target_probs[i, token_id]"),
    "drops_repeated_tokens": (
        "you leave out a token that is already in accepted_tokens, so a token drafted twice comes back once: append "
        "token_id at every position you accept",
        "你跳过了已经在 accepted_tokens 里的 token，所以被提出两次的 token 只返回一次：每接受一个位置，都要追加它的 token_id"),
    "indexes_token_then_position": (
        "you index the rows as [token_id, i]; they are [i, token_id], row i for position i and the drafted token's "
        "column, so a token id past the last row raises IndexError",
        "你按 [token_id, i] 索引；正确的是 [i, token_id]：第 i 行对应位置 i，列是草稿 token 的 id。按你的写法，"
        "token id 大于最后一行的行号时会抛出 IndexError"),
    "coin_drawn_before_loop": (
        "you draw r once, before the loop, and use it at every p < q position (and draw even where no position needs "
        "it): draw a new r = torch.rand(1).item() at each p < q position, inside the loop",
        "你在循环之前只抽了一次 r，并在每个 p < q 的位置都用它（即使没有任何位置用得上它，也照样抽了）：在循环里，每遇到一个 "
        "p < q 的位置就抽一个新的 r = torch.rand(1).item()"),
    "returns_inside_loop": (
        "your return accepted_tokens is inside the loop, so the function returns after the first position it keeps "
        "(and returns None when it rejects the first one, or the draft is empty): return after the loop",
        "你的 return accepted_tokens 写在了循环里面，所以函数保留第一个位置后就返回了（第一个位置被拒绝或草稿为空时返回 "
        "None）：把 return 移到循环之后"),
    "loop_stops_early": (
        "your loop stops one position early (range(K - 1) or the like), so the last draft is never checked or kept: "
        "go over every position, for i, token_id in enumerate(draft_tokens)",
        "你的循环提前一个位置结束（range(K - 1) 之类），所以最后一个草稿从来没有被检查，也没有被保留：要遍历每个位置，"
        "for i, token_id in enumerate(draft_tokens)"),
    "q_zero_stops": (
        "you stop where q == 0, but there p >= q always holds (p is never below 0), so the token is kept: compare "
        "p >= q first, with no special case for q == 0",
        "你在 q == 0 的位置停了下来，但那里 p >= q 总是成立（p 不会小于 0），所以这个 token 应该保留：先比较 p >= q，不要对 q == 0 做特殊处理"),
    "reject_returns_empty": (
        "at a rejection you return an empty list and drop the tokens accepted before it: break, and return "
        "accepted_tokens",
        "遇到拒绝时你返回了空列表，丢掉了之前已经接受的 token：应当 break，然后返回 accepted_tokens"),
    "skips_after_accept": (
        "after a p >= q position your loop passes over the next one (i goes up twice): move on by exactly one "
        "position each time",
        "在 p >= q 的位置之后，你的循环跳过了下一个位置（i 加了两次）：每次只前进一个位置"),
    "ratio_before_branch": (
        "you compute p / q before the p >= q test, which raises ZeroDivisionError when q == 0, where p >= q keeps "
        "the token: divide only in the p < q branch, where q > 0",
        "你在判断 p >= q 之前就计算了 p / q，q == 0 时会抛出 ZeroDivisionError，而此时 p >= q 成立，token 本应直接保留：只在 p < q 的分支里做除法，该分支中 "
        "q > 0"),
    "coin_r_below_p": (
        "on every scripted draw your coin decided as r < p would (p alone, not p / q); the token must be kept with "
        "probability p / q: accept when r < p / q",
        "对每个预设的 r，你掷硬币的判定都和 r < p 的结果一样（只用了 p，而不是 p / q）；"
        "应以 p / q 的概率保留该 token：在 r < p / q 时接受"),
    "coin_never_accepts": (
        "your coin never accepts: every p < q position ends the loop, also when r < p / q (p // q, say, is 0 there): "
        "accept when r < p / q, a float division",
        "你的掷硬币从不接受：每个 p < q 的位置都会结束循环，r < p / q 时也一样（比如 p // q 在这里就等于 0）："
        "应在 r < p / q 时接受，用浮点除法"),
    "reads_p_and_q_swapped": (
        "you read p from draft_probs and q from target_probs, the other way round: p is the target's probability, "
        "target_probs[i, token_id], and q the draft's (Chen et al. 2023 use the letters the other way, q for the "
        "target)",
        "你从 draft_probs 读 p、从 target_probs 读 q，正好反了：p 是目标模型的概率 target_probs[i, token_id]，"
        "q 是草稿模型的（Chen 等（2023）的字母用法相反，用 q 表示目标模型）"),
    "prefix_reversed": (
        "your tokens come back in reverse order (insert(0, ...) or the like): add each accepted token at the end, "
        "accepted_tokens.append(token_id)",
        "你返回的 token 顺序是反的（用了 insert(0, ...) 之类）：应把每个被接受的 token 追加到末尾，"
        "accepted_tokens.append(token_id)"),
    "coin_complement": (
        "you accept when r lies in the top p / q of [0, 1) (r > 1 - p / q, or r >= 1 - p / q): that happens just as "
        "often (probability p / q), but the lesson's rule, which the tests follow with scripted values of r, is accept "
        "when r < p / q, the bottom of [0, 1), as in Leviathan et al.'s Algorithm 1",
        "你在 r 落在 [0, 1) 中靠近 1 的那段长为 p / q 的区间时接受（r > 1 - p / q，或 r >= 1 - p / q）：这种情况发生的概率同样是 "
        "p / q，但课程的规则是在 r < p / q 时接受，即 r 落在 [0, 1) 中靠近 0 的那一段（与 Leviathan 等（2023）的算法 1 一致），"
        "测试中预设的 r 值也是按这条规则给出的"),
    "second_coin": (
        "after a failed coin you draw r again (a second torch.rand) and go on when that one is below p / q; one coin "
        "decides each p < q position: draw r once, then accept or break",
        "掷硬币失败之后你又抽了一次 r（第二次调用 torch.rand），并在它小于 p / q 时继续；每个 p < q 的位置只掷一次硬币：只抽一次 r，然后接受或 break"),
    "coin_cumulative": (
        "you compare r with the product of p / q over the positions so far (the chance of getting this far), not "
        "with this position's own p / q: each coin is r < p / q of its own position",
        "你拿 r 去和到目前为止各位置 p / q 的乘积（即走到这一步的概率）比较，而不是和本位置自己的 p / q 比较：每枚硬币都是 r < p / q，其中 p / q 只取该位置自己的值"),
    "coin_reused": (
        "you draw r once and read the same r again at every later p < q position; each p < q position draws its "
        "own r = torch.rand(1).item()",
        "你只抽了一次 r，之后每个 p < q 的位置都沿用同一个 r；每个 p < q 的位置都要重新抽取自己的 r = torch.rand(1).item()"),
    "coin_same_position": (
        "after a coin accepts, your loop does not move on: it checks the same position again with a new draw (a "
        "while loop with i += 1 only where p >= q), so one token is kept several times: go to the next position "
        "after every accept",
        "硬币接受之后，你的循环没有前进：它用新抽的随机数再次检查同一个位置（while 循环里只有 p >= q 时才执行 i += 1），"
        "于是同一个 token 被保留了好几次：每次接受之后都要移到下一个位置"),
    "accept_no_append": (
        "where p >= q you go on to the next position without appending token_id, so the tokens accepted outright "
        "are missing from your list: append token_id, then continue",
        "在 p >= q 的位置，你没有追加 token_id 就进入了下一个位置，所以被直接接受的 token 都不在你的列表里："
        "先追加 token_id，再 continue"),
    "counts_accepts": (
        "you count the positions where p >= q anywhere in the draft and keep that many tokens from the start; the "
        "accepted prefix ends at the first p < q, whatever comes after it: stop the loop there",
        "你统计了整个草稿中所有 p >= q 的位置，然后从开头保留同样多的 token；被接受的前缀在第一个 p < q 处就结束了，"
        "不管后面还有什么：应在那里停止循环"),
    "row_of_first_occurrence": (
        "where a token is drafted twice, you read the row of its first position at the second one too (a lookup by "
        "the token's id, such as draft_tokens.index(token_id)): position i reads row i, whatever token it holds",
        "同一个 token 在草稿中出现两次时，你在第二个位置上读的也是它第一次出现时所在位置的那一行（按 token 的 id 去查找，比如 "
        "draft_tokens.index(token_id)）：位置 i 读第 i 行，无论这个位置上是哪个 token"),
    "branches_swapped": (
        "your outright accept and your coin have changed places: you accept without a draw where p < q and flip "
        "the coin where p >= q, where r < p / q always holds: accept outright when p >= q, and flip the coin only "
        "where p < q",
        "你的直接接受分支和掷硬币分支互换了位置：你在 p < q 的位置不抽随机数就接受，却在 p >= q 的位置掷硬币，而那里 r < p / q "
        "总是成立：应在 p >= q 时直接接受，只在 p < q 时掷硬币"),
    "stops_after_sure_accept": (
        "after a token accepted outright (p >= q) you stop the loop, as if it had been rejected: go on to the next "
        "position with continue",
        "一个 token 因 p >= q 被直接接受之后，你就停止了循环，好像它被拒绝了一样：应当用 continue 进入下一个位置"),
    "coin_always_accepts": (
        "your coin accepts at every p < q position whatever r is, even when r is above p / q: accept only when "
        "r < p / q, otherwise break",
        "在每个 p < q 的位置，无论 r 是多少，你的硬币都接受，即使 r 大于 p / q 也一样：应只在 r < p / q 时接受，否则 break"),
    "appends_before_coin": (
        "you append token_id before the coin decides, so a rejected token stays in your list: append it only once "
        "p >= q or r < p / q has accepted it",
        "你在硬币做出决定之前就追加了 token_id，所以被拒绝的 token 也留在了列表里：只有在 p >= q 或 r < p / q "
        "接受了它之后才追加"),
    "multinomial_every_row": (
        "you call torch.multinomial on several rows before any coin (a correction sampled for every position in "
        "advance); the tests script one torch.multinomial call, after the coin that rejects: sample the correction "
        "only at the rejected position, after its coin",
        "你在掷任何硬币之前就对好几行调用了 torch.multinomial（预先为每个位置都采样了修正 token）；测试只预设一次 "
        "torch.multinomial 调用，而且是在结果为拒绝的那次掷硬币之后：应只在被拒绝的位置、在它的硬币掷完之后采样修正 token"),
    "runs_too_long": (
        "your function did not return within its time budget {where}: look for a loop that never ends (a while loop "
        "whose index does not move, or one that appends to the list it walks)",
        "你的函数{where}都没有在时间预算内返回：找找有没有永远不会结束的循环（比如下标始终不动的 while 循环，或者一边遍历列表一边往这个列表里追加的循环）"),
    "raises": (
        "your function raises {error} {where}; a hidden check does not show its message: call your function on "
        "such an input in the notebook to see the traceback",
        "你的函数{where}抛出 {error}；隐藏检查不会显示错误信息：在 notebook 里用这样的输入调用你的函数，就能看到完整的回溯信息"),
    "tensor_tokens_fail": (
        "your function raises an error when draft_tokens is a torch.LongTensor, though not when it is a list (for "
        "instance `if not draft_tokens:`, or a list method such as .index): write it for both, with "
        "len(draft_tokens) and int(token_id)",
        "draft_tokens 是 torch.LongTensor 时你的函数会报错，是列表时却不会（比如用了 `if not draft_tokens:`，或者 .index "
        "这类列表方法）：应使用 len(draft_tokens) 和 int(token_id)，让两种输入都能正常运行"),
    "coin_unscripted": (
        "your function never calls torch.rand, yet in the checks with real randomness it kept some p < q tokens: "
        "its coin comes from another source (torch.bernoulli, torch.randint, random, numpy, ...), which the tests "
        "cannot script: draw r = torch.rand(1).item() where p < q and accept if r < p / q",
        "你的函数从不调用 torch.rand，可是在使用真实随机数的检查里，它却保留了一些 p < q 的 token：它的硬币来自别的随机源"
        "（torch.bernoulli、torch.randint、random、numpy 等），测试无法为它预设随机数：应在 p < q 时抽取 r = torch.rand(1).item()，"
        "并在 r < p / q 时接受"),
    "reseeds": (
        "your function sets torch's seed itself (torch.manual_seed inside it), so every call draws the same "
        "numbers and the checks that repeat it with real draws see one outcome again and again: seed once outside "
        "the function, or not at all",
        "你的函数自己设置了 torch 的种子（在函数内部调用了 torch.manual_seed），所以每次调用抽到的随机数都一样，那些用真实随机数反复调用它的检查只会一次又一次看到同一个结果：应在函数外面设置一次种子，或者干脆不设"),
    "not_a_list": (
        "your function returns something other than a plain list of token ids: return accepted_tokens, a list of ints",
        "你的函数返回的不是由 token id 组成的普通列表：应返回 accepted_tokens，即一个 int 列表"),
}


SENTENCES["coin_complement_strict"] = SENTENCES["coin_complement"]  # r > 1 - p / q: the same mistake, its boundary


def sentence(rule, lang="en"):
    return SENTENCES[rule][0 if lang == "en" else 1]


# Where the calls that raised differ from those that did not ("raises": the first that sets them apart), both languages
RAISES_WHERE = {
    "every": ("in every call the checks make", "在检查所做的每一次调用中"),
    "empty": ("when draft_tokens is empty (K = 0)", "在 draft_tokens 为空（K = 0）时"),
    "tensor": ("when draft_tokens is a torch.LongTensor, not when it is a list",
               "在 draft_tokens 是 torch.LongTensor（而不是列表）时"),
    "q_zero": ("when q == 0 at a position it reaches", "在它检查到的某个位置 q == 0 时"),
    "p_zero": ("when p == 0 at a position it reaches", "在它检查到的某个位置 p == 0 时"),
    "some": ("in {n} of the {m} calls the checks make", "在检查所做的 {m} 次调用中有 {n} 次"),
}


def _reached(case, draws):
    """The positions a right answer reads: every p >= q one, and each p < q one with the next scripted draw
    (0.999 past the script, as the checks hand out) until one rejects, that one included."""
    ids = [int(t) for t in case.draft_tokens]
    P, Q = case.target_probs, case.draft_probs
    draws, reached = list(draws or ()), []
    for i, t in enumerate(ids):
        reached.append((i, t))
        p, q = P[i, t].item(), Q[i, t].item()
        if p < q and not (draws.pop(0) if draws else 0.999) < p / q:
            break
    return reached


def _features(case, draws):
    """What a call's input is, for telling the calls that raised from those that did not."""
    P, Q = case.target_probs, case.draft_probs
    reached = _reached(case, draws)
    return {"empty": not [int(t) for t in case.draft_tokens], "tensor": torch.is_tensor(case.draft_tokens),
            "q_zero": any(Q[i, t].item() == 0 for i, t in reached),
            "p_zero": any(P[i, t].item() == 0 for i, t in reached)}


def _traced(calls):
    """(case, scripted draws, trace) of each traced call (run_verify, run_step)."""
    return [(case, _call_args(args, kwargs)[0], trace) for _, helper, case, args, kwargs, trace in calls
            if helper in ("run_verify", "run_step")]


def _where_raised(rows):
    """None when no traced call of ``rows`` (``_traced``) raised; "every"; else the first feature of the input
    (RAISES_WHERE) shared by every call that raised and by none that did not, or "some"."""
    bad = [bool(trace.get("error")) for _, _, trace in rows]
    if not any(bad):
        return None
    if all(bad):
        return "every"
    features = [_features(case, draws) for case, draws, _ in rows]
    return next((f for f in ("empty", "tensor", "q_zero", "p_zero")
                 if all(shown[f] == b for shown, b in zip(features, bad))), "some")


def several_values(shape):
    """Whether a torch.rand call asked for this shape draws more than one value at once (a vector of coins). [1],
    [] and [1, 1] draw one; [0] draws none; an unreadable shape ("?") tells nothing."""
    return all(type(n) is int and n >= 0 for n in shape) and math.prod(shape) > 1


def raised(calls, lang="en", everywhere=False):
    """The "raises" sentence for a run in which the function raised (its type, a builtin's name, and where: the first
    feature of the input shared by every call that raised and by none that did not), or None when no call raised
    (``everywhere``: unless every call raised)."""
    from grading.judge.verdicts import known_error

    rows = _traced(calls)
    errors = [known_error(str(trace.get("error")).split(":")[0]) for _, _, trace in rows if trace.get("error")]
    if not errors:
        return None
    error = max(dict.fromkeys(errors), key=errors.count)
    where = _where_raised(rows)
    if everywhere and where != "every":
        return None
    place = RAISES_WHERE[where][0 if lang == "en" else 1].format(n=len(errors), m=len(rows))
    if error == "TimeBudgetExceeded":  # the helpers' own: the call was stopped, not failed
        return sentence("runs_too_long", lang).format(where=place)
    return sentence("raises", lang).format(error=error, where=place)


# ------------------------------------------------------------------ Level 24: the reference and its mistakes

class _Out:
    def __init__(self):
        self.events, self.tokens, self.error, self.rejected = [], [], None, False


def _values(t):
    return [round(float(x), 7) for x in t.reshape(-1)]


def _normalised(difference):
    r = torch.clamp(difference, min=0)
    return r / r.sum() if r.sum() > 0 else r


def _residual(P, Q, i):
    return _normalised(P[i] - Q[i])


def _without(row, t):
    """The target's row with the rejected token's entry set to 0, normalised."""
    w = row.clone()
    w[t] = 0
    return _normalised(w)


def level24(case, draws, picks, bonus, m=frozenset()):
    """The step (``bonus``: notebook 02's speculative_step; else notebook 01's verify_and_correct) with the
    mistakes named in ``m``; returns its calls and tokens as an _Out."""
    out = _Out()
    P, Q = case.target_probs.double(), case.draft_probs.double()
    ids, k = case.ids, case.k
    draws, picks = list(draws), list(picks)

    def rand():
        out.events.append(["rand", [1]])
        return draws.pop(0) if draws else 0.999

    def multi(values, n=1):
        out.events.append(["multinomial", n, _values(values)])
        return [picks.pop(0) if picks else 0 for _ in range(n)]

    for i, t in enumerate(ids):
        p, q = P[i, t].item(), Q[i, t].item()
        coin = None
        if "coin_every_position" in m:
            coin = rand()
        elif p < q:
            if "multinomial_before_coin" in m:
                early = multi(_residual(P, Q, i))
            coin = rand()
        if "second_coin" in m and p < q and not coin < p / q:  # a rejection flipped again, at the same position
            coin = rand()
        if p >= q or "accepts_every_draft" in m:
            accept = True
        elif "ratio_q_over_p" in m:
            accept = p > 0 and coin < q / p
        elif "coin_reversed" in m:
            accept = coin >= p / q
        else:
            accept = coin < p / q
        if "correction_every_coin" in m and coin is not None and p < q:
            early = multi(_residual(P, Q, i))
        if accept:
            out.tokens.append(t)
            continue
        out.rejected = True
        if "multinomial_before_coin" in m or "correction_every_coin" in m:
            out.tokens += early
        elif "no_correction" in m:
            pass
        elif "correction_argmax" in m:
            out.tokens.append(int(torch.argmax(_residual(P, Q, i))))
        else:
            raw = torch.clamp(P[i] - Q[i], min=0)
            values = {"residual_from_p": P[i], "residual_from_q": Q[i], "residual_not_normalised": raw,
                      "residual_q_minus_p": _residual(Q, P, i), "residual_row_zero": _residual(P, Q, 0),
                      "residual_whole_matrix": None, "residual_abs": (P[i] - Q[i]).abs() / (P[i] - Q[i]).abs().sum(),
                      "residual_q_minus_p_raw": torch.clamp(Q[i] - P[i], min=0),
                      "residual_softmax": torch.softmax(raw, dim=-1),
                      "residual_softmax_raw": torch.softmax(P[i] - Q[i], dim=-1),
                      # Categorical(logits=residual) on the normalised residual: its softmax
                      "residual_softmax_normalised": torch.softmax(_residual(P, Q, i), dim=-1),
                      "residual_min": torch.minimum(P[i], Q[i]) / torch.minimum(P[i], Q[i]).sum(),
                      "residual_without_token": _without(P[i], t)}
            for mistake, row, other in (("residual_row_token", t, t), ("residual_next_target_row", i + 1, i)):
                if mistake in m:
                    if row >= P.shape[0] or other >= Q.shape[0]:  # an IndexError before torch.multinomial
                        out.error = "IndexError"
                        return out
                    values[mistake] = _normalised(P[row] - Q[other])
            chosen = next((values[x] for x in m if x in values), _residual(P, Q, i))
            if "residual_whole_matrix" in m:
                if P.shape[0] != Q.shape[0]:
                    out.error = "RuntimeError"
                    return out
                w = torch.clamp(P - Q, min=0).sum(0)
                chosen = w / w.sum()
            got = multi(chosen, 2 if "two_corrections" in m else 1)
            if "correction_only" in m:  # the accepted prefix dropped
                out.tokens = got
            else:
                out.tokens += [i] if "correction_appends_position" in m else [t] if "correction_appends_draft" in m \
                    else [t] + got if "correction_after_draft" in m else got
        if "bonus_after_reject" in m and bonus:
            out.tokens += multi(P[k])
        if "continue_after_correction" in m:
            continue
        return out
    if bonus:
        if k == 0 and "empty_draft_error" in m:
            out.error = "NameError"
            return out
        if "no_bonus" in m or "no_bonus_empty_draft" in m and k == 0:
            return out
        if "bonus_argmax" in m:
            out.tokens.append(int(torch.argmax(P[k])))
            return out
        row = P[k - 1] if "bonus_row_k_minus_1" in m and k else Q[k - 1] if "bonus_from_draft" in m and k else P[k]
        if "bonus_before_coins" in m:
            return out  # modelled by its order below (see _bonus_first)
        got = multi(row)
        if "bonus_replaces_last" in m and out.tokens:
            out.tokens[-1:] = got
        else:
            out.tokens += got
    return out


def _order(o):
    return "".join("r" if e[0] == "rand" else "m" for e in o["events"])


def _first_multi(o):
    multis = [e for e in o["events"] if e[0] == "multinomial"]
    return multis[0][2] if multis else None


def _last_multi(o):
    multis = [e for e in o["events"] if e[0] == "multinomial"]
    return multis[-1][2] if multis else None


def _same_values(a, b):
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(isinstance(x, (int, float)) and math.isfinite(x) and abs(x - y) <= TOL
                                    for x, y in zip(a, b))


ASPECTS = {  # what a rule compares: (extract, equal)
    "correction": (_first_multi, _same_values),
    "bonus": (_last_multi, _same_values),
    "order": (_order, lambda a, b: a == b),
    "tokens": (lambda o: o["tokens"], lambda a, b: a == b),
    "tokens_order": (lambda o: (o["tokens"], _order(o)), lambda a, b: a == b),
    "error": (lambda o: o["error"] is not None, lambda a, b: a == b),
}

# rule id: (the mistakes it models, aspect)
LEVEL24_RULES = {
    "ratio_q_over_p": ({"ratio_q_over_p"}, "tokens_order"),
    "residual_from_p": ({"residual_from_p"}, "correction"),
    "residual_from_q": ({"residual_from_q"}, "correction"),
    "residual_not_normalised": ({"residual_not_normalised"}, "correction"),
    "residual_q_minus_p": ({"residual_q_minus_p"}, "correction"),
    "residual_row_zero": ({"residual_row_zero"}, "correction"),
    "residual_abs": ({"residual_abs"}, "correction"),
    "residual_whole_matrix": ({"residual_whole_matrix"}, "correction"),
    "residual_row_token": ({"residual_row_token"}, "correction"),
    "residual_next_target_row": ({"residual_next_target_row"}, "correction"),
    "residual_softmax": ({"residual_softmax"}, "correction"),
    "residual_min": ({"residual_min"}, "correction"),
    "residual_without_token": ({"residual_without_token"}, "correction"),
    "coin_reversed": ({"coin_reversed"}, "tokens_order"),
    "accepts_every_draft": ({"accepts_every_draft"}, "tokens"),
    "correction_only": ({"correction_only"}, "tokens_order"),
    "correction_appends_draft": ({"correction_appends_draft"}, "tokens_order"),
    "correction_after_draft": ({"correction_after_draft"}, "tokens_order"),
    "correction_argmax": ({"correction_argmax"}, "tokens_order"),
    "no_correction": ({"no_correction"}, "tokens_order"),
    "correction_appends_position": ({"correction_appends_position"}, "tokens_order"),
    "two_corrections": ({"two_corrections"}, "tokens"),
    "multinomial_before_coin": ({"multinomial_before_coin"}, "order"),
    "correction_every_coin": ({"correction_every_coin"}, "order"),
    "coin_every_position": ({"coin_every_position"}, "order"),
    "second_coin": ({"second_coin"}, "order"),
    "continue_after_correction": ({"continue_after_correction"}, "tokens_order"),
    "bonus_row_k_minus_1": ({"bonus_row_k_minus_1"}, "bonus"),
    "bonus_from_draft": ({"bonus_from_draft"}, "bonus"),
    "bonus_argmax": ({"bonus_argmax"}, "tokens_order"),
    "no_bonus": ({"no_bonus"}, "tokens_order"),
    "no_bonus_empty_draft": ({"no_bonus_empty_draft"}, "tokens_order"),
    "bonus_replaces_last": ({"bonus_replaces_last"}, "tokens"),
    "bonus_after_reject": ({"bonus_after_reject"}, "order"),
    "empty_draft_error": ({"empty_draft_error"}, "error"),
}


def _as_dict(o):
    return {"events": o.events, "tokens": o.tokens, "error": o.error, "rejected": o.rejected}


_MODELS = {}


def _model(case, draws, picks, bonus, mistakes=frozenset()):
    """``level24`` as a dict, remembered in this grading process: a model depends on the case, the scripted draws and
    the mistakes only, never on the student, and the diagnosis asks for the same ones in every notebook of a class
    (recomputing them was about 60 ms a notebook of Levels 24's 01 and 02, the grader's largest part). Read only."""
    key = repr((case.wire, list(draws), list(picks), bool(bonus), sorted(mistakes)))
    if key not in _MODELS:
        if len(_MODELS) > 50_000:
            _MODELS.clear()
        _MODELS[key] = _as_dict(level24(case, draws, picks, bonus, frozenset(mistakes)))
    return _MODELS[key]


def _bonus_first(trace):
    order = "".join("r" if e[0] == "rand" else "m" for e in trace["events"])
    return "m" in order and "r" in order[order.index("m"):]


def _leading_multinomials(trace):
    """How many torch.multinomial calls the function made before its first torch.rand."""
    order = "".join("r" if e[0] == "rand" else "m" for e in trace["events"])
    return len(order) - len(order.lstrip("m"))


def _call_args(args, kwargs):
    draws = args[0] if len(args) > 0 else kwargs.get("draws", ())
    picks = args[1] if len(args) > 1 else kwargs.get("picks", ())
    return draws, picks


def level24_evidence(calls, bonus):
    """{rule: (calls that show it, calls where it could show)} over the traced calls; plus the predicates."""
    evidence, bonus_made = {}, False
    for index, (check, helper, case, args, kwargs, trace) in enumerate(calls):
        if helper != "run_step":
            continue
        student = {"events": trace["events"], "tokens": trace["tokens"], "error": trace["error"]}
        draws, picks = _call_args(args, kwargs)
        right = _model(case, draws, picks, bonus)
        for rule, (mistakes, aspect) in LEVEL24_RULES.items():
            if not bonus and rule.startswith(("bonus", "no_bonus", "empty_draft")):
                continue
            extract, equal = ASPECTS[aspect]
            models = [_model(case, draws, picks, bonus, ms)
                      for ms in [mistakes] + ALTERNATIVES.get(rule, [])]
            models = [mo for mo in models if not equal(extract(mo), extract(right))]
            if not models:
                continue
            shows, could = evidence.setdefault(rule, (set(), set()))
            could.add(index)
            # a weights aspect shows only where the function called torch.multinomial (a model that raises before
            # it gives None there, as does a function that never reached it)
            if any(equal(extract(student), extract(mo)) and (
                    aspect not in ("correction", "bonus") or extract(student) is not None
                    or student["error"] is not None and student["error"] == mo["error"]) for mo in models) and (
                    aspect == "error" or student["error"] is None or aspect in ("correction", "bonus", "order")):
                shows.add(index)
        first = _first_multi(student)
        if first is not None and right["rejected"]:  # a rejection: which row's residual was it?
            i = len(right["tokens"]) - 1
            P, Q = case.target_probs.double(), case.draft_probs.double()
            shows, could = evidence.setdefault("residual_other_row", (set(), set()))
            could.add(index)
            if any((a, b) != (i, i) and (_same_values(first, _values(_normalised(P[a] - Q[b])))
                                         or _same_values(first, _values(torch.clamp(P[a] - Q[b], min=0))))
                   for a in range(P.shape[0]) for b in range(Q.shape[0])):
                shows.add(index)
            if not trace.get("refused"):  # the right weights, scaled by something other than 1 or the raw sum
                weights = _first_multi(right)
                scale = sum(first) if all(isinstance(x, (int, float)) and math.isfinite(x) for x in first) else None
                raw = sum(_values(torch.clamp(P[i] - Q[i], min=0)))
                shows, could = evidence.setdefault("residual_scaled", (set(), set()))
                could.add(index)
                if (scale and weights and abs(scale - 1) > 1e-4 and abs(scale - raw) > 1e-4
                        and _same_values(first, [scale * w for w in weights])):
                    shows.add(index)
        last = _last_multi(student)
        if bonus and not right["rejected"] and last is not None:  # every draft accepted: which row's bonus was it?
            P, Q = case.target_probs.double(), case.draft_probs.double()
            shows, could = evidence.setdefault("bonus_other_row", (set(), set()))
            could.add(index)
            if not _same_values(last, _values(P[case.k])):
                shows.add(index)
        all_accepted = not right["rejected"] and (not bonus or case.k > 0)
        predicates = {"no_num_samples": trace.get("no_num_samples"), "multinomial_refused": trace.get("refused"),
                      "bonus_error": bonus and all_accepted and trace["error"] is not None,
                      "extra_token_all_accepted": not bonus and all_accepted and trace["tokens"] is not None
                      and trace["tokens"][:len(right["tokens"])] == right["tokens"]
                      and len(trace["tokens"]) == len(right["tokens"]) + 1,
                      "vector_coin": any(e[0] == "rand" and several_values(e[1]) for e in trace["events"]),
                      "many_samples": any(e[0] == "multinomial" and isinstance(e[1], int) and e[1] > 1
                                          for e in trace["events"]),
                      "inputs_changed": trace["inputs_changed"], "reseeds": trace.get("reseeded") is True,
                      "not_a_list": (trace["tokens"] is None or trace.get("plain") is False)
                      and trace["error"] is None and trace.get("result_type") != "list",
                      "not_token_ids": (trace["tokens"] is None or trace.get("plain") is False)
                      and trace["error"] is None and trace.get("result_type") == "list",
                      "multinomial_every_row": _leading_multinomials(trace) >= 2,
                      **{rule: source in (trace.get("foreign") or ()) for source, rule in SAMPLER_RULES.items()},
                      "bonus_before_coins": bonus and _bonus_first(trace) and not right["rejected"]
                      and "r" in _order(right)}
        for rule, shown in predicates.items():
            shows, could = evidence.setdefault(rule, (set(), set()))
            could.add(index)
            if shown:
                shows.add(index)
        bonus_made = bonus_made or bonus and all_accepted and trace["error"] is None and trace["tokens"] is not None
        if trace["error"] is None and trace["tokens"] is not None and not any(
                e[0] == "multinomial" for e in trace["events"]) and len(trace["tokens"]) > len(
                right["tokens"]) - 1 and right["tokens"] and "m" in _order(right) and student["tokens"] != right[
                "tokens"] and len(trace["tokens"]) == len(right["tokens"]) and trace["tokens"][:-1] == right[
                "tokens"][:-1] and right["rejected"] and trace["tokens"][-1] != case.ids[len(right["tokens"]) - 1]:
            # (the rejected draft kept in its place is an accept, not a correction)
            evidence.setdefault("correction_not_multinomial", (set(), set()))[0].add(index)
    if bonus_made and "bonus_error" in evidence:  # the bonus was made where every draft was accepted: an error
        evidence["bonus_error"][0].clear()       # in another such call comes from something else (its input)
    return evidence



PAIR_RULES = ("pair_call_per_position", "pair_positions_k", "pair_no_cache", "pair_other_cache", "pair_no_rollback",
              "pair_crop_short", "pair_crop_long", "pair_last_rejected_kept", "pair_cache_not_grown",
              "pair_cache_below_start", "pair_crop_fixed", "pair_never_accepts", "pair_drops_last_draft",
              "pair_returns_last_token", "pair_new_token_argmax", "pair_tokens_not_greedy")
# Models of the rows a step was given wrongly (notebook 03 at temperatures above 0): the target's rows and the
# draft's rows each model passes to the step, from the logits and draft_probs.
PAIR_ROW_MODELS = ("pair_temperature_twice", "pair_temperature_missing", "pair_probs_as_logits",
                   "pair_draft_retempered", "pair_greedy_acceptance")


def _pair_helpers(case):
    """The trusted helpers module's names, reached through the case it built (the module is not in sys.modules)."""
    return type(case).__init__.__globals__


def _pair_model_rows(rule, logits, q, temperature, rows):
    if rule == "pair_temperature_twice":
        return rows(logits / temperature, temperature), q
    if rule == "pair_temperature_missing":
        return rows(logits, 1.0), q
    if rule == "pair_probs_as_logits":
        return rows(torch.softmax(logits.float(), dim=-1), temperature), q
    return rows(logits, temperature), torch.softmax(torch.log(q) / temperature, dim=-1)  # pair_draft_retempered


def pair_evidence(calls):
    """{rule: (calls that show it, calls where it could show)} for notebook 03's pair_steps checks: each state's
    target calls, the cache's length after it against its start and the tokens returned, the row handed to
    torch.multinomial against models of wrong rows, and the tokens against a greedy acceptance. A cache rule fires
    only when the states tell it from the others (a rejection at the last draft looks the same kept or not)."""
    evidence = {rule: (set(), set()) for rule in PAIR_RULES + PAIR_ROW_MODELS}
    # never a draft kept, in any state of any check (one check's states alone can look so: greedy ones rejecting)
    every = [(len(step["tokens"]), want["accepted"]) for _, helper, case, _, _, trace in calls if helper == "pair_steps"
             for step, want in zip(trace.get("steps", ()), case.expected()) if not step["error"] and step["tokens"]]
    never_kept = any(a > 0 for _, a in every) and all(n == 1 for n, _ in every)
    # the new token taken as its row's argmax: every sampled state whose tokens are wrong shows it, and one does
    wrong = [(st, step, want) for _, helper, case, _, _, trace in calls if helper == "pair_steps"
             for st, step, want in zip(case.states, trace.get("steps", ()), case.expected())
             if st.temperature > 0 and not step["error"] and step["tokens"] and step["tokens"] != want["tokens"]]
    argmax_steps = {id(step) for st, step, want in wrong if int(want["weights"].argmax()) != st.pick
                    and step["tokens"][:-1] == want["tokens"][:-1] and step["tokens"][-1] == int(want["weights"].argmax())}
    argmax_everywhere = bool(wrong) and len(argmax_steps) == len(wrong)
    for index, (check, helper, case, args, kwargs, trace) in enumerate(calls):
        if helper != "pair_steps" or not trace.get("steps"):
            continue
        h = _pair_helpers(case)
        states = list(zip(case.states, trace["steps"], case.expected()))
        for rule in PAIR_RULES:
            evidence[rule][1].add(index)
        cached = [[c for c in step["calls"] if c[0] == 1] for _, step, _ in states]
        if any(len(c) > 1 for c in cached):
            evidence["pair_call_per_position"][0].add(index)
        # (a state whose drafts repeat last_token, "    " after a space, tells neither call from the other)
        if any(st.k > 0 and any(c[4] == st.drafts != [st.ids[-1]] + st.drafts[:-1] for c in cs)
               for (st, _, _), cs in zip(states, cached)):
            evidence["pair_positions_k"][0].add(index)
        if any(st.k > 0 and any(c[4] == [st.ids[-1]] + st.drafts[:-1] != st.drafts for c in cs)
               for (st, _, _), cs in zip(states, cached)):
            evidence["pair_drops_last_draft"][0].add(index)
        ok = [(st, step, want) for st, step, want in states if not step["error"] and step["tokens"]]
        if ok and all(step["tokens"] == [st.ids[-1]] + want["tokens"] for st, step, want in ok):
            evidence["pair_returns_last_token"][0].add(index)
        if argmax_everywhere and any(id(step) in argmax_steps for _, step, _ in states):
            evidence["pair_new_token_argmax"][0].add(index)
        if any(c[0] == 2 for _, step, _ in states for c in step["calls"]):
            evidence["pair_no_cache"][0].add(index)
        if any(c[1] == 0 for _, step, _ in states for c in step["calls"]):
            evidence["pair_other_cache"][0].add(index)
        grown = [(step["length"] - st.start, len(step["tokens"]), st.k) for st, step, _ in states
                 if not step["error"] and step["tokens"] and step["length"] >= 0]
        if any(g < 0 for g, _, _ in grown):
            evidence["pair_cache_below_start"][0].add(index)
        rejected = [(g, n, k) for g, n, k in grown if n < k + 1]
        wrong = [(g, n, k) for g, n, k in rejected if g != n]  # the states whose cache is off
        if wrong and all(g == k + 1 for g, _, k in wrong) and any(n + 1 != k + 1 for _, n, k in wrong):
            evidence["pair_no_rollback"][0].add(index)  # (in some steps: a crop in one branch only)
        if rejected and all(g == n + 1 for g, n, _ in rejected) and any(n + 1 != k + 1 for _, n, k in rejected):
            evidence["pair_crop_long"][0].add(index)
        last = [(g, n, k) for g, n, k in grown if k > 1 and n == k]  # only the last draft rejected
        if last and all(g == k + 1 for g, _, k in last) and all(g == n for g, n, k in grown if not (k > 1 and n == k)):
            evidence["pair_last_rejected_kept"][0].add(index)
        if never_kept and any(want["accepted"] > 0 for _, _, want in states):
            evidence["pair_never_accepts"][0].add(index)
        short = bool(grown) and all(g == n - 1 for g, n, _ in grown)
        if short and any(n > 1 for _, n, _ in grown):
            evidence["pair_crop_short"][0].add(index)
        if grown and all(g == 0 for g, _, _ in grown):
            evidence["pair_cache_not_grown"][0].add(index)
        sizes = {g for g, _, _ in grown}
        if len(sizes) == 1 and 0 < min(sizes) and len({n for _, n, _ in grown}) > 1 and not short:
            evidence["pair_crop_fixed"][0].add(index)
        right_calls = all(len(cs) == 1 and cs[0][4] == [st.ids[-1]] + st.drafts and len(step["calls"]) == 1
                          for (st, step, _), cs in zip(states, cached))
        right_cache = all(g == n for g, n, _ in grown) and len(grown) == len(states)
        wrong_tokens = any(step["tokens"] != want["tokens"] for _, step, want in states)
        counts = {rule: [0, 0] for rule in PAIR_ROW_MODELS}  # states that show the model, states where it could
        for st, step, want in states:
            if step["error"]:
                continue
            logits = want["logits"]
            if st.temperature > 0:
                p = h["_tiny_lm"]()[0].rows(logits, st.temperature)
                best = [int(x) for x in p.argmax(dim=-1)]
                n = next((i for i, t in enumerate(st.drafts) if t != best[i]), st.k)
                if st.drafts[:n] + [best[n]] != want["tokens"]:
                    counts["pair_greedy_acceptance"][1] += 1
                    if not step["events"] and step["tokens"] == st.drafts[:n] + [best[n]]:
                        counts["pair_greedy_acceptance"][0] += 1
            if not step["events"] or len(step["events"][-1][2]) < 128:
                continue
            got = h["_normalise"](torch.tensor(step["events"][-1][2][:128], dtype=torch.float64))
            q = st.q_rows()
            for rule in PAIR_ROW_MODELS[:-1]:
                if (rule == "pair_temperature_missing" and st.temperature == 1) or (
                        st.temperature == 0 and rule != "pair_temperature_missing"):
                    continue
                pm, qm = _pair_model_rows(rule, logits, q, st.temperature, h["_tiny_lm"]()[0].rows)
                _, model = h["step_model"](pm, qm, st.drafts, st.r)
                if float((model - want["weights"]).abs().max()) > 1e-3:
                    counts[rule][1] += 1
                    if float((got - model).abs().max()) < 1e-4:
                        counts[rule][0] += 1
        if all(len(step["tokens"] or ()) <= 1 for _, step, _ in states):  # never a draft kept: pair_never_accepts
            counts["pair_greedy_acceptance"][0] = 0
        for rule, (shown, could) in counts.items():
            if could:
                evidence[rule][1].add(index)
                if shown and shown * 2 >= could:
                    evidence[rule][0].add(index)
        if right_calls and right_cache and wrong_tokens and not trace_error(trace):
            evidence["pair_tokens_not_greedy"][0].add(index)
    return evidence


def trace_error(trace):
    return any(step.get("error") for step in trace.get("steps", ()))


def pair_raised(calls, lang="en", everywhere=False):
    """The sentence for a verify_drafts that raised on the states of notebook 03 (its type, a builtin's name, and where
    in the step), or None (``everywhere``: unless it raised on every state it was given)."""
    from grading.judge.verdicts import known_error

    steps = [step for _, helper, _, _, _, trace in calls if helper == "pair_steps" for step in trace.get("steps", ())]
    errors = [step["error"] for step in steps if step.get("error")]
    if not errors or (everywhere and len(errors) * 2 <= len(steps)):  # in most states: what else shows follows
        return None
    error, where = max((tuple(e) for e in errors), key=errors.count)
    error = known_error(error)
    if error == "TimeBudgetExceeded":
        return sentence("runs_too_long", lang).format(where=RAISES_WHERE["every"][0 if lang == "en" else 1].format(
            n=len(errors), m=len(steps)))
    return sentence("pair_raises", lang).format(error=error, where=where, n=len(errors), m=len(steps))


# Other models of the same mistake (the same sentence): max(0, q - p) normalised or not.
ALTERNATIVES = {"residual_q_minus_p": [{"residual_q_minus_p_raw"}], "residual_softmax": [{"residual_softmax_raw"},
                                                                                     {"residual_softmax_normalised"}]}

# ------------------------------------------------------------------ choosing the line

# The samplers other than torch.multinomial whose stand-ins the checks hand the scripted tokens, by the rule that names
# each (spec_checks.FOREIGN).
SAMPLER_RULES = {"numpy.random.choice": "sampler_numpy_choice", "random.choices": "sampler_random_choices"}
PREDICATE_RULES = tuple(SAMPLER_RULES.values()) + PAIR_RULES + ("no_num_samples", "vector_coin", "many_samples", "inputs_changed", "reseeds", "not_a_list", "not_token_ids", "multinomial_every_row",
                                "bonus_before_coins", "correction_not_multinomial", "multinomial_refused",
                                "bonus_error", "extra_token_all_accepted")


# Deterministic mistakes a random one can look like by chance (random.choices picks the argmax now and then), and
# the residuals from a fixed row and from row token_id, which match each other whenever the rejected token's id is
# 0, and the coins that accept every draft, accept the other way round or against q / p, which agree with each
# other on the draws where both accept: they fire only when every call where they could show does.
EVERY_CALL = ("correction_argmax", "bonus_argmax", "residual_row_zero", "residual_row_token", "accepts_every_draft",
              "coin_reversed", "ratio_q_over_p",
              # as many draws as a coin at every position, where a second coin after a rejection makes them too: a
              # coin where p >= q shows in every call that reaches such a position, draws where none is due
              "coin_every_position", "second_coin")


def fired(calls, failed, evidence):
    """[(rule, the failed checks it explains)], most explained first; a rule fires when a call of a failed
    check shows it and (for a model rule) at least half of the calls where it could show do."""
    failed = set(failed)
    traced = {check for check, *_ in calls}
    out = []
    for rule, (shows, could) in evidence.items():
        explained = {calls[i][0] for i in shows} & failed
        if rule == "reseeds" and shows:  # a seed set inside the function also spoils every check of real draws
            explained |= failed - traced
        if not explained:
            continue
        if rule not in PREDICATE_RULES and len(shows) * 2 < len(could):
            continue
        if rule in EVERY_CALL and shows != could:
            continue
        out.append((rule, explained, len(shows)))
    out.sort(key=lambda x: (-len(x[1]), -x[2], x[0]))
    # a rule whose explained checks another rule's include, and that shows in no more calls, adds nothing
    names = {rule for rule, _, _ in out}
    hidden = {s for rule in names for s in _SUBSUMED.get(rule, ())}
    kept = [(rule, explained) for rule, explained, _ in out if rule not in hidden or rule in _SUBSUMED.get(rule, ())]
    if not kept and out:  # rules that hide each other: keep the first
        kept = [out[0][:2]]
    # a rule's behaviour makes the rules it subsumes look true, so the checks they explain follow from it too
    found = {rule: explained for rule, explained, _ in out}
    return [(rule, explained | set().union(*(found.get(s, set()) for s in _SUBSUMED.get(rule, ()))))
            for rule, explained in kept]


# A mistake whose model's behaviour implies the other's aspect (the first makes the second look true).
_SUBSUMED = {
    "correction_every_coin": ("residual_row_zero", "residual_other_row", "residual_abs"),
    "multinomial_before_coin": ("residual_row_zero", "residual_other_row", "residual_abs"),
    # a correction sampled at every position samples each row's own residual, all zero (refused) where p >= q at
    # every token: the first call reads row 0, as row token_id does where the first draft is token 0
    "multinomial_every_row": ("residual_row_zero", "residual_row_token", "residual_other_row", "residual_abs",
                              "multinomial_before_coin", "correction_every_coin", "multinomial_refused"),
    "vector_coin": ("ratio_q_over_p", "coin_every_position"),
    "no_num_samples": ("empty_draft_error", "bonus_error", "multinomial_refused"),
    "bonus_error": ("empty_draft_error",),
    "multinomial_refused": ("residual_abs", "empty_draft_error"),
    "correction_argmax": ("correction_not_multinomial", "correction_appends_position"),
    "bonus_argmax": ("correction_not_multinomial",),
    "no_correction": ("correction_argmax", "continue_after_correction"),
    "coin_every_position": ("ratio_q_over_p",),
    "bonus_after_reject": ("two_corrections", "continue_after_correction"),
    "two_corrections": ("many_samples",),
    "residual_not_normalised": ("residual_scaled",),
    "residual_row_zero": ("residual_other_row",),
    # row i's max(0, q - p): in the tests' rows a one-token residual, which another pair of rows can give too
    "residual_q_minus_p": ("residual_other_row",),
    "residual_row_token": ("residual_other_row", "residual_row_zero"),
    "residual_next_target_row": ("residual_other_row",),
    "bonus_row_k_minus_1": ("bonus_other_row",),
    "coin_reversed": ("accepts_every_draft",),
    "bonus_from_draft": ("bonus_other_row",),
    "no_bonus": ("no_bonus_empty_draft",),
    # notebook 03: a model of the rows, or of the step, explains the wrong tokens; a cache rule the others' lengths
    **{rule: ("pair_tokens_not_greedy", "pair_never_accepts") for rule in PAIR_ROW_MODELS},
    "pair_never_accepts": ("pair_tokens_not_greedy",),
    "pair_other_cache": ("pair_cache_not_grown", "pair_crop_fixed", "pair_crop_short", "pair_cache_below_start"),
    "pair_no_cache": ("pair_cache_not_grown", "pair_crop_fixed", "pair_crop_short", "pair_cache_below_start"),
    "pair_no_rollback": ("pair_crop_fixed", "pair_last_rejected_kept"),
    "pair_crop_long": ("pair_last_rejected_kept", "pair_crop_fixed"),
    "pair_crop_fixed": ("pair_cache_not_grown",),
    "pair_crop_short": ("pair_cache_not_grown",),
    "pair_call_per_position": ("pair_positions_k", "pair_cache_not_grown", "pair_crop_fixed"),
    "pair_positions_k": ("pair_never_accepts", "pair_tokens_not_greedy", "pair_cache_not_grown", "pair_crop_fixed"),
    "pair_drops_last_draft": ("pair_never_accepts", "pair_tokens_not_greedy", "pair_cache_not_grown", "pair_crop_fixed",
                              "pair_crop_short", "pair_crop_long", "pair_no_rollback"),
    "pair_returns_last_token": ("pair_crop_short", "pair_tokens_not_greedy", "pair_cache_not_grown", "pair_crop_fixed"),
    "pair_new_token_argmax": ("pair_tokens_not_greedy",),
}


def line(judge, level, lang="en"):
    """The diagnosis line for the run ``judge`` made (Level ``level``: 23 or 24)."""
    words = FRAME[lang]
    if judge.kernel_gone:
        return words["prefix"] + words["not_made"].format(why=judge.kernel_gone.rstrip("."))
    failed = [c for c in judge.failed if c is not None]
    if not failed:
        return words["prefix"] + words["none"]
    error = raised(judge.calls, lang, everywhere=True) or pair_raised(judge.calls, lang, everywhere=True)
    if error is not None:  # an error in every call hides whatever else it would do
        return words["prefix"] + error
    rules = diagnose(judge, level)
    if _where_raised(_traced(judge.calls)) == "tensor":  # what else fails there follows from the error
        rules = [("tensor_tokens_fail", ())] + [r for r in rules if r[0] not in ("bonus_error", "empty_draft_error")]
    if not rules:
        error = raised(judge.calls, lang) or pair_raised(judge.calls, lang)
        if error is not None:
            return words["prefix"] + error
        return words["prefix"] + words["unknown"].format(checks=", ".join(dict.fromkeys(failed)))
    judge.diagnosed = {"explained": set().union(*(set(explained) for _, explained in rules))}
    text = sentence(rules[0][0], lang)
    if len(rules) > 1:
        text += words["also"].format(others=words["sep"].join(sentence(r, lang) for r, _ in rules[1:]))
    return words["prefix"] + text


def diagnose(judge, level):
    """[(rule, explained checks)] for the run, most explained first. Level 24 only: Level 23's line is looked up in
    grading/judge/diagnoses.json, then given by its own rules (grading/judge/rules23.py), both from grading/judge/diagnosis.py line."""
    if level != 24:
        raise ValueError(f"Level {level}'s diagnosis is grading/judge/diagnosis.py line's (the lookup, then grading/judge/rules23.py)")
    bonus = any(c[2].target_probs.shape[0] == c[2].k + 1 for c in judge.calls if c[1] == "run_step")
    evidence = level24_evidence(judge.calls, bonus)
    evidence.update(pair_evidence(judge.calls))
    return fired(judge.calls, judge.failed, evidence)
