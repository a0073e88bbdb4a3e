"""The ``astar`` planner of ``chronoplan solve`` for household scenarios: the omniscient optimum (issue #13), by A*
or, for TDW-MAT-style transport episodes, by trip decomposition (``runtime.household.optimum``).

Input: a compiled project, a household scenario's name, a time limit in seconds and a worker count (unused:
the search is single-threaded).  Output: ``solve_astar(...)`` -> ``Solved`` (the interface of
``commands.solve``'s planners: ``status`` optimal | feasible | timeout | infeasible | error, ``makespan`` (the
optimum's steps), ``bound``, ``seconds``, ``message``, ``plan_json(scenario)``) plus ``report``: the verdict
of replaying the plan through an omniscient engine (``runtime.household.optimum.replay``), which
``commands.solve`` prints instead of grading it as an episode log -- the optimum knows every placement, so
graded under partial observability its first grab of a hidden thing would be a knowledge hallucination.

``solve_pddl(project, scenario, planner, timeout)`` is the household family's ``pddl_solve``
(``validators.families``): the classical planner (fast-downward; pyperplan has no action costs) runs on the
omniscient sequential relaxation (``compiler.pddl.household``), and its plan is played as an episode by
``runtime.household.sequence`` (agents in parallel where the plan's order allows); the result is ``feasible``,
never proven.

The plan JSON: ``{"scenario", "omniscient": true, "steps", "proven", "actions": {agent: [[start step, action
text], ...]}}`` (action texts in the scenario's syntax).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Optional

from chronoplan.compiler import ir
from chronoplan.compiler.household.problem import HouseholdError, HouseholdProblem
from chronoplan.compiler.pddl.common import ExportError
from chronoplan.compiler.pddl.household import export_household
from chronoplan.runtime.household.actions import render
from chronoplan.runtime.household.optimum import Method, optimum, replay
from chronoplan.runtime.household.sequence import play, to_steps
from chronoplan.runtime.planners.external import ENGINES, PlannerUnavailable, missing, run_worker, workspace
from chronoplan.validators.report import PlanError, Report


@dataclass(frozen=True)
class Solved:
    status: str
    makespan: Optional[Fraction]
    bound: Optional[Fraction]
    seconds: float
    message: str = ""
    actions: dict = field(default_factory=dict)
    proven: bool = False
    report: Optional[Report] = None
    planner: str = "astar"

    def plan_json(self, scenario: Optional[str] = None) -> dict:
        return {"scenario": scenario, "omniscient": True, "steps": None if self.makespan is None else
                int(self.makespan), "proven": self.proven, "actions": self.actions}


def solve_astar(project: ir.Project, scenario: str, timeout: float, workers: int = 1, **_: Any) -> Solved:
    """The omniscient optimum of the scenario's episode (see the module docstring)."""
    try:
        problem = HouseholdProblem(project, scenario)
    except HouseholdError as exc:
        return Solved("error", None, None, 0.0, str(exc))
    opt = optimum(problem, max_seconds=timeout)
    if opt.steps is None:
        status = "infeasible" if opt.proven else "timeout"
        why = ("no plan meets the goals before the horizon" if opt.proven
               else f"the search stopped after {opt.expanded} states ({opt.seconds:.1f} s)")
        return Solved(status, None, None, opt.seconds, why)
    engine = replay(problem, opt.plan)
    ok = engine.success and engine.t == opt.steps
    errors = () if ok else (PlanError("E730", f"the optimum's plan replayed through the omniscient engine ends at "
                                              f"step {engine.t} ({'success' if engine.success else 'goals unmet'}), "
                                              f"not in success at step {opt.steps}",
                                      "a bug in runtime/household/optimum.py"),)
    report = _report(problem, engine, errors, "<optimum>")
    actions = _actions(problem, opt.plan)
    note = "" if opt.proven else "the search stopped at a limit: not proven optimal"
    return Solved("optimal" if opt.proven else "feasible", Fraction(opt.steps),
                  Fraction(opt.steps) if opt.proven else None, opt.seconds,
                  note + f"{'; ' if note else ''}omniscient: every placement known; {opt.method.value}, {opt.expanded} "
                  f"{'states expanded' if opt.method == Method.ASTAR else 'table entries'}",
                  actions, opt.proven, report)


def _report(problem: HouseholdProblem, engine, errors: tuple, name: str) -> Report:
    metrics = {"makespan": engine.t, "success": engine.success, "steps": engine.t}
    return Report(not errors, name, problem.scenario, errors, metrics)


def _actions(problem: HouseholdProblem, plan: dict) -> dict:
    return {a: [[t, render(act, problem)] for t, act in steps] for a, steps in plan.items()}


def solve_pddl(project: ir.Project, scenario: str, planner: str, timeout: float = 60.0) -> Solved:
    """A classical planner's plan of the omniscient relaxation, played as an episode (module docstring);
    PlannerUnavailable when the planner is not installed."""
    why = missing(planner)
    if why is not None:
        raise PlannerUnavailable(why)
    if ENGINES[planner].temporal:
        return Solved("error", None, None, 0.0, f"{planner} is a temporal planner; the household export is "
                      "classical with action costs: --planner fast-downward", planner=planner)
    try:
        problem = HouseholdProblem(project, scenario)
        export = export_household(project, scenario)
    except (HouseholdError, ExportError) as exc:
        return Solved("error", None, None, 0.0, str(exc), planner=planner)
    with workspace(planner) as d:
        dom, prob = export.write(Path(d))
        outcome = run_worker(planner, dom, prob, timeout, Path(d))
    if outcome.status != "solved":
        status = outcome.status if outcome.status in ("timeout", "error") else "infeasible"
        return Solved(status, None, None, outcome.seconds, outcome.message, planner=planner)
    played = play(problem, to_steps(problem, export, outcome.actions))
    engine = played.engine
    errors: tuple = ()
    if played.error is not None or not engine.success:
        why = played.error or f"the goals do not hold after the plan (step {engine.t})"
        errors = (PlanError("E730", f"the {planner} plan of the omniscient relaxation played as an episode: {why}",
                            "a bug in runtime/household/sequence.py or compiler/pddl/household.py"),)
    note = (f"omniscient sequential relaxation solved by {planner} ({len(outcome.actions)} PDDL actions), "
            f"played with the agents in parallel where its order allows; not proven optimal")
    return Solved("feasible" if not errors else "error", Fraction(engine.t), None, outcome.seconds, note,
                  _actions(problem, played.plan), False, _report(problem, engine, errors, f"<{planner}>"),
                  planner=planner)
