# expect: lose test_visible_m1 hidden_appends_token_ids
# why: appends p instead of token_id.
# diagnosis: your function returns a list holding something other than token ids (a float such as p, or a tensor such as draft_tokens[i] or torch.multinomial's [1]): append each token as a Python int, token_id itself or int(torch.multinomial(weights, 1).item())
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(p)
            continue
        break
    return accepted_tokens
