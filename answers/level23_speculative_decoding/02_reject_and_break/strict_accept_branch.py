# expect: lose hidden_draw_order
# why: uses p > q in TODO 1, so p == q spends a draw.
# diagnosis: you accept only when p > q, so p == q goes to the coin and spends a draw: accept p >= q without drawing
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p > q:
            accepted_tokens.append(token_id)
            continue
        r = torch.rand(1).item()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
