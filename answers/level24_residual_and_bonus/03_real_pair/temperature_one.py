# expect: lose test_visible hidden_greedy_equal hidden_no_drafts hidden_sampling_steps hidden_sampling_distribution
# why: turns the logits into rows with a plain softmax, ignoring temperature: at T = 0 it samples instead of taking the argmax.
# diagnosis: pair_temperature_missing
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    target_probs = torch.softmax(logits.float(), dim=-1)
    tokens = speculative_step(draft_probs, target_probs, draft_tokens)
    cache.crop(start + len(tokens))
    return tokens
