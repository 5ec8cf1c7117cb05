# expect: lose test_visible hidden_mean_length
# why: breaks after a successful coin too.
# diagnosis: you break after every draw, even when r < p / q accepted the token: break only when r >= p / q, else go on
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
        break
    return accepted_tokens
