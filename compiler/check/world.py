"""Worlds: a scenario's objects, initial facts and goal formula -> ``ir.Scenario`` of kind ``WORLD``.

Input: the items of a ``scenario`` declaration as ``check.scenarios`` gathered them (``object a, b: T``, ``init:
facts``, ``goal: formula``) and the already-checked IR (types, objects, relations, actions).  Output: the IR
scenario, or None after errors.  Diagnostics: unknown types, relations and objects (C101, with the nearest
declared name as hint), duplicate objects (C102), wrong arity (C104), argument types (C105), a world with no
goal (C402), another family's items in a world (C701), an ``init`` entry that is not a ground fact of a
declared relation (C702), and a domain action or process a world cannot run yet (C703: a duration, ``busy``,
``holds``, ``interruptible``, ``new`` objects, ``after`` or built-in effects, the map's built-in relations).
The formulas are checked by ``check.actions._formula``, the same rules as an action's conditions.
"""
from __future__ import annotations

from typing import Optional

import sympy

from chronoplan.compiler import ast as A
from chronoplan.compiler import builtins, ir
from chronoplan.compiler.check.actions import _atom, _formula
from chronoplan.compiler.diagnostics import nearest

WORLD_ITEMS = ("object", "init", "world_goal")
ALLOWED = WORLD_ITEMS + ("unit",)
ITEM_NAMES = {"world_goal": "goal:", "goal": "goal N relation(...)"}
TIMED_ITEMS = ("duration", "busy", "holds", "interruptible")


def is_world(spans: dict) -> bool:
    """Whether the scenario's items (``spans``: item kind -> span of its first occurrence) make a world: any world
    item, even an empty ``init:``."""
    return any(k in spans for k in WORLD_ITEMS)


def misplaced(ctx, d, f: dict, spans: dict) -> bool:
    """C701 for world items in a scenario of another family (a household); True when there were none."""
    bad = [k for k in WORLD_ITEMS if k in spans]
    for k in bad:
        ctx.error("C701", f"'{ITEM_NAMES.get(k, k)}' belongs in a world scenario; scenario '{d.name.name}' is "
                          "a household scenario", spans[k])
    return not bad


def world_scenario(ctx, d, f: dict, spans: dict) -> Optional[ir.Scenario]:
    """The IR of a world scenario (``f``: its items gathered by ``check.scenarios``), or None after errors."""
    before = len([x for x in ctx.diags if x.severity.value == "error"])
    for k in spans:
        if k not in ALLOWED:
            ctx.error("C701", f"'{ITEM_NAMES.get(k, k)}' does not belong in world scenario '{d.name.name}' "
                              "(a world has objects, init and goal:)", spans[k])
    objects = _objects(ctx, f["object"])
    scope = {**{n: o.type for n, o in ctx.out("objects").items()}, **{o.name: o.type for o in objects}}
    init = tuple(a for a in (_init_fact(ctx, x, scope) for x in f["init"]) if a is not None)
    goal = None
    if f["world_goal"] is None:
        ctx.error("C402", f"world scenario '{d.name.name}' has no goal", d.name.span, "add: goal: FORMULA")
    elif _names_ok(ctx, f["world_goal"], scope, set()):
        goal = _formula(ctx, f["world_goal"], dict(scope))
        if goal is not None:
            _no_map_builtins(ctx, goal)
    check_world_actions(ctx)
    after = len([x for x in ctx.diags if x.severity.value == "error"])
    if after > before or goal is None:
        return None
    unit = ir.UNIT_ALIASES[f["unit"].name] if f["unit"] is not None else ir.TimeUnit.TICK
    return ir.Scenario(d.name.name, unit, None, (), (), (), (), (), None, (), (), None, (), None, (), d.span,
                       objects=objects, init=init, goal=goal)


def _objects(ctx, items) -> tuple[ir.ObjectDef, ...]:
    out: dict[str, ir.ObjectDef] = {}
    for names, typ in items:
        if typ.name not in ctx.types:
            ctx.error("C101", f"undefined type '{typ.name}'", typ.span, nearest(typ.name, ctx.types))
            continue
        ctx.types_used.add(typ.name)
        for n in names:
            if n.name in out or n.name in ctx.out("objects"):
                ctx.error("C102", f"duplicate object '{n.name}'", n.span)
                continue
            out[n.name] = ir.ObjectDef(n.name, typ.name, n.span)
    return tuple(out.values())


