"""Fast replay of faulty plans: the exact engine's violations and metrics from the compiled integer form.

Input: a ``fast.Compiled`` scenario (``Compiled.ok``), its ``ProcedureProblem`` and a plan as the sweep's columns
(starts, step ids, durations or None, optionally agent ids (-1: none named) and distinct plan indexes; times in
the compiled scale).  Output: ``replay(...)`` -> ``Outcome`` (every violation, in the exact engine's order, as the
same ``Violation`` records with the same messages and hints, and the numbers of its metrics), or None when the
scenario cannot be compiled (then the exact engine grades the plan); ``Outcome.metrics(compiled)`` -> the
``plan_metrics`` block without the reference part (the caller adds it, the reference efficiency truncated to
``Outcome.runs`` actions).

The rules are those of ``procedure.state.ProcState`` replayed by ``procedure.sim`` (every check, every message,
the same agent, resource, property and lag state after a violation: a chunk is applied despite timing,
occupancy and resource violations, skipped when it cannot run), read without an event queue:
- Chunks are visited in the exact engine's start order (time, agent rank of the chunk as written, plan index).
  Every end at or before t precedes the starts at t, so "done", "running", a step's progress and the property
  values at a start are comparisons with completion times that are known when the completing chunk is visited
  (a step's chunks are disjoint: a chunk that starts while the previous one runs is refused, E802).
- Violations found at a start carry that start's event key; those found at ends (a lag whose partner completes
  after the dependent started), checks (deadline, unplanned maximum lag, time limit) and the plan's end are
  computed after the visit from completion times and each step's chunks, with their own event keys
  (time, kind END < START < CHECK, agent rank, plan index, then insertion order); one stable sort gives the
  exact engine's report order.
- The progress of the metrics counts the runs whose start event precedes the first violation's event (the exact
  engine's event sequence numbers), and the steps completed by those runs.
- ``first=True`` (stop at the first violation) replays the same runs and keeps the first violation only.
- Compiled with Cython (setup.py), the state is C int64 (typed locals, ``array('q')`` columns read through typed
  memoryviews, ``fast.NEVER``/``fast.NIL`` for the exact engine's infinity and None); a time or duration outside
  (-``fast.LIMIT``, ``fast.LIMIT``) makes it decline (None), in a pure-Python install too.
"""
from __future__ import annotations

import heapq
from array import array
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime import timefmt
from chronoplan.runtime.procedure.fast import (
    CONTINUOUS,
    INF,
    LIMIT,
    NEVER,
    NIL,
    START,
    Column,
    Compiled,
    in_range,
    reference_part,
)
from chronoplan.runtime.procedure.records import fmt_value, step_name
from chronoplan.runtime.procedure.state import _step_hints, _tasks_hint
from chronoplan.runtime.violations import Violation

try:                                             # C types for the replay when compiled (setup.py)
    import cython
except ImportError:                              # pragma: no cover - plain Python without Cython installed
    from chronoplan.runtime import cython_shim as cython

_END, _START, _CHECK, _FINISH = 0, 1, 2, 3
NO_SUB: tuple = ()
# C constants when compiled (a module-level Python int would be compared and combined as an object)
_NEVER = cython.declare(cython.longlong, NEVER)
_NIL = cython.declare(cython.longlong, NIL)
_STRIDE = cython.declare(cython.Py_ssize_t, 7)       # numbers per step in _Tables.static
_PREREQUISITES = cython.declare(cython.longlong, 1)  # what a step has (_Tables.static's last number)
_LAGS = cython.declare(cython.longlong, 2)
_USES = cython.declare(cython.longlong, 4)
_SETS = cython.declare(cython.longlong, 8)


def _column(values: list) -> Column:
    """``fast.column`` for this module: an ``array('q')`` when this module is compiled (its typed memoryviews need
    one; the two modules may be built differently), a list in plain Python."""
    return array("q", values) if cython.compiled else list(values)


_ZEROS: Column = _column([0]) * 256


def _zeros(k: int) -> Column:
    """A new column of k zeros (a slice of a kept one: cheaper than building it)."""
    global _ZEROS
    if k > len(_ZEROS):
        _ZEROS = _column([0]) * (2 * k)
    return _ZEROS[:k]


@dataclass(frozen=True)
class Outcome:
    """A replayed plan: its violations (report order) and the integers (scaled times) of its metrics."""

    violations: tuple
    runs: int                 # runs before the first violation (the reference efficiency's truncation)
    clean_total: int          # summed lengths of those runs
    clean_finish: Any         # the latest end of those runs (-INF: none)
    makespan: Any             # the latest end of every run (-INF: none; times may be negative)
    steps_done: int           # steps completed by those runs
    done_total: int           # their summed durations
    done_auto: int            # the same, autonomous steps only

    def metrics(self, c: Compiled, reference: Any = None, e_ref: Optional[Fraction] = None) -> dict:
        """``runtime.metrics.plan_metrics`` of the replayed plan; with a reference (any non-None value), its part
        (``reference_metrics``), ``e_ref`` being the reference efficiency truncated to ``self.runs`` actions."""
        ratio = c.memo["critic"].clock.ratio
        total = len(c.steps)
        e: Optional[Fraction] = None
        if self.runs:
            auto = self.done_auto
            e = None if auto == 0 else ratio(max(0, self.clean_total - self.clean_finish), auto)
        whole = c.total
        m = {"makespan": None if self.makespan == -INF else ratio(self.makespan, c.scale),
             "success": not self.violations and self.steps_done == total,
             "progress": ratio(self.steps_done, total) if total else Fraction(1),
             "steps_done": self.steps_done, "steps_total": total,
             "progress_score": 100 if whole == 0 else 100 * self.done_total // whole,
             "efficiency": e, "lower_bound": c.lower_bound}
        if reference is not None:
            reference_part(m, e, e_ref, self.steps_done == total, ratio)
        return m


