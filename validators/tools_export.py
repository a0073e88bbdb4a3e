"""Write a scenario's reference plan as a tool plan in either supported format.

Input: an ``ir.Scenario`` with a ``reference`` block.  Output: JSON-ready data in the DESIGN contract
format (``{"steps": [{"id", "tool", "args", "after"}]}``) or in PlanningArena's step format (a
``GlobalThought`` and ``OrderSteps.StepDetail`` list whose ``Action`` strings are Python-literal calls;
references are written ``'$N.field'``).  Used to show that every shipped reference plan grades as valid,
and as worked examples in docs/tools.md.
"""
from __future__ import annotations

from typing import Any

from chronoplan.compiler import ir
from chronoplan.validators.tools_grade import scenario_today
from chronoplan.validators.tools_read import value_to_json, value_to_literal
from chronoplan.validators.tools_values import ref_value


def _args(scen: ir.Scenario, call: ir.RefCall) -> dict:
    today = scenario_today(scen)
    return {name: ref_value(v, today) for name, v in call.args}


def reference_plan(scen: ir.Scenario) -> dict:
    """The reference plan in the DESIGN contract format."""
    return {"scenario": scen.name,
            "steps": [{"id": c.id, "tool": c.tool, "args": value_to_json(_args(scen, c)), "after": list(c.after)}
                      for c in scen.reference]}


def reference_plan_arena(scen: ir.Scenario) -> dict:
    """The reference plan in PlanningArena's format (one StepDetail entry per call, in order)."""
    details: list[Any] = []
    for n, c in enumerate(scen.reference, 1):
        args = _args(scen, c)
        action = f"{c.tool}({value_to_literal(args)})"
        details.append({"StepNumber": c.id, "Description": f"call {c.tool}", "Action": action})
    return {"GlobalThought": scen.query or scen.name,
            "OrderSteps": {"TotalSteps": len(details), "StepDetail": details}}
