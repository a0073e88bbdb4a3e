"""JSON Schema (draft 2020-12) of the ParaCook plans of a grid-kitchen scenario (orders on a map).

Input: an ``ir.Project`` and a scenario name (or ``ir.Scenario``).  Output: a schema dict usable as an LLM
structured-output schema.  A plan is ``{"plan": {"<agent>": [action, ...]}}`` (other top-level keys such as
"reasoning" allowed beside "plan") or the agents object itself, where only the reader's meta keys
(``kitchen.read.META_KEYS``) may stand beside the agents: the root is ``anyOf`` these two forms.  An
action is ``anyOf`` one branch per surface action of the domain (MoveTo, Interact, Process, Wait, Finish),
discriminated by ``{"action": {"const": name}}``; its fields are the surface's parameters: a cell is
``[x, y]`` (or ``{"x", "y"}``) with 0 <= x < width, 0 <= y < height; a number is within [0, 10^12]; a
station parameter is an ``enum`` of the map's stations of that kind (descriptions give each station's kind,
what a dispenser provides and its cell); an agent parameter is an ``enum`` of the scenario's agents.
Agents are the ``properties`` of the agents object (at least one, no others).

Agreement with the grader (tests/test_paracook_schema.py): a plan is accepted exactly when
``kitchen.read`` and the simulator's argument checks report no syntax, schema or unknown-name error, except
that the schema is deliberately stricter in four ways: cells lie on the map (off-map cells are E250 at run
time), numbers are not negative (E550 at run time for Wait), a name parameter holds a map station (the
simulator also parses the names of objects such as "plate1" and then fails with E253), and actions carry no
fields besides "action" and their parameters (the simulator ignores extra fields).  A top-level "scenario"
key must name this scenario.  Not expressible: the reader's cap of 100,000 actions over all agents (each
list is capped at that), and the physics (adjacency, holding, reachability), which ``chronoplan validate``
checks.

``strict_paracook_plan_schema`` gives the strict form for LLM structured output (``strict_schema``):
``{"scenario": S, "plan": {"<agent>": [action, ...]}}`` with every agent's list present (``[]`` for an idle
agent, which the grader reads as an absent list), actions as above and a cell always ``[x, y]``.
"""
from __future__ import annotations

from typing import Any

from chronoplan.compiler import ir
from chronoplan.validators.kitchen.read import MAX_ACTIONS, META_KEYS
from chronoplan.validators.schema import SchemaUnavailable
from chronoplan.validators.strict_schema import StrictSchema, obj, with_description

DRAFT = "https://json-schema.org/draft/2020-12/schema"
MAX_NUMBER = 10 ** 12          # runtime.kitchen.engine.MAX_NUMBER: larger numbers are E011/E010 at run time
class NotAKitchen(SchemaUnavailable):
    """The scenario has no map or no orders, so it has no ParaCook plans."""


def _ancestors(project: ir.Project, kind: str) -> tuple:
    """``kind`` and its supertypes (types and resource subtypes, as the kitchen runtime reads them)."""
    return project.ancestry().get(kind, (kind,))


def _station_text(st: ir.Station) -> str:
    provides = f" of {st.arg}" if st.arg else ""
    item = f" with a {st.item}" if st.item else ""
    return f"{st.name} ({st.kind}{provides}{item}) at [{st.x}, {st.y}]"


def _cell_schema(m: ir.GridMap) -> dict:
    x = {"type": "integer", "minimum": 0, "maximum": m.width - 1}
    y = {"type": "integer", "minimum": 0, "maximum": m.height - 1}
    return {
        "description": f"a floor tile [x, y] of the {m.width}x{m.height} map (x = column 0..{m.width - 1}, "
                       f"y = row 0..{m.height - 1}, y grows downward); stations and walls are not walkable",
        "anyOf": [
            {"type": "array", "prefixItems": [x, y], "items": False, "minItems": 2, "maxItems": 2},
            {"type": "object", "properties": {"x": x, "y": y}, "required": ["x", "y"],
             "additionalProperties": False},
        ],
    }


def _name_schema(project: ir.Project, m: ir.GridMap, agents: list, typ: str) -> dict | None:
    """The enum of names a parameter of type ``typ`` takes (None: no candidate on this map)."""
    if typ == "agent":
        return {"enum": list(agents), "description": "an agent"}
    stations = [st for st in m.stations if typ in _ancestors(project, st.kind)]
    if not stations:
        return None
    return {"enum": [st.name for st in stations],
            "description": f"a {typ} of the map: " + "; ".join(_station_text(st) for st in stations)}


def _branch(project: ir.Project, m: ir.GridMap, agents: list, surface: ir.Surface) -> dict | None:
    props: dict = {"action": {"const": surface.name}}
    for p in surface.params[1:]:
        if p.type == "cell":
            props[p.name] = {"$ref": "#/$defs/cell"}
        elif p.type == "number":
            props[p.name] = {"type": "number", "minimum": 0, "maximum": MAX_NUMBER,
                             "description": f"{p.name} (a number in the scenario's time unit)"}
        else:
            names = _name_schema(project, m, agents, p.type)
            if names is None:
                return None                       # no station of this kind: the action can never run
            if p.type != "agent" and names["enum"] == [st.name for st in m.stations]:
                props[p.name] = {"$ref": "#/$defs/station"}
            else:
                props[p.name] = names
    branch = {"type": "object", "title": surface.name, "properties": props,
              "required": ["action"] + [p.name for p in surface.params[1:]], "additionalProperties": False}
    if surface.final:
        branch["description"] = "ends the agent's plan (later actions are ignored)"
    return branch


