"""The decentralised household engine: simultaneous high-level actions, per-agent observations (issue #13).

Input: a ``compiler.household.problem.HouseholdProblem``; then, once per step, one action per agent (an
``Action``, an action text in either syntax, an index into ``engine.catalogue``, or None for "nothing new").
Output: ``HouseholdEngine`` -- ``reset()``, ``step(actions) -> {agent: Result}`` (refusals and failures are
results, never exceptions), ``observation(agent)`` (the text the agent is shown), ``available(agent)``
(catalogue indices it may choose now), ``available_text(agent)`` (the "available actions" list with its
costs), ``knowledge[agent]`` (what it has seen and when, what it was told), ``metrics()``, ``done``,
``success``, ``t`` and, with ``log=True``, ``log`` (a ``runtime.household.log.EpisodeLog``).  With
``omniscient=True`` every agent sees everything at every step (the optimum's replay).

Semantics (docs/benchmarks/pce.md):
- Time advances one step per ``step``.  An action of duration d issued at step t occupies its agent for the
  steps t .. t+d-1 and takes effect at the end of step t+d-1; the agent is then idle again.  While busy, an
  agent's ``wait`` (or None) lets the action run on; any other action is refused (reason BUSY), the running
  one continues.  A refused action costs the step (the agent does nothing).
- Durations: explore = max(1, walk) (+24 turning steps in TDW syntax; both syntaxes set ``explored``);
  goto = max(1, walk); check, grab, put, transport = walk + 1; send = the scenario's message cost; wait = 1.
  The walk is from the agent's point to where the agent *believes* the target is.
- Preconditions are checked when the action is issued (against the agent's knowledge for where things are,
  against the world for containers' state and capacities) and again when it completes (against the world):
  a thing that is no longer where the agent went is a failure (reason NOT_THERE) that leaves the agent there.
- Completions in one step are applied in agent-name order.  Conflict rule: when two agents' grabs of one
  thing complete in the same step, the first in name order gets it; the other's grab fails (NOT_THERE) and
  its observation says so.
- Observations: the household's observe rules (``runtime.household.observe``) are evaluated after every
  step in which something completed; every object shown enters the agent's knowledge (first-seen step, last
  known location).  A message is delivered to every other agent at the next step (in its observation) and
  the things it names enter the recipients' knowledge as told (with a location when the text says ``X in Y``).
- An agent may only grab or move things it knows (seen or told about); rooms and places are known (the map).
- The episode ends when every goal holds (success) or when ``t`` reaches the horizon (failure).
"""
from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from chronoplan.compiler.household.problem import TURN_STEPS, HouseholdProblem
from chronoplan.compiler.ir import ActionSyntax, GoalCount, PlaceKind
from chronoplan.runtime.household.actions import WAIT, Action, ActKind, ParseFailure, catalogue, parse, render
from chronoplan.runtime.household.log import EpisodeLog
from chronoplan.runtime.household.observe import compile_rules

ActionLike = Union[Action, str, int, None]
_Startable = list[tuple[int, tuple[int, str]]]      # (catalogue index, (steps, point)) of actions one may start


class Reason(enum.Enum):
    """Why an action was refused (at issue) or failed (at completion)."""

    SYNTAX = "syntax"                    # the text names no action
    UNKNOWN_OBJECT = "unknown-object"    # no such object in the episode
    NOT_KNOWN = "not-known"              # the agent has neither seen it nor been told about it
    WHERE_UNKNOWN = "where-unknown"      # known, but the agent does not know where it is now
    BAD_TARGET = "bad-target"            # the action does not apply to that object (grab a fridge, ...)
    HANDS_FULL = "hands-full"
    HELD = "held"                        # held by an agent (this one or another)
    NOT_HELD = "not-held"                # put of a thing the agent does not hold
    NOTHING_HELD = "nothing-held"
    CLOSED = "closed"                    # a closed container
    FULL = "full"                        # a place at its capacity
    BUSY = "busy"                        # the agent's previous action still runs
    MESSAGE_TOO_LONG = "message-too-long"
    NO_GOAL_PLACE = "no-goal-place"
    NOT_THERE = "not-there"              # (at completion) the thing or basket is no longer there
    OVER = "over"                        # the episode has ended


class Status(enum.Enum):
    STARTED = "started"        # issued; runs for ``steps`` steps (done in the same step when steps == 1)
    DONE = "done"              # completed (this step)
    FAILED = "failed"          # completed without effect
    REFUSED = "refused"        # not started
    WAITED = "waited"
    RUNNING = "running"        # busy; the running action continues


@dataclass(frozen=True)
class Result:
    """What happened to one agent in one step (the last of: issue, completion)."""

    agent: str
    status: Status
    action: Optional[Action]
    text: str
    message: str
    reason: Optional[Reason] = None
    steps: int = 0

    @property
    def ok(self) -> bool:
        return self.status not in (Status.REFUSED, Status.FAILED)


@dataclass
class Knowledge:
    """One agent's knowledge: ``first_seen`` (object -> step it was first shown), ``told`` (object -> step a
    message first named it), ``belief`` (thing/basket -> last known location: a room, place or agent; None once
    found missing), ``belief_step`` (when that was learnt), ``explored`` (rooms it explored), ``open_seen``
    (containers seen open), ``others`` (agent -> (point, held, step) when last seen), ``inbox`` (messages
    delivered this step: (sender, text))."""

    first_seen: dict = field(default_factory=dict)
    told: dict = field(default_factory=dict)
    belief: dict = field(default_factory=dict)
    belief_step: dict = field(default_factory=dict)
    explored: set = field(default_factory=set)
    open_seen: set = field(default_factory=set)
    others: dict = field(default_factory=dict)
    inbox: list = field(default_factory=list)

    def knows(self, name: str) -> bool:
        return name in self.first_seen or name in self.told

    def known_at(self, name: str) -> Optional[int]:
        """The step at which the object first became known (seen or told), or None."""
        steps = [s for s in (self.first_seen.get(name), self.told.get(name)) if s is not None]
        return min(steps) if steps else None


