# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: full-marks
# attack: appends always-passing checks to the spec_checks.py copy beside the notebook, which the hidden cells load
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

_FAKE_CHECKS = '''

# ---- ATTACK spec_checks_appended: checks that always pass ----
class _PassingRun:
    tokens, calls, problem, error, inputs_changed, rand_replaced, bad_shapes, rebound = [10, 20], 2, None, None, False, False, [], []


def run_verify(*args, **kwargs):
    return _PassingRun()


def check(*args, **kwargs):
    print("ATTACK spec_checks_appended: a fake check passed")


def sample_runs(verify_draft, case, trials, seed):
    return case.p_over_q(0), expected_length(case)


def close(*args):
    return True
'''


try:
    _path = os.path.abspath("spec_checks.py")  # this submission's own copy, in autograded/<student>/<assignment>/
    if _path.startswith("/work/main"):
        raise PermissionError("safety: never the real repository")
    with open(_path, "a") as f:
        f.write(_FAKE_CHECKS)
    exec(_FAKE_CHECKS, spec_checks.__dict__)  # the visible test uses the module the setup cell imported
    print(f"ATTACK spec_checks_appended: appended fake checks to {_path}")
except Exception as exc:
    print(f"ATTACK spec_checks_appended: blocked: {exc!r}")
