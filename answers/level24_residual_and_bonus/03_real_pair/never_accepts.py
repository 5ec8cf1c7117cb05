# expect: lose test_visible hidden_greedy_equal hidden_no_drafts hidden_sampling_steps hidden_sampling_distribution
# why: one call, but it keeps only the target's most likely next token and no draft: plain greedy decoding with the drafts' cost.
# diagnosis: pair_never_accepts
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    cache.crop(start + 1)
    return [int(logits[0].argmax())]
