"""Discrete-event simulator for step-level scenarios (Recipe2Plan, TimeArena, ParaCook abstract tasks).

Input: a ``compiler.instantiate.ProcedureProblem`` and chunks (``Chunk``: task, step, start, duration,
agent, plan index).  Output: ``SimResult`` (every ``Violation`` in event order, the runs executed, step
completion times, the violation-free prefix used by the metrics).  ``ProcState`` is the incremental core
shared by the batch replay (``simulate``) and the interactive environment (``runtime.procedure.env``).

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

import gc
from collections.abc import Iterable, Sequence
from dataclasses import replace
from fractions import Fraction
from heapq import heappop, heappush
from typing import Optional

from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime.events import CHECK, END, START
from chronoplan.runtime.procedure.records import Chunk, Run, SimResult, StepState, step_name
from chronoplan.runtime.procedure.state import ProcState

__all__ = ["Chunk", "Run", "SimResult", "StepState", "ProcState", "simulate", "simulate_whole", "step_name"]


def simulate(problem: ProcedureProblem, chunks: Iterable[Chunk], *, first: bool = False,
             suppress: Iterable[tuple[str, int]] = ()) -> SimResult:
    """Batch replay of a whole plan; ``first`` stops at the first violation (in event order).
    ``suppress``: steps not to report as missing (their entries were unreadable)."""
    chunks = chunks if isinstance(chunks, (list, tuple)) else list(chunks)
    # The replay makes no reference cycles (everything it allocates is freed by reference counting), but a
    # long plan allocates enough objects for the cyclic collector to run full collections over the whole
    # heap again and again (super-linear time in the plan's length): it is paused meanwhile.
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        whole = problem.memo("_whole_problem", _whole_problem)
        if whole is not False:
            whole_chunks = _whole_chunks(chunks)
            if whole_chunks is not None:
                return _as_fractions(_replay(whole, whole_chunks, first, suppress, True), problem)
        return _replay(problem, chunks, first, suppress, False)
    finally:
        if collecting:
            gc.enable()


def simulate_whole(problem: ProcedureProblem, chunks: Sequence, *, first: bool = False,
                   suppress: Iterable[tuple[str, int]] = (), rows: bool = False) -> Optional[SimResult]:
    """``simulate`` for a report, when every time of the problem and of the plan is whole (else None): the
    whole-number replay's own result, its runs and completion times left as ints and its problem the whole-number
    copy (``runtime.metrics.plan_metrics(result, problem=problem)`` measures it as ``simulate``'s), only the
    violations' times turned into Fractions.  ``chunks``: ``Chunk`` records, or with ``rows`` tuples (index, task,
    step, start, duration or None) whose times are already ints in the scenario's unit."""
    whole = problem.memo("_whole_problem", _whole_problem)
    if whole is False:
        return None
    todo = [_WholeChunk(*row) for row in chunks] if rows else _whole_chunks(chunks)
    if todo is None:
        return None
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        res = _replay(whole, todo, first, suppress, True)
    finally:
        if collecting:
            gc.enable()
    for v in res.violations:
        if v.time is not None:
            object.__setattr__(v, "time", Fraction(v.time))
    return res


