# expect: full
# why: counts what stays (last_token, then every token but the new last one) and crops only when something was rejected.
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + draft_tokens, cache)
    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
    keep = 1 + len(tokens[:-1])
    if start + keep < cache.length:
        cache.crop(start + keep)
    return tokens
