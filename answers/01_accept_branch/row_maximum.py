# expect: lose hidden_rows_aligned
# why: compares the target row's max() instead of p.
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
