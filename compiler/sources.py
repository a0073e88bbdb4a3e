"""Reading source files and resolving imports, safely: paths in, text or a located diagnostic out.

Input: a path (a file given on the command line, or the target of ``import "PATH"``).  Output: the file's text,
or a ``Diagnostic`` located at the import (or at the first undecodable byte); filesystem errors (names too
long, NUL bytes, permissions) never escape as exceptions.

Import rule (docs/language.md, Files and imports): the path has at most MAX_IMPORT_CHARS characters, no NUL or
other control characters, and names a ``.chrono`` file (after symlinks are followed), so an import cannot read
arbitrary files such as /etc/passwd or quote them in a diagnostic.  A relative path is looked up (the search
path, ``search_path``) next to the importing file, then in each directory of ``CHRONOPLAN_PATH`` (separated by
``os.pathsep``), then in the bundled domains (``import "paracook/physics.chrono"`` works from anywhere); a
lookup in a search directory must stay inside that directory.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Union

from chronoplan.compiler.diagnostics import Diagnostic, Severity, Span

MAX_SOURCE_BYTES = 20_000_000      # one source file
MAX_IMPORT_CHARS = 1000            # one import path
SUFFIX = ".chrono"


def _shown(path: str, n: int = 60) -> str:
    r = repr(path)
    return r if len(r) <= n else r[: n - 4] + "...'"


def import_rule_problem(path: str) -> Optional[str]:
    """Why ``path`` is not an acceptable import path (None if it is)."""
    if len(path) > MAX_IMPORT_CHARS:
        return f"an import path has at most {MAX_IMPORT_CHARS} characters (this one has {len(path)})"
    if any(ord(c) < 32 or ord(c) == 127 for c in path):
        return "an import path cannot contain control characters (NUL, newline, ...)"
    if not path.endswith(SUFFIX) or path.endswith(("/" + SUFFIX, "\\" + SUFFIX)) or path == SUFFIX:
        return f"an import path must name a {SUFFIX} file"
    return None


def bundled_root() -> Optional[Path]:
    try:
        import chronoplan.domains as pkg  # lazy: optional, the bundled domains may be absent (ImportError -> None)
        return Path(pkg.__file__).resolve().parent
    except (ImportError, AttributeError, TypeError, OSError):
        return None


def search_path() -> list:
    """Where relative imports not found next to the importing file are looked up, in order: the directories
    of ``CHRONOPLAN_PATH`` (``os.pathsep``-separated; empty entries and non-directories skipped), then the
    bundled domains."""
    roots = []
    for entry in os.environ.get("CHRONOPLAN_PATH", "").split(os.pathsep):
        if entry and len(entry) <= 4096 and "\0" not in entry:
            try:
                d = Path(entry).expanduser().resolve()
                if d.is_dir():
                    roots.append(d)
            except (OSError, ValueError, RuntimeError):
                continue
    bundled = bundled_root()
    if bundled is not None:
        roots.append(bundled)
    return roots


def _chrono_file(p: Path) -> Optional[Path]:
    """``p`` resolved, if it is an existing regular ``.chrono`` file (after symlinks); never raises."""
    try:
        real = p.resolve()
        return real if real.suffix == SUFFIX and real.is_file() else None
    except (OSError, ValueError, RuntimeError):
        return None


def resolve_import(importer: Path, path: str, span: Optional[Span]) -> Union[Path, Diagnostic]:
    """The file ``import "path"`` in ``importer`` names, or a located C108."""
    problem = import_rule_problem(path)
    if problem is not None:
        return Diagnostic("C108", Severity.ERROR, f"invalid import {_shown(path)}: {problem}", span)
    found = _chrono_file(importer.parent / path)
    if found is not None:
        return found
    if not Path(path).is_absolute():
        for root in search_path():
            found = _chrono_file(root / path)
            if found is not None and root in found.parents:
                return found
    if exists(importer.parent / path):
        return Diagnostic("C108", Severity.ERROR, f"invalid import {_shown(path)}: it does not resolve to a "
                                                  f"regular {SUFFIX} file (a symlink elsewhere?)", span)
    return Diagnostic("C108", Severity.ERROR, f"import not found: {path if len(path) <= 60 else _shown(path)}",
                      span)


def exists(p: Path) -> bool:
    """``p.exists()`` that is False instead of raising (names too long, NUL bytes, permissions)."""
    try:
        return p.exists()
    except (OSError, ValueError):
        return False


def read_source(path: Path, name: str, span: Optional[Span] = None) -> tuple:
    """(text | None, diagnostic | None, text to show for the diagnostic | None) for the file ``path``."""
    try:
        size = path.stat().st_size
        if size > MAX_SOURCE_BYTES:
            return None, Diagnostic("C004", Severity.ERROR, f"cannot read {name}: file too large ({size} bytes, "
                                                            f"the limit is {MAX_SOURCE_BYTES})", span), None
        data = path.read_bytes()
    except (OSError, ValueError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        return None, Diagnostic("C004", Severity.ERROR, f"cannot read {name}: {why}", span), None
    try:
        return data.decode("utf-8"), None, None
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        start = data.rfind(b"\n", 0, exc.start) + 1
        col = len(data[start:exc.start].decode("utf-8")) + 1
        bad = data[exc.start]
        diag = Diagnostic("C004", Severity.ERROR, f"cannot read {name}: not UTF-8 text (byte 0x{bad:02x} at line "
                                                  f"{line}, column {col})", Span(name, line, col, line, col + 1))
        return None, diag, data.decode("utf-8", errors="replace")
