# expect: lose test_visible hidden_cache_rolled_back
# why: crops only when fewer tokens than drafts came back, so a rejection at the last draft leaves that draft in the cache.
# diagnosis: pair_last_rejected_kept
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
    if len(tokens) < len(draft_tokens):
        cache.crop(start + len(tokens))
    return tokens
