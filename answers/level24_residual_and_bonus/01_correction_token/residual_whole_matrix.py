# expect: lose test_visible hidden_residual_exact
# why: max(0, p - q) taken over every row and summed, not over the rejected row.
# diagnosis: residual_whole_matrix
def verify_and_correct(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
            continue
        residual = torch.clamp(target_probs - draft_probs, min=0).sum(dim=0)
        residual = residual / residual.sum()
        accepted_tokens.append(int(torch.multinomial(residual, 1).item()))
        break
    return accepted_tokens
