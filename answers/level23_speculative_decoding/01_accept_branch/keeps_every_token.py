# expect: lose test_visible_m1 hidden_stops_first_reject
# why: appends every draft token without comparing p and q, so nothing ever stops the loop.
# diagnosis: you keep every token, also where p < q: compare p with q at each position and break at the first p < q
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for token_id in draft_tokens:
        accepted_tokens.append(int(token_id))
    return accepted_tokens
