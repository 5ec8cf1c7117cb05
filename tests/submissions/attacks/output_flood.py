# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: stop
# attack: about 50 MB of outputs that CapOutputSize does not cut: application/json, output metadata, and 20,000 display calls
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        r = torch.rand(1).item()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            continue
    return accepted_tokens


from IPython.display import display

_shown = 0
try:
    _big = "j" * 1_000_000
    for _ in range(20):
        display({"application/json": {"pad": _big}}, raw=True)  # not a str: not capped (20 MB)
        display({"text/plain": "m"}, metadata={"pad": _big}, raw=True)  # metadata is not capped (20 MB)
        _shown += 2
    for _n in range(20_000 - _shown):
        display({"text/plain": f"ATTACK output_flood {_n} " + "x" * 400}, raw=True)  # 20,000 outputs (8 MB)
        _shown += 1
    print(f"ATTACK output_flood: {_shown} display calls, about 50 MB")
except BaseException as exc:
    print(f"ATTACK output_flood: blocked after {_shown} display calls: {exc!r}")
