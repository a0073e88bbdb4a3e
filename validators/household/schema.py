"""JSON Schemas of household episode logs: what one line of a log may hold (issue #13).

Input: a compiled project and a household scenario.  Output: ``episode_schema(project, scenario)`` -- the JSON
Schema (draft 2020-12) of one line of the scenario's episode log (``runtime.household.log``): the header
(``scenario``, ``seed``, ``agents``, and optionally ``household``, ``syntax``, ``horizon``) or a step record
(``step`` below the horizon, ``actions`` / ``messages`` / ``observations`` keyed by the scenario's agents,
messages at most the scenario's limit, observation digests 64 hex digits) -- and
``strict_episode_schema(project, scenario)`` -> ``StrictSchema``: the step record in the strict subset for
LLM structured output (every field required, an agent without an action or message null), with the
constraints it cannot state listed (``moved``).  The action texts are free strings in both: the episode's
"available actions" change every step; ``chronoplan validate`` replays the log and checks them.
"""
from __future__ import annotations

from typing import Any

from chronoplan.compiler import ir
from chronoplan.compiler.household.problem import HouseholdProblem
from chronoplan.validators.strict_schema import StrictSchema, nullable, obj, with_description

DRAFT = "https://json-schema.org/draft/2020-12/schema"
DIGEST = "^[0-9a-f]{64}$"


def _problem(project: ir.Project, scenario: Any) -> HouseholdProblem:
    scen = scenario if isinstance(scenario, ir.Scenario) else project.scenario(scenario)
    return HouseholdProblem(project, scen)


def _per_agent(agents: tuple[str, ...], value: dict) -> dict:
    return {"type": "object", "properties": {a: value for a in agents}, "additionalProperties": False}


def episode_schema(project: ir.Project, scenario: Any = None) -> dict:
    """The plain schema of one log line (see the module docstring)."""
    p = _problem(project, scenario)
    action = {"type": "string", "description": "the action as written, in either syntax (C-WAH "
              "`[goexplore] <kitchen> (2)`, TDW-MAT `go grasp target object <apple1> (7)`)"}
    message = {"type": "string", "maxLength": p.message_limit}
    header = {"type": "object", "title": "header (the first line)", "required": ["scenario", "seed", "agents"],
              "properties": {"scenario": {"const": p.scenario}, "seed": {"const": p.seed},
                             "agents": {"type": "array", "items": {"enum": list(p.agents)},
                                        "minItems": len(p.agents), "maxItems": len(p.agents), "uniqueItems": True},
                             "household": {"const": p.household}, "syntax": {"enum": ["cwah", "tdw"]},
                             "horizon": {"const": p.horizon}}}
    record = {"type": "object", "title": "step record (one per step, in order)", "required": ["step", "actions"],
              "not": {"required": ["agents"]},
              "properties": {"step": {"type": "integer", "minimum": 0, "maximum": p.horizon - 1},
                             "actions": _per_agent(p.agents, action),
                             "messages": _per_agent(p.agents, message),
                             "observations": _per_agent(p.agents, {"type": "string", "pattern": DIGEST})}}
    return {"$schema": DRAFT, "$id": f"urn:chronoplan:household:{p.scenario}",
            "title": f"Episode log line of scenario {p.scenario}",
            "description": f"JSON Lines: the header, then one record per step (0 .. {p.horizon - 1}, increasing); "
                           f"agents {', '.join(p.agents)}; messages at most {p.message_limit} characters.",
            "oneOf": [header, record]}


def strict_episode_schema(project: ir.Project, scenario: Any = None) -> StrictSchema:
    """The step record in the strict subset (see the module docstring)."""
    p = _problem(project, scenario)
    moved = ("the header line ({\"scenario\", \"seed\", \"agents\"}) comes first and is not described here",
             f"a message is at most {p.message_limit} characters",
             "an observation digest is 64 hexadecimal digits",
             "steps increase from one record to the next")
    schema = obj({"step": {"type": "integer", "minimum": 0, "maximum": p.horizon - 1},
                  "actions": obj({a: nullable({"type": "string"}) for a in p.agents}),
                  "messages": nullable(obj({a: nullable({"type": "string"}) for a in p.agents})),
                  "observations": nullable(obj({a: nullable({"type": "string"}) for a in p.agents}))})
    return StrictSchema(with_description(schema, f"Episode log step record of scenario {p.scenario}",
                                         "One step of a household episode: each agent's action (null: none), "
                                         "message and observation digest.", moved), moved)