def _init_fact(ctx, x, scope: dict) -> Optional[ir.Atom]:
    if not isinstance(x, A.FAtom):
        ctx.error("C702", "init lists the facts true at the start: ground facts such as on(a, b); every fact "
                          "it does not list is false", x.span, "write the fact itself (no not, and, or, "
                          "comparison or quantifier)")
        return None
    if x.rel.name not in ctx.out("relations") and x.rel.name in builtins.RELATIONS:
        ctx.error("C702", f"'{x.rel.name}' is a built-in relation of grid kitchens, not a fact a world states",
                  x.rel.span, "declare a relation of your own")
        return None
    if not _names_ok(ctx, x, scope, set()):
        return None
    return _atom(ctx, x.rel, x.args, scope, x.span)


def _names_ok(ctx, f, scope: dict, bound: set) -> bool:
    """C101 (nearest name as hint) and C104 for the relations and objects of a formula; True when none."""
    if isinstance(f, A.FBool):
        return all([_names_ok(ctx, a, scope, bound) for a in f.args])
    if isinstance(f, A.FExists):
        return _names_ok(ctx, f.formula, scope, bound | {f.var.name})
    if not isinstance(f, A.FAtom):
        return True                               # comparisons: checked by check.actions
    rel = ctx.out("relations").get(f.rel.name)
    if rel is None and f.rel.name not in builtins.RELATIONS:
        ctx.error("C101", f"undefined relation '{f.rel.name}'", f.rel.span, nearest(f.rel.name, ctx.out("relations")))
        return False
    ok = True
    if rel is not None and len(f.args) != len(rel.params):
        n = len(rel.params)
        ctx.error("C104", f"relation '{f.rel.name}' takes {n} argument{'s' * (n != 1)}, got {len(f.args)}", f.span,
                  f"{f.rel.name}({', '.join(rel.params)})")
        ok = False
    for a in f.args:
        if isinstance(a, A.TName) and a.ident.name not in scope and a.ident.name not in bound:
            ctx.error("C101", f"unknown object '{a.ident.name}'", a.span, nearest(a.ident.name, scope))
            ok = False
    return ok


def _no_map_builtins(ctx, f, where: str = "a world") -> bool:
    """C703 for the map's built-in relations (adjacent, at, walkable, ...) in a formula; True when none."""
    if isinstance(f, ir.Atom):
        if f.relation in builtins.RELATIONS and f.relation not in ctx.out("relations"):
            ctx.error("C703", f"'{f.relation}' is a built-in relation of grid kitchens (it needs a map); "
                              f"{where} has none", f.span, "declare a relation and state its facts in init")
            return False
        return True
    if isinstance(f, ir.Not):
        return _no_map_builtins(ctx, f.arg, where)
    if isinstance(f, (ir.And, ir.Or)):
        return all([_no_map_builtins(ctx, a, where) for a in f.args])
    if isinstance(f, ir.Exists):
        return _no_map_builtins(ctx, f.formula, where)
    return True


def check_world_actions(ctx) -> None:
    """C703 for every construct of the domain's actions and processes that a world cannot run (once per run)."""
    if ctx.__dict__.get("_world_actions_checked"):
        return
    ctx.__dict__["_world_actions_checked"] = True
    for name, d in ctx.table("action").items():
        a = ctx.out("actions").get(name)
        if a is None:
            continue
        where = f"world action '{name}'"
        for item in d.items:
            if item.kind == "duration" and sympy.sympify(a.duration) == 0:
                continue
            if item.kind in TIMED_ITEMS:
                ctx.error("C703", f"{where}: '{item.kind}' is not available in worlds yet (instantaneous "
                                  "sequential actions only)", item.span, "docs/worlds-design.md, later steps")
        for p in d.params:
            if p.new:
                ctx.error("C703", f"{where}: 'new' objects are not available in worlds", p.span)
        for c in a.conditions:
            _no_map_builtins(ctx, c.formula, where)
        _effects_ok(ctx, d, a, where)
    for name, d in ctx.table("process").items():
        ctx.error("C703", f"process '{name}': processes are not available in worlds yet", d.name.span)


def _effects_ok(ctx, d, a: ir.Action, where: str) -> None:
    def bad(e) -> Optional[str]:
        if isinstance(e, ir.Delayed):
            return "'after' (delayed effects)"
        if isinstance(e, ir.BuiltinEffect):
            return f"the built-in effect {e.name}()"
        if isinstance(e, (ir.AddFact, ir.DelFact)) and e.atom.relation in builtins.RELATIONS \
                and e.atom.relation not in ctx.out("relations"):
            return f"the built-in relation '{e.atom.relation}'"
        if isinstance(e, ir.Forall):
            return next((b for b in map(bad, e.effects) if b), None)
        return None
    spans = [i.span for i in d.items if i.kind == "effect"]
    for e in a.effects:
        why = bad(e.effect)
        if why:
            ctx.error("C703", f"{where}: {why} is not available in worlds", spans[0] if spans else d.name.span)
