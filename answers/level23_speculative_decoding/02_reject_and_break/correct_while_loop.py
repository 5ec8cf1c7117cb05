# expect: full
# why: a while loop over positions, reading p and q the same way.
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    i = 0
    while i < len(draft_tokens):
        token_id = int(draft_tokens[i])
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p < q and not torch.rand(1).item() < p / q:
            break
        accepted_tokens.append(token_id)
        i += 1
    return accepted_tokens
