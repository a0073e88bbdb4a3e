"""JSON Schema (draft 2020-12) of the tool plans of a scenario, in the DESIGN contract format.

Input: an ``ir.Project`` and a scenario (name, ``ir.Scenario`` or None for the only one).  Output: a
schema dict.  Contract: each element of ``steps`` is ``oneOf`` one branch per tool the scenario offers;
a branch is an object whose ``properties.tool`` is ``{"const": "<tool>"}`` and whose ``properties.args``
is an object schema with the tool's parameters as ``properties``, its required parameter names as
``required`` and ``additionalProperties: false``.  A parameter accepts a value of its type or a step
reference string (``$1.flight_id``, ``{step1.flight_id}``, ``<output of step 1>``; the schema's pattern
is a superset of the forms the grader reads).  Types: str string, int integer, number number, bool
boolean, date/time/datetime/iata/email strings with patterns (``format`` too for date and email),
enum ``enum``, list[T] array, any ``{}``.  A scenario offering APPs (apps with screens) adds one branch per
operation and app (``{"tool": "Tap", "args": {"app": "ctrip", "element": ...}}``, the elements that accept
the operation as the ``element`` enum; ``op_tools``), one ``Back`` branch and one ``Home`` branch.

``strict_tool_plan_schema`` gives the strict form for LLM structured output (``strict_schema``): every step key
present (``id``, ``app``, ``after``, ``description``, ``thought`` and optional parameters nullable, null read as
absent), one ``anyOf`` branch per tool, references in the contract's ``$N.field`` / ``${N}`` / ``${N.field}``
spellings only; ``STRICT_MOVED`` lists what the validator checks instead.
"""
from __future__ import annotations

import json
from typing import Any

from chronoplan.compiler import appops, ir
from chronoplan.compiler.numparse import NumberProblem, parse_int
from chronoplan.validators.strict_schema import StrictSchema, nullable, obj, one_of_values, with_description
from chronoplan.validators.tools.grade import offered_tools, scenario_today
from chronoplan.validators.tools.read import MAX_STEPS, value_to_json
from chronoplan.validators.tools.values import ref_value

DRAFT = "https://json-schema.org/draft/2020-12/schema"
REF_PATTERN = (r"\$\{\s*([Ss]tep[_ ]?)?[0-9]+(\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)?\s*\}"
               r"|\$[Ss]tep[_ ]?[0-9]+|\$[0-9]+\.[A-Za-z_]"
               r"|\{\{?\s*([Ss]tep[_ ]?)?[0-9]+(\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)?\s*\}"
               r"|<[^<>]*[Ss][Tt][Ee][Pp]\s*[0-9]+[^<>]*>")
