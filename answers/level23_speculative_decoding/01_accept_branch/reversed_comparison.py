# expect: lose test_visible_m1 hidden_all_accept
# why: accepts when p <= q: the comparison is reversed.
# diagnosis: you accept when p <= q (or read p from draft_probs and q from target_probs, which does the same), so you keep tokens with p < q and stop where p > q: accept when p >= q, with p = target_probs[i, token_id]
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p <= q:
            accepted_tokens.append(token_id)
            continue
        break
    return accepted_tokens
