"""The omniscient optimum of a transport episode by trip decomposition (issue #13, TDW-MAT-style homes).

Input: a ``HouseholdProblem``.  Output: ``trip_optimum(problem) -> (steps, proven, plan, expanded, seconds) | None``
(the fields of ``runtime.household.optimum.Optimum``: the least number of steps or None when the horizon is too
short, ``proven`` True, a plan per agent as ``(start step, Action)``, the number of table entries as
``expanded``), or None when the episode is outside the shape below (``optimum`` then runs its A*).

Shape: TDW syntax (``transport`` puts everything held on the goal place), every goal on that one place with no
capacity, every goal thing loose in a room or on a surface (no closed container to open), two hands, one or two
agents.  In the A* model of ``optimum.py`` such an episode decomposes:

- agents never interact: a put goes only onto the goal place or into a basket the agent holds, so the only
  shared things are the things and baskets themselves, which the agents split between them;
- an agent's work is a sequence of *segments*, each a walk that grabs some things and ends on the goal place,
  either with ``transport`` (everything held is delivered) or, while it holds a basket, by putting the thing in
  its other hand there and keeping the basket (the same cost: a walk and a step).  Delivering the things of
  one walk one by one costs at least as much, and so does keeping a thing in hand past the goal place.
  Without a basket a segment carries at most two things (Kind.NONE).  A basket is grabbed first, or second
  after one thing (Kind.GRAB), or is held from an earlier segment (Kind.HELD); every thing grabbed while it is
  held goes into it (a step each) except the last, which stays in hand, so a basket with f free places lets a
  segment carry f + 1 things.  A GRAB segment ending with ``transport`` and at most two things costs more
  than the same NONE segment.  A delivered basket lies on the goal place with its contents: one use each;
- walks obey the triangle inequality (``optimum.py``: walks go through entry points and ceil(a) + ceil(b) >=
  ceil(a + b)), so a segment's cost is the best order of its grab points, and delivering more things than the
  goals count never helps.

Tables (numpy, each entry a vector over the subsets B of the baskets the agent may still use):
``H[mode][R][B]`` the least steps to deliver the things R starting on the goal place, ``mode`` 0 with no
basket in hand or 1 + f with a basket of f free places (ending with it delivered); ``G_a[S][B]`` the same for
agent a from its start with no basket.  The optimum is ``G_a[W][all]`` for one agent and ``min over S of
max(G_a[S][B], G_b[W - S][all - B])`` for two, over the minimal sets W of things that meet the goals.  The
plan is read back from the tables; ``validators.household.solve`` replays it through the engine, and
tests/test_household_trips.py checks the result against the A* of ``optimum.py`` on episodes both solve.
"""
from __future__ import annotations

import enum
import itertools
import time
from dataclasses import dataclass
from typing import Optional

import numpy as np

from chronoplan.compiler.household.problem import HouseholdProblem
from chronoplan.compiler.ir import ActionSyntax
from chronoplan.runtime.household.actions import Action, ActKind

MAX_THINGS = 14            # 2^n subsets of the things
MAX_BASKETS = 8            # 2^m subsets of the baskets per table entry
_INF = 1 << 40
# (steps, proven, plan, expanded, seconds): optimum.Optimum's fields (optimum.py imports this module)
Result = tuple[Optional[int], bool, dict, int, float]


def applies(p: HouseholdProblem) -> bool:
    """Is the episode of the shape the decomposition is exact for (module docstring)?"""
    goal = p.goal_place
    if p.syntax != ActionSyntax.TDW or goal is None or p.hands != 2 or not 1 <= len(p.agents) <= 2:
        return False
    if any(g.where != goal for g in p.goals) or p.places[goal].capacity is not None:
        return False
    things = {x for th in p.goal_things for x in th}
    if len(things) > MAX_THINGS or len(p.baskets) > MAX_BASKETS:
        return False
    return all(p.placement[x] in p.rooms or p.placement[x] in p.surfaces for x in things)


