# expect: lose test_visible hidden_no_drafts hidden_sampling_steps
# why: when every draft is accepted, takes the bonus as row K's most likely token instead of sampling it.
# diagnosis: pair_new_token_argmax
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    target_probs = rows(target.forward_cached([last_token] + list(draft_tokens), cache), temperature)
    tokens = speculative_step(draft_probs, target_probs, draft_tokens)
    if len(tokens) == len(draft_tokens) + 1:
        tokens[-1] = int(target_probs[len(draft_tokens)].argmax())
    cache.crop(start + len(tokens))
    return tokens
