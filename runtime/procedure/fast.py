"""Fast replay of step-level plans that are valid: a compiled integer form of a scenario and one sweep.

Input: a ``ProcedureProblem`` (``compiled(problem)`` builds its ``Compiled`` form once and keeps it on the
problem) and a plan as columns (starts, step ids, durations or None, optionally agent ids and plan indexes)
with times as integers of the compiled scale (``Compiled.scale`` units per scenario time unit; ``scaled``
converts an exact time).  Output: ``Compiled.sweep(...)`` -> ``SweepOutcome`` (the numbers the metrics need)
when the plan is valid, else None; ``Compiled.metrics(outcome, reference, e_ref)`` -> the metrics block of
``runtime.metrics.plan_metrics`` for that valid plan.

Compiled with Cython (setup.py), the sweep keeps times in C int64 (``cython.locals``; the steps' numbers in an
``array('q')``): it declines (None) a plan with a time or duration outside (-LIMIT, LIMIT), as the critic replay does,
and the exact engine grades it; run as plain Python it declines the same plans.

The sweep never reports a violation: it only recognises plans that the exact engine (``procedure.sim.simulate``
over ``procedure.state.ProcState``, exact ``Fraction`` times and an event queue) replays without any violation,
and gives up (None) at the first thing it does not accept, so that the caller grades that plan otherwise: with
``procedure.critic.replay`` on the same columns (every violation, as the exact engine writes them), or with the
exact engine.  It gives up at once on a plan with fewer chunks than steps, or more when no step is
interruptible (a step would run no chunk or two), and while sweeping on: an unknown task, step or agent, a plan
needing an agent it does not name (E014), a repeated non-interruptible step, a chunk of the wrong length,
overlapping chunks of one step, a start before 0 or before the step's release, a prerequisite not
complete at the first start, an agent busy (with the scenario's occupancy rule), a resource over capacity,
a property need not met, a step never completed, a lag, deadline or time limit not kept.

Why "valid here" implies "valid there" (and the same metrics): the chunks are visited in the exact engine's
start order (time, agent rank of the chunk as written, plan index), and the exact engine runs every completion
at t before the starts at t.  (The order of starts at one instant matters: a step holding two units of a
resource of capacity 2 and another step holding one, started together, are refused or not by their order.)  As long as
nothing was refused, the occupations of an agent are disjoint, so "busy" is a comparison with the end
of its last occupation, and the exclusive rule (no autonomous start strictly inside a continuous
occupation) needs only that last occupation; a resource of capacity 1 is held until the end of its last
holder; chunks of one step are disjoint, so its progress at a chunk's start is the sum of the chunks
before it and it completes at the end of the chunk that reaches its duration (recorded when that chunk
is visited: every later visit starts at or after it).  Property values are set by completions in the
exact engine's end order (time, agent rank, plan index), applied before any start at or after that time.
Prerequisites, lags, deadlines and the limit are comparisons of first starts and completion times
(the exact engine checks lags at the start of Y or at the completion of X with the same gap).
"""
from __future__ import annotations

import heapq
import math
from array import array
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime import metrics as M

try:                                             # C types for the sweep when compiled (setup.py)
    import cython
except ImportError:                              # pragma: no cover - plain Python without Cython installed
    from chronoplan.runtime import cython_shim as cython

INF = float("inf")
ONE, ZERO = Fraction(1), Fraction(0)
LIMIT = 1 << 60              # the sweep and the critic replay take times and durations strictly inside (-LIMIT, LIMIT)
#                              (their sums stay inside C's int64, far from the sentinels); other plans: exact engine
NEVER = 1 << 62              # a completion time not reached yet (the exact engine's infinity)
NIL = -(1 << 62)             # no time: not started, no run yet (the exact engine's None or minus infinity)
_LIMIT = cython.declare(cython.longlong, LIMIT)   # the same as C constants when compiled (the module's Python ints
_NEVER = cython.declare(cython.longlong, NEVER)   # would be boxed and compared as objects at every use)
_NIL = cython.declare(cython.longlong, NIL)
CONTINUOUS, START, PARTIAL = 0, 1, 2
_OCCUPANCY = {ir.Occupancy.CONTINUOUS: CONTINUOUS, ir.Occupancy.START: START, ir.Occupancy.PARTIAL: PARTIAL}


