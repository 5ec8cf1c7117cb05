# expect: lose hidden_other_draft hidden_draw_order hidden_coin_success_appends
# why: returns the visible answer.
def verify_draft(draft_probs, target_probs, draft_tokens):
    torch.rand(1)
    torch.rand(1)
    return [10, 20]
