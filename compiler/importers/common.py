"""Helpers shared by importers: reading input files safely and writing chronoplan literals, comments and names.

Input: paths, Python values and foreign names.  Output: the bytes, text or decoded JSON of a regular file,
bounded (``read_bytes``, ``read_source``, ``read_json``, ``read_beside``; ``ImportFormatError`` naming the
file and the reason otherwise: a FIFO or a device is refused without blocking, nothing is read without
bound), quoted string literals that the grammar reads back to the same text, numbers as NUMBER literals
(``number``; ``literal`` also checks the language's digit limit), text for a ``#`` comment line
(``comment``), and valid, unique chronoplan names (``Names``).
"""
from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
from fractions import Fraction
from pathlib import Path
from typing import Any, Optional

from chronoplan.compiler.decimal_text import exact_decimal
from chronoplan.compiler.importers import ImportFormatError
from chronoplan.compiler.numparse import MAX_DIGITS, NumberProblem, parse_decimal

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(-[A-Za-z][A-Za-z0-9_]*)*")
MAX_BYTES = 64 * 1024 * 1024        # an input file (docs/cli.md, "Import: input limits")
MAX_BESIDE_BYTES = 64 * 1024        # a file read beside a source (Recipe2Plan's LICENSE)
_CHUNK = 1024 * 1024
_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def read_bytes(path: Path, what: str, limit: int = MAX_BYTES, follow: bool = True) -> bytes:
    """The bytes of a regular file, at most ``limit`` of them; ImportFormatError naming the file and the
    reason when it is missing, a directory, not a regular file (a FIFO, a device: checked with fstat on a
    descriptor opened with O_NONBLOCK, so that nothing blocks and nothing endless is read), larger than
    ``limit`` (also when it grows while being read) or unreadable.  ``follow=False``: a symbolic link as the
    last component is refused (O_NOFOLLOW)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise ImportFormatError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ImportFormatError(f"{path}: is a directory, expected {what}") from None
    except (OSError, ValueError) as exc:          # ValueError: a NUL byte in the name
        why = "a symbolic link" if not follow and getattr(exc, "errno", None) == errno.ELOOP else \
            getattr(exc, "strerror", None) or str(exc)
        raise ImportFormatError(f"{path}: cannot read: {why}") from None
    try:
        return _read_regular(fd, path, what, limit)
    except OSError as exc:
        raise ImportFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _read_regular(fd: int, path: Path, what: str, limit: int) -> bytes:
    st = os.fstat(fd)
    if stat.S_ISDIR(st.st_mode):
        raise ImportFormatError(f"{path}: is a directory, expected {what}")
    if not stat.S_ISREG(st.st_mode):
        kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
        raise ImportFormatError(f"{path}: is {kind}, expected {what} (only regular files are read)")
    too_large = f"{path}: larger than {_size(limit)} (the limit for {what})"
    if st.st_size > limit:
        raise ImportFormatError(too_large)
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise ImportFormatError(too_large)


def _size(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n >= 1024 * 1024 else f"{n // 1024} KiB"


def read_source(path: Path, what: str, limit: int = MAX_BYTES, follow: bool = True) -> str:
    """The text of an input file (UTF-8, a BOM dropped), read with ``read_bytes``; ImportFormatError naming
    the file and the reason when it cannot be read (see ``read_bytes``) or is not UTF-8 (``what``: "a JSON
    file")."""
    data = read_bytes(path, what, limit, follow)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFormatError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_beside(source: Path, name: str, what: str, limit: int = MAX_BESIDE_BYTES) -> Optional[str]:
    """The text of the file ``name`` in the directory of ``source`` (e.g. its LICENSE), or None when there is
    none; ImportFormatError when it is there but is a link that leads out of that directory, not a regular
    file, larger than ``limit`` or not UTF-8.  Links inside the directory are followed."""
    folder = source.parent
    path = folder / name
    if not os.path.lexists(path):
        return None
    try:
        target = path.resolve(strict=True)
        inside = target.parent == folder.resolve(strict=True)
    except (OSError, RuntimeError, ValueError):
        raise ImportFormatError(f"{path}: {what} is a broken or looping link") from None
    if not inside:
        raise ImportFormatError(f"{path}: {what} is a link that leads out of the source's directory "
                                f"(not followed)")
    return read_source(target, what, limit, follow=False)


def read_json(path: Path) -> Any:
    """Decode a JSON file (read with ``read_source``); ImportFormatError with the file name and the reason
    on any failure, NaN/Infinity literals, numbers beyond a float and nesting deeper than the decoder takes
    (about 1,000 levels: RecursionError) included.  Readers that recurse over the value bound it themselves."""
    text = read_source(path, "a JSON file")
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except _Unreadable as exc:                      # located at the literal's first occurrence
        at = text.find(exc.literal)
        line = text.count("\n", 0, at) + 1
        col = at - (text.rfind("\n", 0, at) + 1) + 1
        raise ImportFormatError(f"{path}:{line}:{col}: invalid JSON: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise ImportFormatError(f"{path}: invalid JSON: {exc}"[:300]) from None


class _Unreadable(ValueError):
    """A JSON literal that is not a usable number (NaN, Infinity, a float beyond range)."""

    def __init__(self, literal: str, message: str) -> None:
        super().__init__(message)
        self.literal = literal


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Unreadable(text, f"the number {_clip(text, 40)} is beyond a float's range")
    return value


def _reject_constant(name: str):
    raise _Unreadable(name, f"{name} is not a JSON number")


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


def language_number(x: Any, where: str) -> str:
    """``number(x)`` when the language reads it back (at most MAX_DIGITS digits: docs/language.md, Limits);
    ImportFormatError at ``where`` otherwise (not a number, not finite, too many digits)."""
    try:
        text = number(x)
    except (TypeError, ValueError):
        raise ImportFormatError(f"{where}: must be a number, got {_clip(repr(x))}") from None
    problem = number_problem(text.lstrip("-"))
    if problem is not None:
        raise ImportFormatError(f"{where}: the number {_clip(text)} {problem}")
    return text


def number_problem(text: str) -> Optional[str]:
    """Why the NUMBER text ``text`` is not one the language reads (the compiler's C111), or None."""
    problem = parse_decimal(text, limit=10 ** MAX_DIGITS)
    if not isinstance(problem, NumberProblem):
        return None
    if problem in (NumberProblem.TOO_LONG, NumberProblem.OUT_OF_RANGE):
        return f"has more than {MAX_DIGITS} digits (chronoplan's limit)"
    return problem.value


def comment(text: str, limit: int = 200) -> str:
    """``text`` made safe for one ``#`` comment line: every character that is not printable (line and
    paragraph separators, control characters) becomes ``?``; clipped to ``limit`` characters."""
    return "".join(ch if ch.isprintable() else "?" for ch in text[:limit])


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


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
