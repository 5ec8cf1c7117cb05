# expect: lose test_visible hidden_one_call_per_step hidden_cache_rolled_back hidden_sampling_steps
# why: calls the target on [last_token] + draft_tokens[:-1], K positions: the last draft is never checked, and row K (the bonus row) is missing, so the last row is reused for it.
# diagnosis: pair_drops_last_draft
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    ids = [last_token] + list(draft_tokens)[:-1] if draft_tokens else [last_token]
    target_probs = rows(target.forward_cached(ids, cache), temperature)
    if draft_tokens:
        target_probs = torch.cat([target_probs, target_probs[-1:]])
    tokens = speculative_step(draft_probs, target_probs, draft_tokens)
    cache.crop(min(cache.length, start + len(tokens)))
    return tokens