class _Clock:
    """Scaled integer times -> the exact engine's texts and violation times."""

    def __init__(self, c: Compiled, unit: ir.TimeUnit) -> None:
        self.scale, self.unit = c.scale, unit
        self.clocks: dict = {}           # texts made so far (bounded)
        self.durations: dict = {}
        self.ratios: dict = {}           # fractions made so far (bounded)

    def exact(self, x: int) -> Any:
        return x if self.scale == 1 else Fraction(x, self.scale)

    def t(self, x: int) -> str:
        got = self.clocks.get(x)
        if got is None:
            if len(self.clocks) > 4096:
                self.clocks.clear()
            got = self.clocks[x] = timefmt.clock(self.exact(x), self.unit)
        return got

    def d(self, x: int) -> str:
        got = self.durations.get(x)
        if got is None:
            if len(self.durations) > 4096:
                self.durations.clear()
            got = self.durations[x] = timefmt.duration(self.exact(x), self.unit)
        return got

    def ratio(self, a: int, b: int) -> Fraction:
        """``Fraction(a, b)``, made once per distinct pair (times, progress and efficiencies recur from plan to plan;
        a ``Fraction`` is immutable, so reports may share one)."""
        got = self.ratios.get((a, b))
        if got is None:
            if len(self.ratios) > 4096:
                self.ratios.clear()
            got = self.ratios[(a, b)] = Fraction(a, b)
        return got


@dataclass(frozen=True)
class _Tables:
    """What the replay reads of a scenario besides ``Compiled.steps`` (built once per compiled scenario)."""

    names: tuple              # step id -> "step i of T"
    static: Optional[Column]  # step id * _STRIDE -> duration, max(0, release), interruptible, occupation of a chunk
    #                           of length d (-1: d; else min(this, d)), agent, release (_NIL: none), what it has
    #                           (_PREREQUISITES | _LAGS | _USES | _SETS); None: a number out of the typed range (the
    #                           exact engine grades the scenario's plans)
    prerequisites: tuple      # step id -> prerequisite ids
    lags: tuple               # step id -> ((other id, min, max), ...) of lags whose partner exists
    uses: tuple               # step id -> ((resource id, capacity, resource name, ((slot, value, key), ...)), ...)
    sets: tuple               # step id -> ((slot, value), ...) written at its completion
    dependents: tuple         # step id X -> ((Y id, max), ...): maximum lags of Y relative to X (E603 checks)
    has_dependents: bool
    deadlines: tuple          # (step id, deadline scaled), in the problem's step order
    setters: dict             # (resource, key, value) -> step ids that set it, in step order
    texts: tuple              # step id -> its text (E701)
    prereq_names: tuple       # step id -> the names of all its prerequisites (E701 hint)
    auto: tuple               # step id -> autonomous (not continuous)
    agent_names: tuple        # agent id -> name
    clock: _Clock
    never: Column              # the replay's initial state arrays (copied): n times _NEVER, 0, _NIL;
    zeros: Column
    nils: Column
    agent_zeros: Column        # per agent: 0, _NIL;
    agent_nils: Column
    resource_nils: Column      # per resource: _NIL
    no_holders: list           # per resource: () (no holder yet)
    ranks: Column              # agent id -> agent rank


