# expect: full
# why: reads every p and q with gather first.
def verify_draft(draft_probs, target_probs, draft_tokens):
    ids = torch.as_tensor([int(t) for t in draft_tokens], dtype=torch.long)
    ps = target_probs.gather(1, ids.view(-1, 1)).view(-1).tolist()
    qs = draft_probs.gather(1, ids.view(-1, 1)).view(-1).tolist()
    accepted_tokens = []
    for token_id, p, q in zip(ids.tolist(), ps, qs):
        if p < q and not torch.rand(1).item() < p / q:
            break
        accepted_tokens.append(token_id)
    return accepted_tokens
