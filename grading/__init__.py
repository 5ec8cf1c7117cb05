"""Course tooling: build the notebooks, grade submissions, and report on them."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASSIGNMENT = "level23_speculative_decoding"
NOTEBOOKS = ("01_accept_branch", "02_reject_and_break")