def _tables(c: Compiled, problem: ProcedureProblem) -> _Tables:
    ids, scale = c.ids, c.scale
    capacity = {r.name: r.capacity for r in problem.resources}
    res: dict = {}
    slots: dict = {}
    for s in problem.steps:              # the same resource and slot numbers as Compiled._tables
        for u in s.uses:
            res.setdefault(u.resource, len(res))
            for k, _ in u.needs:
                slots.setdefault((u.resource, k), len(slots))
            for k, _ in u.sets:
                slots.setdefault((u.resource, k), len(slots))

    def units(x):
        return None if x is None else (x * scale).numerator if type(x) is Fraction else x * scale

    names, lags, uses, sets, texts, prereq_names, auto = [], [], [], [], [], [], []
    static: list = []
    typed = True                         # (an occupation below 0 would read as -1, "the chunk's length")
    dependents: list = [[] for _ in problem.steps]
    deadlines: list = []
    setters: dict = {}
    for sid, s in enumerate(problem.steps):
        names.append(step_name(s.key))
        lag_rows = []
        for lag in s.lags:
            x = ids.get((s.task, lag.other))
            if x is not None:
                lag_rows.append((x, units(lag.min), units(lag.max)))
                if lag.max is not None:
                    dependents[x].append((sid, units(lag.max)))
        lags.append(tuple(lag_rows))
        uses.append(tuple((res[u.resource], capacity.get(u.resource, 1), u.resource,
                           tuple((slots[(u.resource, k)], v, k) for k, v in u.needs)) for u in s.uses))
        sets.append(tuple((slots[(u.resource, k)], v) for u in s.uses for k, v in u.sets))
        for u in s.uses:
            for k, v in u.sets:
                setters.setdefault((u.resource, k, v), []).append(sid)
        if s.deadline is not None:
            deadlines.append((sid, units(s.deadline)))
        info = c.steps[sid]
        dur, interruptible, agent, kind = info.duration, info.interruptible, info.agent, info.occupancy
        release = units(s.release)
        occ = -1 if kind == CONTINUOUS else 0 if kind == START else units(s.occupy_for)
        typed = typed and (occ >= 0 or kind == CONTINUOUS)
        has = ((_PREREQUISITES if info.prerequisites else 0) | (_LAGS if lag_rows else 0) | (_USES if uses[-1] else 0)
               | (_SETS if sets[-1] else 0))
        static += [dur, 0 if release is None else max(0, release), int(interruptible), occ, agent,
                   _NIL if release is None else release, has]
        texts.append(s.text)
        prereq_names.append(tuple(step_name((s.task, p)) for p in s.prerequisites))
        auto.append(s.occupancy is not ir.Occupancy.CONTINUOUS)
    typed = typed and all(-LIMIT < x < LIMIT for x in static if x != _NIL)
    n, n_agents = len(problem.steps), len(c.agent_id)
    return _Tables(tuple(names), _column(static) if typed else None, tuple(info.prerequisites for info in c.steps),
                   tuple(lags), tuple(uses), tuple(sets), tuple(tuple(d) for d in dependents), any(dependents),
                   tuple(deadlines), setters, tuple(texts), tuple(prereq_names), tuple(auto), tuple(c.agent_id),
                   _Clock(c, problem.time_unit), _column([_NEVER]) * n, _column([0]) * n,
                   _column([_NIL]) * n, _column([0]) * n_agents, _column([_NIL]) * n_agents,
                   _column([_NIL]) * c.nres, [()] * c.nres, _column(list(c.agent_rank)))


@cython.locals(t=cython.longlong, dur=cython.longlong, earliest=cython.longlong, occ=cython.longlong,
               a=cython.longlong, aj=cython.longlong, release=cython.longlong, d=cython.longlong, p=cython.longlong,
               o=cython.longlong, e=cython.longlong, le=cython.longlong, bend=cython.longlong,
               latest=cython.longlong, xend=cython.longlong, makespan=cython.longlong, sid=cython.Py_ssize_t,
               j=cython.Py_ssize_t, x=cython.Py_ssize_t, rid=cython.Py_ssize_t, h=cython.Py_ssize_t,
               base=cython.Py_ssize_t, interruptible=cython.bint, fresh=cython.bint, st=cython.longlong[::1],
               done=cython.longlong[::1], done_rank=cython.longlong[::1], progress=cython.longlong[::1],
               last_end=cython.longlong[::1], first_start=cython.longlong[::1], ahead=cython.longlong[::1],
               mlast=cython.longlong[::1], mbefore=cython.longlong[::1], mlatest=cython.longlong[::1],
               hmax=cython.longlong[::1], run_chunk=cython.longlong[::1], run_length=cython.longlong[::1],
               nr=cython.Py_ssize_t, cut=cython.Py_ssize_t, k=cython.Py_ssize_t, busy=cython.longlong[::1],
               tail=cython.longlong[::1], nb=cython.Py_ssize_t, has=cython.longlong, rank_of=cython.longlong[::1],
               count=cython.Py_ssize_t, done_total=cython.longlong, done_auto=cython.longlong,
               clean_total=cython.longlong, found=list, pending=list, completions=list, holders=list,
               first_index=list, completing=list, values=list, order=list, names=tuple, agent_names=tuple,
               prereqs=tuple, uses_of=tuple, lags_of=tuple, sets_of=tuple, suppressed=dict, exclusive=cython.bint,
               completing_run=cython.longlong[::1])
