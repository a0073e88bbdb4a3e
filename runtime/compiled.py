"""Which modules run compiled: the list setup.py compiles with Cython, and a check of what was loaded.

Input: none.  Output: ``MODULES`` (module name -> source path in the repository, read by setup.py) and
``compiled() -> {module: bool}`` (True when the imported module is a C extension, False when it is the
pure-Python source); ``pure_tree(repo, dest)`` lays out the repository's sources to import the pure-Python
engine beside a compiled install, and ``run_pure(repo, args)`` runs Python on them in a subprocess (tests and
bench/ compare the two).  Results are identical either way
(tests/test_compiled.py); only speed differs.
"""
from __future__ import annotations

import importlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

MODULES = {
    "chronoplan.runtime.events": "runtime/events.py",
    "chronoplan.runtime.kitchen": "runtime/kitchen.py",
    "chronoplan.runtime.kitchen_explain": "runtime/kitchen_explain.py",
    "chronoplan.runtime.kitchen_geo": "runtime/kitchen_geo.py",
    "chronoplan.runtime.kitchen_logic": "runtime/kitchen_logic.py",
    "chronoplan.runtime.kitchen_metrics": "runtime/kitchen_metrics.py",
    "chronoplan.runtime.kitchen_state": "runtime/kitchen_state.py",
    "chronoplan.runtime.kitchen_world": "runtime/kitchen_world.py",
    "chronoplan.validators.paracook_grade": "validators/paracook_grade.py",
    "chronoplan.validators.paracook_read": "validators/paracook_read.py",
    "chronoplan.validators.report": "validators/report.py",
}


def compiled() -> dict:
    """{module name: True if it was loaded from a compiled extension}."""
    out = {}
    for name in MODULES:
        path = getattr(importlib.import_module(name), "__file__", "") or ""
        out[name] = not path.endswith(".py")
    return out


SOURCE_DIRS = {"chronoplan": "src/chronoplan", "grammar": "grammar", "compiler": "compiler", "runtime": "runtime",
               "validators": "validators", "domains": "domains"}


def pure_tree(repo: Path, dest: Path) -> Path:
    """A directory to put on PYTHONPATH that imports ``chronoplan`` from the repository's ``.py`` files only
    (no compiled extension, even one built in place), to run the pure-Python engine beside a compiled
    install: ``dest/chronoplan/<package>/...`` with a link to every source file.  Returns ``dest``."""
    pkg = dest / "chronoplan"
    for sub, src in SOURCE_DIRS.items():
        base = repo / src
        target = pkg if sub == "chronoplan" else pkg / sub
        for path in base.rglob("*"):
            if path.is_dir() or path.suffix in (".so", ".pyd", ".c", ".pyc") or "__pycache__" in path.parts:
                continue
            link = target / path.relative_to(base)
            link.parent.mkdir(parents=True, exist_ok=True)
            if not link.exists():
                link.symlink_to(path)
    return dest


def run_pure(repo: Path, args: list, timeout: float) -> subprocess.CompletedProcess:
    """``python ARGS`` in a subprocess that imports ``chronoplan`` from ``pure_tree(repo, ...)`` only: the
    working directory is the tree (so ``-c`` code, whose ``''`` path entry is the working directory, finds it
    first) and PYTHONPATH names it (so a script does too).  Output captured as text."""
    with tempfile.TemporaryDirectory() as d:
        tree = pure_tree(repo, Path(d))
        return subprocess.run([sys.executable, *args], cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
                              capture_output=True, text=True, timeout=timeout)
