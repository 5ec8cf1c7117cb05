# expect: lose hidden_empty_draft
# why: reads draft_tokens[0] up front, which fails on an empty draft.
# diagnosis: your function raises IndexError for an empty draft (K = 0), for instance by reading draft_tokens[0] before the loop: with no tokens, return an empty list
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    first = int(draft_tokens[0])
    for i, token_id in enumerate(draft_tokens):
        token_id = first if i == 0 else int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        break
    return accepted_tokens
