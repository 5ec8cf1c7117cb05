# expect: lose hidden_inputs_unchanged
# why: marks accepted tokens by writing into target_probs.
# diagnosis: you write 0.0 into target_probs[i, token_id] after accepting, changing the caller's tensor: only read target_probs, never assign to it
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            target_probs[i, token_id] = 0.0  # mark as used
            continue
        break
    return accepted_tokens