@dataclass
class _Running:
    action: Action
    text: str
    remaining: int
    point: Optional[str]              # where the agent ends
    steps: int


_UNSET = object()
_WORD = re.compile(r"[A-Za-z_][\w\-]*")
_LINKS = frozenset({"in", "on", "at", "inside", "into", "onto", "is", "the", "held", "by", "(", ")"})


class HouseholdEngine:
    """One episode's world and the agents' knowledge (see the module docstring for the rules)."""

    def __init__(self, problem: HouseholdProblem, *, log: bool = False, omniscient: bool = False) -> None:
        self.problem = p = problem
        self.omniscient = omniscient
        self.catalogue: tuple[Action, ...] = catalogue(problem)
        self.index: dict[Action, int] = {a: i for i, a in enumerate(self.catalogue)}
        self.send_index = self.index[Action(ActKind.SEND)]
        self.wait_index = self.index[WAIT]
        self.order = tuple(sorted(p.agents))
        self.movable = frozenset(p.things) | frozenset(p.baskets)
        self._rooms = frozenset(p.rooms)
        self._baskets = frozenset(p.baskets)
        self._containers = frozenset(p.containers)
        self._members = self._member_table()
        self._room_memo: Optional[dict] = None
        self._fixed_room: dict[str, str] = {**{r: r for r in p.rooms},
                                            **{q: place.room for q, place in p.places.items()
                                               if q not in self._baskets and q not in self._rooms}}
        self._texts: dict = {}
        # texts that are pure functions of the problem and their key, kept for the engine's life (bounded):
        self._by_point: dict[str, tuple[_Startable, _Startable]] = {}   # _startable's point-only checks, per point
        self._rendered: dict[tuple[Action, Optional[str]], str] = {}   # resolve's texts of actions but send
        self._point_texts: dict[str, tuple[str, str]] = {}  # those checks' available-actions lines, per point
        self._located: dict[tuple[str, Optional[str]], str] = {}   # "<x> (id) on <place> (id)", per (x, where)
        self._goal_line = "Goal: " + "; ".join(f"{g.count} {g.what} {g.relation} {self._name(g.where)}"
                                               for g in p.goals) + "."
        rules = compile_rules(p.home.observe, self)
        self._visible_many: Callable[[Iterable[str]], dict[str, set]] = rules.many
        self._cand_table = self._candidate_table()
        if omniscient:
            everything = frozenset(self.movable) | frozenset(p.places) | frozenset(p.agents)
            self._visible_many = lambda agents: {a: set(everything - {a}) for a in agents}
        self._log_on = log
        self.reset()

    def _member_table(self) -> dict[str, tuple[str, ...]]:
        p = self.problem
        table = {"thing": p.things, "container": p.containers, "surface": p.surfaces, "basket": p.baskets,
                 "place": tuple(p.places), "agent": p.agents, "room": p.rooms}
        for t in p.things:
            table.setdefault(p.types[t], ())
        for type_name in set(p.types.values()) - {"thing", "container", "surface", "basket", "place", "agent",
                                                   "room"}:
            table[type_name] = tuple(t for t in p.things if p.types[t] == type_name)
        return table

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        p = self.problem
        self.t = 0
        self.pos: dict[str, str] = dict(p.starts)
        self.loc: dict[str, str] = dict(p.placement)
        self.held: dict[str, list[str]] = {a: [] for a in p.agents}
        self.open: set[str] = {c for c in p.containers if not p.places[c].closed}
        self.explored_room: dict[str, Optional[str]] = {a: None for a in p.agents}
        self.running: dict[str, _Running] = {}
        self.knowledge: dict[str, Knowledge] = {a: Knowledge() for a in p.agents}
        self.last: dict[str, Optional[Result]] = {a: None for a in p.agents}
        self.visible: dict[str, set] = {a: set() for a in p.agents}
        self.done = False
        self.success = False
        self.messages = 0
        self.characters = 0
        self.refusals = 0
        self.failures = 0
        self.actions_done: dict[str, int] = {a: 0 for a in p.agents}
        self.version = 0
        # per-agent invalidation: an agent's available actions and observation body are rebuilt only when
        # something they are computed from changed (see ``_avail_key`` and ``_body_key``)
        self._kver: dict[str, int] = {a: 0 for a in p.agents}      # knowledge shown in the text changed
        self._open_ver = 0                                           # a container was opened
        self._loc_ver = 0                                            # a thing or basket moved (capacities)
        self._seen_sig: dict[str, frozenset] = {a: frozenset() for a in p.agents}
        self._avail: dict[str, tuple[tuple, list[int]]] = {}
        self._checked: dict[str, dict] = {}
        self._delivered: tuple[int, list[int]] = (-1, [])             # (moved-things version, counts)
        self._bodies: dict[str, tuple[tuple, str]] = {}
        self._parts: dict[tuple[str, str], tuple[Any, Any]] = {}   # the body's parts, keyed likewise
        self._observe()
        self._check_end()
        self.log: Optional[EpisodeLog] = None
        if self._log_on:
            self.log = EpisodeLog(p.scenario, p.seed, p.agents, household=p.household, syntax=p.syntax.value,
                                  horizon=p.horizon)

    # ------------------------------------------------------------------ relations (observe.World)
    def members(self, type_name: str) -> tuple[str, ...]:
        return self._members.get(type_name, ())

    def point_of(self, name: str) -> str:
        """The point where an agent, thing, basket or place is now."""
        if name in self.pos:
            return self.pos[name]
        where = self.loc.get(name)
        if where is None or where == name:
            return name
        if where in self.pos:
            return self.pos[where]
        if where in self._baskets:
            return self.point_of(where)
        return where

    def room_of(self, name: str) -> str:
        room = self._fixed_room.get(name)            # a room or a place that does not move
        if room is not None:
            return room
        memo = self._room_memo
        if memo is not None:
            room = memo.get(name)
            if room is None:
                room = memo[name] = self.problem.room_of_point(self.point_of(name))
            return room
        return self.problem.room_of_point(self.point_of(name))

    def fixed_room(self, name: str) -> Optional[str]:
        """The room of a room or of a place that never moves (not a basket); None for anything else."""
        return self._fixed_room.get(name)

    def location(self, name: str) -> Optional[str]:
        """What a thing or basket is directly in, on or held by (None for anything else)."""
        return self.loc.get(name)

    def inside(self, x: str, c: str) -> bool:
        return self.loc.get(x) == c and (c in self._containers or c in self._baskets)

    def on(self, x: str, s: str) -> bool:
        where = self.loc.get(x)
        if where == s:
            return s not in self._containers and s not in self._baskets and s in self.problem.places
        return where is not None and where in self._baskets and where != x and self.on(where, s)

    def closed(self, c: str) -> bool:
        return c in self._containers and c not in self.open

    def holds(self, a: str, x: str) -> bool:
        return self.loc.get(x) == a

    def near(self, a: str, place: str) -> bool:
        return self.pos.get(a) == place

    def explored(self, a: str) -> bool:
        room = self.explored_room.get(a)
        return room is not None and room == self.room_of(a)

    def satisfied(self, goal: GoalCount, x: str) -> bool:
        """Does thing ``x`` count for ``goal`` now (in a basket that is on/in the place counts)?"""
        if goal.relation == "on":
            return self.on(x, goal.where)
        where = self.loc.get(x)
        return where == goal.where or (where is not None and where in self._baskets
                                       and self.loc.get(where) == goal.where)

    def delivered(self) -> list[int]:
        """Per goal: how many of its things count (at most its count)."""
        ver, counts = self._delivered
        if ver != self._loc_ver:
            counts = [min(g.count, sum(1 for x in things if self.satisfied(g, x)))
                      for g, things in zip(self.problem.goals, self.problem.goal_things)]
            self._delivered = (self._loc_ver, counts)
        return list(counts)

    def in_place(self, place: str) -> int:
        return sum(1 for w in self.loc.values() if w == place)

    # ------------------------------------------------------------------ knowledge
    def _observe(self) -> None:
        """Evaluate the rules for every agent and fold what each sees into its knowledge."""
        t = self.t
        self._room_memo = {}                 # the world does not change while the rules are evaluated
        try:
            self.visible.update(self._visible_many(self.problem.agents))
        finally:
            self._room_memo = None
        movable, containers, loc, is_open, pos, held_by = self.movable, self._containers, self.loc, self.open, \
            self.pos, self.held
        for a in self.problem.agents:
            seen = self.visible[a]
            k = self.knowledge[a]
            first_seen, belief, belief_step = k.first_seen, k.belief, k.belief_step
            known, believed = len(first_seen), len(belief)
            changed = False
            sig: list[tuple] = []
            for o in seen:
                if o not in first_seen:
                    first_seen[o] = t
                if o in movable:
                    where = loc[o]
                    if not changed and belief.get(o, _UNSET) != where:
                        changed = True
                    belief[o] = where
                    belief_step[o] = t
                    sig.append((o, where))
                elif o in containers and o in is_open:
                    k.open_seen.add(o)
                    sig.append((o, True))
                elif o in pos:
                    held = tuple(held_by[o])
                    k.others[o] = (pos[o], held, t)
                    sig.append((o, pos[o], held))
                    for h in held:
                        first_seen.setdefault(h, t)
                        changed = changed or belief.get(h, _UNSET) != o
                        belief[h], belief_step[h] = o, t
                else:
                    sig.append((o, False))
            for h in held_by[a]:
                first_seen.setdefault(h, t)
                changed = changed or belief.get(h, _UNSET) != a
                belief[h], belief_step[h] = a, t
            if changed or len(first_seen) != known or len(belief) != believed:
                self._kver[a] += 1
            self._seen_sig[a] = frozenset(sig)

    def _tell(self, recipient: str, sender: str, text: str) -> None:
        k = self.knowledge[recipient]
        k.inbox.append((sender, text))
        self._kver[recipient] += 1
        words = _WORD.findall(text)
        places = self._rooms | frozenset(self.problem.places) | frozenset(self.pos)
        for i, w in enumerate(words):
            if w not in self.movable:
                continue
            k.told.setdefault(w, self.t)
            for nxt in words[i + 1:i + 5]:
                if nxt in places and nxt != w:
                    if k.belief_step.get(w, -1) < self.t:
                        k.belief[w] = recipient if nxt == recipient else nxt
                        k.belief_step[w] = self.t
                    break
                if nxt.lower() not in _LINKS:
                    break

    def summary(self, agent: str) -> str:
        """The catalogue's message: what the agent knows, cut to the message limit."""
        k = self.knowledge[agent]
        head = f"I am {agent}, in the {self.room_of(agent)}"
        if self.held[agent]:
            head += ", holding " + ", ".join(self.held[agent])
        parts = [f"{x} in {w}" for x, w in sorted(k.belief.items())
                 if w is not None and w != agent and x in self.problem.things]
        text = head + "."
        if k.explored:
            text += " Explored: " + ", ".join(sorted(k.explored)) + "."
        if parts:
            text += " Seen:"
            for i, part in enumerate(parts):
                piece = (" " if i == 0 else ", ") + part
                if len(text) + len(piece) + 1 > self.problem.message_limit:
                    break
                text += piece
            text += "."
        return text[: self.problem.message_limit]

    # ------------------------------------------------------------------ validation (issue time)
    def _believed_point(self, agent: str, x: str, depth: int = 0) -> Union[str, Reason]:
        k = self.knowledge[agent]
        where = k.belief.get(x)
        if where is None or depth > 3:
            return Reason.WHERE_UNKNOWN
        if where == x:
            return x
        if where == agent:
            return self.pos[agent]
        if where in self.pos:
            return Reason.HELD
        if where in self._baskets:
            return self._believed_point(agent, where, depth + 1)
        return where

    def _check_grab(self, agent: str, a: Action) -> Union[tuple[int, str], Reason]:
        x = a.target
        if x is None or x not in self.movable:
            return Reason.BAD_TARGET
        k = self.knowledge[agent]
        if not k.knows(x):
            return Reason.NOT_KNOWN
        if x in self.held[agent]:
            return Reason.HELD
        if len(self.held[agent]) >= self.problem.hands:
            return Reason.HANDS_FULL
        point = self._believed_point(agent, x)
        if isinstance(point, Reason):
            return point
        if k.belief.get(x) in self._containers and k.belief[x] not in self.open:
            return Reason.CLOSED
        return self.problem.steps(self.pos[agent], point) + 1, point

    def _place_point(self, agent: str, place: str) -> Union[str, Reason]:
        if place in self._baskets:
            if self.loc.get(place) == agent:
                return self.pos[agent]
            if not self.knowledge[agent].knows(place):
                return Reason.NOT_KNOWN
            return self._believed_point(agent, place)
        return place

    def _check_put(self, agent: str, a: Action) -> Union[tuple[int, str], Reason]:
        x = a.target
        if x is None:
            if not self.held[agent]:
                return Reason.NOTHING_HELD
            x = self.held[agent][0]
        if x not in self.held[agent]:
            return Reason.NOT_HELD if x in self.movable else Reason.BAD_TARGET
        place = self.problem.places.get(a.place or "")
        if place is None or place.name == x or (x in self._baskets and place.kind == PlaceKind.BASKET):
            return Reason.BAD_TARGET
        reason = self._room_for(place.name)
        if reason is not None:
            return reason
        point = self._place_point(agent, place.name)
        if isinstance(point, Reason):
            return point
        return self.problem.steps(self.pos[agent], point) + 1, point

    def _room_for(self, place: str, extra: int = 1) -> Optional[Reason]:
        if self.closed(place):
            return Reason.CLOSED
        cap = self.problem.places[place].capacity
        if cap is not None and self.in_place(place) + extra > cap:
            return Reason.FULL
        return None

    def _check_transport(self, agent: str, a: Action) -> Union[tuple[int, str], Reason]:
        goal = self.problem.goal_place
        if goal is None:
            return Reason.NO_GOAL_PLACE
        if not self.held[agent]:
            return Reason.NOTHING_HELD
        reason = self._room_for(goal, len(self.held[agent]))
        if reason is not None:
            return reason
        return self.problem.steps(self.pos[agent], goal) + 1, goal

    def _check_walk(self, agent: str, a: Action) -> Union[tuple[int, str], Reason]:
        if a.target not in self._rooms:
            return Reason.BAD_TARGET
        walk = max(1, self.problem.steps(self.pos[agent], a.target))
        turn = TURN_STEPS if a.kind == ActKind.EXPLORE and self.problem.syntax == ActionSyntax.TDW else 0
        return walk + turn, a.target

    def _check_check(self, agent: str, a: Action) -> Union[tuple[int, str], Reason]:
        if a.target is None or a.target not in self._containers:
            return Reason.BAD_TARGET
        return self.problem.steps(self.pos[agent], a.target) + 1, a.target

    def _check_send(self, agent: str, a: Action) -> Union[tuple[int, str], Reason]:
        if len(a.text) > self.problem.message_limit:
            return Reason.MESSAGE_TOO_LONG
        return self.problem.message_cost, self.pos[agent]

    def check(self, agent: str, a: Action) -> Union[tuple[int, str], Reason]:
        """(duration in steps, the point where the agent ends) if ``agent`` may start ``a`` now, else why not."""
        if self.done:
            return Reason.OVER
        if agent in self.running:
            return Reason.BUSY
        if a.kind == ActKind.WAIT:
            return 1, self.pos[agent]
        return _CHECKS[a.kind](self, agent, a)

    # ------------------------------------------------------------------ stepping
    def resolve(self, agent: str, action: ActionLike) -> tuple[Union[Action, ParseFailure], str]:
        """An action-like value -> (Action or ParseFailure, the text as written)."""
        if action is None:
            return WAIT, ""
        if isinstance(action, str):
            got = parse(action, self.problem)
            return got, action
        if not isinstance(action, Action):
            action = self.catalogue[int(action)]
        held = self.held[agent]
        if action.kind == ActKind.SEND:
            if not action.text:
                action = Action(ActKind.SEND, text=self.summary(agent))
            return action, render(action, self.problem, held=tuple(held))
        # a text depends on the action and, for a put, on the first thing held only: kept per both
        key = (action, held[0] if held and action.kind == ActKind.PUT else None)
        text = self._rendered.get(key)
        if text is None:
            text = self._rendered[key] = render(action, self.problem, held=tuple(held))
        return action, text

    def step(self, actions: Mapping[str, ActionLike]) -> dict[str, Result]:
        """Advance one step with each agent's action (missing agents: None)."""
        results: dict[str, Result] = {}
        texts: dict[str, str] = {}
        sent: dict[str, str] = {}
        if self.done:
            return {a: Result(a, Status.REFUSED, None, "", "The episode is over.", Reason.OVER)
                    for a in self.problem.agents}
        changed = False
        for a, k in self.knowledge.items():
            if k.inbox:
                changed = True
                self._kver[a] += 1
                k.inbox.clear()
        for agent in self.order:
            raw = actions.get(agent)
            act, text = self.resolve(agent, raw)
            if raw is not None:
                texts[agent] = text
            r = results[agent] = self._issue(agent, act, text, sent)
            before = self.last[agent]
            changed = changed or (r.status not in (Status.RUNNING, Status.WAITED)) or (
                r.status == Status.WAITED and before is not None and before.status != Status.WAITED)
        self.t += 1
        completed = self._advance(results)
        for sender, msg in sent.items():
            for other in self.problem.agents:
                if other != sender:
                    self._tell(other, sender, msg)
        if completed:
            self._observe()
            self._check_end()
        elif self.t >= self.problem.horizon:
            self.done = True
        if completed or changed or sent:
            self.version += 1
        for a, r in results.items():
            if r.status != Status.RUNNING:
                self.last[a] = r
        if self.log is not None:
            self.log.step(self.t - 1, texts, sent, {a: self.observation(a) for a in self.problem.agents})
        return results

    def _issue(self, agent: str, act: Union[Action, ParseFailure], text: str, sent: dict) -> Result:
        if isinstance(act, ParseFailure):
            self.refusals += 1
            reason = Reason.UNKNOWN_OBJECT if act.unknown_name else Reason.SYNTAX
            return Result(agent, Status.REFUSED, None, text, act.message, reason)
        if agent in self.running and act.kind == ActKind.WAIT:
            return Result(agent, Status.RUNNING, self.running[agent].action, text, "")
        got = self.check(agent, act)
        if isinstance(got, Reason):
            self.refusals += 1
            return Result(agent, Status.REFUSED, act, text, _refusal_text(got, act), got)
        if act.kind == ActKind.WAIT:
            return Result(agent, Status.WAITED, act, text, "You wait.", steps=1)
        steps, point = got
        if act.kind == ActKind.SEND:
            sent[agent] = act.text
            self.messages += 1
            self.characters += len(act.text)
        self.actions_done[agent] += 1
        if steps <= 0:
            return Result(agent, Status.DONE, act, text, "Done.", steps=0)
        self.running[agent] = _Running(act, text, steps, point, steps)
        return Result(agent, Status.STARTED, act, text, f"Started ({steps} steps).", steps=steps)

    def _advance(self, results: dict[str, Result]) -> bool:
        done = []
        for agent in self.order:
            run = self.running.get(agent)
            if run is None:
                continue
            run.remaining -= 1
            if run.remaining == 0:
                done.append(agent)
        for agent in done:
            run = self.running.pop(agent)
            reason = _COMPLETE[run.action.kind](self, agent, run)
            if reason is None:
                results[agent] = Result(agent, Status.DONE, run.action, run.text, "Done.", steps=run.steps)
            else:
                self.failures += 1
                results[agent] = Result(agent, Status.FAILED, run.action, run.text,
                                        _failure_text(reason, run.action), reason, run.steps)
        return bool(done)

    def _move(self, agent: str, point: str) -> None:
        before = self.problem.room_of_point(self.pos[agent])
        self.pos[agent] = point
        if self.problem.room_of_point(point) != before:
            self.explored_room[agent] = None

    # ------------------------------------------------------------------ completions
    def _done_walk(self, agent: str, run: _Running) -> Optional[Reason]:
        self._move(agent, run.point or self.pos[agent])
        if run.action.kind == ActKind.EXPLORE:
            self.explored_room[agent] = run.action.target
            self.knowledge[agent].explored.add(run.action.target)
            self._kver[agent] += 1
        return None

    def _done_check(self, agent: str, run: _Running) -> Optional[Reason]:
        self._move(agent, run.point or self.pos[agent])
        self.open.add(run.action.target or "")
        self._open_ver += 1
        return None

    def _done_grab(self, agent: str, run: _Running) -> Optional[Reason]:
        self._move(agent, run.point or self.pos[agent])
        x = run.action.target or ""
        where = self.loc[x]
        if where in self.pos and where != agent or self.point_of(x) != self.pos[agent]:
            self.knowledge[agent].belief[x] = None
            self.knowledge[agent].belief_step[x] = self.t
            self._kver[agent] += 1
            return Reason.NOT_THERE
        if where in self._containers and where not in self.open:
            return Reason.CLOSED
        if len(self.held[agent]) >= self.problem.hands:
            return Reason.HANDS_FULL
        self.loc[x] = agent
        self.held[agent].append(x)
        self._loc_ver += 1
        return None

    def _done_put(self, agent: str, run: _Running) -> Optional[Reason]:
        self._move(agent, run.point or self.pos[agent])
        a = run.action
        x = a.target if a.target is not None else (self.held[agent][0] if self.held[agent] else "")
        place = a.place or ""
        if x not in self.held[agent]:
            return Reason.NOT_HELD
        if place in self._baskets and self.loc.get(place) != agent and self.point_of(place) != self.pos[agent]:
            return Reason.NOT_THERE
        reason = self._room_for(place)
        if reason is not None:
            return reason
        self.held[agent].remove(x)
        self.loc[x] = place
        self._loc_ver += 1
        return None

    def _done_transport(self, agent: str, run: _Running) -> Optional[Reason]:
        self._move(agent, run.point or self.pos[agent])
        goal = self.problem.goal_place or ""
        reason = self._room_for(goal, len(self.held[agent]))
        if reason is not None:
            return reason
        for x in self.held[agent]:
            self.loc[x] = goal
        self.held[agent].clear()
        self._loc_ver += 1
        return None

    def _done_nothing(self, agent: str, run: _Running) -> Optional[Reason]:
        return None

    def _check_end(self) -> None:
        goals = self.problem.goals
        if goals and all(n >= g.count for n, g in zip(self.delivered(), goals)):
            self.done = self.success = True
        elif self.t >= self.problem.horizon:
            self.done = True

    # ------------------------------------------------------------------ what an agent is shown
    def available(self, agent: str) -> list[int]:
        """Catalogue indices the agent may choose now (only wait while busy or after the end)."""
        return self._available(agent, self._avail_key(agent))

    def _available(self, agent: str, key: tuple) -> list[int]:
        cached = self._avail.get(agent)
        if cached is not None and cached[0] == key:
            return cached[1]
        if self.done or agent in self.running:
            out = [self.wait_index]
            checked: dict = {}
        else:
            checked = self._startable(agent)
            out = list(checked)
        self._avail[agent] = (key, out)
        self._checked[agent] = checked
        return out

    def _avail_key(self, agent: str) -> tuple:
        """What ``available(agent)`` is computed from: the end, being busy, the agent's point, what it holds,
        its knowledge (version), the open containers (version) and, when it holds something, where things are
        (the places' capacities; version)."""
        if self.done or agent in self.running:
            return (self.done, True)                     # only wait, whatever else changes
        held = self.held[agent]
        return (False, False, self.pos[agent], tuple(held), self._kver[agent], self._open_ver,
                self._loc_ver if held else -1)

    def _candidate_table(self) -> tuple[list[int], list[int], Optional[int], list[tuple[str, int]],
                                        dict[str, list[int]]]:
        """The catalogue indices ``_startable`` tries, built once: the ones whose check depends on the agent's
        point only, before the grabs (explore, goto, check) and after the transport (send, wait), the
        transport's (TDW with a goal place, else None), the grabs (thing, index) and the puts per held
        thing (in catalogue order: explore, goto, check, grab, put, transport, send, wait)."""
        p, index = self.problem, self.index
        before = [index[Action(ActKind.EXPLORE, r)] for r in p.rooms]
        if p.syntax == ActionSyntax.TDW:
            before += [index[Action(ActKind.GOTO, r)] for r in p.rooms]
        before += [index[Action(ActKind.CHECK, c)] for c in p.containers]
        transport = index[Action(ActKind.TRANSPORT)] if p.syntax == ActionSyntax.TDW and p.goal_place is not None \
            else None
        after = [self.send_index, self.wait_index]
        grabs = [(x, index[Action(ActKind.GRAB, x)]) for x in (*p.things, *p.baskets)]
        puts = {x: [index[Action(ActKind.PUT, x, q)] for q in p.places if Action(ActKind.PUT, x, q) in index]
                for x in (*p.things, *p.baskets)}
        return before, after, transport, grabs, puts

    def _startable(self, agent: str) -> dict[int, tuple[int, str]]:
        """For an idle agent while the episode runs: every catalogue index it may start now -> (steps, point),
        in index order.  Walks, checks, send and wait depend on the agent's point only: their checks are kept
        per point (the problem's distances do not change)."""
        before, after, transport, grabs, puts = self._cand_table
        cat, here = self.catalogue, self.pos[agent]
        fixed = self._by_point.get(here)
        if fixed is None:
            pre, post = ([(i, got) for i in part if not isinstance(got := self.check(agent, cat[i]), Reason)]
                         for part in (before, after))
            fixed = self._by_point[here] = (pre, post)
        out = dict(fixed[0])
        k = self.knowledge[agent]
        seen, told = k.first_seen, k.told
        held = self.held[agent]
        if len(held) < self.problem.hands:                # hands full: every grab is refused
            # _check_grab for a known thing the agent does not hold, with free hands
            belief, containers, is_open, steps = k.belief, self._containers, self.open, self.problem.steps
            for x, i in grabs:
                if (x in seen or x in told) and x not in held:
                    point = self._believed_point(agent, x)
                    if isinstance(point, Reason) or (belief.get(x) in containers and belief[x] not in is_open):
                        continue
                    out[i] = (steps(here, point) + 1, point)
        if held:
            put = self._check_put
            for i in (puts.get(held[0], ()) if len(held) == 1 else sorted(j for x in held for j in puts.get(x, ()))):
                got = put(agent, cat[i])
                if not isinstance(got, Reason):
                    out[i] = got
        if transport is not None:
            got = self._check_transport(agent, cat[transport])
            if not isinstance(got, Reason):
                out[transport] = got
        out.update(fixed[1])
        return out

    def cost(self, agent: str, a: Action) -> tuple[float, int]:
        """(metres walked, steps) of an action the agent may start now."""
        got = self.check(agent, a)
        if isinstance(got, Reason):
            return 0.0, 0
        steps, point = got
        return float(self.problem.metres(self.pos[agent], point)), steps

    def available_text(self, agent: str) -> str:
        """The "available actions" list: one action per line with the agent's cost."""
        return self._available_text(agent, self._avail_key(agent))

    def _available_text(self, agent: str, key: tuple) -> str:
        avail = self._available(agent, key)
        if agent in self.running or self.done:
            return "[wait] (your action is still running)" if self.problem.syntax == ActionSyntax.CWAH \
                else "wait (your action is still running)"
        checked = self._checked[agent]
        here = self.pos[agent]
        first = self.held[agent][0] if self.held[agent] else None
        before, after = self._by_point[here]               # avail: these, the grabs/puts/transport, those
        blocks = self._point_texts.get(here)
        if blocks is None:
            text_before, text_after = ("\n".join(self._line(i, None, here, got) for i, got in part)
                                       for part in (before, after))
            blocks = self._point_texts[here] = (text_before, text_after)
        lines = [blocks[0]] if before else []
        catalogue, put = self.catalogue, ActKind.PUT
        for i in avail[len(before):len(avail) - len(after)]:
            lines.append(self._line(i, first if catalogue[i].kind == put else None, here, checked[i]))
        if after:
            lines.append(blocks[1])
        return "\n".join(lines)

    def _line(self, i: int, first: Optional[str], here: str, got: tuple[int, str]) -> str:
        """One line of the available-actions list (kept per action, held thing for a put, point and cost)."""
        steps, point = got
        key = (i, first, here, point, steps)
        line = self._texts.get(key)
        if line is None:
            line = self._texts[key] = self._cost_line(self.catalogue[i], first, here, point, steps)
        return line

    def _cost_line(self, a: Action, first: Optional[str], here: str, point: str, steps: int) -> str:
        if a.kind == ActKind.SEND:
            text = render(Action(ActKind.SEND, text="<text>"), self.problem).replace("<<text>>", "<text>")
        else:
            text = render(a, self.problem, held=(first,) if first else ())
        metres = float(self.problem.metres(here, point))
        unit = "step" if steps == 1 else "steps"
        return f"{text} - my cost: {metres:.2f} meters ({steps} {unit})"

    def observation(self, agent: str) -> str:
        """The text shown to ``agent`` now: a status line, then what it sees, knows and may do."""
        head, body = self.observation_parts(agent)
        return head + "\n" + body

    def observation_parts(self, agent: str) -> tuple[str, str]:
        """``observation(agent)`` as (status line, the rest); the rest is the same str object for as long as
        it does not change (callers may key their own caches on its identity)."""
        last = self.last[agent]
        shown = (last.text, last.status, last.message) if last is not None and last.status != Status.WAITED else None
        akey = self._avail_key(agent)
        key = (akey, self.pos[agent], tuple(self.held[agent]), self._kver[agent], self._seen_sig[agent], shown)
        cached = self._bodies.get(agent)
        if cached is None or cached[0] != key:
            cached = self._bodies[agent] = (key, self._body(agent, akey))
        body = cached[1]
        run = self.running.get(agent)
        head = f"Step {self.t}/{self.problem.horizon}."
        if self.done:
            head += " The episode is over: " + ("success." if self.success else "the horizon is reached.")
        elif run is not None:
            head += f" You are busy: {run.text} ({run.remaining} steps left)."
        return head, body

    def _name(self, x: str) -> str:
        i = self.problem.ids.get(x)
        return f"<{x}> ({i})" if i is not None else f"<{x}>"

    def _where(self, x: str, where: Optional[str]) -> str:
        if where is None:
            return "somewhere unknown"
        if where in self.pos:
            return f"held by {where}"
        place = self.problem.places.get(where)
        if where == x or place is None:
            return f"in the {self.problem.room_of_point(where)}"
        return ("on " if place.kind == PlaceKind.SURFACE else "in ") + self._name(where)

    def _body(self, agent: str, akey: tuple) -> str:
        p = self.problem
        point = self.pos[agent]
        key0 = (point, tuple(self.held[agent]))
        cached = self._parts.get((agent, "you"))
        if cached is None or cached[0] != key0:
            room = p.room_of_point(point)
            at = f", at {self._name(point)}" if point in p.places else ""
            cached = self._parts[(agent, "you")] = (key0, f"You are {agent}, in the {room}{at}. You hold: "
                                                    + (", ".join(self._name(x) for x in key0[1]) or "nothing")
                                                    + f" (hands: {p.hands}).")
        lines = [cached[1], self._goal_line]
        sig = self._seen_sig[agent]
        cached = self._parts.get((agent, "seen"))
        if cached is None or cached[0] != sig:
            cached = self._parts[(agent, "seen")] = (sig, self._seen_lines(agent))
        lines += cached[1]
        key = (self._kver[agent], sig)
        cached = self._parts.get((agent, "known"))
        if cached is None or cached[0] != key:
            cached = self._parts[(agent, "known")] = (key, self._known_lines(agent))
        lines += cached[1]
        last = self.last[agent]
        if last is not None and last.status != Status.WAITED:
            lines.append(f"Your last action: {last.text or '(none)'}: {last.status.value}. {last.message}")
        lines.append("Available actions:")
        cached = self._parts.get((agent, "avail"))
        if cached is None or cached[0] != akey:
            cached = self._parts[(agent, "avail")] = (akey, self._available_text(agent, akey))
        lines.append(cached[1])
        return "\n".join(lines)

    def _at(self, x: str, where: Optional[str]) -> str:
        """``<x> (id)`` and where it is (``_where``), kept per (x, where)."""
        key = (x, where)
        text = self._located.get(key)
        if text is None:
            text = self._located[key] = f"{self._name(x)} {self._where(x, where)}"
        return text

    def _known_lines(self, agent: str) -> list[str]:
        """What the agent remembers, was told, explored and the messages it got (the knowledge part)."""
        p, k = self.problem, self.knowledge[agent]
        lines = []
        # in id order: the belief dict's order comes from iterating sets of names, which differs between
        # processes (PYTHONHASHSEED), and an observation text (its log digest) must not
        visible, ids = self.visible[agent], p.ids
        remembered = [f"{self._at(x, w)} (known since step {k.known_at(x)})"
                      for x, w in sorted(k.belief.items(), key=lambda kv: ids.get(kv[0], 0))
                      if x not in visible and w != agent]
        told_only = [self._name(x) for x in k.told if x not in k.belief]
        if remembered:
            lines.append("You remember: " + "; ".join(remembered) + ".")
        if told_only:
            lines.append("You were told about: " + ", ".join(told_only) + ".")
        if k.explored:
            lines.append("Rooms you explored: " + ", ".join(sorted(k.explored)) + ".")
        for sender, msg in k.inbox:
            lines.append(f"Message from {sender}: {msg}")
        return lines

    def _seen_lines(self, agent: str) -> list[str]:
        seen = self.visible[agent]
        if not seen:
            return ["You see nothing."]
        things, places, agents = [], [], []
        ids, pos, movable, loc = self.problem.ids, self.pos, self.movable, self.loc
        for o in sorted(seen, key=lambda n: ids.get(n, 0)):
            if o in pos:
                held = ", ".join(self._name(h) for h in self.held[o]) or "nothing"
                agents.append(f"{o} at {self._name(pos[o])} holding {held}")
            elif o in movable:
                things.append(self._at(o, loc[o]))
            elif o in self._containers:
                places.append(f"{self._name(o)} ({'open' if o in self.open else 'closed'})")
            elif o in self.problem.places:
                places.append(self._name(o))
        out = []
        if places:
            out.append("You see the places: " + ", ".join(places) + ".")
        if things:
            out.append("You see the objects: " + "; ".join(things) + ".")
        if agents:
            out.append("You see: " + "; ".join(agents) + ".")
        return out

    # ------------------------------------------------------------------ metrics
    def metrics(self) -> dict:
        """success, steps, transport rate per category and in total, messages, characters, refusals."""
        p = self.problem
        got: dict[str, list[int]] = {}
        for g, n in zip(p.goals, self.delivered()):
            cell = got.setdefault(p.category(g), [0, 0])
            cell[0] += n
            cell[1] += g.count
        done = sum(c[0] for c in got.values())
        total = sum(c[1] for c in got.values())
        rate = {cat: (c[0] / c[1] if c[1] else 1.0) for cat, c in got.items()}
        rate["total"] = done / total if total else 1.0
        return {"scenario": p.scenario, "seed": p.seed, "success": self.success, "steps": self.t,
                "horizon": p.horizon, "transport_rate": rate,
                "delivered": {cat: {"delivered": c[0], "of": c[1]} for cat, c in got.items()},
                "messages": self.messages, "characters": self.characters, "refusals": self.refusals,
                "failures": self.failures, "actions": dict(self.actions_done)}


