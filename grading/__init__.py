"""Course tooling: build the notebooks, grade submissions, and report on them.

    grade.py, demo.py   `make grade` (every submission, in parallel) and `make demo`
    pipeline.py         the real nbgrader CLI on a course folder, and its gradebook read back
    report.py           the class report
    ids.py              the rule for student and assignment ids, checked wherever an id enters
    sandbox/            where student code runs: kernel managers, fork server, cgroups, the grading kernel
    judge/              verdicts and diagnoses, decided in the grader from plain data
    plugins/            what nbgrader_config.py switches on: preprocessors, exchange, export, late policy
    build/              lessons to notebooks and editions, and the answer catalogue
    templates/          the feedback page
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Every nbgrader assignment of the course, with its notebooks. An edition in another language is
# an assignment of its own, built from its template's lessons (EDITIONS below, grading/build/notebooks.py).
ASSIGNMENTS = {
    "level23_speculative_decoding": ("01_accept_branch", "02_reject_and_break"),
    "level23_speculative_decoding_zh": ("01_accept_branch", "02_reject_and_break"),
    "level24_residual_and_bonus": ("01_correction_token", "02_bonus_and_step", "03_real_pair"),
    "level24_residual_and_bonus_zh": ("01_correction_token", "02_bonus_and_step", "03_real_pair"),
}
# A translated edition: (the assignment it is built from, its language). Its lesson text, messages
# and code comments come from lessons/i18n/<template>.<language>.py; its code is the template's.
EDITIONS = {
    "level23_speculative_decoding_zh": ("level23_speculative_decoding", "zh"),
    "level24_residual_and_bonus_zh": ("level24_residual_and_bonus", "zh"),
}
ASSIGNMENT = "level23_speculative_decoding"  # kept for existing callers
NOTEBOOKS = ASSIGNMENTS[ASSIGNMENT]


def template(assignment):
    """The assignment whose lessons ``assignment`` is built from (itself, for an English one)."""
    return EDITIONS.get(assignment, (assignment, "en"))[0]


def language(assignment):
    """'en' or the language of a translated edition."""
    return EDITIONS.get(assignment, (assignment, "en"))[1]
