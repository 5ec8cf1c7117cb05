# expect: lose test_visible hidden_cache_rolled_back hidden_greedy_equal hidden_no_drafts hidden_sampling_steps hidden_sampling_distribution
# why: returns last_token in front of the step's tokens, as if it were new text; the cache is right.
# diagnosis: pair_returns_last_token
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
    cache.crop(start + len(tokens))
    return [last_token] + tokens
