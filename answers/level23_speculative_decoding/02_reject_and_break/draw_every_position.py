# expect: lose test_visible hidden_draw_order
# why: draws before the comparison, so position 0 (p >= q) uses up the first draw.
# diagnosis: you draw r at every position, also where p >= q: draw only in the p < q branch
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        r = torch.rand(1).item()
        if p >= q or r < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
