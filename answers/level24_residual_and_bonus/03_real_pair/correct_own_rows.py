# expect: full
# why: builds the rows itself: one-hot at the argmax for T = 0, a softmax of logits / T otherwise; a tensor of ids.
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    ids = torch.tensor([last_token, *draft_tokens])
    logits = target.forward_cached(ids, cache).float()
    if temperature == 0:
        target_probs = torch.zeros_like(logits)
        target_probs[torch.arange(len(logits)), logits.argmax(dim=-1)] = 1.0
    else:
        target_probs = torch.softmax(logits / temperature, dim=-1)
    tokens = speculative_step(draft_probs, target_probs, draft_tokens)
    cache.crop(start + len(tokens))
    return tokens
