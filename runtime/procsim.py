"""Discrete-event simulator for step-level scenarios (Recipe2Plan, TimeArena, ParaCook abstract tasks).

Input: a ``compiler.instantiate.ProcedureProblem`` and chunks (``Chunk``: task, step, start, duration,
agent, plan index).  Output: ``SimResult`` (every ``Violation`` in event order, the runs executed, step
completion times, the violation-free prefix used by the metrics).  ``ProcState`` is the incremental core
shared by the batch replay (``simulate``) and the interactive environment (``runtime.env``).

Semantics (docs/benchmarks/recipe2plan.md lists where they differ from the original environments):
- A chunk of step s started at t with length d runs on [t, t+d).  Its agent is occupied on
  [t, t+o): o = d (continuous), 0 (autonomous: starting costs nothing) or min(k, d) ("autonomous for k").
  Two occupations of one agent may not overlap; zero-length occupations never conflict.
- Each resource named in ``uses`` is held on [t, t+d); at most ``capacity`` chunks hold it at once.
  ``needs`` values are checked at the chunk's start against the current value; ``sets`` values are
  written when the step completes (an oven has its temperature once preheating is over).
- Every prerequisite must have completed at or before the first chunk's start.
- A non-interruptible step runs once, for its full duration; an interruptible one may run in several
  non-overlapping chunks whose lengths add up to its duration.  A step completes at its last chunk's end.
- Lag (a, b) of step Y relative to X: a <= start(Y) - end(X) <= b, start(Y) = first chunk's start,
  end(X) = completion.  Checked when Y starts, when X completes after Y started, when end(X) + b passes
  without Y, and at the end of the plan (Y started, X never completed).
- Release: no chunk before it.  Deadline: completed by it.  Negative start times are in the past.
  The scenario limit bounds the makespan.  Goal: every step of every task completed.
- Events at one instant: ends, then starts (agent order, then plan order), then checks (runtime.events).
Batch replay applies an action despite timing/occupancy violations (so later actions are judged on the
plan's own timeline) and skips actions that cannot run at all (unknown names, repeats, empty durations).
"""
from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime.events import CHECK, START
from chronoplan.runtime.procstate import ProcState
from chronoplan.runtime.simtypes import Chunk, Run, SimResult, StepState, step_name

__all__ = ["Chunk", "Run", "SimResult", "StepState", "ProcState", "simulate", "step_name"]


def simulate(problem: ProcedureProblem, chunks: Iterable[Chunk], *, first: bool = False,
             suppress: Iterable[tuple[str, int]] = ()) -> SimResult:
    """Batch replay of a whole plan; ``first`` stops at the first violation (in event order).
    ``suppress``: steps not to report as missing (their entries were unreadable)."""
    state = ProcState(problem, first=first)
    state.suppressed.update(suppress)
    state.planned.update(suppress)
    for c in chunks:
        s = problem.step(c.task, c.step)
        if s is not None:
            state.planned.add(s.key)
            end = c.start + (c.duration if c.duration is not None else s.duration)
            if state.expected_end.get(s.key) is None or end > state.expected_end[s.key]:
                state.expected_end[s.key] = end
        state.queue.push(c.start, START, c, state.agent_rank.get(c.agent, 0), c.index)
    if problem.limit is not None:
        state.queue.push(problem.limit, CHECK, ("limit",))
    state.advance()
    if state.stopped:
        state.run_out()
    else:
        ends = [r.end for r in state.runs]
        state.finish(max(ends) if ends else Fraction(0))
    return state.result()
