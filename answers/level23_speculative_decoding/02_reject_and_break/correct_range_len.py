# expect: full
# why: range(len(...)) with int(token).
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i in range(len(draft_tokens)):
        token_id = int(draft_tokens[i])
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p < q:
            if torch.rand(1).item() >= p / q:
                break
        accepted_tokens.append(token_id)
    return accepted_tokens
