"""References to earlier steps' outputs inside tool-call argument values.

Input: an argument value from a plan (string, number, list, dict...).  Output: the ``StepRef`` values it
contains.  Recognised forms (case-insensitive; N is a step id, f an output field, both optional where
shown; documented in docs/tools.md):

    $N.f   ${N}   ${N.f}   $stepN   $stepN.f      dollar forms (the DESIGN contract's form is $N.f;
                                                 a bare "$100" is money, not a reference)
    {stepN.f}  {step_N.f}  {{stepN.f}}  {N.f}  {stepN}   brace (template) forms
    <output of step N>  <result of step N: f>  <f from step N>  <step N output>  <step N.f>   angle forms

A string that is exactly one reference becomes a ``StepRef``; a longer string that embeds references stays
a string (a template) and its references still count as dependencies.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional

MAX_STEP_ID = 10 ** 9

_FIELD = r"[A-Za-z_][A-Za-z0-9_]*"
_PATTERNS = (
    re.compile(r"\$\{\s*(?:step[_ ]?)?([0-9]{1,10})(?:\s*\.\s*(" + _FIELD + r"))?\s*\}", re.I),
    re.compile(r"\$step[_ ]?([0-9]{1,10})(?:\.(" + _FIELD + r"))?", re.I),
    re.compile(r"\$([0-9]{1,10})\.(" + _FIELD + r")", re.I),
    re.compile(r"\{\{\s*(?:step[_ ]?)?([0-9]{1,10})(?:\s*\.\s*(" + _FIELD + r"))?\s*\}\}", re.I),
    re.compile(r"\{\s*(?:step[_ ]?)?([0-9]{1,10})(?:\s*\.\s*(" + _FIELD + r"))?\s*\}", re.I),
    re.compile(r"<\s*(?:the\s+)?(?:output|result|results|response|return value)s?\s+(?:of|from)\s+step\s*"
               r"([0-9]{1,10})(?:\s*[.:]\s*(" + _FIELD + r"))?\s*>", re.I),
    re.compile(r"<\s*step\s*([0-9]{1,10})(?:\s*\.\s*(" + _FIELD + r")|\s+(?:output|result|response)s?)?\s*>", re.I),
)
_FIELD_FIRST = re.compile(r"<\s*(?:the\s+)?(" + _FIELD + r")\s+(?:of|from)\s+step\s*([0-9]{1,10})\s*>", re.I)


@dataclass(frozen=True)
class StepRef:
    """The output of step ``step`` (its id as written), optionally one ``field`` of it."""

    step: int
    field: Optional[str] = None

    def __str__(self) -> str:
        return f"${self.step}" + (f".{self.field}" if self.field else "")


def find_refs(text: str) -> list[tuple[int, int, StepRef]]:
    """Every reference in ``text`` as (start, end, StepRef), left to right, without overlaps."""
    if not isinstance(text, str) or ("$" not in text and "{" not in text and "<" not in text):
        return []
    hits: list[tuple[int, int, StepRef]] = []
    for pat in _PATTERNS:
        for m in pat.finditer(text):
            hits.append((m.start(), m.end(), StepRef(int(m.group(1)), m.group(2))))
    for m in _FIELD_FIRST.finditer(text):
        if m.group(1).lower() not in ("output", "result", "results", "response"):
            hits.append((m.start(), m.end(), StepRef(int(m.group(2)), m.group(1))))
    hits.sort(key=lambda h: (h[0], -(h[1] - h[0])))
    out, end = [], -1
    for h in hits:
        if h[0] >= end:
            out.append(h)
            end = h[1]
    return out


def as_ref(text: str) -> Optional[StepRef]:
    """The StepRef when ``text`` (stripped) is exactly one reference, else None."""
    if not isinstance(text, str):
        return None
    t = text.strip()
    hits = find_refs(t)
    if len(hits) == 1 and hits[0][0] == 0 and hits[0][1] == len(t):
        return hits[0][2]
    return None


def refs_in(value: Any, limit: int = 10_000) -> list[StepRef]:
    """All references in a normalised value (StepRef, string, list/tuple, dict), depth-first, at most ``limit``."""
    out: list[StepRef] = []
    stack = [value]
    while stack and len(out) < limit:
        v = stack.pop()
        if isinstance(v, StepRef):
            out.append(v)
        elif isinstance(v, str):
            out.extend(h[2] for h in find_refs(v))
        elif isinstance(v, (list, tuple)):
            stack.extend(reversed(v))
        elif isinstance(v, dict):
            stack.extend(reversed(list(v.values())))
    return out[:limit]