class Kind(enum.Enum):
    """How a segment treats baskets: none held or grabbed, one grabbed on the way, or one held from before."""

    NONE = "none"
    GRAB = "grab"
    HELD = "held"


@dataclass(frozen=True)
class Segment:
    """One walk from ``start`` that grabs ``seq`` (things, and the basket for GRAB) and ends on the goal place:
    with ``transport`` (``keep`` False) or by putting the thing in hand there and keeping the basket."""

    start: str
    kind: Kind
    seq: tuple[str, ...]
    keep: bool


class _Tables:
    """Segment costs and the tables of one episode (module docstring)."""

    def __init__(self, p: HouseholdProblem) -> None:
        self.p = p
        self.goal = p.goal_place or ""
        things = sorted({x for th in p.goal_things for x in th})
        self.done0 = frozenset(x for x in things if p.placement[x] == self.goal)
        self.items = tuple(x for x in things if x not in self.done0)
        self.baskets = tuple(p.baskets)
        self.n, self.m = len(self.items), len(self.baskets)
        self.cap = tuple(p.places[b].capacity or 0 for b in self.baskets)
        self.cmax = max(self.cap, default=0)
        self.where = {x: self.point(x) for x in (*self.items, *self.baskets)}
        self.modes = 2 + self.cmax                # 0: no basket; 1 + f: a basket with f free places
        self.full = (1 << self.m) - 1
        sets = np.arange(1 << self.m, dtype=np.int64)
        # per basket row bi (row m: no basket): B -> B without bi, and whether B holds bi
        self.src = np.array([sets ^ (1 << bi) for bi in range(self.m)] + [sets], dtype=np.int64)
        self.valid = np.array([(sets >> bi & 1) == 1 for bi in range(self.m)] + [sets >= 0])
        self._cost: dict = {}
        self._moves: dict = {}

    def point(self, x: str) -> str:
        return x if x in self.baskets else self.p.placement[x]

    def names(self, mask: int) -> list[str]:
        return [self.items[i] for i in range(self.n) if mask >> i & 1]

    def cost(self, start: str, mask: int, kind: Kind, bi: int = -1) -> tuple[int, tuple[str, ...]]:
        """(steps, grab order) of the cheapest segment from ``start`` grabbing ``mask``'s things: walks, a step per
        grab, a step per thing put into the basket (all but the last when a basket is used), the final step."""
        key = (start, mask, kind, bi)
        hit = self._cost.get(key)
        if hit is not None:
            return hit
        steps = self.p.steps
        items = self.names(mask)
        puts = 0 if kind == Kind.NONE else len(items) - 1
        basket = self.baskets[bi] if kind == Kind.GRAB else None
        best: tuple[int, tuple[str, ...]] = (_INF, ())
        for perm in itertools.permutations(items):
            seqs = [(basket, *perm), (perm[0], basket, *perm[1:])] if basket is not None else [perm]
            for seq in seqs:
                cur, walk = start, 0
                for x in seq:
                    pt = self.where[x]
                    walk += steps(cur, pt)
                    cur = pt
                c = walk + steps(cur, self.goal) + len(seq) + puts + 1
                if c < best[0]:
                    best = (c, tuple(seq))
        self._cost[key] = best
        return best

    def moves(self, start: str, mode: int, r: int) -> list[tuple[Segment, int, int, int, int]]:
        """Every segment from ``start`` in ``mode`` over the things ``r``: (segment, mask, steps, basket index or
        -1, next mode)."""
        return [mv for mv in self._all_moves(start, mode) if mv[1] & r == mv[1]]

    def _all_moves(self, start: str, mode: int) -> list[tuple[Segment, int, int, int, int]]:
        key = (start, mode)
        hit = self._moves.get(key)
        if hit is not None:
            return hit
        out = []
        for k in range(1, (max(2, self.cmax + 1) if mode == 0 else mode) + 1):   # mode 1 + f: f + 1 things
            for combo in itertools.combinations(range(self.n), k):
                mask = sum(1 << i for i in combo)
                if mode == 0:
                    if k <= 2:
                        c, seq = self.cost(start, mask, Kind.NONE)
                        out.append((Segment(start, Kind.NONE, seq, False), mask, c, -1, 0))
                    for bi in range(self.m):
                        if k <= self.cap[bi] + 1:    # ending with transport only for 3+ things (else NONE is cheaper)
                            c, seq = self.cost(start, mask, Kind.GRAB, bi)
                            if k > 2:
                                out.append((Segment(start, Kind.GRAB, seq, False), mask, c, bi, 0))
                            out.append((Segment(start, Kind.GRAB, seq, True), mask, c, bi, 1 + self.cap[bi] - (k - 1)))
                else:
                    c, seq = self.cost(start, mask, Kind.HELD)
                    out.append((Segment(start, Kind.HELD, seq, False), mask, c, -1, 0))
                    out.append((Segment(start, Kind.HELD, seq, True), mask, c, -1, mode - (k - 1)))
        self._moves[key] = out
        return out

    def _arrays(self, start: str, mode: int) -> tuple[np.ndarray, ...]:
        """The moves of ``_all_moves`` as arrays: masks, steps, basket rows (``m`` for none), next modes."""
        key = ("arrays", start, mode)
        hit = self._moves.get(key)
        if hit is None:
            moves = self._all_moves(start, mode)
            hit = (np.array([mv[1] for mv in moves], dtype=np.int64), np.array([mv[2] for mv in moves], dtype=np.int64),
                   np.array([mv[3] if mv[3] >= 0 else self.m for mv in moves], dtype=np.int64),
                   np.array([mv[4] for mv in moves], dtype=np.int64))
            self._moves[key] = hit
        return hit

    def best(self, start: str, mode: int, r: int, nxt: np.ndarray) -> np.ndarray:
        """Over the basket sets B: the least steps of a move from ``start`` in ``mode`` over the things ``r``
        plus ``nxt[next mode][r - its things][B - its basket]`` (INF where B lacks the move's basket)."""
        masks, costs, rows, modes = self._arrays(start, mode)
        sel = (masks & r) == masks
        if not sel.any():
            return np.full(1 << self.m, _INF, dtype=np.int64)
        rows = rows[sel]
        cand = nxt[modes[sel][:, None], (r ^ masks[sel])[:, None], self.src[rows]] + costs[sel][:, None]
        return np.where(self.valid[rows], cand, _INF).min(axis=0)

    def from_goal(self) -> np.ndarray:
        """H[mode][R][B]: least steps to deliver R from the goal place in ``mode`` with the baskets B."""
        size = 1 << self.n
        h = np.full((self.modes, size, 1 << self.m), _INF, dtype=np.int64)
        h[0, 0] = 0
        h[1:, 0] = 1                                # a basket still held: transport it
        for r in range(1, size):
            for mode in range(self.modes):
                h[mode, r] = self.best(self.goal, mode, r, h)
        return h

    def from_start(self, agent: str, h: np.ndarray) -> np.ndarray:
        """G[S][B]: least steps for ``agent`` to deliver S from its start with the baskets B (0 for S empty)."""
        start = self.p.starts[agent]
        size = 1 << self.n
        g = np.zeros((size, 1 << self.m), dtype=np.int64)
        for s in range(1, size):
            g[s] = self.best(start, 0, s, h)
        return g

    def targets(self) -> list[int]:
        """The minimal masks of things whose delivery meets every goal."""
        index = {x: i for i, x in enumerate(self.items)}
        out: list[int] = []
        for w in range(1 << self.n):
            if all(sum(1 for x in things if x in self.done0 or (x in index and w >> index[x] & 1)) >= g.count
                   for g, things in zip(self.p.goals, self.p.goal_things)):
                if not any(w & ~(1 << i) in out for i in range(self.n) if w >> i & 1):
                    out.append(w)
        return out

    # ------------------------------------------------------------------ plan
    def segments(self, agent: str, s: int, b: int, g: np.ndarray, h: np.ndarray) -> list[Segment]:
        """The segments realising g[s][b], read back from the tables."""
        out: list[Segment] = []
        start, mode, value = self.p.starts[agent], 0, int(g[s][b])
        while s:
            for seg, mask, c, bi, nxt in self.moves(start, mode, s):
                if bi >= 0 and not b >> bi & 1:
                    continue
                rest_b = b & ~(1 << bi) if bi >= 0 else b
                if c + int(h[nxt, s ^ mask, rest_b]) == value:
                    out.append(seg)
                    start, mode, s, b, value = self.goal, nxt, s ^ mask, rest_b, value - c
                    break
            else:                                   # pragma: no cover - the tables are consistent
                raise AssertionError("segment tables inconsistent")
        return out

    def actions(self, segments: list[Segment]) -> list[tuple[int, Action]]:
        """The agent's actions with their start steps: grabs in order, puts into the basket, the final step."""
        t, plan = 0, []
        cur = segments[0].start if segments else self.goal
        steps = self.p.steps
        basket: Optional[str] = None
        for seg in segments:
            items = [x for x in seg.seq if x not in self.baskets]
            grabbed, hand = 0, None
            for x in seg.seq:
                pt = self.point(x)
                plan.append((t, Action(ActKind.GRAB, x)))
                t += steps(cur, pt) + 1
                cur = pt
                if x in self.baskets:
                    basket = x
                    if hand is not None and grabbed < len(items):       # the thing grabbed first goes in
                        plan.append((t, Action(ActKind.PUT, hand, basket)))
                        t += 1
                        hand = None
                    continue
                grabbed += 1
                if basket is not None and grabbed < len(items):         # all but the last go in
                    plan.append((t, Action(ActKind.PUT, x, basket)))
                    t += 1
                else:
                    hand = x
            if seg.keep:
                plan.append((t, Action(ActKind.PUT, hand, self.goal)))
            else:
                plan.append((t, Action(ActKind.TRANSPORT)))
                basket = None
            t += steps(cur, self.goal) + 1
            cur = self.goal
        if basket is not None:                       # pragma: no cover - a kept basket is always delivered
            plan.append((t, Action(ActKind.TRANSPORT)))
        return plan


