"""Helpers shared by importers: reading JSON safely and writing chronoplan literals and names.

Input: paths, Python values and foreign names.  Output: decoded JSON (or ``ImportFormatError``), quoted
string literals that the grammar reads back to the same text, numbers as NUMBER literals, and valid,
unique chronoplan names (``Names``).
"""
from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

from chronoplan.compiler.decimal_text import exact_decimal
from chronoplan.compiler.importers import ImportFormatError

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(-[A-Za-z][A-Za-z0-9_]*)*")
MAX_BYTES = 200 * 1024 * 1024


def read_source(path: Path, what: str) -> str:
    """The text of an input file (UTF-8, a BOM dropped); ImportFormatError naming the file and the reason
    when it is missing, a directory, over MAX_BYTES, unreadable or not UTF-8 (``what``: "a JSON file")."""
    try:
        if path.is_dir():
            raise ImportFormatError(f"{path}: is a directory, expected {what}")
        if path.stat().st_size > MAX_BYTES:
            raise ImportFormatError(f"{path}: larger than {MAX_BYTES // (1024 * 1024)} MiB")
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ImportFormatError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise ImportFormatError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ImportFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None


def read_json(path: Path) -> Any:
    """Decode a JSON file; raise ImportFormatError with the file name and the reason on any failure."""
    text = read_source(path, "a JSON file")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        raise ImportFormatError(f"{path}: invalid JSON: {exc}") from None


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def quote(text: str) -> str:
    """A chronoplan string literal for ``text`` (escapes ``\\``, ``"``, newline and tab).

    A carriage return cannot be written (files are read with universal newlines): ``\\r\\n`` and a lone
    ``\\r`` become ``\\n``."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{out}"'


def number(x: Any) -> str:
    """A NUMBER literal (with a leading ``-`` if negative) for an int, finite float or Fraction."""
    if isinstance(x, bool) or not isinstance(x, (int, float, Fraction)):
        raise TypeError(f"not a number: {x!r}")
    if isinstance(x, float) and not math.isfinite(x):
        raise ValueError(f"not a finite number: {x!r}")
    return exact_decimal(Fraction(repr(x)) if isinstance(x, float) else Fraction(x))


class Names:
    """Allocates valid, unique chronoplan names; a valid foreign name is kept as it is."""

    def __init__(self) -> None:
        self.taken: set = set()
        self._next: dict = {}          # base name -> the suffix number to try next (claims stay linear)

    @staticmethod
    def sanitize(name: str, fallback: str = "x") -> str:
        if NAME_RE.fullmatch(name):
            return name
        s = re.sub(r"[^A-Za-z0-9_-]+", "_", name)
        s = re.sub(r"-+(?![A-Za-z])", "_", s)            # a hyphen must be followed by a letter
        s = re.sub(r"-{2,}", "-", s)
        if not s or not re.match(r"[A-Za-z_]", s):
            s = f"{fallback}_{s}" if s else fallback
        return s if NAME_RE.fullmatch(s) else fallback

    def claim(self, name: str, fallback: str = "x") -> str:
        """A sanitized form of ``name`` not returned before (suffixed ``_2``, ``_3``... on collisions).

        Each base name remembers the suffix it reached, so N claims of one name probe O(N) names in all (not
        N^2/2); the result is the same as trying ``_2``, ``_3``... from the start, as long as names leave
        ``taken`` only right after they were claimed (the one use of ``taken.discard``)."""
        base = self.sanitize(name, fallback)
        out, n = base, self._next.get(base, 1)
        if n > 1:
            out = f"{base}_{n}"
        while out in self.taken:
            n += 1
            out = f"{base}_{n}"
        self._next[base] = n
        self.taken.add(out)
        return out
