"""Literal values copied from an earlier step's simulated result (PlanningArena's ``Results``).

Input: a plan argument value, the scalar leaves of a producing step's ``Results`` (``ToolStep.results``:
``((key, ...), value)`` pairs, see ``tools.read.result_leaves``) and the output field the reference
plan reads (``StepRef.field``, or None).  Output: the key path of the leaf the value repeats, or None.

PlanningArena's plans write a later step's argument as the literal value the earlier step's simulated
result showed (``bookFlight({'flight_id': 'AF123'})`` after a step whose Results hold
``{"flight_id": "AF123"}``) where chronoplan's reference reads that step's output (``$1.flight_id``).
Rule: when some leaf's key names the field (compared without case, ``_``, ``-`` or spaces), the value
must equal one of those leaves; otherwise (the simulated result names its keys freely, or the reference
reads the whole output) it may equal any leaf except a ``Status``.  Strings compare stripped and without
case, numbers exactly; booleans, nulls and empty strings never match.
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Optional

_SKIP_KEYS = frozenset({"status"})


def _key(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.casefold())


def _norm(v: Any) -> Any:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, Fraction)):
        return Fraction(v)
    if isinstance(v, str):
        t = v.strip().casefold()
        return ("s", t) if t else None
    return None


def literal_source(value: Any, leaves: tuple, field: Optional[str]) -> Optional[tuple]:
    """The key path of the result leaf ``value`` repeats, or None (see the module docstring)."""
    want = _norm(value)
    if want is None or not leaves:
        return None
    if field:
        named = [(path, v) for path, v in leaves if path and _key(path[-1]) == _key(field)]
        if named:
            return next((path for path, v in named if _norm(v) == want), None)
    for path, v in leaves:
        if path and _key(path[-1]) in _SKIP_KEYS:
            continue
        if _norm(v) == want:
            return path
    return None
