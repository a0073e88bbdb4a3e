"""PDDL planners on grid kitchens: export, plan in a killed subprocess, map back, retime in the simulator.

Input: an ``ir.Project``, a kitchen scenario (map, agents, orders), a planner name (aries, kairos, lpg:
temporal export; fast-downward, pyperplan: classical export) and a time limit.  Output: ``KitchenSolution``
(status feasible|unsolvable|timeout|error, makespan = the simulator's OCT, the ParaCook plan
``{"plan": {agent: [actions]}}``, seconds, message) for ``chronoplan solve``.

Mapping back (``to_steps``): each PDDL action of an agent becomes its surface action (``move-dK`` ->
MoveTo the target cell, interactions -> Interact, chop/wash -> Process on the target station); cooking
actions have no agent and are dropped (the simulator cooks by itself).  Retiming (``retime``): the actions
are placed in the planner's order, each at the earliest simulator time that (1) is after the simulator end
of every action the planner finished before it started (temporal plans) or of every earlier action sharing
an object with it (classical plans, which are sequences), and (2) lets the simulator run it and everything
placed so far without an error and with every surface action carried out by the operator the planner
chose; the candidate times are the agent's free time, then the simulator's pending events (cooking done,
plates coming back, other agents finishing), then one unit later.  A ``Wait`` fills each gap.  So the PDDL
interaction tick (0 in the simulator) and the cooking that starts as soon as a pan is filled on the stove do
not stretch the plan, and the final plan is graded by the ordinary validator.

Variants (``solve_kitchen``): with a temporal engine and several agents the whole team and the first agent
alone are planned in parallel, Fast Downward runs three search configurations; the plan with the smaller
simulator OCT is kept.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Optional

from chronoplan.compiler import ir
from chronoplan.compiler.pddl.common import ExportError
from chronoplan.compiler.pddl.kitchen import export_kitchen
from chronoplan.compiler.pddl.plan import plan_text
from chronoplan.runtime.kitchen.engine import KitchenSim, KitchenStep
from chronoplan.runtime.kitchen.world import World
from chronoplan.runtime.planners.external import (
    ENGINES,
    PlannerUnavailable,
    missing,
    run_worker,
    unsolved_status,
    workspace,
)
from chronoplan.runtime.planners.solution import Solution

MAX_TRIES = 200                    # candidate start times per action before giving up
# Engine options for kitchens (bench/bench_kitchen_planners.py, docs/planners.md): kairos' default search
# times out on most two-order kitchens, its eager LAMA configuration solves them in seconds.  Fast Downward:
# on the 12 two-order kitchens no single configuration solves all within 30 s (lama-first, eager greedy FF
# and lazy greedy with the context-enhanced additive heuristic each miss others), so three run at once
# (``variants``).  No spaces: up-fast-downward splits a search configuration on them.
ENGINE_OPTIONS = {"kairos": {"search": "eager-lama"}}
FD_EAGER = {"fast_downward_search_config": "let(hff,ff(),eager_greedy([hff],preferred=[hff],cost_type=one))"}
FD_CEA = {"fast_downward_search_config": "let(hcea,cea(),lazy_greedy([hcea],preferred=[hcea],cost_type=one))"}


@dataclass(frozen=True)
class Variant:
    """One planner run of a portfolio: a label, the agents planned for (None: all), engine options."""

    label: str
    agents: Optional[tuple]
    options: Optional[dict]


def variants(planner: str, agents: tuple, temporal: bool, portfolio: bool) -> list:
    """The runs ``solve_kitchen`` makes at once: temporal engines on several agents also plan for the first
    agent alone; Fast Downward runs three search configurations, the third for the first agent alone."""
    base = Variant("all agents", None, ENGINE_OPTIONS.get(planner))
    if not portfolio:
        return [base]
    if temporal and len(agents) > 1:
        return [base, Variant(f"{agents[0]} only", (agents[0],), base.options)]
    if planner == "fast-downward":             # the one-agent run: a sequence for one agent is valid for all
        alone = (agents[0],) if len(agents) > 1 else None
        return [Variant("lama-first", None, None), Variant("lazy greedy cea", None, FD_CEA),
                Variant(f"{agents[0]} only, eager greedy FF" if alone else "eager greedy FF", alone, FD_EAGER)]
    return [base]


@dataclass(frozen=True)
class KitchenSolution(Solution):
    def body(self) -> dict:
        """The ParaCook plan: per-agent action lists."""
        return {"plan": self.plan or {}}


@dataclass(frozen=True)
class MappedStep:
    order: int                     # position in the planner's plan
    what: str                      # the physics operator or process it stands for
    agent: Optional[str]           # None: a world action (cooking), not part of the ParaCook plan
    action: Optional[dict]         # the ParaCook action
    start: Fraction                # planner time (PDDL units; a classical plan's position)
    end: Fraction
    objects: frozenset             # name-map keys of the stations and items it touches (("item", name), ...)


def to_steps(export, project: ir.Project, actions) -> tuple:
    """(steps, problems): the planner's actions as ``MappedStep`` values in plan order."""
    steps, problems = [], []
    surfaces = project.part(export.scenario).surfaces
    for k, a in enumerate(sorted(actions, key=lambda a: a.start)):
        info = export.actions.get(a.name)
        if info is None:
            problems.append(f"unknown PDDL action {a.name}")
            continue
        end = a.start + (a.duration or 0)
        keys = []
        for arg in a.args:
            try:
                keys.append(export.names.lookup(arg))
            except KeyError:
                problems.append(f"unknown PDDL object {arg} in {a.name}")
                keys.append(None)
        objs = frozenset(key for key in keys if key and key[0] in ("station", "item", "pool"))
        if info.surface is None:
            steps.append(MappedStep(k, info.operator, None, None, a.start, end, objs))
            continue
        agent, target = (keys[info.agent], keys[info.target]) if len(keys) > max(info.agent, info.target) else \
            (None, None)
        if not agent or agent[0] != "agent" or not target:
            problems.append(f"{a.name}: no agent or target among {a.args}")
            continue
        field_name = surfaces[info.surface].params[1].name if len(surfaces[info.surface].params) > 1 else "target"
        value = list(target[1]) if target[0] == "cell" else target[1]
        steps.append(MappedStep(k, info.operator, agent[1], {"action": info.surface, field_name: value}, a.start, end,
                                objs))
    return steps, problems


