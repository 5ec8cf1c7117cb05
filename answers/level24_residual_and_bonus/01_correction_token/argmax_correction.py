# expect: lose test_visible hidden_one_correction hidden_residual_exact hidden_emitted_distribution
# why: the residual's most likely token instead of a sample.
# diagnosis: correction_argmax
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
        accepted_tokens.append(int(residual.argmax()))
        break
    return accepted_tokens