def trip_optimum(p: HouseholdProblem) -> Optional[Result]:
    """(steps, proven, plan, expanded, seconds) of the episode's omniscient optimum, or None (module docstring)."""
    if not applies(p):
        return None
    began = time.perf_counter()
    tab = _Tables(p)
    agents = tuple(p.agents)
    h = tab.from_goal()
    gs = [tab.from_start(a, h) for a in agents]
    best: tuple[int, int, int, int] = (_INF, 0, 0, 0)       # steps, W, S (first agent's), B (first agent's)
    for w in tab.targets():
        if len(agents) == 1:
            v = int(gs[0][w][tab.full])
            if v < best[0]:
                best = (v, w, w, tab.full)
            continue
        sub = w
        while True:
            both = np.maximum(gs[0][sub], gs[1][w ^ sub][::-1])          # B and all - B (reversed index)
            b = int(np.argmin(both))
            if int(both[b]) < best[0]:
                best = (int(both[b]), w, sub, b)
            if sub == 0:
                break
            sub = (sub - 1) & w
    steps, w, s, b = best
    expanded = int(h.size + sum(g.size for g in gs))
    seconds = time.perf_counter() - began
    if steps >= _INF or steps > p.horizon:
        return (None, True, {}, expanded, seconds)
    parts = [(s, b)] if len(agents) == 1 else [(s, b), (w ^ s, tab.full ^ b)]
    plan = {a: tab.actions(tab.segments(a, mask, bs, g, h)) for a, g, (mask, bs) in zip(agents, gs, parts)}
    return (steps, True, plan, expanded, time.perf_counter() - began)
