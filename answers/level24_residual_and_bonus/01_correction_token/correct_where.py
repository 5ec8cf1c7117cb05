# expect: full
# why: torch.where builds the same residual; the drawn index is taken as element [0] of the tensor.
def verify_and_correct(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
            continue
        diff = target_probs[i] - draft_probs[i]
        residual = torch.where(diff > 0, diff, torch.zeros_like(diff))
        residual = residual / residual.sum()
        token = torch.multinomial(residual, num_samples=1)[0]
        accepted_tokens.append(int(token))
        break
    return accepted_tokens
