# expect: lose test_visible hidden_no_bonus_after_reject hidden_one_new_token hidden_tokens_per_step
# why: two correction tokens after a rejection.
# diagnosis: two_corrections
def speculative_step(draft_probs, target_probs, draft_tokens):
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
        return accepted_tokens + torch.multinomial(residual, 2, replacement=True).tolist()
    accepted_tokens.append(int(torch.multinomial(target_probs[len(draft_tokens)], 1).item()))
    return accepted_tokens