def replay(c: Compiled, problem: ProcedureProblem, starts: list, steps: list,  # noqa: C901 - one visit of the plan
           durations: list, agents: Optional[list] = None, indexes: Optional[list] = None, *,
           first: bool = False, unknown: Optional[dict] = None, strangers: Optional[dict] = None
           ) -> Optional[Outcome]:
    """The exact engine's violations and metric numbers for a plan given as columns (see the module's text).
    Names the scenario lacks: ``unknown`` maps the position of each chunk whose step id is -1 to its (task, step),
    ``strangers`` that of each chunk whose agent id is -2 to its agent as written.  None when the scenario cannot
    be compiled or a time or duration is out of the typed range (``LIMIT``)."""
    if not c.ok:
        return None
    hot = c.memo.get("critic hot")
    if hot is None:
        hot = c.memo["critic hot"] = _hot(c, problem)
    (tab, st, clk, names, agent_names, n_agents, n, ranks, rank_of, exclusive, initial, prereqs, uses_of, lags_of,
     sets_of, auto, never, zeros, nils, agent_zeros, agent_nils, no_holders, resource_nils) = hot
    if st is None:
        return None
    if not in_range(starts, durations):
        return None
    m = len(starts)
    idx_of = range(m) if indexes is None else indexes
    if agents is None:
        raw_rank = None
        order = sorted(range(m), key=starts.__getitem__ if indexes is None else lambda j: (starts[j], indexes[j]))
    else:
        raw_rank = [0 if a < 0 else ranks[a] for a in agents]
        order = sorted(range(m), key=lambda j: (starts[j], raw_rank[j], idx_of[j]))

    # (each column is kept as the Python object too, passed on to helpers: a typed memoryview passed to a Python
    # function would be wrapped in a new object)
    done = done_col = never[:]       # completion time (known when the completing chunk is visited; _NEVER)
    done_rank = done_rank_col = zeros[:]             # the agent rank of its end event
    completing: list = [None] * n        # the plan index of the completing run (its end event's index)
    completing_run = nils[:]         # and its run number (_NIL: none)
    progress = progress_col = zeros[:]       # run so far (every earlier run of the step has ended at a later start)
    last_end = last_end_col = nils[:]        # end of the latest run (_NIL: none): the step runs at t while > t
    first_start = first_start_col = nils[:]  # (_NIL: not started)
    first_index: list = [None] * n
    suppressed: dict = {}                # step id -> time of the chunk that explains its absence (E014, E502)
    expected: Optional[dict] = None      # step id -> the latest planned end of its chunks (at the first E301)
    busy = _zeros(4 * m)                         # busy runs k: busy[4k:4k+4] = start, busy end, step id, the next
    nb = 0                                       # busy run of its agent (-1: none), in start order
    ahead = agent_zeros[:]                   # each agent's first busy run that may still be busy
    tail = agent_zeros[:]                    # and its latest busy run
    mlast = agent_nils[:]                    # the latest busy start,
    mbefore = agent_nils[:]                  # the latest busy end of the runs started before it,
    mlatest = agent_nils[:]                  # the latest busy end (ProcState.agent_marks)
    holders = no_holders[:]                  # each resource's holders (end, step id)
    hmax = resource_nils[:]                  # the latest end of those
    values = initial[:]
    completions: list = []               # (end, agent rank, plan index, sets) of setters, heap
    pending: list = []                   # (Y, X, min, max): lags of Y started before X completed
    run_chunk = run_chunk_col = _zeros(m)        # the runs in start event order: chunk position,
    run_length = run_length_col = _zeros(m)      # length (start, end, step id and plan index follow from the position)
    nr = 0
    found: list = []                     # (event key, code, message, hint, index, agent name, time)
    makespan = _NIL

    for j in order:
        t = starts[j]
        sid = steps[j]
        if sid < 0:
            _unknown_step(found, problem, unknown, j, _key(starts, raw_rank, j, j if indexes is None else indexes[j]),
                          None if agents is None or agents[j] == -1 else
                          strangers[j] if agents[j] == -2 and strangers else agent_names[agents[j]], t)
            continue
        base = _STRIDE * sid
        dur = st[base]
        earliest = st[base + 1]
        interruptible = st[base + 2]
        occ = st[base + 3]
        a = st[base + 4]
        release = st[base + 5]
        has = st[base + 6]
        idx = j if indexes is None else indexes[j]
        aj = -1 if agents is None else agents[j]
        if aj != -1:
            if aj < 0:                       # -2: an agent the scenario lacks
                stranger = None if strangers is None else strangers.get(j)
                found.append((_key(starts, raw_rank, j, idx), "E103", f"there is no agent {stranger!r}",
                              f"use one of: {', '.join(problem.agents)}", idx, stranger, t))
                suppressed.setdefault(sid, t)
                continue
            a = aj
        elif a < 0:
            found.append((_key(starts, raw_rank, j, idx), "E014", f"{names[sid]} needs an agent: the scenario "
                          f"has {n_agents}", f"add \"agent\": one of {', '.join(problem.agents)}", idx, None, t))
            suppressed.setdefault(sid, t)
            continue
        le = last_end[sid]
        if le != _NIL:                       # the step has run
            if done[sid] <= t:
                found.append((_key(starts, raw_rank, j, idx), "E801", f"{names[sid]} is already done (finished at "
                              f"{clk.t(done[sid])})", f"remove this repeated {names[sid]}", idx, agent_names[a], t))
                continue
            if le > t:
                name = names[sid]
                found.append((_key(starts, raw_rank, j, idx), "E802", f"{name} is already running until "
                              f"{clk.t(le)}", f"start another chunk of {name} at or after {clk.t(le)}"
                              if interruptible else f"remove this repeated {name}", idx, agent_names[a], t))
                continue
            p = progress[sid]
            fresh = False
        else:
            p = 0
            fresh = True
        dj = durations[j]
        d = dur - p if dj is None else dj
        if d <= 0:
            found.append((_key(starts, raw_rank, j, idx), "E502", f"{names[sid]} is given a duration of "
                          f"{clk.d(d)}", f"give {names[sid]} a duration of {clk.d(dur - p)}", idx, agent_names[a], t))
            suppressed.setdefault(sid, t)
            continue
        o = d if occ < 0 or occ >= d else occ
        if t < earliest or (d > dur - p if interruptible else d != dur):
            _timing(found, _key(starts, raw_rank, j, idx), clk, names[sid], dur, p, d, interruptible,
                    None if release == _NIL else release, t, idx, agent_names[a])
        if fresh:
            if has & _PREREQUISITES:
                for x in prereqs[sid]:
                    if done[x] <= t or (first_start[x] == _NIL and x in suppressed):
                        continue
                    if expected is None:     # (once per plan: a scan per violation would be quadratic)
                        expected = _expected_ends(starts, steps, durations, tab.static)
                    _prerequisite(found, _key(starts, raw_rank, j, idx), clk, names[sid], names[x], t,
                                  last_end[x], expected.get(x), first_start[x] == _NIL, idx, agent_names[a])
            if has & _LAGS:
                for lag in lags_of[sid]:
                    x, lo, hi = lag
                    xend = done[x]
                    if xend > t:                 # waits for X's completion (ProcState.apply_start)
                        pending.append((sid, *lag))
                    elif (hi is not None and t - xend > hi) or (lo is not None and t - xend < lo):
                        _lag(found, _key(starts, raw_rank, j, idx), clk, names[sid], names[x], lo, hi, t, xend,
                             idx, agent_names[a], t)
        if mlatest[a] > t:
            h = ahead[a]
            while busy[4 * h + 1] <= t:          # the latest busy end is > t: some run is still busy
                h = busy[4 * h + 3]
            ahead[a] = h
            if o or exclusive:
                rs, rb, rsid = busy[4 * h], busy[4 * h + 1], busy[4 * h + 2]
                free = mlatest[a] if o else None if rs >= t else mlatest[a] if t > mlast[a] else mbefore[a]
                if free is not None:
                    name = names[sid]
                    rule = "" if o else " (occupancy exclusive: no step starts while its agent runs a continuous step)"
                    agent = agent_names[a]
                    found.append((_key(starts, raw_rank, j, idx), "E401", f"{agent} cannot do {name} at {clk.t(t)}: "
                                  f"it is busy with {names[rsid]} until {clk.t(rb)}{rule}",
                                  f"start {name} at or after {clk.t(free)} or give it to another agent"
                                  if n_agents > 1 else f"start {name} at or after {clk.t(free)}", idx, agent, t))
        e = t + d
        uses = uses_of[sid] if has & _USES else None
        if uses:
            for rid, cap, rname, needs in uses:
                if hmax[rid] > t:
                    live = [hx for hx in holders[rid] if hx[0] > t]
                    if len(live) >= cap:
                        name = names[sid]
                        free = min([hx[0] for hx in live])
                        users = ", ".join([names[hx[1]] for hx in live])
                        found.append((_key(starts, raw_rank, j, idx), "E411", f"{name} cannot use {rname} at "
                                      f"{clk.t(t)}: it is in use by {users} until {clk.t(free)} (capacity {cap})",
                                      f"start {name} at or after {clk.t(free)}, when {rname} is free", idx,
                                      agent_names[a], t))
                if needs:
                    while completions and completions[0][0] <= t:
                        for slot, v in heapq.heappop(completions)[3]:
                            values[slot] = v
                    for slot, v, pk in needs:
                        cur = values[slot]
                        if cur != v:
                            name = names[sid]
                            found.append((_key(starts, raw_rank, j, idx), "E201", f"{name} needs {rname} {pk} = "
                                          f"{fmt_value(v)} at {clk.t(t)}, but it is {fmt_value(cur)}",
                                          _setter_hint(tab, last_end_col, clk, rname, pk, v, name, t), idx,
                                          agent_names[a], t))
        # ---- apply the chunk (despite timing, occupancy and resource violations)
        if fresh:
            first_start[sid] = t
            first_index[sid] = idx
        last_end[sid] = e
        if o:
            bend = t + o
            latest = mlatest[a]
            if latest <= t:                        # every earlier run has ended: none of them is busy again
                ahead[a] = nb
            else:
                busy[4 * tail[a] + 3] = nb
            tail[a] = nb
            busy[4 * nb] = t
            busy[4 * nb + 1] = bend
            busy[4 * nb + 2] = sid
            busy[4 * nb + 3] = -1
            nb += 1
            if t != mlast[a]:                      # (starts are visited in time order: t > the last busy start)
                mlast[a] = t
                mbefore[a] = latest
            if bend > latest:
                mlatest[a] = bend
        if uses:
            for u in uses:
                rid = u[0]
                if hmax[rid] > t:
                    holders[rid] = [hx for hx in holders[rid] if hx[0] > t] + [(e, sid)]
                    if e > hmax[rid]:
                        hmax[rid] = e
                else:
                    holders[rid] = [(e, sid)]
                    hmax[rid] = e
        if not interruptible or p + d >= dur:
            if interruptible:
                progress[sid] = dur
            done[sid] = e                    # (a non-interruptible step's progress is never read)
            done_rank[sid] = rank_of[a]
            completing[sid] = idx
            completing_run[sid] = nr
            if has & _SETS:
                heapq.heappush(completions, (e, rank_of[a], idx, sets_of[sid]))
        else:
            progress[sid] = p + d
        if e > makespan:
            makespan = e
        run_chunk[nr] = j
        run_length[nr] = d
        nr += 1

    end_time = 0 if makespan == _NIL else makespan      # ProcState.finish's time
    runs = _Runs(starts, steps, idx_of, run_chunk_col, run_length_col, nr)
    _after(found, tab, clk, problem, c, starts, steps, durations, idx_of, runs, done_col, done_rank_col, completing,
           first_start_col, first_index, progress_col, suppressed, pending, end_time)
    found.sort(key=_first)
    if first:
        del found[1:]
    violations = _violations(found, clk)
    stop = found[0][0] if found else None
    if stop is None or stop[1] == _FINISH:
        cut = nr
    else:                                # the runs whose start event precedes the first violation's event: a
        cut = 0                          # prefix (runs are listed in start event order)
        stop_t = stop[0]
        while cut < nr:
            j = run_chunk[cut]
            t = starts[j]
            if t > stop_t or (t == stop_t and _key(starts, raw_rank, j, idx_of[j]) >= stop):
                break
            cut += 1
    clean_total = 0
    for k in range(cut):
        clean_total += run_length[k]
    if cut == nr:
        clean_finish = -INF if makespan == _NIL else makespan
    else:
        clean_finish = -INF if cut == 0 else max([starts[run_chunk[k]] + run_length[k] for k in range(cut)])
    done_total = done_auto = count = 0
    for sid in range(n):
        if 0 <= completing_run[sid] < cut:
            count += 1
            done_total += st[_STRIDE * sid]
            if auto[sid]:
                done_auto += st[_STRIDE * sid]
    out = _new(Outcome)                  # (the frozen dataclass's __init__ sets each field through object.__setattr__)
    out.__dict__.update(violations=violations, runs=cut, clean_total=clean_total, clean_finish=clean_finish,
                        makespan=-INF if makespan == _NIL else makespan, steps_done=count, done_total=done_total,
                        done_auto=done_auto)
    return out


