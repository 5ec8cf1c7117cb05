# notebook: 02_reject_and_break
# fault: verify_draft never returns
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    i = 0
    while i < len(draft_tokens):
        token_id = int(draft_tokens[i])
        if target_probs[i, token_id].item() >= draft_probs[i, token_id].item():
            accepted_tokens.append(token_id)
    return accepted_tokens
