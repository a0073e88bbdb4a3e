"""Typed checks and comparisons of tool-call argument values.

Input: a normalised plan value (see ``tools.read.normalize_value``), an ``ir.ParamType`` and, for
comparisons, a reference ``ir.Value``.  Output: problems as ``(code, message, hint)`` tuples
(``check_value``) or booleans (``same_value``).  Formats: ``date`` = YYYY-MM-DD (a real date), ``time`` =
H:MM or HH:MM[:SS] (24 h), ``datetime`` = date + ``T`` or space + time [+ ``Z`` or ``+HH:MM``], ``iata`` =
three capital letters, ``email`` = local@domain.tld.  Integral numbers pass as ``int``; a step
reference (``StepRef``) passes any type (its field is checked against the producing tool's returns).
"""
from __future__ import annotations

import datetime as _dt
import re
from fractions import Fraction
from typing import Any, Optional

from chronoplan.compiler import ir
from chronoplan.validators.tools.dates import parse_iso_date, resolve_date
from chronoplan.validators.tools.refs import StepRef, find_refs

_TIME = re.compile(r"([01]?[0-9]|2[0-3]):([0-5][0-9])(?::([0-5][0-9]))?")
_DATETIME = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})[T ]([0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?)"
                       r"(?:\.[0-9]{1,6})?(Z|[+-][0-9]{2}:?[0-9]{2})?")
_IATA = re.compile(r"[A-Z]{3}")
_EMAIL = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
FORMAT_KINDS = ("date", "time", "datetime", "iata", "email")
DATE_KINDS = ("date", "datetime", "time")
STOP_WORDS = frozenset("a an the to for of my me and in on at with by from about".split())


def parse_time(text: Any) -> Optional[tuple[int, int, int]]:
    if not isinstance(text, str):
        return None
    m = _TIME.fullmatch(text.strip())
    return None if not m else (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))


def parse_datetime(text: Any) -> Optional[tuple]:
    if not isinstance(text, str):
        return None
    m = _DATETIME.fullmatch(text.strip())
    if not m:
        return None
    d, t = parse_iso_date(m.group(1)), parse_time(m.group(2))
    return None if d is None or t is None else (d, t, m.group(3) or "")


def format_ok(kind: str, value: Any) -> bool:
    if kind == "date":
        return parse_iso_date(value) is not None
    if kind == "time":
        return parse_time(value) is not None
    if kind == "datetime":
        return parse_datetime(value) is not None
    if kind == "iata":
        return isinstance(value, str) and bool(_IATA.fullmatch(value))
    if kind == "email":
        return isinstance(value, str) and len(value) <= 254 and bool(_EMAIL.fullmatch(value))
    return True


_EXAMPLES = {"date": "2025-03-21", "time": "14:30", "datetime": "2025-03-21T14:30", "iata": "CDG",
             "email": "name@example.com"}


def _show(v: Any) -> str:
    if isinstance(v, Fraction):
        text = str(float(v)) if v.denominator != 1 else str(v.numerator)
    elif isinstance(v, StepRef):
        text = str(v)
    else:
        text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def type_name(v: Any) -> str:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, Fraction):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, tuple):
        return "list"
    if isinstance(v, dict):
        return "object"
    if v is None:
        return "null"
    return type(v).__name__


def check_value(ptype: ir.ParamType, value: Any, today: Optional[_dt.date] = None,  # noqa: C901
                depth: int = 0) -> Optional[tuple[str, str, str]]:
    """The first problem of ``value`` for ``ptype`` as (code, message, hint), or None when it fits.

    Codes: T203 wrong type, T204 not an enum member, T205 not in the format, T602 an unresolved relative
    date ("next Friday") where a date is required.
    """
    if isinstance(value, StepRef) or depth > 40 or ptype.kind == "any":
        return None
    kind = ptype.kind
    if kind == "list":
        if not isinstance(value, tuple):
            return ("T203", f"expects a list, got {type_name(value)} {_show(value)}", "write a JSON list [...]")
        for x in value:
            p = check_value(ptype.item or ir.ParamType("str"), x, today, depth + 1)
            if p:
                return (p[0], "list item: " + p[1], p[2])
        return None
    if kind == "bool":
        return None if isinstance(value, bool) else ("T203", f"expects true or false, got {_show(value)}",
                                                     "write true or false without quotes")
    if kind == "int":
        if isinstance(value, int) and not isinstance(value, bool):
            return None
        if isinstance(value, Fraction) and value.denominator == 1:
            return None
        return ("T203", f"expects an integer, got {type_name(value)} {_show(value)}",
                "write a whole number without quotes")
    if kind == "number":
        if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
            return None
        return ("T203", f"expects a number, got {type_name(value)} {_show(value)}", "write a number without quotes")
    if kind == "enum":
        text = value if isinstance(value, str) else (
            str(value) if isinstance(value, int) and not isinstance(value, bool) else None)
        if text is not None and text in ptype.values:
            return None
        close = [v for v in ptype.values if isinstance(value, str) and v.lower() == value.strip().lower()]
        hint = f"use {close[0]!r}" if close else "use one of: " + ", ".join(ptype.values)
        return ("T204", f"{_show(value)} is not one of {', '.join(ptype.values)}", hint)
    # str and the string formats
    if not isinstance(value, str):
        return ("T203", f"expects a string, got {type_name(value)} {_show(value)}", "write the value in quotes")
    if kind in FORMAT_KINDS:
        if find_refs(value):
            return None                      # a template such as "{step1.date}T09:00"
        if format_ok(kind, value):
            return None
        resolved = resolve_date(value, today) if kind in ("date", "datetime") and today is not None else None
        if resolved is not None and today is not None:
            return ("T602", f"{value!r} is a relative date, not a {kind}",
                    f"resolve it from today ({today.isoformat()}): {value.strip()!r} is {resolved.isoformat()}")
        hint = f"write it like {_EXAMPLES[kind]}"
        if kind == "iata" and value.strip().upper() != value and _IATA.fullmatch(value.strip().upper()):
            hint = f"write it in capitals: {value.strip().upper()!r}"
        return ("T205", f"{_show(value)} is not a valid {kind}", hint)
    return None


