# expect: full
# why: a while loop over positions; the row after the accepted prefix gives the bonus.
def speculative_step(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    k = len(draft_tokens)
    i = 0
    while i < k:
        token_id = int(draft_tokens[i])
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p < q and not torch.rand(1).item() < p / q:
            residual = (target_probs[i] - draft_probs[i]).clamp(min=0)
            accepted_tokens.append(int(residual.div(residual.sum()).multinomial(1)))
            return accepted_tokens
        accepted_tokens.append(token_id)
        i += 1
    accepted_tokens.append(int(target_probs[k].multinomial(1)))
    return accepted_tokens
