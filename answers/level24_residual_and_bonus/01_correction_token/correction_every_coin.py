# expect: lose hidden_no_multinomial_before_coin
# why: samples a correction after every coin, also when the coin accepts, and keeps only the last.
# diagnosis: correction_every_coin
def verify_and_correct(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        r = torch.rand(1).item()
        residual = torch.clamp(target_probs[i] - draft_probs[i], min=0)
        correction = int(torch.multinomial(residual / residual.sum(), 1).item())
        if r < p / q:
            accepted_tokens.append(token_id)
            continue
        accepted_tokens.append(correction)
        break
    return accepted_tokens
