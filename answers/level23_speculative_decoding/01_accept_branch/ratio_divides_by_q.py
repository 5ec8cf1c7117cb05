# expect: lose hidden_q_zero
# why: computes p / q >= 1, which divides by zero when q == 0.
# diagnosis: you divide p by q to compare them (p / q >= 1), which raises ZeroDivisionError when q == 0: compare p >= q directly, with no division
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p / q >= 1:
            accepted_tokens.append(token_id)
            continue
        break
    return accepted_tokens
