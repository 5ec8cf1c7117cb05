# notebook: 02_reject_and_break
# fault: the answer cell asks for more memory than the machine has (the function above it is fine)
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        r = torch.rand(1).item()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens


hoard = bytearray(64 * 2**30)  # asks for 64 GiB at once