def _json_num(x: Fraction):
    return x.numerator if x.denominator == 1 else float(x)


def _simulate(world, out: dict, until=None):
    sim = KitchenSim(world)
    for agent, acts in out.items():
        sim.add(agent, [KitchenStep(i, a["action"], {k: v for k, v in a.items() if k != "action"})
                        for i, a in enumerate(acts)])
    sim.run(until)
    return sim


def _depends(classical: bool, y: MappedStep, x: MappedStep) -> bool:
    if classical:
        return y.agent == x.agent or bool(y.objects & x.objects)
    return y.end <= x.start


def _world_done(world, out: dict, t: Fraction, y: MappedStep) -> Fraction:
    """When the simulator completes the world step ``y`` (cooking, a plate coming back) that the planner
    started once the actions placed so far had ended (simulator time ``t``): the last pending event at ``t``
    on its objects (cooking) or the last pending delayed effect (plates)."""
    objs = {k[1] for k in y.objects if k[0] == "item"}
    plates = y.what not in world.project.processes          # a delayed effect (the served plate), not cooking
    later = [Fraction(when) for when, (what, key) in _simulate(world, out, until=t).pending_events()
             if (what == "proc" and key and objs & set(key[1])) or (what == "delay" and plates)]
    return max(later, default=t)


