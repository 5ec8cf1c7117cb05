"""The plain `nbgrader autograde` (the real CLI, not make grade's workers) runs in a cgroup of its own where one can be
made, and says at start-up which limit holds (issue 41 item 4): nbgrader_config.py calls
grading.sandbox.cgroups.confine_plain_autograde as nbgrader reads it. Other commands (generate_feedback here) are left
where they are."""
import os
import subprocess
import sys

import pytest

from grading import ASSIGNMENT, pipeline
from grading.build import catalogue
from grading.sandbox import cgroups

NB2 = "02_reject_and_break"
CGROUP_AT_EXIT = ("import atexit, sys\n"
                  "atexit.register(lambda: sys.stderr.write('CGROUP ' + open('/proc/self/cgroup').read()"
                  ".replace('\\n', ' ') + '\\n'))\n"
                  "from nbgrader.apps.nbgraderapp import main\n"
                  "sys.argv = ['nbgrader'] + sys.argv[1:]\n"
                  "main()\n")
SAID = "[nbgrader_config] this nbgrader autograde's own memory is"


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    course = pipeline.make_course(tmp_path_factory.mktemp("plain_cgroup"))
    pipeline.nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    right = catalogue.parse(catalogue.answers_dir() / NB2 / "correct_while_loop.py").code
    for student in ("honest", "small"):
        catalogue.write_submission(course / "submitted", student, NB2, right, course / "release" / ASSIGNMENT)
    return course


def run(course, *args, env=None):
    return subprocess.run([sys.executable, "-c", CGROUP_AT_EXIT, *args], cwd=course, env=dict(pipeline.env(), **(env or {})),
                          text=True, capture_output=True, timeout=300)


def memory_limit(cgroup_line):
    """The memory limit of the cgroup named in a /proc/<pid>/cgroup text, read from its folder, or None."""
    where = cgroups.setup()
    for entry in cgroup_line.split():
        parts = entry.split(":", 2)
        if len(parts) == 3 and (parts[1] == "memory" or (parts[0] == "0" and where.version == 2)):
            name = os.path.basename(parts[2])
            for base in where.bases:
                for file in ("memory.limit_in_bytes", "memory.max"):
                    path = os.path.join(base, name, file)
                    if os.path.exists(path):
                        return int(open(path).read())
    return None


def test_plain_autograde_says_which_limit_holds_and_is_in_its_own_cgroup(course):
    proc = run(course, "autograde", ASSIGNMENT, "--student", "honest")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stderr.count(SAID) == 1, proc.stderr[-3000:]
    if cgroups.setup() is None:
        assert f"{SAID} not limited by a cgroup here: " in proc.stderr
        pytest.skip(f"no cgroup can be made here: {cgroups.why_not()}")
    assert f"{SAID} limited to 1.5 GiB by cgroup (v{cgroups.setup().version})" in proc.stderr
    line = proc.stderr.rsplit("CGROUP ", 1)[1].splitlines()[0]
    assert "/nbg-" in line, line
    assert memory_limit(line) == cgroups.PLAIN_MEMORY, line
    assert sum(s for s, _ in pipeline.scores(course)["honest"][NB2].values()) == 20
    feedback = run(course, "generate_feedback", ASSIGNMENT, "--student", "honest", "--force")
    assert feedback.returncode == 0 and SAID not in feedback.stderr
    assert "/nbg-" not in feedback.stderr.rsplit("CGROUP ", 1)[1], "only autograde is confined"
    cgroups.remove_stale()


def test_plain_autograde_past_its_limit_is_stopped_not_the_host(course):
    if cgroups.setup() is None:
        pytest.skip(f"no cgroup can be made here: {cgroups.why_not()}")
    proc = run(course, "autograde", ASSIGNMENT, "--student", "small", env={cgroups.PLAIN_MEMORY_ENV: "60"})
    assert f"{SAID} limited to 0.0585938 GiB by cgroup" in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == -9, (proc.returncode, proc.stderr[-2000:])
    cgroups.remove_stale()
