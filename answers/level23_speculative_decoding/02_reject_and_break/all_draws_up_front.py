# expect: lose test_visible hidden_single_value_draws
# why: draws all K values before the loop.
# diagnosis: you draw several coins at once (torch.rand asked for more than one value); the tests hand one scripted value to each torch.rand(1), one per p < q position, in order
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    rs = torch.rand(len(draft_tokens))
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
        elif rs[i].item() < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
