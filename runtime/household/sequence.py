"""A planner's sequential plan of the household PDDL export, played as an episode (issue #13 item 5).

Input: a ``HouseholdProblem``, its ``PddlExport`` (``compiler.pddl.household``: the omniscient sequential
relaxation) and the planner's actions (objects with ``name`` and ``args``, e.g. ``runtime.planners.external``'s
outcome).  Output: ``to_steps(problem, export, actions) -> list[Step]`` (each agent's high-level actions in plan
order with the things and places they touch) and ``play(problem, steps) -> Played`` (the omniscient engine
after the episode, the plan per agent as ``(start step, Action)`` and an error text or None).

Mapping: a ``walk`` is folded into the agent's next action (every high-level action walks to its target);
``open`` -> check, ``grab`` -> grab, ``put`` and ``put-in`` -> put; ``transport`` with the ``drop``s up to
``finish-transport`` -> transport when it drops everything the agent holds, else one put on the goal place
per dropped thing; ``settle``, ``count-gI`` and ``finish-transport`` are bookkeeping.

Playing: the agents act at once; an agent's next action starts as soon as it is idle and every earlier action
of the plan (of any agent) that touches one of the same things or places has completed, so the episode keeps
the plan's order wherever it matters and runs the rest in parallel.  Its steps are at most the plan's total
cost.  An action the engine refuses or fails is reported, never raised.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from chronoplan.compiler.household.problem import HouseholdProblem
from chronoplan.compiler.ir import PlaceKind
from chronoplan.compiler.pddl.common import PddlExport
from chronoplan.runtime.household.actions import Action, ActKind
from chronoplan.runtime.household.engine import HouseholdEngine


@dataclass(frozen=True)
class Step:
    """One high-level action of one agent, with the things and places it touches."""

    agent: str
    action: Action
    touches: frozenset


@dataclass(frozen=True)
class Played:
    engine: HouseholdEngine
    plan: dict
    error: Optional[str]


def to_steps(problem: HouseholdProblem, export: PddlExport, actions) -> list[Step]:  # noqa: C901
    """The plan's high-level actions in order (module docstring).  What an action touches: its things, the
    containers it opens or reaches into and the places with a capacity it fills (a surface without one is shared
    freely)."""
    def orig(name: str) -> str:
        return export.names.lookup(name)[1]

    def shared(*names: str) -> frozenset:
        return frozenset(x for x in names if x not in problem.places or problem.places[x].kind == PlaceKind.CONTAINER
                         or problem.places[x].capacity is not None)

    held: dict = {a: [] for a in problem.agents}
    steps: list[Step] = []
    unloading: dict = {}                        # agent -> things dropped by the running transport
    for act in actions:
        info = export.actions.get(act.name)
        args = [orig(x) for x in act.args]
        if info is None:                                      # count-gI: bookkeeping
            continue
        if act.name == "drop":
            unloading[args[0]].append(args[2])
            held[args[0]].remove(args[2])
            continue
        if act.name == "finish-transport":
            agent, dropped = args[0], unloading.pop(args[0])
            goal = problem.goal_place or ""
            if not held[agent]:
                steps.append(Step(agent, Action(ActKind.TRANSPORT), shared(*dropped, goal)))
            else:
                steps += [Step(agent, Action(ActKind.PUT, x, goal), shared(x, goal)) for x in dropped]
            continue
        kind = info.kind
        if kind in ("walk", "count"):
            continue
        agent = args[info.agent or 0]
        if kind == "transport":
            unloading[agent] = []
        elif kind == "open":
            steps.append(Step(agent, Action(ActKind.CHECK, args[1]), shared(args[1])))
        elif kind == "grab":
            x, where = args[2], args[3]
            held[agent].append(x)
            steps.append(Step(agent, Action(ActKind.GRAB, x), shared(x, where)))
        elif kind == "put":
            x, place = args[info.target or 0], args[info.place or 0]
            held[agent].remove(x)
            steps.append(Step(agent, Action(ActKind.PUT, x, place), shared(x, place)))
    return steps


def play(problem: HouseholdProblem, steps: list[Step]) -> Played:
    """Run the steps through an omniscient engine, each agent in its order, in parallel where allowed."""
    engine = HouseholdEngine(problem, omniscient=True)
    deps = []
    for i, s in enumerate(steps):
        deps.append({j for j in range(i) if steps[j].agent != s.agent and steps[j].touches & s.touches})
    queues: dict = {a: [i for i, s in enumerate(steps) if s.agent == a] for a in problem.agents}
    current: dict = {}
    done: set = set()
    plan: dict = {a: [] for a in problem.agents}
    while not engine.done:
        for a in list(current):
            if a not in engine.running:
                done.add(current.pop(a))
        acts: dict = {}
        for a in problem.agents:
            if a in current or not queues[a]:
                continue
            i = queues[a][0]
            if deps[i] <= done:
                acts[a] = steps[i].action
                current[a] = queues[a].pop(0)
                plan[a].append((engine.t, steps[i].action))
        if not acts and not current:
            if any(queues.values()):                          # pragma: no cover - deps point backwards only
                return Played(engine, plan, "the plan's actions wait for each other")
            break
        for a, res in engine.step(acts).items():
            if not res.ok:
                return Played(engine, plan, f"step {engine.t - 1}: {a}'s {res.text or res.action}: {res.message}")
    return Played(engine, plan, None)
