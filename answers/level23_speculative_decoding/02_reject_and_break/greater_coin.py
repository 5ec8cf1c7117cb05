# expect: lose test_visible hidden_coin_success_appends
# why: accepts when r > p/q: the coin is reversed.
# diagnosis: you accept when r > p / q, the reversed coin, so likely tokens get rejected: accept when r < p / q
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
        if r > p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
