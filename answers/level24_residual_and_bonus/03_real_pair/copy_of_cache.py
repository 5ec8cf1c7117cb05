# expect: lose test_visible hidden_one_call_per_step hidden_cache_rolled_back hidden_no_drafts
# why: works on a deep copy of the cache, so the cache it was given never holds the step's positions.
# diagnosis: pair_other_cache
import copy


def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):
    work = copy.deepcopy(cache)
    start = work.length
    logits = target.forward_cached([last_token] + list(draft_tokens), work)
    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)
    work.crop(start + len(tokens))
    return tokens
