# expect: full
# why: zips the rows with the tokens.
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for target_row, draft_row, token_id in zip(target_probs, draft_probs, draft_tokens):
        token_id = int(token_id)
        if target_row[token_id].item() >= draft_row[token_id].item():
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
