# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: full-marks
# attack: wraps the kernel's execute_request handler so it publishes a non-numeric execute_result before each later cell runs
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


_kernel = get_ipython().kernel
_real_execute_request = _kernel.shell_handlers["execute_request"]


async def _execute_request(stream, ident, parent):
    # not an IPython hook: the kernel itself reports a result first, and nbgrader scores a cell by its first result
    content = {"data": {"text/plain": "'ATTACK execute_request_handler_wrapped: full marks'"}, "metadata": {},
               "execution_count": _kernel.execution_count + 1}
    _kernel.session.send(_kernel.iopub_socket, "execute_result", content, parent=parent,
                         ident=_kernel._topic("execute_result"))
    return await _real_execute_request(stream, ident, parent)


try:
    _kernel.shell_handlers["execute_request"] = _execute_request
    print("ATTACK execute_request_handler_wrapped: handler wrapped")
except Exception as exc:
    print(f"ATTACK execute_request_handler_wrapped: blocked: {exc!r}")
