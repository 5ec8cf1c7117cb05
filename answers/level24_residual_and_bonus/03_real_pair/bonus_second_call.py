# expect: lose test_visible hidden_one_call_per_step
# why: checks the drafts with one call, then makes a second call for the bonus row: two target calls a step.
# diagnosis: pair_call_per_position
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    ids = [last_token] + list(draft_tokens)
    first = target.forward_cached(ids[:-1], cache) if len(ids) > 1 else logits_none(target, cache)
    last = target.forward_cached(ids[-1:], cache)
    logits = torch.cat([first, last])
    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
    cache.crop(start + len(tokens))
    return tokens


def logits_none(target, cache):
    return torch.zeros(0, 128)
