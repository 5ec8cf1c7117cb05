# expect: full
# why: a while loop over positions.
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    i = 0
    while i < len(draft_tokens):
        token_id = int(draft_tokens[i])
        if target_probs[i, token_id].item() < draft_probs[i, token_id].item():
            break
        accepted_tokens.append(token_id)
        i += 1
    return accepted_tokens
