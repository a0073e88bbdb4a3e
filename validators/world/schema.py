"""The JSON Schema of plans for a world scenario (``chronoplan schema``), plain and strict.

Input: a compiled project and a world scenario.  Output: ``world_plan_schema`` -> the plain schema (a list of
action strings ``"(name arg ...)"`` or ``{"action", "args"}`` objects, or ``{"scenario", "plan": [...]}``);
``strict_world_plan_schema`` -> ``strict_schema.StrictSchema``: ``{"scenario", "plan": [{"action", "args"}]}``
with the action names and the objects as enums.  Preconditions, arities and the goal are checked by
``chronoplan validate``; ``schema.SchemaUnavailable`` (``NotAWorld``) for a scenario that is not a world.
"""
from __future__ import annotations

from typing import Any

from chronoplan.compiler import ir
from chronoplan.validators.schema import SchemaUnavailable
from chronoplan.validators.strict_schema import StrictSchema, obj, with_description
from chronoplan.validators.world.read import MAX_STEPS

MOVED = ("the number and types of each action's arguments", "preconditions and the goal")


class NotAWorld(SchemaUnavailable):
    """The scenario is not a world."""


def _world(project: ir.Project, scenario: Any) -> tuple[ir.Scenario, ir.Project]:
    scen = scenario if isinstance(scenario, ir.Scenario) else project.scenario(scenario)
    if scen.kind is not ir.ScenarioKind.WORLD:
        raise NotAWorld(f"scenario {scen.name} is not a world (it has no goal formula)")
    return scen, project.part(scen.name)


def _objects(part: ir.Project, scen: ir.Scenario) -> list[str]:
    return list(part.objects) + [o.name for o in scen.objects]


def world_plan_schema(project: ir.Project, scenario: Any = None) -> dict:
    scen, part = _world(project, scenario)
    action = {"anyOf": [
        {"type": "string", "pattern": r"^\s*\(?\s*[A-Za-z_][A-Za-z0-9_-]*(\s+[A-Za-z_][A-Za-z0-9_-]*)*\s*\)?\s*$",
         "description": "(name arg ...)"},
        {"type": "object", "required": ["action"], "additionalProperties": False,
         "properties": {"action": {"enum": list(part.actions)},
                        "args": {"type": "array", "items": {"enum": _objects(part, scen)}}}}]}
    steps = {"type": "array", "maxItems": MAX_STEPS, "items": action}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": f"chronoplan world plan for {scen.name}",
            "description": f"A sequence of actions of {', '.join(part.actions)} over the objects "
                           f"{', '.join(_objects(part, scen))}.",
            "anyOf": [steps, {"type": "object", "required": ["plan"],
                              "properties": {"scenario": {"enum": [scen.name]}, "plan": steps}}]}


def strict_world_plan_schema(project: ir.Project, scenario: Any = None) -> StrictSchema:
    plain = world_plan_schema(project, scenario)
    scen, part = _world(project, scenario)
    step = obj({"action": {"type": "string", "enum": list(part.actions)},
                "args": {"type": "array", "items": {"type": "string", "enum": _objects(part, scen)}}})
    schema = obj({"scenario": {"type": "string", "enum": [scen.name]},
                  "plan": {"type": "array", "items": step, "maxItems": MAX_STEPS}})
    return StrictSchema(with_description(schema, plain["title"], plain["description"], MOVED), MOVED)
