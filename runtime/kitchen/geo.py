"""Grid geometry for the kitchen simulator: walkable cells, station neighbourhoods and walking distances.

Input: the ``KitchenGrid`` of a ``compiler.kitchen.problem.KitchenProblem`` (its floor, walls, station cells,
floor neighbours and breadth-first search).  Output: ``Grid``, the structure the compiled closures and the
simulator read (``runtime.kitchen.world.World.grid``): ``walkable(cell)``, ``adjacent_cells(station)`` (the
4-neighbour floor cells from which a station can be used), ``is_adjacent(cell, station)``, ``what_is(cell)``
for messages and ``dist(src, dst)``: the length of a shortest 4-neighbour path over floor tiles (None when
unreachable).  Distances are exact integers; small maps cache a full breadth-first search per source cell (the
``KitchenGrid``'s, sharing its cache), large maps run A* (Manhattan heuristic, deepest-first ties) per pair,
cached.  Agents never block each other, so distances depend on the map only.
"""
from __future__ import annotations

import heapq
from typing import Optional

from chronoplan.compiler.kitchen.problem import KitchenGrid

FULL_BFS_LIMIT = 4096          # maps with at most this many floor cells cache full BFS maps per source


class Grid:
    def __init__(self, g: KitchenGrid) -> None:
        self.width, self.height = g.width, g.height
        self.floor = g.floor
        self.station_cell = g.station_cell
        self.walls = g.walls
        self._adj = g.adjacent
        self._adjset = {k: frozenset(v) for k, v in self._adj.items()}
        self._nbrs = g.neighbours
        self._bfs = g.bfs_cache
        self._bfs_from = g.bfs
        self._pairs: dict = {}
        self.full = len(self.floor) <= FULL_BFS_LIMIT

    def walkable(self, c) -> bool:
        return c in self.floor

    def adjacent_cells(self, station: str) -> tuple:
        return self._adj.get(station, ())

    def is_adjacent(self, cell, station: str) -> bool:
        return cell in self._adjset.get(station, ())

    def what_is(self, c) -> str:
        """A short description of a cell for messages (floor, wall, station NAME, outside the map)."""
        x, y = c
        if not (0 <= x < self.width and 0 <= y < self.height):
            return f"outside the {self.width}x{self.height} map"
        if c in self.walls:
            return "a wall"
        for name, cell in self.station_cell.items():
            if cell == c:
                return f"station {name}"
        return "a floor tile"

    def dist(self, src, dst) -> Optional[int]:
        if src == dst:
            return 0 if src in self.floor else None
        if self.full:
            d = self._bfs.get(src)
            if d is None:
                d = self._bfs[src] = self._bfs_from(src)
            return d.get(dst)
        key = (src, dst)
        if key not in self._pairs:
            self._pairs[key] = self._astar(src, dst)
        return self._pairs[key]

    def bfs_maps(self) -> Optional[dict]:
        """The cache behind ``dist`` on small maps: source cell -> {reachable cell: distance} (a source's map,
        once present, answers ``dist(source, c)`` as ``map.get(c)``); None on large maps (A* per pair)."""
        return self._bfs if self.full else None

    def dist_to_station(self, src, station: str) -> Optional[int]:
        best = None
        for c in self._adj.get(station, ()):
            d = self.dist(src, c)
            if d is not None and (best is None or d < best):
                best = d
        return best

    def _astar(self, src, dst) -> Optional[int]:
        if src not in self.floor or dst not in self.floor:
            return None
        tx, ty = dst
        g = {src: 0}
        heap = [(abs(src[0] - tx) + abs(src[1] - ty), 0, src)]
        nbrs = self._nbrs
        while heap:
            f, neg_g, cur = heapq.heappop(heap)
            gc = -neg_g
            if cur == dst:
                return gc
            if g.get(cur, gc) < gc:
                continue
            for n in nbrs[cur]:
                ng = gc + 1
                if ng < g.get(n, 1 << 60):
                    g[n] = ng
                    heapq.heappush(heap, (ng + abs(n[0] - tx) + abs(n[1] - ty), -ng, n))
        return None
