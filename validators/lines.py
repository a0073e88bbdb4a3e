"""Bounded line reading: no line of a plan batch, an episode log or a player's input is held whole when it is
longer than a cap (issue 28 items 5 and 11b).

Input: a stream with ``readline(size)`` (binary or text) and a cap in bytes (characters for text streams).
Output: ``read_line(stream, cap)`` -> ``(line, length)``: the line (with its newline) when it has at most
``cap`` units before the newline, else None with ``length`` the number of units it held, its rest skipped in
1 MiB pieces (memory stays at about ``cap``); ``(empty, 0)`` at the end of input.  ``bounded_lines`` yields
``(number, line or None, length)`` for every line.  ``max_line_bytes()`` is the cap of every command:
``DEFAULT_MAX_LINE`` (50,000,000, the longest plan text ``plan_text.MAX_TEXT``), or the whole number in the
environment variable ``CHRONOPLAN_MAX_LINE_BYTES`` (docs/errors.md, "Reading plans").
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, Optional

from chronoplan.validators.plan_text import MAX_TEXT

DEFAULT_MAX_LINE = MAX_TEXT
ENV_MAX_LINE = "CHRONOPLAN_MAX_LINE_BYTES"
_PIECE = 1 << 20


def max_line_bytes() -> int:
    """The line cap: ``CHRONOPLAN_MAX_LINE_BYTES`` when it is a whole number from 1 to the default, else the
    default (a larger value is capped: plan texts are never longer)."""
    text = os.environ.get(ENV_MAX_LINE, "").strip()
    if text.isascii() and text.isdigit() and len(text) <= 12 and int(text) > 0:
        return min(int(text), DEFAULT_MAX_LINE)
    return DEFAULT_MAX_LINE


def read_line(stream: Any, cap: Optional[int] = None) -> tuple[Any, int]:
    """The next line of ``stream`` and its length, or ``(None, length)`` when it is longer than ``cap`` (its
    rest read and dropped); raises what ``stream.readline`` raises (OSError)."""
    cap = max_line_bytes() if cap is None else cap
    line = stream.readline(cap + 2)          # cap units, a "\r\n" ending
    body = len(line.rstrip("\r\n" if isinstance(line, str) else b"\r\n"))
    if body <= cap:
        return line, len(line)
    length = len(line)
    newline = "\n" if isinstance(line, str) else b"\n"
    while not line.endswith(newline):
        line = stream.readline(_PIECE)
        if not line:
            break
        length += len(line)
    return None, length


def bounded_lines(stream: Any, cap: Optional[int] = None, first: int = 1) -> Iterator[tuple[int, Any, int]]:
    """``(line number, line or None when over the cap, length)`` for every line of ``stream``, numbered from
    ``first``."""
    cap = max_line_bytes() if cap is None else cap
    no = first - 1
    while True:
        line, length = read_line(stream, cap)
        if line is None:
            no += 1
            yield no, None, length
            continue
        if not line:
            return
        no += 1
        yield no, line, length
