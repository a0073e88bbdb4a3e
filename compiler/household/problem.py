"""A household scenario instantiated for one episode (``HouseholdProblem``), issue #13.

Input: a checked ``ir.Project``, the name (or the ``ir.Scenario``) of a household scenario and an optional
seed (default: the scenario's ``seed``).  Output: ``HouseholdProblem`` -- the agents and their start rooms,
the rooms, places (containers, surfaces, baskets) and things, the initial placement of every thing (a hidden
thing's place drawn with ``random.Random(seed)`` from its options, in declaration order), shortest walking
distances between rooms (networkx over the doors), walking metres and steps between any two points, the goals
with the things that can satisfy them, the horizon, message limit and cost, the action syntax and a stable
numeric id per name (the ``(id)`` of the action texts).  Raises ``HouseholdError`` for a scenario that is not
a household or whose home is inconsistent (unknown room, disconnected rooms).

Geometry (docs/benchmarks/pce.md): an agent stands at a *point*, a room's entry point (named by the room) or a
place (named by the place).  A place lies ``metres`` from its room's entry point; a thing loose in a room lies
at the entry point.  Walking from one point to another goes through the entry points along the shortest door
path: same point 0; same room ``off(p) + off(q)``; otherwise ``off(p) + rooms(room p, room q) + off(q)``.
A walk costs ``ceil(metres / speed)`` steps; grasping, opening and putting add one step each.
"""
from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Optional, Union

import networkx as nx

from chronoplan.compiler import ir

DEFAULT_HORIZON = 250          # C-WAH's H when the scenario names none
TURN_STEPS = 24                # TDW-MAT: a 360-degree look in 15-degree steps


class HouseholdError(ValueError):
    """The scenario cannot be instantiated as a household episode."""


