# expect: full
# why: Level 23's verify loop first, then one new token from the row the prefix stopped at.
def speculative_step(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        if torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    n = len(accepted_tokens)
    if n < len(draft_tokens):
        weights = torch.clamp(target_probs[n] - draft_probs[n], min=0)
        weights = weights / weights.sum()
    else:
        weights = target_probs[n]
    return accepted_tokens + [int(torch.multinomial(weights, 1).item())]
