# notebook: 02_reject_and_break
# fault: verify_draft ends the kernel process
import os


def verify_draft(draft_probs, target_probs, draft_tokens):
    os._exit(1)