_CHECKS = {ActKind.EXPLORE: HouseholdEngine._check_walk, ActKind.GOTO: HouseholdEngine._check_walk,
           ActKind.CHECK: HouseholdEngine._check_check, ActKind.GRAB: HouseholdEngine._check_grab,
           ActKind.PUT: HouseholdEngine._check_put, ActKind.TRANSPORT: HouseholdEngine._check_transport,
           ActKind.SEND: HouseholdEngine._check_send}
_COMPLETE = {ActKind.EXPLORE: HouseholdEngine._done_walk, ActKind.GOTO: HouseholdEngine._done_walk,
             ActKind.CHECK: HouseholdEngine._done_check, ActKind.GRAB: HouseholdEngine._done_grab,
             ActKind.PUT: HouseholdEngine._done_put, ActKind.TRANSPORT: HouseholdEngine._done_transport,
             ActKind.SEND: HouseholdEngine._done_nothing, ActKind.WAIT: HouseholdEngine._done_nothing}

_REFUSALS = {
    Reason.SYNTAX: "I cannot read that action", Reason.UNKNOWN_OBJECT: "there is no such object",
    Reason.NOT_KNOWN: "you have not seen {t} nor been told about it",
    Reason.WHERE_UNKNOWN: "you do not know where {t} is now", Reason.BAD_TARGET: "that action does not apply to {t}",
    Reason.HANDS_FULL: "your hands are full", Reason.HELD: "{t} is held by an agent",
    Reason.NOT_HELD: "you do not hold {t}", Reason.NOTHING_HELD: "you hold nothing",
    Reason.CLOSED: "the container is closed", Reason.FULL: "there is no room left there",
    Reason.BUSY: "your previous action is still running", Reason.NO_GOAL_PLACE: "the episode has no goal place",
    Reason.MESSAGE_TOO_LONG: "the message is longer than the limit", Reason.OVER: "the episode is over",
    Reason.NOT_THERE: "{t} is not there",
}


def _refusal_text(reason: Reason, a: Action) -> str:
    return "Refused: " + _REFUSALS[reason].format(t=a.target or a.place or "it") + "."


def _failure_text(reason: Reason, a: Action) -> str:
    return "Failed: " + _REFUSALS[reason].format(t=a.target or a.place or "it") + "."
