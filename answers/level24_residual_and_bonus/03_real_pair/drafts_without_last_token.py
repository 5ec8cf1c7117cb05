# expect: lose test_visible hidden_one_call_per_step hidden_cache_rolled_back hidden_greedy_equal hidden_no_drafts hidden_sampling_steps
# why: calls the target on the drafts alone: K positions, so row i checks draft i + 1 and there is no bonus row.
# diagnosis: pair_positions_k
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached(draft_tokens, cache)
    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
    cache.crop(start + len(tokens))
    return tokens
