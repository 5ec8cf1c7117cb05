# expect: lose test_visible hidden_one_correction
# why: Python's random.choices with the residual as weights: the right distribution, but not torch.multinomial, which the tests script. Its stand-in hands random.choices the scripted tokens and records its weights, so the source is charged once (the one-call check and the visible test) and the residual passes.
# diagnosis: sampler_random_choices
def verify_and_correct(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q or torch.rand(1).item() < p / q:
            accepted_tokens.append(token_id)
            continue
        import random
        residual = torch.clamp(target_probs[i] - draft_probs[i], min=0)
        residual = residual / residual.sum()
        accepted_tokens.append(random.choices(range(len(residual)), weights=residual.tolist())[0])
        break
    return accepted_tokens
