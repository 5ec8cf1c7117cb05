# expect: full
# why: the tensor method .multinomial is the same call as torch.multinomial.
def verify_and_correct(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
            continue
        residual = (target_probs[i] - draft_probs[i]).clamp(min=0)
        residual = residual / residual.sum()
        accepted_tokens.append(residual.multinomial(1).item())
        break
    return accepted_tokens
