# expect: full
# why: counts the accepted drafts and keeps last_token plus them: the same length, start + 1 + accepted.
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    target_probs = rows(target.forward_cached([last_token, *draft_tokens], cache), temperature)
    tokens = speculative_step(draft_probs, target_probs, draft_tokens)
    accepted = len(tokens) - 1
    cache.crop(start + 1 + accepted)
    return tokens
