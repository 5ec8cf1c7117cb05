# expect: lose hidden_inputs_unchanged hidden_emitted_distribution
# why: builds the residual in place in a row of target_probs, changing the caller's tensor.
# diagnosis: inputs_changed
def verify_and_correct(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
            continue
        residual = target_probs[i]
        residual -= draft_probs[i]
        residual.clamp_(min=0)
        residual /= residual.sum()
        accepted_tokens.append(int(torch.multinomial(residual, 1).item()))
        break
    return accepted_tokens
