# expect: lose test_visible_m1 hidden_no_draw
# why: already flips Mission 2's coin where p < q; Mission 1 stops there without drawing.
# diagnosis: you already draw r where p < q (Mission 2's coin), but Mission 1 never draws: where p < q, just break
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
