# expect: lose test_visible hidden_no_drafts hidden_sampling_steps hidden_sampling_distribution
# why: turns the logits into probabilities first, then gives those to rows() as if they were logits: right at temperature 0 only.
# diagnosis: pair_probs_as_logits
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    probs = torch.softmax(target.forward_cached([last_token] + list(draft_tokens), cache), dim=-1)
    tokens = speculative_step(draft_probs, rows(probs, temperature), draft_tokens)
    cache.crop(start + len(tokens))
    return tokens
