"""The pure-Python engine beside a compiled install, and the note when the install could not compile.

Input: none.  Output: ``pure_tree(repo, dest)`` lays out the repository's sources to import the pure-Python
engine beside a compiled install, and ``run_pure(repo, args)`` runs Python on them in a subprocess (tests and
bench/ compare the two).  Results are identical either way
(tests/test_compiled.py); only speed differs.  ``note_fallback`` prints, at the kitchen engine's first use, why
the install kept pure Python.  Which modules are compiled is ``chronoplan.build.MODULES`` (the top package: the
list names modules of every layer).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

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


FALLBACK_MARKER = "BUILD_FALLBACK"      # written beside this file by setup.py when compiling failed at install
_noted = False


def fallback_reason(folder: Optional[Path] = None) -> Optional[str]:
    """Why the install could not compile the kitchen modules (the marker setup.py leaves in the installed
    package), or None: compiled, an editable install, or CHRONOPLAN_PURE_PYTHON=1 (pure Python by choice)."""
    marker = (folder or Path(__file__).resolve().parent) / FALLBACK_MARKER
    try:
        lines = marker.read_text(encoding="utf-8").strip().splitlines() or ["unknown reason"]
    except OSError:
        return None
    return lines[0] + (f"; and {len(lines) - 1} more" if len(lines) > 1 else "")


def note_fallback(stream=None, folder: Optional[Path] = None) -> bool:
    """At the kitchen engine's first use in a process: one line on stderr when the install fell back to pure
    Python (pip hides the build's warning).  Returns whether it printed."""
    global _noted
    if _noted:
        return False
    _noted = True
    why = fallback_reason(folder)
    if why is None or os.environ.get("CHRONOPLAN_PURE_PYTHON"):
        return False
    print(f"chronoplan: note: the kitchen engine runs as pure Python: it was not compiled at install ({why}). "
          "Results are the same, at about half the speed; reinstall with a C compiler and the Python headers to "
          "compile it (README, Compiled kitchen engine).", file=stream or sys.stderr)
    return True
