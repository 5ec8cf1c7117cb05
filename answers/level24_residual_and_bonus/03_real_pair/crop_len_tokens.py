# expect: lose test_visible hidden_cache_rolled_back hidden_no_drafts
# why: crops to len(tokens), forgetting that the cache held start positions before the step: the text before last_token is lost.
# diagnosis: pair_cache_below_start
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
    cache.crop(len(tokens))
    return tokens
