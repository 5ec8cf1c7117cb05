# expect: lose hidden_no_draw_after_reject
# why: the first rejection ends verification; a flag that only stops appending still walks the rest of the draft and draws r there.
# diagnosis: after a rejection you go on through the loop (a flag instead of break), so r is drawn again at later p < q positions: break at the first rejection
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    stopped = False
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            if not stopped:
                accepted_tokens.append(token_id)
            continue
        r = torch.rand(1).item()
        if r < p / q and not stopped:
            accepted_tokens.append(token_id)
        else:
            stopped = True
    return accepted_tokens
