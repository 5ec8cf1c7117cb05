# expect: lose test_visible hidden_one_call_per_step
# why: calls the target once per position (K + 1 calls a step): the same text, none of the speed.
# diagnosis: pair_call_per_position
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = torch.cat([target.forward_cached([token], cache) for token in [last_token] + list(draft_tokens)])
    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
    cache.crop(start + len(tokens))
    return tokens