def _replay(problem: ProcedureProblem, chunks: Sequence, first: bool, suppress: Iterable, whole: bool) -> SimResult:
    """``chunks``: ``Chunk`` records, or ``_WholeChunk`` ones (int times) for the whole-number replay."""
    state = ProcState(problem, first=first, whole=whole)
    state.suppressed.update(suppress)
    state.planned.update(suppress)
    expected_end = state.expected_end
    planned = state.planned
    queue = state.queue
    heap, counter = queue._heap, queue.counter
    rank = state.agent_rank
    step = problem._index().get                      # problem.step
    starts = []
    for c in chunks:
        key = (c.task, c.step)
        s = step(key)
        if s is not None:
            planned.add(key)
            end = c.start + (c.duration if c.duration is not None else s.duration)
            if expected_end.get(key) is None or end > expected_end[key]:
                expected_end[key] = end
        starts.append((c.start, START, rank.get(c.agent, 0), c.index, next(counter), c))   # queue.push
    # The starts, in queue order, are taken from this sorted list and the queue holds only ends and checks: a queue
    # of every start made each event cost log(plan length) comparisons over a heap as large as the plan.
    starts.sort()
    if problem.limit is not None:
        queue.push(problem.limit, CHECK, ("limit",))
    on_end, on_start, on_check = state._on_end, state.start, state._on_check
    i, n = 0, len(starts)
    while not state.stopped:                    # state.advance(): state._next_event() for each event
        if i < n and (not heap or starts[i] < heap[0]):
            t, kind, _, _, _, ev = starts[i]
            i += 1
        elif heap:
            t, kind, _, _, _, ev = heappop(heap)
        else:
            break
        state.seq += 1
        if t > state.now:
            state.now = t
        if kind == END:
            on_end(t, ev)
        elif kind == START:
            on_start(ev)
        else:
            if ev[0] == "limit":                # it reads the starts still to come from the queue
                for x in starts[i:]:
                    heappush(heap, x)
                i = n
            on_check(t, ev)
    if state.stopped:
        for x in starts[i:]:
            heappush(heap, x)
        state.run_out()
    else:
        ends = [r.end for r in state.runs]
        state.finish(max(ends) if ends else state.zero)
    return state.result()


# ------------------------------------------------------------------ whole-number replay
# Fraction arithmetic dominates the replay.  When every time of the scenario and of the plan is a whole number
# (Recipe2Plan: seconds), the same ProcState runs on Python ints -- exact, and the same comparisons and sums --
# and the result is turned back into Fractions, so that callers see exactly what the Fraction replay gives.
# Messages format times through timefmt, which reads ints and Fractions alike.

def _int(x):
    """A whole ``Fraction`` time as an int; raises ValueError for anything else (a fraction; an int, a float or
    another type: the Fraction replay would keep that type in its results, so it replays those plans itself)."""
    if type(x) is Fraction and x.denominator == 1:
        return x.numerator
    raise ValueError(x)


def _opt(x):
    return None if x is None else _int(x)


def _whole_problem(problem: ProcedureProblem):
    """The problem with its times as ints (same steps, names, resources), or False when one is not whole."""
    try:
        steps = tuple(replace(s, duration=_int(s.duration), occupy_for=_int(s.occupy_for), release=_opt(s.release),
                              deadline=_opt(s.deadline),
                              lags=tuple(replace(lag, min=_opt(lag.min), max=_opt(lag.max)) for lag in s.lags))
                      for s in problem.steps)
        return replace(problem, steps=steps, limit=_opt(problem.limit))
    except ValueError:
        return False


class _WholeChunk:
    """A ``Chunk`` with int times (what ProcState reads of a chunk; never handed out)."""
    __slots__ = ("index", "task", "step", "start", "duration", "agent")

    def __init__(self, index, task, step, start: int, duration, agent=None) -> None:
        self.index, self.task, self.step, self.agent = index, task, step, agent
        self.start, self.duration = start, duration


def _whole_chunks(chunks: Sequence[Chunk]) -> Optional[list[_WholeChunk]]:
    """The chunks with int times, or None when a time is not whole."""
    out = []
    try:
        for c in chunks:
            d = c.duration
            out.append(_WholeChunk(c.index, c.task, c.step, _int(c.start), None if d is None else _int(d), c.agent))
    except ValueError:
        return None
    return out


def _as_fractions(res: SimResult, problem: ProcedureProblem) -> SimResult:
    """A whole-number replay's result with Fraction times and the original problem.  Its runs and violations
    were made by this replay and are referenced nowhere else: their int times are replaced in place (frozen
    records, hence ``object.__setattr__``), cheaper than building copies.  One Fraction per distinct time."""
    made: dict = {}
    get = made.get
    put = object.__setattr__
    for r in res.runs:
        for name in ("start", "duration", "busy"):
            x = getattr(r, name)
            f = get(x)
            if f is None:
                f = made[x] = Fraction(x)
            put(r, name, f)
    for v in res.violations:
        if v.time is not None:
            put(v, "time", Fraction(v.time))
    done = {}
    for k, x in res.done.items():
        f = get(x)
        done[k] = f if f is not None else Fraction(x)
    out = SimResult(problem, res.violations, res.runs, done, res.first_violation_seq, res.stopped_early)
    put(out, "_completing_map", res._completing)
    return out
