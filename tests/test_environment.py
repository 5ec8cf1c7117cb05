"""One list of pins: requirements.txt; environment.yml installs the same, and so does the venv."""

import re
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def pins(text):
    return dict(re.findall(r"^[\s-]*([A-Za-z0-9_.\-]+)==([^\s#]+)", text, re.M))


def test_requirements_pin_every_package_exactly():
    lines = [l.strip() for l in (ROOT / "requirements.txt").read_text().splitlines()]
    specs = [l for l in lines if l and not l.startswith("#")]
    assert specs, "requirements.txt lists no packages"
    loose = [s for s in specs if "==" not in s]
    assert not loose, f"unpinned requirements: {loose}"
    assert "torch==2.13.0" in specs, "torch must be pinned as exactly torch==2.13.0 (the CPU wheel on disk)"


def test_environment_yml_matches_requirements():
    req = pins((ROOT / "requirements.txt").read_text())
    env_text = (ROOT / "environment.yml").read_text()
    assert "python=3.11" in env_text
    assert pins(env_text) == req


def test_installed_versions_match_the_pins():
    for name, version in pins((ROOT / "requirements.txt").read_text()).items():
        installed = metadata.version(name)
        assert installed.split("+")[0] == version, f"{name}: installed {installed}, pinned {version}"
