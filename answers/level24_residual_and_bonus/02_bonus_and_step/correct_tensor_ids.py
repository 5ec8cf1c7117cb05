# expect: full
# why: K read from the tensor's shape; ids appended via .item().
def speculative_step(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
            continue
        residual = torch.maximum(target_probs[i] - draft_probs[i], torch.tensor(0.0))
        residual = residual / residual.sum()
        accepted_tokens.append(torch.multinomial(residual, 1).item())
        return accepted_tokens
    accepted_tokens.append(torch.multinomial(target_probs[draft_probs.shape[0]], 1).item())
    return accepted_tokens
