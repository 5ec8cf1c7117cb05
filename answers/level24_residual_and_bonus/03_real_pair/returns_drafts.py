# expect: lose test_visible hidden_greedy_equal hidden_no_drafts hidden_sampling_steps hidden_sampling_distribution
# why: calls the target but keeps every draft without checking it: the text is the draft model's.
# diagnosis: pair_tokens_not_greedy
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    tokens = list(draft_tokens) if draft_tokens else [int(logits[-1].argmax())]
    cache.crop(start + len(tokens))
    return tokens
