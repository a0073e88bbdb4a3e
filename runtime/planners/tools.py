"""Classical PDDL planners on tool-use scenarios: export, plan in a killed subprocess, map back.

Input: an ``ir.Project``, a tool-use scenario with a reference plan, a planner name (a classical engine of
``runtime.planners.external.ENGINES``: fast-downward, pyperplan) and a time limit.  Output: ``ToolSolution``
(status feasible|unsolvable|timeout|error, makespan and bound None: tool calls have no durations, the tool
plan in the tools format, seconds, message) for ``chronoplan solve`` (the family registry's ``pddl_solve``
of tool-use scenarios), which grades the plan with the tool grader.

Pipeline: ``compiler.pddl.tools.export_tools`` (the reference's calls are the goal), the engine in a
subprocess started in a new session with a hard time limit (``runtime.planners.external.run_worker``), and
``compiler.pddl.tools.to_tool_plan`` (one step per tool action in plan order, results as ``$N.field``,
``after`` from the reference's waits and the results consumed).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from chronoplan.compiler import ir
from chronoplan.compiler.pddl.common import ExportError
from chronoplan.compiler.pddl.plan import plan_text
from chronoplan.compiler.pddl.tools import export_tools, to_tool_plan
from chronoplan.runtime.planners.external import run_classical, unsolved_status
from chronoplan.runtime.planners.solution import Solution


@dataclass(frozen=True)
class ToolSolution(Solution):
    def body(self) -> dict:
        """The tool plan in the tools format (``{"steps"}``)."""
        return {"steps": list((self.plan or {}).get("steps", ()))}


def solve_tools(project: ir.Project, scenario: str, planner: str, timeout: float = 60.0) -> ToolSolution:
    """``chronoplan solve --planner NAME`` on a tool-use scenario; never raises for planner failures
    (PlannerUnavailable when the engine is not installed or is not a classical one)."""
    t0 = time.perf_counter()
    try:
        export, outcome = run_classical(planner, lambda: export_tools(project, scenario),
                                        "the tool-use export is classical", timeout)
    except ExportError as exc:
        return ToolSolution("error", None, None, None, time.perf_counter() - t0, planner, message=str(exc))
    notes = sorted({x.code for x in export.diagnostics})
    stats = {"engine_status": outcome.status, **outcome.info, "export_notes": notes}
    seconds = time.perf_counter() - t0
    if outcome.status != "solved":
        return ToolSolution(unsolved_status(outcome), None, None, None, seconds, planner, message=outcome.message,
                            stats=stats)
    stats["pddl_plan"] = plan_text(outcome.actions)
    back = to_tool_plan(export, outcome.actions)
    if back.plan is None:
        return ToolSolution("error", None, None, None, seconds, planner, message="; ".join(back.problems[:5]),
                            stats=stats)
    return ToolSolution("feasible", None, None, back.plan, seconds, planner,
                        message=f"{planner}: {len(outcome.actions)} PDDL actions, {back.calls} tool calls",
                        stats=stats)
