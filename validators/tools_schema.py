"""JSON Schema (draft 2020-12) of the tool plans of a scenario, in the DESIGN contract format.

Input: an ``ir.Project`` and a scenario (name, ``ir.Scenario`` or None for the only one).  Output: a
schema dict.  Contract: each element of ``steps`` is ``oneOf`` one branch per tool the scenario offers;
a branch is an object whose ``properties.tool`` is ``{"const": "<tool>"}`` and whose ``properties.args``
is an object schema with the tool's parameters as ``properties``, its required parameter names as
``required`` and ``additionalProperties: false``.  A parameter accepts a value of its type or a step
reference string (``$1.flight_id``, ``{step1.flight_id}``, ``<output of step 1>``; the schema's pattern
is a superset of the forms the grader reads).  Types: str string, int integer, number number, bool
boolean, date/time/datetime/iata/email strings with patterns (``format`` too for date and email),
enum ``enum``, list[T] array, any ``{}``.
"""
from __future__ import annotations

from typing import Any

from chronoplan.compiler import ir
from chronoplan.validators.tools_grade import offered_tools, scenario_today
from chronoplan.compiler.numparse import Problem, parse_int
from chronoplan.validators.tools_read import MAX_STEPS, value_to_json
from chronoplan.validators.tools_values import ref_value

DRAFT = "https://json-schema.org/draft/2020-12/schema"
REF_PATTERN = (r"\$\{\s*([Ss]tep[_ ]?)?[0-9]+(\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)?\s*\}"
               r"|\$[Ss]tep[_ ]?[0-9]+|\$[0-9]+\.[A-Za-z_]"
               r"|\{\{?\s*([Ss]tep[_ ]?)?[0-9]+(\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)?\s*\}"
               r"|<[^<>]*[Ss][Tt][Ee][Pp]\s*[0-9]+[^<>]*>")
PATTERNS = {
    "date": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
    "time": r"^([01]?[0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$",
    "datetime": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ]([01]?[0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?(\.[0-9]{1,6})?(Z|[+-][0-9]{2}:?[0-9]{2})?$",
    "iata": r"^[A-Z]{3}$",
    "email": r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$",
}


def type_schema(t: ir.ParamType) -> dict:
    """The JSON Schema of a parameter type (without the reference alternative)."""
    k = t.kind
    if k == "str":
        return {"type": "string"}
    if k == "int":
        return {"type": "integer"}
    if k == "number":
        return {"type": "number"}
    if k == "bool":
        return {"type": "boolean"}
    if k in PATTERNS:
        out: dict = {"type": "string", "pattern": PATTERNS[k]}
        if k in ("date", "email"):
            out["format"] = k
        return out
    if k == "enum":
        values: list[Any] = list(t.values)
        numbers = (parse_int(v, limit=10 ** 15) for v in t.values if v.strip() == v)
        values += [n for n in numbers if not isinstance(n, Problem) and n >= 0]
        return {"enum": values}
    if k == "list":
        return {"type": "array", "items": _param_schema(t.item or ir.ParamType("any"))}
    return {}


def _param_schema(t: ir.ParamType) -> dict:
    base = type_schema(t)
    if not base:
        return {}
    return {"anyOf": [base, {"$ref": "#/$defs/reference"}]}


def _tool_branch(tool: ir.Tool, today) -> dict:
    props = {}
    for p in tool.params:
        s = dict(_param_schema(p.type))
        s["description"] = f"{p.type}" + ("" if p.required else " (optional)")
        if p.default is not None:
            s["default"] = value_to_json(ref_value(p.default, today) if isinstance(p.default, ir.Value) else p.default)
        props[p.name] = s
    required = [p.name for p in tool.params if p.required]
    args = {"type": "object", "properties": props, "required": required, "additionalProperties": False}
    branch = {
        "type": "object",
        "title": tool.name,
        "properties": {
            "id": {"$ref": "#/$defs/id"},
            "tool": {"const": tool.name},
            "args": args,
            "after": {"type": "array", "items": {"$ref": "#/$defs/id"}, "uniqueItems": True},
            "description": {"type": "string"},
            "thought": {"type": "string"},
        },
        "required": ["tool"] + (["args"] if required else []),
        "additionalProperties": False,
    }
    if tool.app:
        branch["properties"]["app"] = {"const": tool.app}
    if tool.doc:
        branch["description"] = tool.doc
    return branch


def tool_plan_schema(project: ir.Project, scenario: Any = None) -> dict:
    """The JSON Schema of DESIGN-format tool plans for ``scenario`` (see the module docstring)."""
    scen = scenario if isinstance(scenario, ir.Scenario) else project.scenario(scenario)
    part = getattr(project, "part", None)
    if callable(part):
        project = part(scen.name)
    today = scenario_today(scen)
    tools = offered_tools(project, scen)
    branches = [_tool_branch(t, today) for t in tools.values()]
    return {
        "$schema": DRAFT,
        "$id": f"urn:chronoplan:tools:{scen.name}",
        "title": f"Tool plan for scenario {scen.name}",
        "description": (scen.query or "") + " Steps run in list order; \"after\" lists the ids of the steps "
                       "a step waits for.",
        "type": "object",
        "properties": {
            "scenario": {"const": scen.name},
            "steps": {"type": "array", "maxItems": MAX_STEPS, "items": {"$ref": "#/$defs/step"}},
        },
        "required": ["steps"],
        "additionalProperties": False,
        "$defs": {
            "id": {"type": "integer", "minimum": 0},
            "reference": {"type": "string", "pattern": REF_PATTERN,
                          "description": "the output of an earlier step, e.g. \"$1.flight_id\""},
            "step": {"oneOf": branches} if branches else {"not": {}},
        },
    }
