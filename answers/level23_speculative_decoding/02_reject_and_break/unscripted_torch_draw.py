# expect: lose test_visible hidden_draw_order
# why: draws r with torch.empty(1).uniform_(), torch's generator but not torch.rand, so the scripted draws never reach it.
# diagnosis: you draw r from torch's generator without calling torch.rand (for instance torch.empty(1).uniform_() or torch.bernoulli), and the checks hand out their draws through torch.rand: call torch.rand(1).item()

def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        r = torch.empty(1).uniform_().item()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
