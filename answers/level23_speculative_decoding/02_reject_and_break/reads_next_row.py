# expect: lose test_visible hidden_no_draw_after_reject hidden_single_value_draws hidden_p_zero_rejects hidden_coin_success_appends hidden_all_accepted hidden_q_zero hidden_long_tensor hidden_other_draft hidden_acceptance_rate hidden_mean_length
# why: position i's probabilities are in row i; row i + 1 belongs to the next draft token (and past the last one there is no row).
# diagnosis: you read p and q from row i + 1 for the token at position i, one row too far (the last position has no row i + 1: IndexError): read row i, target_probs[i, token_id] and draft_probs[i, token_id]
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i in range(len(draft_tokens)):
        token_id = int(draft_tokens[i])
        p = target_probs[i + 1, token_id].item()
        q = draft_probs[i + 1, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        r = torch.rand(1).item()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
