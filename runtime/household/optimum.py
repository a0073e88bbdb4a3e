"""The omniscient optimum of a household episode: fewest steps with every placement known (issue #13).

Input: a ``HouseholdProblem`` (its drawn placements are given to every agent) and search limits.  Output:
``optimum(problem) -> Optimum``: ``steps`` (the least number of steps after which every goal holds, or None),
``proven`` (the search closed: no plan is shorter), ``plan`` (per agent, ``(start step, Action)`` in
order; replayed through ``HouseholdEngine`` it succeeds at ``steps``), ``expanded`` and ``seconds``.

Method: A* over joint states at decision points, with the engine's costs and rules (``engine.py``): when
agents are idle they choose, in name order, one of the actions that can matter with full knowledge -- check
a closed container that holds a needed thing or is a goal place, grab a needed thing (or a basket), put a
held goal thing on/in its goal place (or into a held basket), transport (TDW syntax), or wait for the next
completion; then time jumps to the next completion and completions apply in name order.  Exploring, walking
to a room and messages are left out: with all placements known they never shorten an episode (walks go
through entry points, so ceil(a) + ceil(b) >= ceil(a + b) makes a detour no faster).  Two agents never
grab the same thing or open the same container at once (the second would gain nothing).  Interchangeable
things (same goals, same location) are grabbed in name order.  The heuristic is admissible: for each goal,
the count-th smallest lower bound over its undelivered things of (an agent's time until free + walk to the
thing + grab [+ 1 when it lies in a closed container] + walk to the goal place + put).  The search is
exact: the first goal state popped is optimal; ``proven`` is False only when a limit stopped it.

TDW-MAT-style transport episodes (ten targets, baskets) are beyond this search; ``runtime/household/trips.py``
solves them exactly by decomposing each agent's work into trips to the goal place, and ``optimum`` uses it
whenever the episode has that shape (``Optimum.method`` says which ran; tests/test_household_trips.py checks the
two agree where both finish).
"""
from __future__ import annotations

import enum
import heapq
import itertools
import time
from dataclasses import dataclass
from typing import Optional

from chronoplan.compiler.household.problem import HouseholdProblem
from chronoplan.compiler.ir import ActionSyntax, PlaceKind
from chronoplan.runtime.household.actions import Action, ActKind
from chronoplan.runtime.household.engine import HouseholdEngine
from chronoplan.runtime.household.trips import trip_optimum

_WAIT = "wait"      # idle until the next completion (only while a container is being opened: see below)
_STOP = "stop"      # idle for the rest of the episode


def _real(run) -> bool:
    return run is not None and run != _WAIT and run != _STOP


class Method(enum.Enum):
    """How the optimum was found."""

    ASTAR = "A* over joint decision states"
    TRIPS = "trip decomposition (runtime/household/trips.py)"


@dataclass(frozen=True)
class Optimum:
    steps: Optional[int]
    proven: bool
    plan: dict
    expanded: int
    seconds: float
    method: Method = Method.ASTAR


