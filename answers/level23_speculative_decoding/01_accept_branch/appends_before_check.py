# expect: lose test_visible_m1 hidden_stops_first_reject
# why: appends every token first and checks p >= q only afterwards, so the first p < q token is kept too.
# diagnosis: you append token_id before comparing, so the first token with p < q is kept before the break: append only when p >= q
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        accepted_tokens.append(token_id)
        if p >= q:
            continue
        break
    return accepted_tokens
