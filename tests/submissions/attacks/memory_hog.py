# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: stop
# attack: allocates and touches 4 GiB, and keeps it for the rest of the notebook
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
            continue
    return accepted_tokens


_hoard = []
try:
    while len(_hoard) < 16:  # safety: 16 x 256 MiB = 4 GiB at most
        _block = bytearray(256 * 2**20)
        _block[::4096] = b"\1" * (len(_block) // 4096)  # touch every page, so the memory is really used
        _hoard.append(_block)
    print(f"ATTACK memory_hog: holding {len(_hoard) / 4:.2f} GiB")
except BaseException as exc:
    print(f"ATTACK memory_hog: blocked at {len(_hoard) / 4:.2f} GiB: {exc!r}")
