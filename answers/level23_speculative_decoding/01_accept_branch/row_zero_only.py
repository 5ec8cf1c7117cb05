# expect: lose hidden_rows_aligned
# why: reads row 0 for every position.
# diagnosis: you read p and q from row 0 at every position: read row i, target_probs[i, token_id] and draft_probs[i, token_id]
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[0, token_id].item()
        q = draft_probs[0, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        break
    return accepted_tokens
