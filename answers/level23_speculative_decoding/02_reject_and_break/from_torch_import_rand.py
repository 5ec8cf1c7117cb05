# expect: lose test_visible hidden_draw_order
# why: binds rand at import time, so the scripted draws never reach it.
# diagnosis: you draw r from torch's generator without calling torch.rand as the checks see it (for instance rand from `from torch import rand`, a name bound at import, or another torch sampler such as torch.bernoulli): call torch.rand(1).item()
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
