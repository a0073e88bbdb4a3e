"""The scripted explore-then-deliver baseline for household episodes (issue #13).

Input: a ``HouseholdEngine`` (any number of agents).  Output: ``Baseline(engine).actions()`` -> one
``Action`` per agent for the current step (WAIT for busy agents), and ``run_baseline(problem)`` -> the
finished engine (its ``metrics()``, its ``log`` with ``log=True``).

Each agent decides alone from its own knowledge (no peeking at the world, no messages), deterministically
(ties go to the earlier action of the catalogue):
1. if it holds a goal thing and has no free hand or knows no other needed thing it can grab: deliver the
   first goal thing it holds (TDW syntax: ``transport`` when it goes to the goal place);
2. else grab the nearest needed thing it knows where to find (a thing of a goal that, as far as it knows, is
   not yet met; not held by anyone);
3. else open (check) the nearest closed container it has seen and not yet looked into;
4. else explore the nearest room it has not explored (when none is left, it starts over);
5. else wait.
"""
from __future__ import annotations

from typing import Optional

from chronoplan.compiler.household.problem import HouseholdProblem
from chronoplan.compiler.ir import ActionSyntax
from chronoplan.runtime.household.actions import WAIT, Action, ActKind
from chronoplan.runtime.household.engine import HouseholdEngine, Reason


class Baseline:
    """The policy; keeps, per agent, the containers it checked and the rooms it explored in this round."""

    def __init__(self, engine: HouseholdEngine) -> None:
        self.engine = engine
        self.checked: dict[str, set] = {a: set() for a in engine.problem.agents}
        self.explored: dict[str, set] = {a: set() for a in engine.problem.agents}

    def actions(self) -> dict[str, Action]:
        """One action per agent for this step."""
        e = self.engine
        return {a: (WAIT if a in e.running or e.done else self.decide(a)) for a in e.problem.agents}

    def _need(self, agent: str) -> tuple[list[int], dict[str, list[int]]]:
        """Per goal, how many more things it needs as far as ``agent`` knows; per thing, its goals."""
        e, p = self.engine, self.engine.problem
        k = e.knowledge[agent]
        need: list[int] = []
        goals_of: dict[str, list[int]] = {}
        for gi, (g, things) in enumerate(zip(p.goals, p.goal_things)):
            met = sum(1 for x in things if k.belief.get(x) == g.where or k.belief.get(x) == agent)
            need.append(g.count - met)
            for x in things:
                goals_of.setdefault(x, []).append(gi)
        return need, goals_of

    def _cheapest(self, agent: str, options: list[Action]) -> Optional[Action]:
        best: Optional[tuple[int, int, Action]] = None
        e = self.engine
        for a in options:
            got = e.check(agent, a)
            if isinstance(got, Reason):
                continue
            key = (got[0], e.index.get(a, 0), a)
            if best is None or key[:2] < best[:2]:
                best = key
        return best[2] if best is not None else None

    def decide(self, agent: str) -> Action:
        e, p = self.engine, self.engine.problem
        k = e.knowledge[agent]
        need, goals_of = self._need(agent)
        wanted = [x for x, gis in goals_of.items()
                  if any(need[g] > 0 for g in gis) and k.knows(x) and k.belief.get(x) is not None
                  and k.belief[x] not in e.pos and k.belief[x] not in {p.goals[g].where for g in gis}]
        held_goal = [x for x in e.held[agent] if x in goals_of]
        free = len(e.held[agent]) < p.hands
        grab = self._cheapest(agent, [Action(ActKind.GRAB, x) for x in wanted]) if free else None
        if held_goal and grab is None:
            return self._deliver(agent, held_goal[0], goals_of)
        if grab is not None:
            return grab
        if free:
            wanted_closed = [k.belief[x] for x in wanted if k.belief[x] in e._containers]
            todo = [c for c in p.containers if c in k.first_seen and c not in self.checked[agent]
                    and (c not in k.open_seen or c in wanted_closed)]
            check = self._cheapest(agent, [Action(ActKind.CHECK, c) for c in todo])
            if check is not None:
                self.checked[agent].add(check.target)
                return check
        return self._explore(agent)

    def _deliver(self, agent: str, x: str, goals_of: dict[str, list[int]]) -> Action:
        e, p = self.engine, self.engine.problem
        where = p.goals[goals_of[x][0]].where
        if p.syntax == ActionSyntax.TDW and where == p.goal_place:
            return Action(ActKind.TRANSPORT)
        if e.closed(where):
            return Action(ActKind.CHECK, where)
        return Action(ActKind.PUT, x, where)

    def _explore(self, agent: str) -> Action:
        e, p = self.engine, self.engine.problem
        left = [r for r in p.rooms if r not in self.explored[agent]]
        if not left:
            self.explored[agent].clear()
            self.checked[agent].clear()
            left = [r for r in p.rooms if r != e.room_of(agent)] or list(p.rooms)
        best = self._cheapest(agent, [Action(ActKind.EXPLORE, r) for r in left])
        if best is None:
            return WAIT
        self.explored[agent].add(best.target)
        return best


def run_baseline(problem: HouseholdProblem, *, log: bool = False) -> HouseholdEngine:
    """Play the episode with every agent on the baseline; returns the finished engine."""
    engine = HouseholdEngine(problem, log=log)
    policy = Baseline(engine)
    while not engine.done:
        engine.step(policy.actions())
    return engine