def _hot(c: Compiled, problem: ProcedureProblem) -> tuple:
    """What the replay reads of a scenario, in one tuple (one lookup instead of one attribute read each)."""
    tab = c.memo.get("critic")
    if tab is None:
        tab = c.memo["critic"] = _tables(c, problem)
    return (tab, tab.static, tab.clock, tab.names, tab.agent_names, len(problem.agents), len(c.steps), c.agent_rank,
            tab.ranks, c.exclusive, c.initial, tab.prerequisites, tab.uses, tab.lags, tab.sets, tab.auto, tab.never,
            tab.zeros, tab.nils, tab.agent_zeros, tab.agent_nils, tab.no_holders, tab.resource_nils)


def _key(starts: list, raw_rank: Optional[list], j: int, idx) -> tuple:
    """The event key of the start of chunk ``j`` (time, START, agent rank as written, plan index)."""
    return (starts[j], _START, 0 if raw_rank is None else raw_rank[j], idx, NO_SUB)


def _unknown_step(found: list, problem: ProcedureProblem, unknown: Optional[dict], j: int, key: tuple, agent,
                  t: int) -> None:
    """``ProcState.resolve``'s E101 (no such task) or E102 (no such step)."""
    if unknown is None or j not in unknown:
        raise ValueError(f"chunk {j} has no step id and no name")
    task, step = unknown[j]
    if task not in problem.tasks:
        found.append((key, "E101", f"there is no task {task!r} in scenario {problem.scenario}",
                      problem.memo("_tasks_hint", _tasks_hint), key[3], agent, t))
    else:
        found.append((key, "E102", f"{task} has no step {step}", problem.memo("_step_hints", _step_hints)[task],
                      key[3], agent, t))


