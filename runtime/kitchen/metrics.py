"""ParaCook metrics of kitchen runs: per run (OCT, distance, utilisation, time budget) and per batch.

Input: a ``kitchen.engine.KitchenResult`` (``run_metrics``) or a list of per-run metric dicts (``batch_metrics``);
the world, for the upper bounds of the paper's appendix G computed on the real map (``bounds``).
Output: plain dicts of exact numbers (int/Fraction; the report layer renders them).

Per run: ``success``, ``oct`` (time the last order is served), ``makespan`` (OCT when successful, else the
end of the last action), ``T_max``/``D_max`` (bounds), ``poct`` (OCT or T_max), ``noct`` (OCT / T_max),
``md`` (mean distance walked per agent), ``pmd`` (MD or D_max), ``utilisation`` (mean over agents of
(executed time - Wait time) / executed time, upstream's definition; agents that never act count 0),
``time_budget`` per agent (move, interact, process, wait, idle = makespan - the agent's last action end)
and ``distance`` per agent.
Batch: ``SR``, ``pOCT``, ``nOCT`` (over successes), ``pMD``, ``AU`` (over successes), mean time budget.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Any, Optional

import sympy

from chronoplan.compiler import ir
from chronoplan.runtime.kitchen.logic import num

BUDGET = {"MoveTo": "move", "Interact": "interact", "Process": "process", "Wait": "wait"}


def _mean(xs: list) -> Optional[Any]:
    return _ratio(sum(xs), len(xs)) if xs else None


def _ratio(p, q) -> Any:
    """p / q exactly (q != 0): an int when q divides p, else a Fraction (one normalisation for two ints)."""
    if type(p) is int and type(q) is int:
        return p // q if p % q == 0 else Fraction(p, q)
    return num(Fraction(p) / q)


def _mean_ratio(pairs: list) -> Any:
    """The exact mean of p / q over (p, q) pairs, through one common denominator when all are integers."""
    if all(type(p) is int and type(q) is int for p, q in pairs):
        den = math.lcm(*[q for _, q in pairs])
        return _ratio(sum([p * (den // q) for p, q in pairs]), den * len(pairs))
    return _mean([_ratio(p, q) for p, q in pairs])


# ------------------------------------------------------------------ appendix G bounds
def _const_duration(world, expr) -> Any:
    e = expr.xreplace(world.consts)
    e = e.xreplace({f: sympy.Integer(1) for f in e.atoms(ir.Count, ir.AttrRef)})    # count(...), x.attr
    e = e.xreplace({f: sympy.Integer(0) for f in e.atoms(ir.Dist)})
    if e.free_symbols:
        return None
    return num(ir.to_fraction(sympy.nsimplify(e)))


def _assigns(effects, attr):
    """(value, condition formula context) of assignments to ``attr`` in (possibly nested) effects."""
    out = []
    for e in effects:
        e = getattr(e, "effect", e)
        if isinstance(e, ir.Assign) and e.target.name == attr and e.value.kind == "value":
            out.append((e.value.name, None))
        elif isinstance(e, ir.Forall):
            out.extend((v, e.formula) for v, _ in _assigns(e.effects, attr))
    return out


def _state_compares(f, attr, out: set) -> None:
    if isinstance(f, ir.Compare) and f.op == "==":
        for a, b in ((f.left, f.right), (f.right, f.left)):
            if a.kind == "attr" and a.name == attr and b.kind == "value":
                out.add(b.name)
    elif isinstance(f, (ir.And, ir.Or)):
        for x in f.args:
            _state_compares(x, attr, out)
    elif isinstance(f, ir.Exists):
        _state_compares(f.formula, attr, out)


def producers(world, kind: str, attr: str) -> list:
    """(from state, to state, time) steps that change ``attr`` of an object of ``kind``: actions (chop) and
    container processes whose container accepts the kind in the from state (frying in a pan)."""
    p = world.project
    steps: list[tuple] = []
    for a in p.actions.values():
        for value, _ in _assigns(a.effects, attr):
            froms: set = set()
            for c in a.conditions:
                _state_compares(c.formula, attr, froms)
            targets = [q for q in a.params if world.isa_type(kind, q.type)]
            d = _const_duration(world, a.duration)
            if targets and d is not None:
                steps.extend((s, value, d) for s in froms)
    for pr in p.processes.values():
        for value, formula in _assigns(pr.effects, attr):
            froms = set()
            _state_compares(formula if formula is not None else pr.condition, attr, froms)
            d = _const_duration(world, pr.duration)
            holders = [q.type for q in pr.params if q.type in world.statics.containers or
                       any(world.isa_type(q.type, c) for c in world.statics.containers)]
            for s in froms:
                if d is None:
                    continue
                if holders and not any(_accepts_kind(world, h, kind, attr, s) for h in holders):
                    continue
                steps.append((s, value, d))
    return steps


def _accepts_kind(world, container_type: str, kind: str, attr: str, state: str) -> bool:
    for t in world.ancestors.get(container_type, (container_type,)):
        spec = world.statics.containers.get(t)
        if spec is not None:
            return any(world.isa_type(kind, k) and (a is None or (a == attr and v == state)) for k, a, v in spec[0])
    return False


def ingredient_bound(world, kind: str, attr: Optional[str], value, d: int) -> tuple:
    """(time, distance) to fetch one ``kind`` and bring it to ``attr`` = ``value``: d to fetch, then d plus
    the processing time for each step of the cheapest chain of producers."""
    if attr is None:
        return d, d
    default = world.attr_defaults.get(attr)
    best = {default: (d, d)}
    frontier = [default]
    steps = producers(world, kind, attr)
    while frontier:
        nxt = []
        for s in frontier:
            t0, m0 = best[s]
            for a, b, dur in steps:
                if a == s and (b not in best or t0 + d + dur < best[b][0]):
                    best[b] = (t0 + d + dur, m0 + d)
                    nxt.append(b)
        frontier = nxt
    return best.get(value, (None, None))


def bounds(world) -> dict:
    """T_max and D_max of the scenario's orders (paper appendix G), on the scenario's own map."""
    d = world.map.width + world.map.height
    total_t, total_d = 0, 0
    for dish in world.orders:
        for kind, attr, value, count in dish.items:
            t, m = ingredient_bound(world, kind, attr, value, d)
            if t is None:
                return {"T_max": None, "D_max": None}
            total_t += count * (t + d)            # + d to put it on the plate
            total_d += count * (m + d)
        total_t += d                               # + d to serve
        total_d += d
    plates = sum(1 for s in world.map.stations if s.item is not None and any(
        world.isa_type(s.item, dish.container) for dish in world.orders))
    extra = max(0, len(world.orders) - plates)
    if extra:
        ret = _named(world, "RETURN")
        wash = _named(world, "WASH")
        total_t += extra * (d + (ret or 0) + d + (wash or 0))
        total_d += extra * 2 * d
    return {"T_max": num(total_t), "D_max": num(total_d)}


def paracook_bounds(world) -> dict:
    """T_max and D_max by the formula of ParaCook's code (restated, not copied): a constant 18 per move; per
    ingredient 2 + k moves, k the position of its target state in the state attribute's declared order (raw 0,
    chopped 1, cooked 2), plus the duration of the step that produces that state (CUT for chopped, the
    cookware's PAN or POT for cooked; an earlier chopping step is not counted); 1 move per dish to serve;
    2 moves + RETURN + WASH per dish beyond the first two (two plates assumed)."""
    d = 18
    total_t, total_d = 0, 0
    for dish in world.orders:
        for kind, attr, value, count in dish.items:
            k, step = 0, 0
            if attr is not None:
                a = world.project.attributes.get(attr)
                values = list(a.values) if a is not None and a.values else []
                k = values.index(value) if value in values else 0
                if k:
                    steps = [dur for _, to, dur in producers(world, kind, attr) if to == value]
                    if not steps:
                        return {"T_max": None, "D_max": None}
                    step = min(steps)
            total_t += count * ((2 + k) * d + step)
            total_d += count * (2 + k) * d
        total_t += d
        total_d += d
    extra = max(0, len(world.orders) - 2)
    if extra:
        total_t += extra * (2 * d + (_named(world, "RETURN") or 0) + (_named(world, "WASH") or 0))
        total_d += extra * 2 * d
    return {"T_max": num(total_t), "D_max": num(total_d)}


def _named(world, name: str):
    v = world.consts.get(sympy.Symbol(name))
    return None if v is None else num(ir.to_fraction(v))


# ------------------------------------------------------------------ one run
def run_metrics(result, bound: Optional[dict] = None) -> dict:
    w = result.world
    bound = bound or bounds(w)
    agents = w.agents
    budget, dist, util = {}, {}, []
    for a in agents:
        b = {"move": 0, "interact": 0, "process": 0, "wait": 0}
        last = 0
        walked = 0
        for _, _, surface, operator, start, end, distance in result.runs.get(a, ()):     # ActionRun fields, unpacked
            if operator is None:                         # Finish and other final surfaces
                continue
            cat = BUDGET.get(surface) or surface.lower()
            b[cat] = b.get(cat, 0) + (end - start)
            walked += distance or 0
            if end > last:
                last = end
        for cat, v in b.items():
            if type(v) is not int:
                b[cat] = num(v)
        last = num(last)
        budget[a] = b
        dist[a] = num(walked)
        b["_last"] = last
        util.append((last - b["wait"], last) if last else (0, 1))
    success = result.success
    end = result.oct if success else max([b["_last"] for b in budget.values()] + [0])
    for b in budget.values():
        b["idle"] = num(max(0, end - b.pop("_last")))
    md = _mean(list(dist.values())) if agents else 0
    t_max, d_max = bound["T_max"], bound["D_max"]
    return {
        "makespan": end, "success": success, "oct": result.oct if success else None,
        "served": len(result.served), "orders": result.orders_total,
        "T_max": t_max, "D_max": d_max,
        "poct": result.oct if success else t_max,
        "noct": _ratio(result.oct, t_max) if success and t_max else None,
        "md": md, "pmd": md if success else d_max,
        "utilisation": _mean_ratio(util) if util else None,
        "time_budget": budget, "distance": dist,
    }


# ------------------------------------------------------------------ a batch
def batch_metrics(runs: Iterable[dict]) -> dict:
    """Aggregate per-run metric dicts (as produced by ``run_metrics`` or a report's metrics)."""
    runs = list(runs)
    ok = [m for m in runs if m.get("success")]
    n = len(runs)

    def vals(key, rows):
        return [m[key] for m in rows if isinstance(m.get(key), (int, float, Fraction))]
    budget = {}
    for cat in ("move", "interact", "process", "wait", "idle"):
        per_run = []
        for m in ok:
            tb = m.get("time_budget") or {}
            if tb:
                per_run.append(num(Fraction(sum(Fraction(x.get(cat, 0)) for x in tb.values())) / len(tb)))
        budget[cat] = _mean(per_run)
    return {
        "runs": n, "successes": len(ok), "SR": num(Fraction(len(ok), n)) if n else None,
        "pOCT": _mean(vals("poct", runs)), "nOCT": _mean(vals("noct", ok)), "OCT": _mean(vals("oct", ok)),
        "pMD": _mean(vals("pmd", runs)), "MD": _mean(vals("md", ok)), "AU": _mean(vals("utilisation", ok)),
        "time_budget": budget,
    }
