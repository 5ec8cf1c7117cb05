# expect: lose test_visible hidden_draw_order
# why: appends when p >= q but does not continue, so the coin is drawn there too and can append the token twice.
# diagnosis: you append token_id when p >= q but do not go on to the next position, so r is drawn there too and the token can be appended twice: add continue after the append
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
        r = torch.rand(1).item()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