def _timing(found: list, key: tuple, clk: _Clock, name: str, dur: int, p: int, d: int, interruptible: bool,
            release, t: int, idx, agent: str) -> None:
    """The duration (E501, E511), negative start (E613) and release (E611) checks of ``ProcState``."""
    if not interruptible:
        if d > dur:
            found.append((key, "E501", f"{name} takes {clk.d(dur)}, the plan gives it {clk.d(d)}",
                          f"set the duration of {name} to {clk.d(dur)}", idx, agent, t))
        elif d < dur:
            found.append((key, "E511", f"{name} is not interruptible: it must run {clk.d(dur)} in one "
                          f"go, the plan gives it {clk.d(d)}", f"run {name} for {clk.d(dur)} in one go",
                          idx, agent, t))
    elif d > dur - p:
        what, left = ("takes", "") if p == 0 else ("has only", " left")
        found.append((key, "E501", f"{name} {what} {clk.d(dur - p)}{left}, the plan gives it {clk.d(d)}",
                      f"set this duration to at most {clk.d(dur - p)}", idx, agent, t))
    if t < 0:
        found.append((key, "E613", f"{name} starts at {clk.t(t)}, before the plan begins",
                      f"start {name} at or after {clk.t(0)}", idx, agent, t))
    if release is not None and t < release:
        found.append((key, "E611", f"{name} starts at {clk.t(t)}, before its release at {clk.t(release)}",
                      f"start {name} at or after {clk.t(release)}", idx, agent, t))


