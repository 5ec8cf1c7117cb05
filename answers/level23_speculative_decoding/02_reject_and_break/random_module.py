# expect: lose test_visible hidden_single_value_draws
# why: draws with random.random(); the checks hand it the same scripted values, so only the draw source costs.
# diagnosis: you draw r with Python's random module (random.random() or the like) instead of torch.rand: draw r = torch.rand(1).item()
import random

def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        r = random.random()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            break
    return accepted_tokens
