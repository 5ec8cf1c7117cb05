# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: full-marks
# attack: finds the instructor's source notebook (../../../source/ or anywhere on disk) and execs its solution cell
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


import json

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


try:
    sources = _find(lambda p: p.endswith("source/level23_speculative_decoding/02_reject_and_break.ipynb"))
    for path in sources:
        with open(path) as f:
            cells = json.load(f)["cells"]
        solutions = ["".join(c["source"]) for c in cells if c.get("metadata", {}).get("nbgrader", {}).get("solution")]
        if solutions and "BEGIN SOLUTION" in solutions[0]:
            exec(solutions[0], globals())  # this verify_draft replaces the wrong one above
            print(f"ATTACK exec_source_solution: ran the instructor's solution from {path}")
            break
    else:
        print(f"ATTACK exec_source_solution: blocked: no source notebook with a solution ({len(sources)} found)")
except Exception as exc:
    print(f"ATTACK exec_source_solution: blocked: {exc!r}")
