"""The interactive environment's fast engine for TimeArena-shaped episodes (#15 item 4).

Input: a ``ProcedureProblem`` and the ``Env`` options.  ``eligible(problem)`` compiles, once per problem (kept on
it), integer tables (``Tables``) -- per step: duration, agent occupation, prerequisite bitmask, the objects it uses
(indexes and bitmask), its start message; per command text: the steps it names -- or gives False when the
problem has something this engine does not model; ``takes(problem, ...)`` adds the options.  ``FastEnv`` (an
``Env``) then plays episodes on ints and bitmasks and gives the same feedback, observation texts, metrics and
refusals (codes, messages, hints) as the exact engine (``ProcState``; tests/test_env_fast.py plays random
episodes both ways).  Output: what ``Env`` gives.

Taken: one agent; every time of the scenario, the tick and the limit whole numbers; steps not interruptible,
without lags, release, deadline or property needs and sets, with positive durations, distinct objects and
prerequisites that exist; objects of capacity at least 1 without properties; either rules (``Rules.TIMEARENA``
as ``runtime.procedure.arena_rules`` states them, when ``ArenaRules`` can hold the problem), either feedback style
(TimeArena's sentences through ``ArenaSentences``), either stepping, no ``show_executable``.  Everything else
runs on the exact engine.  Under these conditions the exact engine's clock has processed every end at or
before the time when a command comes, so "running" is "started and not done", an object's holders are the runs
not done, and the agent is busy only under ``Stepping.MINUTE`` (a call then continues its step).

``env.state`` is a view: ``agent_free_at`` is answered from the fast state, anything else from a ``ProcState``
replayed from the episode's starts and pauses (rebuilt when the episode moved on; changing it changes
nothing).  Setting ``env.time`` or a command that is not a string (a dict of agents) turns the environment into
the exact engine, with its state replayed, for the rest of its life.
"""
from __future__ import annotations

import heapq
from fractions import Fraction
from functools import partial
from typing import Any, Optional, Union

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime import metrics as M
from chronoplan.runtime.events import END
from chronoplan.runtime.procedure.arena_rules import ArenaRules, ArenaShapeError, Role, Rules
from chronoplan.runtime.procedure.env import CACHE, Env, Feedback, Observation, _caches, _feedback, _tables
from chronoplan.runtime.procedure.feedback import CONTINUED, ArenaSentences, FeedbackStyle, Stepping
from chronoplan.runtime.procedure.records import Chunk, step_name
from chronoplan.runtime.procedure.sim import _whole_problem
from chronoplan.runtime.procedure.state import ProcState
from chronoplan.runtime.violations import Violation

_new = object.__new__
_OK = {"ok": True, "code": None, "category": None, "hint": "", "done": False, "success": False}
_WAITED = dict(_OK, message="You wait.")
_ONE: Any = 1   # a Python int: compiled with Cython, ``1 << len(x)`` is a C int shift (0 from 32 steps on)


class Tables:
    """One problem's integer tables (read only, shared by its environments)."""

    def __init__(self, problem: ProcedureProblem, whole: ProcedureProblem) -> None:
        steps = whole.steps
        self.keys = [s.key for s in steps]
        self.index = index = {k: i for i, k in enumerate(self.keys)}
        texts, commands, self.pos = problem.memo("_env_tables", _tables)
        self.env_texts, self.env_commands = texts, commands        # Env's tables, for FastEnv's attributes
        self.caches = problem.memo("_env_caches", _caches)
        unit = problem.time_unit
        self.tick = Fraction(1) if unit.seconds is None else Fraction(60, unit.seconds)
        self.texts = [texts[k] for k in self.keys]
        self.names = [step_name(k) for k in self.keys]
        self.dur = [int(s.duration) for s in steps]
        self.busy = [int(s.occupation(s.duration)) for s in steps]
        self.pre = [[index[(s.task, p)] for p in s.prerequisites] for s in steps]
        self.pre_mask = [sum(1 << j for j in set(p)) for p in self.pre]
        rindex = {r.name: j for j, r in enumerate(problem.resources)}
        self.res_names = [r.name for r in problem.resources]
        self.cap = [int(r.capacity) for r in problem.resources]
        self.uses = [tuple(rindex[u.resource] for u in s.uses) for s in steps]
        self.obj_mask = [sum(1 << j for j in u) for u in self.uses]
        self.commands = {norm: tuple(index[k] for k in keys) for norm, keys in commands.items()}
        self.total = sum(self.dur)
        self.all = (_ONE << len(steps)) - 1    # every step's bit (_ONE: see its definition)
        self.exclusive = problem.occupancy is ir.OccupancyRule.EXCLUSIVE
        self.lines: dict = {}                  # frozenset((object, end)) of full objects -> objects line
        self.arena_read: dict = {}             # Rules.TIMEARENA: command -> ArenaRules.read(command)
        self.arena_pre: dict = {}              # Rules.TIMEARENA: (step, second object) -> [(prerequisite, index)]
        self.done_lines: dict = {}             # (steps done, their durations' sum) -> the "Done" line
        self.single = all(c == 1 for c in self.cap)
        self.busy_texts = [f"\"{t}\" until " for t in self.texts]
        self.start_msgs = [f"You do \"{t}\" until " if o >= d else f"\"{t}\" runs on its own until "
                           for t, o, d in zip(self.texts, self.busy, self.dur)]
        self.run_texts = [f"\"{t}\" ({n}) until " for t, n in zip(self.texts, self.names)]


