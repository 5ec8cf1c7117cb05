# expect: lose test_visible hidden_residual_exact hidden_emitted_distribution
# why: the correction sampled from p, the target row: tokens the draft already covered get too much.
# diagnosis: residual_from_p
def verify_and_correct(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
            continue
        accepted_tokens.append(int(torch.multinomial(target_probs[i], 1).item()))
        break
    return accepted_tokens