PATTERNS = {
    "date": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
    "time": r"^([01]?[0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$",
    "datetime": (r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ]([01]?[0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?"
                 r"(\.[0-9]{1,6})?(Z|[+-][0-9]{2}:?[0-9]{2})?$"),
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
        values += [n for n in numbers if not isinstance(n, NumberProblem) and n >= 0]
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
    branch: dict[str, Any] = {
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


def op_tools(project: ir.Project, scen: ir.Scenario) -> list:
    """The APP operations of the scenario as tool signatures for the schema: Tap, Text and Swipe per offered
    APP (``app`` its name, ``element`` the enum of its elements accepting the operation), then one Back (app
    optional) and one Home."""
    apps = [project.apps[a] for a in scen.apps if a in project.apps and project.apps[a].has_ui]
    if not apps:
        return []
    out = []
    for op in ir.ELEMENT_OPS:
        base = appops.op_tool(op)
        for app in apps:
            names = tuple(e.name for e in app.elements if op in e.ops)
            params = []
            for p in base.params:
                if p.name == "app":
                    params.append(ir.ToolParam("app", ir.ParamType("enum", (app.name,)), True))
                elif p.name == "element":
                    if names:
                        params.append(ir.ToolParam("element", ir.ParamType("enum", names), p.required))
                    elif p.required:
                        break                           # no element of this app accepts the operation
                else:
                    params.append(p)
            else:
                doc = f"{base.doc} in app {app.name}" + (f" ({app.doc})" if app.doc else "")
                out.append(ir.Tool(base.name, None, tuple(params), (), doc))
    back = appops.op_tool(ir.AppOp.BACK)
    out.append(ir.Tool(back.name, None, (ir.ToolParam("app", ir.ParamType("enum", tuple(a.name for a in apps)),
                                                       False),), (), back.doc))
    out.append(appops.op_tool(ir.AppOp.HOME))
    return out


def tool_plan_schema(project: ir.Project, scenario: Any = None) -> dict:
    """The JSON Schema of DESIGN-format tool plans for ``scenario`` (see the module docstring)."""
    scen = scenario if isinstance(scenario, ir.Scenario) else project.scenario(scenario)
    part = getattr(project, "part", None)
    if callable(part):
        project = part(scen.name)
    today = scenario_today(scen)
    tools = offered_tools(project, scen)
    branches = [_tool_branch(t, today) for t in [*tools.values(), *op_tools(project, scen)]]
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


# ------------------------------------------------------------------------------------ strict form
STRICT_REF_PATTERN = r"^(\$[0-9]{1,9}\.[A-Za-z_][A-Za-z0-9_]*|\$\{[0-9]{1,9}(\.[A-Za-z_][A-Za-z0-9_]*)?\})$"
STRICT_MOVED = (
    "the ids in a step's \"after\" are distinct (the plain schema's uniqueItems; the grader reads a repeated "
    "id once, so a repeat changes no verdict)",
    "a parameter default is stated in the description only (the grader applies it to a null or absent "
    "parameter)",
    "a step reference is offered in the contract's spellings $N.field, ${N} and ${N.field}; the grader also "
    "reads {stepN.field}, {{N.field}}, <output of step N> and the other forms of docs/tools.md",
)


def _strict_param(t: ir.ParamType) -> dict:
    """A parameter value in the strict subset: its type's schema, or a reference unless a string holds one."""
    k = t.kind
    if k == "str":
        return {"type": "string"}
    if k == "enum":
        base = type_schema(t)
        base = one_of_values(base["enum"])
    elif k == "list":
        base = {"type": "array", "items": _strict_param(t.item) if t.item is not None else _strict_any()}
    elif k in ("int", "number", "bool") or k in PATTERNS:
        base = type_schema(t)
    else:
        return _strict_any()
    ref = {"$ref": "#/$defs/reference"}
    return {"anyOf": (base["anyOf"] if set(base) == {"anyOf"} else [base]) + [ref]}


def _strict_any() -> dict:
    return {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]}


def _strict_branch(tool: ir.Tool, today) -> dict:
    args = {}
    for p in tool.params:
        s = _strict_param(p.type)
        text = f"{p.type}"
        if not p.required:
            text += " (optional: null for none"
            if p.default is not None:
                default = value_to_json(ref_value(p.default, today) if isinstance(p.default, ir.Value) else p.default)
                text += f"; default {json.dumps(default, ensure_ascii=False)}"
            text += ")"
            s = nullable(s)
        args[p.name] = {**s, "description": text}
    props = {
        "id": {"type": ["integer", "null"], "minimum": 0,
               "description": "this step's id (null: its 1-based position)"},
        "tool": {"type": "string", "enum": [tool.name]},
    }
    if tool.app:
        props["app"] = nullable({"type": "string", "enum": [tool.app]})
    props["args"] = obj(args)
    props["after"] = {"type": ["array", "null"], "items": {"type": "integer", "minimum": 0},
                      "description": "ids of the steps this one waits for (null: none)"}
    props["description"] = {"type": ["string", "null"]}
    props["thought"] = {"type": ["string", "null"]}
    extra = {"title": tool.name}
    if tool.doc:
        extra["description"] = tool.doc
    return obj(props, **extra)


def strict_tool_plan_schema(project: ir.Project, scenario: Any = None) -> StrictSchema:
    """The strict form of ``tool_plan_schema`` (see the module docstring)."""
    scen = scenario if isinstance(scenario, ir.Scenario) else project.scenario(scenario)
    part = getattr(project, "part", None)
    if callable(part):
        project = part(scen.name)
    today = scenario_today(scen)
    branches = [_strict_branch(t, today) for t in [*offered_tools(project, scen).values(), *op_tools(project, scen)]]
    if not branches:
        steps = {"type": "array", "maxItems": 0, "items": {"type": "null"}, "description": "no tool is offered"}
    else:
        steps = {"type": "array", "maxItems": MAX_STEPS,
                 "items": branches[0] if len(branches) == 1 else {"anyOf": branches}}
    schema = obj({"scenario": {"type": "string", "enum": [scen.name]}, "steps": steps})
    schema["$defs"] = {"reference": {"type": "string", "pattern": STRICT_REF_PATTERN,
                                     "description": "the output of an earlier step, e.g. \"$1.flight_id\""}}
    summary = ((scen.query or "").strip() + " Steps run in list order; \"after\" lists the ids of the steps a "
               "step waits for; null fields read as absent. Dependencies, references and values are checked by "
               "`chronoplan validate`.").strip()
    return StrictSchema(with_description(schema, f"Tool plan for scenario {scen.name}", summary, STRICT_MOVED),
                        STRICT_MOVED)
