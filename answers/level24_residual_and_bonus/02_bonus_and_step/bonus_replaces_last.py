# expect: lose test_visible hidden_bonus_when_all_accepted hidden_one_new_token hidden_empty_draft hidden_first_token_distribution hidden_tokens_per_step
# why: the bonus overwrites the last accepted token instead of following it.
# diagnosis: bonus_replaces_last
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
        accepted_tokens.append(int(torch.multinomial(residual, 1).item()))
        return accepted_tokens
    accepted_tokens[-1] = int(torch.multinomial(target_probs[len(draft_tokens)], 1).item())
    return accepted_tokens
