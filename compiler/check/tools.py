"""Tool/API signatures: AST -> ``ir.Tool`` / ``ir.App``, plus typed values.

Input: ``tool`` and ``app`` declarations (an APP's ``screen``/``element`` lines too).  Output: IR tools and
apps (with their screens and elements); ``value_ir`` and ``value_fits`` used for
defaults here and reference plans in ``check.scenarios``.  Diagnostics: unknown parameter type (C101), duplicate
parameter (C102), a default that does not fit its type (C105), required parameter after optional ones is
allowed (named arguments), a default on a required parameter (C105), a duplicate screen or element (C102), an
element operation outside tap/text/swipe or given twice (C405).
"""
from __future__ import annotations

import datetime as _dt
import re

from chronoplan.compiler import appops, ir
from chronoplan.compiler import ast as A

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
        screens, elements = _screens(ctx, d)
        ctx.out("apps")[name] = ir.App(name, d.doc, tuple(t.name.name for t in d.tools), d.span, screens, elements)


def _screens(ctx, d: A.AppDecl) -> tuple[tuple, tuple]:
    """An APP's screens and elements; duplicate screens/elements (C102) and operations outside the operating
    space or given twice (C405) are reported and left out."""
    screens: list = []
    elements: list = []
    seen_screens: set = set()
    seen: dict = {}                                    # element name -> its screen
    allowed = {op.value.lower(): op for op in ir.ELEMENT_OPS}
    for sd in getattr(d, "screens", ()):
        if sd.name.name in seen_screens:
            ctx.error("C102", f"duplicate screen '{sd.name.name}' in app '{d.name.name}'", sd.name.span)
            continue
        seen_screens.add(sd.name.name)
        names = []
        for e in sd.elements:
            if e.name.name in seen:
                ctx.error("C102", f"duplicate element '{e.name.name}' in app '{d.name.name}'", e.name.span,
                          f"first declared on screen '{seen[e.name.name]}'")
                continue
            ops: list = []
            for o in e.ops:
                op = allowed.get(o.name.lower())
                if op is None:
                    ctx.error("C405", f"element '{e.name.name}': '{o.name}' is not an operation an element accepts "
                                      "(one of tap, text, swipe; back and home take no element)", o.span)
                elif op in ops:
                    ctx.error("C405", f"element '{e.name.name}': operation '{o.name}' given twice", o.span)
                else:
                    ops.append(op)
            seen[e.name.name] = sd.name.name
            if ops:
                names.append(e.name.name)
                elements.append(ir.AppElement(e.name.name, e.label, sd.name.name, tuple(ops), e.span))
        screens.append(ir.Screen(sd.name.name, sd.doc, tuple(names), sd.span))
    return tuple(screens), tuple(elements)


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


def op_reference_call(ctx, c: A.RefCallDecl, ui_apps: dict, earlier: set):
    """A reference step that is an APP operation (``3: Text(app = ctrip, element = search_bar, text = "...")``)
    -> its ``ir.RefCall``; None after reporting C403/C404; ``NotImplemented`` when ``c`` names no operation."""
    op = appops.op_named(c.tool.name)
    if op is None:
        return NotImplemented
    tool = appops.op_tool(op)
    params = {p.name: p for p in tool.params}
    ok, args, given = True, [], {k.name: v for k, v in c.args}
    app = None
    for k, v in c.args:
        if k.name not in params:
            ctx.error("C403", f"operation '{tool.name}' has no argument '{k.name}' (it takes "
                              f"{', '.join(params) or 'none'})", k.span)
            ok = False
            continue
        val = value_ir(v)
        if k.name in ("app", "element"):
            if val.kind not in ("name", "str") or val.value == "_":
                ctx.error("C403", f"'{k.name}' of step {c.id} must name an {k.name}", v.span)
                ok = False
                continue
            val = ir.Value("name", str(val.value))
        elif not value_fits(params[k.name].type, val):
            ctx.error("C403", f"argument '{k.name}' of step {c.id} does not fit {params[k.name].type}", v.span)
            ok = False
        if k.name == "app":
            app = ui_apps.get(str(val.value))
            if app is None:
                ctx.error("C403", f"step {c.id}: '{val.value}' is not an app with screens of the scenario (one of "
                                  f"{', '.join(ui_apps)})", v.span)
                ok = False
        args.append((k.name, val))
    for p in tool.params:
        if p.required and p.name not in given:
            ctx.error("C403", f"reference step {c.id} misses '{p.name}' of operation '{tool.name}'", c.span)
            ok = False
    if app is not None and "element" in given:
        ok &= _op_element_ok(ctx, c.id, app, op, given["element"])
    ok &= after_ok(ctx, c, earlier)
    return ir.RefCall(c.id, tool.name, tuple(args), tuple(c.after), c.span) if ok else None


def _op_element_ok(ctx, step: int, app: ir.App, op: ir.AppOp, v: A.ValueExpr) -> bool:
    """Is the element a reference operation names one of the app's, accepting the operation?  (C403 if not.)"""
    name = str(value_ir(v).value)
    el = next((e for e in app.elements if e.name == name), None)
    if el is None:
        ctx.error("C403", f"step {step}: app '{app.name}' has no element '{name}'", v.span)
        return False
    if op not in el.ops:
        ctx.error("C403", f"step {step}: element '{name}' does not accept {op.value} (it accepts "
                          f"{', '.join(o.value for o in el.ops)})", v.span)
        return False
    return True


def after_ok(ctx, c: A.RefCallDecl, earlier: set) -> bool:
    """Does every step a reference step comes ``after`` come before it?  (C404 for each that does not.)"""
    ok = True
    for a in c.after:
        if a not in earlier:
            ctx.error("C404", f"reference step {c.id} comes after unknown or later step {a}", c.span)
            ok = False
    return ok
