# expect: lose hidden_p_zero_rejects hidden_acceptance_rate
# why: uses q / p instead of p / q.
# diagnosis: you use r < q / p, which always holds when p < q and divides by zero when p == 0: use r < p / q
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
        if r < q / p:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
