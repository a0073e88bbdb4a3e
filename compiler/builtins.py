"""The language's built-ins, declared once: types, expression functions, relations and effects.

Input: nothing (a table).  Output: frozen declarations, in the order the documentation and the messages list
them -- ``TYPES`` (the built-in type names), ``FUNCTIONS`` (``dist``, ``ceil``, ``floor``, ``maximum``,
``minimum``: arity, argument kinds, result dimension), ``RELATIONS`` (``adjacent``, ``at``, ``walkable``,
``reachable``, ``accepts``: parameter types), ``EFFECTS`` (``deliver``, ``destroy``), and for households
``HOUSEHOLD_TYPES`` (the types an observe rule ranges over) and ``OBSERVE_RELATIONS`` (``same_room``, ``inside``,
``on``, ``closed``, ``holds``, ``near``, ``explored``, ``is``).  The checker
(``check/checker.py``, ``check/expr.py``, ``check/actions.py``) reads names, arities and types here; the kitchen runtime
(``runtime/kitchen/logic.py``) and the kitchen exports recognise built-ins through this table, never through a
list of their own; the household checker (``check/household.py``) and the household runtime read the observe
relations here.  A relation declared in a domain with a built-in's name hides the built-in.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional

from chronoplan.compiler import ir

# the root, then the built-in types a domain builds on (``cell`` is a grid position ``[x, y]``)
TYPES = ("agent", "object", "number", "bool", "station", "item", "cell")


class ArgKind(enum.Enum):
    """What an argument of a built-in function must be."""

    PARAM = "parameter"         # a parameter of the action or process (an agent, a station or a cell)
    EXPR = "expression"         # any expression; all arguments of one call share a dimension


@dataclass(frozen=True)
class FunctionSpec:
    """A built-in expression function.  ``arity`` None: one or more arguments, each of ``args[0]``'s kind.
    ``result`` None: the dimension of the arguments (a time stays a time)."""

    name: str
    arity: Optional[int]
    args: tuple[ArgKind, ...]
    result: Optional[ir.Dim]
    doc: str

    def kind(self, i: int) -> ArgKind:
        return self.args[min(i, len(self.args) - 1)]


@dataclass(frozen=True)
class RelationSpec:
    """A built-in relation (a domain's own relations are ``ir.Relation``), tested (and for ``at`` also set) by
    the runtime instead of held as facts.
    ``params`` are the argument types (``object``: anything with a position: an agent, a station or a cell)."""

    name: str
    params: tuple[str, ...]
    doc: str

    @property
    def arity(self) -> int:
        return len(self.params)


@dataclass(frozen=True)
class EffectSpec:
    """A built-in effect (its use in an action is ``ir.BuiltinEffect``)."""

    name: str
    params: tuple[str, ...]
    doc: str

    @property
    def arity(self) -> int:
        return len(self.params)


DIST = FunctionSpec("dist", 2, (ArgKind.PARAM, ArgKind.PARAM), ir.Dim.NUMBER,
                "grid walking distance between an agent and a station or cell (``ir.Dist``)")
CEIL = FunctionSpec("ceil", 1, (ArgKind.EXPR,), None, "the smallest whole number not below the argument")
FLOOR = FunctionSpec("floor", 1, (ArgKind.EXPR,), None, "the largest whole number not above the argument")
MAXIMUM = FunctionSpec("maximum", None, (ArgKind.EXPR,), None, "the largest argument")
MINIMUM = FunctionSpec("minimum", None, (ArgKind.EXPR,), None, "the smallest argument")
FUNCTIONS: dict[str, FunctionSpec] = {f.name: f for f in (DIST, CEIL, FLOOR, MAXIMUM, MINIMUM)}

ADJACENT = RelationSpec("adjacent", ("object", "object"), "the two stand on 4-neighbouring cells of the map")
AT = RelationSpec("at", ("agent", "object"), "the agent is on the cell, or next to the station; as an effect, "
                                         "moves the agent to the cell")
WALKABLE = RelationSpec("walkable", ("cell",), "a floor cell of the map")
REACHABLE = RelationSpec("reachable", ("agent", "object"), "a floor path leads from the agent to the cell")
ACCEPTS = RelationSpec("accepts", ("object", "object"), "the container takes the object in its current state")
RELATIONS: dict[str, RelationSpec] = {r.name: r for r in (ADJACENT, AT, WALKABLE, REACHABLE, ACCEPTS)}

DELIVER = EffectSpec("deliver", ("object",), "serve the container against the scenario's current order")
DESTROY = EffectSpec("destroy", ("object",), "remove the object and every fact about it")
EFFECTS: dict[str, EffectSpec] = {e.name: e for e in (DELIVER, DESTROY)}


# ----------------------------------------------------------------------------- households
# the types of a household (``see v: T`` and ``exists(v: T where ...)`` in observe rules); a thing's declared
# type (``thing cupcake1: cupcake``) is a subtype of ``thing``
HOUSEHOLD_TYPES: dict[str, Optional[str]] = {     # type -> parent
    "object": None, "agent": "object", "room": "object", "thing": "object", "place": "object",
    "container": "place", "surface": "place", "basket": "place",
}

OBSERVE_RELATIONS: dict[str, RelationSpec] = {r.name: r for r in (
    RelationSpec("same_room", ("object", "object"), "the two are in the same room (a room is in itself; a "
                                                    "thing held by an agent is where the agent is)"),
    RelationSpec("inside", ("thing", "place"), "the thing is inside the container or basket"),
    RelationSpec("on", ("thing", "place"), "the thing is on the surface"),
    RelationSpec("closed", ("container",), "the container is closed"),
    RelationSpec("holds", ("agent", "object"), "the agent holds the thing or the basket"),
    RelationSpec("near", ("agent", "place"), "the agent stands at the place"),
    RelationSpec("explored", ("agent",), "the agent has looked all around its current room (TDW-MAT's "
                                         "360-degree turn) since it entered it"),
    RelationSpec("is", ("object", "object"), "the two names denote the same object"),
)}
