"""Grade ParaCook plans against grid-kitchen scenarios: plan -> kitchen simulator -> report.

Input: a compiled ``ir.Project``, the name of a kitchen scenario (orders on a map), a plan (text, decoded
JSON or ``kitchen.read.CookPlan``) and optionally ``compat`` (None: the paper's rules; a
``validators.compat.Compat`` member -- ``Compat.PARACOOK`` grades by the rules of ParaCook's own code, see
``runtime.kitchen.rules`` -- or a ``kitchen.rules.KitchenRules``).  Output: a ``report.Report`` with every
error (critic mode) or the first one (``first=True``) and the metrics of
``runtime.kitchen.metrics.run_metrics`` (success, OCT, makespan, pOCT/nOCT with T_max, MD/pMD with D_max,
utilisation, time budget per agent).  ``grade_grid_plan`` is the entry point ``validators.grade``
dispatches grid scenarios to.  Compiled worlds are cached per (project, scenario, rules), so grading many
plans compiles each scenario once per rule set.  Never raises on bad plans.
"""
from __future__ import annotations

import gc
from typing import Any, Optional

from chronoplan.compiler import ir
from chronoplan.runtime.compiled import note_fallback
from chronoplan.runtime.kitchen.engine import KitchenSim
from chronoplan.runtime.kitchen.metrics import bounds, paracook_bounds, run_metrics
from chronoplan.runtime.kitchen.rules import DEFAULT, Bounds, KitchenRules, rules_for
from chronoplan.runtime.kitchen.world import CompileFailure, World
from chronoplan.validators.kitchen.read import CookPlan, read_cook_plan
from chronoplan.validators.report import PlanError, Report, error_report

MAX_ERRORS = 1000
_CACHE: dict = {}


def world_for(project: ir.Project, scenario: str, rules: KitchenRules = DEFAULT) -> tuple:
    """(World, bounds) compiled once per project, scenario and rules; raises ``CompileFailure`` for a scenario
    the simulator cannot run (e.g. items on stations but no relation declared ``as placement``)."""
    key = (id(project), scenario) if rules is DEFAULT else (id(project), scenario, rules)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is project:
        return hit[1], hit[2]
    note_fallback()                              # once per process, and only after a failed compile at install
    w = World(project, scenario, rules)
    w.initial_state()               # built once here, so that a scenario the simulator cannot start fails here
    b = paracook_bounds(w) if rules.bounds is Bounds.PARACOOK_CODE else bounds(w)
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[key] = (project, w, b)
    return w, b


def _empty_metrics(world: Optional[World], b: Optional[dict]) -> dict:
    m = {"makespan": None, "success": False, "oct": None}
    if b:
        m.update({"T_max": b["T_max"], "D_max": b["D_max"], "poct": b["T_max"], "pmd": b["D_max"]})
    return m


def grade_grid_plan(project: ir.Project, scenario: str, plan: Any, fmt: Optional[str] = None, *,
                    plan_name: str = "<plan>", first: bool = False, compat: Any = None) -> Report:
    try:
        world, b = world_for(project, scenario, DEFAULT if compat is None else rules_for(compat))
    except (CompileFailure, KeyError) as exc:
        return error_report(plan_name, scenario, "E012", f"scenario {scenario} cannot be simulated: "
                            f"{exc}", "fix the scenario")
    if fmt not in (None, "paracook"):
        return error_report(plan_name, scenario, "E012", f"a {fmt} plan cannot be graded against the "
                            f"grid kitchen {scenario}", "write per-agent action lists (ParaCook format)",
                            _empty_metrics(world, b))
    paused = gc.isenabled()
    if paused:                      # a grade allocates many short-lived dicts and tuples but no reference cycles
        gc.disable()                # (tested): cyclic collections mid-grade would only re-scan them
    try:
        return _grade(world, b, plan, plan_name, first)
    except RecursionError:
        return Report(False, plan_name, scenario, (PlanError("E001", "the plan is nested too deeply",
                                                             "flatten it"),), _empty_metrics(world, b))
    finally:
        if paused:
            gc.enable()


def _grade(world: World, b: dict, plan: Any, name: str, first: bool) -> Report:
    read = plan if isinstance(plan, CookPlan) else read_cook_plan(plan)
    scen = world.scenario.name
    errors = list(read.errors)
    if read.fatal or (first and errors):
        return Report(False, name, scen, tuple(errors[:1] if first else errors), _empty_metrics(world, b))
    sim = KitchenSim(world, first=first, max_errors=MAX_ERRORS)    # memory stays bounded (errors_omitted)
    for agent, steps in read.steps.items():
        if agent not in sim.plan:
            errors.append(PlanError("E151", f"unknown agent {agent!r} ({len(steps)} actions "
                                    f"ignored)", f"the scenario's agents: {', '.join(world.agents)}", agent=agent))
            continue
        sim.add(agent, steps)
    if first and errors:
        return Report(False, name, scen, tuple(errors[:1]), _empty_metrics(world, b))
    sim.run()
    result = sim.result()
    errors += result.errors
    metrics = run_metrics(result, b)
    if errors:
        metrics["success"] = False
        metrics["oct"] = None
        metrics["poct"], metrics["noct"], metrics["pmd"] = b["T_max"], None, b["D_max"]
    if len(errors) + result.errors_dropped > MAX_ERRORS:
        metrics["errors_omitted"] = len(errors) + result.errors_dropped - MAX_ERRORS
        errors = errors[:MAX_ERRORS]
    if first:
        errors = errors[:1]
    return Report(not errors, name, scen, tuple(errors), metrics)


def grade_paracook(project: ir.Project, scenario: str, plan: Any, **kw) -> Report:
    """Convenience alias of ``grade_grid_plan``."""
    return grade_grid_plan(project, scenario, plan, kw.pop("fmt", None), **kw)
