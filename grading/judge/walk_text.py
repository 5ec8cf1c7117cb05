"""The words of the generated-cases check (grading/judge/generated.py): the smallest case where the student's
function and the rule part, walked position by position. English and Chinese, the same ids and {blanks}
(tests/test_generated.py checks them)."""

WORDS = {
    "en": {
        "head": "On {count} generated drafts, {function} and the rule part on {parted}; the smallest of those:",
        "head_other": "On {count} generated drafts, this shows on {parted}; the smallest of those:",
        "other_type": "{function} returned a {type}, not a plain list of ints.",
        "other_generator": "{function} drew with {others}, not torch.rand.",
        "other_shapes": "{function} asked torch.rand for the shapes {shapes}; a draw is torch.rand(1), one value.",
        "head_cut": "{function} ran on {ran} of {count} generated drafts before its time ran out; the smallest "
                    "where it and the rule part:",
        "inputs": "  draft_tokens = {tokens} (a {kind}), a vocabulary of {vocab} token ids",
        "kind_list": "list",
        "kind_tensor": "torch.LongTensor",
        "rows": "  target_probs = {target}\n  draft_probs  = {draft}",
        "script": "  torch.rand hands out {draws}, then {overflow} for any further draw",
        "no_script": "  torch.rand hands out {overflow} for any draw",
        "empty": "  (an empty draft: there is no position to verify)",
        "step_accept": "  position {i}: token {t}, p = {p} >= q = {q}: accept it, no draw",
        "step_stop_m1": "  position {i}: token {t}, p = {p} < q = {q}: stop here (Mission 1's break)",
        "step_coin_accept": "  position {i}: token {t}, p = {p} < q = {q}: draw r = {r}; r < p/q = {ratio}: accept it",
        "step_coin_reject": "  position {i}: token {t}, p = {p} < q = {q}: draw r = {r}; r < p/q = {ratio} fails: "
                            "reject it and stop",
        "step_after": "  positions {first} to {last}: not reached",
        "step_after_one": "  position {first}: not reached",
        "rule": "The rule returns {tokens} after {draws} draw(s).",
        "yours": "{function} returned {tokens} after {draws} draw(s).",
        "yours_raised": "{function} raised {error} after {draws} draw(s){where}",
        "where": ", at line {line} of your {function} cell: {code}",
        "where_line": ", at line {line} of your {function} cell",
        "yours_inputs": "{function} also changed draft_probs, target_probs or draft_tokens.",
        "part_tokens": "They part at item {n} of the result (counting from 0): the rule has {want} there, {function} "
                       "has {got}.",
        "part_item": "{value}",
        "part_nothing": "no item",
        "part_draws": "They return the same tokens, but {function} drew {got} time(s) where the rule draws {want}.",
        "replay": "Replay it in your notebook: {call}",
        "summary": "on a generated draft of {k} position(s) ({tokens}, draws {draws}) the rule returns {want} "
                   "after {want_draws} draw(s), your function {got} after {got_draws}",
        "summary_raised": "on a generated draft of {k} position(s) ({tokens}, draws {draws}) your function raised "
                          "{error}{where}",
        "l24_script": "  torch.rand hands out {draws}, then 0.999; torch.multinomial hands out {picks}, then 0",
        "l24_summary": "on a generated draft of {k} position(s) ({tokens}, draws {draws}, samples {picks}) the rule "
                       "returns {want} with the calls {want_order}, your function {got} with {got_order}",
        "l24_summary_weights": "on a generated draft of {k} position(s) ({tokens}, draws {draws}, samples {picks}), at "
                               "torch.multinomial call {n} the rule samples from {want_w}, your function from {got_w}",
        "l24_script_no_draws": "  torch.rand hands out 0.999 for any draw; torch.multinomial hands out {picks}, then 0",
        "l24_reject": "  position {i}: token {t}, p = {p} < q = {q}: draw r = {r}; r < p/q = {ratio} fails: reject it; "
                      "the correction is sampled from row {i}'s max(0, p - q), normalised, {weights}: "
                      "torch.multinomial hands out token {pick}, and the step ends",
        "l24_bonus": "  every draft accepted: the bonus is sampled from target_probs[{k}] = {weights}: torch.multinomial "
                     "hands out token {pick}",
        "l24_rule": "The rule returns {tokens}, with {coins} torch.rand and {calls} torch.multinomial call(s), in the "
                    "order {order} (r: torch.rand, m: torch.multinomial).",
        "l24_yours": "{function} returned {tokens}, with {coins} torch.rand and {calls} torch.multinomial call(s), in "
                     "the order {order}.",
        "l24_part_weights": "They part at torch.multinomial call {n}: the rule samples from {want}, {function} from "
                            "{got}.",
        "unknown_case": "your function does not behave like any mistake we know, so none is named here; the "
                        "smallest case it gets wrong: {summary} (the last hidden check walks it, position by "
                        "position).",
        "smallest": " The smallest generated case it gets wrong: {summary}.",
    },
    "zh": {
        "head": "在 {count} 个生成的草稿中，{function} 与规则在 {parted} 个草稿上结果不一致；其中最小的一例：",
        "head_other": "在 {count} 个生成的草稿中，有 {parted} 个出现这种情况；其中最小的一例：",
        "other_type": "{function} 返回的是 {type}，不是由 int 组成的普通列表。",
        "other_generator": "{function} 用 {others} 抽取，而不是 torch.rand。",
        "other_shapes": "{function} 向 torch.rand 要的形状是 {shapes}；每次抽取应是 torch.rand(1)，只取一个值。",
        "head_cut": "在时限用完之前，{function} 只运行了 {count} 个生成的草稿中的 {ran} 个；其中它与规则结果不一致的最小一例：",
        "inputs": "  draft_tokens = {tokens}（{kind}），词表共 {vocab} 个 token id",
        "kind_list": "列表",
        "kind_tensor": "torch.LongTensor",
        "rows": "  target_probs = {target}\n  draft_probs  = {draft}",
        "script": "  torch.rand 依次给出 {draws}，之后每次都给出 {overflow}",
        "no_script": "  torch.rand 每次都给出 {overflow}",
        "empty": "  （空草稿：没有需要验证的位置）",
        "step_accept": "  位置 {i}：token {t}，p = {p} >= q = {q}：直接接受，不抽随机数",
        "step_stop_m1": "  位置 {i}：token {t}，p = {p} < q = {q}：在这里停止（Mission 1 预先写好的 break）",
        "step_coin_accept": "  位置 {i}：token {t}，p = {p} < q = {q}：抽取 r = {r}；r < p/q = {ratio} 成立：接受",
        "step_coin_reject": "  位置 {i}：token {t}，p = {p} < q = {q}：抽取 r = {r}；r < p/q = {ratio} 不成立：拒绝并停止",
        "step_after": "  位置 {first} 到 {last}：不会到达",
        "step_after_one": "  位置 {first}：不会到达",
        "rule": "规则返回 {tokens}，共抽取 {draws} 次。",
        "yours": "{function} 返回了 {tokens}，共抽取 {draws} 次。",
        "yours_raised": "{function} 在抽取 {draws} 次后抛出 {error}{where}",
        "where": "，出错的是你的 {function} 单元格第 {line} 行：{code}",
        "where_line": "，出错的是你的 {function} 单元格第 {line} 行",
        "yours_inputs": "{function} 还修改了 draft_probs、target_probs 或 draft_tokens。",
        "part_tokens": "二者在结果中下标为 {n} 的那一项出现分歧：规则的结果在这里为：{want}；{function} 的结果在这里为：{got}。",
        "part_item": "{value}",
        "part_nothing": "空（结果到这里已经结束）",
        "part_draws": "二者返回的 token 相同，但 {function} 抽取了 {got} 次，而规则抽取 {want} 次。",
        "replay": "在你的 notebook 里回放这一例：{call}",
        "summary": "在一个有 {k} 个位置的生成的草稿上（{tokens}，预设的随机数 {draws}），规则抽取 {want_draws} 次，返回 {want}；"
                   "你的函数抽取 {got_draws} 次，返回 {got}",
        "summary_raised": "在一个有 {k} 个位置的生成的草稿上（{tokens}，预设的随机数 {draws}），你的函数抛出 {error}{where}",
        "l24_script": "  torch.rand 依次给出 {draws}，之后每次都给出 0.999；torch.multinomial 依次给出 {picks}，之后每次都给出 0",
        "l24_summary": "在一个有 {k} 个位置的生成的草稿上（{tokens}，预设的随机数 {draws}，预设的采样结果 {picks}），规则返回 {want}，"
                       "调用顺序为 {want_order}；你的函数返回 {got}，调用顺序为 {got_order}",
        "l24_summary_weights": "在一个有 {k} 个位置的生成的草稿上（{tokens}，预设的随机数 {draws}，预设的采样结果 {picks}），"
                               "第 {n} 次 torch.multinomial 调用时，规则从 {want_w} 中采样，你的函数从 {got_w} 中采样",
        "l24_script_no_draws": "  torch.rand 每次都给出 0.999；torch.multinomial 依次给出 {picks}，之后每次都给出 0",
        "l24_reject": "  位置 {i}：token {t}，p = {p} < q = {q}：抽取 r = {r}；r < p/q = {ratio} 不成立：拒绝；"
                      "修正 token 从第 {i} 行归一化的残差 max(0, p - q)（即 {weights}）中采样："
                      "torch.multinomial 给出 token {pick}，这一步结束",
        "l24_bonus": "  每个草稿都被接受：额外 token 从 target_probs[{k}] = {weights} 中采样：torch.multinomial "
                     "给出 token {pick}",
        "l24_rule": "规则返回 {tokens}，调用 torch.rand {coins} 次、torch.multinomial {calls} 次，顺序为 {order}"
                    "（r：torch.rand，m：torch.multinomial）。",
        "l24_yours": "{function} 返回了 {tokens}，调用 torch.rand {coins} 次、torch.multinomial {calls} 次，顺序为 {order}。",
        "l24_part_weights": "二者在第 {n} 次 torch.multinomial 调用处出现分歧：规则从 {want} 中采样，{function} 从 {got} 中采样。",
        "unknown_case": "你的函数不像我们见过的任何一种错误，所以这里说不出具体是哪种错误；它出错的最小一例："
                        "{summary}（最后一项隐藏检查会逐个位置走一遍）。",
        "smallest": "它出错的最小生成用例：{summary}。",
    },
}
