# expect: lose test_visible hidden_cache_rolled_back
# why: never crops the cache, so rejected drafts' keys and values stay and later rows see them.
# diagnosis: pair_no_rollback
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    return speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