Column = Any                 # an int64 column: array('q') compiled, list in plain Python (``column``)


def column(values: list) -> Column:
    """An int64 column of the sweep: an ``array('q')`` when this module is compiled (its typed memoryviews read it
    in C), a list in plain Python (faster to index there); both copy with ``[:]`` and repeat with ``*``."""
    return array("q", values) if cython.compiled else list(values)


@cython.locals(tv=cython.longlong)
def in_range(starts: list, durations: list) -> bool:
    """Every start and duration (None: none given) strictly inside (-LIMIT, LIMIT), the range the sweep and the
    critic replay keep in C int64."""
    try:                                 # (compiled, an int beyond C's int64 raises OverflowError here)
        for v in starts:
            tv = v
            if not -_LIMIT < tv < _LIMIT:
                return False
        for v in durations:
            if v is not None:
                tv = v
                if not -_LIMIT < tv < _LIMIT:
                    return False
    except OverflowError:
        return False
    return True


@dataclass(frozen=True)
class SweepOutcome:
    """What the metrics of a valid plan need: its chunk count, summed lengths and makespan (scaled)."""

    runs: int
    total: int
    finish: int


@dataclass(frozen=True)
class StepInfo:
    """One step, compiled: times scaled to integers, resources and properties as integer slots (the sweep reads
    its numbers from ``Compiled.static``, the rest from ``Compiled.extras``)."""

    duration: int
    earliest: float                  # max(0, release), an int (INF for a step no chunk can run: duration <= 0)
    interruptible: bool
    occupancy: int                   # CONTINUOUS, START or PARTIAL
    occupation: int                  # agent-busy units of the whole step; of a chunk of an interruptible step: at
    #                                  most this (occupy_for), or the chunk's length when continuous
    agent: int                       # the agent a chunk without one gets (-1: it must name one, E014)
    prerequisites: tuple[int, ...]
    uses: bool                       # holds resources or needs properties
    single: tuple[int, ...]          # resources of capacity 1 it holds (repeats kept, as the exact engine)
    shared: tuple[tuple[int, int], ...]   # (resource, capacity) of the other resources it holds
    needs: tuple[tuple[int, Any], ...]    # (property slot, value) checked at each chunk's start
    sets: tuple[tuple[int, Any], ...]     # (property slot, value) written at its completion, in order