def _prerequisite(found: list, key: tuple, clk: _Clock, name: str, pn: str, t: int, running_until, when,
                  unstarted: bool, idx, agent: str) -> None:
    """``ProcState._check_prerequisites`` for one prerequisite not complete at ``t``."""
    if running_until > t:
        when = running_until
        state = f"it is running until {clk.t(when)}"
    else:
        state = "it has not started" if unstarted else "it is not complete"
    hint = (f"start {name} at or after {clk.t(when)}, when {pn} finishes"
            if when is not None and when > t else f"schedule {pn} to finish before {name} starts")
    found.append((key, "E301", f"{name} starts at {clk.t(t)} but its prerequisite {pn} has not finished: {state}",
                  hint, idx, agent, t))


_new = object.__new__        # Violation's dataclass __init__ (frozen: one object.__setattr__ per field) is slow


def _violations(found: list, clk: _Clock) -> tuple:
    """The ``Violation`` records of the found entries (their codes are the exact engine's, all registered)."""
    out = []
    ratio, scale = clk.ratio, clk.scale
    for _, code, msg, hint, index, agent, t in found:
        v = _new(Violation)
        d = v.__dict__
        d["code"] = code
        d["message"] = msg
        d["hint"] = hint
        d["index"] = index
        d["agent"] = agent
        d["time"] = ratio(t, scale)
        out.append(v)
    return tuple(out)


def _first(entry: tuple) -> tuple:
    return entry[0]


@cython.locals(t=cython.longlong, sid=cython.Py_ssize_t, end=cython.longlong, out=dict, st=cython.longlong[::1])
def _expected_ends(starts: list, steps: list, durations: list, st: Column) -> dict:
    """Step id -> the latest planned end of its chunks (``ProcState.expected_end``); ``st``: ``_Tables.static``."""
    out: dict = {}
    for t, sid, d in zip(starts, steps, durations):
        if sid < 0:
            continue
        end = t + (st[_STRIDE * sid] if d is None else d)
        got = out.get(sid)
        if got is None or end > got:
            out[sid] = end
    return out


def _lag(found: list, key: tuple, clk: _Clock, yn: str, xn: str, lo, hi, ystart: int, xend: int, index, agent,
         now: int) -> None:
    """``ProcState._lag_violations``."""
    gap = ystart - xend
    if hi is not None and gap > hi:
        found.append((key, "E601", f"{yn} starts {clk.d(gap)} after {xn} ended (at {clk.t(xend)}); at most "
                      f"{clk.d(hi)} is allowed", f"start {yn} no later than {clk.t(xend + hi)}", index, agent, now))
    if lo is not None and gap < lo:
        rel = f"{clk.d(gap)} after" if gap >= 0 else f"{clk.d(-gap)} before"
        found.append((key, "E602", f"{yn} starts {rel} {xn} ends (at {clk.t(xend)}); at least {clk.d(lo)} must "
                      f"pass", f"start {yn} no earlier than {clk.t(xend + lo)}", index, agent, now))


def _setter_hint(tab: _Tables, last_end: Column, clk: _Clock, res: str, k: str, v, name: str, t: int) -> str:
    """``ProcState._setter_hint``."""
    keys = tab.setters.get((res, k, v), [])
    for x in keys:
        if last_end[x] > t:
            return f"start {name} at or after {clk.t(last_end[x])}, when {tab.names[x]} " \
                   f"has set {res} {k} = {fmt_value(v)}"
    if keys:
        return f"run {tab.names[keys[0]]} (sets {res} {k} = {fmt_value(v)}) before {name}, with nothing " \
               f"changing {res} {k} in between"
    return f"no step sets {res} {k} = {fmt_value(v)}; check the resource's initial value"


class _Runs:
    """The replay's runs in start event order (two columns: chunk position, length), read as rows (chunk
    position, start, length, end, step id, plan index) grouped by step when a check needs them (built once)."""

    def __init__(self, starts: list, steps: list, idx_of, chunk: Column, length: Column, count: int) -> None:
        self.starts, self.steps, self.idx_of = starts, steps, idx_of
        self.chunk, self.length, self.count = chunk, length, count
        self._by_step: Optional[dict] = None

    def by_step(self) -> dict:
        """Step id -> its runs, in start order."""
        if self._by_step is None:
            out: dict = {}
            starts, steps, idx_of = self.starts, self.steps, self.idx_of
            for k in range(self.count):
                j = self.chunk[k]
                t, d = starts[j], self.length[k]
                out.setdefault(steps[j], []).append((j, t, d, t + d, steps[j], idx_of[j]))
            self._by_step = out
        return self._by_step


def _as_of(step_runs: list, t: int) -> Optional[tuple]:
    """The latest of a step's runs started at or before ``t`` (starts and ends at t precede checks at t)."""
    got = None
    for r in step_runs:
        if r[1] > t:
            break
        got = r
    return got


