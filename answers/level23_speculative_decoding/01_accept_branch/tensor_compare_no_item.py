# expect: lose test_visible_m1 hidden_all_accept
# why: compares whole rows: (target_probs[i] >= draft_probs[i]).all().
# diagnosis: you compare whole rows, (target_probs[i] >= draft_probs[i]).all(), which is almost never true: compare the two numbers, p >= q
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if (target_probs[i] >= draft_probs[i]).all():
            accepted_tokens.append(token_id)
            continue
        break
    return accepted_tokens
