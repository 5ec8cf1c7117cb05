# expect: lose hidden_inputs_unchanged
# why: zeroes the used probability in draft_probs, so the caller's tensor changes.
# diagnosis: your function changes its inputs (draft_probs, target_probs or draft_tokens), for instance an in-place -=, clamp_ or /= on a row: compute in a new tensor
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        draft_probs[i, token_id] = 0.0  # used up
        r = torch.rand(1).item()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