def scaled(x: Any, scale: int) -> Optional[int]:
    """An exact time (int or Fraction) times ``scale``, if that is an integer; else None."""
    if type(x) is int:
        return x * scale
    if type(x) is Fraction:
        den = x.denominator
        return x.numerator * (scale // den) if scale % den == 0 else None
    return None


def _units(x: Fraction, scale: int) -> int:
    """A time of the problem in scaled units (``Compiled`` makes ``scale`` a multiple of every denominator of
    the problem's numbers, so ``scaled`` cannot give None here)."""
    n = scaled(x, scale)
    if n is None:
        raise ValueError(f"{x} is not a whole number of 1/{scale} units")
    return n


class Compiled:
    """A ``ProcedureProblem`` as integer tables (built once per problem by ``compiled``)."""

    def __init__(self, problem: ProcedureProblem) -> None:
        self.scenario = problem.scenario
        unit_seconds = problem.time_unit.seconds
        scale = 1
        for x in problem.numbers():
            scale = math.lcm(scale, x.denominator)
        if unit_seconds is not None:
            scale = math.lcm(scale, unit_seconds)      # whole seconds are whole scaled units
        self.scale = scale
        self.per_second = None if unit_seconds is None else scale // unit_seconds
        self.exclusive = problem.occupancy is ir.OccupancyRule.EXCLUSIVE
        agents = problem.agents
        rank = {a: i for i, a in enumerate(agents)}
        self.agent_id = {a: i for i, a in enumerate(dict.fromkeys(agents))}
        self.agent_rank = tuple(rank[a] for a in self.agent_id)
        tasks = set(problem.tasks)
        self.ids: dict = {}
        for s in problem.steps:
            if s.task in tasks:
                self.ids.setdefault(s.key, len(self.ids))
        self.ok = len(self.ids) == len(problem.steps)      # repeated or task-less steps: exact engine only
        self.memo: dict = {}          # readers' caches (plan text -> ids and times), see validators.replay
        if self.ok:
            self._tables(problem, scale)

    def _tables(self, problem: ProcedureProblem, scale: int) -> None:
        agents = problem.agents
        capacity = {r.name: r.capacity for r in problem.resources}
        res: dict = {}
        slots: dict = {}
        initial = {r.name: dict(r.properties) for r in problem.resources}

        def slot(resource: str, key: str) -> int:
            if (resource, key) not in slots:
                slots[(resource, key)] = len(slots)
            return slots[(resource, key)]

        steps = []
        for s in problem.steps:
            dur, occ = _units(s.duration, scale), _units(s.occupy_for, scale)
            release = 0 if s.release is None else max(0, _units(s.release, scale))
            auto = s.occupancy is ir.Occupancy.START and not self.exclusive
            single, shared, needs, sets = [], [], [], []
            for u in s.uses:
                cap = capacity.get(u.resource, 1)
                rid = res.setdefault(u.resource, len(res))
                if cap == 1:
                    single.append(rid)
                else:
                    shared.append((rid, cap))
                needs += [(slot(u.resource, k), v) for k, v in u.needs]
                sets += [(slot(u.resource, k), v) for k, v in u.sets]
            kind = _OCCUPANCY[s.occupancy]
            whole = dur if kind == CONTINUOUS else 0 if kind == START else min(occ, dur)
            steps.append(StepInfo(
                dur, release if s.interruptible or dur > 0 else INF, s.interruptible, kind,
                occ if s.interruptible else whole, 0 if len(agents) == 1 or auto else -1,
                tuple(self.ids[(s.task, p)] for p in s.prerequisites if (s.task, p) in self.ids),
                bool(single or shared or needs or sets), tuple(single), tuple(shared), tuple(needs), tuple(sets)))
        self.steps = tuple(steps)
        # the sweep's int64 form of the steps: step id * 5 -> duration, earliest (NEVER: none), interruptible,
        # occupation (-1: the chunk's length), agent; None when a number is out of range (the exact engine grades)
        static = [x for st in steps for x in (st.duration, NEVER if st.earliest == INF else st.earliest,
                                              int(st.interruptible),
                                              -1 if st.interruptible and st.occupancy == CONTINUOUS else st.occupation,
                                              st.agent)]
        typed = all(-LIMIT < st.duration < LIMIT and 0 <= st.occupation < LIMIT and
                    (st.earliest == INF or st.earliest < LIMIT) for st in steps)
        self.static: Optional[Column] = column(static) if typed else None
        self.extras = tuple((st.prerequisites, (st.single, st.shared, st.needs, st.sets) if st.uses else None)
                            for st in steps)
        n, n_agents = len(steps), len(self.agent_id)      # the sweep's initial columns, copied per plan
        self.initial_columns = (column([NIL]) * n, column([NEVER]) * n, column([0]) * n, column([0]) * n_agents,
                                column([0]) * len(res))
        self.nres = len(res)
        self.initial = [initial.get(r, {}).get(k) for (r, k) in slots]
        self.lags = tuple((self.ids[s.key], self.ids[(s.task, lag.other)],
                           None if lag.min is None else _units(lag.min, scale),
                           None if lag.max is None else _units(lag.max, scale))
                          for s in problem.steps for lag in s.lags if (s.task, lag.other) in self.ids)
        self.deadlines = tuple((self.ids[s.key], _units(s.deadline, scale)) for s in problem.steps
                               if s.deadline is not None)
        self.limit = None if problem.limit is None else _units(problem.limit, scale)
        self.implied_agents = all(st.agent >= 0 for st in steps)     # no step needs its agent named
        self.whole = not any(st.interruptible for st in steps)       # a valid plan has one chunk per step
        self.total = sum(st.duration for st in steps)       # what a valid plan runs: every step, once in all
        self.auto = sum(st.duration for st, s in zip(steps, problem.steps) if M.is_autonomous(s))
        self.lower_bound = M.lower_bound(problem).value

    # ------------------------------------------------------------------------------------------ sweep
    @cython.locals(t=cython.longlong, sid=cython.Py_ssize_t, j=cython.Py_ssize_t, x=cython.Py_ssize_t,
                   r=cython.Py_ssize_t, base=cython.Py_ssize_t, dur=cython.longlong, earliest=cython.longlong,
                   interruptible=cython.bint, occ=cython.longlong, a=cython.longlong, p=cython.longlong,
                   d=cython.longlong, o=cython.longlong, e=cython.longlong, complete=cython.bint,
                   finish=cython.longlong, st=cython.longlong[::1], first=cython.longlong[::1],
                   done=cython.longlong[::1], progress=cython.longlong[::1], last_end=cython.longlong[::1],
                   free=cython.longlong[::1], since=cython.longlong[::1], held=cython.longlong[::1], order=list,
                   extras=tuple, holders=dict, values=list, completions=list, exclusive=cython.bint)
    def sweep(self, starts: list, steps: list, durations: list, agents: Optional[list] = None,  # noqa: C901
              indexes: Optional[list] = None) -> Optional[SweepOutcome]:
        """A plan as columns, one entry per chunk: start, step id, duration (None: what remains of the step),
        optionally the agent id (-1: none named) and the plan index (default: the position; distinct).
        -> ``SweepOutcome`` if the plan is valid, None if the exact engine must decide (also when a time or
        duration is out of the int64 range the sweep keeps: ``LIMIT``)."""
        if not self.ok or self.static is None:
            return None
        if len(starts) < len(self.extras) or (self.whole and len(starts) > len(self.extras)):
            return None                      # a step without a chunk, or one with two: not valid (the replay says why)
        if not in_range(starts, durations):
            return None
        st = self.static
        extras = self.extras
        n = len(extras)
        nils, nevers, zeros, agent_zeros, resource_zeros = self.initial_columns
        first = nils[:]                      # first start of each step
        done = nevers[:]                     # completion of each step
        progress = zeros[:]                  # interruptible steps: time run so far, end of the last chunk
        last_end = zeros[:]
        free = agent_zeros[:]                # end of each agent's last occupation
        since = agent_zeros[:]               # start of that occupation
        held = resource_zeros[:]             # capacity-1 resources: end of the last holder
        holders: dict = {}                   # other resources: ends of their holders
        values = self.initial[:]
        completions: list = []               # (end, agent rank, plan index, sets) of setters, in end order
        exclusive = self.exclusive
        if agents is not None:               # the exact engine's start order: time, agent rank as written, index
            ranks = self.agent_rank
            rank = [0 if a < 0 else ranks[a] for a in agents]
            idx = range(len(starts)) if indexes is None else indexes
            order = sorted(range(len(starts)), key=lambda j: (starts[j], rank[j], idx[j]))
        elif indexes is None:
            order = sorted(range(len(starts)), key=starts.__getitem__)
        else:
            order = sorted(range(len(starts)), key=lambda j: (starts[j], indexes[j]))
        anonymous = agents is None
        if anonymous and not self.implied_agents:
            return None                      # some step needs a named agent (E014)
        for j in order:
            t = starts[j]
            sid = steps[j]
            if sid < 0:
                return None
            base = 5 * sid
            dur = st[base]
            earliest = st[base + 1]
            interruptible = st[base + 2]
            occ = st[base + 3]
            a = st[base + 4]
            if t < earliest:
                return None
            prerequisites, uses = extras[sid]
            dj = durations[j]
            if interruptible:
                p = progress[sid]
                d = dur - p if dj is None else dj
                if d <= 0 or p + d > dur or last_end[sid] > t:
                    return None
                o = d if occ < 0 or occ >= d else occ
                e = last_end[sid] = t + d
                progress[sid] = p + d
                complete = p + d == dur
                if complete:
                    done[sid] = e
                if p:
                    prerequisites = ()       # checked at the first chunk only
                else:
                    first[sid] = t
            else:
                if first[sid] != _NIL:
                    return None
                if dj is not None and dj != dur:
                    return None
                first[sid] = t
                o = occ
                e = done[sid] = t + dur
                complete = True
            if prerequisites:
                for x in prerequisites:
                    if done[x] > t:
                        return None
            if agents is not None:           # (not anonymous)
                if agents[j] >= 0:
                    a = agents[j]
                elif a < 0:
                    return None
            if o:
                if free[a] > t:
                    return None
                free[a] = t + o
                since[a] = t
            elif exclusive and since[a] < t < free[a]:
                return None
            if uses:
                single, shared, needs, sets = uses
                for r in single:
                    if held[r] > t:
                        return None
                for r, cap in shared:
                    live = 0                 # (a loop: a generator would capture the C-typed t)
                    for hx in holders.get(r, ()):
                        if hx > t:
                            live += 1
                    if live >= cap:
                        return None
                for r in single:
                    held[r] = e
                for r, _ in shared:
                    holders[r] = [hx for hx in holders.get(r, ()) if hx > t] + [e]
                if needs:
                    while completions and completions[0][0] <= t:
                        for slot, v in heapq.heappop(completions)[3]:
                            values[slot] = v
                    for slot, v in needs:
                        if values[slot] != v:
                            return None
                if complete and sets:
                    heapq.heappush(completions, (e, self.agent_rank[a], j if indexes is None else indexes[j], sets))
        finish = 0
        for sid in range(n):
            if done[sid] > finish:
                finish = done[sid]
        if finish == _NEVER:
            return None                      # a step never completed
        for y, x, lo, hi in self.lags:
            gap = first[y] - done[x]
            if (hi is not None and gap > hi) or (lo is not None and gap < lo):
                return None
        for s, deadline in self.deadlines:
            if done[s] > deadline:
                return None
        if self.limit is not None and finish > self.limit:
            return None
        return SweepOutcome(len(starts), self.total, finish)

    # ------------------------------------------------------------------------------------------ metrics
    def metrics(self, out: SweepOutcome, reference: Any = None, e_ref: Optional[Fraction] = None) -> dict:
        """``plan_metrics`` of a valid plan; with a reference (any non-None value), ``e_ref`` is the
        reference efficiency truncated to ``out.runs`` entries."""
        n = len(self.steps)
        finish: Optional[Fraction]
        e: Optional[Fraction]
        if out.runs:
            finish = Fraction(out.finish) if self.scale == 1 else Fraction(out.finish, self.scale)
            e = Fraction(max(0, out.total - out.finish), self.auto) if self.auto else None
        else:
            finish = e = None
        m = {"makespan": finish, "success": True, "progress": ONE, "steps_done": n, "steps_total": n,
             "progress_score": 100, "efficiency": e, "lower_bound": self.lower_bound}
        if reference is not None:
            reference_part(m, e, e_ref, True)
        return m


def reference_part(m: dict, e: Optional[Fraction], e_ref: Optional[Fraction], complete: bool,
                   ratio: Any = Fraction) -> None:
    """Adds ``runtime.metrics.reference_metrics(e, e_ref, progress)`` to the metrics ``m``, the quotient made from
    integers (``ratio(a, b)``: ``Fraction(a, b)`` or a cache of them); ``complete``: progress is 1."""
    rel = None if e is None or e_ref is None or e_ref.numerator == 0 else \
        ratio(e.numerator * e_ref.denominator, e.denominator * e_ref.numerator)
    m["reference_efficiency"] = e_ref
    m["relative_efficiency"] = rel
    m["multitask_score"] = rel if rel is not None and complete else ZERO


def compiled(problem: ProcedureProblem) -> Compiled:
    """The compiled form of ``problem``, built on first use and kept on the (frozen) problem object."""
    return problem.memo("_procfast", Compiled)
