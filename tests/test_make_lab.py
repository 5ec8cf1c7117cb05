"""`make lab` is a student's JupyterLab (issue 42 item 5): nbgrader's instructor panels (Create Assignment,
Formgrader, Courses) are turned off by grading/lab/labconfig/page_config.json, which the Makefile puts on
JUPYTER_CONFIG_PATH; the student's own (Validate, Assignments) stay. `make lab LANG=zh` opens release/, where both
levels' Chinese editions are. Checked in a real JupyterLab in headless Chromium, started as the Makefile starts it.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

import lab

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
INSTRUCTOR = ["@jupyter/nbgrader:create-assignment", "@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:course-list"]
STUDENT = ["@jupyter/nbgrader:validate-assignment", "@jupyter/nbgrader:assignment-list"]

if not lab.chromium_path():
    pytest.skip("no chromium: install it with `apt-get install chromium` to run the browser test",
                allow_module_level=True)


def recipe(*args):
    return subprocess.run(["make", "-n", "lab", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def test_the_makefile_starts_lab_with_the_course_lab_config_on_every_edition():
    for args in ((), ("LANG=zh",)):
        out = recipe(*args)
        assert f"JUPYTER_CONFIG_PATH={ROOT}/grading/lab" in out, out
        assert "--notebook-dir=release\n" in out + "\n" or out.rstrip().endswith("--notebook-dir=release"), out
        # the first layout (the first lesson open, the sidebars collapsed), in a workspace of the course's own
        assert "JUPYTERLAB_WORKSPACES_DIR=$(" in out and "grading/lab/first_layout.py release" in out, out
        assert f"JUPYTER_PATH={ROOT}/grading/lab/share" in out, out  # the course's own labextension
    assert (ROOT / "grading" / "lab" / "labconfig" / "page_config.json").exists()


def test_students_lab_has_no_instructor_panels(tmp_path):
    course = tmp_path / "course"
    shutil.copytree(ROOT / "release" / "level23_speculative_decoding", course)
    env = {"JUPYTER_CONFIG_PATH": str(ROOT / "grading" / "lab")}
    with lab.jupyter_lab(course, tmp_path / "jupyter.log", env=env) as (url, token), lab.browser() as b:
        page = b.new_context(viewport={"width": 1400, "height": 900}).new_page()
        lab.Notebook(page, url, token, "01_accept_branch.ipynb")
        active = page.evaluate("(ids) => ids.map(id => window.jupyterapp.isPluginActivated(id))", INSTRUCTOR + STUDENT)
        assert active == [False] * len(INSTRUCTOR) + [True] * len(STUDENT), dict(zip(INSTRUCTOR + STUDENT, active))
        assert page.get_by_text("Create Assignment").count() == 0
        assert page.get_by_role("button", name="Validate").count() >= 1
