"""``chronoplan solve`` on a world: a classical PDDL planner on the world's export, its plan back in the world's names.

Input: a compiled project, a world scenario, a planner name (a classical engine of
``runtime.planners.external.ENGINES``: fast-downward, pyperplan) and a time limit.  Output: ``WorldSolution``
(status feasible | unsolvable | timeout | error, ``makespan`` the number of steps, the plan as
``{"plan": ["(name arg ...)", ...]}``, which ``chronoplan solve`` then grades with ``chronoplan validate``'s
rules).  Never raises for planner failures; ``PlannerUnavailable`` when the engine is not installed or is
temporal.
"""
from __future__ import annotations

import time
from fractions import Fraction

from chronoplan.compiler import ir
from chronoplan.compiler.pddl.common import ExportError
from chronoplan.compiler.pddl.world import export_world, world_plan
from chronoplan.runtime.planners.external import run_classical, unsolved_status
from chronoplan.runtime.planners.solution import Solution


class WorldSolution(Solution):
    def body(self) -> dict:
        """The plan in the world format (``{"plan": [...]}``)."""
        return {"plan": list((self.plan or {}).get("plan", ()))}


def solve_world(project: ir.Project, scenario: str, planner: str, timeout: float = 60.0) -> WorldSolution:
    """``chronoplan solve --planner NAME`` on a world; never raises for planner failures (PlannerUnavailable when
    the engine is not installed or is temporal)."""
    t0 = time.perf_counter()
    try:
        export, outcome = run_classical(planner, lambda: export_world(project, scenario),
                                        "worlds are sequential (a classical export)", timeout)
    except ExportError as exc:
        return WorldSolution("error", None, None, None, time.perf_counter() - t0, planner, message=str(exc))
    seconds = time.perf_counter() - t0
    stats = {"engine_status": outcome.status, **outcome.info}
    if outcome.status != "solved":
        return WorldSolution(unsolved_status(outcome), None, None, None, seconds, planner, message=outcome.message,
                             stats=stats)
    text = "\n".join(f"({a.name} {' '.join(a.args)})".replace(" )", ")") for a in outcome.actions)
    plan = world_plan(export, text)
    return WorldSolution("feasible", Fraction(len(plan)), None, {"plan": plan}, seconds, planner,
                         message=f"{planner}: {len(plan)} steps", stats=stats)
