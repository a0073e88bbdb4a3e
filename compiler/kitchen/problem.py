"""A grid-kitchen scenario instantiated in the compiler (``KitchenProblem``), next to ``ProcedureProblem``.

Input: a checked ``ir.Project`` and the name of a scenario with a map.  Output: ``KitchenProblem`` -- the
instance facts of the kitchen, computed once: the project part and scenario, the map and its geometry
(``KitchenGrid``: size, walls, station cells, floor cells, the floor neighbours of each floor cell and of
each station, walking distances by breadth-first search), the time unit and the scenario's constants
(overrides applied), the agents and their start cells, the type hierarchy (``ancestors``, ``isa_type``), the
relation roles, the attribute defaults as written, the orders (``Order``: per recipe item its kind, state
attribute and value, count; ``state_attr`` finds the attribute) and the objects that start on stations
(``initial_items``, named as the simulator names them: ``plate1``, ``pan1``, ...).  Raises ``KitchenError``
for scenarios that are not grid kitchens, and for stations that start with items when no relation is
declared ``as placement`` (unless the caller reports that itself: ``check_placement=False``).

Read by the kitchen PDDL export (``compiler/pddl/kitchen.py``) and by the simulator's
``runtime.kitchen.world.World``, which builds one per scenario and compiles it into its fast structures
(``runtime.kitchen.geo.Grid`` from the ``KitchenGrid``, closures over the constants, the initial state from
the agents, start cells and initial items); neither derives these facts again.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Optional

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import constant_values, unit_factor
from chronoplan.compiler.kitchen.physics import literal

NO_PLACEMENT = "stations start with items ('with') but no relation is declared 'as placement'"


class KitchenError(ValueError):
    """The scenario cannot be instantiated as a grid kitchen."""


@dataclass(frozen=True)
class Order:
    name: str
    container: str
    items: tuple                               # ((kind, attr | None, value | None, count), ...)

    def describe(self) -> str:
        return ", ".join((f"{n} x " if n > 1 else "") + k + (f"@{v}" if attr else "") for k, attr, v, n in self.items)


class KitchenGrid:
    """The map's geometry: ``width``, ``height``, ``walls``, ``station_cell`` (station -> its cell), ``floor``
    (the cells neither wall nor station), ``neighbours`` (floor cell -> its 4-neighbour floor cells),
    ``adjacent`` (station -> the 4-neighbour floor cells from which it is used) and shortest walking
    distances (``bfs``: every distance from one cell; ``dist``: one distance, the maps cached in
    ``bfs_cache``)."""

    def __init__(self, m: ir.GridMap) -> None:
        self.width, self.height = m.width, m.height
        self.walls = frozenset(m.walls)
        self.station_cell = {s.name: (s.x, s.y) for s in m.stations}
        blocked = set(m.walls) | {(s.x, s.y) for s in m.stations}
        self.floor = floor = frozenset((x, y) for y in range(m.height) for x in range(m.width)
                                       if (x, y) not in blocked)
        self.neighbours = {c: tuple(n for n in _neighbours(*c) if n in floor) for c in floor}
        self.adjacent = {s.name: tuple(c for c in _neighbours(s.x, s.y) if c in floor) for s in m.stations}
        self.bfs_cache: dict = {}              # source cell -> {reachable cell: distance}

    def adjacent_cells(self, station: str) -> tuple:
        return self.adjacent.get(station, ())

    def dist(self, src, dst) -> Optional[int]:
        if src == dst:
            return 0 if src in self.floor else None
        d = self.bfs_cache.get(src)
        if d is None:
            d = self.bfs_cache[src] = self.bfs(src)
        return d.get(dst)

    def bfs(self, src) -> dict:
        """{cell reachable from ``src``: its walking distance} ({} when ``src`` is not a floor cell)."""
        if src not in self.floor:
            return {}
        dist = {src: 0}
        q = deque([src])
        nbrs = self.neighbours
        while q:
            cur = q.popleft()
            nd = dist[cur] + 1
            for n in nbrs[cur]:
                if n not in dist:
                    dist[n] = nd
                    q.append(n)
        return dist


def _neighbours(x: int, y: int):
    return ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))


class KitchenProblem:
    def __init__(self, project: ir.Project, scenario: str, *, check_placement: bool = True) -> None:
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
        if check_placement and self.initial_items and "placement" not in self.roles:
            raise KitchenError(NO_PLACEMENT)

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
        """((item, type, station), ...) of the stations that start with an item (``with T``), in map order; an
        item is named after its type and the first free number (the agents, the declared objects and the
        stations are named first)."""
        taken = set(self.agents) | set(self.project.objects) | {st.name for st in self.map.stations}
        counters: dict = {}
        out = []
        for st in self.map.stations:
            if st.item is None:
                continue
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
