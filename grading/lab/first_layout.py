"""The first layout of a student's JupyterLab (`make lab`, issue 42): the first lesson open and both sidebars
collapsed. Without it JupyterLab starts "fresh" and opens its file browser, which on a phone (375 px) lies over the
whole notebook. Usage: python grading/lab/first_layout.py NOTEBOOK_DIR [zh]; prints the workspaces folder to give
JupyterLab (JUPYTERLAB_WORKSPACES_DIR), one per notebook folder and edition under .lab-workspaces/. The layout is written only
when that folder has none, so a student's own layout (tabs, sidebars) is kept from one `make lab` to the next.
"""

import json
import re
import sys
from pathlib import Path

from jupyterlab_server.workspaces_handler import WORKSPACE_EXTENSION, slugify

ROOT = Path(__file__).resolve().parents[2]


def first_lesson(notebook_dir, zh=False):
    """The path, under ``notebook_dir``, of the notebook a student starts with: the first of the first folder (of
    the Chinese edition's folders, *_zh, with ``zh``)."""
    found = sorted(Path(notebook_dir).glob("*.ipynb")) or sorted(
        p for p in Path(notebook_dir).glob("*/*.ipynb") if p.parent.name.endswith("_zh") == zh)
    return found[0].relative_to(notebook_dir).as_posix() if found else None


def layout(notebook):
    """JupyterLab's workspace data: ``notebook`` open (if any), the left and right sidebars collapsed."""
    data = {"layout-restorer:data": {
        "main": {"dock": None, "current": None},
        "left": {"collapsed": True, "visible": True, "widgets": []},
        "right": {"collapsed": True, "visible": True, "widgets": []},
    }}
    if notebook:
        widget = f"notebook:{notebook}"
        data["layout-restorer:data"]["main"] = {
            "dock": {"type": "tab-area", "currentIndex": 0, "widgets": [widget]}, "current": widget}
        data[widget] = {"data": {"path": notebook, "factory": "Notebook"}}
    return {"data": data, "metadata": {"id": "default"}}


def write(notebook_dir, folder, zh=False):
    """The first layout in ``folder``, unless it holds one already."""
    path = Path(folder) / (slugify("default") + WORKSPACE_EXTENSION)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(layout(first_lesson(notebook_dir, zh)), indent=1) + "\n")
    return path


def main(notebook_dir, edition=""):
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", str(Path(notebook_dir))).strip("-.") or "root"
    folder = ROOT / ".lab-workspaces" / (name + ("-zh" if edition == "zh" else ""))
    write(notebook_dir, folder, zh=edition == "zh")
    print(folder)


if __name__ == "__main__":
    main(*sys.argv[1:3])
