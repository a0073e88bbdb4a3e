"""What each operator of an action-based kitchen physics does, read from its declarations (issue #12 item 3).

Input: an ``ir.Project`` part whose relations declare the roles ``holding``, ``placement`` and
``containment`` (``relation on(item, station) as placement``).  Output: ``Physics`` -- per operator its
``Shape`` (``kind``: move, wait, take, dispense, pick, put, add, scoop, transfer, process, serve, discard;
which parameter is the agent, the station, the item, the container, the new object), and the station and item
types the physics gives a part to: dispensers (the ``from`` station of a new object), heat sources (the
station a process requires its container on), plate returns (where a delayed effect puts an object), cooking
containers (process parameters) and served containers (recipes).  Nothing here depends on the spelling of an
operator or a type: a consistently renamed physics has the same shapes.  ``shape_error`` explains an operator
that fits none of the shapes (the kitchen export reports it as P010).  Used by ``compiler/pddl/kitchen.py``.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Optional

from chronoplan.compiler import builtins, ir

KINDS = ("move", "wait", "take", "dispense", "pick", "put", "add", "scoop", "transfer", "process", "serve",
         "discard")


def conjuncts(f: Optional[ir.Formula]) -> list[ir.Formula]:
    """The conjuncts of a formula (nested ``and`` flattened, ``true`` left out)."""
    if f is None:
        return []
    if isinstance(f, ir.And):
        return [c for a in f.args for c in conjuncts(a)]
    if isinstance(f, ir.Const_) and f.value:
        return []
    return [f]


def literal(text: str, attr: Optional[ir.Attribute] = None):
    """An attribute value written in the source: True/False for bool attributes, else the text (numbers
    are not state values in kitchens)."""
    if attr is not None and attr.kind == "bool" or text in ("true", "false", "True", "False"):
        if text in ("true", "True"):
            return True
        if text in ("false", "False"):
            return False
    return text


@dataclass(frozen=True)
class Shape:
    """One operator: its ``kind`` and the parameter names playing each part (None: not there)."""

    kind: str
    agent: Optional[str] = None
    station: Optional[str] = None
    item: Optional[str] = None          # the ingredient / object moved
    container: Optional[str] = None     # the container receiving it (add, scoop, dispense), the held one
    other: Optional[str] = None         # transfer: the container on the station; serve: the return station
    new: Optional[str] = None           # take/dispense: the created object
    source: Optional[str] = None        # take/dispense: the station it comes from


class Physics:
    def __init__(self, p: ir.Project) -> None:
        self.p = p
        roles = {r.role: r.name for r in p.relations.values() if r.role}
        self.holding, self.placement, self.containment = (roles.get(k) for k in ("holding", "placement",
                                                                                 "containment"))
        self.shapes: dict = {}
        self.errors: dict = {}
        for a in p.actions.values():
            try:
                self.shapes[a.name] = self._shape(a)
            except ValueError as exc:
                self.errors[a.name] = str(exc)
        self.dispenser_types = {self.types(a)[s.source] for a, s in self.each("take", "dispense")}
        self.return_types = {self.types(a)[s.other] for a, s in self.each("serve") if s.other}
        self.cooking_types = [pr.params[0].type for pr in p.processes.values() if pr.params]
        self.heat_types = {t for pr in p.processes.values() for t in self.heat_of(pr)}
        self.served_types = {r.container for r in p.recipes.values()}

    # ------------------------------------------------------------------ queries
    def each(self, *kinds: str) -> list:
        """(action, shape) of the operators of these kinds, in declaration order."""
        return [(self.p.actions[n], s) for n, s in self.shapes.items() if s.kind in kinds]

    def first(self, kind: str):
        got = self.each(kind)
        return got[0] if got else (None, None)

    @staticmethod
    def types(a: ir.Action) -> dict:
        return {p.name: p.type for p in a.params}

    def heat_of(self, pr: ir.Process) -> list:
        """Station types a process needs its container on (``exists(s: T where on(p, s))``)."""
        out = []
        for c in conjuncts(pr.condition):
            if isinstance(c, ir.Exists) and isinstance(c.formula, ir.Atom) and \
                    c.formula.relation == self.placement and c.formula.args[1:] == (c.var,):
                out.append(c.type)
        return out

    # ------------------------------------------------------------------ shapes
    def _shape(self, a: ir.Action) -> Shape:
        agent = a.agents[0] if a.agents else None
        types = self.types(a)
        ends = [e.effect for e in a.effects if e.when is ir.When.END]
        conds = [c for cond in a.conditions if cond.when is ir.When.START for c in conjuncts(cond.formula)]
        adds = {e.atom.relation: e.atom.args for e in ends if isinstance(e, ir.AddFact)}
        dels = {e.atom.relation: e.atom.args for e in ends if isinstance(e, ir.DelFact)}
        held = [c.args[1] for c in conds if isinstance(c, ir.Atom) and c.relation == self.holding]
        stations = [p.name for p in a.params if p.name != agent and p.type not in ("cell", "number") and
                    not p.new and _is_station(self.p, p.type)]
        station = stations[0] if stations else None
        new = [p for p in a.params if p.new]
        if "cell" in types.values() and a.duration.atoms(ir.Dist):
            return Shape("move", agent)
        if not a.effects:
            return Shape("wait", agent)
        if _destroys(ends):
            return Shape("discard", agent, station)
        delayed = [e for e in ends if isinstance(e, ir.Delayed)]
        if delayed:
            back = [e.atom.args for d in delayed for e in d.effects
                    if isinstance(e, ir.AddFact) and e.atom.relation == self.placement]
            return Shape("serve", agent, station, container=held[0] if held else None,
                         other=back[0][1] if back else None)
        if new:
            n = new[0]
            if self.holding in adds:
                return Shape("take", agent, n.source, new=n.name, source=n.source)
            if self.containment in adds:
                return Shape("dispense", agent, n.source, container=adds[self.containment][1], new=n.name,
                             source=n.source)
        assigns = [e for e in ends if isinstance(e, ir.Assign)]
        if assigns and any(c.when is ir.When.ALL for c in a.conditions):
            return Shape("process", agent, station, item=assigns[0].target.arg)
        moves = [e for e in ends if isinstance(e, ir.Forall)]
        if moves and held:
            other = [p.name for p in a.params if p.name not in (agent, station, held[0])]
            return Shape("transfer", agent, station, item=moves[0].var, container=held[0],
                         other=other[0] if other else None)
        if self.holding in adds and self.placement in dels:
            return Shape("pick", agent, station, item=adds[self.holding][1])
        if self.placement in adds and self.holding in dels:
            return Shape("put", agent, adds[self.placement][1], item=adds[self.placement][0])
        if self.containment in adds and self.holding in dels:
            return Shape("add", agent, station, item=adds[self.containment][0], container=adds[self.containment][1])
        if self.containment in adds and self.placement in dels:
            return Shape("scoop", agent, station, item=adds[self.containment][0],
                         container=adds[self.containment][1])
        raise ValueError("its effects are none of: move, take or dispense a new object, pick up, put down, add to "
                         "or scoop into a container, move a container's contents, change an attribute on a "
                         "station, serve with a delayed effect, destroy")


def _is_station(p: ir.Project, typ: str) -> bool:
    return "station" in p.ancestry().get(typ, (typ,))


def _destroys(effects: Iterable[ir.Effect]) -> bool:
    for e in effects:
        if isinstance(e, ir.BuiltinEffect) and e.name == builtins.DESTROY.name:
            return True
        if isinstance(e, (ir.Forall, ir.Delayed)) and _destroys(e.effects):
            return True
    return False