class _Model:
    """The episode's rules over compact joint states (tuples)."""

    def __init__(self, p: HouseholdProblem) -> None:
        self.p = p
        self.agents = tuple(sorted(p.agents))
        self.goals = p.goals
        objs = sorted({x for things in p.goal_things for x in things}) + list(p.baskets)
        self.objs = tuple(objs)
        self.oi = {x: i for i, x in enumerate(objs)}
        self.baskets = frozenset(p.baskets)
        self.containers = frozenset(p.containers)
        self.goals_of = {x: tuple(gi for gi, th in enumerate(p.goal_things) if x in th) for x in objs}
        self.tdw = p.syntax == ActionSyntax.TDW and p.goal_place is not None
        self.steps = p.steps

    # ------------------------------------------------------------------ state helpers
    def point(self, pos: tuple, loc: tuple, x: str) -> str:
        where = loc[self.oi[x]]
        if where == x:
            return x
        if where in self.agents:
            return pos[self.agents.index(where)]
        if where in self.baskets:
            return self.point(pos, loc, where)
        return where

    def on_goal(self, loc: tuple, x: str, gi: int) -> bool:
        g = self.goals[gi]
        where = loc[self.oi[x]]
        if where == g.where:
            return True
        if where in self.baskets:
            return loc[self.oi[where]] == g.where
        return False

    def delivered(self, loc: tuple) -> list[int]:
        return [sum(1 for x in things if self.on_goal(loc, x, gi)) for gi, things in enumerate(self.p.goal_things)]

    def done(self, loc: tuple) -> bool:
        return all(n >= g.count for n, g in zip(self.delivered(loc), self.goals))

    def count_in(self, loc: tuple, place: str) -> int:
        return sum(1 for w in loc if w == place)

    def room_ok(self, loc: tuple, opened: frozenset, place: str, extra: int) -> bool:
        if place in self.containers and place not in opened:
            return False
        cap = self.p.places[place].capacity
        return cap is None or self.count_in(loc, place) + extra <= cap

    # ------------------------------------------------------------------ options of an idle agent
    def options(self, i: int, pos: tuple, loc: tuple, opened: frozenset, runs: tuple) -> list:
        """(action, duration, end point) for agent i; plus the wait option when it can matter."""
        agent, here = self.agents[i], pos[i]
        delivered = self.delivered(loc)
        held = [x for x, w in zip(self.objs, loc) if w == agent]
        busy_grabs = {r[0].target for r in runs if _real(r) and r[0].kind == ActKind.GRAB}
        busy_checks = {r[0].target for r in runs if _real(r) and r[0].kind == ActKind.CHECK}
        out = self._grabs(agent, here, pos, loc, opened, delivered, held, busy_grabs)
        out += self._puts(agent, here, loc, opened, delivered, held)
        out += self._checks(here, pos, loc, opened, delivered, busy_checks)
        opening = any(_real(r) and r[0].kind == ActKind.CHECK for r in runs)
        if opening or any(r is None for j, r in enumerate(runs) if j > i):
            out.append((_WAIT, 0, here))
        out.append((_STOP, 0, here))
        return out

    def _pending(self, loc: tuple, delivered: list[int], x: str) -> bool:
        """Does x still serve a goal that needs more than what is delivered or held?"""
        for gi in self.goals_of.get(x, ()):
            g = self.goals[gi]
            carried = sum(1 for y in self.p.goal_things[gi]
                          if loc[self.oi[y]] in self.agents or (loc[self.oi[y]] in self.baskets
                                                               and loc[self.oi[loc[self.oi[y]]]] in self.agents))
            if delivered[gi] + carried < g.count and not self.on_goal(loc, x, gi):
                return True
        return False

    def _grabs(self, agent, here, pos, loc, opened, delivered, held, busy) -> list:
        if len(held) >= self.p.hands:
            return []
        out, seen = [], set()
        for x in self.objs:
            where = loc[self.oi[x]]
            if x in busy or where in self.agents or (where in self.containers and where not in opened):
                continue
            if x in self.baskets:
                if len(self.objs) - len(self.baskets) <= self.p.hands:
                    continue                         # a basket cannot help when the hands carry everything
            elif not self._pending(loc, delivered, x):
                continue
            if where in self.baskets and loc[self.oi[where]] == agent:
                point = here
            else:
                point = self.point(pos, loc, x)
            sig = (self.goals_of.get(x, ()), where)
            if x not in self.baskets and sig in seen:
                continue
            seen.add(sig)
            out.append((Action(ActKind.GRAB, x), self.steps(here, point) + 1, point))
        return out

    def _puts(self, agent, here, loc, opened, delivered, held) -> list:
        out = []
        for x in held:
            targets = {self.goals[gi].where for gi in self.goals_of.get(x, ()) if delivered[gi] < self.goals[gi].count}
            if x in self.baskets and any(loc[self.oi[y]] == x for y in self.objs):
                targets |= {self.goals[gi].where for y in self.objs if loc[self.oi[y]] == x
                            for gi in self.goals_of.get(y, ())}
            if x not in self.baskets:
                targets |= {b for b in held if b in self.baskets}
            for place in sorted(targets):
                if place in self.baskets:
                    if self.room_ok(loc, opened, place, 1):
                        out.append((Action(ActKind.PUT, x, place), 1, here))
                elif self.room_ok(loc, opened, place, 1) and not (x in self.baskets and
                                                                  self.p.places[place].kind == PlaceKind.BASKET):
                    out.append((Action(ActKind.PUT, x, place), self.steps(here, place) + 1, place))
        if self.tdw and held and self.room_ok(loc, opened, self.p.goal_place or "", len(held)):
            goal = self.p.goal_place or ""
            out.append((Action(ActKind.TRANSPORT), self.steps(here, goal) + 1, goal))
        return out

    def _checks(self, here, pos, loc, opened, delivered, busy) -> list:
        want = set()
        for x in self.objs:
            where = loc[self.oi[x]]
            if where in self.containers and where not in opened and self._pending(loc, delivered, x):
                want.add(where)
        for gi, g in enumerate(self.goals):
            if g.where in self.containers and g.where not in opened and delivered[gi] < g.count:
                want.add(g.where)
        return [(Action(ActKind.CHECK, c), self.steps(here, c) + 1, c) for c in sorted(want - busy)]

    # ------------------------------------------------------------------ completion
    def complete(self, i: int, run: tuple, pos: list, loc: list, opened: set) -> None:
        action, _, end_point = run[0], run[1], run[2]
        agent = self.agents[i]
        pos[i] = end_point
        k = action.kind
        if k == ActKind.CHECK:
            opened.add(action.target)
        elif k == ActKind.GRAB:
            loc[self.oi[action.target]] = agent
        elif k == ActKind.PUT:
            loc[self.oi[action.target]] = action.place
        elif k == ActKind.TRANSPORT:
            for j, w in enumerate(loc):
                if w == agent:
                    loc[j] = self.p.goal_place

    def advance(self, te: int, pos: tuple, loc: tuple, opened: frozenset, runs: tuple) -> tuple:
        """The state after the completions at ``te`` (in name order); waiting agents become idle."""
        pos_l, loc_l, open_s = list(pos), list(loc), set(opened)
        new_runs: list = []
        for i, r in enumerate(runs):
            if r == _WAIT:
                new_runs.append(None)
            elif r == _STOP:
                new_runs.append(_STOP)
            elif r[1] == te:
                self.complete(i, r, pos_l, loc_l, open_s)
                new_runs.append(None)
            else:
                new_runs.append(r)
        return tuple(pos_l), tuple(loc_l), frozenset(open_s), tuple(new_runs)

    # ------------------------------------------------------------------ heuristic
    def h(self, t: int, pos: tuple, loc: tuple, opened: frozenset, runs: tuple) -> int:
        free, where_after = [], []
        for i, r in enumerate(runs):
            if r == _STOP:
                free.append(10 ** 6)             # never acts again
                where_after.append(pos[i])
            elif not _real(r):
                free.append(0)
                where_after.append(pos[i])
            else:
                free.append(r[1] - t)
                where_after.append(r[2])
        delivered = self.delivered(loc)
        best = 0
        opening = {r[0].target for r in runs if _real(r) and r[0].kind == ActKind.CHECK}
        for gi, g in enumerate(self.goals):
            if delivered[gi] >= g.count:
                continue
            bounds = sorted(self._bound(x, g.where, free, where_after, pos, loc, opened, opening, runs)
                            for x in self.p.goal_things[gi] if not self.on_goal(loc, x, gi))
            k = g.count - delivered[gi]
            best = max(best, bounds[k - 1] if len(bounds) >= k else 10 ** 9)
        return best

    def _bound(self, x, goal, free, where_after, pos, loc, opened, opening, runs) -> int:
        holder = loc[self.oi[x]]
        if holder in self.baskets and loc[self.oi[holder]] in self.agents:
            holder = loc[self.oi[holder]]
        if holder in self.agents:
            i = self.agents.index(holder)
            r = runs[i]
            if _real(r) and r[0].kind in (ActKind.PUT, ActKind.TRANSPORT) and r[2] == goal:
                return free[i]
            return free[i] + self.steps(where_after[i], goal) + 1
        point = self.point(pos, loc, x)
        after = self.steps(point, goal) + 1
        for i, r in enumerate(runs):        # a grab of x already on its way: x is held when it ends
            if _real(r) and r[0].kind == ActKind.GRAB and r[0].target == x:
                return free[i] + after
        extra = 1 if holder in self.containers and holder not in opened and holder not in opening else 0
        return min(f + self.steps(w, point) for f, w in zip(free, where_after)) + extra + 1 + after


