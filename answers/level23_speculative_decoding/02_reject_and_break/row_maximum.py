# expect: lose hidden_rows_aligned
# why: reads p as the target row's max().
# diagnosis: you overwrite p with the row's max(), target_probs[i].max(), instead of the target's probability of the drafted token: keep p = target_probs[i, token_id].item()
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        p = target_probs[i].max().item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        r = torch.rand(1).item()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
