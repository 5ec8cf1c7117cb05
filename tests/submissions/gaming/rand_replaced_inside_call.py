# notebook: 02_reject_and_break
# baseline: greater_coin
# attack: replaces torch.rand during the call, after the tests installed their scripted one
def verify_draft(draft_probs, target_probs, draft_tokens):
    torch.rand = lambda *size, **kw: torch.ones(1)
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        r = torch.rand(1).item()
        if r > p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
