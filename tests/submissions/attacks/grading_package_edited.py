# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: tamper
# attack: appends to the course's grading/plugins/preprocessors.py a line that turns HideHiddenTestDetails into a no-op for later runs
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


def _may_tamper(path):
    """Safety of this test file: never the real repository (/work/main, or anything inside a git checkout)."""
    path = os.path.realpath(path)
    parents = [path[:i] or "/" for i, char in enumerate(path) if char == "/"]
    return not path.startswith("/work/main") and not any(os.path.isdir(os.path.join(p, ".git")) for p in parents)


_PAYLOAD = ("\n\n# ---- appended by a student's answer cell (ATTACK grading_package_edited) ----\n"
            "HideHiddenTestDetails.preprocess_cell = lambda self, cell, resources, index: (cell, resources)\n")
try:
    _edited = []
    for _path in _find(lambda p: p.endswith("/grading/plugins/preprocessors.py")):
        with open(_path) as f:
            text = f.read()
        if _may_tamper(_path) and "class HideHiddenTestDetails" in text and "ATTACK grading_package_edited" not in text:
            with open(_path, "a") as f:
                f.write(_PAYLOAD)
            _edited.append(_path)
    print(f"ATTACK grading_package_edited: edited {_edited or 'nothing'}")
except Exception as exc:
    print(f"ATTACK grading_package_edited: blocked: {exc!r}")
