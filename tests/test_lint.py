"""Lint as part of the suite (#12 item 7): ``ruff check`` with the rules configured in pyproject.toml must pass
on the repository, and the configured rules must be able to fail (a probe file with an unused import)."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def ruff(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(exe).exists():
        pytest.skip("ruff is not installed (pip install 'chronoplan[test]')")
    return subprocess.run([exe, "check", "--no-cache", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_ruff_is_clean():
    proc = ruff(".")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_the_configured_rules_can_fail(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import os\n\n\ndef f(l):\n    return l\n")
    proc = ruff("--config", str(ROOT / "pyproject.toml"), str(probe))
    assert proc.returncode == 1 and "F401" in proc.stdout and "E741" in proc.stdout
