# expect: lose test_visible hidden_draw_order hidden_acceptance_rate
# why: never flips the coin: every p < q token is accepted as if p >= q.
# diagnosis: you accept every token, also where p < q, without drawing r: draw r = torch.rand(1).item() there and accept only if r < p / q
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        accepted_tokens.append(token_id)
    return accepted_tokens
