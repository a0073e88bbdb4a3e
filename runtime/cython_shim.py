"""Stand-in for Cython's pure-Python-mode module when Cython is not installed.

Input: none.  Output: ``locals(**types)``, ``cfunc``, ``inline``, ``returns(type)``, ``exceptval(...)``,
``boundscheck(flag)`` and ``wraparound(flag)`` (decorators that do nothing), ``declare(type, value)`` (the value),
the C type names the modules give it (``longlong``, ``Py_ssize_t``, ``Py_UCS4``, ``bint``; ``longlong[::1]``, a typed
memoryview, is the same name) and ``compiled = False``.  The kitchen modules write ``@cython.locals(st=State)``
on hot closures, the procedure sweep and critic type their locals; compiled (setup.py), Cython turns that into C
types, and run as plain Python the annotation has no effect.
"""
from __future__ import annotations

compiled = False


def locals(**_types):                           # noqa: A001 - the name Cython's pure-Python mode uses
    return lambda f: f


def _same(f):
    return f


cfunc = inline = _same                          # C functions when compiled; plain functions here


def returns(_type: object):
    return _same


def exceptval(*_args: object, **_kw: object):
    return _same


def boundscheck(_on: bool):
    return _same


wraparound = boundscheck


def declare(_type: object = None, value: object = None) -> object:
    """``x = cython.declare(cython.longlong, 5)``: a C variable when compiled; here the value itself."""
    return value


class _CType:
    """A C type name; indexing it (a memoryview type, ``longlong[::1]``) gives the same name."""

    def __getitem__(self, _item: object) -> _CType:
        return self


longlong = Py_ssize_t = Py_UCS4 = bint = _CType()
