"""The action-level kitchen simulator: per-agent plans of surface actions on a compiled ``World``.

Input: a ``kitchen.world.World`` (with its grading rules, ``world.rules``) and a plan ``{agent:
[KitchenStep(index, action, args)]}`` (``args``: the plan's JSON fields, e.g. {"target": [3, 4]}).  Output:
``KitchenResult`` -- every ``PlanError``, the executed actions per agent (``ActionRun``), the serves, success
and OCT, the final state.  ``KitchenSim`` is incremental (``add`` more steps, ``run(until)``) so the interactive
environment shares it.

Semantics (docs/benchmarks/paracook.md):
- Agents act concurrently in continuous time; each agent's actions run back to back.  A surface action is
  carried out by the first of its operators (declared order) whose start conditions and capacity bounds
  hold; its duration is the operator's.  Conditions are checked at the start, ``when all`` conditions while it
  runs, effects apply at the end (a zero-duration action starts and ends at the same instant).
- Same instant: completions first (agents in scenario order, then world events: cooking finished, dirty
  plates returning), then starts in scenario agent order; an agent's chain of zero-duration actions at
  one instant runs before the next agent starts.  So of two agents grabbing one plate at t, the first
  listed agent gets it.
- Resources (``busy a, b`` on a station with a capacity) admit that many actions at a time; a busy station
  is an error (resource-busy), not a wait.
- Processes progress while their condition holds (cooking pauses when the pan leaves the stove), fire their
  effects on completion, and lose their progress when their scope stops holding.
- An action that cannot run is reported and skipped (no time passes); ``first=True`` stops at the first
  error.  Finish ends an agent's plan.  OCT is the time the last order is served.
- Under ParaCook's code rules (``kitchen.rules.PARACOOK``) container processes keep ParaCook's timer
  instead (``_reeval_code``, ``_tick``: no pause off the stove, idle time of reused cookware counts, updated
  at the instants where an agent completes an action of non-zero duration), Finish is a marker and OCT is
  the end of the last action.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from heapq import heappop
from typing import Any, NamedTuple, Optional

from chronoplan.compiler import ir
from chronoplan.compiler.numparse import MAX_MAGNITUDE, NumberProblem, exact, exact_int
from chronoplan.runtime.events import END, START, EventQueue
from chronoplan.runtime.kitchen.explain import describe_contents, explain_failure, match_dish
from chronoplan.runtime.kitchen.logic import bucket_values, num, show_formula
from chronoplan.runtime.kitchen.rules import DEFAULT, Completion, Cooking, Finish
from chronoplan.runtime.kitchen.world import World
from chronoplan.runtime.violations import PlanError

MAX_NUMBER = MAX_MAGNITUDE            # bound on the plan's numbers (numparse's, as every plan reader)


class KitchenStep(NamedTuple):
    """One kitchen plan action as written: position in the agent's list, action name, the other JSON fields
    (not ``ir.Step``, a step of a procedure)."""

    index: int  # type: ignore[assignment]  # a field named like the method tuple.index, which it hides
    action: Any
    args: Any = None


class ActionRun(NamedTuple):
    """An executed kitchen action: who, which plan entry, the surface action and the operator that carried it
    out, its start and end, the distance walked (not ``procedure.records.Run``, an executed chunk of a procedure
    step)."""

    agent: str
    index: int  # type: ignore[assignment]  # a field named like the method tuple.index, which it hides
    surface: str
    operator: Optional[str]
    start: Any
    end: Any
    distance: Any = 0


_EMPTY: dict = {}
_new_run = tuple.__new__                # builds an ActionRun without NamedTuple's Python-level __new__


@dataclass
class KitchenResult:
    world: World
    errors: list
    runs: dict
    served: list                       # (dish, time, agent, index)
    success: bool
    oct: Any
    end_time: Any
    finished: dict
    state: Any
    orders_total: int
    errors_dropped: int = 0            # errors past KitchenSim.max_errors: counted, not kept


class _Running:
    __slots__ = ("op", "env", "index", "surface", "start", "end", "distance", "holds", "broken", "objs")
    objs: frozenset                 # set by _execute, for an action with a 'when all' condition only

    def __init__(self, op, env, index, surface, start, end, distance, holds) -> None:
        self.op, self.env, self.index, self.surface = op, env, index, surface
        self.start, self.end, self.distance, self.holds, self.broken = start, end, distance, holds, False


@dataclass
class _Inst:
    progress: Any = 0
    since: Any = None
    version: int = 0


class _Compat:
    """What the simulator keeps for rules other than the paper's (``KitchenSim.compat``; None under the paper's
    rules, so that the default path carries one attribute, not six)."""

    __slots__ = ("code_clock", "finish_marks", "last_event", "timers", "marks", "ticked")

    def __init__(self, rules) -> None:
        self.code_clock = rules.cooking is Cooking.PARACOOK_CODE     # container processes on ParaCook's timer
        self.finish_marks = rules.finish is Finish.MARKER            # Finish does not end the plan
        self.last_event = rules.completion is Completion.LAST_EVENT  # OCT = the end of the last action
        self.timers: dict = {}                    # (process, key) -> _Timer (code_clock only)
        self.marks: dict = {}                     # agent -> time of its first Finish (finish_marks only)
        self.ticked = None                        # the last instant the timers were brought up to date

    @staticmethod
    def needed(rules) -> bool:
        return rules.cooking is not Cooking.PAPER or rules.finish is not Finish.ENDS_PLAN or \
            rules.completion is not Completion.LAST_SERVE


class _Timer:
    """ParaCook's cooking timer of one process instance (``Cooking.PARACOOK_CODE``): the time of its last
    update (``anchor``; set when the first item arrives, then at each update), the time credited so far, the
    total required by every item ever added, whether it runs, and the process duration last seen (an increase
    is an added item)."""

    __slots__ = ("anchor", "processed", "required", "cooking", "last")

    def __init__(self) -> None:
        self.anchor, self.processed, self.required, self.cooking, self.last = 0, 0, 0, False, 0


class KitchenSim:
    def __init__(self, world: World, *, first: bool = False, max_errors: Optional[int] = None) -> None:
        self.w = world
        self.st = world.initial_state()
        self.q = EventQueue()
        self.first = first
        self.t: Any = 0
        self.errors: list = []
        self.max_errors = max_errors            # keep at most this many errors (None: all); count the rest
        self.errors_dropped = 0                 # in errors_dropped, so a batch's memory stays bounded
        self.runs: dict = {a: [] for a in world.agents}
        self.plan: dict = {a: [] for a in world.agents}
        self.cursor: dict = dict.fromkeys(world.agents, 0)
        self.idle: dict = dict.fromkeys(world.agents, True)     # no START pending or action running
        self.idle_since: dict = dict.fromkeys(world.agents, 0)
        self.finished: dict = {}
        self.after_finish_reported: set = set()
        self.running: dict = {}
        self.holders: dict = {}
        self.instances: dict = {}
        self.served: list = []
        self.stopped = False
        self.world_rank = len(world.agents)
        self.cur: tuple = (None, None)            # (agent, plan index) of the action being handled
        self.containment = world.roles.get("containment")
        self._due: Optional[str] = None          # the agent whose next action is due now (_next)
        self.watchers: dict = {}                  # agent -> its running action with a 'when all' condition
        rules = world.rules
        self.compat = None if rules is DEFAULT or not _Compat.needed(rules) else _Compat(rules)

    # ------------------------------------------------------------------ plans
    def add(self, agent: str, steps) -> None:
        """Append steps to an agent's plan; an idle agent starts them at the current time."""
        plan = self.plan[agent]
        w = self.w
        specs, st, otype = w.step_specs, self.st, self.st.otype
        for step in steps:                      # _prepare, inlined for one cell or object argument
            index, action, fields = step
            spec = specs.get(action) if type(action) is str else None
            if spec is not None and type(fields) is dict:
                surface, pname, is_cell, by_type = spec
                v = fields.get(pname, fields)
                if is_cell:
                    if type(v) is list and len(v) == 2:
                        x, y = v
                        if type(x) is int and type(y) is int and -MAX_NUMBER <= x <= MAX_NUMBER and \
                                -MAX_NUMBER <= y <= MAX_NUMBER:
                            arg = (x, y)
                            cands = by_type.get("cell")
                            if cands is None:
                                cands = by_type["cell"] = w.candidates(surface, (arg,), st)
                            plan.append((index, surface, (arg,), None, step, cands))
                            continue
                elif type(v) is str:
                    typ = otype.get(v)
                    if typ is not None:
                        cands = by_type.get(typ)
                        if cands is None:
                            cands = by_type[typ] = w.candidates(surface, (v,), st)
                        plan.append((index, surface, (v,), None, step, cands))
                        continue
            plan.append(self._prepare(step))
        if self.idle[agent] and self.cursor[agent] < len(self.plan[agent]):
            self.idle[agent] = False
            self.q.push(self.t, START, agent, self.w.rank[agent], self.cursor[agent])

    def error(self, code, message, hint="", agent=None, index=None, time=None) -> None:
        if self.max_errors is not None and len(self.errors) >= self.max_errors:
            self.errors_dropped += 1
        else:
            self.errors.append(PlanError(code, message, hint, index, agent, self.t if time is None else time))
        if self.first:
            self.stopped = True

    # ------------------------------------------------------------------ main loop
    def run(self, until=None) -> None:
        """Process events up to ``until`` (inclusive; None: until nothing is left)."""
        self._loop(until, self.w.limit, None)
        if until is not None and not self.stopped:
            self.t = max(self.t, until)

    def run_until_idle(self, agent: str) -> None:
        """Process events until ``agent`` has no action running or pending (other events stay queued)."""
        self._loop(None, None, agent)

    def _loop(self, until, limit, agent) -> None:
        """The event loop: each event, the process updates it causes (``_settle``), then the starts it makes
        due (``_next``: an agent's next action starts at once when it would be the next event anyway, else
        it is queued).  Stops at ``until``, past ``limit`` (E650) or when ``agent`` (if given) is idle."""
        q = self.q
        heap = q._heap                               # EventQueue's heap, peeked and popped here directly
        st = self.st
        idle = self.idle
        rank, cursor = self.w.rank, self.cursor
        compat = self.compat
        code_clock = compat is not None and compat.code_clock
        while heap and not self.stopped:
            if agent is not None and idle[agent]:
                break
            entry = heap[0]
            t = entry[0]
            if until is not None and t > until:
                break
            if limit is not None and t > limit:
                self.t = limit
                self.error("E650", f"the plan runs past the time limit {limit}", "serve every order by the limit")
                self.stopped = True
                break
            heappop(heap)
            self.t = t
            ev = entry[5]
            if entry[1] == START:
                self._start(ev, t)
            elif ev[0] == "end":
                if code_clock and t != compat.ticked:  # type: ignore[union-attr]  # code_clock: compat is set
                    self._tick(t)                # ParaCook's timers, at the start of an agent instant
                self._end(ev[1], t)
            elif ev[0] == "proc":
                self._proc_done(ev[1], ev[2], t)
            elif ev[0] == "delay":
                self._delayed(ev[1], ev[2], t)
            if st.touched:
                self._settle(t)
            while self._due is not None:
                who = self._due
                self._due = None
                r, i = rank[who], cursor[who]
                if self.stopped:
                    idle[who] = True
                    break
                top = heap[0] if heap else None
                if top is None or top[0] > t or (top[0] == t and top[1] == START and (top[2], top[3]) > (r, i)):
                    self._start(who, t)          # it would be the next event anyway: no queue round trip
                    if st.touched:
                        self._settle(t)
                else:
                    q.push(t, START, who, r, i)

    def _next(self, agent: str, t) -> None:
        c = self.cursor[agent] = self.cursor[agent] + 1
        if c < len(self.plan[agent]) and not self.stopped:
            self._due = agent                          # started by _loop, now or through the queue
        else:
            self.idle[agent] = True
            self.idle_since[agent] = t

    # ------------------------------------------------------------------ starting an action
    def _prepare(self, step: KitchenStep) -> tuple:
        """(index, surface | None, args | None, error | None): the action's fields checked once."""
        surface = self.w.surfaces.get(step.action) if isinstance(step.action, str) else None
        if surface is None:
            known = ", ".join(self.w.surfaces)
            return (step.index, None, None, ("E150", f"unknown action {_short(step.action)}", f"use one of: {known}"),
                    step, None)
        args, err = self._args(surface, step)
        cands = None if err is not None or surface.final else self.w.candidates(surface, args, self.st)
        return (step.index, surface, args, err, step, cands)

    def _start(self, agent: str, t) -> None:  # noqa: C901
        i = self.cursor[agent]
        index, surface, args, err, raw, cands = self.plan[agent][i]
        self.cur = (agent, index)
        if cands is None or err is not None or agent in self.finished:
            args, cands = self._start_special(agent, t, index, surface, args, err, raw)
            if cands is None:
                return
        st = self.st
        # candidates as compiled by World.candidates: the first whose start conditions and capacities hold runs.
        # Matching does not modify the binding it is given, so consecutive candidates naming their parameters
        # alike share one (operators creating objects get their own).
        last = None
        made: Sequence[str]                 # the tentative objects of an operator creating some (else empty)
        for op, names, first, n1, new, cap_check, res_holds, instant, end_test, end_apply in cands:
            if names is not last or new:
                e0 = {names[0]: agent, n1: args[0]} if n1 is not None else dict(zip(names, (agent,) + args))
                last = None if new else names
            if new:
                made = self._tentative(op, e0)
                e2 = first(st, e0)
                if e2 is None or (cap_check is not None and cap_check(st, e2) is not None):
                    for name in made:
                        st.forget(name)
                    continue
            else:
                e2 = first(st, e0)
                if e2 is None or (cap_check is not None and cap_check(st, e2) is not None):
                    continue
                made = ()
            if res_holds:
                busy = self._busy_resource(op, e2, t)
                if busy is not None:
                    res, other = busy
                    for name in made:
                        st.forget(name)
                    self.error("E450", f"{surface.name} {res}: {res} is in use by {other[0]} (action #{other[1]}) "
                               f"until t={_fmt(other[2])}", f"wait until t={_fmt(other[2])} or use another {res}",
                               agent, index)
                    self._next(agent, t)
                    return
            for name in made:
                st.confirm(name)
            if instant:                             # _execute's zero-duration case, without the duration call
                if end_test is not None and not end_test(st, e2):
                    self.error("E258", f"{surface.name}: the end condition of {op.name} does not hold", "", agent,
                               index)
                elif end_apply is not None:
                    end_apply(st, e2, t, self)
                self.runs[agent].append(_new_run(ActionRun, (agent, index, surface.name, op.name, t, t, 0)))
                c = self.cursor[agent] = i + 1      # _next, inlined
                if c < len(self.plan[agent]) and not self.stopped:
                    self._due = agent
                else:
                    self.idle[agent] = True
                    self.idle_since[agent] = t
                return
            self._execute(agent, index, surface, op, e2, t)
            return
        self._no_operator(agent, index, surface, args, cands, t)

    def _start_special(self, agent, t, index, surface, args, err, raw) -> tuple:
        """The start of an action after Finish, with an argument error or of a final surface: (None, None) when
        handled here, else the (args, candidates) to match (a name unknown when the plan was read may exist
        now)."""
        if agent in self.finished:
            if agent not in self.after_finish_reported:
                self.after_finish_reported.add(agent)
                self.error("E256", f"{agent} declared Finish at t={_fmt(self.finished[agent])}; its actions from "
                           f"#{index} on are ignored", "remove the actions after Finish, or Finish later", agent,
                           index)
            self._next(agent, t)
            return None, None
        cands = None
        if err is not None and err[0] == "E152" and surface is not None:
            args, err = self._args(surface, raw)
            cands = None if err is not None else self.w.candidates(surface, args, self.st)
        if err is not None:
            self.error(err[0], err[1], err[2], agent, index)
            self._next(agent, t)
            return None, None
        if surface.final:
            if self.compat is None or not self.compat.finish_marks:
                self.finished[agent] = t
            elif agent not in self.compat.marks:
                self.compat.marks[agent] = t
            self.runs[agent].append(_new_run(ActionRun, (agent, index, surface.name, None, t, t, 0)))
            self._next(agent, t)
            return None, None
        return args, cands

    def _tentative(self, op, e0: dict) -> list:
        """Create the operator's new objects tentatively (before matching: conditions may test them)."""
        made = []
        st = self.st
        for name, typ, source in op.new:
            real = self.w.station_arg.get(e0.get(source)) if source else typ
            e0[name] = st.tentative(real or typ)
            made.append(e0[name])
        return made

    def _no_operator(self, agent, index, surface, args, cands, t) -> None:
        """No candidate applies: match them again (the state is unchanged), collecting why each failed, and
        report the explanation."""
        if self.max_errors is not None and len(self.errors) >= self.max_errors and not self.first:
            self.errors_dropped += 1            # the explanation would be dropped: do not build it
            self._next(agent, t)
            return
        st = self.st
        failures = []
        for op, names, first, _n1, new, cap_check, *_ in cands:
            e0 = dict(zip(names, (agent,) + args))
            made = self._tentative(op, e0) if new else ()
            e2 = first(st, e0)
            cap = None if e2 is None or cap_check is None else cap_check(st, e2)
            for name in made:
                st.forget(name)
            failures.append((op, e0 if e2 is None else e2, cap))
        env = {surface.params[0].name: agent}
        for p, v in zip(surface.params[1:], args):
            env[p.name] = v
        code, message, hint = explain_failure(self.w, st, surface, args, env, [c[0] for c in cands], failures)
        self.error(code, message, hint, agent, index)
        self._next(agent, t)

    def _args(self, surface: ir.Surface, step: KitchenStep):
        """(args, None) or (None, (code, message, hint))."""
        out: list = []
        fields = step.args if isinstance(step.args, dict) else {}
        for p in surface.params[1:]:
            if p.name not in fields:
                return None, ("E010", f"{surface.name} needs \"{p.name}\" ({_kind_text(p.type)})",
                              f"write {{\"action\": \"{surface.name}\", \"{p.name}\": ...}}")
            v = fields[p.name]
            if p.type == "cell":
                if type(v) is list and len(v) == 2 and type(v[0]) is int and type(v[1]) is int and \
                        -MAX_NUMBER <= v[0] <= MAX_NUMBER and -MAX_NUMBER <= v[1] <= MAX_NUMBER:
                    out.append((v[0], v[1]))
                    continue
                cell = _cell(v)
                if cell is None:
                    return None, ("E010", f"{surface.name} target must be [x, y] (two integers), got {_short(v)}",
                                  "write the cell as [x, y]")
                out.append(cell)
            elif p.type == "number":
                x = _number(v)
                if x is None:
                    return None, ("E010", f"{surface.name} {p.name} must be a number, got {_short(v)}",
                                  "write a number")
                if isinstance(x, str):
                    return None, ("E011", f"{surface.name} {p.name} {_short(v)} is not a finite number of at most "
                                  "10^12", "use a plausible number")
                out.append(x)
            else:
                if not isinstance(v, str):
                    return None, ("E010", f"{surface.name} {p.name} must be a name (string), got {_short(v)}",
                                  "write the station's name, e.g. \"stove1\"")
                if v not in self.st.otype:
                    return None, ("E152", f"unknown {p.type} {_short(v)}", _closest(v, self.w, p.type))
                out.append(v)
        return tuple(out), None

    def _busy_resource(self, op, env, t):
        for name in op.res_holds:
            obj = env.get(name)
            cap = self.w.resource_capacity(self.st, obj)
            if cap is None:
                continue
            users = [u for u in self.holders.get(obj, ()) if u[2] > t]
            if len(users) >= cap:
                return obj, users[0]
        return None

    def _execute(self, agent, i, surface, op, env, t) -> None:
        st = self.st
        d = op.duration(st, env)
        if type(d) is not int and d == math.inf:
            self.error("E250", f"{surface.name}: the target cannot be reached", "pick a reachable floor tile",
                       agent, i)
            self._next(agent, t)
            return
        if d < 0:
            self.error("E550", f"{surface.name}: duration {_fmt(d)} is negative", "use a duration of at least 0",
                       agent, i)
            self._next(agent, t)
            return
        distance = (d if op.distance_is_duration else op.distance(st, env)) if op.distance is not None else 0
        if op.start_apply is not None:
            op.start_apply(st, env, t, self)
        end = t + d
        if type(end) is not int:
            end = num(end)
        if not d and op.all_test is None:
            if op.end_test is not None and not op.end_test(st, env):
                self.error("E258", f"{surface.name}: the end condition of {op.name} does not hold", "", agent, i)
            elif op.end_apply is not None:
                op.end_apply(st, env, t, self)
            self.runs[agent].append(_new_run(ActionRun, (agent, i, surface.name, op.name, t, t, distance)))
            self._next(agent, t)
            return
        holds: tuple = ()
        if op.res_holds:                             # the held resources with a capacity
            holds = tuple([env[n] for n in op.res_holds if self.w.resource_capacity(st, env.get(n)) is not None])
            for obj in holds:
                self.holders.setdefault(obj, []).append((agent, i, end))
        r = self.running[agent] = _Running(op, env, i, surface.name, t, end, distance, holds)
        if op.all_test is not None:
            self.watchers[agent] = r
            r.objs = frozenset([v for v in env.values() if isinstance(v, (str, tuple))])   # what changes touch
        self.q.push(end, END, ("end", agent), self.w.rank[agent], i)

    # ------------------------------------------------------------------ completions and events
    def _end(self, agent: str, t) -> None:
        r = self.running.pop(agent)
        if r.op.all_test is not None:
            self.watchers.pop(agent, None)
        self.cur = (agent, r.index)
        if r.holds:
            for obj in r.holds:
                self.holders[obj] = [u for u in self.holders.get(obj, ()) if not (u[0] == agent and u[1] == r.index)]
        st = self.st
        op = r.op
        if not r.broken and op.all_test is not None and not op.all_test(st, r.env):
            self._broken(agent, r, t)
        if not r.broken:
            if op.end_test is not None and not op.end_test(st, r.env):
                self.error("E258", f"{r.surface}: the end condition of {op.name} does not hold at t={_fmt(t)}",
                           "", agent, r.index)
            elif op.end_apply is not None:
                op.end_apply(st, r.env, t, self)
        self.runs[agent].append(_new_run(ActionRun, (agent, r.index, r.surface, op.name, r.start, t, r.distance)))
        c = self.cursor[agent] = self.cursor[agent] + 1   # _next, inlined
        if c < len(self.plan[agent]) and not self.stopped:
            self._due = agent
        else:
            self.idle[agent] = True
            self.idle_since[agent] = t

    def _broken(self, agent, r: _Running, t) -> None:
        r.broken = True
        self.watchers.pop(agent, None)
        conds = [c.formula for c in r.op.action.conditions if c.when is ir.When.ALL]
        text = " and ".join(show_formula(c, r.env) for c in conds)
        self.error("E258", f"{r.surface} ({r.op.name}): {text} stopped holding at t={_fmt(t)} (the action "
                   f"started at t={_fmt(r.start)})", "leave the objects in place until the action ends", agent,
                   r.index, t)

    def _delayed(self, body, env, t) -> None:
        st = self.st
        if any(isinstance(v, str) and v not in st.otype for v in env.values()):
            return                                   # an object of the event no longer exists
        self.cur = (None, None)
        body(st, env, t, self)

    # hooks called by effects ----------------------------------------------------------------
    def delayed(self, time, body, env) -> None:
        self.q.push(num(time), END, ("delay", body, env), self.world_rank, -1)

    def destroy(self, obj, t) -> None:
        self.st.destroy(obj)

    def deliver(self, container, t) -> None:
        st = self.st
        agent, index = self.cur
        contents = [tup[0] for tup in st.rels[self.containment].by(1, container)] if self.containment else []
        k = len(self.served)
        orders = self.w.orders
        if k >= len(orders):
            self.error("E752", f"{container} served at t={_fmt(t)}, but all {len(orders)} orders were already "
                       "served", "serve exactly the ordered dishes", agent, index)
        elif not match_dish(self.w, st, container, contents, orders[k]):
            self.error("E750", f"wrong dish for order {k + 1} ({orders[k].name} = {orders[k].describe()}): "
                       f"{container} holds {describe_contents(self.w, st, container, contents)}",
                       "serve the orders in sequence, each plate holding exactly its recipe", agent, index)
        else:
            self.served.append((orders[k].name, t, agent, index))
        for obj in contents:
            st.destroy(obj)

    # ------------------------------------------------------------------ processes
    def _settle(self, t) -> None:
        st = self.st
        touched = st.touched
        if not touched:
            return
        st.touched = []
        watchers = self.watchers
        if watchers:                               # running actions with a 'when all' condition to re-check
            objs = {x for _, tup in touched for x in tup}
            for agent, r in list(watchers.items()):
                if not r.broken and not objs.isdisjoint(r.objs) and not r.op.all_test(st, r.env):
                    self._broken(agent, r, t)
        else:
            watched = self.w.watched
            for name, _ in touched:
                if name in watched:
                    break
            else:
                return                             # e.g. an agent's new cell: nothing depends on it
        fast = self.w.fast_triggers
        if fast is not None:                       # every process has one parameter and exact triggers
            self._update_fast(fast, touched, t)
        else:
            self._update_general(touched, t)

    def _update_general(self, touched: list, t) -> None:
        """Process instances a change may affect, process by process (no compiled triggers)."""
        names = {n for n, _ in touched}
        members = self.st.members
        instances = self.instances
        for proc in self.w.procs:
            if names.isdisjoint(proc.deps) and "destroy" not in names:
                continue
            if not instances and not any(members.get(typ) for typ in proc.types):
                continue                           # no object could ever be an instance of this process
            self._update_proc(proc, touched, t)

    def _update_fast(self, fast: dict, touched: list, t) -> None:
        """Process instances a change may affect, through the compiled triggers of all processes at once
        (``World.fast_for``: per change name and the types of the changed objects, the triggers that apply,
        in declared order)."""
        st = self.st
        otype = st.otype
        fast_for = self.w.fast_for
        keys = []
        for name, tup in touched:
            table = fast.get(name)
            if table is None:
                if name == "destroy":
                    gone = tup[0]
                    keys.extend([(proc, key) for (pn, key) in self.instances if gone in key
                                 for proc in self.w.procs if proc.name == pn])
                continue
            types = (otype.get(tup[0]), otype.get(tup[1])) if len(tup) == 2 else tuple([otype.get(x) for x in tup])
            acts = table.get(types)
            if acts is None:
                acts = fast_for(name, types)
            for proc, pos, link, ptype in acts:         # FastTrigger
                x = tup[0] if pos is None else tup[pos]
                if link is None:
                    keys.append((proc, (x,)))
                else:                                   # the objects of the parameter's type linked to x
                    rel, vpos, ppos = link
                    for y in bucket_values(st, rel, vpos, x, ppos, ptype):
                        keys.append((proc, (y,)))
        if not keys:
            return
        if len(keys) == 1:
            self._reeval(keys[0][0], keys[0][1], t)
            return
        seen = set()
        for proc, key in keys:
            if (proc.name, key) not in seen:
                seen.add((proc.name, key))
                self._reeval(proc, key, t)

    def _update_proc(self, proc, touched, t) -> None:
        """Re-evaluate the instances of ``proc`` the changes ``touched`` may affect (found through the process's
        compiled triggers, else by searching the changed objects' neighbourhood), in a stable order."""
        keys = self._triggered_keys(proc, touched) if proc.triggers is not None else \
            self._neighbour_keys(proc, touched)
        for key in (sorted(keys, key=str) if len(keys) > 1 else keys):
            if None not in key:
                self._reeval(proc, key, t)

    def _triggered_keys(self, proc, touched: list) -> set:
        """The parameter values the triggers name (the changed object itself, or the objects linked to it), the
        destroyed objects, and the running instances holding any of them: their bindings of ``proc``."""
        st = self.st
        rels, members = st.rels, st.members
        gone = {tup[0] for name, tup in touched if name == "destroy"}
        found = set()                              # (parameter position, value)
        for name, tup in touched:
            for trigger in proc.triggers.get(name, ()):
                x = tup[0] if trigger.pos is None else tup[trigger.pos]
                link = trigger.link
                if link is None:
                    found.add((trigger.param, x))
                elif trigger.var_type is None or x in members.get(trigger.var_type, ()):
                    for other in rels[link.relation].by(link.var_pos, x):
                        found.add((trigger.param, other[link.param_pos]))
        for x in gone:
            found.update((j, x) for j in range(len(proc.params)))
        keys = set()
        for j, x in found:
            if x in gone or st.isa(x, proc.types[j]):
                keys.update(self._bindings_with(proc, j, x))
        for pn, key in self.instances:            # running instances a change may have stopped
            if pn == proc.name and (not gone.isdisjoint(key) or any(key[j] == x for j, x in found)):
                keys.add(key)
        return keys

    def _neighbour_keys(self, proc, touched: list) -> set:
        """The objects within ``proc.depth`` links (through its dependencies) of the changed ones, and the
        running instances holding any of them: their bindings of ``proc``."""
        st = self.st
        objs: set = set()
        for name, tup in touched:
            if name in proc.deps or name == "destroy":
                objs.update(x for x in tup if isinstance(x, str))
        frontier = set(objs)
        for _ in range(proc.depth):
            nxt = set()
            for o in frontier:
                nxt |= st.related(o, proc.deps)
            nxt -= objs
            objs |= nxt
            frontier = nxt
        keys = set()
        for j, typ in enumerate(proc.types):
            for o in objs:
                if st.isa(o, typ):
                    keys.update(self._bindings_with(proc, j, o))
        for pn, key in self.instances:
            if pn == proc.name and objs.intersection(key):
                keys.add(key)
        return keys

    def _bindings_with(self, proc, j: int, x) -> list:
        """The bindings (keys) of ``proc``'s parameters with parameter ``j`` equal to ``x``."""
        if len(proc.params) == 1:
            return [(x,)]
        return [tuple(e.get(p) for p in proc.params) for e in proc.binders[j].all(self.st, {proc.params[j]: x})]

    def _reeval(self, proc, key, t) -> None:
        if self.compat is not None and self.compat.code_clock:
            self._reeval_code(proc, key, t)
            return
        st = self.st
        env = {proc.params[0]: key[0]} if len(key) == 1 else dict(zip(proc.params, key))
        ik = (proc.name, key)
        inst = self.instances.get(ik)
        otype = st.otype
        alive = True
        for o in key:
            if type(o) is str and o not in otype:
                alive = False
                break
        if alive and proc.scope is not None:
            alive = proc.scope(st, env)
        if inst is not None and inst.since is not None:
            inst.progress = num(inst.progress + (t - inst.since))
            inst.since = t
        if not alive:
            if inst is not None:
                del self.instances[ik]
            return
        active = proc.cond_in_scope(st, env)       # the scope holds here
        if inst is None:
            if not active:
                return
            inst = self.instances[ik] = _Inst()
        inst.version += 1
        if active:
            need = proc.duration(st, env)
            inst.since = t
            done_at = num(t + max(0, need - inst.progress))
            self.q.push(done_at, END, ("proc", ik, inst.version), self.world_rank, -1)
        else:
            inst.since = None

    def _reeval_code(self, proc, key, t) -> None:
        """ParaCook's timer after a change to the instance's objects: an increase of the process duration (an
        item added) adds to the required total and starts the timer, whose anchor is set only if it was never
        set (ParaCook tests for 0).  Nothing is scheduled: ``_tick`` completes the process."""
        st = self.st
        env = {proc.params[0]: key[0]} if len(key) == 1 else dict(zip(proc.params, key))
        alive = all(type(o) is not str or o in st.otype for o in key)
        if alive and proc.scope is not None:
            alive = proc.scope(st, env)
        need = proc.duration(st, env) if alive else 0
        ik = (proc.name, key)
        compat = self.compat
        assert compat is not None, "ParaCook's timers run under its code rules only"
        timers = compat.timers
        timer = timers.get(ik)
        if timer is None:
            if not need:
                return
            timer = timers[ik] = _Timer()
        if need > timer.last:
            timer.required = num(timer.required + need - timer.last)
            timer.cooking = True
            if timer.anchor == 0:
                timer.anchor = t
        timer.last = need

    def _tick(self, t) -> None:
        """Bring ParaCook's timers up to date at ``t``: each running timer whose process condition (outside its
        scope: the cookware is on a stove) holds is credited the time since its anchor; one that reaches its
        required total completes (the process effects apply) and stops."""
        compat = self.compat
        assert compat is not None, "ParaCook's timers run under its code rules only"
        compat.ticked = t
        if not compat.timers:
            return
        st = self.st
        for ik, timer in list(compat.timers.items()):
            if not timer.cooking:
                continue
            proc = next(p for p in self.w.procs if p.name == ik[0])
            key = ik[1]
            if not all(type(o) is not str or o in st.otype for o in key):
                continue
            env = dict(zip(proc.params, key))
            if not proc.cond_in_scope(st, env):
                continue
            timer.processed = num(timer.processed + (t - timer.anchor))
            timer.anchor = t
            if timer.processed >= timer.required:
                timer.processed = timer.required
                timer.cooking = False
                self.cur = (None, None)
                proc.apply(st, env, t, self)
        if st.touched:
            self._settle(t)

    def _proc_done(self, ik, version, t) -> None:
        inst = self.instances.get(ik)
        if inst is None or inst.version != version:
            return
        proc = next(p for p in self.w.procs if p.name == ik[0])
        env = dict(zip(proc.params, ik[1]))
        del self.instances[ik]
        self.cur = (None, None)
        proc.apply(self.st, env, t, self)

    def pending_events(self) -> list:
        """(time, what) of the world events still queued: ("delay", None) or ("proc", (process, binding))."""
        out = []
        for entry in self.q._heap:
            ev = entry[-1]
            if isinstance(ev, tuple) and ev and ev[0] == "delay":
                out.append((entry[0], ("delay", None)))
            elif isinstance(ev, tuple) and ev and ev[0] == "proc":
                inst = self.instances.get(ev[1])
                if inst is not None and inst.version == ev[2]:
                    out.append((entry[0], ("proc", ev[1])))
        return sorted(out, key=lambda x: x[0])

    def progress(self) -> dict:
        """Running process instances: (process, binding) -> (progress so far, running?)."""
        out = {}
        for ik, inst in self.instances.items():
            p = inst.progress + ((self.t - inst.since) if inst.since is not None else 0)
            out[ik] = (num(p), inst.since is not None)
        return out

    # ------------------------------------------------------------------ the result
    def result(self) -> KitchenResult:
        total = len(self.w.orders)
        errors = list(self.errors)
        end_time = max([r.end for rs in self.runs.values() for r in rs] + [0])
        if len(self.served) < total and not (self.first and errors):
            missing = [d.name for d in self.w.orders[len(self.served):]]
            errors.append(PlanError("E751", f"{len(missing)} of {total} orders not served: {', '.join(missing)}",
                                    "serve every order, in sequence", None, None, end_time))
        success = not errors and not self.errors_dropped and len(self.served) == total
        compat = self.compat
        if compat is not None and compat.last_event:
            oct_ = end_time if success else None
        else:
            oct_ = self.served[-1][1] if success and self.served else (0 if success else None)
        finished = compat.marks if compat is not None and compat.finish_marks else self.finished
        return KitchenResult(self.w, errors, self.runs, list(self.served), success, oct_, end_time,
                             dict(finished), self.st, total, self.errors_dropped)


