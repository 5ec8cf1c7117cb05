"""The words of the generated-cases check (grading/judge/generated.py): the smallest case where the student's
function and the rule part, walked position by position. English and Chinese, the same ids and {blanks}
(tests/test_generated.py checks them)."""

WORDS = {
    "en": {
        "head": "On {count} generated drafts, {function} and the rule part on {parted}; the smallest of those:",
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
        "yours_raised": "{function} raised {error} after {draws} draw(s){where}.",
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
        "unknown_case": "your function does not behave like any mistake we know, so none is named here; the "
                        "smallest case it gets wrong: {summary} (the last hidden check walks it, position by "
                        "position).",
        "smallest": " The smallest generated case it gets wrong: {summary}.",
    },
    "zh": {
        "head": "在 {count} 个生成的草稿中，{function} 与规则有 {parted} 个结果不一致；其中最小的一例：",
        "head_cut": "{function} 在时间用完前只跑了 {count} 个生成草稿中的 {ran} 个；它与规则不一致的最小一例：",
        "inputs": "  draft_tokens = {tokens}（{kind}），词表共 {vocab} 个 token id",
        "kind_list": "列表",
        "kind_tensor": "torch.LongTensor",
        "rows": "  target_probs = {target}\n  draft_probs  = {draft}",
        "script": "  torch.rand 依次给出 {draws}，之后每次都给出 {overflow}",
        "no_script": "  torch.rand 每次都给出 {overflow}",
        "empty": "  （空草稿：没有需要验证的位置）",
        "step_accept": "  位置 {i}：token {t}，p = {p} >= q = {q}：直接接受，不抽随机数",
        "step_stop_m1": "  位置 {i}：token {t}，p = {p} < q = {q}：在这里停止（Mission 1 给定的 break）",
        "step_coin_accept": "  位置 {i}：token {t}，p = {p} < q = {q}：抽取 r = {r}；r < p/q = {ratio} 成立：接受",
        "step_coin_reject": "  位置 {i}：token {t}，p = {p} < q = {q}：抽取 r = {r}；r < p/q = {ratio} 不成立：拒绝并停止",
        "step_after": "  位置 {first} 到 {last}：没有走到",
        "step_after_one": "  位置 {first}：没有走到",
        "rule": "规则返回 {tokens}，共抽取 {draws} 次。",
        "yours": "{function} 返回了 {tokens}，共抽取 {draws} 次。",
        "yours_raised": "{function} 在抽取 {draws} 次后抛出 {error}{where}。",
        "where": "，出错的是你的 {function} 单元格第 {line} 行：{code}",
        "where_line": "，出错的是你的 {function} 单元格第 {line} 行",
        "yours_inputs": "{function} 还修改了 draft_probs、target_probs 或 draft_tokens。",
        "part_tokens": "二者在结果的第 {n} 项（从 0 数起）分开：规则在这里是 {want}，{function} 是 {got}。",
        "part_item": "{value}",
        "part_nothing": "没有这一项",
        "part_draws": "二者返回的 token 相同，但 {function} 抽取了 {got} 次，规则只抽取 {want} 次。",
        "replay": "在你的 notebook 里重放这一例：{call}",
        "summary": "在一个有 {k} 个位置的生成草稿上（{tokens}，抽取值 {draws}），规则抽取 {want_draws} 次，返回 {want}；"
                   "你的函数抽取 {got_draws} 次，返回 {got}",
        "summary_raised": "在一个有 {k} 个位置的生成草稿上（{tokens}，抽取值 {draws}），你的函数抛出 {error}{where}",
        "unknown_case": "你的函数不像我们见过的任何一种错误，所以这里说不出具体是哪种错误；它出错的最小一例："
                        "{summary}（最后一项隐藏检查会逐个位置走一遍）。",
        "smallest": "它出错的最小生成用例：{summary}。",
    },
}
