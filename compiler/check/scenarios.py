"""Scenarios: AST -> ``ir.Scenario``.

Input: ``scenario`` declarations and the already-checked IR (maps, recipes, procedures, tools).
Output: IR scenarios; diagnostics for unknown recipes/procedures/maps/apps/tools (C401), missing parts (C402),
agents outside the grid (C303) or on non-walkable tiles (C305), stations no agent can reach (C304), constant
overrides of unknown constants (C101) or another dimension (C106), invalid reference tool calls (C403) and
reference dependencies (C404).  Step-level scenarios are instantiated once to prove their numbers evaluate.
A scenario that names a household is checked by ``check.household.household_scenario``; household items
elsewhere, and start rooms without a household, are C609.  A scenario with world items (``object``,
``init:``, ``goal:``) is checked by ``check.world.world_scenario``.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

from chronoplan.compiler import instantiate as inst
from chronoplan.compiler import ir
from chronoplan.compiler.check import household, world
from chronoplan.compiler.check.expr import convert
from chronoplan.compiler.check.maps import bfs, neighbours
from chronoplan.compiler.check.tools import after_ok, op_reference_call, value_fits, value_ir
from chronoplan.compiler.diagnostics import hidden_note, name_hint

LIST_ITEMS = ("orders", "procedures", "share", "apps", "tools")
PARTS = (("recipe", "recipes"), ("procedure", "procedures"), ("app", "apps"), ("tool", "tools"))
STRUCTURES = ("single", "parallel", "chain", "one-to-many", "many-to-one", "many-to-many")


def check_scenarios(ctx) -> None:
    broken = _broken_maps(ctx)
    hidden = dict.fromkeys(broken, 0)         # broken map -> follow-on errors of the scenarios that use it
    broken_homes = _broken_maps(ctx, "household", "households")
    hidden_homes = dict.fromkeys(broken_homes, 0)
    parts = {kind: _broken_maps(ctx, kind, table) for kind, table in PARTS}
    hidden_parts = {kind: dict.fromkeys(found, 0) for kind, found in parts.items()}
    for name, d in ctx.table("scenario").items():
        s = _scenario(ctx, d, broken, hidden, hidden_homes, hidden_parts)
        if s is not None:
            ctx.out("scenarios")[name] = s
    for kind, found, counts in (("map", broken, hidden), ("household", broken_homes, hidden_homes),
                                *((kind, parts[kind], hidden_parts[kind]) for kind, _ in PARTS)):
        for map_name, n in counts.items():
            if n:
                i = found[map_name]
                about = {"map": f"on map '{map_name}'", "household": f"of household '{map_name}'"}.get(
                    kind, f"that name {kind} '{map_name}'")
                ctx.diags[i] = hidden_note(ctx.diags[i], n, f"about the scenarios {about}", f"this {kind} is fixed")


def _broken_maps(ctx, kind: str = "map", table: str = "maps") -> dict:
    """{name: index in ctx.diags of its first error} of the declared maps (or households, recipes, procedures,
    apps, tools) that failed with an error inside their declaration: a scenario naming one gets no errors of
    its own about it (C401 "it has errors", C402 "agent positions need a map"), only the count of them as a note
    on that first error."""
    out = {}
    for name, decl in ctx.table(kind).items():
        if name in ctx.out(table) or decl.span is None:
            continue
        first = next((i for i, d in enumerate(ctx.diags) if d.is_error and _inside(d.span, decl.span)), None)
        if first is not None:
            out[name] = first
    return out


def _inside(span, outer) -> bool:
    if span is None or span.file != outer.file:
        return False
    end = (outer.end_line, outer.end_col) if outer.end_line else (outer.line, outer.col)
    return (outer.line, outer.col) <= (span.line, span.col) <= end


def _scenario(ctx, d, broken, hidden, hidden_homes=None, hidden_parts=None):  # noqa: C901
    f = {"map": None, "agents": [], "orders": [], "procedures": [], "share": [], "unit": None, "const": [],
         "limit": None, "occupancy": None, "apps": [], "tools": [], "query": None, "profile": [], "structure": None,
         "reference": [], "household": None, "goal": [], "horizon": None, "seed": None, "messages": None,
         "syntax": None, "object": [], "init": [], "world_goal": None}
    spans = {}
    for item in d.items:
        spans.setdefault(item.kind, item.span)
        if item.kind == "object":
            f["object"].append(item.args)
        elif item.kind in LIST_ITEMS or item.kind in ("agents", "const", "profile", "reference", "goal", "init"):
            f[item.kind].extend(item.args)
        elif f[item.kind] is not None:
            ctx.error("C102", f"'{item.kind}' given twice in scenario '{d.name.name}'", item.span)
        else:
            f[item.kind] = item.args[0]
    if f["household"] is not None and not world.misplaced(ctx, d, f, spans):
        return None
    if f["household"] is None and world.is_world(spans):
        return world.world_scenario(ctx, d, f, spans)
    if f["household"] is not None:
        return household.household_scenario(ctx, d, f, spans, {} if hidden_homes is None else hidden_homes)
    ok = household.misplaced_items(ctx, d, f, spans)

    def known(kind, table, idents):
        nonlocal ok
        out = []
        for ident in idents:
            other = [k for k in ("recipe", "procedure", "map", "app", "tool", "scenario")
                     if k != kind and ident.name in ctx.table(k)]
            if ident.name not in ctx.out(table) and other and ident.name not in ctx.table(kind):
                ctx.error("C103", f"'{ident.name}' is a {other[0]}, not a {kind}", ident.span)
                ok = False
            elif ident.name not in ctx.out(table):
                _unknown_part(ctx, d, kind, ident, hidden_parts)
                ok = False
            else:
                ctx.used_names.add(ident.name)
                out.append(ident.name)
        return tuple(out)

    orders = known("recipe", "recipes", f["orders"])
    procedures = known("procedure", "procedures", f["procedures"])
    apps = known("app", "apps", f["apps"])
    tools = known("tool", "tools", f["tools"])
    map_name, broken_map = _scenario_map(f["map"], broken, hidden, known)
    ok &= broken_map is None
    local = {r.name for p in procedures for r in ctx.out("procedures")[p].local_resources}
    for ident in f["share"]:
        if ident.name not in local:
            ctx.error("C401", f"'{ident.name}' is not a resource declared inside the scenario's procedures",
                      ident.span)
            ok = False
    if not (orders or procedures or apps or tools or f["reference"]):
        if ok:
            ctx.error("C402", f"scenario '{d.name.name}' has no orders, procedures, tools or household", d.name.span)
        return None
    if orders and f["map"] is None:
        ctx.error("C402", f"scenario '{d.name.name}' has orders but no map", spans["orders"])
        ok = False
    unit = ir.UNIT_ALIASES[f["unit"].name] if f["unit"] is not None else None
    if unit is None:
        timed = any(c.dim is ir.Dim.TIME for c in ctx.constants.values()) or any(
            _has_units(ctx, p) for p in procedures)
        unit = ir.TimeUnit.S if timed else ir.TimeUnit.TICK
    overrides = []
    for item in f["const"]:
        name = item.name.name
        if name not in ctx.constants:
            ctx.error("C101", f"scenario overrides unknown constant '{name}'", item.name.span)
            ok = False
            continue
        ctx.used_constants.add(name)
        e, dim = convert(item.expr, ctx.scope(), ctx.report)
        if e is None:
            ok = False
        elif dim is not ctx.constants[name].dim:
            ctx.error("C106", f"override of '{name}' is a {dim.value}, the constant is a "
                              f"{ctx.constants[name].dim.value}", item.expr.span)
            ok = False
        else:
            overrides.append((name, e))
    limit = None
    if f["limit"] is not None:
        limit, _ = convert(f["limit"], ctx.scope(), ctx.report)
        ok &= limit is not None
    agents = _agents(ctx, d, f["agents"], map_name, broken_map, hidden)
    ok &= agents is not None
    structure = None
    if f["structure"] is not None:
        structure = f["structure"].name
        if structure not in STRUCTURES:
            ctx.error("C107", f"unknown plan structure '{structure}' (one of {', '.join(STRUCTURES)})",
                      f["structure"].span)
            ok = False
    occupancy = ir.OccupancyRule.OVERLAP
    if f["occupancy"] is not None:
        rules = {r.value: r for r in ir.OccupancyRule}
        occupancy = rules.get(f["occupancy"].name)
        if occupancy is None:
            ctx.error("C107", f"unknown occupancy rule '{f['occupancy'].name}' (one of {', '.join(rules)})",
                      f["occupancy"].span)
            ok = False
        elif not procedures:
            ctx.error("C107", "'occupancy' applies to scenarios with procedures", f["occupancy"].span)
            ok = False
    profile = tuple((k.name, value_ir(v)) for k, v in f["profile"])
    reference = _reference(ctx, d, f["reference"], set(tools) | {t for a in apps
                                                               for t in ctx.out("apps")[a].tools},
                           {a: ctx.out("apps")[a] for a in apps if ctx.out("apps")[a].has_ui})
    ok &= reference is not None
    if not ok:
        return None
    s = ir.Scenario(d.name.name, unit, map_name, agents or (), orders, procedures,
                    tuple(i.name for i in f["share"]), tuple(overrides), limit, apps, tools, f["query"],
                    profile, structure, reference, d.span, occupancy or ir.OccupancyRule.OVERLAP)
    if procedures:
        _instantiate(ctx, s, d)
    return s


def _unknown_part(ctx, d, kind: str, ident, hidden_parts) -> None:
    """C401 for scenario ``d`` naming the ``kind`` ``ident``, which did not compile; only counted in
    ``hidden_parts`` when it is a follow-on of the errors inside its declaration."""
    counts = (hidden_parts or {}).get(kind, {})
    if ident.name in counts:
        counts[ident.name] += 1
        return
    decl_ok = ident.name in ctx.table(kind)
    hint = () if decl_ok else (name_hint(ident.name, ctx.out(f"{kind}s"), f"{kind}s"),)
    ctx.error("C401", f"scenario '{d.name.name}' names unknown {kind} '{ident.name}'"
              + (" (it has errors)" if decl_ok else ""), ident.span, *hint)


def _scenario_map(ident, broken, hidden, known) -> tuple:
    """(the scenario's map name or None, the name of the broken map it names or None).  Naming a map that has
    errors of its own is a follow-on error: counted in ``hidden``, not reported."""
    if ident is None:
        return None, None
    if ident.name in broken:
        hidden[ident.name] += 1
        return None, ident.name
    names = known("map", "maps", [ident])
    return (names[0] if names else None), None


def _has_units(ctx, name: str) -> bool:
    """Does a duration of procedure ``name`` carry a time unit?  (Once per procedure, not per scenario.)"""
    key = ("has units", name)
    if key not in ctx.instantiated:
        ctx.instantiated[key] = any(ir.SECOND in s.duration.free_symbols for s in ctx.out("procedures")[name].steps)
    return ctx.instantiated[key]


def _instantiate(ctx, s, d):
    """Prove the numbers of procedure scenario ``s`` evaluate (C106/C109 on ``d``'s name if not).  Each
    procedure is evaluated once per unit and constant overrides, however many scenarios name it; at most
    ``MAX_INSTANTIATED_STEPS`` steps are evaluated in one check (C111 once, then the rest are skipped)."""
    cache = ctx.instantiated
    for name in s.procedures:
        key = (name, s.time_unit, s.overrides)
        if key not in cache:
            if cache.get(_BUDGET, 0) < 0:
                return                                  # over the limit: reported once already
            total = cache.get(_BUDGET, 0) + len(ctx.out("procedures")[name].steps)
            if total > MAX_INSTANTIATED_STEPS:
                cache[_BUDGET] = -1
                ctx.error("C111", f"scenario '{s.name}' brings the procedure steps this check evaluates to {total:,}, "
                                  f"over the limit of {MAX_INSTANTIATED_STEPS:,} (each procedure counts once per "
                                  "unit and constant overrides); the scenarios from here on are not evaluated",
                          d.name.span, "split the scenarios over several files, or give fewer of them their own "
                                       "unit or constant overrides")
                return
            cache[_BUDGET] = total
            cache[key] = _evaluation_error(ctx, dataclasses.replace(s, procedures=(name,), shared=(), limit=None))
        if cache[key] is not None:
            _evaluation_failed(ctx, s, d, cache[key])
            return
    if s.limit is not None:
        try:
            inst.evaluate(s.limit, inst.constant_values(_project(ctx, s), s), s.time_unit)
        except (inst.InstantiationError, KeyError, ZeroDivisionError) as exc:
            _evaluation_failed(ctx, s, d, str(exc))


MAX_INSTANTIATED_STEPS = 200_000
_BUDGET = "steps evaluated"                             # the cache's counter of evaluated steps (-1: over)


def _project(ctx, s) -> ir.Project:
    return ir.Project((), dict(ctx.constants), {}, {}, {}, {}, ctx.out("resources"), {}, {}, {},
                      ctx.out("procedures"), {}, {}, {}, {s.name: s})


def _evaluation_error(ctx, s) -> Optional[str]:
    """Why scenario ``s`` cannot be instantiated, or None when it can."""
    try:
        inst.procedure_problem(_project(ctx, s), s)
    except (inst.InstantiationError, KeyError, ZeroDivisionError) as exc:
        return str(exc)
    return None


def _evaluation_failed(ctx, s, d, why: str) -> None:
    code = "C106" if "tick" in why else "C109"
    ctx.error(code, f"scenario '{s.name}' cannot be evaluated: {why}", d.name.span,
              "give the scenario a unit (unit min) or write the durations without units")


def _agents(ctx, d, items, map_name, broken_map=None, hidden=None):
    """The scenario's agents, or None after reporting why not; positions on ``broken_map`` (a declared map
    with errors) are counted in ``hidden`` instead of reported."""
    seen, out, ok = set(), [], True
    m = ctx.out("maps").get(map_name) if map_name else None
    for a in items:
        if a.name.name in seen:
            ctx.error("C102", f"duplicate agent '{a.name.name}'", a.name.span)
            ok = False
            continue
        seen.add(a.name.name)
        if a.room is not None:
            ctx.error("C609", f"agent '{a.name.name}' starts in a room, which needs a household", a.room.span,
                      "add: household NAME (or give a grid position: at (x, y))")
            ok = False
        elif a.pos is not None:
            if m is None and broken_map is not None:
                hidden[broken_map] += 1
                ok = False
            elif m is None:
                ctx.error("C402", "agent positions need a map", a.span)
                ok = False
            elif not (0 <= a.pos[0] < m.width and 0 <= a.pos[1] < m.height):
                ctx.error("C303", f"agent '{a.name.name}' starts at {a.pos}, outside the {m.width}x{m.height} "
                                  f"map '{m.name}'", a.span)
                ok = False
            elif not m.walkable(*a.pos):
                ctx.error("C305", f"agent '{a.name.name}' starts at {a.pos}, which is not a floor tile", a.span)
                ok = False
        out.append(ir.AgentDecl(a.name.name, a.pos))
    if ok and m is not None and out and all(a.pos is not None for a in out):
        reach = set()
        for a in out:
            reach |= set(bfs(m, a.pos))
        for st in m.stations:
            if not any(n in reach for n in neighbours(st.x, st.y)):
                ctx.error("C304", f"station {st.name} at ({st.x}, {st.y}) cannot be reached by any agent of "
                                  f"scenario '{d.name.name}'", d.name.span)
                ok = False
    return tuple(out) if ok else None


def _op_step(ctx, c, allowed, ui_apps, ids, out):
    """An APP operation of a reference plan: checked, added to ``out`` and ``ids``; True/False whether it is
    valid, None when ``c`` is not an operation (no APP offered, a tool of that name, or no operation name)."""
    if not ui_apps or c.tool.name in allowed:
        return None
    call = op_reference_call(ctx, c, ui_apps, ids)
    if call is NotImplemented:
        return None
    ids.add(c.id)
    out.extend([call] if call is not None else [])
    return call is not None


def _waits_for(after, waits: dict, bit: dict) -> int:
    """The steps a step with ``after`` waits for, transitively, as a bitset over ``bit`` (step id -> its bit),
    given ``waits`` of the earlier steps; ids of unknown or later steps are left to ``after_ok`` (C404)."""
    out = 0
    for a in after:
        if a in waits:
            out |= waits[a] | bit[a]
    return out


def _reference(ctx, d, calls, allowed, ui_apps=None):
    """The reference plan's calls (tools of ``allowed``; APP operations on the ``ui_apps``), or None after
    reporting why not.  A step may read the output of any step it waits for through ``after``, directly or
    transitively (as the grader's T302 does)."""
    ok, out, ids = True, [], set()
    producers: dict = {}                  # step id -> its tool (for $N.field checks)
    waits: dict = {}                      # step id -> bitset (over ``bit``) of the steps it waits for, transitively
    bit: dict = {}                        # step id -> its bit
    for c in calls:
        if c.id in ids:
            ctx.error("C404", f"reference step {c.id} defined twice", c.span)
            ok = False
            continue
        bit[c.id] = 1 << len(bit)
        waits[c.id] = _waits_for(c.after, waits, bit)
        done = _op_step(ctx, c, allowed, ui_apps, ids, out)
        if done is not None:
            ok &= done
            continue
        tool = ctx.out("tools").get(c.tool.name)
        if tool is None or c.tool.name not in allowed:
            ctx.error("C403", f"reference step {c.id} calls '{c.tool.name}', which is not a tool of the scenario",
                      c.tool.span)
            ok = False
            ids.add(c.id)
            continue
        params = {p.name: p for p in tool.params}
        args = []
        for k, v in c.args:
            val = value_ir(v)
            if k.name not in params:
                ctx.error("C403", f"tool '{tool.name}' has no parameter '{k.name}'", k.span)
                ok = False
            elif not value_fits(params[k.name].type, val):
                ctx.error("C403", f"argument '{k.name}' of step {c.id} does not fit {params[k.name].type}", v.span)
                ok = False
            if val.kind == "ref":
                ref, _field = val.value
                if ref not in ids:
                    ctx.error("C404", f"step {c.id} uses the output of step {ref}, which does not come before it",
                              v.span)
                    ok = False
                elif not waits[c.id] & bit[ref]:
                    ctx.error("C404", f"step {c.id} uses the output of step {ref} without waiting for it "
                                      f"('after {ref}', directly or through a step it comes after)", v.span)
                    ok = False
                elif _field and ref in producers and producers[ref].returns and \
                        _field not in {name for name, _ in producers[ref].returns}:
                    fields = ", ".join(name for name, _ in producers[ref].returns)
                    ctx.error("C403", f"step {c.id} uses field '{_field}' of step {ref}, but '{producers[ref].name}' "
                              f"returns only: {fields}", v.span)
                    ok = False
            args.append((k.name, val))
        given = {k.name for k, _ in c.args}
        for p in tool.params:
            if p.required and p.name not in given:
                ctx.error("C403", f"reference step {c.id} misses required parameter '{p.name}' of '{tool.name}'",
                          c.span)
                ok = False
        ok &= after_ok(ctx, c, ids)
        ids.add(c.id)
        producers[c.id] = tool
        out.append(ir.RefCall(c.id, tool.name, tuple(args), tuple(c.after), c.span))
    return tuple(out) if ok else None
