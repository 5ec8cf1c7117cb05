# expect: lose test_visible hidden_cache_rolled_back hidden_no_drafts
# why: always keeps K positions (start + len(draft_tokens)), whatever the step accepted.
# diagnosis: pair_crop_fixed
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
    cache.crop(start + len(draft_tokens))
    return tokens
