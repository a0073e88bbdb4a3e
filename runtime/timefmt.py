"""Time rendering for messages: scenario time values -> text.

Input: exact times (``Fraction``) in a scenario's ``ir.TimeUnit``.  Output: clock strings such as
``00:27:00`` (units with seconds) or ``12`` (unitless ticks) and durations such as ``2 min`` or ``30 sec``.
"""
from __future__ import annotations

from fractions import Fraction

from chronoplan.compiler import ir


def _num(x: Fraction | int) -> str:
    if x.denominator == 1:
        return str(x.numerator)
    return f"{float(x):.6g}"


def clock(x: Fraction | int, unit: ir.TimeUnit) -> str:
    """A point in time: HH:MM:SS when the unit has seconds, else the tick number."""
    if type(x) is int or (type(x) is Fraction and x.denominator == 1):     # whole: the same text, on ints
        n = x if type(x) is int else x.numerator
        if unit.seconds is None:
            return str(n)
        whole_secs = n * unit.seconds
        h, rest = divmod(-whole_secs if whole_secs < 0 else whole_secs, 3600)
        return f"{'-' if whole_secs < 0 else ''}{h:02d}:{rest // 60:02d}:{rest % 60:02d}"
    f = Fraction(x)
    if unit.seconds is None:
        return _num(f)
    secs = f * unit.seconds
    sign = "-" if secs < 0 else ""
    secs = abs(secs)
    whole = int(secs)
    frac = secs - whole
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    tail = "" if frac == 0 else _num(frac)[1:] if _num(frac).startswith("0.") else ""
    return f"{sign}{h:02d}:{m:02d}:{s:02d}{tail}"


def duration(x: Fraction | int, unit: ir.TimeUnit) -> str:
    """A length of time: ``2 min``, ``30 sec``, ``1 hour``, ``2 min 30 sec``; ticks: ``3 ticks``."""
    if type(x) is int or (type(x) is Fraction and x.denominator == 1):     # whole: the same text, on ints
        n = x if type(x) is int else x.numerator
        if unit.seconds is None:
            return f"{n} tick{'s' * (n != 1)}"
        whole_secs = n * unit.seconds
        if whole_secs < 0:
            return "-" + duration(-n, unit)
        if whole_secs != 0 and whole_secs % 3600 == 0:
            return f"{whole_secs // 3600} hour{'s' * (whole_secs != 3600)}"
        if whole_secs >= 60:
            return f"{whole_secs // 60} min" + (f" {whole_secs % 60} sec" if whole_secs % 60 else "")
        return f"{whole_secs} sec"
    f = Fraction(x)
    if unit.seconds is None:
        return f"{_num(f)} tick{'s' * (f != 1)}"
    secs = f * unit.seconds
    if secs < 0:
        return "-" + duration(-f, unit)
    if secs != 0 and secs % 3600 == 0:
        h = secs / 3600
        return f"{_num(h)} hour{'s' * (h != 1)}"
    if secs >= 60:
        m, s = divmod(secs, 60)
        return f"{_num(m)} min" + (f" {_num(s)} sec" if s else "")
    return f"{_num(secs)} sec"
