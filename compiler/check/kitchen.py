"""Grid-kitchen declarations: relation roles and capacities, containers, surface actions, created objects.

Input: the checker context after actions, processes, recipes and maps were checked (``check_kitchen``) and
after scenarios (``check_kitchen_scenarios``).  Output: relations updated with their role and capacity,
``ctx.out("containers")`` (``ir.Container``), ``ctx.out("surfaces")`` (``ir.Surface``); diagnostics for
unknown names (C101), wrong kinds (C103), arity (C104), type mismatches (C105: an operator parameter that
cannot take the surface argument, a dispenser whose legend argument is not the type it must create),
values outside a domain (C107: unknown role or state), invalid numbers (C109) and missing parts (C402:
containers without a containment relation, kitchen agents without a start cell).
"""
from __future__ import annotations

import dataclasses

from chronoplan.compiler import ir
from chronoplan.compiler.check.actions import _params


def check_kitchen(ctx) -> None:
    _relations(ctx)
    _containers(ctx)
    _surfaces(ctx)
    _creation_sources(ctx)


# ------------------------------------------------------------------ relations: roles and capacities
ROLE_SHAPES = {"holding": ("agent", "item"), "placement": ("item", "station"), "containment": ("item", "item")}


def _relations(ctx) -> None:
    rels = ctx.out("relations")
    roles: dict = {}
    for name, d in ctx.table("relation").items():
        r = rels.get(name)
        if r is None:
            continue
        role = cap = per = None
        role_id = getattr(d, "role", None)
        if role_id is not None:
            role = role_id.name
            if role not in ir.RELATION_ROLES:
                ctx.error("C107", f"unknown relation role '{role}' (one of {', '.join(ir.RELATION_ROLES)})",
                          role_id.span)
                role = None
            elif role in roles:
                ctx.error("C102", f"two relations have the role '{role}': '{roles[role]}' and '{name}'",
                          role_id.span)
                role = None
            else:
                shape = ROLE_SHAPES[role]
                if len(r.params) != 2 or not all(ctx.is_subtype(p, s) for p, s in zip(r.params, shape)):
                    ctx.error("C105", f"a '{role}' relation takes ({', '.join(shape)}) arguments",
                              role_id.span)
                    role = None
                else:
                    roles[role] = name
        if getattr(d, "capacity", None) is not None:
            cap = d.capacity
            if cap < 1:
                ctx.error("C109", f"capacity of relation '{name}' must be at least 1", d.span)
                cap = None
            positions = [i for i, p in enumerate(r.params) if p == d.per.name]
            if d.per.name not in ctx.types:
                ctx.error("C101", f"undefined type '{d.per.name}'", d.per.span)
                cap = None
            elif len(positions) != 1:
                ctx.error("C105", f"'per {d.per.name}' must name exactly one parameter type of '{name}'",
                          d.per.span)
                cap = None
            else:
                per = positions[0]
        if role is not None or cap is not None:
            rels[name] = dataclasses.replace(r, role=role, capacity=cap, capacity_per=per if cap else None)


def role_relation(ctx_or_project, role: str):
    rels = ctx_or_project.out("relations") if hasattr(ctx_or_project, "out") else ctx_or_project.relations
    for r in rels.values():
        if r.role == role:
            return r
    return None


# ------------------------------------------------------------------ containers
def _containers(ctx) -> None:
    states = {v for a in ctx.out("attributes").values() if a.kind == "enum" for v in a.values}
    out = ctx.out("containers")
    decls = ctx.table("container")
    if decls and role_relation(ctx, "containment") is None:
        first = next(iter(decls.values()))
        ctx.error("C402", "containers need a relation declared 'as containment' (e.g. relation inside(item, "
                          "container) as containment)", first.name.span)
    for name, d in decls.items():
        ok = True
        if name not in ctx.types:
            ctx.error("C101", f"undefined type '{name}' (a container declaration names a type)", d.name.span)
            ok = False
        if d.capacity is not None and d.capacity < 1:
            ctx.error("C109", f"capacity of container '{name}' must be at least 1", d.span)
            ok = False
        accepts = []
        for a in d.accepts:
            if a.kind.name not in ctx.types:
                ctx.error("C101", f"undefined type '{a.kind.name}'", a.kind.span)
                ok = False
                continue
            ctx.types_used.add(a.kind.name)
            if a.state is not None and a.state.name not in states:
                ctx.error("C107", f"'{a.state.name}' is not a state of any attribute", a.state.span)
                ok = False
                continue
            accepts.append((a.kind.name, a.state.name if a.state else None))
        if ok:
            ctx.types_used.add(name)
            out[name] = ir.Container(name, d.capacity, tuple(accepts), d.span)


