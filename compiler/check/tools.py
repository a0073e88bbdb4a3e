"""Tool/API signatures: AST -> ``ir.Tool`` / ``ir.App``, plus typed values.

Input: ``tool`` and ``app`` declarations.  Output: IR tools and apps; ``value_ir`` and ``value_fits`` used for
defaults here and reference plans in ``check.scenarios``.  Diagnostics: unknown parameter type (C101), duplicate
parameter (C102), a default that does not fit its type (C105), required parameter after optional ones is
allowed (named arguments), a default on a required parameter (C105).
"""
from __future__ import annotations

import datetime as _dt
import re

from chronoplan.compiler import ast as A
from chronoplan.compiler import ir

SIMPLE_TYPES = ("str", "int", "number", "bool", "date", "time", "datetime", "iata", "email", "any")
_IATA = re.compile(r"^[A-Z]{3}$")
_TIME = re.compile(r"([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d)?")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def param_type(ctx, t: A.TypeExpr):
    if t.kind == "enum":
        return ir.ParamType("enum", tuple(t.values))
    if t.kind == "list":
        item = param_type(ctx, t.item) if t.item is not None else None
        return None if item is None else ir.ParamType("list", (), item)
    if t.name is None:
        return None
    if t.name.name not in SIMPLE_TYPES:
        ctx.error("C101", f"unknown parameter type '{t.name.name}' (one of {', '.join(SIMPLE_TYPES)}, "
                          "enum(...), list[...])", t.name.span)
        return None
    return ir.ParamType(t.name.name)


def value_ir(v: A.ValueExpr) -> ir.Value:
    if v.kind == "list":
        return ir.Value("list", tuple(value_ir(x) for x in v.value))
    if v.kind == "number":
        n = v.value
        return ir.Value("int", int(n)) if n.denominator == 1 else ir.Value("number", n)
    if v.kind == "string":
        return ir.Value("str", v.value)
    return ir.Value(v.kind, v.value)


def _valid_date(s: str) -> bool:
    try:
        _dt.date.fromisoformat(s)
        return True
    except ValueError:
        return False


def value_fits(t: ir.ParamType, v: ir.Value) -> bool:
    """Does a declared literal value fit a parameter type?  (``ref`` values and the wildcard ``_`` of
    reference plans, "any value the query does not dictate", fit anything.)"""
    if v.kind == "ref" or t.kind == "any" or (v.kind == "name" and v.value == "_"):
        return True
    k = t.kind
    if k == "list":
        item = t.item
        return v.kind == "list" and item is not None and all(value_fits(item, x) for x in v.value)
    if k == "enum":
        return v.kind in ("name", "str", "int") and str(v.value) in t.values
    if k == "str":
        return v.kind in ("str", "name")
    if k == "int":
        return v.kind == "int"
    if k == "number":
        return v.kind in ("int", "number")
    if k == "bool":
        return v.kind == "bool"
    if k == "date":
        return v.kind in ("date", "str") and _valid_date(str(v.value))
    if k == "time":
        return v.kind in ("time", "str") and _TIME.fullmatch(str(v.value)) is not None
    if k == "datetime":
        return v.kind == "str"
    if k == "iata":
        return v.kind in ("str", "name") and bool(_IATA.match(str(v.value)))
    if k == "email":
        return v.kind == "str" and bool(_EMAIL.match(str(v.value)))
    return False


def check_tools(ctx) -> None:
    for name, (app, d) in ctx.table("tool").items():
        t = _tool(ctx, d, app)
        if t is not None:
            ctx.out("tools")[name] = t
    for name, d in ctx.table("app").items():
        ctx.out("apps")[name] = ir.App(name, d.doc, tuple(t.name.name for t in d.tools), d.span)


def _tool(ctx, d: A.ToolDecl, app):
    seen, params, ok = set(), [], True
    for p in d.params:
        if p.name.name in seen:
            ctx.error("C102", f"duplicate parameter '{p.name.name}' of tool '{d.name.name}'", p.name.span)
            ok = False
            continue
        seen.add(p.name.name)
        t = param_type(ctx, p.type)
        if t is None:
            ok = False
            continue
        default = None
        if p.default is not None:
            if not p.optional:
                ctx.error("C105", f"required parameter '{p.name.name}' cannot have a default; "
                                  f"write '{p.name.name}?' to make it optional", p.default.span)
                ok = False
            default = value_ir(p.default)
            if not value_fits(t, default):
                ctx.error("C105", f"default of '{p.name.name}' does not fit its type {t}", p.default.span)
                ok = False
        params.append(ir.ToolParam(p.name.name, t, not p.optional, default))
    returns = []
    for rname, rtype in d.returns:
        t = param_type(ctx, rtype)
        if t is None:
            ok = False
        else:
            returns.append((rname.name, t))
    if not ok:
        return None
    return ir.Tool(d.name.name, app, tuple(params), tuple(returns), d.doc, d.span)
