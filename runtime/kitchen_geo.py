"""Grid geometry for kitchens: walkable cells, station neighbourhoods and walking distances.

Input: an ``ir.GridMap``.  Output: ``Grid`` with ``walkable(cell)``, ``adjacent_cells(station)`` (the
4-neighbour floor cells from which a station can be used) and ``dist(src, dst)``: the length of a shortest
4-neighbour path over floor tiles (None when unreachable).  Distances are exact integers; small maps cache
a full breadth-first search per source cell, large maps run A* (Manhattan heuristic, deepest-first ties)
per pair, cached.  Agents never block each other, so distances depend on the map only.
"""
from __future__ import annotations

import heapq
from collections import deque
from typing import Optional

from chronoplan.compiler import ir

FULL_BFS_LIMIT = 4096          # maps with at most this many floor cells cache full BFS maps per source


class Grid:
    def __init__(self, m: ir.GridMap) -> None:
        self.width, self.height = m.width, m.height
        blocked = set(m.walls) | {(s.x, s.y) for s in m.stations}
        self.floor = frozenset((x, y) for y in range(m.height) for x in range(m.width) if (x, y) not in blocked)
        self.station_cell = {s.name: (s.x, s.y) for s in m.stations}
        self.walls = frozenset(m.walls)
        self._adj = {s.name: tuple(c for c in neighbours(s.x, s.y) if c in self.floor) for s in m.stations}
        self._adjset = {k: frozenset(v) for k, v in self._adj.items()}
        self._nbrs = {c: tuple(n for n in neighbours(*c) if n in self.floor) for c in self.floor}
        self._bfs: dict = {}
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

    def _bfs_from(self, src) -> dict:
        if src not in self.floor:
            return {}
        dist = {src: 0}
        q = deque([src])
        nbrs = self._nbrs
        while q:
            cur = q.popleft()
            nd = dist[cur] + 1
            for n in nbrs[cur]:
                if n not in dist:
                    dist[n] = nd
                    q.append(n)
        return dist

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


def neighbours(x: int, y: int):
    return ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))
