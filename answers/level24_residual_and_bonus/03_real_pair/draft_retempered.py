# expect: lose test_visible hidden_sampling_steps
# why: applies the temperature to draft_probs once more (they are already the draft's rows at it): right at temperature 0 and 1 only.
# diagnosis: pair_draft_retempered
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    q = rows(draft_probs.log(), temperature) if len(draft_tokens) else draft_probs
    tokens = speculative_step(q, rows(logits, temperature), draft_tokens)
    cache.crop(start + len(tokens))
    return tokens
