# expect: lose test_visible hidden_cache_rolled_back hidden_no_drafts
# why: crops to start + len(tokens) - 1, dropping the last accepted position (or last_token itself, when the step kept no draft).
# diagnosis: pair_crop_short
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
    cache.crop(start + len(tokens) - 1)
    return tokens
