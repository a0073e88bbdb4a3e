"""The mutable state of the step-level simulator (rules: see ``runtime.procedure.sim``).

Input: a ``ProcedureProblem``; then chunks to start (``check_start`` is pure, ``apply_start`` mutates,
``start`` does both) and ``advance(until)`` to process queued ends and checks.  Output: violations
(``self.violations``), runs, step completions and ``result()`` -> ``SimResult``.  Shared by the batch
replay (``procedure.sim.simulate``) and the interactive environment (``runtime.procedure.env``).
"""
from __future__ import annotations

import copy
from collections import deque
from dataclasses import MISSING, fields
from fractions import Fraction
from heapq import heappop, heappush
from typing import Optional, Union

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime import timefmt
from chronoplan.runtime.events import CHECK, END, START, EventQueue
from chronoplan.runtime.procedure.records import Chunk, Run, SimResult, StepState, fmt_value, step_name
from chronoplan.runtime.violations import Violation

_new_run = object.__new__       # Run's dataclass __init__ (frozen: one object.__setattr__ per field) is slow
_STEP_STATE = {f.name: f.default for f in fields(StepState)}       # every field but ``step`` has a plain default
assert all(f.default_factory is MISSING for f in fields(StepState)) and not hasattr(StepState, "__post_init__")
NO_GOAL_CODES = frozenset({"E014", "E103", "E502"})   # skipped: the step's absence is already explained


def _tables(problem: ProcedureProblem) -> tuple:
    lag_dependents: dict = {}
    setters: dict = {}
    deadlines = []
    for s in problem.steps:
        for lag in s.lags:
            lag_dependents.setdefault((s.task, lag.other), []).append((s.key, lag))
        for u in s.uses:
            for k, v in u.sets:
                setters.setdefault((u.resource, k, v), []).append(s.key)
        if s.deadline is not None:
            deadlines.append((s.deadline, s.key))
    return lag_dependents, setters, {r.name: r.capacity for r in problem.resources}, tuple(deadlines)


def _tasks_hint(problem: ProcedureProblem) -> str:
    return f"use one of: {', '.join(problem.tasks)}"


def _step_hints(problem: ProcedureProblem) -> dict:
    """Task -> the hint of an E102 (a step number the task lacks), made once per problem."""
    idx: dict = {t: [] for t in problem.tasks}
    for s in problem.steps:
        idx.setdefault(s.task, []).append(s.index)
    return {t: f"choose a step of {t} from {f'{min(i)} to {max(i)}' if i else 'none'}" for t, i in idx.items()}


