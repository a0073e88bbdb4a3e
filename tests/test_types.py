"""Type checking as part of the suite (#12 item 7): ``python tools/typecheck.py`` (mypy with the settings of
pyproject.toml, on the package laid out as installed) must pass; the configured checks must be able to fail (a
probe module with a type error); and the not-yet-clean baseline in pyproject.toml may only shrink."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "typecheck.py"

pytest.importorskip("mypy", reason="mypy is not installed (pip install 'chronoplan[test]')")


def typecheck(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def baseline() -> list:
    """The modules of the ``ignore_errors`` override in pyproject.toml (tomllib is 3.11+; we support 3.10)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = text[text.index("[[tool.mypy.overrides]]"):]
    block = block[:block.index("ignore_errors = true")]
    return re.findall(r'"(chronoplan\.[\w.]+)"', block)


def test_mypy_is_clean():
    proc = typecheck()
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "Success: no issues found" in proc.stdout


def test_the_configured_checks_can_fail(tmp_path):
    """The settings of pyproject.toml report a probe module's type error (an Optional used as its value)."""
    probe = tmp_path / "probe.py"
    probe.write_text("from typing import Optional\n\n\ndef f(x: Optional[str]) -> int:\n    return len(x)\n")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--no-incremental", str(probe)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "probe.py:5: error" in proc.stdout and "[arg-type]" in proc.stdout, proc.stdout


def test_reports_name_repository_paths():
    spec = importlib.util.spec_from_file_location("typecheck_script", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    text = "chronoplan/compiler/ir.py:3: error: x\nchronoplan/cli.py:9: error: y\nchronoplan/runtime/env.py:1: note"
    assert script._PATH.sub(script.repo_path, text).splitlines() == [
        "compiler/ir.py:3: error: x", "src/chronoplan/cli.py:9: error: y", "runtime/env.py:1: note"]


def test_the_baseline_names_modules_that_still_have_errors(tmp_path):
    """Each module of the not-yet-clean list exists and still has errors (else: remove it from the list)."""
    mods = baseline()
    paths = {}
    for m in mods:
        _, package, rest = m.split(".", 2)
        paths[m] = f"{package}/{rest.replace('.', '/')}.py"
        assert (ROOT / paths[m]).exists(), f"{m} in the mypy baseline is not a module"
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    settings = text[text.index("[tool.mypy]"):text.index("[[tool.mypy.overrides]]")]
    (tmp_path / "strict.toml").write_text(settings, encoding="utf-8")
    proc = typecheck("--config-file", str(tmp_path / "strict.toml"))
    clean = [m for m in mods if f"{paths[m]}:" not in proc.stdout]
    assert not clean, f"now clean, remove from the baseline in pyproject.toml: {clean}"
