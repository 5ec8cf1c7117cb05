# expect: full
# why: the reference: one call on [last_token] + drafts, the reference step, the cache cropped to start + len(tokens).
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
    cache.crop(start + len(tokens))
    return tokens
