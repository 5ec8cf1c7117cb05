"""Course tooling: build the notebooks, grade submissions, and report on them."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASSIGNMENTS = {
    "level23_speculative_decoding": ("01_accept_branch", "02_reject_and_break"),
    "level24_residual_and_bonus": ("01_correction_token", "02_bonus_and_step"),
}
ASSIGNMENT = "level23_speculative_decoding"  # kept for existing callers
NOTEBOOKS = ASSIGNMENTS[ASSIGNMENT]

