# expect: full
# why: for ... else: the else runs only when the loop did not break, i.e. every draft was accepted.
def speculative_step(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
            continue
        residual = torch.relu(target_probs[i] - draft_probs[i])
        accepted_tokens.append(torch.multinomial(residual / residual.sum(), 1).item())
        break
    else:
        accepted_tokens.append(torch.multinomial(target_probs[len(accepted_tokens)], 1).item())
    return accepted_tokens