@cython.locals(done=cython.longlong[::1], done_rank=cython.longlong[::1], first_start=cython.longlong[::1],
               progress=cython.longlong[::1], sid=cython.Py_ssize_t)
def _after(found: list, tab: _Tables, clk: _Clock, problem: ProcedureProblem, c: Compiled,  # noqa: C901
           starts: list, steps: list, durations: list, idx_of, runs: _Runs, done: Column, done_rank: Column,
           completing: list, first_start: Column, first_index: list, progress: Column,
           suppressed: dict, pending: list, end_time: int) -> None:
    """The violations of end events, checks and the plan's end (``ProcState._on_end``, ``_on_check``, ``finish``)."""
    names = tab.names
    infos = c.steps
    nd = len(tab.deadlines)
    by_step = runs.by_step() if nd or c.limit is not None else {}
    for i, (sid, deadline) in enumerate(tab.deadlines):
        if done[sid] <= deadline:
            continue
        last = _as_of(by_step.get(sid, ()), deadline)
        since = suppressed.get(sid)
        if last is None and since is not None and since <= deadline:
            continue
        name = names[sid]
        state = (f"it runs until {clk.t(last[3])}" if last is not None and last[3] > deadline else
                 "it has not started" if last is None else "it is not complete")
        found.append(((deadline, _CHECK, 0, -1, (0, i)), "E612", f"{name} must finish by {clk.t(deadline)}; {state}",
                      f"finish {name} by {clk.t(deadline)}", None if last is None else last[5], None, deadline))
    if c.limit is not None:
        limit = c.limit
        late = []
        for step_runs in by_step.values():
            last = _as_of(step_runs, limit)
            if last is not None and last[3] > limit:
                late.append((last[1], last[5], last[3]))
        for j, t in enumerate(starts):
            if t > limit:
                d = durations[j]
                if d is None:
                    d = 0 if steps[j] < 0 else infos[steps[j]].duration
                late.append((t, idx_of[j], t + max(d, 0)))
        if late:
            head = min(late)
            found.append(((limit, _CHECK, 0, -1, (0, nd)), "E614", f"the plan runs until "
                          f"{clk.t(max(e for _, _, e in late))}, past the time limit {clk.t(limit)}",
                          f"finish every step by {clk.t(limit)}", head[1], None, limit))
    # lags of a dependent started before its partner completed: checked at that completion
    for y, x, lo, hi in pending:
        if done[x] != _NEVER and ((hi is not None and first_start[y] - done[x] > hi) or
                               (lo is not None and first_start[y] - done[x] < lo)):
            end_key = (done[x], _END, done_rank[x], completing[x], NO_SUB)
            _lag(found, end_key, clk, names[y], names[x], lo, hi, first_start[y], done[x], first_index[y], None,
                 done[x])
    # maximum lags of dependents never planned: checked at partner's end + max (the first such check reports)
    reported: dict = {}
    for x, deps in enumerate(tab.dependents if tab.has_dependents else ()):
        if not deps or done[x] == _NEVER:
            continue
        for pos, (y, hi) in enumerate(deps):
            if first_start[y] != _NIL or y in suppressed:   # planned: run, or skipped (E014, E103, E502)
                continue
            end_key = (done[x], _END, done_rank[x], completing[x], NO_SUB)
            key = (done[x] + hi, _CHECK, 0, -1, (1, end_key, pos))
            if y not in reported or key < reported[y][0]:
                reported[y] = (key, x, hi)
    for y, (key, x, hi) in reported.items():
        found.append((key, "E603", f"{names[y]} must start within {clk.d(hi)} after {names[x]} ended (at "
                      f"{clk.t(done[x])}); it has not started by {clk.t(key[0])}",
                      f"start {names[y]} no later than {clk.t(key[0])}", None, None, key[0]))
    # the plan's end
    fin = (INF, _FINISH, 0, 0, NO_SUB)
    for sid in range(len(infos)):
        if done[sid] != _NEVER:
            continue
        name = names[sid]
        if first_start[sid] == _NIL:
            if sid in suppressed:
                continue
            after = tab.prereq_names[sid]
            where = f" after {', '.join(after)}" if after else ""
            found.append((fin, "E701", f"{name} (\"{tab.texts[sid]}\") is never executed",
                          f"add {name} ({clk.d(infos[sid].duration)}){where}", None, None, end_time))
        else:
            dur = infos[sid].duration
            found.append((fin, "E503", f"{name} ran for {clk.d(progress[sid])} of its {clk.d(dur)}",
                          f"add a chunk of {clk.d(dur - progress[sid])} for {name}", runs.by_step()[sid][-1][5], None,
                          end_time))
    for y, x, _, _ in pending:
        if done[x] != _NEVER:
            continue
        if problem.steps[x].index in problem.steps[y].prerequisites:
            continue
        found.append((fin, "E604", f"{names[y]} has a time constraint relative to {names[x]}, which never "
                      f"finished", f"complete {names[x]} so that {names[y]} can keep its lag", first_index[y],
                      None, end_time))
