"""Agents for Step text on a scenario with several agents: Recipe2Plan's ``Step(N, recipe, duration, start)``
names no agent, which such a scenario needs (issue 28 item 13).

Input: a ``ProcedureProblem`` and the ``ReadPlan`` of a Step text (or plan.json list) plan.  Output:
``assign_agents(problem, read)`` -> (the plan with an agent on each chunk that needs one, the ``W004`` note that
says so), or (the plan as it is, None) when nothing was assigned (one agent, every chunk names its agent --
``Step(N, recipe, duration, start, agent)`` -- or needs none).

The rule (deterministic, from the plan's own times; docs/errors.md, W004): chunks are taken in the order
(start, plan index); a chunk gets the first agent, in the scenario's declared order, that no chunk assigned
before it occupies at its start (a chunk occupies its agent for ``SchedStep.occupation`` of its length: its
duration, else what is left of its step); when every agent is occupied, the agent that is free first (ties: the
declared order), so that the grader reports the overlap (E401). A chunk of an unknown step, or of a step that
needs no agent (it occupies nobody, under the overlap rule), is left as written: the engine decides.
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Optional

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.validators.plans import ReadPlan
from chronoplan.validators.report import PlanError


def needs_assignment(problem: ProcedureProblem, read: ReadPlan) -> bool:
    """Does a chunk of this Recipe2Plan plan lack the agent a several-agent scenario needs?"""
    return (read.format == "recipe2plan" and len(problem.agents) > 1
            and any(c.agent is None for c in read.actions))


def assign_agents(problem: ProcedureProblem, read: ReadPlan) -> tuple[ReadPlan, Optional[PlanError]]:
    """See the module docstring."""
    if not needs_assignment(problem, read):
        return read, None
    agents = problem.agents
    free: dict = {}                                      # agent -> end of the occupation of its chunks
    done: dict = {}                                      # step key -> length given to its chunks so far
    exclusive = problem.occupancy is ir.OccupancyRule.EXCLUSIVE
    assigned: dict = {}
    for c in sorted(read.actions, key=lambda c: (c.start, c.index)):
        s = problem.step(c.task, c.step)
        if s is None:
            continue
        length = c.duration if c.duration is not None else max(s.duration - done.get(s.key, 0), Fraction(0))
        done[s.key] = done.get(s.key, 0) + length
        if c.agent is not None:
            free[c.agent] = max(free.get(c.agent, c.start), c.start + s.occupation(length))
            continue
        if s.occupancy is ir.Occupancy.START and not exclusive:
            continue
        idle = [a for a in agents if free.get(a, c.start) <= c.start]
        agent = idle[0] if idle else min(agents, key=lambda a: free[a])
        free[agent] = max(free.get(agent, c.start), c.start + s.occupation(length))
        assigned[c.index] = agent
    if not assigned:
        return read, None
    actions = tuple(replace(c, agent=assigned[c.index]) if c.index in assigned else c for c in read.actions)
    names = ", ".join(f"entry {i}: {a}" for i, a in list(sorted(assigned.items()))[:6])
    more = f", ... ({len(assigned)} entries)" if len(assigned) > 6 else ""
    note = PlanError("W004", f"the Step entries name no agent and scenario {problem.scenario} has "
                     f"{len(agents)} ({', '.join(agents)}): each was given the first agent free at its start "
                     f"({names}{more})", "name the agent as a fifth field: Step(step, recipe, duration, start, agent)")
    return replace(read, actions=actions), note
