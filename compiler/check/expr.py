"""Expressions: AST expression -> (sympy expression, dimension), with unit checks.

Input: an AST expression and a scope (constants with their dimensions, parameter names).  Output: a sympy
expression built node by node from the tree (never from text) and its ``ir.Dim``, or diagnostics
(C101 undefined name, C106 unit mismatch, C109 invalid number).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Optional

import sympy

from chronoplan.compiler import ast as A
from chronoplan.compiler import builtins, ir
from chronoplan.compiler.diagnostics import Diagnostic, Severity

MAX_EXPR_DEPTH = 200


@dataclass
class NameScope:
    """Names visible in an expression: constants (name -> Dim) and parameters (name -> type)."""

    constants: dict
    params: dict = field(default_factory=dict)
    used: Optional[set] = None           # collects referenced constant names
    broken: frozenset = frozenset()      # declared constants that failed to check (already reported)
    aggregate: Optional[Callable] = None  # count(v: T where F) -> sympy expression (actions and processes)


def _err(code, msg, span) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, msg, span)


def quantity_value(value, unit: str):
    """A literal with a unit as a sympy expression and its dimension."""
    u = ir.UNIT_ALIASES[unit]
    v = sympy.Rational(value.numerator, value.denominator)
    if u.seconds is None:
        return v, ir.Dim.NUMBER
    return v * u.seconds * ir.SECOND, ir.Dim.TIME


def convert(node, scope: NameScope, report: Callable[[Diagnostic], None], depth: int = 0):  # noqa: C901
    """Return (sympy expr, Dim) or (None, None) after reporting diagnostics."""
    if depth > MAX_EXPR_DEPTH:
        report(_err("C109", "expression nested too deeply", getattr(node, "span", None)))
        return None, None
    if isinstance(node, A.Num):
        return sympy.Rational(node.value.numerator, node.value.denominator), ir.Dim.NUMBER
    if isinstance(node, A.Quantity):
        return quantity_value(node.value, node.unit)
    if isinstance(node, A.Name):
        n = node.ident.name
        if n in scope.params:
            return sympy.Symbol(n), ir.Dim.NUMBER
        if n in scope.constants:
            if scope.used is not None:
                scope.used.add(n)
            return sympy.Symbol(n), scope.constants[n]
        if n in scope.broken:
            return None, None
        report(_err("C101", f"undefined name '{n}' in expression", node.ident.span))
        return None, None
    if isinstance(node, A.AttrAccess):
        if node.obj.name not in scope.params:
            report(_err("C101", f"undefined parameter '{node.obj.name}'", node.obj.span))
            return None, None
        return ir.AttrRef.of(node.attr.name, node.obj.name), ir.Dim.NUMBER
    if isinstance(node, A.Neg):
        e, d = convert(node.arg, scope, report, depth + 1)
        return (None, None) if e is None else (-e, d)
    if isinstance(node, A.Call):
        return _call(node, scope, report, depth)
    if isinstance(node, A.CountExpr):
        if scope.aggregate is None:
            report(_err("C105", "count(...) is only allowed in the durations of actions and processes", node.span))
            return None, None
        e = scope.aggregate(node)
        return (None, None) if e is None else (e, ir.Dim.NUMBER)
    if isinstance(node, A.BinOp) and node.op in "+-" and isinstance(node.left, A.BinOp) \
            and node.left.op in "+-":
        return _sum_chain(node, scope, report, depth)
    if isinstance(node, A.BinOp):
        le, ld = convert(node.left, scope, report, depth + 1)
        re_, rd = convert(node.right, scope, report, depth + 1)
        if le is None or re_ is None:
            return None, None
        T, N = ir.Dim.TIME, ir.Dim.NUMBER
        if node.op in "+-":
            if ld is not rd:
                report(_err("C106", f"unit mismatch: cannot {'add' if node.op == '+' else 'subtract'} "
                                    f"a {rd.value} {'to' if node.op == '+' else 'from'} a {ld.value}"
                                    " (write both with a time unit, or neither)", node.span))
                return None, None
            return (le + re_ if node.op == "+" else le - re_), ld
        if node.op == "*":
            if ld is T and rd is T:
                report(_err("C106", "unit mismatch: a time multiplied by a time", node.span))
                return None, None
            return le * re_, (T if T in (ld, rd) else N)
        if node.op == "/":
            if re_.is_zero:
                report(_err("C109", "division by zero", node.span))
                return None, None
            if ld is N and rd is T:
                report(_err("C106", "unit mismatch: a number divided by a time", node.span))
                return None, None
            return le / re_, (T if (ld is T and rd is N) else N)
    report(_err("C001", "unsupported expression", getattr(node, "span", None)))
    return None, None


def _sum_chain(node, scope, report, depth):
    """A long left-nested chain of + and - without deep recursion (a + b - c + ...)."""
    terms = []
    while isinstance(node, A.BinOp) and node.op in "+-":
        terms.append(node)
        node = node.left
    total, dim = convert(node, scope, report, depth + 1)
    if total is None:
        return None, None
    parts = [total]
    for b in reversed(terms):
        e, d = convert(b.right, scope, report, depth + 1)
        if e is None:
            return None, None
        if d is not dim:
            report(_err("C106", f"unit mismatch: cannot {'add' if b.op == '+' else 'subtract'} a {d.value} "
                                f"{'to' if b.op == '+' else 'from'} a {dim.value} (write both with a time unit, "
                                "or neither)", b.span))
            return None, None
        parts.append(e if b.op == "+" else -e)
    return sympy.Add(*parts), dim


def _call(node: A.Call, scope: NameScope, report, depth):
    f = node.func.name
    fn = builtins.FUNCTIONS.get(f)
    if fn is None:
        report(_err("C101", f"unknown function '{f}' (built-ins: {', '.join(builtins.FUNCTIONS)})",
                    node.func.span))
        return None, None
    arity = fn.arity
    if arity is not None and len(node.args) != arity:
        report(_err("C104", f"{f}() takes {arity} argument{'s' if arity != 1 else ''}, got {len(node.args)}",
                    node.span))
        return None, None
    if fn is builtins.DIST:
        syms = []
        for a in node.args:
            if not isinstance(a, A.Name) or a.ident.name not in scope.params:
                report(_err("C105", "dist() takes two parameters (agents, stations or positions)",
                            getattr(a, "span", node.span)))
                return None, None
            syms.append(sympy.Symbol(a.ident.name))
        return ir.Dist(*syms), fn.result
    args = [convert(a, scope, report, depth + 1) for a in node.args]
    if any(e is None for e, _ in args) or not args:
        if not args:
            report(_err("C104", f"{f}() needs at least one argument", node.span))
        return None, None
    dims = {d for _, d in args}
    if len(dims) > 1:
        report(_err("C106", f"unit mismatch in {f}(): mixes times and numbers", node.span))
        return None, None
    dim = fn.result or dims.pop()
    exprs = [e for e, _ in args]
    if fn is builtins.CEIL:
        return sympy.ceiling(exprs[0]), dim
    if fn is builtins.FLOOR:
        return sympy.floor(exprs[0]), dim
    return (sympy.Max(*exprs) if fn is builtins.MAXIMUM else sympy.Min(*exprs)), dim


def literal_value(lit: A.Literal):
    """A literal as an IR value: sympy number (with unit), string or bool; and its Dim (None if not numeric)."""
    if lit.kind == "number":
        if lit.unit is not None:
            return quantity_value(lit.value, lit.unit)
        return sympy.Rational(lit.value.numerator, lit.value.denominator), ir.Dim.NUMBER
    return lit.value, None
