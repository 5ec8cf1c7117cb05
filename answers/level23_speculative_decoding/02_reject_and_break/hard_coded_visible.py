# expect: lose hidden_other_draft hidden_draw_order hidden_coin_success_appends
# why: returns the visible answer.
# diagnosis: you call torch.rand twice and always return [10, 20], the visible test's answer: decide each position from p, q and r
def verify_draft(draft_probs, target_probs, draft_tokens):
    torch.rand(1)
    torch.rand(1)
    return [10, 20]
