# expect: lose hidden_all_accept hidden_other_draft hidden_equal_accepts
# why: returns the visible answer.
def verify_draft(draft_probs, target_probs, draft_tokens):
    return [10]
