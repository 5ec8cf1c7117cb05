# expect: lose test_visible_m1 hidden_no_draw
# why: draws a random number before comparing, though Mission 1 never draws.
# diagnosis: you call torch.rand at every position before comparing, though Mission 1 never draws: remove the draw and just test p >= q
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        r = torch.rand(1).item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        break
    return accepted_tokens
