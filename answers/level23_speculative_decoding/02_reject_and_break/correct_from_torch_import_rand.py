# expect: full
# why: `from torch import rand` names torch.rand itself; the checks hand their scripted draws to it under any name.
from torch import rand

def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        r = rand(1).item()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
