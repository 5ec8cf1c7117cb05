# expect: lose test_visible hidden_no_drafts hidden_sampling_steps hidden_sampling_distribution
# why: keeps each draft while it is the target's most likely token, then appends the most likely token: greedy decoding's rule, right at temperature 0 only.
# diagnosis: pair_greedy_acceptance
def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    best = logits.argmax(dim=-1).tolist()
    tokens = []
    for i, token in enumerate(draft_tokens):
        if token != best[i]:
            break
        tokens.append(token)
    tokens.append(best[len(tokens)])
    cache.crop(start + len(tokens))
    return tokens
