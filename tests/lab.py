"""Drive a real JupyterLab in headless Chromium (Debian's chromium, through Playwright).

Used by tests/test_browser.py and benchmarks/browser_speed.py.
"""

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


def chromium_path():
    return shutil.which("chromium") or shutil.which("chromium-browser")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def jupyter_lab(notebook_dir, log_path, locale=None, env=None):
    """A JupyterLab server on 127.0.0.1 with a fresh token; yields its base URL and token.

    ``locale`` (e.g. "zh_CN") sets JupyterLab's interface language, as `make lab LANG=zh` does;
    ``env``: more environment variables (JUPYTER_CONFIG_PATH=grading/lab, as `make lab` sets).
    """
    port, token = free_port(), secrets.token_hex(16)
    home = Path(notebook_dir).parent / "home"
    settings = home / "lab-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    if locale:
        translation = home / "lab-settings" / "@jupyterlab" / "translation-extension"
        translation.mkdir(parents=True, exist_ok=True)
        (translation / "plugin.jupyterlab-settings").write_text(f'{{"locale": "{locale}"}}')
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false", "checkForUpdates": false}')
    tracker = home / "lab-settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True, exist_ok=True)
    # Render every cell (no windowing), so that widgets far down the page exist in the DOM.
    (tracker / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    extra_env = env
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTERLAB_SETTINGS_DIR=str(home / "lab-settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"))
    env.pop("NBGRADER_EXECUTION", None)
    env.update(extra_env or {})
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [str(BIN / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={notebook_dir}",
         "--LabApp.expose_app_in_browser=True", "--allow-root"],
        cwd=notebook_dir, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"jupyter lab did not start; see {log_path}")
                time.sleep(0.5)
        yield url, token
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@contextmanager
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


class Notebook:
    """One notebook open in JupyterLab, driven through the page and the app's own commands."""

    def __init__(self, page, url, token, name):
        self.page, self.name = page, name
        page.goto(f"{url}/lab/tree/{name}?token={token}&reset")  # reset: no tabs restored from earlier pages
        self._wait_open()

    @classmethod
    def opened(cls, page, name):
        """The notebook ``name`` (a path under the server's root) that the page has just opened itself."""
        nb = cls.__new__(cls)
        nb.page, nb.name = page, name
        nb._wait_open()
        return nb

    def _wait_open(self):
        page, name = self.page, self.name
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                               f" && window.jupyterapp.shell.currentWidget.context"
                               f" && window.jupyterapp.shell.currentWidget.context.path === {name!r}", timeout=90_000)
        self.wait_kernel_idle(timeout=90_000)

    def wait_kernel_idle(self, timeout=60_000):
        self.page.wait_for_function(
            "() => { const w = window.jupyterapp.shell.currentWidget;"
            " const k = w.sessionContext.session && w.sessionContext.session.kernel;"
            " return k && k.status === 'idle'; }", timeout=timeout)

    def run_all(self, timeout=120_000):
        """Run every cell; return once nothing is queued or running."""
        self.page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        self.page.wait_for_function(
            "() => { const nb = window.jupyterapp.shell.currentWidget.content;"
            " return !nb.node.querySelector('.jp-InputArea-prompt') ? false :"
            " ![...nb.node.querySelectorAll('.jp-InputArea-prompt')].some(p => p.textContent.includes('*')); }",
            timeout=timeout)
        self.wait_kernel_idle(timeout=timeout)

    def error_cells(self):
        """[(cell index, error text)] for every cell that shows an error."""
        return self.page.evaluate(
            "() => window.jupyterapp.shell.currentWidget.content.widgets.map((c, i) => [i,"
            " c.model.type !== 'code' ? '' : c.model.outputs.toJSON().filter(o => o.output_type === 'error')"
            ".map(o => o.ename + ': ' + o.evalue).join('\\n')]).filter(([i, t]) => t)")

    def set_cell_source(self, grade_id, code):
        """Type ``code`` into the cell with this nbgrader grade_id, through its editor."""
        index = self.page.evaluate(
            "(gid) => window.jupyterapp.shell.currentWidget.content.widgets.findIndex("
            "c => (c.model.getMetadata('nbgrader') || {}).grade_id === gid)", grade_id)
        assert index >= 0, f"no cell {grade_id}"
        editor = self.page.locator(".jp-NotebookPanel:visible .jp-Cell").nth(index).locator(".cm-content")
        editor.scroll_into_view_if_needed()
        editor.click()
        self.page.keyboard.press("Control+a")
        self.page.keyboard.press("Delete")
        self.page.keyboard.insert_text(code)
        return index

    def save(self):
        self.page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
        self.page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty")

    def shot(self, locator, path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        locator.scroll_into_view_if_needed()
        locator.screenshot(path=str(path))
