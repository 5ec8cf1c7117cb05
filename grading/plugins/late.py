"""The course's late policy: a late notebook loses a tenth of its score for each started day late.

One second to 24 hours late costs 10 %, up to 48 hours 20 %, and so on; ten days or more late
scores 0. A submission is late when its nbgrader timestamp (the time of the student's last
submit, written by `nbgrader submit` into timestamp.txt) is after the assignment's due date in
the gradebook (`nbgrader db assignment add level23_speculative_decoding --duedate=...`).
Without a due date nothing is late.
"""

import math

from nbgrader.plugins import LateSubmissionPlugin

PER_DAY = 0.1


class TenthPerDayLate(LateSubmissionPlugin):
    """nbgrader's late-penalty plugin for this course (c.AssignLatePenalties.plugin_class)."""

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        if total_seconds_late <= 0:
            return None
        days = math.ceil(total_seconds_late / 86400)
        return round(min(score, score * PER_DAY * days), 2)
