"""Type-check the package with mypy (settings: ``[tool.mypy]`` in pyproject.toml).

Input: the repository (this file's parent's parent) and extra mypy arguments.  Output: mypy's report with paths
as they are in the repository (``compiler/ir.py``, ``src/chronoplan/cli.py``) and mypy's exit status.

The package's folders sit at the repository's top level (grammar/, compiler/, runtime/, validators/, ...) and
are mapped into ``chronoplan`` by pyproject.toml's ``package-dir``, which mypy cannot read; so the check runs
on a temporary tree of links laid out as the installed package (``runtime.compiled.pure_tree``), where every
``from chronoplan.compiler import ...`` resolves to the repository's file.

Usage: python tools/typecheck.py [MYPY ARGS...]     (also the pre-commit hook and tests/test_types.py)
"""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _compiled():
    """runtime/compiled.py read without importing the package (as setup.py reads it)."""
    spec = importlib.util.spec_from_file_location("_chronoplan_compiled", ROOT / "runtime" / "compiled.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_COMPILED = _compiled()
SOURCE_DIRS, pure_tree = _COMPILED.SOURCE_DIRS, _COMPILED.pure_tree

_PATH = re.compile(r"^chronoplan/(?:(" + "|".join(d for d in SOURCE_DIRS if d != "chronoplan") + r")/)?",
                   re.MULTILINE)


def repo_path(match: re.Match) -> str:
    """``chronoplan/compiler/`` -> ``compiler/``; ``chronoplan/cli.py`` -> ``src/chronoplan/cli.py``."""
    sub = match.group(1)
    return f"{SOURCE_DIRS[sub]}/" if sub else f"{SOURCE_DIRS['chronoplan']}/"


def main(argv: list) -> int:
    with tempfile.TemporaryDirectory(prefix="chronoplan-mypy-") as d:
        tree = pure_tree(ROOT, Path(d))
        proc = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                               "--no-incremental", "-p", "chronoplan", *argv], cwd=tree, capture_output=True,
                              text=True)
    sys.stdout.write(_PATH.sub(repo_path, proc.stdout))
    sys.stderr.write(proc.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
