# expect: lose test_visible_m1 hidden_all_accept hidden_appends_token_ids
# why: appends when p >= q but has no continue, so the loop falls through to the given break after the first accept.
# diagnosis: you append token_id when p >= q but then fall through to the given break, so you stop after one token: add continue after the append
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
        break
    return accepted_tokens
