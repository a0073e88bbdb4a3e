"""Stand-in for Cython's pure-Python-mode module when Cython is not installed.

Input: none.  Output: ``locals(**types)`` (a decorator that does nothing) and ``compiled = False``.  The kitchen
modules write ``@cython.locals(st=State)`` on hot closures; compiled (setup.py), Cython turns that into C
types, and run as plain Python the annotation has no effect.
"""
from __future__ import annotations

compiled = False


def locals(**_types):                           # noqa: A001 - the name Cython's pure-Python mode uses
    return lambda f: f