class ProcState:
    """Mutable simulation state; ``check_start`` is pure, ``apply_start`` mutates."""

    def __init__(self, problem: ProcedureProblem, *, first: bool = False, whole: bool = False) -> None:
        self.problem = problem
        self.unit = problem.time_unit
        self.first = first
        self.zero = 0 if whole else Fraction(0)   # whole: every time is an int (procedure.sim's whole-number replay)
        self.exclusive = problem.occupancy is ir.OccupancyRule.EXCLUSIVE
        self.steps: dict = {}                 # {s.key: StepState(s, self.zero)}, without the dataclass __init__
        blank = dict(_STEP_STATE, progress=self.zero)
        for s in problem.steps:
            st = _new_run(StepState)
            st.__dict__.update(blank, step=s)
            self.steps[s.key] = st
        self.tasks = set(problem.tasks)
        self.agent_rank = {a: i for i, a in enumerate(problem.agents)}
        # each agent's busy runs (occupation > 0) in start order, the first ones dropped once no longer busy at one
        # of its starts (others no longer busy may stay: readers filter by time); ``agent_marks`` keeps per agent
        # (start of its latest busy run, the latest end of its busy runs started before that, the latest end of all),
        # so that a check finds the first run still busy and when the agent is free without looking at every run
        self.agent_runs: dict = {a: deque() for a in problem.agents}
        self.agent_marks: dict = {}
        self.holders: dict = {r.name: [] for r in problem.resources}
        self.props: dict = {r.name: dict(r.properties) for r in problem.resources}
        self.props_version = 0                # counts the properties' writes (readers keep copies per version)
        self.queue = EventQueue()
        self.now = self.zero
        self.seq = 0
        self.violations: list[Violation] = []
        self.first_violation_seq: Optional[int] = None
        self.stopped = False
        self.runs: list[Run] = []
        self.pending_lags: list = []          # (Y key, X key, lag) waiting for X to complete (None: done)
        self.lags_waiting: dict = {}          # X key -> positions of its entries in pending_lags
        # static tables, built once per problem and shared (read only): X key -> [(Y key, lag)],
        # (resource, prop, value) -> [step keys], resource -> capacity, [(deadline, step key)]
        self.lag_dependents, self.setters, self.capacity, deadlines = problem.memo("_procstate_tables", _tables)
        self.expected_end: dict = {}          # key -> planned completion (batch hints)
        self.planned: set = set()             # keys with a planned chunk (batch)
        self.suppressed: set = set()          # keys whose absence another violation explains
        self.lag_reported: set = set()
        self._seen = 0                        # violations already looked at by ``advance(stop_on=...)``
        for deadline, key in deadlines:
            self.queue.push(deadline, CHECK, ("deadline", key))

    # ------------------------------------------------------------------ helpers

    def fork(self) -> ProcState:
        """An independent copy of the state for trying an action (the problem and static tables are shared;
        immutable values keep their identity; both copies share the event queue's insertion counter, so
        insertion numbers keep increasing in both)."""
        memo: dict = {id(self.problem): self.problem, id(self.lag_dependents): self.lag_dependents,
                      id(self.setters): self.setters, id(self.capacity): self.capacity,
                      id(self.queue.counter): self.queue.counter}
        frozen = [*self.problem.steps, *self.runs, *self.violations]
        for s in self.problem.steps:
            frozen += [*s.lags, *s.uses]
        for x in frozen:
            memo[id(x)] = x
        return copy.deepcopy(self, memo)
    def t(self, x: Fraction) -> str:
        return timefmt.clock(x, self.unit)

    def d(self, x: Fraction) -> str:
        return timefmt.duration(x, self.unit)

    def report(self, v: Violation) -> None:
        if self.stopped:
            return
        self.violations.append(v)
        if self.first_violation_seq is None:
            self.first_violation_seq = self.seq
        if self.first:
            self.stopped = True

    def agent_free_at(self, agent: str, t: Fraction) -> Fraction:
        """When ``agent`` is free at or after ``t``: the latest end of its busy runs, or ``t`` itself."""
        free = t
        for r in self.agent_runs.get(agent, ()):
            end = r.start + r.busy
            if end > free:
                free = end
        return free

    def running_runs(self, t: Fraction) -> list[Run]:
        return [st.running for st in self.steps.values() if st.running is not None and st.running.end > t]

    # ------------------------------------------------------------------ starting a chunk
    def resolve(self, c: Chunk) -> tuple[Optional[StepState], Optional[str], Optional[Fraction], list[Violation]]:
        """Identity checks: names, agent, repeats, duration.  Returns (state, agent, length, violations)."""
        t = c.start
        if c.task not in self.tasks:
            return None, None, None, [Violation(
                "E101", f"there is no task {c.task!r} in scenario {self.problem.scenario}",
                self.problem.memo("_tasks_hint", _tasks_hint), c.index, c.agent, t)]
        st = self.steps.get((c.task, c.step))
        if st is None:
            return None, None, None, [Violation(
                "E102", f"{c.task} has no step {c.step}", self.problem.memo("_step_hints", _step_hints)[c.task],
                c.index, c.agent, t)]
        s = st.step
        agents = self.problem.agents
        agent = c.agent
        if agent is None:
            if len(agents) == 1 or (s.occupancy is ir.Occupancy.START and not self.exclusive):
                agent = agents[0]
            else:
                return st, None, None, [Violation(
                    "E014", f"{step_name(s.key)} needs an agent: the scenario has {len(agents)}",
                    f"add \"agent\": one of {', '.join(agents)}", c.index, None, t)]
        elif agent not in self.agent_rank:
            return st, None, None, [Violation(
                "E103", f"there is no agent {agent!r}", f"use one of: {', '.join(agents)}", c.index, agent, t)]
        if st.done_at is not None:
            return st, agent, None, [Violation(
                "E801", f"{step_name(s.key)} is already done (finished at {self.t(st.done_at)})",
                f"remove this repeated {step_name(s.key)}", c.index, agent, t)]
        if st.running is not None and st.running.end > t:
            return st, agent, None, [Violation(
                "E802", f"{step_name(s.key)} is already running until {self.t(st.running.end)}",
                f"start another chunk of {step_name(s.key)} at or after {self.t(st.running.end)}"
                if s.interruptible else f"remove this repeated {step_name(s.key)}", c.index, agent, t)]
        remaining = s.duration - st.progress
        d = remaining if c.duration is None else c.duration
        if d <= 0:
            return st, agent, None, [Violation(
                "E502", f"{step_name(s.key)} is given a duration of {self.d(d)}",
                f"give {step_name(s.key)} a duration of {self.d(remaining)}", c.index, agent, t)]
        out = []
        if not s.interruptible:
            if d > s.duration:
                out.append(Violation(
                    "E501", f"{step_name(s.key)} takes {self.d(s.duration)}, the plan gives it {self.d(d)}",
                    f"set the duration of {step_name(s.key)} to {self.d(s.duration)}", c.index, agent, t))
            elif d < s.duration:
                out.append(Violation(
                    "E511", f"{step_name(s.key)} is not interruptible: it must run {self.d(s.duration)} in one "
                    f"go, the plan gives it {self.d(d)}",
                    f"run {step_name(s.key)} for {self.d(s.duration)} in one go", c.index, agent, t))
        elif d > remaining:
            what = "takes" if st.progress == 0 else "has only"
            left = "" if st.progress == 0 else " left"
            out.append(Violation(
                "E501", f"{step_name(s.key)} {what} {self.d(remaining)}{left}, the plan gives it {self.d(d)}",
                f"set this duration to at most {self.d(remaining)}", c.index, agent, t))
        return st, agent, d, out

    def check_start(self, c: Chunk) -> tuple[list[Violation], Optional[tuple]]:
        """All violations of starting chunk ``c`` at ``c.start``; the second value is None when the chunk
        cannot run at all, else the arguments of ``apply_start``."""
        st, agent, d, out = self.resolve(c)
        if d is None:
            return out, None
        assert st is not None and agent is not None, "resolve gives a length only with the step and its agent"
        t = c.start
        s = st.step
        name = None                           # step_name(s.key), written only into a violation
        if t < 0:
            name = step_name(s.key)
            out.append(Violation("E613", f"{name} starts at {self.t(t)}, before the plan begins",
                                 f"start {name} at or after {self.t(Fraction(0))}", c.index, agent, t))
        if s.release is not None and t < s.release:
            name = step_name(s.key)
            out.append(Violation("E611", f"{name} starts at {self.t(t)}, before its release at "
                                 f"{self.t(s.release)}", f"start {name} at or after {self.t(s.release)}",
                                 c.index, agent, t))
        if st.first_start is None:
            if s.prerequisites:
                out += self._check_prerequisites(st, c, agent)
            if s.lags:
                out += self._check_lags_at_start(st, c, agent)
        o = s.occupation(d)
        busy = self._busy_with(agent, t, o) if (o > 0 or self.exclusive) and self.agent_runs[agent] else None
        if busy is not None:
            name = step_name(s.key)
            other, free = busy
            rule = "" if o > 0 else " (occupancy exclusive: no step starts while its agent runs a continuous step)"
            out.append(Violation(
                "E401", f"{agent} cannot do {name} at {self.t(t)}: it is busy with "
                f"{step_name(other.key)} until {self.t(other.start + other.busy)}{rule}",
                f"start {name} at or after {self.t(free)} or give it to another agent"
                if len(self.problem.agents) > 1 else f"start {name} at or after {self.t(free)}",
                c.index, agent, t))
        for u in s.uses:
            holders = [r for r in self.holders.get(u.resource, ()) if r.start + r.duration > t]      # r.end > t
            cap = self.capacity.get(u.resource, 1)
            if len(holders) >= cap:
                name = step_name(s.key)
                free = min(r.end for r in holders)
                users = ", ".join(step_name(r.key) for r in holders)
                out.append(Violation(
                    "E411", f"{name} cannot use {u.resource} at {self.t(t)}: it is in use by {users} "
                    f"until {self.t(free)} (capacity {cap})",
                    f"start {name} at or after {self.t(free)}, when {u.resource} is free", c.index, agent, t))
            props = self.props.get(u.resource, {})
            for k, v in u.needs:
                cur = props.get(k)
                if cur != v:
                    name = step_name(s.key)
                    out.append(Violation(
                        "E201", f"{name} needs {u.resource} {k} = {fmt_value(v)} at {self.t(t)}, but it is "
                        f"{fmt_value(cur)}", self._setter_hint(u.resource, k, v, name, t), c.index, agent, t))
        return out, (st, agent, d, o)

    def _busy_with(self, agent: str, t, o) -> Optional[tuple[Run, Fraction]]:
        """(the first of ``agent``'s runs, in start order, that keeps it busy at ``t``, and the latest end of those
        runs), or None.  Busy: occupied past ``t`` (``o > 0``); for a start that occupies nothing under the
        exclusive rule, started before ``t`` and occupied past it.  Chunks are checked and started in time order
        (the replay's event order, the environments' clock); anything else is answered by looking at every run."""
        runs = self.agent_runs[agent]
        marks = self.agent_marks[agent]
        if marks is False or t < marks[0]:
            busy = [r for r in runs if (r.start + r.busy > t if o > 0 else r.start < t < r.start + r.busy)]
            return (busy[0], max(r.start + r.busy for r in busy)) if busy else None
        for r in runs:                        # those ended before the agent's latest start were dropped then
            if r.start + r.busy > t:
                break
        else:
            return None
        last, before, latest = marks
        if o > 0:
            return r, latest                  # the run that ends last is busy at t too
        if r.start < t:                       # the runs after r started at or after it: the latest end of those that
            return r, latest if t > last else before       # started before t is ``latest`` (or ``before``, t = last)
        return None

    def _add_busy(self, agent: str, run: Run) -> None:
        """Record ``run`` (occupation > 0) among ``agent``'s runs."""
        marks = self.agent_marks.get(agent)
        t = run.start
        end = t + run.busy
        if marks is False or (marks is not None and t < marks[0]):     # out of time order (no caller does this):
            self.agent_runs[agent] = [r for r in self.agent_runs[agent] if r.start + r.busy > t] + [run]
            self.agent_marks[agent] = False                             # plain lists, looked at whole
            return
        self.agent_runs[agent].append(run)
        if marks is None:
            self.agent_marks[agent] = (t, None, end)
        elif t > marks[0]:
            self.agent_marks[agent] = (t, marks[2], max(marks[2], end))
        elif end > marks[2]:
            self.agent_marks[agent] = (t, marks[1], end)

    def _setter_hint(self, res: str, k: str, v, name: str, t: Fraction) -> str:
        keys = self.setters.get((res, k, v), [])
        for key in keys:
            other = self.steps[key]
            if other.running is not None:
                return f"start {name} at or after {self.t(other.running.end)}, when {step_name(key)} " \
                       f"has set {res} {k} = {fmt_value(v)}"
        if keys:
            return f"run {step_name(keys[0])} (sets {res} {k} = {fmt_value(v)}) before {name}, with nothing " \
                   f"changing {res} {k} in between"
        return f"no step sets {res} {k} = {fmt_value(v)}; check the resource's initial value"

    def _check_prerequisites(self, st: StepState, c: Chunk, agent: str) -> list[Violation]:
        out = []
        s = st.step
        for p in s.prerequisites:
            pk = (s.task, p)
            ps = self.steps.get(pk)
            if ps is None or ps.done_at is not None or (ps.first_start is None and pk in self.suppressed):
                continue
            if ps.running is not None:
                when = ps.running.end
                state = f"it is running until {self.t(when)}"
            else:
                when = self.expected_end.get(pk)
                state = "it has not started" if ps.first_start is None else "it is not complete"
            hint = (f"start {step_name(s.key)} at or after {self.t(when)}, when {step_name(pk)} finishes"
                    if when is not None and when > c.start else
                    f"schedule {step_name(pk)} to finish before {step_name(s.key)} starts")
            out.append(Violation(
                "E301", f"{step_name(s.key)} starts at {self.t(c.start)} but its prerequisite {step_name(pk)} "
                f"has not finished: {state}", hint, c.index, agent, c.start))
        return out

    def _check_lags_at_start(self, st: StepState, c: Chunk, agent: str) -> list[Violation]:
        out = []
        s = st.step
        for lag in s.lags:
            xs = self.steps.get((s.task, lag.other))
            if xs is None or xs.done_at is None:
                continue
            out += self._lag_violations(s.key, (s.task, lag.other), lag, c.start, xs.done_at, c.index, agent,
                                        c.start)
        return out

    def _lag_violations(self, ykey, xkey, lag, ystart, xend, index, agent, now) -> list[Violation]:
        gap = ystart - xend
        out = []
        yn, xn = step_name(ykey), step_name(xkey)
        if lag.max is not None and gap > lag.max:
            out.append(Violation(
                "E601", f"{yn} starts {self.d(gap)} after {xn} ended (at {self.t(xend)}); at most "
                f"{self.d(lag.max)} is allowed", f"start {yn} no later than {self.t(xend + lag.max)}",
                index, agent, now))
        if lag.min is not None and gap < lag.min:
            rel = f"{self.d(gap)} after" if gap >= 0 else f"{self.d(-gap)} before"
            out.append(Violation(
                "E602", f"{yn} starts {rel} {xn} ends (at {self.t(xend)}); at least {self.d(lag.min)} must "
                f"pass", f"start {yn} no earlier than {self.t(xend + lag.min)}", index, agent, now))
        return out

    def apply_start(self, c: Chunk, st: StepState, agent: str, d: Fraction, o: Fraction) -> Run:
        t = c.start
        run = _new_run(Run)                   # Run(c.index, st.step.key, agent, t, d, o, self.seq)
        run.__dict__.update(index=c.index, key=st.step.key, agent=agent, start=t, duration=d, busy=o, seq=self.seq)
        if st.first_start is None:
            st.first_start, st.first_index = c.start, c.index
            for lag in st.step.lags:
                xs = self.steps.get((st.step.task, lag.other))
                if xs is not None and xs.done_at is None:
                    xkey = (st.step.task, lag.other)
                    self.lags_waiting.setdefault(xkey, []).append(len(self.pending_lags))
                    self.pending_lags.append((st.step.key, xkey, lag))
        st.last_index = c.index
        st.running = run
        runs = self.agent_runs[agent]
        if runs and self.agent_marks[agent] is not False:     # drop the agent's runs no longer busy (in time order:
            while runs and runs[0].start + runs[0].busy <= c.start:      # the first ones; the rest stay until
                runs.popleft()                                          # they come first)
        if o > 0:
            self._add_busy(agent, run)
        holders = self.holders
        for u in st.step.uses:
            holders[u.resource] = [r for r in holders.get(u.resource, ()) if r.start + r.duration > t] + [run]
        self.runs.append(run)
        queue = self.queue                    # queue.push(run.end, END, run, agent rank, c.index)
        heappush(queue._heap, (t + d, END, self.agent_rank.get(agent, 0), c.index, next(queue.counter), run))
        return run

    def start(self, c: Chunk, *, refuse: bool = False) -> tuple[list[Violation], Optional[Run]]:
        """Check and (unless refused) apply a chunk; report its violations."""
        out, args = self.check_start(c)
        run = None
        if args is not None and not (refuse and out):
            run = self.apply_start(c, *args)
        if not refuse:
            for v in out:
                self.report(v)
                if v.code in NO_GOAL_CODES and args is None and c.task in self.tasks:
                    self.suppressed.add((c.task, c.step))
        return out, run

    # ------------------------------------------------------------------ ends and checks
    def _on_end(self, t: Fraction, run: Run) -> None:
        st = self.steps[run.key]
        if st.running is run:
            st.running = None
        s = st.step
        st.progress = min(s.duration, st.progress + run.duration)
        if st.done_at is not None or (s.interruptible and st.progress < s.duration):
            return
        st.progress = s.duration
        st.done_at = t
        st.completing = run
        for u in s.uses:
            for k, v in u.sets:
                self.props.setdefault(u.resource, {})[k] = v
                self.props_version += 1
        waiting = self.lags_waiting.pop(run.key, None) if self.lags_waiting else None
        if waiting:
            pending = self.pending_lags
            for i in waiting:
                ykey, xkey, lag = pending[i]
                pending[i] = None
                ys = self.steps[ykey]
                for v in self._lag_violations(ykey, xkey, lag, ys.first_start, t, ys.first_index, None, t):
                    self.report(v)
        for ykey, lag in self.lag_dependents.get(run.key, ()):
            if lag.max is not None and self.steps[ykey].first_start is None:
                self.queue.push(t + lag.max, CHECK, ("lag", ykey, run.key, lag))

    def _on_check(self, t: Fraction, what: tuple) -> None:
        if what[0] == "deadline":
            st = self.steps[what[1]]
            if st.done_at is None and not (st.first_start is None and st.step.key in self.suppressed):
                name = step_name(st.step.key)
                state = (f"it runs until {self.t(st.running.end)}" if st.running is not None else
                         "it has not started" if st.first_start is None else "it is not complete")
                self.report(Violation("E612", f"{name} must finish by {self.t(t)}; {state}",
                                      f"finish {name} by {self.t(t)}", st.last_index, None, t))
        elif what[0] == "lag":
            _, ykey, xkey, lag = what
            ys = self.steps[ykey]
            if ys.first_start is None and ykey not in self.planned and ykey not in self.lag_reported:
                self.lag_reported.add(ykey)
                xend = self.steps[xkey].done_at
                self.report(Violation(
                    "E603", f"{step_name(ykey)} must start within {self.d(lag.max)} after {step_name(xkey)} "
                    f"ended (at {self.t(xend)}); it has not started by {self.t(t)}",
                    f"start {step_name(ykey)} no later than {self.t(t)}", None, None, t))
        elif what[0] == "limit":
            # chunks still running at the limit, or planned to start after it
            late = [(r.start, r.index, r.end) for r in self.running_runs(t)]
            for c in self.queue.pending(START):
                s = self.problem.step(c.task, c.step)
                d = c.duration if c.duration is not None else (s.duration if s is not None else 0)
                late.append((c.start, c.index, c.start + max(d, 0)))
            if late:
                first = min(late)
                self.report(Violation(
                    "E614", f"the plan runs until {self.t(max(e for _, _, e in late))}, past the time limit "
                    f"{self.t(t)}", f"finish every step by {self.t(t)}", first[1], None, t))

    def advance(self, until: Optional[Fraction] = None, *, inclusive_checks: bool = True,
                stop_on: frozenset = frozenset()) -> None:
        """Process queued events up to ``until`` (all when None).  Events at ``until``: ends and starts
        always; checks only with ``inclusive_checks``.  Stops right after an event that reported a
        violation whose code is in ``stop_on`` (``now`` is then that event's time)."""
        q = self.queue
        while q and not self.stopped:
            if stop_on and len(self.violations) > self._seen and \
                    any(v.code in stop_on for v in self.violations[self._seen:]):
                return
            self._seen = len(self.violations)
            t = q._heap[0][0]                   # q.peek_time(); q is not empty
            if until is not None and (t > until or (t == until and not inclusive_checks and
                                                    q._heap[0][1] == CHECK)):
                break
            self._next_event()
        if stop_on and len(self.violations) > self._seen and \
                any(v.code in stop_on for v in self.violations[self._seen:]):
            return
        if until is not None and until > self.now:
            self.now = until

    def run_out(self) -> None:
        """After a ``first`` stop: replay the rest of the plan without reporting anything, so that steps started
        before the stop still complete (``progress`` counts them, as in critic mode) and ``makespan`` covers
        the whole plan (docs/errors.md, "Critic mode and --first")."""
        while self.queue:
            self._next_event(checks=False)

    def _next_event(self, checks: bool = True) -> None:
        """Pop the next event and run it (lag and deadline checks only when ``checks``)."""
        t, kind, _, _, _, ev = heappop(self.queue._heap)           # self.queue.pop()
        self.seq += 1
        if t > self.now:
            self.now = t
        if kind == END:
            self._on_end(t, ev)
        elif kind == START:
            self.start(ev)
        elif checks:
            self._on_check(t, ev)

    def finish(self, end_time: Optional[Union[Fraction, int]]) -> None:       # int: whole-number replay
        """Plan-end checks: missing and incomplete steps, lags whose partner never completed."""
        self.seq += 1
        t = end_time if end_time is not None else self.now
        for st in self.steps.values():
            if self.stopped:
                return
            if st.done_at is not None:
                continue
            s = st.step
            name = step_name(s.key)
            if st.first_start is None:
                if s.key in self.suppressed:
                    continue
                after = [step_name((s.task, p)) for p in s.prerequisites]
                where = f" after {', '.join(after)}" if after else ""
                self.report(Violation("E701", f"{name} (\"{s.text}\") is never executed",
                                      f"add {name} ({self.d(s.duration)}){where}", None, None, t))
            elif st.running is None:
                self.report(Violation(
                    "E503", f"{name} ran for {self.d(st.progress)} of its {self.d(s.duration)}",
                    f"add a chunk of {self.d(s.duration - st.progress)} for {name}", st.last_index, None, t))
        for entry in self.pending_lags:
            if entry is None:
                continue
            ykey, xkey, _lag = entry
            if xkey[1] in self.steps[ykey].step.prerequisites or self.stopped:
                continue
            ys = self.steps[ykey]
            self.report(Violation(
                "E604", f"{step_name(ykey)} has a time constraint relative to {step_name(xkey)}, which never "
                f"finished", f"complete {step_name(xkey)} so that {step_name(ykey)} can keep its lag",
                ys.first_index, None, t))

    def result(self) -> SimResult:
        res = SimResult(self.problem, tuple(self.violations), tuple(self.runs),
                        {k: st.done_at for k, st in self.steps.items() if st.done_at is not None},
                        self.first_violation_seq, self.stopped)
        object.__setattr__(res, "_completing_map",
                           {k: st.completing.index for k, st in self.steps.items() if st.completing is not None})
        return res
