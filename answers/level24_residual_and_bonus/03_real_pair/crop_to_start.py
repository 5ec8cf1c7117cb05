# expect: lose test_visible hidden_cache_rolled_back hidden_no_drafts
# why: rolls the cache back to where the step began, so every step forgets last_token and the accepted drafts.
# diagnosis: pair_cache_not_grown
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
    cache.crop(start)  # undo the call
    return tokens