def eligible(problem: ProcedureProblem) -> Union[Tables, bool]:
    """The problem's tables when the fast engine models every rule it has, else False (kept on the problem)."""
    return problem.memo("_arena_fast_tables", _build)


def _build(problem: ProcedureProblem) -> Union[Tables, bool]:
    if len(problem.agents) != 1 or not problem.steps or any(
            r.properties or not isinstance(r.capacity, int) or r.capacity < 1 for r in problem.resources):
        return False
    names = [r.name for r in problem.resources]
    if len(set(names)) != len(names):
        return False
    whole = problem.memo("_whole_problem", _whole_problem)
    if whole is False:
        return False
    keys = {s.key for s in whole.steps}
    if len(keys) != len(whole.steps):
        return False
    for s in whole.steps:
        uses = [u.resource for u in s.uses]
        if s.interruptible or s.lags or s.release is not None or s.deadline is not None or s.duration <= 0 \
                or any(u.needs or u.sets for u in s.uses) or len(set(uses)) != len(uses) \
                or any(u not in names for u in uses) or any((s.task, p) not in keys for p in s.prerequisites):
            return False
    return Tables(problem, whole)


def takes(problem: ProcedureProblem, tick: Optional[Fraction], limit: Optional[Fraction], show_executable: bool,
          rules: Rules, feedback: FeedbackStyle) -> bool:
    """Whether ``Env(problem, ...)`` with these options runs on this engine."""
    if show_executable:
        return False
    FeedbackStyle(feedback)                    # either style
    tb = eligible(problem)
    if not isinstance(tb, Tables) or not _whole(tb.tick if tick is None else tick):
        return False
    if rules is not Rules.PAPER and Rules(rules) is Rules.TIMEARENA and _arena_view(problem) is None:
        return False
    lim = limit if limit is not None else problem.limit
    return lim is None or _whole(lim)


def _arena_view(problem: ProcedureProblem) -> Optional[ArenaRules]:
    """TimeArena's view of the problem (``Rules.TIMEARENA``), or None when the original could not hold it (the
    exact engine then reports why)."""
    try:
        return ArenaRules.for_problem(problem)
    except ArenaShapeError:
        return None


def _whole(x: Any) -> bool:
    return type(x) is int or (x.denominator if type(x) is Fraction else Fraction(x).denominator) == 1


class StateView:
    """``FastEnv.state``: ``agent_free_at`` from the fast state; any other attribute (``__dict__`` too: under
    ``Rules.TIMEARENA`` it holds ``ArenaRules``' ``_arena_held``) from a replayed ``ProcState``."""

    __slots__ = ("_env",)

    def __init__(self, env: FastEnv) -> None:
        self._env = env

    @property
    def __dict__(self) -> dict:  # type: ignore[override]
        return self._env._replayed().__dict__

    def agent_free_at(self, agent: str, t: Any) -> Any:
        b = self._env._busy_end
        return b if b > t else t

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env._replayed(), name)


