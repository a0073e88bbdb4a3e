"""Optimal reference schedules for step-level scenarios with OR-tools CP-SAT.

Input: a ``compiler.instantiate.ProcedureProblem``, a time limit and a worker count.  Output: ``Result``
(status optimal|feasible|unsolvable|timeout|error, makespan, lower bound, the schedule as ``Entry``
chunks {task, step, start, duration, agent} in the scenario's time unit, wall-clock seconds).

Model (the semantics of ``runtime.procedure.sim``), on an integer grid: every number of the problem is scaled by
the LCM of its denominators and divided by the GCD of the results, so the grid unit is the largest one on
which all durations, lags, releases, deadlines and the limit lie.  Optimality is over plans whose times are
multiples of that unit.
- A step is an interval [start, end).  An interruptible step that occupies its agent (continuous) or
  holds a resource is cut into unit pieces of one grid unit each (pieces in order, gaps allowed), so any
  chunking on the grid is representable; consecutive pieces on one agent are merged into one chunk in the
  schedule.  A step longer than ``max_pieces`` units gets coarser pieces (then the model is restricted:
  ``exact`` is False and the status is at best ``feasible``).  An interruptible step that neither occupies
  its agent nor holds a resource only needs start + duration <= end (written as one or two chunks).
  "Autonomous for k" steps that are also interruptible run in one chunk (a restriction, as above).
- Agents: each occupation (a continuous piece or step, the first k units of an "autonomous for k" step) is
  assigned one agent; NoOverlap per agent (one NoOverlap with a single agent).  Identical agents are
  symmetry-broken by order of first use.
- ``occupancy exclusive`` (Recipe2Plan's rule): an autonomous step's start lies outside the interior of every
  occupation of its agent (a NoOverlap of a unit interval at the start with the occupations shrunk by one unit
  at their start); the schedule then splits a step's pieces where such a start falls between them.
- Resources: NoOverlap (capacity 1) or Cumulative over the intervals holding them.
- Properties: a ``needs k = T`` step chooses one support, the initial value or a setter of T that completes
  no later than its first start, and every setter of another value completes strictly before the support
  or strictly after the step's last chunk start (a value is written when its setter completes).
- Prerequisites: start >= end of each prerequisite; lags: min <= start(Y) - end(X) <= max; release,
  deadline, scenario limit; objective: minimise the makespan.
- ``compat="recipe2plan"`` adds the original Recipe2Plan evaluator's rules (``validators.compat.r2p_engine``)
  that the paper's rules above do not imply, so that the plan is accepted by both: a maximum lag holds at
  *every chunk* of the later step Y (a piece of Y may begin a chunk only when its start is within the lag,
  otherwise it continues the previous piece with no autonomous start at its start; the partner X must
  then complete before Y starts, which it does in Recipe2Plan's data as X is always a prerequisite of Y -
  elsewhere the model is restricted, ``exact`` False).  The one-cursor reading at equal starts is
  satisfied by the schedule's order (autonomous chunks first).  The original's quirks that the paper's
  rules forbid (0-length chunks and repeats, two uses of the very same object interval) are not used, so
  optimality is over plans valid under both rule sets.
Reproducibility: the optimum proven, a deterministic second phase (``_canonical``: one search worker, a
fixed seed, no hints from the multi-worker first phase) picks one of the optimal schedules, so the same input
gives the same plan in every run, whatever the worker count (``Result.stats["reproducible"]``).
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import InstantiationError, ProcedureProblem, SchedStep, procedure_problem
from chronoplan.runtime import metrics
from chronoplan.runtime.violations import json_number

STATUSES = ("optimal", "feasible", "unsolvable", "timeout", "error")
COMPAT_RULES = ("recipe2plan",)   # ``solve_cpsat(compat=...)``: extra rules the model can add
MAX_HORIZON = 2 ** 40
MAX_TIMEOUT = 86400.0          # seconds; ``chronoplan solve --timeout`` accepts MIN_TIMEOUT..MAX_TIMEOUT
MIN_TIMEOUT = 0.01


class SolverUnavailable(RuntimeError):
    """OR-tools is not installed."""


@dataclass(frozen=True)
class Entry:
    """One chunk of the schedule (times in the scenario's unit)."""

    task: str
    step: int
    start: Fraction
    duration: Fraction
    agent: str

    def to_json(self) -> dict:
        return {"task": self.task, "step": self.step, "start": json_number(self.start),
                "duration": json_number(self.duration), "agent": self.agent}


@dataclass(frozen=True)
class Result:
    status: str
    makespan: Optional[Fraction]
    bound: Optional[Fraction]
    schedule: tuple[Entry, ...]
    seconds: float
    planner: str = "cpsat"
    exact: bool = True                 # False: the model restricts chunking (see module docstring)
    message: str = ""
    stats: dict = field(default_factory=dict, compare=False)

    def plan_json(self, scenario: Optional[str] = None) -> dict:
        """The schedule in the timed-schedule plan format."""
        out = {"schedule": [e.to_json() for e in self.schedule]}
        return {"scenario": scenario, **out} if scenario else out


# ------------------------------------------------------------------------------------ the grid
def grid_unit(problem: ProcedureProblem) -> Fraction:
    """The largest time unit (in the scenario's unit) of which every number of the problem is a multiple."""
    scale, g = problem.grid()
    return Fraction(g, scale)


def trivial_bound(problem: ProcedureProblem) -> Fraction:
    """A valid lower bound on the makespan, the static one every report carries as ``lower_bound``
    (``runtime.metrics.lower_bound``: critical path with minimum lags and releases, the continuous work shared
    among the agents, each resource's load over its capacity).  One home: ``solve`` and ``validate`` agree."""
    return metrics.lower_bound(problem).value


# ------------------------------------------------------------------------------------ model
@dataclass
class _Var:
    step: SchedStep
    d: int                               # duration in grid units
    start: object
    end: object
    pieces: list                         # [(start var, size, end var, interval)]
    kind: str                            # "whole" | "pieces" | "stretch"
    occ: list = field(default_factory=list)   # [(piece index or None, interval, size, start var)]
    agent_lits: dict = field(default_factory=dict)   # occ position -> [lit per agent]
    start_lits: list = field(default_factory=list)   # occupancy exclusive: the agent of an autonomous start


def _uses_count(s: SchedStep) -> dict:
    out: dict = {}
    for u in s.uses:
        out[u.resource] = out.get(u.resource, 0) + 1
    return out


def compat_name(compat) -> Optional[str]:
    """``compat`` (None, a name or a ``validators.compat.Compat`` member) -> its name, checked against
    ``COMPAT_RULES`` (ValueError for a mode the model cannot add)."""
    if compat is None:
        return None
    name = str(getattr(compat, "cli_name", compat)).strip().lower()
    if name not in COMPAT_RULES:
        raise ValueError(f"the cpsat planner models no compatibility mode {name!r} "
                         f"(it models: {', '.join(COMPAT_RULES)})")
    return name


def _ancestors(problem: ProcedureProblem) -> dict:
    """Step key -> the keys of its transitive prerequisites."""
    by_key = {s.key: s for s in problem.steps}
    out: dict = {}

    def walk(key) -> set:
        if key not in out:
            out[key] = set()
            acc = set()
            for p in by_key[key].prerequisites:
                pk = (key[0], p)
                if pk in by_key:
                    acc |= {pk} | walk(pk)
            out[key] = acc
        return out[key]

    for s in problem.steps:
        walk(s.key)
    return out


class _ModelBuilder:
    def __init__(self, cp_model, problem: ProcedureProblem, unit: Fraction, max_pieces: int,
                 compat: Optional[str] = None) -> None:
        self.cp = cp_model
        self.m = cp_model.CpModel()
        self.p = problem
        self.unit = unit
        self.max_pieces = max_pieces
        self.exact = True
        self.notes: list = []
        self.vars: dict = {}
        self.gaps: list = []                 # one literal per pair of consecutive pieces: a gap between them
        self.compat = compat

    def tidy_vars(self) -> list:
        """The variables a solution hint fixes: the makespan, every start, piece start and end, agent literal
        and gap literal."""
        out = [self.makespan] + list(self.gaps)
        for v in self.vars.values():
            out += [v.start, v.end] + [p[0] for p in v.pieces[1:]]
            for lits in [*v.agent_lits.values(), v.start_lits]:
                out += lits
        return out

    def g(self, x: Fraction) -> int:
        q = Fraction(x) / self.unit
        assert q.denominator == 1, (x, self.unit)
        return int(q)

    def horizon(self) -> int:
        if self.p.limit is not None:
            return self.g(self.p.limit)
        h = max((self.g(s.release) for s in self.p.steps if s.release is not None), default=0)
        h += sum(self.g(s.duration) for s in self.p.steps)
        h += sum(self.g(lag.min) for s in self.p.steps for lag in s.lags if lag.min is not None and lag.min > 0)
        return h + len(self.p.steps) + 1     # + strict property orderings

    def build(self) -> None:
        m, H = self.m, self.horizon()
        if H > MAX_HORIZON:
            raise ValueError(f"the time horizon ({H} grid units) is too large for CP-SAT")
        for s in self.p.steps:
            self.vars[s.key] = self._step(s, H)
        self._agents()
        self._resources()
        self._properties()
        for s in self.p.steps:
            v = self.vars[s.key]
            for pk in s.prerequisites:
                pv = self.vars.get((s.task, pk))
                if pv is not None:
                    m.Add(v.start >= pv.end)
            for lag in s.lags:
                xv = self.vars.get((s.task, lag.other))
                if xv is None:
                    continue
                if lag.min is not None:
                    m.Add(v.start - xv.end >= self.g(lag.min))
                if lag.max is not None:
                    m.Add(v.start - xv.end <= self.g(lag.max))
            if s.deadline is not None:
                m.Add(v.end <= self.g(s.deadline))
        if self.compat == "recipe2plan":
            self._lags_at_every_chunk()
        self.makespan = m.NewIntVar(0, H, "makespan")
        if self.vars:
            m.AddMaxEquality(self.makespan, [v.end for v in self.vars.values()])
        else:
            m.Add(self.makespan == 0)
        m.Minimize(self.makespan)

    def _step(self, s: SchedStep, H: int) -> _Var:
        m = self.m
        d = self.g(s.duration)
        lo = self.g(s.release) if s.release is not None else 0
        name = f"{s.task}.{s.index}"
        start = m.NewIntVar(lo, H, f"s[{name}]")
        end = m.NewIntVar(lo, H, f"e[{name}]")
        occupies = s.occupancy is ir.Occupancy.CONTINUOUS
        if s.interruptible and d >= 2 and s.occupancy is ir.Occupancy.START and not s.uses:
            m.Add(end >= start + d)
            return _Var(s, d, start, end, [], "stretch")
        if s.interruptible and d >= 2 and s.occupancy is ir.Occupancy.PARTIAL:
            self.exact = False
            self.notes.append(f"step {s.index} of {s.task} (interruptible, autonomous for k) runs in one chunk")
        if s.interruptible and d >= 2 and (occupies or s.uses) and s.occupancy is not ir.Occupancy.PARTIAL:
            n = d if d <= self.max_pieces else max(k for k in range(1, self.max_pieces + 1) if d % k == 0)
            if n < d:
                self.exact = False
                self.notes.append(f"step {s.index} of {s.task} is cut into {n} pieces of {d // n} grid units")
            size = d // n
            pieces: list = []
            for i in range(n):
                ps = start if i == 0 else m.NewIntVar(lo, H, f"ps[{name}.{i}]")
                pe = end if i == n - 1 else m.NewIntVar(lo, H, f"pe[{name}.{i}]")
                iv = m.NewIntervalVar(ps, size, pe, f"p[{name}.{i}]")
                if pieces:
                    m.Add(ps >= pieces[-1][2])
                    gap = m.NewBoolVar(f"gap[{name}.{i}]")
                    m.Add(ps == pieces[-1][2]).OnlyEnforceIf(gap.Not())
                    self.gaps.append(gap)
                pieces.append((ps, size, pe, iv))
            v = _Var(s, d, start, end, pieces, "pieces")
            if occupies:
                v.occ = [(i, iv, size, ps) for i, (ps, size, _, iv) in enumerate(pieces)]
            return v
        iv = m.NewIntervalVar(start, d, end, f"i[{name}]")
        v = _Var(s, d, start, end, [(start, d, end, iv)], "whole")
        o = self.g(s.occupy_for)
        if o > 0:
            oiv = iv if o == d else m.NewFixedSizeIntervalVar(start, o, f"o[{name}]")
            v.occ = [(None, oiv, o, start)]
        return v

    def _lags_at_every_chunk(self) -> None:
        """The original Recipe2Plan evaluator checks a maximum lag start - end(X) <= L at every chunk of Y,
        against the end of X's latest chunk.  X completes before Y starts (a prerequisite; otherwise that is
        imposed, a restriction), so end(X) is fixed by then; every chunk start of Y must be within L."""
        m = self.m
        ancestors = _ancestors(self.p)
        autos = [v for v in self.vars.values() if v.step.occupancy is ir.Occupancy.START]
        if len(self.p.agents) > 1 and autos:
            self.exact = False
            self.notes.append("--compat: a chunk never continues at an autonomous start of another agent")
        for v in self.vars.values():
            s = v.step
            for lag in s.lags:
                xv = self.vars.get((s.task, lag.other))
                if xv is None or lag.max is None:
                    continue
                limit = self.g(lag.max)
                if xv.step.key not in ancestors[s.key]:
                    m.Add(v.start >= xv.end)
                    self.exact = False
                    self.notes.append(f"--compat: step {lag.other} of {s.task} completes before step {s.index} "
                                      "starts (its time-constraint partner is not a prerequisite)")
                if v.kind == "stretch":                 # chunks [start, end - 1) and [end - 1, end) if split
                    split = m.NewBoolVar(f"split[{s.key}]")
                    m.Add(v.end == v.start + v.d).OnlyEnforceIf(split.Not())
                    m.Add(v.end - 1 - xv.end <= limit).OnlyEnforceIf(split)
                    continue
                for i in range(1, len(v.pieces)):
                    ps, prev_end = v.pieces[i][0], v.pieces[i - 1][2]
                    fresh = m.NewBoolVar(f"chunk[{s.key}.{i}]")      # piece i may begin a chunk
                    m.Add(ps - xv.end <= limit).OnlyEnforceIf(fresh)
                    m.Add(ps == prev_end).OnlyEnforceIf(fresh.Not())
                    for a in autos:                 # the schedule splits a chunk where an autonomous step starts
                        if a is not v:
                            m.Add(ps != a.start).OnlyEnforceIf(fresh.Not())

    def _agents(self) -> None:
        m, agents = self.m, self.p.agents
        occs = [(v, pos) for v in self.vars.values() for pos in range(len(v.occ))]
        if len(agents) == 1:
            if occs:
                m.AddNoOverlap([v.occ[pos][1] for v, pos in occs])
            self._exclusive_starts(occs)
            return
        per_agent: list = [[] for _ in agents]
        for j, (v, pos) in enumerate(occs):
            _, _, size, st = v.occ[pos]
            lits = []
            for a in range(len(agents)):
                lit = m.NewBoolVar(f"x[{v.step.task}.{v.step.index}.{pos}.{a}]")
                if a > j:                        # symmetry: the j-th occupation uses one of the first j+1 agents
                    m.Add(lit == 0)
                per_agent[a].append(m.NewOptionalFixedSizeIntervalVar(st, size, lit, f"oa[{j}.{a}]"))
                lits.append(lit)
            m.AddExactlyOne(lits)
            v.agent_lits[pos] = lits
        for ivs in per_agent:
            if len(ivs) > 1:
                m.AddNoOverlap(ivs)
        self._exclusive_starts(occs)

    def _exclusive_starts(self, occs: list) -> None:
        """``occupancy exclusive``: an autonomous step's start (a point p) lies outside the interior of every
        occupation [a, b) of its agent: p <= a or p >= b.  On the integer grid that is "the unit interval
        [p, p + 1) does not overlap [a + 1, b)", one NoOverlap per autonomous step and agent."""
        if self.p.occupancy is not ir.OccupancyRule.EXCLUSIVE:
            return
        m, agents = self.m, self.p.agents
        autos = [v for v in self.vars.values() if v.step.occupancy is ir.Occupancy.START]
        if not autos:
            return
        inner: list = [[] for _ in agents]           # per agent: (interior interval) of each occupation
        for v, pos in occs:
            _, _, size, st = v.occ[pos]
            if size < 2:
                continue                             # a unit occupation has no interior grid point
            lits = v.agent_lits.get(pos)
            for a in range(len(agents)):
                if lits is None:
                    inner[a].append(m.NewFixedSizeIntervalVar(st + 1, size - 1, f"in[{v.step.key}.{pos}]"))
                else:
                    inner[a].append(m.NewOptionalFixedSizeIntervalVar(st + 1, size - 1, lits[a],
                                                                      f"in[{v.step.key}.{pos}.{a}]"))
        for v in autos:
            if len(agents) == 1:
                if inner[0]:
                    m.AddNoOverlap([m.NewFixedSizeIntervalVar(v.start, 1, f"pt[{v.step.key}]")] + inner[0])
                continue
            lits = [m.NewBoolVar(f"xa[{v.step.key}.{a}]") for a in range(len(agents))]
            m.AddExactlyOne(lits)
            v.start_lits = lits
            for a, lit in enumerate(lits):
                if inner[a]:
                    pt = m.NewOptionalFixedSizeIntervalVar(v.start, 1, lit, f"pt[{v.step.key}.{a}]")
                    m.AddNoOverlap([pt] + inner[a])

    def _resources(self) -> None:
        m = self.m
        for r in self.p.resources:
            ivs, demands = [], []
            for v in self.vars.values():
                k = _uses_count(v.step).get(r.name, 0)
                for (_, _, _, iv) in (v.pieces if k else ()):
                    ivs.append(iv)
                    demands.append(k)
            if sum(demands) <= r.capacity or not ivs:
                continue
            if r.capacity == 1 and all(dm == 1 for dm in demands):
                m.AddNoOverlap(ivs)
            else:
                m.AddCumulative(ivs, demands, r.capacity)

    def _properties(self) -> None:
        m = self.m
        setters: dict = {}
        for v in self.vars.values():
            for u in v.step.uses:
                for k, val in u.sets:
                    setters.setdefault((u.resource, k), []).append((v, val))
        initial = {r.name: dict(r.properties) for r in self.p.resources}
        for n in self.vars.values():
            last_start = n.pieces[-1][0] if n.pieces else n.start
            for u in n.step.uses:
                for k, want in u.needs:
                    cands = [(x, val) for x, val in setters.get((u.resource, k), []) if x is not n]
                    support = [x for x, val in cands if val == want]
                    conflict = [x for x, val in cands if val != want]
                    lits = []
                    if initial.get(u.resource, {}).get(k) == want:
                        lit = m.NewBoolVar("init")
                        for c in conflict:
                            m.Add(c.end >= last_start + 1).OnlyEnforceIf(lit)
                        lits.append(lit)
                    for x in support:
                        lit = m.NewBoolVar("support")
                        m.Add(x.end <= n.start).OnlyEnforceIf(lit)
                        for c in conflict:
                            before = m.NewBoolVar("before")
                            m.Add(c.end + 1 <= x.end).OnlyEnforceIf([lit, before])
                            m.Add(c.end >= last_start + 1).OnlyEnforceIf([lit, before.Not()])
                        lits.append(lit)
                    if lits:
                        m.AddExactlyOne(lits)
                    else:
                        m.AddBoolOr([])          # nothing ever sets the needed value: unsolvable

    # -------------------------------------------------------------------- reading a solution
    def schedule(self, solver) -> list:
        """The solution as chunks, sorted by start; consecutive pieces of a step merge into one chunk unless
        (occupancy exclusive) an autonomous step of the same agent starts between them.  At equal starts,
        steps that do not occupy their agent come first (Recipe2Plan's evaluator reads plans in order)."""
        agents = self.p.agents
        out = []
        auto_starts = set()
        if self.p.occupancy is ir.OccupancyRule.EXCLUSIVE:
            for v in self.vars.values():
                if v.step.occupancy is ir.Occupancy.START:
                    a = next((a for a, lit in enumerate(v.start_lits) if solver.BooleanValue(lit)), 0)
                    auto_starts.add((agents[a], solver.Value(v.start)))
        for v in self.vars.values():
            s = v.step
            val = solver.Value
            if v.kind == "stretch":
                st, en = val(v.start), val(v.end)
                if en - st == v.d:
                    runs = [(st, v.d, agents[0])]
                else:
                    runs = [(st, v.d - 1, agents[0]), (en - 1, 1, agents[0])]
            else:
                pieces = []
                for i, (ps, size, _, _) in enumerate(v.pieces):
                    pos = i if v.kind == "pieces" and v.occ else (0 if v.occ else None)
                    agent = agents[0]
                    if pos is not None and pos in v.agent_lits:
                        agent = agents[next(a for a, lit in enumerate(v.agent_lits[pos]) if solver.BooleanValue(lit))]
                    elif v.start_lits:
                        agent = agents[next(a for a, lit in enumerate(v.start_lits) if solver.BooleanValue(lit))]
                    pieces.append((val(ps), size, agent))
                runs = []
                for st, size, agent in pieces:
                    if runs and runs[-1][2] == agent and runs[-1][0] + runs[-1][1] == st \
                            and (agent, st) not in auto_starts:
                        runs[-1] = (runs[-1][0], runs[-1][1] + size, agent)
                    else:
                        runs.append((st, size, agent))
            for st, size, agent in runs:
                out.append(Entry(s.task, s.index, st * self.unit, size * self.unit, agent))
        order = {t: i for i, t in enumerate(self.p.tasks)}
        occupies = {v.step.key: bool(v.occ) for v in self.vars.values()}
        out.sort(key=lambda e: (e.start, occupies[(e.task, e.step)], order.get(e.task, 0), e.step))
        return out


def _cp_model():
    try:
        from ortools.sat.python import cp_model
    except ImportError:
        raise SolverUnavailable("the cpsat planner needs OR-tools: pip install 'chronoplan[optimal]'") from None
    return cp_model


CANONICAL_DETERMINISTIC_TIME = 0.2     # the tidy search's limit in CP-SAT's deterministic time units


def _single(cp_model, seed: int, budget: float, deterministic: Optional[float] = None):
    """A CP-SAT solver with ONE search worker and the fixed ``seed``: deterministic for a given model (and
    hints) unless the wall-clock ``budget`` stops it."""
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = seed
    solver.parameters.max_time_in_seconds = budget
    if deterministic is not None:
        solver.parameters.max_deterministic_time = deterministic
    return solver


def _canonical(cp_model, b: _ModelBuilder, first, budget: float, seed: int, tidy: bool):
    """Second phase, the deterministic tie-break: a proven optimum has many optimal schedules, and which one a
    multi-worker search returns differs from run to run.  With the makespan fixed at its optimum and no
    solution hints from the first phase, (a) a single-worker search (``_single``) finds an optimal schedule,
    then (b) with ``tidy`` a single-worker search hinted by it, stopped by a limit in *deterministic* time,
    minimises the number of interruptions (gaps between the pieces of a step), so reference plans do not
    split steps for no reason.  A single-worker CP-SAT search stopped by its own end or a deterministic
    limit depends on its model only, so the same input gives the same plan in every run.
    Returns ``(solver, reproducible)``: the solver to read the plan from (``first`` when (a) found no
    schedule within ``budget`` seconds) and whether no search was stopped by the wall-clock ``budget``."""
    t0 = time.perf_counter()
    if budget < 0.05:
        return first, False
    m = b.m
    m.Add(b.makespan == first.Value(b.makespan))
    m.ClearHints()
    m.ClearObjective()
    solver = _single(cp_model, seed, budget)
    if _solve(solver, m) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return first, False
    if not (tidy and b.gaps):
        return solver, True
    left = budget - (time.perf_counter() - t0)
    if left < 0.05:
        return solver, True
    for var in b.tidy_vars():
        m.AddHint(var, solver.Value(var))
    m.Minimize(sum(b.gaps))
    tidy_solver = _single(cp_model, seed, left, CANONICAL_DETERMINISTIC_TIME)
    code = _solve(tidy_solver, m)
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return solver, tidy_solver.WallTime() < 0.95 * left
    return tidy_solver, code == cp_model.OPTIMAL or tidy_solver.WallTime() < 0.95 * left


def _solve(solver, model):
    """``solver.Solve(model)``, stoppable by Ctrl-C and SIGTERM.  OR-tools would catch SIGINT itself and
    report the stopped search as a timeout, and a Python signal handler only runs once ``Solve`` returns
    (up to the time limit later).  So in the main thread the search runs in a helper thread while the main
    thread waits; an interrupt (``KeyboardInterrupt``, ``chronoplan.cli.Terminated``) stops the search
    (``StopSearch``), waits for the helper and propagates."""
    solver.parameters.catch_sigint_signal = False
    if threading.current_thread() is not threading.main_thread():
        return solver.Solve(model)
    box: dict = {}
    done = threading.Event()         # not Thread.join: a join cut by KeyboardInterrupt can leave the
                                     # thread looking alive for ever (Python 3.11)

    def run():
        try:
            box["code"] = solver.Solve(model)
        except BaseException as exc:     # noqa: BLE001 - handed to the main thread
            box["exc"] = exc
        finally:
            done.set()

    helper = threading.Thread(target=run, name="cpsat-search", daemon=True)
    helper.start()
    try:
        while not done.wait(0.05):
            pass
    except BaseException:
        solver.StopSearch()
        t0 = time.perf_counter()
        while not done.is_set() and time.perf_counter() - t0 < 5.0:
            try:
                done.wait(0.05)
            except BaseException:    # noqa: BLE001 - a second signal: keep waiting, the first one propagates
                solver.StopSearch()
        raise
    if "exc" in box:
        raise box["exc"]
    return box["code"]


def _too_fine(problem: ProcedureProblem, unit: Fraction) -> Optional[str]:
    """Why the problem's numbers do not fit CP-SAT's integers on the grid ``unit`` (a duration of 10^30
    min; a limit of 10^-100 h next to durations in minutes, which makes the grid unit tiny), or None."""
    for x in problem.numbers():
        q = abs(Fraction(x) / unit)
        if q > MAX_HORIZON:
            return (f"the scenario's times are too large or too fine for CP-SAT: {float(x):.6g} (in the "
                    f"scenario's unit) is {float(q):.3g} steps of the common time grid {float(unit):.3g}, "
                    f"at most {MAX_HORIZON} are supported")
    return None


def solve_cpsat(problem: ProcedureProblem, timeout: float = 10.0, workers: int = 2, *,
                max_pieces: int = 32, seed: int = 0, tidy: bool = True, canonical: bool = True,
                compat=None) -> Result:
    """Minimise the makespan of ``problem``; raise SolverUnavailable when OR-tools is missing.

    The first phase searches with ``workers`` threads and the fixed ``seed``.  Once the optimum is proven,
    with ``canonical`` the deterministic second phase (``_canonical``, within ``timeout``) picks one optimal
    schedule by single-worker searches without hints from the first phase, then with ``tidy`` minimises how
    often interruptible steps are split; ``stats["reproducible"]`` is True when no search of that phase was
    stopped by the wall clock, and then the same problem gives the same plan in every run whatever
    ``workers`` is (a reference plan is reproducible).  ``compat`` ("recipe2plan" or
    ``validators.compat.Compat.RECIPE2PLAN``) adds that original evaluator's rules (module docstring);
    ValueError for a mode the model does not have."""
    mode = compat_name(compat)
    cp_model = _cp_model()
    t0 = time.perf_counter()
    unit = grid_unit(problem)
    why = _too_fine(problem, unit)
    if why is not None:
        return Result("error", None, None, (), time.perf_counter() - t0, message=why)
    b = _ModelBuilder(cp_model, problem, unit, max(1, max_pieces), mode)
    try:
        b.build()
    except (ValueError, OverflowError, RuntimeError) as exc:   # OR-tools refuses numbers beyond int64
        return Result("error", None, None, (), time.perf_counter() - t0,
                      message=f"the model cannot be built for CP-SAT: {str(exc)[:300]}")
    timeout = float(timeout)
    if not math.isfinite(timeout) or timeout > MAX_TIMEOUT:
        timeout = MAX_TIMEOUT
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.01, timeout)
    solver.parameters.num_workers = max(1, int(workers))
    solver.parameters.random_seed = seed
    code = _solve(solver, b.m)
    stats = {"grid_unit": unit, "branches": solver.NumBranches(), "conflicts": solver.NumConflicts(),
             "reproducible": False}
    if canonical and code == cp_model.OPTIMAL:
        solver, stats["reproducible"] = _canonical(cp_model, b, solver, timeout - (time.perf_counter() - t0),
                                                   seed, tidy)
        if not stats["reproducible"]:
            b.notes.append("the tie-break between optimal plans stopped at its limit: "
                           "another run may return another optimal plan")
    seconds = time.perf_counter() - t0
    msg = "; ".join(b.notes)
    lb = trivial_bound(problem)
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        makespan = solver.Value(b.makespan) * unit
        bound = lb if not b.exact or code == cp_model.OPTIMAL else \
            max(lb, math.ceil(solver.BestObjectiveBound() - 1e-6) * unit)
        status = "optimal" if code == cp_model.OPTIMAL and b.exact else "feasible"
        if code == cp_model.OPTIMAL and b.exact:
            bound = makespan
        return Result(status, makespan, min(bound, makespan), tuple(b.schedule(solver)), seconds,
                      exact=b.exact, message=msg, stats=stats)
    if code == cp_model.INFEASIBLE:
        if b.exact:
            return Result("unsolvable", None, None, (), seconds, message=msg or "no plan meets every constraint",
                          stats=stats)
        return Result("error", None, None, (), seconds, exact=False,
                      message=f"the restricted model has no solution ({msg})", stats=stats)
    if code == cp_model.UNKNOWN:
        return Result("timeout", None, lb, (), seconds, exact=b.exact, message=msg, stats=stats)
    return Result("error", None, None, (), seconds, exact=b.exact,
                  message=f"CP-SAT: {solver.StatusName(code)}", stats=stats)


def solve_scenario(project: ir.Project, scenario: str, timeout: float = 10.0, workers: int = 2, *,
                   compat=None) -> Result:
    """The planner entry point used by ``chronoplan solve``: instantiate a step-level scenario and solve it
    (``compat``: as in ``solve_cpsat``).  Which scenarios cpsat solves is the family registry's answer
    (``validators.families``); any other scenario cannot be instantiated here (status "error")."""
    scen = project.scenario(scenario)
    part = project.part(scenario) if hasattr(project, "part") else project
    try:
        problem = procedure_problem(part, scen)
    except InstantiationError as exc:
        return Result("error", None, None, (), 0.0, message=f"scenario {scenario} cannot be instantiated: {exc}")
    return solve_cpsat(problem, timeout, workers, compat=compat)
