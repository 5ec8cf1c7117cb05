# expect: lose test_visible hidden_single_value_draws
# why: draws r with torch.empty(1).uniform_(), torch's generator but not torch.rand; the checks hand uniform_ the same scripted values, so only the draw source costs.
# diagnosis: you draw with another torch sampler (uniform_, rand_like or bernoulli) instead of torch.rand, and the checks hand out their draws through torch.rand: draw r = torch.rand(1).item() and accept if r < p / q

def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        r = torch.empty(1).uniform_().item()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
