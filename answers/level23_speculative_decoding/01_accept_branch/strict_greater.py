# expect: lose hidden_equal_accepts
# why: strict p > q rejects the p == q position.
# diagnosis: you accept only when p > q, so p == q stops the loop: accept when p >= q
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p > q:
            accepted_tokens.append(token_id)
            continue
        break
    return accepted_tokens