class FastEnv(Env):
    """``Env`` on the integer tables (see the module docstring); made by ``Env(...)`` when ``takes`` holds."""

    def __init__(self, problem: ProcedureProblem, *, tick: Optional[Fraction] = None,
                 show_executable: bool = False, max_refusals: Optional[int] = 5,
                 limit: Optional[Fraction] = None, rules: Rules = Rules.PAPER,
                 feedback: FeedbackStyle = FeedbackStyle.STATUS, stepping: Stepping = Stepping.COMMAND,
                 engine: str = "auto") -> None:
        self._options: dict[str, Any] = {"tick": tick, "show_executable": show_executable,
                                         "max_refusals": max_refusals, "limit": limit, "rules": rules,
                                         "feedback": feedback, "stepping": stepping}
        tb = eligible(problem)
        assert isinstance(tb, Tables), "FastEnv is made only for problems it takes"
        self._tb: Tables = tb
        self.problem = problem
        self.rules = rules if rules is Rules.PAPER else Rules(rules)
        self._arena = None                     # the exact engine's hook; this engine keeps its own: ``_ar``
        self._ar: Optional[ArenaRules] = ArenaRules.for_problem(problem) if self.rules is Rules.TIMEARENA else None
        self._sentences = None
        self.unit = problem.time_unit
        self.tick = Fraction(tick) if tick is not None else tb.tick
        self.show_executable = False
        self.max_refusals = max_refusals
        self.limit = limit if limit is not None else problem.limit
        self._commands, self._pos = tb.env_commands, tb.pos
        self.texts = dict(tb.env_texts if self._ar is None else self._ar.texts)
        if self._ar is None:
            self._text_list, self._busy_texts, self._run_texts = tb.texts, tb.busy_texts, tb.run_texts
        else:
            self._text_list = [self.texts[k] for k in tb.keys]
            self._busy_texts = [f"\"{x}\" until " for x in self._text_list]
            self._run_texts = [f"\"{x}\" ({n}) until " for x, n in zip(self._text_list, tb.names)]
        self.feedback_style, self.stepping = FeedbackStyle(feedback), Stepping(stepping)
        if self.feedback_style is FeedbackStyle.TIMEARENA:
            self._sentences = ArenaSentences(problem, self.texts, self.tick, self._ar is not None)
        self._minute = self.stepping is Stepping.MINUTE
        self._clocks, self._fractions, self._normal, self._hints = tb.caches
        self._whole = True
        self._tick = int(self.tick)
        self._limit = int(self.limit) if self.limit is not None else None
        self._one = True
        self._agent = problem.agents[0]
        self._restart()

    # ------------------------------------------------------------------ episode state
    def _restart(self) -> None:
        n = len(self._tb.keys)
        self._now = 0
        self._new_episode()
        self._wait_until = 0
        self._start: list = [0] * n
        self._end: list = [0] * n
        self._done_mask = 0
        self._run_mask = 0
        self._starts: list = []                # (step, start, command index), in start order
        self._pending: list = []               # (end, step) of the runs not done
        self._next_end: Any = None
        self._count = [0] * len(self._tb.cap)
        self._full = 0                         # objects at capacity (bitmask)
        self._busy_end = 0                     # the latest end of the agent's occupation
        self._last_busy = -1                   # the step of the agent's latest occupying run
        self._held: list = []                  # Rules.TIMEARENA: (step, the objects it occupies), in start order
        self._pauses: list = []                # Rules.TIMEARENA: (starts before it, time) of each pause
        self._done = (0, 0)
        self._replay: Optional[tuple] = None
        if self._sentences is not None:
            self._sentences.reset()

    @property
    def state(self) -> Any:  # type: ignore[override]
        # a new view per access: one kept on the environment would be a reference cycle, which leaves every
        # discarded environment to the cyclic collector (most of an environment's construction time)
        return StateView(self)

    def _replayed(self) -> ProcState:
        """The exact engine's state after this episode's starts and clock (kept until the episode moves on)."""
        mark = (len(self._starts), self._now, len(self._pauses), len(self._held))
        if self._replay is not None and self._replay[0] == mark:
            return self._replay[1]
        st = ProcState(self.problem.memo("_whole_problem", _whole_problem), whole=True)
        agent = self._agent
        pauses = iter(self._pauses)
        pause = next(pauses, None)
        for k, (i, t, index) in enumerate(self._starts + [(None, self._now, None)]):
            while pause is not None and pause[0] == k:
                self._advance_to(st, pause[1])
                _shift(st, pause[1], self._tick)
                pause = next(pauses, None)
            if i is None:
                break
            self._advance_to(st, t)
            chunk = _new(Chunk)
            chunk.__dict__.update(index=index, task=self._tb.keys[i][0], step=self._tb.keys[i][1], start=t,
                                  duration=None, agent=agent)
            sst = st.steps[self._tb.keys[i]]
            run = st.apply_start(chunk, sst, agent, sst.step.duration, sst.step.occupation(sst.step.duration))
            if self._ar is not None:               # ArenaRules' record of the objects each run occupies
                st.__dict__.setdefault("_arena_held", []).append((run, self._held[k][1]))
        self._advance_to(st, self._now)
        self._replay = (mark, st)
        return st

    @staticmethod
    def _advance_to(st: ProcState, t: Any) -> None:
        heap = st.queue._heap
        if heap and heap[0][0] <= t:
            st.advance(t, inclusive_checks=False)
        elif t > st.now:
            st.now = t

    def _to_exact(self) -> None:
        """Become the exact engine's ``Env`` with this episode's state (for what this engine does not model)."""
        st = self._replayed()
        keep = {k: getattr(self, k) for k in ("n", "refusals_in_row", "refusals", "done", "success", "end_reason",
                                              "log", "_now", "_wait_until")}
        options = self._options
        self.__class__ = Env  # type: ignore[assignment]
        Env.__init__(self, self.problem, **options, engine="exact")
        self.__dict__.update(keep)
        self.__dict__["state"] = st
        self._props = self._copy_props()
        self._props_version = st.props_version
        self._left = [s for s in st.steps.values() if s.done_at is None]
        done = [s for s in st.steps.values() if s.done_at is not None]
        self._done = (len(done), sum(int(s.step.duration) for s in done))

    @property
    def time(self) -> Fraction:
        return self._fr(self._now)

    @time.setter
    def time(self, value: Fraction) -> None:
        self._to_exact()
        Env.time.fset(self, value)  # type: ignore[attr-defined]

    def steps_done_by_now(self) -> int:
        return self._done[0]

    # ------------------------------------------------------------------ checks
    def _clear(self, i: int, t: Any) -> bool:
        """Starting step ``i`` at ``t`` has no violation (``ProcState.check_start`` finds none)."""
        tb = self._tb
        if (self._done_mask | self._run_mask) >> i & 1 or self._done_mask & tb.pre_mask[i] != tb.pre_mask[i] \
                or self._full & tb.obj_mask[i] or t < 0:
            return False
        return not self._agent_busy(i, t)

    def _agent_busy(self, i: int, t: Any) -> bool:
        if self._busy_end <= t:
            return False
        if self._tb.busy[i] > 0:
            return True
        return self._tb.exclusive and self._start[self._last_busy] < t

    def _match_index(self, norm: str) -> Optional[int]:
        keys = self._tb.commands.get(norm)
        if not keys:
            return None
        if len(keys) == 1:
            return keys[0]
        taken = self._done_mask | self._run_mask
        free = [i for i in keys if not taken >> i & 1]
        for i in free:
            if self._clear(i, self._now):
                return i
        return (free or keys)[0]

    def _match(self, norm: str) -> Optional[tuple[str, int]]:
        i = self._match_index(norm)
        return None if i is None else self._tb.keys[i]

    def executable(self, agent: Optional[str] = None) -> list[str]:
        tb, t = self._tb, self._now
        if self._ar is not None:
            return self._arena_executable(self._ar, t)
        return [tb.texts[i] for i in range(len(tb.keys)) if self._clear(i, t)]

    def _violation(self, i: int, t: Any, index: int) -> Violation:
        """The first violation ``check_start`` reports for starting step ``i`` at ``t`` (not clear)."""
        tb, agent, name, T = self._tb, self._agent, self._tb.names[i], self._t
        if self._done_mask >> i & 1:
            return Violation("E801", f"{name} is already done (finished at {T(self._end[i])})",
                             f"remove this repeated {name}", index, agent, t)
        if self._run_mask >> i & 1:
            return Violation("E802", f"{name} is already running until {T(self._end[i])}",
                             f"remove this repeated {name}", index, agent, t)
        for p in tb.pre[i]:
            if self._done_mask >> p & 1:
                continue
            pname = tb.names[p]
            if self._run_mask >> p & 1:
                when: Any = self._end[p]
                state = f"it is running until {T(when)}"
            else:
                when, state = None, "it has not started"
            hint = (f"start {name} at or after {T(when)}, when {pname} finishes" if when is not None and when > t
                    else f"schedule {pname} to finish before {name} starts")
            return Violation("E301", f"{name} starts at {T(t)} but its prerequisite {pname} has not finished: "
                             f"{state}", hint, index, agent, t)
        if self._agent_busy(i, t):
            b = self._last_busy
            rule = "" if tb.busy[i] > 0 else \
                " (occupancy exclusive: no step starts while its agent runs a continuous step)"
            return Violation("E401", f"{agent} cannot do {name} at {T(t)}: it is busy with {tb.names[b]} until "
                             f"{T(self._busy_end)}{rule}", f"start {name} at or after {T(self._busy_end)}",
                             index, agent, t)
        for r in tb.uses[i]:
            if self._count[r] >= tb.cap[r]:
                holders = [j for j, _, _ in self._starts if self._run_mask >> j & 1 and r in tb.uses[j]]
                free = min(self._end[j] for j in holders)
                res = tb.res_names[r]
                users = ", ".join(tb.names[j] for j in holders)
                return Violation("E411", f"{name} cannot use {res} at {T(t)}: it is in use by {users} until "
                                 f"{T(free)} (capacity {tb.cap[r]})",
                                 f"start {name} at or after {T(free)}, when {res} is free", index, agent, t)
        raise AssertionError("a start that is not clear has a violation")

    # ------------------------------------------------------------------ acting
    def step(self, command: Union[str, dict]) -> tuple[Observation, Feedback]:
        t = self._now
        if type(command) is not str or self.done:
            if self.done:
                return self._lazy_observation(), Feedback(False, "The episode is over.", self._fr(t), done=True,
                                                          success=self.success)
            self._to_exact()
            return self.step(command)
        if self._sentences is not None:
            return self._step_sentences(command, t)
        fb = self._command(self._agent, command, t)
        if self._clock_only(t):
            fb = Feedback(fb.ok, fb.message + (" All steps are done." if self.success else
                                               f" The episode is over: {self.end_reason}"),
                          fb.time, fb.code, fb.category, fb.hint, True, self.success)
        new_t = self._now
        self.log.append(fb)
        obs = _new(Observation)                # Observation(render=...), without UserString's __init__
        obs.__dict__.update(_text=None, _render=partial(self._text, new_t, len(self._starts), self._done,
                                                        self._last_busy, (self.success, self.end_reason)
                                                        if self.done else None, self._end,
                                                        self._starts, self._start))
        return obs, fb

    def _step_sentences(self, command: str, t: Any) -> tuple[Observation, Feedback]:
        """``step`` with TimeArena's sentences (``FeedbackStyle.TIMEARENA``; ``ArenaSentences.render`` on this
        engine's state): the command, the clock, then the call's sentences (its own, then the completions)."""
        done_before, started = self._done_mask, len(self._starts)
        fb = self._command(self._agent, command, t)
        tb = self._tb
        ended = self._clock_only(t)
        S = self._sentences
        assert S is not None, "called with sentences"
        norm, wait = self._read(command)
        lines = []
        if fb.hint == CONTINUED:
            pass
        elif fb.ok and wait is not None:
            lines.append(S.waited(wait))
        elif fb.ok:
            if len(self._starts) > started:
                i = self._starts[started][0]
                lines.append(S.started(tb.keys[i], tb.dur[i]))
            else:
                lines.append(fb.message)
        else:
            key = self._match(norm) if fb.code != "E104" else None
            busy = None
            if key is not None and fb.code == "E411":
                k = tb.keys.index(key)
                busy = next((tb.res_names[r] for r in tb.uses[k] if any(
                    r in tb.uses[j] and s <= fb.time < self._end[j] for j, s, _ in self._starts)), None)
            lines.append(S.refused(S.said(command, norm), fb.code, key, fb.message, busy))
        new = self._done_mask & ~done_before
        if new:
            lines += S.completed([tb.keys[i] for i in range(len(tb.keys)) if new >> i & 1 and
                                  tb.keys[i] not in S.reported])
        out = _new(Feedback)                  # Feedback(ok, text, time, code, category, hint[, True, success])
        out.__dict__.update(ok=fb.ok, message="\n".join(lines), time=fb.time, code=fb.code, category=fb.category,
                            hint="" if fb.ok else fb.hint, done=ended, success=self.success if ended else False)
        fb = out
        self.log.append(fb)
        return self._lazy_observation(), fb

    def _clock_only(self, t: Any) -> bool:
        """``step``'s clock after a command at ``t`` (no feedback); whether the episode ended."""
        new_t = t + self._tick
        if self._wait_until > new_t:
            new_t = self._wait_until
        self._wait_until = t
        tb = self._tb
        if not self._minute:
            if self._busy_end > new_t:
                new_t = self._busy_end
            if self._done_mask | self._run_mask == tb.all and self._done_mask != tb.all and self._ar is None:
                last = max([e for e, _ in self._pending])
                if last > new_t:
                    new_t = last
        limit = self._limit
        if limit is not None and new_t > limit:
            new_t = max(t, limit)
        if self._next_end is not None and self._next_end <= new_t:
            self._complete(new_t)
        self._now = new_t
        if self._done_mask == tb.all or (limit is not None and new_t >= limit) or (
                self.max_refusals is not None and self.refusals_in_row >= self.max_refusals):
            self._ended(new_t)
            return True
        return False

    def _ended(self, new_t: Any) -> None:
        """The episode ends: all done, the time limit, or too many refusals in a row (in that order)."""
        limit = self._limit
        if self._done_mask == self._tb.all:
            self.done, self.success = True, True
            self.end_reason = f"completed at {self._t(max(self._end))}."
        elif limit is not None and new_t >= limit:
            self.done, self.end_reason = True, f"the time limit {self._t(limit)} is reached."
        else:
            self.done, self.end_reason = True, f"{self.refusals_in_row} refused commands in a row."

    def _wait(self, wait: int, t: Any) -> Feedback:
        self.refusals_in_row = 0
        self._wait_until = t + self._tick * wait
        ft = self._fractions.get(t)
        if ft is None:
            ft = self._fr(t)
        fb = _new(Feedback)                   # _feedback(True, "You wait.", ft)
        fb.__dict__.update(_WAITED, time=ft)
        return fb

    def _command(self, agent: str, cmd: str, t: Any) -> Feedback:
        if self._minute and self._busy_end > t:
            text = self._text_list[self._last_busy]
            return _feedback(True, f"You keep doing \"{text}\" until {self._t(self._busy_end)}.", self._fr(t),
                             hint=CONTINUED)
        if self._ar is not None:
            return self._arena_command(self._ar, cmd, t)
        got = self._normal.get(cmd)
        if got is None:
            got = self._read(cmd)
        norm, wait = got
        if wait is not None:
            return self._wait(wait, t)
        keys = self._tb.commands.get(norm)
        i = keys[0] if keys is not None and len(keys) == 1 else self._match_index(norm)
        self.n += 1
        if i is None:
            return self._refuse(Violation("E104", f"unknown command \"{cmd.strip()[:80]}\"", self._hint(norm),
                                          self.n - 1, agent, t))
        tb = self._tb
        done_mask = self._done_mask
        if (done_mask | self._run_mask) >> i & 1 or done_mask & tb.pre_mask[i] != tb.pre_mask[i] \
                or self._full & tb.obj_mask[i] or t < 0 or (self._busy_end > t and self._agent_busy(i, t)):
            return self._refuse(self._violation(i, t, self.n - 1))      # self._clear(i, t) is False
        end = self._run(i, t, self.n - 1)
        clock = self._clocks.get(end)
        if clock is None:
            clock = self._t(end)
        ft = self._fractions.get(t)
        if ft is None:
            ft = self._fr(t)
        fb = _new(Feedback)                   # _feedback(True, message, ft)
        fb.__dict__.update(_OK, message=tb.start_msgs[i] + clock + ".", time=ft)
        return fb

    def _run(self, i: int, t: Any, index: int) -> Any:
        """Step ``i`` starts at ``t`` (plan index ``index``): its run, the objects it holds, the agent's
        occupation; the refusals in a row end.  Returns its end."""
        tb = self._tb
        end = t + tb.dur[i]
        self._start[i] = t
        self._end[i] = end
        self._run_mask |= 1 << i
        self._starts.append((i, t, index))
        self._pending.append((end, i))
        if self._next_end is None or end < self._next_end:
            self._next_end = end
        uses = tb.uses[i]
        if uses:
            count, cap = self._count, tb.cap
            for r in uses:
                count[r] += 1
                if count[r] >= cap[r]:
                    self._full |= 1 << r
        o = tb.busy[i]
        if o > 0:
            self._last_busy = i
            if t + o > self._busy_end:
                self._busy_end = t + o
        self.refusals_in_row = 0
        return end

    def _complete(self, until: Any) -> None:
        """The runs ending at or before ``until`` complete."""
        tb = self._tb
        still = []
        n, got = self._done
        count, cap = self._count, tb.cap
        for e, i in self._pending:
            if e <= until:
                bit = 1 << i
                self._run_mask &= ~bit
                self._done_mask |= bit
                n += 1
                got += tb.dur[i]
                for r in tb.uses[i]:
                    count[r] -= 1
                    if count[r] < cap[r]:
                        self._full &= ~(1 << r)
            else:
                still.append((e, i))
        self._pending = still
        self._next_end = min(e for e, _ in still) if still else None
        self._done = (n, got)

    # ------------------------------------------------------------------ observation
    def _lazy_observation(self) -> Observation:
        obs = _new(Observation)                # Observation(render=...), without UserString's __init__
        obs.__dict__.update(_text=None, _render=partial(self._text, self._now, len(self._starts), self._done,
                                                        self._last_busy, (self.success, self.end_reason)
                                                        if self.done else None, self._end,
                                                        self._starts, self._start))
        return obs

    def observation(self) -> str:
        return self._text(self._now, len(self._starts), self._done, self._last_busy,
                          (self.success, self.end_reason) if self.done else None, self._end, self._starts,
                          self._start)

    def _text(self, t: Any, n: int, done: tuple, busy: int, over: Optional[tuple], end: list, starts: list,
              start: list) -> str:
        """The status text at time ``t`` after the episode's first ``n`` starts (``busy``: the step of the agent's
        latest occupying run then; ``done``: the steps done and their durations' sum then; ``end``: the runs' ends
        then, a list a pause of ``Rules.TIMEARENA`` replaces rather than changes; ``starts`` and ``start`` the
        episode's lists, which ``reset`` replaces: a text handed out before a reset stays that episode's)."""
        tb, clocks = self._tb, self._clocks
        now = clocks.get(t)
        if now is None:
            now = self._t(t)
        if busy >= 0 and start[busy] + tb.busy[busy] > t:
            until = self._t(start[busy] + tb.busy[busy])
            head = f"Time {now}.\nYou are busy with {self._busy_texts[busy]}{until}."
        else:
            head = f"Time {now}.\nYou are free."
        running = [i for i, _, _ in (starts if n == len(starts) else starts[:n]) if end[i] > t]
        lines = [head]
        if running:
            running.sort()
            run_texts, T = self._run_texts, self._t
            lines.append("Running: " + "; ".join([run_texts[i] + T(end[i]) for i in running]) + ".")
        if tb.res_names:
            uses = tb.uses
            if tb.single:                      # capacity 1 each: an object held is full
                key = frozenset([(r, end[i]) for i in running for r in uses[i]])
            else:
                held: dict = {}
                for i in running:
                    for r in uses[i]:
                        h = held.get(r)
                        if h is None:
                            held[r] = [1, end[i]]
                        else:
                            h[0] += 1
                            if end[i] < h[1]:
                                h[1] = end[i]
                cap = tb.cap
                key = frozenset([(r, h[1]) for r, h in held.items() if h[0] >= cap[r]])
            line = tb.lines.get(key)
            if line is None:
                full = dict(key)
                line = "Objects: " + "; ".join(
                    f"{name} in use until {self._t(full[r])}" if r in full else f"{name} free"
                    for r, name in enumerate(tb.res_names)) + "."
                if len(tb.lines) < CACHE:
                    tb.lines[key] = line
            lines.append(line)
        line = tb.done_lines.get(done)
        if line is None:
            k, got = done
            line = tb.done_lines[done] = f"Done {k} of {len(tb.keys)} steps (progress score " \
                                         f"{100 if tb.total == 0 else 100 * got // tb.total})."
        lines.append(line)
        if over is not None:
            lines.append(("All steps are done. " if over[0] else "The episode is over: ") + over[1])
        return "\n".join(lines)

    # ------------------------------------------------------------------ scores
    def _done_times(self) -> dict:
        dm, fr = self._done_mask, self._fr
        return {k: fr(self._end[i]) for i, k in enumerate(self._tb.keys) if dm >> i & 1}

    def completion_time(self) -> Optional[Fraction]:
        return self._fr(max(self._end)) if self._done_mask == self._tb.all else None

    def metrics(self) -> dict:
        done = self._done_times()
        return {"time": self.time, "success": self.success, "completion_time": self.completion_time(),
                "progress_score": M.progress_score(self.problem, done), "steps_done": len(done),
                "steps_total": len(self.problem.steps), "commands": len(self.log), "refusals": self.refusals,
                "done": self.done}

    def episode_score(self) -> M.EpisodeScore:
        done = self._done_times()
        reached = max(done.values(), default=Fraction(0))
        return M.EpisodeScore(M.progress_score(self.problem, done), M.minutes(reached, self.unit), self.success)



    # ------------------------------------------------------------------ Rules.TIMEARENA (runtime.procedure.arena_rules)
    def _occupied(self, obj: str, t: Any) -> Optional[int]:
        """The first step, in start order, that occupies ``obj`` (under the original's names) past ``t``."""
        end = self._end
        for i, objs in self._held:
            if obj in objs and end[i] > t:
                return i
        return None

    def _pause(self, t: Any) -> None:
        """``ArenaRules.pause``: every running step ends one tick later (the ends list is replaced, so that the
        observations handed out keep theirs)."""
        end = list(self._end)
        moved = False
        run = self._run_mask
        for i in range(len(end)):
            if run >> i & 1 and end[i] > t:
                end[i] += self._tick
                moved = True
        if moved:
            self._pauses.append((len(self._starts), t))
            self._end = end
            self._pending = [(end[i], i) for _, i in self._pending]
            self._next_end = min(e for e, _ in self._pending) if self._pending else None

    def _arena_executable(self, A: ArenaRules, t: Any) -> list[str]:
        if self._busy_end > t:
            return []
        index, out = self._tb.index, []
        for r in A.roles:
            i = index[r.key]
            if (self._done_mask | self._run_mask) >> i & 1:
                continue
            if any(self._occupied(o, t) is not None for o in (r.first, r.second) if o is not None):
                continue
            if all(self._done_mask >> index[k] & 1 for k in A.prerequisites(r, r.second)):
                out.append(A.texts[r.key])
        return out

    def _arena_command(self, A: ArenaRules, text: str, t: Any) -> Feedback:
        """``ArenaRules.command`` on this engine's state (the same refusals, in the same order)."""
        got = self._tb.arena_read.get(text)
        if got is None:
            got = A.read(text)
            if len(self._tb.arena_read) < CACHE:
                self._tb.arena_read[text] = got
        why, words = got
        agent = self._agent
        if why is None and words == ["wait"]:
            self.refusals_in_row = 0
            self._wait_until = t + self._tick
            return _feedback(True, "You wait.", self._fr(t))
        self.n += 1
        index = self.n - 1
        shown = text.strip()[:80]
        T, tb = self._t, self._tb
        if why is not None:
            self._pause(t)
            return self._refuse(A._runner_refusal(why, words, shown, index, agent, t))
        verb = words[0] if len(words) == 2 else f"{words[0]} {words[2]}"
        first = words[1]
        second = words[3] if len(words) == 4 else None
        entries: list = []
        if second is None:
            entries.append((first, A.firsts.get((first, verb, 0))))
        else:
            if first != second:
                entries.append((first, A.firsts.get((first, verb, 1))))
            entries.append((second, A.seconds.get((second, verb), [None])[0]))
        refusal = self._arena_refusal(A, entries, verb, first, second, index, t)
        if refusal is not None:
            return self._refuse(refusal)
        role = entries[0][1]
        assert role is not None, "a fitting verb has its step"
        if second is not None and first == second:
            return self._arena_no_op(A, role, second, text, t, index)
        pre = tb.arena_pre.get((role.key, second))
        if pre is None:
            pre = tb.arena_pre[(role.key, second)] = [(k, tb.index[k]) for k in A.prerequisites(role, second)]
        missing = [k for k, j in pre if not self._done_mask >> j & 1]
        if missing:
            return self._refuse(Violation(
                "E301", f"\"{shown}\" needs \"{A.texts[missing[0]]}\" ({step_name(missing[0])}) done first",
                f"finish \"{A.texts[missing[0]]}\" first", index, agent, t))
        i = tb.index[role.key]
        if self._done_mask >> i & 1:
            return self._refuse(Violation("E801", f"\"{A.texts[role.key]}\" is already done (finished at "
                                          f"{T(self._end[i])})", "do another step", index, agent, t))
        return self._arena_start(A, role, second, i, t, index)

    def _arena_refusal(self, A: ArenaRules, entries: list, verb: str, first: str, second: Optional[str], index: int,
                       t: Any) -> Optional[Violation]:
        """The original's object checks, each entry in turn (the last reason found wins): occupied, a verb that
        does not fit, the ownership table."""
        agent, tb = self._agent, self._tb
        refusal = None
        for obj, role in entries:
            j = self._occupied(obj, t)
            if j is not None:
                until = self._t(self._end[j])
                refusal = Violation("E411", f"{obj} is occupied by \"{A.texts[tb.keys[j]]}\" until {until}",
                                    f"send it at or after {until}, when {obj} is free", index, agent, t)
            if role is None:
                refusal = Violation("E104", f"cannot {verb.split(' ')[0]} {obj} here: no step of the scenario "
                                    f"takes {obj} as its {'first' if obj == first and first != second else 'second'}"
                                    f" object of \"{verb}\"", A._fits(verb), index, agent, t)
            elif second is not None and second in A.owners and first not in A.owners[second]:
                refusal = Violation("E104", f"{second} does not take {first} (the original's \"Only for Task\" "
                                    f"table: {second} takes {', '.join(sorted(A.owners[second]))})",
                                    f"put {first} into its own task's object", index, agent, t)
        return refusal

    def _arena_no_op(self, A: ArenaRules, role: Role, obj: str, text: str, t: Any, index: int) -> Feedback:
        missing = [k for k in A.second_prerequisites(obj, role.verb) if not self._done_mask >> self._tb.index[k] & 1]
        if missing:
            return self._refuse(Violation(
                "E301", f"\"{text.strip()[:80]}\" needs \"{A.texts[missing[0]]}\" ({step_name(missing[0])}) "
                "done first", f"finish \"{A.texts[missing[0]]}\" first", index, self._agent, t))
        self.refusals_in_row = 0
        return _feedback(True, f"You do \"{text.strip().lower()}\": it takes 0 minutes and changes nothing "
                         "(--compat timearena: the original accepts an object as both objects).", self._fr(t))

    def _arena_start(self, A: ArenaRules, role: Role, second: Optional[str], i: int, t: Any, index: int) -> Feedback:
        """``ArenaRules._start``: the simulator's own prerequisite and capacity checks do not apply (the original's
        are those above); nothing else can refuse a step that is neither done nor running, its agent free."""
        assert not self._run_mask >> i & 1 and self._busy_end <= t, "a running step's object is occupied"
        end = self._run(i, t, index)
        self._held.append((i, (role.first,) if second is None else (role.first, second)))
        shown = A.texts[role.key] if second in (None, role.second) else \
            f"{role.verb.split(' ')[0]} {role.first} {role.verb.split(' ')[1]} {second}"
        if self._tb.busy[i] >= self._tb.dur[i]:
            msg = f"You do \"{shown}\" until {self._t(end)}."
        else:
            msg = f"\"{shown}\" runs on its own until {self._t(end)}."
        return _feedback(True, msg, self._fr(t))


def _shift(st: ProcState, t: Any, tick: int) -> None:
    """``ArenaRules.pause`` on a replayed state: every running step ends one tick later."""
    shifted = set()
    for s in st.steps.values():
        run = s.running
        if run is not None and run.end > t:
            object.__setattr__(run, "duration", run.duration + tick)
            shifted.add(id(run))
    if shifted:
        heap = st.queue._heap
        heap[:] = [(e[-1].end, *e[1:]) if e[1] == END and id(e[-1]) in shifted else e for e in heap]
        heapq.heapify(heap)
