# expect: lose test_visible hidden_correction_appended hidden_emitted_distribution
# why: samples the correction but appends the position i.
# diagnosis: correction_appends_position
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
        torch.multinomial(residual, 1)
        accepted_tokens.append(i)
        break
    return accepted_tokens