# ----------------------------------------------------------------------------- reference values
class _Any:
    """The wildcard ``_`` of a reference plan: any value of the parameter's type is right."""

    def __repr__(self) -> str:
        return "_"


ANY = _Any()


def ref_value(v: ir.Value, today: Optional[_dt.date] = None) -> Any:
    """A reference ``ir.Value`` as a normalised plan value (dates as ISO text, refs as ``StepRef``, ``_`` as ANY)."""
    k, x = v.kind, v.value
    if k == "name" and x == "_":
        return ANY
    if k == "ref":
        step, field = (x if isinstance(x, tuple) else (x, None))
        return StepRef(int(step), field)
    if k == "list":
        return tuple(ref_value(i, today) if isinstance(i, ir.Value) else i for i in x)
    if k == "date":
        return x.isoformat() if isinstance(x, _dt.date) else str(x)
    if k == "time":
        return x.strftime("%H:%M") if isinstance(x, _dt.time) else str(x)
    if k == "relative":
        d = resolve_date(str(x), today) if today else None
        return d.isoformat() if d else str(x)
    if k == "number":
        return Fraction(x) if not isinstance(x, Fraction) else x
    return x


def _words(s: str) -> list[str]:
    return re.findall(r"[0-9a-z]+", s.lower())


def same_value(plan: Any, ref: Any, kind: str, ref_map: Optional[dict] = None) -> bool:  # noqa: C901
    """Does the plan value satisfy the reference value?  ``kind`` is the parameter type's kind.

    ``ANY`` (the reference wildcard ``_``) accepts any given value.  Strings (kind ``str``): every word
    of the reference except stop words ("the", "to", "for"...) occurs in the plan value (case-insensitive);
    dates, times, numbers, enums, IATA codes: exact; e-mail: case-insensitive; lists: same length and
    element-wise match in any order; references: ``ref_map`` maps plan step ids to reference step ids
    (None = any step), and the fields agree when both are given; a string that embeds the right
    reference (a template) satisfies a reference.
    """
    if ref is ANY:
        return plan is not None
    if isinstance(ref, StepRef) and isinstance(plan, str):
        # a template such as "Confirmation: {step4.confirmation}" that embeds the right output
        return any(same_value(r, ref, kind, ref_map) for _, _, r in find_refs(plan))
    if isinstance(ref, StepRef) or isinstance(plan, StepRef):
        if not (isinstance(ref, StepRef) and isinstance(plan, StepRef)):
            return False
        if ref_map is not None and ref_map.get(plan.step) != ref.step:
            return False
        return plan.field is None or ref.field is None or plan.field == ref.field
    if isinstance(ref, tuple):
        if not isinstance(plan, tuple) or len(plan) != len(ref):
            return False
        left = list(plan)
        for r in ref:
            hit = next((i for i, p in enumerate(left) if same_value(p, r, kind, ref_map)), None)
            if hit is None:
                return False
            left.pop(hit)
        return True
    if isinstance(ref, bool) or isinstance(plan, bool):
        return plan is ref
    if isinstance(ref, (int, Fraction)):
        return isinstance(plan, (int, Fraction)) and Fraction(plan) == Fraction(ref)
    if not isinstance(ref, str) or not isinstance(plan, str):
        return plan == ref
    parse = {"date": parse_iso_date, "time": parse_time, "datetime": parse_datetime}.get(kind)
    if parse is not None:
        a = parse(plan)
        return a is not None and a == parse(ref)
    if kind == "email":
        return plan.strip().lower() == ref.strip().lower()
    if kind in ("str", "any"):
        want = [w for w in _words(ref) if w not in STOP_WORDS] or _words(ref)
        if not want:
            return plan.strip() == ref.strip()
        have = set(_words(plan))
        return all(w in have for w in want)
    return plan == ref
