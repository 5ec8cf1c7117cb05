# expect: lose hidden_strict_boundary hidden_p_zero_rejects
# why: accepts when r <= p/q: the boundary must reject.
# diagnosis: you accept when r <= p / q, so the boundary r == p / q accepts (even when p == 0): use the strict r < p / q
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
        if r <= p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
