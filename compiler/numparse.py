"""Numbers from untrusted input: the one parsing helper of every plan reader (and of the compiler's checks).

Input: text (ASCII digits only, bounded length) or a Python value of any numeric type (``int``, ``float``,
``Fraction``, ``Decimal``, numpy scalars, anything registered with the ``numbers`` ABCs).
Output: an exact ``Fraction`` / ``int``, or a ``NumberProblem`` saying why not.  Never raises, never returns a
value that was silently changed: ``bool`` is not a number, NaN and infinities are refused, magnitudes and digit
counts are bounded before any conversion (Python's ``int()`` accepts Unicode digits such as fullwidth "１" and
raises on "²", which ``str.isdigit()`` accepts; both are refused here).
"""
from __future__ import annotations

import enum
import math
import numbers
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any, Union

MAX_DIGITS = 40                 # digits in one number written as text
MAX_MAGNITUDE = 10 ** 12        # default bound on |x| for times, durations and ids
MAX_BITS = 256                  # numerator/denominator size of an exact rational
MAX_DEPTH = 200                 # nesting of a plan value built in Python


class NumberProblem(enum.Enum):
    """Why a value is not a usable number (the value is the phrase used in messages)."""

    NOT_A_NUMBER = "is not a number"
    NOT_FINITE = "is not a finite number"
    NON_ASCII = "uses non-ASCII digits"
    TOO_LONG = "has too many digits"
    OUT_OF_RANGE = "is out of range"
    NOT_INTEGER = "is not an integer"
    TOO_DEEP = "is nested too deeply"


_INT = re.compile(r"[+-]?[0-9]+")
_DEC = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")


def _text_problem(text: str, pattern: re.Pattern) -> Union[NumberProblem, None]:
    if len(text) > MAX_DIGITS + 8:
        return NumberProblem.TOO_LONG
    if pattern.fullmatch(text) is None:
        non_ascii = any(c.isdigit() and not c.isascii() for c in text)
        return NumberProblem.NON_ASCII if non_ascii else NumberProblem.NOT_A_NUMBER
    return None


def parse_int(text: Any, *, limit: int = MAX_MAGNITUDE) -> Union[int, NumberProblem]:
    """ASCII decimal integer text (surrounding whitespace allowed, sign allowed) -> int within +-limit."""
    return _parse(text, _INT, int, limit)


def parse_decimal(text: Any, *, limit: int = MAX_MAGNITUDE) -> Union[Fraction, NumberProblem]:
    """ASCII decimal text ("12", "-1.5", "2e3") -> exact Fraction within +-limit."""
    return _parse(text, _DEC, Fraction, limit)


def _parse(text: Any, pattern: re.Pattern[str], convert: Any, limit: int) -> Any:
    if not isinstance(text, str):
        return NumberProblem.NOT_A_NUMBER
    t = text.strip()
    bad = _text_problem(t, pattern)
    if bad is not None:
        return bad
    value = convert(t)
    return value if abs(value) <= limit else NumberProblem.OUT_OF_RANGE


def is_number(x: Any) -> bool:
    """A numeric value of any library (not bool, not complex)."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool) or isinstance(x, Decimal)


def exact(x: Any, *, limit: int = MAX_MAGNITUDE) -> Union[Fraction, NumberProblem]:
    """Any numeric Python value -> exact Fraction within +-limit (floats by their shortest decimal repr)."""
    if isinstance(x, bool) or not is_number(x):
        return NumberProblem.NOT_A_NUMBER
    if isinstance(x, numbers.Integral):
        n = int(x)
        return Fraction(n) if abs(n) <= limit else NumberProblem.OUT_OF_RANGE
    if isinstance(x, Decimal):
        if not x.is_finite():
            return NumberProblem.NOT_FINITE
        if x.adjusted() > len(str(limit)) or x.adjusted() < -MAX_DIGITS:
            return NumberProblem.OUT_OF_RANGE if x.adjusted() > 0 else NumberProblem.TOO_LONG
        f = Fraction(x)
    elif isinstance(x, numbers.Rational):
        num, den = int(x.numerator), int(x.denominator)
        if num.bit_length() > MAX_BITS or den.bit_length() > MAX_BITS:
            return NumberProblem.OUT_OF_RANGE if abs(num) > abs(den) else NumberProblem.TOO_LONG
        f = Fraction(num, den)
    else:
        try:
            v = float(x)
        except (TypeError, ValueError, OverflowError):
            return NumberProblem.NOT_A_NUMBER
        if not math.isfinite(v):
            return NumberProblem.NOT_FINITE
        if abs(v) > limit:
            return NumberProblem.OUT_OF_RANGE
        f = Fraction(repr(v))
    return f if abs(f) <= limit else NumberProblem.OUT_OF_RANGE


def exact_int(x: Any, *, limit: int = MAX_MAGNITUDE) -> Union[int, NumberProblem]:
    """An integral number of any numeric type (3, 3.0, numpy.int64(3), Decimal("3")) -> int."""
    f = exact(x, limit=limit)
    if isinstance(f, NumberProblem):
        return f
    return int(f) if f.denominator == 1 else NumberProblem.NOT_INTEGER


HUGE_BITS = 14_000       # ints over ~4,200 digits: str()/repr() refuse them (sys.get_int_max_str_digits)


def _int(n: int) -> Any:
    """An integer, or the same number as an exact ``Decimal`` when it is too long to be printed (every message
    naming it would crash); the readers refuse it as out of range."""
    return Decimal(n) if n.bit_length() > HUGE_BITS else n


def plain_json(value: Any, depth: int = 0) -> Any:  # noqa: C901
    """A plan value built in Python -> the same value with JSON-native numbers and containers.

    Integral numbers of any type become ``int`` (``Decimal`` beyond ``HUGE_BITS``, also as dictionary keys and
    set members); numpy floats become ``float``; ``Decimal`` and non-integral rationals become ``Fraction``
    (exact; NaN/infinite Decimals become float NaN/inf, which the readers refuse); tuples become lists.  Other
    values (sets, objects, complex) are kept, so the reader reports their type.  Below ``MAX_DEPTH`` levels
    values are kept as they are (every reader refuses such nesting itself).
    """
    if depth > MAX_DEPTH:
        return value
    t = type(value)
    if t is int:
        return _int(value)
    if t is str or t is float or t is bool or value is None:
        return value
    if t is dict:
        return {_key(k): plain_json(v, depth + 1) for k, v in value.items()}
    if t is list or t is tuple:
        return [plain_json(v, depth + 1) for v in value]
    if t is set or t is frozenset:
        return t(_key(v) for v in value)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return _int(int(value))
    if isinstance(value, float):
        return float(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            return float("nan") if value.is_nan() else float(value)
        f = exact(value, limit=10 ** 300)
        if not isinstance(f, Fraction):
            return value            # out of range: kept, so the reader names the problem
        return int(f) if f.denominator == 1 else f
    if isinstance(value, numbers.Rational):
        num, den = int(value.numerator), int(value.denominator)
        return _int(num) if den == 1 else Fraction(num, den)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, dict):
        return {_key(k): plain_json(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(v, depth + 1) for v in value]
    return value


def _key(k: Any) -> Any:
    """A dictionary key or set member, with only a too-long integer changed (to ``Decimal``)."""
    return _int(k) if type(k) is int else k


def describe(text: Any, problem: NumberProblem, n: int = 40) -> str:
    """``'"²"' uses non-ASCII digits`` - a message fragment naming the offending value, clipped."""
    s = repr(text)
    return f"{s if len(s) <= n else s[:n] + '...'} {problem.value}"
