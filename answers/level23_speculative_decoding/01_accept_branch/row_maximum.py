# expect: lose hidden_rows_aligned
# why: compares the target row's max() instead of p.
# diagnosis: you compare the row's max(), target_probs[i].max(), instead of p, the target's probability of the drafted token: compare p, read at [i, token_id], with q
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if target_probs[i].max().item() >= q:
            accepted_tokens.append(token_id)
            continue
        break
    return accepted_tokens
