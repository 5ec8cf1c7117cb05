# expect: lose test_visible hidden_residual_exact
# why: the residual of row 0, whatever position was rejected.
# diagnosis: residual_row_zero
def verify_and_correct(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
            continue
        residual = torch.clamp(target_probs[0] - draft_probs[0], min=0)
        residual = residual / residual.sum()
        accepted_tokens.append(int(torch.multinomial(residual, 1).item()))
        break
    return accepted_tokens
