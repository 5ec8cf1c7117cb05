# expect: lose test_visible_m1 hidden_equal_accepts hidden_all_accept hidden_q_zero hidden_rows_aligned hidden_appends_token_ids hidden_plain_list
# why: position i's probabilities are in row i; row i + 1 belongs to the next draft token (and past the last one there is no row).
# diagnosis: you read p and q from row i + 1 for the token at position i, one row too far (the last position has no row i + 1: IndexError): read row i, target_probs[i, token_id] and draft_probs[i, token_id]
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens, start=1):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        break
    return accepted_tokens
