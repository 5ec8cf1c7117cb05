# expect: lose hidden_plain_list test_visible_m1
# why: returns torch.tensor(accepted_tokens), not a list.
# diagnosis: your function returns something other than a plain list of token ids: return accepted_tokens, a list of ints
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        break
    return torch.tensor(accepted_tokens)