def _deviation(sim, runs: dict, meant: dict) -> Optional[str]:
    """Why the simulation differs from the planner's plan: an error, or a surface action carried out by
    another operator than the planner's (Interact picks the first applicable one), or None."""
    if sim.errors:
        return sim.errors[0].message
    for (agent, i), op in meant.items():
        r = runs.get((agent, i))
        if r is None or r.operator != op:
            return f"{agent}'s action {i} ran as {r.operator if r else 'nothing'}, the planner meant {op}"
    return None


def retime(world, steps: list, classical: bool) -> tuple:
    """(plan {agent: [ParaCook actions]}, None) or (partial plan, why it failed)."""
    out: dict[str, list] = {a: [] for a in world.agents}
    free = {a: Fraction(0) for a in world.agents}
    placed: list = []                              # (MappedStep, simulator end)
    meant: dict = {}                               # (agent, index in its list) -> the operator the planner chose
    for x in steps:
        after = max([end for y, end in placed if _depends(classical, y, x)
                     and (y.agent is not None or y.objects & x.objects)], default=Fraction(0))
        if x.agent is None:
            placed.append((x, _world_done(world, out, after, x)))
            continue
        if x.agent not in out:
            return out, f"the planner used an agent {x.agent!r} that the scenario does not have"
        base = _simulate(world, out)
        t = max(after, free[x.agent])
        ends = {Fraction(r.end) for rs in base.result().runs.values() for r in rs}
        pend = {Fraction(when) for when, _ in _simulate(world, out, until=t).pending_events()}
        events = sorted(e for e in ends | pend if e > t)
        first_error, tried = None, set()
        for _ in range(MAX_TRIES):
            trial = {a: list(v) for a, v in out.items()}
            acts = trial[x.agent]
            if t > free[x.agent]:
                acts.append({"action": "Wait", "duration": _json_num(t - free[x.agent])})
            acts.append(x.action)
            key = (x.agent, len(acts) - 1)
            sim = _simulate(world, trial)
            runs = {(a, r.index): r for a, rs in sim.result().runs.items() for r in rs}
            wrong = _deviation(sim, runs, {**meant, key: x.what})
            if wrong is None:
                out, meant[key] = trial, x.what
                free[x.agent] = Fraction(runs[key].end)
                placed.append((x, free[x.agent]))
                break
            first_error = first_error or wrong
            # the next event, else one time unit later (two agents at one instant go in scenario order, so
            # an action that must follow another agent's zero-duration action at that instant cannot)
            later = [e for e in events if e > t] or ([t + 1] if t + 1 not in tried else [])
            if not later:
                return out, f"{x.agent} {x.action}: {first_error}"
            tried.add(t)
            t = later[0]
        else:
            return out, f"{x.agent} {x.action}: no start time found ({first_error})"
    return out, None


def _run_variants(planner: str, runs: list, timeout: float, workdir: Path, run_worker) -> dict:
    """{index: outcome} of running every (export, engine options) pair at once (one worker each).  Once one has
    answered with a plan after t seconds, the others get until 2t (at most the time limit) and are then stopped,
    so a faster restricted run does not wait for a slow full one, nor throw away a full one about to answer."""
    import threading
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
    stops = [threading.Event() for _ in runs]

    def one(i):
        export, options = runs[i]
        dom, prob = export.write(workdir / f"v{i}")
        return i, run_worker(planner, dom, prob, timeout, workdir / f"v{i}", options, stops[i])

    results, start, until = {}, time.perf_counter(), None
    with ThreadPoolExecutor(max_workers=len(runs)) as pool:
        try:
            pending = {pool.submit(one, i) for i in range(len(runs))}
            while pending:
                left: Optional[float] = None if until is None else max(0.0, until - time.perf_counter())
                done, pending = wait(pending, timeout=left, return_when=FIRST_COMPLETED)
                for fut in done:
                    i, out = fut.result()
                    results[i] = out
                    if out.status == "solved" and until is None:
                        until = start + 2 * (time.perf_counter() - start)
                if until is not None and time.perf_counter() >= until:
                    for ev in stops:
                        ev.set()
        except BaseException:
            # Ctrl-C or SIGTERM reach the main thread only: stop every run, so that the worker threads
            # kill their engines at once (pool shutdown waits for them) instead of at the time limit
            for ev in stops:
                ev.set()
            raise
    return results


