# expect: lose test_visible hidden_one_correction hidden_residual_exact hidden_reject_at_first hidden_correction_appended hidden_emitted_distribution
# why: Level 23's break alone: the rejection emits nothing.
# diagnosis: no_correction
def verify_and_correct(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
            continue
        break
    return accepted_tokens
