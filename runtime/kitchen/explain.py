"""Error explanations and dish matching for the kitchen simulator.

Input: the world, the state, a surface action that no operator could carry out (its candidate operators and
why each failed: an unmet start condition found by a declared-order search, or an exceeded capacity), or a
served container and the current order.  Output: ``explain_failure -> (code, message, hint)``: the message leads
with the cause -- the candidate that got furthest and the condition it failed --, then the candidates that got
as far (with their conditions) and the others by name; the code is chosen from that candidate (not adjacent
E251, infeasible location E250, hands full E252, full station/container E255, not accepted E257, wrong
station kind E253, otherwise E254); ``match_dish`` (multiset of kind@state, exact) and
``describe_contents``.
"""
from __future__ import annotations

from chronoplan.compiler import builtins, ir
from chronoplan.runtime.kitchen.logic import explain, show_formula

PRIORITY = {"E252": 0, "E255": 1, "E257": 2, "E254": 3, "E251": 4, "E250": 5, "E253": 6}


def _cell(c) -> str:
    return f"[{c[0]}, {c[1]}]"


def _val(x) -> str:
    return _cell(x) if isinstance(x, tuple) else str(x)


def holding_text(world, st, agent) -> str:
    rel = world.roles.get("holding")
    if rel is None:
        return ""
    held = [t[1] for t in st.rels[rel].by(0, agent)]
    return f"{agent} holds {', '.join(held)}" if held else f"{agent} holds nothing"


def on_text(world, st, station) -> str:
    rel = world.roles.get("placement")
    if rel is None or station not in world.grid.station_cell:
        return ""
    items = [t[0] for t in st.rels[rel].by(1, station)]
    if not items:
        return f"nothing is on {station}"
    return f"{station} has " + ", ".join(describe_object(world, st, o) for o in items)


def describe_object(world, st, o) -> str:
    if not isinstance(o, str) or o not in st.otype:
        return _val(o)
    parts = []
    for name, _values in st.attrs.items():
        a = world.project.attributes.get(name)
        if a is not None and a.params and world.isa_type(st.otype[o], a.params[0]):
            v = st.get(name, o)
            parts.append(f"{v}" if a.kind == "enum" else f"{name}={str(v).lower()}")
    rel = world.roles.get("containment")
    if rel is not None:
        inside = [t[0] for t in st.rels[rel].by(1, o)]
        if inside:
            parts.append("with " + ", ".join(describe_object(world, st, x) for x in inside))
    return o + (f" ({', '.join(parts)})" if parts else "")


def _classify(world, st, conj, env) -> str:
    if isinstance(conj, ir.Atom):
        if conj.relation == builtins.ADJACENT.name:
            return "E251"
        if conj.relation in (builtins.WALKABLE.name, builtins.REACHABLE.name, builtins.AT.name):
            return "E250"
        if conj.relation == builtins.ACCEPTS.name:
            return "E257"
        rel = world.roles.get("holding")
        if conj.relation == rel and conj.args:
            agent = env.get(conj.args[0])
            if st.rels[rel].by(0, agent):             # holds something, but not what this operator needs
                return "E252"
    return "E254"


def _fail_text(world, st, op, conj, env) -> str:
    text = show_formula(conj, env)
    if isinstance(conj, ir.Atom) and conj.relation == builtins.ADJACENT.name and len(conj.args) == 2:
        a, s = env.get(conj.args[0]), env.get(conj.args[1])
        where = st.pos.get(a)
        if where is not None and s in world.grid.station_cell:
            spots = ", ".join(_cell(c) for c in world.grid.adjacent_cells(s))
            return f"{a} at {_cell(where)} is not next to {s} at {_cell(world.grid.station_cell[s])} " \
                   f"(stand on {spots})"
    if isinstance(conj, ir.Atom) and conj.relation == builtins.WALKABLE.name and conj.args:
        c = env.get(conj.args[0])
        if isinstance(c, tuple):
            return f"{_cell(c)} is {world.grid.what_is(c)}, not a floor tile"
    if isinstance(conj, ir.Atom) and conj.relation == builtins.REACHABLE.name and len(conj.args) == 2:
        a, c = env.get(conj.args[0]), env.get(conj.args[1])
        return f"no floor path leads from {_val(st.pos.get(a, a))} to {_val(c)}"
    return f"{text} is false"


