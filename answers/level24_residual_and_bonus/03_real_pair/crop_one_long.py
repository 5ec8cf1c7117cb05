# expect: lose test_visible hidden_cache_rolled_back
# why: crops to start + len(tokens) + 1, counting the new token as if it were cached: one rejected draft stays.
# diagnosis: pair_crop_long
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
    cache.crop(min(start + len(tokens) + 1, cache.length))
    return tokens
