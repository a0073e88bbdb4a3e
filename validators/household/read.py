"""Reading household episode logs (JSON Lines) without trusting them (issue #13).

Input: an episode log -- a path, its text or bytes, a list of already-decoded records (header first) or an
``EpisodeSource`` (what ``validators.grade`` hands over for a ``.jsonl`` file whose first line is an episode
header).  Output: ``records(source)`` -> an iterator of ``Line`` values (1-based line number, the decoded
value or the ``PlanError`` that kept the line from being read), streamed: a log of a million lines is never
held in memory; ``is_header(value)`` (does a decoded value look like an episode log's header) and
``sniff(path)`` (the header of a ``.jsonl`` file when its first non-empty line is one, else None).

The format is ``runtime.household.log``'s: a header ``{"scenario", "seed", "agents", ...}``, then one record
per step.  A line is refused (``E030``) when it is not JSON, holds NaN or Infinity, a number too long to
read, nesting deeper than ``MAX_DEPTH`` or is longer than ``MAX_LINE`` characters; ``E002`` when the log
cannot be read at all.  Keys repeated in one object are refused too (``E032``): a grader must not pick one.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from chronoplan.validators.report import PlanError

MAX_LINE = 1_000_000          # characters in one record (a step of a few agents is a few hundred)
MAX_DEPTH = 32                # nesting of a record (a step record is two levels deep)
HEADER_KEYS = ("scenario", "seed", "agents")


@dataclass(frozen=True)
class EpisodeSource:
    """An episode log to read: a file (``path``) or its contents (``data``); ``scenario`` is the header's."""

    path: Optional[str] = None
    data: Optional[bytes] = None
    scenario: Optional[str] = None


@dataclass(frozen=True)
class Line:
    no: int                         # 1-based line number in the log (the record's position for decoded lists)
    value: Any = None
    error: Optional[PlanError] = None


class _Refused(ValueError):
    pass


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a number JSON allows")


def _pairs(pairs: list) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise _Refused(f"the key {k!r} appears twice in one object")
        out[k] = v
    return out


def _depth(text: str) -> int:
    """The deepest bracket nesting of a JSON text (brackets inside strings are counted too: an upper bound)."""
    depth = deepest = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def decode(text: str, no: int) -> Line:
    """One line of a log -> its value, or a located ``E030`` (``E032`` for repeated keys)."""
    if len(text) > MAX_LINE:
        return Line(no, None, PlanError("E030", f"line {no} is {len(text)} characters long; at most {MAX_LINE}",
                                        "one record per step, on one line", index=no))
    if ("[" in text or "{" in text) and _depth(text) > MAX_DEPTH:
        return Line(no, None, PlanError("E030", f"line {no} nests more than {MAX_DEPTH} levels deep",
                                        "a step record is two levels deep", index=no))
    if not text.isascii() and any("\udc80" <= c <= "\udcff" for c in text):
        return Line(no, None, PlanError("E030", f"line {no} is not UTF-8 text", "save the log as UTF-8", index=no))
    try:
        value = json.loads(text, parse_constant=_constant, object_pairs_hook=_pairs)
    except _Refused as exc:
        code = "E032" if "appears twice" in str(exc) else "E030"
        return Line(no, None, PlanError(code, f"line {no}: {exc}", "write each record as plain JSON", index=no))
    except (ValueError, RecursionError) as exc:
        return Line(no, None, PlanError("E030", f"line {no} is not JSON: {str(exc)[:120]}",
                                        "one JSON object per line (JSON Lines)", index=no))
    return Line(no, value)


def _lines_of(text: str) -> Iterator[tuple[int, str]]:
    yield from enumerate(text.split("\n"), 1)


def _stream(path: str) -> Iterator[tuple[int, str]]:
    """The lines of a file, each read with a bounded buffer: a line longer than ``MAX_LINE`` is yielded cut
    (``decode`` refuses it by its length) and the rest of it skipped unread into memory."""
    with open(path, "rb") as f:
        no = 0
        while True:
            raw = f.readline(MAX_LINE + 2)
            if not raw:
                return
            no += 1
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                while True:
                    rest = f.readline(1 << 20)
                    if not rest or rest.endswith(b"\n"):
                        break
            yield no, raw.decode("utf-8", "surrogateescape")


def raw_lines(source: Union[EpisodeSource, str, bytes, Path, list, tuple]) -> Iterator[Union[Line, tuple[int, str]]]:
    """Every non-empty line of the log, undecoded: ``(line number, text)``; a decoded list's entries and an
    unreadable file (one ``E002``) come as ``Line`` values.  ``decode`` reads a line; a grader that has seen
    the episode end only counts the rest."""
    if isinstance(source, (list, tuple)):
        for i, value in enumerate(source, 1):
            yield Line(i, value)
        return
    if isinstance(source, EpisodeSource):
        if source.path is not None:
            lines: Iterator[tuple[int, str]] = _stream(source.path)
        else:
            lines = _lines_of((source.data or b"").decode("utf-8", "surrogateescape"))
    elif isinstance(source, Path):
        lines = _stream(str(source))
    elif isinstance(source, (bytes, bytearray)):
        lines = _lines_of(bytes(source).decode("utf-8", "surrogateescape"))
    else:
        lines = _lines_of(str(source))
    try:
        for no, raw in lines:
            if raw.strip():
                yield no, raw.strip().lstrip("\ufeff").strip()
    except OSError as exc:
        yield Line(0, None, PlanError("E002", f"cannot read the episode log: {exc.strerror or exc}",
                                      "check the path"))


def records(source: Union[EpisodeSource, str, bytes, Path, list, tuple]) -> Iterator[Line]:
    """Every non-empty line of the log, decoded (see the module docstring); never raises on bad content."""
    for item in raw_lines(source):
        yield item if isinstance(item, Line) else decode(item[1], item[0])


def is_header(value: Any) -> bool:
    """Does a decoded value look like an episode log's first line (scenario, seed, agents; no step)?"""
    return isinstance(value, dict) and all(k in value for k in HEADER_KEYS) and "step" not in value


def sniff_text(first_line: Union[str, bytes]) -> Optional[dict]:
    """The header when ``first_line`` is an episode log's header, else None."""
    text = first_line.decode("utf-8", "replace") if isinstance(first_line, (bytes, bytearray)) else first_line
    text = text.strip().lstrip("\ufeff").strip()
    if not text.startswith("{") or '"agents"' not in text:
        return None
    got = decode(text, 1)
    return got.value if got.error is None and is_header(got.value) else None


def sniff(path: Path) -> Optional[dict]:
    """The header of a JSON Lines file whose first non-empty line is an episode header, else None."""
    try:
        with path.open("rb") as f:
            for _ in range(1000):                  # blank lines before the header: a few, not a file of them
                raw = f.readline(MAX_LINE + 2)      # bounded: a first line of 1 GB is never read whole
                if not raw or len(raw.rstrip(b"\r\n")) > MAX_LINE:
                    return None
                if raw.strip():
                    return sniff_text(raw)
    except (OSError, ValueError):
        return None
    return None
