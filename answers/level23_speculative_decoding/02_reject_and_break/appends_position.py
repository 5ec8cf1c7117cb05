# expect: lose test_visible hidden_coin_success_appends
# why: appends i instead of token_id.
# diagnosis: you append the position i instead of token_id, both when p >= q and when r < p / q: append token_id
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(i)
            continue
        r = torch.rand(1).item()
        if r < p / q:
            accepted_tokens.append(i)
        else:
            break
    return accepted_tokens
