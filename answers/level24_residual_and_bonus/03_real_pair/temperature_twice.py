# expect: lose test_visible hidden_sampling_steps hidden_sampling_distribution
# why: divides the logits by the temperature before rows(), which divides them again: right at temperature 0 and 1 only.
# diagnosis: pair_temperature_twice
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    scaled = logits / temperature if temperature > 0 else logits
    tokens = speculative_step(draft_probs, rows(scaled, temperature), draft_tokens)
    cache.crop(start + len(tokens))
    return tokens
