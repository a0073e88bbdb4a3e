"""Exact decimal text of a fraction (input: a Fraction; output: "-2.125"; ValueError when the decimal
expansion does not terminate).  Used wherever chronoplan writes numbers that other tools read back:
generated .chrono files and PDDL."""
from __future__ import annotations

from fractions import Fraction


def exact_decimal(f: Fraction) -> str:
    sign = "-" if f < 0 else ""
    f = abs(f)
    if f.denominator == 1:
        return f"{sign}{f.numerator}"
    d = f.denominator
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    if d != 1:
        raise ValueError(f"{f} has no finite decimal form")
    places = max(twos, fives)
    digits = str(f.numerator * 10 ** places // f.denominator).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"