def simulate(world: World, plan: dict, *, first: bool = False) -> KitchenResult:
    """Execute a whole plan ``{agent: [KitchenStep, ...]}`` (agents missing from the scenario must be filtered out)."""
    sim = KitchenSim(world, first=first)
    for agent, steps in plan.items():
        sim.add(agent, steps)
    sim.run()
    return sim.result()


# ------------------------------------------------------------------ argument helpers
def _fmt(x) -> str:
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else f"{float(x):g}"
    return str(x)


def _short(v, n: int = 40) -> str:
    s = repr(v)
    return s if len(s) <= n else s[:n] + "..."


def _kind_text(t: str) -> str:
    return {"cell": "a cell [x, y]", "number": "a number"}.get(t, f"a {t}")


def _int(v):
    """A cell coordinate: an integral number within +-MAX_NUMBER (``numparse.exact_int``), else None."""
    x = exact_int(v, limit=MAX_NUMBER)
    return None if isinstance(x, NumberProblem) else x


def _cell(v):
    if isinstance(v, dict) and set(v) >= {"x", "y"}:
        v = [v["x"], v["y"]]
    if isinstance(v, (list, tuple)) and len(v) == 2:
        x, y = _int(v[0]), _int(v[1])
        if x is not None and y is not None:
            return (x, y)
    return None


def _number(v):
    """A number argument (``numparse.exact`` within +-MAX_NUMBER, int when integral): the number, None when
    ``v`` is not a number (E010), "range" when it is one the readers refuse (not finite, too large, too many
    digits: E011).  A plain int takes a shortcut with the same result (Wait durations are ints)."""
    if type(v) is int:
        return v if -MAX_NUMBER <= v <= MAX_NUMBER else "range"
    x = exact(v, limit=MAX_NUMBER)
    if isinstance(x, NumberProblem):
        return None if x is NumberProblem.NOT_A_NUMBER else "range"
    return num(x)


def _closest(name: str, world: World, typ: str) -> str:
    import difflib
    names = [s.name for s in world.map.stations]
    near = difflib.get_close_matches(name, names, n=3)
    return ("did you mean " + " or ".join(near) + "?") if near else f"the map's stations: {', '.join(names[:12])}"
