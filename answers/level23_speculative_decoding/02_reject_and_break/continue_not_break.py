# expect: lose test_visible hidden_break_not_continue
# why: continue after a rejection goes on to verify tokens built on a rejected prefix.
# diagnosis: you use continue after a rejection, so later tokens are still checked and can come back: a rejection must break
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        r = torch.rand(1).item()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            continue
    return accepted_tokens
