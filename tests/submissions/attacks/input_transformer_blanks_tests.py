# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: full-marks
# attack: adds an IPython input transformer that replaces the source of every later test cell with a print
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


def _blank_test_cells(lines):
    """IPython runs this on the source of every later cell, before compiling it."""
    source = "".join(lines)
    if "BEGIN HIDDEN TESTS" in source or "run_verify" in source or "sample_runs" in source:
        return ["print('ATTACK input_transformer_blanks_tests: this test cell was blanked')\n"]
    return lines


try:
    get_ipython().input_transformers_cleanup.append(_blank_test_cells)
    print("ATTACK input_transformer_blanks_tests: transformer installed")
except Exception as exc:
    print(f"ATTACK input_transformer_blanks_tests: blocked: {exc!r}")
