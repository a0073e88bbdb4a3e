"""Exact minimum makespan of a one-agent step problem under TimeArena's rules (a test oracle).

Input: a ``compiler.instantiate.ProcedureProblem`` with integer durations (TimeArena minutes) and one agent.
Output: ``Solution(makespan, starts)``: the least completion time of all steps and one schedule reaching it
({(task, step): start}).

Rules: a step may start once all its prerequisites are complete; the agent is busy for ``occupy_for``
minutes from the start (the whole duration for occupying actions, 1 for background ones); every resource the
step uses is held for its whole duration and at most ``capacity`` steps hold it at once (object
occupancy).  ``occupancy=False`` ignores resources, which is the model of the repository's oracle.

Method: with one agent, every step needs the agent at its start (at least one minute), so a schedule is a
sequence of distinct start times.  For a fixed order, starting every step as early as possible is optimal
(all constraints are monotone in earlier starts), so a depth-first search over start orders with earliest
starts finds the optimum (serial schedule generation).  Pruning: a critical-path bound, an agent-load bound,
and dominance of search states that repeat the same set of started steps and the same running steps
(relative to the agent's free time) at a later time.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from chronoplan.compiler.instantiate import ProcedureProblem


@dataclass(frozen=True)
class Solution:
    makespan: int
    starts: dict           # (task, step) -> start minute


def _int(x: Fraction) -> int:
    if Fraction(x).denominator != 1:
        raise ValueError(f"non-integer time {x}")
    return int(x)


def solve(problem: ProcedureProblem, *, occupancy: bool = True) -> Solution:  # noqa: C901
    if len(problem.agents) != 1:
        raise ValueError("one agent only")
    steps = list(problem.steps)
    n = len(steps)
    pos = {s.key: i for i, s in enumerate(steps)}
    dur = [_int(s.duration) for s in steps]
    occ = [max(1, _int(s.occupy_for)) for s in steps]     # every start costs the agent a minute
    preds = [[pos[(s.task, p)] for p in s.prerequisites] for s in steps]
    pred_mask = [sum(1 << p for p in ps) for ps in preds]
    succs = [[j for j in range(n) if i in preds[j]] for i in range(n)]
    res_index = {r.name: k for k, r in enumerate(problem.resources)}
    cap = [r.capacity for r in problem.resources]
    uses = [sorted({res_index[u.resource] for u in s.uses}) if occupancy else [] for s in steps]

    order = _topological(n, preds)
    tail = [0] * n                     # longest duration chain from i to the end, i included
    for i in reversed(order):
        tail[i] = dur[i] + max((tail[j] for j in succs[i]), default=0)
    slack = [dur[i] - occ[i] for i in range(n)]
    full = (1 << n) - 1

    best = [sum(dur) + sum(occ) + 1, None]
    seen: dict = {}

    def bound(mask, agent_free, start, end):
        remaining = [i for i in range(n) if not mask >> i & 1]
        lb = max((end[i] for i in range(n) if mask >> i & 1), default=0)
        if remaining:
            lb = max(lb, agent_free + sum(occ[i] for i in remaining) + min(slack[i] for i in remaining))
            head = {}
            for i in order:
                if mask >> i & 1:
                    continue
                h = agent_free
                for p in preds[i]:
                    h = max(h, end[p] if mask >> p & 1 else head[p] + dur[p])
                head[i] = h
                lb = max(lb, h + tail[i])
        return lb

    def earliest(i, mask, agent_free, start, end):
        t = agent_free
        for p in preds[i]:
            t = max(t, end[p])
        while True:
            moved = False
            for r in uses[i]:
                holders = [end[j] for j in range(n) if mask >> j & 1 and r in uses[j] and end[j] > t]
                if len(holders) >= cap[r]:
                    t = min(holders)
                    moved = True
            if not moved:
                return t

    def dfs(mask, agent_free, start, end):
        if mask == full:
            mk = max(end)
            if mk < best[0]:
                best[0], best[1] = mk, list(start)
            return
        if bound(mask, agent_free, start, end) >= best[0]:
            return
        running = tuple(sorted((i, end[i] - agent_free) for i in range(n) if mask >> i & 1 and end[i] > agent_free))
        key = (mask, running)
        if key in seen and seen[key] <= agent_free:
            return
        seen[key] = agent_free
        cands = []
        for i in range(n):
            if not mask >> i & 1 and pred_mask[i] & mask == pred_mask[i]:
                cands.append((earliest(i, mask, agent_free, start, end), -tail[i], i))
        for t, _, i in sorted(cands):
            start[i], end[i] = t, t + dur[i]
            dfs(mask | 1 << i, t + occ[i], start, end)
            start[i], end[i] = None, 0

    dfs(0, 0, [None] * n, [0] * n)
    return Solution(best[0], {steps[i].key: best[1][i] for i in range(n)})


def _topological(n, preds):
    out, done = [], set()
    while len(out) < n:
        for i in range(n):
            if i not in done and all(p in done for p in preds[i]):
                out.append(i)
                done.add(i)
    return out
