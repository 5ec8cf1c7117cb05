# expect: lose test_visible hidden_greedy_equal hidden_sampling_steps hidden_sampling_distribution
# why: hands speculative_step the target's rows as draft_probs and the draft's as target_probs.
# diagnosis: pair_tokens_not_greedy
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    target_probs = rows(logits, temperature)
    bonus = target_probs[-1:]
    tokens = speculative_step(target_probs[:-1], torch.cat([draft_probs, bonus]), draft_tokens)
    cache.crop(start + len(tokens))
    return tokens