def paracook_plan_schema(project: ir.Project, scenario: Any = None) -> dict:
    """The JSON Schema of ParaCook plans for the grid-kitchen ``scenario`` (see the module docstring).

    Raises ``NotAKitchen`` (a ``schema.SchemaUnavailable``) when the scenario has no map or no orders, ``KeyError`` for
    an unknown scenario."""
    scen = scenario if isinstance(scenario, ir.Scenario) else project.scenario(scenario)
    part = project.part(scen.name)
    if scen.map is None or not scen.orders or scen.map not in part.maps:
        raise NotAKitchen(f"scenario {scen.name} is not a grid kitchen (no map or no orders)")
    m = part.maps[scen.map]
    agents = [a.name for a in scen.agents]
    branches = [b for b in (_branch(part, m, agents, s) for s in part.surfaces.values()) if b is not None]
    actions_ref = {"$ref": "#/$defs/actions"}
    agent_props = {a: actions_ref for a in agents}
    starts = ", ".join(f"{a.name} at [{a.pos[0]}, {a.pos[1]}]" for a in scen.agents if a.pos is not None)
    surfaces = ", ".join(part.surfaces)
    bare_props: dict = {k: {} for k in META_KEYS}
    bare_props["scenario"] = {"const": scen.name}
    bare_props.update(agent_props)
    defs: dict[str, Any] = {
        "agents": {"type": "object", "description": "each agent's action list",
                   "properties": agent_props, "additionalProperties": False, "minProperties": 1},
        "actions": {"type": "array", "maxItems": MAX_ACTIONS, "items": {"$ref": "#/$defs/action"}},
        "action": {"anyOf": branches} if branches else {"not": {}},
        "cell": _cell_schema(m),
    }
    if m.stations:
        defs["station"] = {"enum": [st.name for st in m.stations], "description": "a station of the map: "
                           + "; ".join(_station_text(st) for st in m.stations)}
    return {
        "$schema": DRAFT,
        "$id": f"urn:chronoplan:paracook:{scen.name}",
        "title": f"ParaCook plan for scenario {scen.name}",
        "description": f"Per-agent action lists ({surfaces}); each agent's actions run back to back, all "
                       f"agents at once from time 0. Orders, served in this order: {', '.join(scen.orders)}. "
                       f"Map {m.width}x{m.height}" + (f"; agents start {starts}" if starts else "") + ".",
        "anyOf": [
            {"type": "object", "title": "with a plan key",
             "properties": {"plan": {"$ref": "#/$defs/agents"}, "scenario": {"const": scen.name}},
             "required": ["plan"]},
            {"type": "object", "title": "the agents object itself", "properties": bare_props,
             "additionalProperties": False, "anyOf": [{"required": [a]} for a in agents]},
        ],
        "$defs": defs,
    }


grid_plan_schema = paracook_plan_schema


# ------------------------------------------------------------------------------------ strict form
STRICT_MOVED = (
    "the \"plan\" wrapper is the only root form: the bare agents object and the meta keys (reasoning, CoT ...) "
    "are not offered, and neither is the {\"x\", \"y\"} cell form",
)


def _strict_cell(m: ir.GridMap) -> tuple[dict, tuple[str, ...]]:
    """``[x, y]`` as an array of two integers, each within the larger side (the strict subset has no
    per-position item schemas): the per-axis bound is moved to the validator unless the map is square."""
    side = max(m.width, m.height)
    cell = {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "integer", "minimum": 0,
                                                                     "maximum": side - 1},
            "description": _cell_schema(m)["description"]}
    if m.width == m.height:
        return cell, ()
    return cell, (f"a cell's x below {m.width} and y below {m.height} (the schema bounds both by {side - 1}; an "
                  "off-map cell is E250)",)


def _strict_branch(branch: dict) -> dict:
    """A plain action branch in the strict subset (one-value enums for consts, the strict cell)."""
    props = {}
    for name, p in branch["properties"].items():
        if "const" in p:
            p = {"type": "string", "enum": [p["const"]]}
        elif "enum" in p:
            p = {"type": "string", **p}
        props[name] = p
    extra = {k: branch[k] for k in ("title", "description") if k in branch}
    return obj(props, **extra)


def strict_paracook_plan_schema(project: ir.Project, scenario: Any = None) -> StrictSchema:
    """The strict form of ``paracook_plan_schema`` (see the module docstring); raises ``NotAKitchen`` as it does."""
    plain = paracook_plan_schema(project, scenario)
    scen = scenario if isinstance(scenario, ir.Scenario) else project.scenario(scenario)
    part = project.part(scen.name)
    m = part.maps[scen.map]
    agents = [a.name for a in scen.agents]
    cell, cell_moved = _strict_cell(m)
    branches = [_strict_branch(b) for b in plain["$defs"]["action"].get("anyOf", [])]
    defs: dict = {"cell": cell}
    if "station" in plain["$defs"]:
        defs["station"] = {"type": "string", **plain["$defs"]["station"]}
    if branches:
        actions = {"type": "array", "maxItems": MAX_ACTIONS, "items": {"$ref": "#/$defs/action"}}
        defs["action"] = {"anyOf": branches} if len(branches) > 1 else branches[0]
    else:
        actions = {"type": "array", "maxItems": 0, "items": {"type": "null"}, "description": "no action can run"}
    plan = obj({a: actions for a in agents}, description="each agent's action list ([] for an idle agent)")
    schema = obj({"scenario": {"type": "string", "enum": [scen.name]}, "plan": plan})
    schema["$defs"] = defs
    moved = STRICT_MOVED + cell_moved
    summary = (plain["description"] + " Adjacency, holding, reachability and the orders are checked by "
               "`chronoplan validate`.")
    return StrictSchema(with_description(schema, plain["title"], summary, moved), moved)
