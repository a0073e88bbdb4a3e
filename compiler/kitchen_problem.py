"""A grid-kitchen scenario instantiated in the compiler (``KitchenProblem``), next to ``ProcedureProblem``.

Input: a checked ``ir.Project`` and the name of a scenario with a map.  Output: ``KitchenProblem`` -- the
project part and scenario, the map and its geometry (``KitchenGrid``: floor cells, the floor neighbours of
each station, walking distances by breadth-first search), the time unit and the scenario's constants
(overrides applied), the agents and their start cells, the type hierarchy (``ancestors``), the relation
roles, the attribute defaults, the orders (``Order``: per recipe item its kind, state attribute and value,
count) and the objects that start on stations (``initial_items``, named as the simulator names them:
``plate1``, ``pan1``, ...).  What the PDDL export needs, without the runtime's compiled operators; raises
``KitchenError`` for scenarios that are not grid kitchens.  The simulator's ``runtime.kitchen_world.World``
computes the same values (tests/test_kitchen_rename.py and tests/test_pddl_kitchen.py compare the exports).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Optional

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import constant_values, unit_factor
from chronoplan.compiler.kitchen_physics import literal


class KitchenError(ValueError):
    """The scenario cannot be instantiated as a grid kitchen."""


@dataclass(frozen=True)
class Order:
    name: str
    container: str
    items: tuple                               # ((kind, attr | None, value | None, count), ...)


class KitchenGrid:
    """Floor cells, station neighbourhoods (4-neighbour floor cells) and shortest walking distances."""

    def __init__(self, m: ir.GridMap) -> None:
        blocked = set(m.walls) | {(s.x, s.y) for s in m.stations}
        self.floor = frozenset((x, y) for y in range(m.height) for x in range(m.width) if (x, y) not in blocked)
        self._adj = {s.name: tuple(c for c in _neighbours(s.x, s.y) if c in self.floor) for s in m.stations}
        self._bfs: dict = {}

    def adjacent_cells(self, station: str) -> tuple:
        return self._adj.get(station, ())

    def dist(self, src, dst) -> Optional[int]:
        if src == dst:
            return 0 if src in self.floor else None
        d = self._bfs.get(src)
        if d is None:
            d = self._bfs[src] = self._from(src)
        return d.get(dst)

    def _from(self, src) -> dict:
        if src not in self.floor:
            return {}
        dist = {src: 0}
        q = deque([src])
        while q:
            cur = q.popleft()
            for n in _neighbours(*cur):
                if n in self.floor and n not in dist:
                    dist[n] = dist[cur] + 1
                    q.append(n)
        return dist


def _neighbours(x: int, y: int):
    return ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))


class KitchenProblem:
    def __init__(self, project: ir.Project, scenario: str) -> None:
        p = project.part(scenario)
        s = p.scenario(scenario)
        if s.map is None:
            raise KitchenError(f"scenario {s.name} is not a grid kitchen (no map)")
        self.project, self.scenario = p, s
        self.map = p.maps[s.map]
        self.grid = KitchenGrid(self.map)
        self.unit = s.time_unit
        self.consts = constant_values(p, s)
        self.consts.update(unit_factor(s.time_unit))
        self.agents = tuple(a.name for a in s.agents)
        self.start_pos = {a.name: a.pos for a in s.agents}
        self.ancestors = ancestors(p)
        self.roles = {r.role: r.name for r in p.relations.values() if r.role}
        self.attr_defaults = {n: (literal(a.default, a) if a.default is not None else None)
                              for n, a in p.attributes.items()}
        self.orders = tuple(self._order(p.recipes[o]) for o in s.orders)
        self.initial_items = self._initial_items()

    def isa_type(self, t: str, ancestor: str) -> bool:
        return ancestor in self.ancestors.get(t, (t, "object"))

    def state_attr(self, kind: str, value: Optional[str]):
        """The enum attribute of ``kind`` whose domain holds ``value`` (None: the first enum attribute, whose
        default is then the required value); (None, None) when ``kind`` has none."""
        for a in self.project.attributes.values():
            if a.kind != "enum" or not a.params or not self.isa_type(kind, a.params[0]):
                continue
            if value is None:
                return a.name, literal(a.default, a) if a.default is not None else None
            if value in a.values:
                return a.name, value
        return None, None

    def _order(self, r: ir.Recipe) -> Order:
        return Order(r.name, r.container, tuple((ing.name, *self.state_attr(ing.name, ing.state), ing.count)
                                                for ing in r.items))

    def _initial_items(self) -> tuple:
        """((item, type, station), ...) of the stations that start with an item (``with T``), in map order."""
        taken = set(self.agents) | set(self.project.objects) | {st.name for st in self.map.stations}
        counters: dict = {}
        out = []
        for st in self.map.stations:
            if st.item is None:
                continue
            if "placement" not in self.roles:
                raise KitchenError("stations start with items ('with') but no relation is declared 'as placement'")
            n = counters.get(st.item, 0)
            while True:
                n += 1
                name = f"{st.item}{n}"
                if name not in taken:
                    break
            counters[st.item] = n
            taken.add(name)
            out.append((name, st.item, st.name))
        return tuple(out)


def ancestors(p: ir.Project) -> dict:
    """type -> (type, parent, ..., "object"): ``ir.Project.ancestry``."""
    return p.ancestry()
