# expect: lose test_visible hidden_draw_order
# why: keeps Mission 1's loop: every p < q position stops it, and r is never drawn.
# diagnosis: you stop at every p < q without drawing r, as in Mission 1: there draw r = torch.rand(1).item() and accept the token if r < p / q
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i in range(len(draft_tokens)):
        token_id = int(draft_tokens[i])
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p < q:
            break
        accepted_tokens.append(token_id)
    return accepted_tokens
