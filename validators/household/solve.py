"""The ``astar`` planner of ``chronoplan solve`` for household scenarios: the omniscient optimum (issue #13), by A*
or, for TDW-MAT-style transport episodes, by trip decomposition (``runtime.household.optimum``).

Input: a compiled project, a household scenario's name, a time limit in seconds and a worker count (unused:
the search is single-threaded).  Output: ``solve_astar(...)`` -> ``Solved`` (the interface of
``commands.solve``'s planners: ``status`` optimal | feasible | timeout | infeasible | error, ``makespan`` (the
optimum's steps), ``bound``, ``seconds``, ``message``, ``plan_json(scenario)``) plus ``report``: the verdict
of replaying the plan through an omniscient engine (``runtime.household.optimum.replay``), which
``commands.solve`` prints instead of grading it as an episode log -- the optimum knows every placement, so
graded under partial observability its first grab of a hidden thing would be a knowledge hallucination.

The plan JSON: ``{"scenario", "omniscient": true, "steps", "proven", "actions": {agent: [[start step, action
text], ...]}}`` (action texts in the scenario's syntax).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional

from chronoplan.compiler import ir
from chronoplan.compiler.household.problem import HouseholdError, HouseholdProblem
from chronoplan.runtime.household.actions import render
from chronoplan.runtime.household.optimum import Method, optimum, replay
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
    metrics = {"makespan": engine.t, "success": engine.success, "steps": engine.t}
    report = Report(ok, "<optimum>", problem.scenario, errors, metrics)
    actions = {a: [[t, render(act, problem)] for t, act in steps] for a, steps in opt.plan.items()}
    note = "" if opt.proven else "the search stopped at a limit: not proven optimal"
    return Solved("optimal" if opt.proven else "feasible", Fraction(opt.steps),
                  Fraction(opt.steps) if opt.proven else None, opt.seconds,
                  note + f"{'; ' if note else ''}omniscient: every placement known; {opt.method.value}, {opt.expanded} "
                  f"{'states expanded' if opt.method == Method.ASTAR else 'table entries'}",
                  actions, opt.proven, report)
