"""The handbook and the two READMEs (issue 42, item 6).

docs/*.md is built by Sphinx with MyST-Parser with warnings as errors (`make docs`), so a link between pages
that goes nowhere, a heading anchor that does not exist, a missing picture or a page outside the table of
contents fails. The READMEs are not part of that build (GitHub shows them): every relative link in them must
reach a file, and a `#heading` in it, here. Each README stays a front door of about two screens.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
READMES = ("README.md", "README.zh-CN.md")
MAX_LINES = 100


def test_the_handbook_builds_with_warnings_as_errors(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           "-d", str(tmp_path / "doctrees"), str(ROOT / "docs"), str(tmp_path / "html")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-5000:]
    pages = {p.stem for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts}
    built = {p.stem for p in (tmp_path / "html").rglob("*.html")}
    assert pages <= built


def test_make_docs_builds_with_warnings_as_errors():
    dry = subprocess.run(["make", "-n", "-o", ".venv/.installed", "docs"], cwd=ROOT, capture_output=True, text=True)
    assert dry.returncode == 0 and "-m sphinx -W" in dry.stdout, dry.stdout + dry.stderr


def slug(heading):
    """The anchor GitHub and MyST (myst_heading_anchors) give a heading."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*$", text, re.M)}


def links(path):
    """Every link target of a Markdown file, outside code."""
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.findall(r"\]\(([^)\s]+)\)", text)


@pytest.mark.parametrize("readme", READMES)
def test_every_relative_link_of_the_readme_reaches_a_file(readme):
    path = ROOT / readme
    relative = [t for t in links(path) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]
    assert relative, f"{readme} links nothing"
    broken = []
    for target in relative:
        file, _, anchor = target.partition("#")
        where = (path.parent / file) if file else path
        if not where.exists():
            broken.append(f"{target}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            broken.append(f"{target}: no heading '#{anchor}' in {where.relative_to(ROOT)}")
    assert not broken, f"{readme}: " + "; ".join(broken)


@pytest.mark.parametrize("readme", READMES)
def test_the_readme_is_a_front_door(readme):
    text = (ROOT / readme).read_text()
    assert len(text.splitlines()) <= MAX_LINES, f"{readme} has {len(text.splitlines())} lines: move the rest to docs/"
    for needed in ("make demo", "make test", "docs/index.md", "docs/instructors.md", "make release"):
        assert needed in text, f"{readme} does not mention {needed}"
    assert re.search(r"!\[[^\]]*(\[[^\]]*\)[^\]]*)?\]\(docs/[^)]+\.png\)", text), f"{readme} shows no screenshot"


def test_the_chinese_readme_names_every_notebook_of_both_levels():
    from grading import ASSIGNMENTS

    text = (ROOT / "README.zh-CN.md").read_text()
    assert "两个短 notebook" not in text
    for assignment in ("level23_speculative_decoding_zh", "level24_residual_and_bonus_zh"):
        for notebook in ASSIGNMENTS[assignment]:
            assert notebook in text, notebook
    import nbformat
    nb = nbformat.read(ROOT / "source" / "level24_residual_and_bonus" / "03_real_pair.ipynb", as_version=4)
    points = sum(c.metadata.get("nbgrader", {}).get("points", 0) for c in nb.cells)
    assert re.search(rf"`03_real_pair` \|[^\n]*\| {points:g} \|", text)  # notebook 03 and its points, as graded