def explain_failure(world, st, surface: ir.Surface, args, env: dict, cands: list, failures: list):
    agent = env[surface.params[0].name]
    target = args[0] if args else None
    what = f"{surface.name} {_val(target)}" if target is not None else surface.name
    if not cands:
        needs = []
        for name in surface.operators:
            op = world.ops[name]
            req = ", ".join(p.type for p in op.action.params[1:len(surface.params)])
            needs.append(f"{name} needs a {req}" if req else name)
        kind = st.otype.get(target, "cell") if target is not None else "nothing"
        return ("E253", f"{what}: no operator of {surface.name} works on a {kind} ({'; '.join(needs)})",
                f"{surface.name} a station of the right kind")
    reasons = []
    best = None
    for op, e0, cap in failures:
        parts = op.start_parts
        if cap is not None:
            rel, key, limit, role = cap
            depth, code = len(parts), ("E252" if role == "holding" else "E255")
            if role == "holding":
                text = f"{holding_text(world, st, key)} (hands hold {limit})"
            elif role == "placement":
                text = f"{on_text(world, st, key)} (room for {limit})"
            else:
                text = f"{key} is full ({limit} {rel} at most)"
            envx = e0
        else:
            depth, conj, envx = explain(world.compiler, parts, op.vars, st, e0)
            code = _classify(world, st, conj, envx)
            text = _fail_text(world, st, op, conj, envx) if conj is not None else "its conditions hold"
        rank = (-depth, PRIORITY.get(code, 9))
        reasons.append((rank, op.name, text))
        if best is None or rank < best[0]:
            best = (rank, code, op, envx)
    assert best is not None, "cands is not empty, so every candidate operator is in failures"
    code = best[1]
    context = [x for x in (holding_text(world, st, agent), on_text(world, st, target)) if x]
    return code, _failure_message(what, best[2].name, reasons, context if code != "E250" else []), \
        _hint(world, st, code, agent, target)


def _failure_message(what: str, best: str, reasons: list, context: list) -> str:
    """The cause first: the operator that got furthest and the condition it failed (with the agent's hands and the
    station's contents, unless that condition says them; the operators that got as far on the same condition
    named with it), then the operators that got as far on other conditions, then the other candidates by name."""
    top = next(r for r in reasons if r[1] == best)
    context = [x for x in context if x not in top[2]]
    same = [name for rank, name, text in reasons if rank == top[0] and text == top[2]]
    message = f"{what}: {best}: {top[2]}" if len(same) == 1 else f"{what}: {top[2]} (for {', '.join(same)})"
    message += f" ({'; '.join(context)})" if context else ""
    tied = [f"{name}: {text}" for rank, name, text in reasons if rank == top[0] and text != top[2]]
    rest = [name for rank, name, _ in reasons if rank != top[0]]
    if tied:
        message += "; as far: " + "; ".join(tied)
    return message + "; no operator applies" + (f" (also tried: {', '.join(rest)})" if rest else "")


def _hint(world, st, code, agent, target) -> str:
    if code == "E251" and target in world.grid.station_cell:
        spots = ", ".join(_cell(c) for c in world.grid.adjacent_cells(target))
        return f"MoveTo a floor tile next to {target} first ({spots})"
    if code == "E250":
        return "MoveTo a reachable floor tile (not a station, wall or cell outside the map)"
    if code == "E252":
        return "put down or use what the agent holds first, or fetch the item it needs"
    if code == "E255":
        return "clear the station or container first"
    if code == "E257":
        return "check which items the container accepts, and in which state"
    return "check the state of the station and of what the agent holds"


# ------------------------------------------------------------------ dishes
def match_dish(world, st, container, contents: list, dish) -> bool:
    typ = st.otype.get(container)
    if typ is None or not world.isa_type(typ, dish.container):
        return False
    slots = []
    for kind, attr, value, count in dish.items:
        slots.extend([(kind, attr, value)] * count)
    if len(slots) != len(contents):
        return False
    return _assign(0, contents, slots, [False] * len(slots), st)


def _assign(i: int, contents: list, slots: list, used: list, st) -> bool:
    """Whether contents[i:] can fill the unused slots (backtracking; a module function, so no closure cycle)."""
    if i == len(contents):
        return True
    o = contents[i]
    for j, (kind, attr, value) in enumerate(slots):
        if not used[j] and st.isa(o, kind) and (attr is None or st.get(attr, o) == value):
            used[j] = True
            if _assign(i + 1, contents, slots, used, st):
                return True
            used[j] = False
    return False


def describe_contents(world, st, container, contents: list) -> str:
    if not contents:
        return "nothing"
    return ", ".join(describe_object(world, st, o) for o in contents)
