# expect: lose hidden_inputs_unchanged
# why: marks accepted tokens by writing into target_probs.
# diagnosis: your function changes its inputs (draft_probs, target_probs or draft_tokens), for instance an in-place -=, clamp_ or /= on a row: compute in a new tensor
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