class HouseholdProblem:
    """One episode of a household scenario: the drawn placements and the cost model (read-only attributes).

    ``agents``: names in declaration order; ``starts``: agent -> room; ``rooms``; ``places``: name ->
    ``ir.Place``; ``containers``, ``surfaces``, ``baskets``: place names by kind; ``things``: names;
    ``types``: thing -> type; ``placement``: thing or basket -> its initial location (a room or a place);
    ``hidden``: things drawn by the seed; ``goals``: the ``ir.GoalCount`` tuple; ``goal_things``: per goal,
    the things that can count for it; ``ids``: name -> int.
    """

    def __init__(self, project: ir.Project, scenario: Union[str, ir.Scenario], seed: Optional[int] = None) -> None:
        scen = project.scenario(scenario) if isinstance(scenario, str) else scenario
        if scen.household is None:
            raise HouseholdError(f"scenario {scen.name} is not a household scenario ({scen.kind.value})")
        part = project.part(scen.name)
        home = part.households.get(scen.household) or project.households.get(scen.household)
        if home is None:
            raise HouseholdError(f"scenario {scen.name} names unknown household {scen.household}")
        self.scenario_ir = scen
        self.home = home
        self.scenario = scen.name
        self.household = home.name
        self.seed = scen.seed if seed is None else seed
        self.syntax = scen.syntax
        self.horizon = scen.horizon if scen.horizon is not None else DEFAULT_HORIZON
        self.message_limit = scen.message_limit
        self.message_cost = scen.message_cost
        self.hands = home.hands
        self.speed = Fraction(home.speed)
        self.rooms: tuple[str, ...] = tuple(home.rooms)
        self.starts: dict[str, str] = dict(scen.starts)
        self.agents: tuple[str, ...] = tuple(a for a, _ in scen.starts)
        if not self.agents:
            raise HouseholdError(f"scenario {scen.name} places no agent")
        self.places: dict[str, ir.Place] = {p.name: p for p in home.places}
        self.containers = tuple(p.name for p in home.places if p.kind == ir.PlaceKind.CONTAINER)
        self.surfaces = tuple(p.name for p in home.places if p.kind == ir.PlaceKind.SURFACE)
        self.baskets = tuple(p.name for p in home.places if p.kind == ir.PlaceKind.BASKET)
        self.things: tuple[str, ...] = tuple(t.name for t in home.things)
        self.types: dict[str, str] = {t.name: t.type for t in home.things}
        self.goals: tuple[ir.GoalCount, ...] = tuple(scen.goals)
        self._check_names()
        self._room_metres = self._room_distances()
        self.placement, self.hidden = self._draw()
        self.goal_things: tuple[tuple[str, ...], ...] = tuple(self.candidates(g.what) for g in self.goals)
        self.points: tuple[str, ...] = self.rooms + tuple(self.places)
        self._metres = {(p, q): self._walk(p, q) for p in self.points for q in self.points}
        self._steps = {key: self._ceil(m) for key, m in self._metres.items()}
        names = [*self.rooms, *self.places, *self.things]
        self.ids: dict[str, int] = {n: i for i, n in enumerate(names, start=1)}
        self.by_id: dict[int, str] = {i: n for n, i in self.ids.items()}
        self.goal_place: Optional[str] = self.goals[0].where if self.goals else None

    # ------------------------------------------------------------------ building
    def _check_names(self) -> None:
        rooms = set(self.rooms)
        for agent, room in self.starts.items():
            if room not in rooms:
                raise HouseholdError(f"agent {agent} starts in unknown room {room}")
        for p in self.places.values():
            if p.room not in rooms:
                raise HouseholdError(f"place {p.name} is in unknown room {p.room}")
        for t in self.home.things:
            for o in t.options:
                if o not in rooms and o not in self.places:
                    raise HouseholdError(f"thing {t.name}: option {o} is no room or place")
        for g in self.goals:
            if g.where not in self.places:
                raise HouseholdError(f"goal {g.relation}({g.what}, {g.where}): unknown place {g.where}")

    def _room_distances(self) -> dict[tuple[str, str], Fraction]:
        graph = nx.Graph()
        graph.add_nodes_from(self.rooms)
        for d in self.home.doors:
            w = Fraction(d.metres)
            if graph.has_edge(d.a, d.b) and graph[d.a][d.b]["weight"] <= w:
                continue
            graph.add_edge(d.a, d.b, weight=w)
        out: dict[tuple[str, str], Fraction] = {}
        for src, lengths in nx.all_pairs_dijkstra_path_length(graph, weight="weight"):
            for dst, metres in lengths.items():
                out[src, dst] = Fraction(metres)
        for a in self.rooms:
            for b in self.rooms:
                if (a, b) not in out:
                    raise HouseholdError(f"rooms {a} and {b} are not connected by doors")
        return out

    def _draw(self) -> tuple[dict[str, str], frozenset[str]]:
        rng = random.Random(self.seed)
        placement: dict[str, str] = {}
        hidden = set()
        for t in self.home.things:
            if len(t.options) == 1:
                placement[t.name] = t.options[0]
            else:
                placement[t.name] = rng.choice(t.options)
                hidden.add(t.name)
        for b in self.baskets:
            placement[b] = b          # a basket starts at its own point (its room, its metres)
        return placement, frozenset(hidden)

    def _ceil(self, metres: Fraction) -> int:
        return math.ceil(metres / self.speed)

    # ------------------------------------------------------------------ geometry
    def room_of_point(self, point: str) -> str:
        place = self.places.get(point)
        return place.room if place is not None else point

    def offset(self, point: str) -> Fraction:
        """Metres from the point to its room's entry point (0 for an entry point)."""
        place = self.places.get(point)
        return Fraction(place.metres) if place is not None else Fraction(0)

    def _walk(self, p: str, q: str) -> Fraction:
        if p == q:
            return Fraction(0)
        rp, rq = self.room_of_point(p), self.room_of_point(q)
        between = Fraction(0) if rp == rq else self._room_metres[rp, rq]
        return self.offset(p) + between + self.offset(q)

    def metres(self, p: str, q: str) -> Fraction:
        """Walking metres between two points (rooms' entry points or places)."""
        return self._metres[p, q]

    def steps(self, p: str, q: str) -> int:
        """Steps to walk between two points: ceil(metres / speed)."""
        return self._steps[p, q]

    def room_metres(self, a: str, b: str) -> Fraction:
        return self._room_metres[a, b]

    # ------------------------------------------------------------------ goals
    def candidates(self, what: str) -> tuple[str, ...]:
        """The things a goal over ``what`` (a thing or a thing type) can count."""
        if what in self.types:
            return (what,)
        return tuple(t for t in self.things if self.types[t] == what)

    def category(self, goal: ir.GoalCount) -> str:
        """A goal's category for the transport rate: the type of its things."""
        return self.types[goal.what] if goal.what in self.types else goal.what

    def describe(self) -> dict:
        """A JSON-able summary (for logs and reports)."""
        return {"scenario": self.scenario, "household": self.household, "seed": self.seed,
                "agents": list(self.agents), "horizon": self.horizon, "syntax": self.syntax.value,
                "placement": dict(self.placement), "hidden": sorted(self.hidden)}
