"""JSON Schemas (draft 2020-12) of the valid plans of a scenario.

Input: an ``ir.Project`` and a scenario name (or a ``ProcedureProblem``).  Output: a JSON-serialisable
schema.  Step-level scenarios get a timed-schedule schema whose enums hold the real task names, each
task's step numbers (with the step texts and durations in descriptions) and the agents; tool scenarios
are delegated to ``chronoplan.validators.tools.schema.tool_plan_schema`` and grid kitchens (orders on a
map) to ``chronoplan.validators.kitchen.schema.paracook_plan_schema`` (ParaCook per-agent action lists).
The schema constrains shape and names; timing rules are checked by ``chronoplan validate``.
``strict_procedure_schema`` gives the strict form for LLM structured output (``strict_schema``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import ProcedureProblem, procedure_problem
from chronoplan.validators.families import family_of
from chronoplan.validators.strict_schema import StrictSchema, nullable, obj, strict_schema_for, with_description

if TYPE_CHECKING:
    from chronoplan.validators.strict_schema import StrictSchema

DRAFT = "https://json-schema.org/draft/2020-12/schema"


class SchemaUnavailable(LookupError):
    """No schema generator for this kind of scenario in this build."""


def _unit_text(unit: ir.TimeUnit) -> str:
    return "ticks" if unit.seconds is None else {"s": "seconds", "min": "minutes", "h": "hours"}[unit.label]


def _step_line(s) -> str:
    if s.occupancy is ir.Occupancy.CONTINUOUS:
        occ = "continuous"
    elif s.occupancy is ir.Occupancy.START:
        occ = "autonomous"
    else:
        occ = f"autonomous after the first {_num(s.occupy_for)}"
    extra = ", interruptible" if s.interruptible else ""
    return f"{s.index}: {s.text} ({_num(s.duration)}, {occ}{extra})"


def _num(x) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):g}"


def procedure_plan_schema(problem: ProcedureProblem) -> dict:
    """Schema of ``{"schedule": [{"task", "step", "start", "duration"?, "agent"?}]}`` for one scenario."""
    unit = _unit_text(problem.time_unit)
    branches = []
    for task in problem.tasks:
        steps = problem.task_steps(task)
        branches.append({
            "properties": {"task": {"const": task},
                           "step": {"enum": [s.index for s in steps],
                                    "description": f"steps of {task} (duration in {unit}): "
                                    + "; ".join(_step_line(s) for s in steps)}},
        })
    agents = list(problem.agents)
    action = {
        "type": "object",
        "required": ["task", "step", "start"] + (["agent"] if len(agents) > 1 else []),
        "properties": {
            "task": {"enum": list(problem.tasks), "description": "the task (recipe/procedure) name"},
            "step": {"type": "integer", "description": "the step number within the task"},
            "start": {"type": "number", "minimum": 0,
                      "description": f"start time in {unit} from the beginning of the plan"},
            "duration": {"type": "number", "exclusiveMinimum": 0,
                         "description": f"how long this action runs, in {unit}; omitted: the whole step. "
                         "Interruptible steps may be split into several actions whose durations add up"},
            "agent": {"enum": agents, "description": "the agent doing the action"
                      + (" (optional: there is one agent)" if len(agents) == 1 else "")},
        },
        "additionalProperties": False,
        "oneOf": branches,
    }
    schema = {
        "$schema": DRAFT,
        "$id": f"urn:chronoplan:plan:{problem.scenario}",
        "title": f"timed plan for scenario {problem.scenario}",
        "type": "object",
        "required": ["schedule"],
        "properties": {
            "scenario": {"const": problem.scenario},
            "schedule": {"type": "array", "minItems": len(problem.steps), "items": {"$ref": "#/$defs/action"}},
        },
        "additionalProperties": False,
        "$defs": {"action": action},
    }
    if problem.limit is not None:
        schema["description"] = f"every step must finish by {_num(problem.limit)} {unit}"
    return schema


def strict_procedure_schema(problem: ProcedureProblem) -> StrictSchema:
    """The strict form of ``procedure_plan_schema``: ``{"scenario", "schedule": [{"task", "step", "start",
    "duration", "agent"}]}`` with every key present (``duration`` null for the whole step; ``agent`` null
    only when there is one agent) and one ``anyOf`` branch per task holding that task's step numbers."""

    unit = _unit_text(problem.time_unit)
    agents = list(problem.agents)
    agent = {"type": "string", "enum": agents, "description": "the agent doing the action"}
    if len(agents) == 1:
        agent = nullable({**agent, "description": "the agent doing the action (null: the only agent)"})
    branches = []
    for task in problem.tasks:
        steps = problem.task_steps(task)
        branches.append(obj({
            "task": {"type": "string", "enum": [task], "description": "the task (recipe/procedure) name"},
            "step": {"type": "integer", "enum": [s.index for s in steps],
                     "description": f"steps of {task} (duration in {unit}): " + "; ".join(map(_step_line, steps))},
            "start": {"type": "number", "minimum": 0,
                      "description": f"start time in {unit} from the beginning of the plan"},
            "duration": {"type": ["number", "null"], "exclusiveMinimum": 0,
                         "description": f"how long this action runs, in {unit}; null: the whole step. "
                         "Interruptible steps may be split into several actions whose durations add up"},
            "agent": agent,
        }, title=task))
    summary = (f"Timed schedule for scenario {problem.scenario}: every step of every task once (interruptible "
               "steps possibly split), respecting the step order, time lags, resources and agents")
    if problem.limit is not None:
        summary += f"; every step must finish by {_num(problem.limit)} {unit}"
    summary += ". Those timing rules are checked by `chronoplan validate`; null fields read as absent."
    schema = obj({
        "scenario": {"type": "string", "enum": [problem.scenario]},
        "schedule": {"type": "array", "minItems": len(problem.steps),
                     "items": branches[0] if len(branches) == 1 else {"anyOf": branches}},
    })
    return StrictSchema(with_description(schema, f"timed plan for scenario {problem.scenario}", summary, ()), ())


def procedure_schema_for(project: ir.Project, scenario: str) -> dict:
    """``procedure_plan_schema`` of a step-level scenario of ``project`` (the registry's schema builder)."""
    return procedure_plan_schema(procedure_problem(project, project.scenario(scenario)))


def strict_procedure_schema_for(project: ir.Project, scenario: str) -> StrictSchema:
    """``strict_procedure_schema`` of a step-level scenario of ``project`` (the registry's strict builder)."""
    return strict_procedure_schema(procedure_problem(project, project.scenario(scenario)))


def schema_for(project: ir.Project, scenario: Optional[str] = None, strict: bool = False) -> dict:
    """The plan schema of a scenario (its family's builder, ``validators.families``); raises ``KeyError`` for
    an unknown scenario.  ``strict``: the form for LLM structured output (docs/schemas.md)."""
    if strict:
        return strict_schema_for(project, scenario).schema
    scen = project.scenario(scenario)
    return family_of(scen).schema(project, scen.name)
