# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: stop
# attack: writes a 2 GiB file into the working folder (feedback copies it too), in 64 MiB chunks, stopping at the first error
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


import os

_written = 0
try:
    _chunk, _path = bytes(64 * 2**20), os.path.abspath("ATTACK_gigabyte_file.bin")
    with open(_path, "wb") as f:
        while _written < 2 * 2**30:
            f.write(_chunk)
            _written += len(_chunk)
    print(f"ATTACK gigabyte_files: wrote {_written / 2**30:.2f} GiB to {_path}")
except BaseException as exc:
    print(f"ATTACK gigabyte_files: blocked after {_written / 2**30:.2f} GiB: {exc!r}")
