"""The course's late policy (grading/plugins/late.py): a tenth of the notebook's score per started day late."""

import pytest

from grading.plugins.late import TenthPerDayLate


@pytest.mark.parametrize("seconds,penalty", [
    (0, None), (1, 1.9), (86400, 1.9), (86401, 3.8), (9.5 * 86400, 19.0), (30 * 86400, 19.0),
])
def test_penalty_per_started_day(seconds, penalty):
    got = TenthPerDayLate().late_submission_penalty("student", 19.0, seconds)
    assert got == (None if penalty is None else pytest.approx(penalty))


def test_the_course_config_uses_it():
    from traitlets.config.loader import PyFileConfigLoader

    from grading import ROOT
    config = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    assert config.AssignLatePenalties.plugin_class is TenthPerDayLate
