# expect: lose test_visible hidden_draw_order hidden_coin_success_appends hidden_acceptance_rate hidden_mean_length
# why: a token the coin accepts is kept, exactly like one with p >= q; going on without it loses it from the output.
# diagnosis: when r < p / q accepts a token you go on without appending it, so the tokens the coin accepts are missing: append token_id there too
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
            continue
        break
    return accepted_tokens
