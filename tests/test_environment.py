"""One list of pins: requirements.txt; environment.yml installs the same, and so does the venv."""

import re
import sys
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


def test_jsonschema_loads_its_iri_grammar_only_when_an_iri_is_checked():
    # grading/startup/_grading_lazy_imports.py, installed by `make install` with a .pth that imports it at start-up
    import subprocess
    import sysconfig

    installed = Path(sysconfig.get_paths()["purelib"]) / "_grading_lazy_imports.py"
    assert installed.read_text() == (ROOT / "grading" / "startup" / "_grading_lazy_imports.py").read_text(), \
        "run `make install`: the installed start-up module is not the repository's"
    code = ("import sys, time, jsonschema\n"
            "print(type(sys.modules['rfc3987_syntax']).__name__)\n"
            "fc = jsonschema.FormatChecker()\n"
            "print([fc.conforms(v, f) for v in ('http://例子.测试/路径', 'not an iri', '') for f in ('iri', 'iri-reference')])\n"
            "print(type(sys.modules['rfc3987_syntax']).__name__)\n")
    deferred = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    real = subprocess.run([sys.executable, "-c", "import sys; del sys.modules['rfc3987_syntax']\n" + code],
                          capture_output=True, text=True, check=True).stdout.split("\n")
    assert deferred[0] == "_Deferred" and deferred[2] == "module", deferred  # loaded by the first check
    assert real[0] == "module"
    assert deferred[1] == real[1] == str([True, True, False, False, False, True])  # the same verdicts