def optimum(problem: HouseholdProblem, *, max_expanded: int = 2_000_000, max_seconds: float = 60.0,
            trips: bool = True) -> Optimum:
    """The omniscient optimum: by trip decomposition when the episode has its shape (``trips.applies``: TDW-MAT-style
    transport) and ``trips`` is True, else by A* (see the module docstring)."""
    if trips:
        found = trip_optimum(problem)
        if found is not None:
            steps, proven, plan, expanded, seconds = found
            return Optimum(steps, proven, plan, expanded, seconds, Method.TRIPS)
    m = _Model(problem)
    start = time.perf_counter()
    pos0 = tuple(problem.starts[a] for a in m.agents)
    loc0 = tuple(problem.placement[x] for x in m.objs)
    open0 = frozenset(c for c in problem.containers if not problem.places[c].closed)
    runs0: tuple = tuple(None for _ in m.agents)
    counter = itertools.count()
    if m.done(loc0):
        return Optimum(0, True, {a: [] for a in problem.agents}, 0, 0.0)
    # entries: (f, -t, t, n, pos, loc, open, runs, trail, exact); a child is pushed with its parent's f (a lower
    # bound of its own) and its heuristic is computed when it is first popped (lazy A*)
    heap: list[tuple] = [(m.h(0, pos0, loc0, open0, runs0), 0, 0, next(counter), pos0, loc0, open0, runs0, None,
                          True)]
    best: dict = {}
    expanded = 0
    while heap:
        f, _, t, _, pos, loc, opened, runs, trail, exact = heapq.heappop(heap)
        if trail is not None and trail[0] is None:          # a goal state: the first popped is optimal
            return Optimum(t, True, _plan(problem, trail[1]), expanded, time.perf_counter() - start)
        if not exact:
            f2 = t + m.h(t, pos, loc, opened, runs)
            if f2 > f:
                heapq.heappush(heap, (f2, -t, t, next(counter), pos, loc, opened, runs, trail, True))
                continue
        if expanded >= max_expanded or time.perf_counter() - start > max_seconds:
            return Optimum(None, False, {}, expanded, time.perf_counter() - start)
        key = (pos, loc, opened, tuple((r[0], r[1] - t, r[2]) if _real(r) else r for r in runs))
        if best.get(key, 10 ** 9) <= t:
            continue
        best[key] = t
        expanded += 1
        idle = next((i for i, r in enumerate(runs) if r is None), None)
        if idle is not None:
            for action, d, point in m.options(idle, pos, loc, opened, runs):
                run = action if action in (_WAIT, _STOP) else (action, t + d, point)
                new_runs = runs[:idle] + (run,) + runs[idle + 1:]
                step = (m.agents[idle], t, action) if action not in (_WAIT, _STOP) else None
                heapq.heappush(heap, (f, -t, t, next(counter), pos, loc, opened, new_runs,
                                      (step, trail) if step else trail, False))
            continue
        real = [r[1] for r in runs if _real(r)]
        if not real:
            continue
        te = min(real)
        npos, nloc, nopen, nruns = m.advance(te, pos, loc, opened, runs)
        if m.done(nloc):
            heapq.heappush(heap, (te, -te, te, next(counter), npos, nloc, nopen, nruns, (None, trail), True))
            continue
        heapq.heappush(heap, (max(f, te), -te, te, next(counter), npos, nloc, nopen, nruns, trail, False))
    return Optimum(None, True, {}, expanded, time.perf_counter() - start)


def _plan(problem: HouseholdProblem, trail) -> dict:
    steps = []
    while trail is not None:
        steps.append(trail[0])
        trail = trail[1]
    plan: dict = {a: [] for a in problem.agents}
    for agent, t, action in reversed(steps):
        plan[agent].append((t, action))
    return plan


def replay(problem: HouseholdProblem, plan: dict, *, log: bool = False):
    """Play a plan (per agent ``(start step, Action)``) through an omniscient engine (every agent sees every
    placement); returns the finished engine."""

    engine = HouseholdEngine(problem, log=log, omniscient=True)
    queues = {a: list(steps) for a, steps in plan.items()}
    while not engine.done:
        acts: dict = {}
        for a, q in queues.items():
            if q and q[0][0] == engine.t:
                acts[a] = q.pop(0)[1]
        engine.step(acts)
        if not any(queues.values()) and not engine.running:
            break
    return engine
