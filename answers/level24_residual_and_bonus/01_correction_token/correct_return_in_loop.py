# expect: full
# why: returns the prefix plus the correction at once instead of break.
def verify_and_correct(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
            continue
        residual = torch.maximum(target_probs[i] - draft_probs[i], torch.zeros_like(target_probs[i]))
        residual = residual / residual.sum()
        return accepted_tokens + [int(torch.multinomial(residual, 1))]
    return accepted_tokens
