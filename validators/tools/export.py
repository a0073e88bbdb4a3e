"""Write a scenario's reference plan as a tool plan in either supported format.

Input: an ``ir.Scenario`` with a ``reference`` block.  Output: JSON-ready data in the DESIGN contract
format (``{"steps": [{"id", "tool", "args", "after"}]}``) or in PlanningArena's step format (a
``GlobalThought`` and ``OrderSteps.StepDetail`` list whose ``Action`` strings are Python-literal calls;
references are written ``'$N.field'``; the wildcard ``_`` becomes an example value of the parameter's
type).  Used to show that every shipped reference plan grades as valid,
and as worked examples in docs/tools.md.
"""
from __future__ import annotations

from typing import Any, Optional

from chronoplan.compiler import ir
from chronoplan.validators.tools.grade import scenario_today
from chronoplan.validators.tools.read import value_to_json, value_to_literal
from chronoplan.validators.tools.values import ANY, ref_value

EXAMPLES = {"str": "any text", "int": 1, "number": 1, "bool": True, "time": "09:00", "datetime": "2025-01-01T09:00",
            "iata": "AAA", "email": "user@example.com", "list": (), "any": "any text"}


def _example(project: Optional[ir.Project], tool: str, name: str, today) -> Any:
    """A value standing for the reference wildcard ``_`` (typed when the project is given)."""
    t = project.tools.get(tool) if project is not None else None
    p = next((p for p in t.params if p.name == name), None) if t else None
    ptype = p.type if p is not None else None
    kind = ptype.kind if ptype is not None else "str"
    if ptype is not None and kind == "enum":
        return ptype.values[0]
    if kind == "date":
        return (today.isoformat() if today else "2025-01-01")
    return EXAMPLES.get(kind, "any text")


def _args(scen: ir.Scenario, call: ir.RefCall, project: Optional[ir.Project]) -> dict:
    today = scenario_today(scen)
    out = {}
    for name, v in call.args:
        x = ref_value(v, today)
        out[name] = _example(project, call.tool, name, today) if x is ANY else x
    return out


def reference_plan(scen: ir.Scenario, project: Optional[ir.Project] = None) -> dict:
    """The reference plan in the DESIGN contract format (``project`` types the wildcard ``_`` values)."""
    return {"scenario": scen.name,
            "steps": [{"id": c.id, "tool": c.tool, "args": value_to_json(_args(scen, c, project)),
                       "after": list(c.after)} for c in scen.reference]}


def reference_plan_arena(scen: ir.Scenario, project: Optional[ir.Project] = None) -> dict:
    """The reference plan in PlanningArena's format (one StepDetail entry per call, in order)."""
    details: list[Any] = []
    for _n, c in enumerate(scen.reference, 1):
        args = _args(scen, c, project)
        action = f"{c.tool}({value_to_literal(args)})"
        details.append({"StepNumber": c.id, "Description": f"call {c.tool}", "Action": action})
    return {"GlobalThought": scen.query or scen.name,
            "OrderSteps": {"TotalSteps": len(details), "StepDetail": details}}
