# expect: full
# why: torch.relu is max(0, x); .item() on the drawn index.
def verify_and_correct(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
            continue
        residual = torch.relu(target_probs[i] - draft_probs[i])
        residual /= residual.sum()
        accepted_tokens.append(torch.multinomial(residual, 1).item())
        break
    return accepted_tokens
