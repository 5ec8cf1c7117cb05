# expect: lose hidden_stops_first_reject
# why: replaced the given break with continue, so it skips p < q positions.
# diagnosis: you replaced the given break with continue, so you skip p < q positions and accept later tokens: keep the break to stop there
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        continue
    return accepted_tokens