# ------------------------------------------------------------------ surface actions
def _surfaces(ctx) -> None:
    actions = ctx.out("actions")
    out = ctx.out("surfaces")
    for name, d in ctx.table("surface").items():
        params = _params(ctx, d.params)
        if params is None:
            continue
        if any(p.new for p in params):
            ctx.error("C105", "surface parameters cannot be 'new'", d.name.span)
            continue
        ok = True
        ops = []
        for op in d.operators:
            a = actions.get(op.name)
            if a is None:
                if op.name in ctx.table("action"):
                    ctx.error("C101", f"action '{op.name}' has errors", op.span)
                elif op.name in ctx.table("process"):
                    ctx.error("C103", f"'{op.name}' is a process, not an action", op.span)
                else:
                    ctx.error("C101", f"undefined action '{op.name}'", op.span)
                ok = False
                continue
            ctx.used_names.add(op.name)
            if len(a.params) < len(params):
                ctx.error("C104", f"action '{op.name}' has {len(a.params)} parameters; surface '{name}' binds "
                                  f"the first {len(params)}", op.span)
                ok = False
                continue
            for sp, opp in zip(params, a.params):
                if opp.new:
                    ctx.error("C105", f"parameter '{opp.name}' of '{op.name}' is created by the action; the "
                                      f"surface argument '{sp.name}' cannot bind it", op.span)
                    ok = False
                elif not (ctx.is_subtype(opp.type, sp.type) or ctx.is_subtype(sp.type, opp.type)):
                    ctx.error("C105", f"surface '{name}' binds its '{sp.name}: {sp.type}' to parameter "
                                      f"'{opp.name}: {opp.type}' of '{op.name}'", op.span)
                    ok = False
            ops.append(op.name)
        if params and not ctx.is_subtype(params[0].type, "agent"):
            ctx.error("C105", f"the first parameter of surface '{name}' must be the agent", d.span)
            ok = False
        if ok:
            out[name] = ir.Surface(name, params, tuple(ops), bool(d.final), d.span)


# ------------------------------------------------------------------ created objects and map contents
def _creation_sources(ctx) -> None:
    maps = ctx.out("maps")
    for aname, a in ctx.out("actions").items():
        ptypes = {p.name: p.type for p in a.params}
        for p in a.params:
            if not p.new or p.source is None:
                continue
            kind = ptypes.get(p.source)
            for m in maps.values():
                for st in m.stations:
                    if not ctx.is_subtype(st.kind, kind):
                        continue
                    if st.arg is None or st.arg not in ctx.types or not ctx.is_subtype(st.arg, p.type):
                        ctx.error("C105", f"station {st.name} of map '{m.name}' must name a {p.type} type in its "
                                          f"legend ({st.kind}(T)); action '{aname}' creates its '{p.name}' from it",
                                  m.span)
                        break


def check_kitchen_scenarios(ctx) -> None:
    """Kitchen scenarios (orders on a map) need agent start cells and recipes in declared containers."""
    containers = ctx.out("containers")
    if not containers and not ctx.out("surfaces"):
        return
    recipes = ctx.out("recipes")
    for name, s in ctx.out("scenarios").items():
        if not s.orders or s.map is None:
            continue
        d = ctx.table("scenario").get(name)
        span = d.name.span if d is not None else None
        missing = [a.name for a in s.agents if a.pos is None]
        if missing:
            ctx.error("C402", f"kitchen scenario '{name}' needs a start cell for {', '.join(missing)} "
                              "(agents NAME at (x, y))", span)
        if not s.agents:
            ctx.error("C402", f"kitchen scenario '{name}' has no agents", span)
        for o in dict.fromkeys(s.orders):
            r = recipes.get(o)
            if r is not None and containers and not any(ctx.is_subtype(r.container, c) for c in containers):
                ctx.error("C402", f"recipe '{o}' is served in '{r.container}', which is not a declared container",
                          span)