def _map_back(project, world, export, outcome, classical: bool) -> tuple:
    """(KitchenSimulation result or None, plan, steps, why not) for one solved outcome."""
    steps, problems = to_steps(export, project, outcome.actions)
    if problems:
        return None, None, steps, "; ".join(problems[:5])
    plan, why = retime(world, steps, classical)
    if why is not None:
        return None, plan, steps, f"the simulator rejects the planner's plan: {why}"
    res = _simulate(world, plan).result()
    return res, plan, steps, None if res.success else (res.errors[0].message if res.errors else
                                                        "orders not served")


def solve_kitchen(project: ir.Project, scenario: str, planner: str, timeout: float = 60.0,
                  portfolio: bool = True) -> KitchenSolution:
    """Export, plan, map back, retime, grade; never raises for planner failures (PlannerUnavailable when the
    engine is not installed).  ``portfolio``: make the runs of ``variants`` at once (with a temporal engine
    and several agents, the first agent alone as well: P018; a one-agent plan is valid for the whole team,
    and two-agent kitchens are much harder for the temporal engines) and keep the plan with the smaller OCT."""
    t0 = time.perf_counter()
    why = missing(planner)
    if why is not None:
        raise PlannerUnavailable(why)
    classical = not ENGINES[planner].temporal
    runs = variants(planner, tuple(a.name for a in project.scenario(scenario).agents), not classical, portfolio)
    try:
        exports = [export_kitchen(project, scenario, classical=classical, agents=v.agents) for v in runs]
    except ExportError as exc:
        return KitchenSolution("error", None, None, None, time.perf_counter() - t0, planner, str(exc))
    with workspace(planner) as d:
        outcomes = _run_variants(planner, [(e, v.options) for e, v in zip(exports, runs)], timeout, Path(d),
                                 run_worker)
    world = World(project, scenario)
    tried = []                                     # (OCT or None, variant, outcome, plan, steps, why)
    for k in sorted(outcomes):
        if outcomes[k].status == "solved":
            res, plan, steps, why = _map_back(project, world, exports[k], outcomes[k], classical)
            tried.append((res.oct if why is None else None, k, outcomes[k], plan, steps, why))
    good = sorted((t for t in tried if t[0] is not None), key=lambda t: (t[0], t[1]))
    best = good[0] if good else (tried[0] if tried else None)
    k = best[1] if best else 0
    outcome, export = outcomes[k], exports[k]
    stats = {"engine_status": outcome.status, **outcome.info, "variant": runs[k].label,
             "variants": {runs[i].label: o.status for i, o in sorted(outcomes.items())},
             "export_notes": sorted({x.code for x in export.diagnostics})}
    if best is None:
        status = unsolved_status(outcome)
        msg = outcome.message
        if status == "unsolvable":
            msg = (msg + "; " if msg else "") + "the export restricts the kitchen (" + \
                ", ".join(stats["export_notes"]) + "; docs/pddl.md)"
        return KitchenSolution(status, None, None, None, time.perf_counter() - t0, planner, msg, stats)
    oct_, _, _, plan, steps, why = best
    stats["pddl_plan"] = plan_text(outcome.actions)
    pddl_end = max((s.end for s in steps), default=Fraction(0)) / export.scale.factor
    msg = f"{planner} ({stats['variant']}): {len(outcome.actions)} PDDL actions" + \
        ("" if classical else f" (planner makespan {float(pddl_end):g})") + "; retimed in the simulator"
    if why is not None:
        return KitchenSolution("error", None, None, plan, time.perf_counter() - t0, planner, f"{msg}; but {why}",
                               stats)
    return KitchenSolution("feasible", oct_, None, plan, time.perf_counter() - t0, planner, msg, stats)
