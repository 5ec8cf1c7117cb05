# expect: lose hidden_stops_after_correction
# why: continue after the correction: later drafts are still verified and come back.
# diagnosis: continue_after_correction
def verify_and_correct(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
            continue
        residual = torch.clamp(target_probs[i] - draft_probs[i], min=0)
        residual = residual / residual.sum()
        accepted_tokens.append(int(torch.multinomial(residual, 1).item()))
        continue
    return accepted_tokens
