"""JupyterHub 6 for the Level 23 course: one instructor and the students, as local Unix users.

`make hub` prepares the machine (hub/classroom.py: users, the course environment, the exchange,
the instructor's course folder) and starts `jupyterhub -f hub/jupyterhub_config.py` as root.
For a real deployment, see "Running the course on JupyterHub" in the README: change the
authenticator, put HTTPS in front, and keep HUB_ROOT on a disk that is backed up.
"""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
HUB_ROOT = os.environ.get("LEVEL23_HUB_ROOT", "/srv/level23-hub")
PREFIX = os.environ.get("LEVEL23_HUB_USER_PREFIX", "l23-")
INSTRUCTORS = {PREFIX + "instructor"}
STUDENTS = {PREFIX + "student-a", PREFIX + "student-b", PREFIX + "student-c"}
VENV = f"{HUB_ROOT}/venv"  # the course's environment: jupyterlab 4.6, nbgrader and its lab extensions, torch

c = get_config()  # noqa: F821

# Only this machine can reach the hub; a real deployment puts an HTTPS proxy in front of it.
c.JupyterHub.bind_url = f"http://127.0.0.1:{os.environ.get('LEVEL23_HUB_PORT', '8000')}"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{os.environ.get('LEVEL23_HUB_API_PORT', '8081')}"
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{os.environ.get('LEVEL23_PROXY_API_PORT', '8001')}"
c.ConfigurableHTTPProxy.command = [os.path.join(HERE, "node_modules", ".bin", "configurable-http-proxy")]
c.ConfigurableHTTPProxy.pid_file = f"{HUB_ROOT}/state/jupyterhub-proxy.pid"
c.JupyterHub.db_url = f"sqlite:///{HUB_ROOT}/state/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = f"{HUB_ROOT}/state/jupyterhub_cookie_secret"

# Local Unix users with their passwords (PAM). Only the course's users may log in.
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = INSTRUCTORS | STUDENTS

# Each user's JupyterLab runs as that user, from the course's environment.
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [f"{VENV}/bin/jupyterhub-singleuser"]
c.Spawner.default_url = "/lab"
c.Spawner.http_timeout = 120  # JupyterLab with nbgrader takes a while to start on a busy 2-core machine
c.Spawner.start_timeout = 180


def jupyter_config_path(spawner):
    """nbgrader's config (the exchange, the course id) for everyone; students lose the formgrader."""
    role = "instructors" if spawner.user.name in INSTRUCTORS else "students"
    return f"{HUB_ROOT}/etc/jupyter-{role}:{HUB_ROOT}/etc/jupyter"


c.Spawner.environment = {
    # nbgrader runs `alembic` and `make grade` runs the course's python by name.
    "PATH": f"{VENV}/bin:/usr/local/bin:/usr/bin:/bin",
    "JUPYTER_CONFIG_PATH": jupyter_config_path,
    "LANG": "C.UTF-8",
}
if os.environ.get("LEVEL23_HUB_TEST"):
    c.Spawner.args = ["--LabApp.expose_app_in_browser=True"]  # the browser test drives JupyterLab's commands
