# expect: lose test_visible hidden_one_call_per_step hidden_cache_rolled_back hidden_no_drafts
# why: rolls the cache back to start, then feeds it the returned tokens with a second call: the new token enters the cache a step early.
# diagnosis: pair_call_per_position
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
    cache.crop(start)
    target.forward_cached(tokens, cache)
    return tokens
