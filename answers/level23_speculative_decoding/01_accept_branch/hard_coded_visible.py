# expect: lose hidden_all_accept hidden_other_draft hidden_equal_accepts
# why: returns the visible answer.
# diagnosis: you always return [10], the visible test's answer, whatever the input: test p >= q at each position and append its token_id
def verify_draft(draft_probs, target_probs, draft_tokens):
    return [10]
