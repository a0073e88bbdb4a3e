"""Interactive text environment over a step-level scenario (TimeArena's closed-loop protocol).

Input: a ``ProcedureProblem``; then commands, one per call: a step's text ("cook rice in pot",
case-insensitive, whitespace-normalised; also "step 3 of Cobbler"), "wait" or "wait N"; with several
agents a dict ``{agent: command}``.  Output: ``env.reset() -> observation``, ``env.step(command) ->
(observation, Feedback)``; ``env.metrics()``.

Protocol (runtime/procedure/sim.py has the step semantics):
- The clock advances in ticks: one minute when the scenario's unit has seconds, else one tick.
- A command at time t starts the step at t.  The agent's next command comes when it is free again: after
  the step's occupation (a continuous step of d keeps it until t+d), and at least one tick later (a
  non-occupying step costs its agent the tick t and completes at t+d).  With several agents the clock
  moves one tick at a time, skipping ticks in which every agent is busy.
- A refused command (unknown text, unmet prerequisite, occupied object, property mismatch, repeat...)
  changes nothing but still costs the tick; running steps keep running.  ``max_refusals`` refusals in a
  row end the episode (5, as TimeArena; None: never).
- The episode ends when every step is done (completion time = the last step's end; when nothing is left
  to start the clock runs on to it), when the time limit passes, or when a maximum lag or a deadline can
  no longer be met.
- ``rules=Rules.TIMEARENA`` (``chronoplan play --compat timearena``): TimeArena's released code instead of the
  paper's rules; ``runtime.procedure.arena_rules`` reads and checks each command (the hook in ``_command``),
  and the clock does not run on.
- ``feedback=FeedbackStyle.TIMEARENA``: the feedback messages in TimeArena's sentences ("You are doing ``X``, it
  will take N minutes.", "rice is cooked."; ``runtime.procedure.feedback``); ``observation()`` stays the status
  block.  ``stepping=Stepping.MINUTE``: one call is one minute, as TimeArena's runner steps: while the agent is
  occupied, a call (the runner re-sends the action) continues the running step, and the clock does not run on.
"""
from __future__ import annotations

import difflib
import re
import weakref
from collections import UserString
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional, Union

from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime import metrics as M
from chronoplan.runtime import timefmt
from chronoplan.runtime.procedure.arena_rules import ArenaRules, Rules
from chronoplan.runtime.procedure.feedback import CONTINUED, ArenaSentences, FeedbackStyle, Stepping
from chronoplan.runtime.procedure.records import Run
from chronoplan.runtime.procedure.sim import Chunk, ProcState, _whole_problem, step_name
from chronoplan.runtime.violations import Violation

FATAL = frozenset({"E603", "E612"})
CACHE = 4096                              # entries per cache of an environment's problem
_WAIT = re.compile(r"wait(?: ([0-9]{1,6}))?")
_SPACES = re.compile(r"\s+")


class Observation(UserString):
    """An observation's text, built on first access: ``str(obs)``, printing, ``in``, ``==`` and every ``str``
    method give the text (a ``collections.UserString``; ``isinstance(obs, str)`` is false, use ``str(obs)``).
    ``Env.step`` returns one; the text is what ``Env.observation()`` said right after that step, whenever it is
    read."""

    def __init__(self, seq: object = "", *, render: Optional[Callable[[], str]] = None) -> None:
        self._render = render
        self._text: Optional[str] = None if render is not None else str(seq)

    @property
    def data(self) -> str:  # noqa: D102
        if self._text is None:
            assert self._render is not None
            self._text, self._render = self._render(), None
        return self._text

    @data.setter
    def data(self, value: str) -> None:
        self._text, self._render = str(value), None


@dataclass(frozen=True)
class Feedback:
    ok: bool
    message: str
    time: Fraction
    code: Optional[str] = None
    category: Optional[str] = None
    hint: str = ""
    done: bool = False
    success: bool = False

    def __str__(self) -> str:
        return self.message + (f" Hint: {self.hint}" if self.hint and not self.ok else "")


_new = object.__new__
_FEEDBACK = {"code": None, "category": None, "hint": "", "done": False, "success": False}


def _feedback(ok: bool, message: str, time: Fraction, code: Optional[str] = None, category: Optional[str] = None,
              hint: str = "") -> Feedback:
    """``Feedback(ok, message, time, code, category, hint)`` without the frozen dataclass's ``__init__`` (one
    ``object.__setattr__`` per field; a step makes one or two)."""
    fb = _new(Feedback)
    fb.__dict__.update(_FEEDBACK, ok=ok, message=message, time=time, code=code, category=category, hint=hint)
    return fb


def normalize(text: str) -> str:
    t = _SPACES.sub(" ", str(text)).strip().strip("\"'`").strip()
    return t.rstrip(".").strip().lower()


def display_text(step, problem: ProcedureProblem) -> str:
    """The step's text with procedure-local object names replaced by their instance names (rice -> rice_1)."""
    text = step.text
    for u in step.uses:
        res = problem.resource(u.resource)
        if res is not None and res.declared != res.name:
            text = re.sub(rf"(?<![\w-]){re.escape(res.declared)}(?![\w-])", res.name, text)
    return text


FAST_ENGINE = True                        # engine="auto": TimeArena-shaped episodes on runtime.procedure.arena_fast
_fast: Any = None                         # that module, imported on first use (it imports this one)


class Env:
    """``engine``: "auto" (the fast engine of ``runtime.procedure.arena_fast`` when ``FAST_ENGINE`` is on and it
    takes the problem and options, else the exact engine), "fast" (the fast engine whenever it takes them) or
    "exact" (``ProcState``, always).  Both give the same feedback, observations and metrics."""

    _now: Any                                 # the time: an int in whole-number episodes, else a Fraction

    def __new__(cls, problem: ProcedureProblem, *, engine: str = "auto", **options: Any) -> Env:
        global _fast
        if engine not in ("auto", "fast", "exact"):
            raise ValueError(f"engine must be \"auto\", \"fast\" or \"exact\", not {engine!r}")
        if cls is Env and engine != "exact" and (FAST_ENGINE or engine == "fast"):
            if _fast is None:
                from chronoplan.runtime.procedure import arena_fast  # lazy: arena_fast imports this module
                _fast = arena_fast
            if _fast.takes(problem, options.get("tick"), options.get("limit"), options.get("show_executable", False),
                           options.get("rules", Rules.PAPER), options.get("feedback", FeedbackStyle.STATUS)):
                return object.__new__(_fast.FastEnv)
        return object.__new__(cls)

    def __init__(self, problem: ProcedureProblem, *, tick: Optional[Fraction] = None,
                 show_executable: bool = False, max_refusals: Optional[int] = 5,
                 limit: Optional[Fraction] = None, rules: Rules = Rules.PAPER,
                 feedback: FeedbackStyle = FeedbackStyle.STATUS, stepping: Stepping = Stepping.COMMAND,
                 engine: str = "auto") -> None:
        self.problem = problem
        self.rules = Rules(rules)
        self._arena = ArenaRules.for_problem(problem) if self.rules is Rules.TIMEARENA else None
        self.unit = problem.time_unit
        self.tick = Fraction(tick) if tick is not None else (
            Fraction(1) if self.unit.seconds is None else Fraction(60, self.unit.seconds))
        self.show_executable = show_executable
        self.max_refusals = max_refusals
        self.limit = limit if limit is not None else problem.limit
        texts, self._commands, self._pos = problem.memo("_env_tables", _tables)   # read only, shared
        self.texts = dict(texts if self._arena is None else self._arena.texts)
        self.feedback_style, self.stepping = FeedbackStyle(feedback), Stepping(stepping)
        self._sentences = ArenaSentences(problem, self.texts, self.tick, self._arena is not None) \
            if self.feedback_style is FeedbackStyle.TIMEARENA else None
        # caches kept on the problem, shared by its environments (pure functions of their keys; bounded):
        # time -> clock text, int time -> Fraction, command -> normalize(command), unknown command -> hint
        self._clocks, self._fractions, self._normal, self._hints = problem.memo("_env_caches", _caches)
        # Whole-number episodes: when every time of the scenario, the tick and the limit are whole, the state
        # runs on Python ints (procedure.sim's whole-number problem; the same ProcState code, exact either way) and
        # times are handed out as Fractions (``time``, feedback, metrics).  Fraction arithmetic was most of a
        # step's time.
        whole = problem.memo("_whole_problem", _whole_problem)
        self._whole = (whole is not False and self.tick.denominator == 1
                       and (self.limit is None or Fraction(self.limit).denominator == 1))
        self._sim = whole if self._whole else problem
        self._tick: Any = int(self.tick) if self._whole else self.tick
        self._limit: Any = (int(self.limit) if self.limit is not None else None) if self._whole else self.limit
        # the steps whose starts ``_clear_start`` can clear (one agent), and step()'s short way for a text command
        self._simple = self._sim.memo("_env_simple_steps", _simple_steps) if len(problem.agents) == 1 else None
        self._durations, self._total = self._sim.memo("_env_durations", _durations) if self._whole else ({}, 0)
        self._one = len(problem.agents) == 1
        # the status text's pieces, per problem: step names, the objects' capacities, objects lines by objects in use
        self._names, self._capacity, self._lines = problem.memo("_env_render", _render_tables)
        self._restart()

    @property
    def time(self) -> Fraction:
        """The current time (a Fraction)."""
        return self._fr(self._now)

    @time.setter
    def time(self, value: Fraction) -> None:
        self._now = int(value) if self._whole and Fraction(value).denominator == 1 else Fraction(value)
        self._time_set = True

    def steps_done_by_now(self) -> int:
        """The steps completed at or before the time: the count the clock keeps (steps complete only as the
        clock passes their end), counted one by one once the time has been set by hand."""
        if not self._time_set:
            return self._done[0]
        now = self._now
        return sum(1 for s in self.state.steps.values() if s.done_at is not None and s.done_at <= now)

    def _fr(self, x: Any) -> Fraction:
        if type(x) is Fraction:
            return x
        f = self._fractions.get(x)
        if f is None:
            f = Fraction(x)
            if len(self._fractions) < CACHE:
                self._fractions[x] = f
        return f

    # ------------------------------------------------------------------ episode state
    def reset(self) -> str:
        """A new episode; its first observation."""
        self._restart()
        return self.observation()

    def _new_episode(self) -> None:
        """The episode's counters, end and log as at reset (both engines)."""
        self.n = 0
        self.refusals_in_row = 0
        self.refusals = 0
        self.done = False
        self.success = False
        self.end_reason = ""
        self.log: list[Feedback] = []

    def _restart(self) -> None:
        self.state = ProcState(self._sim, whole=self._whole)
        self._now = self.state.zero
        self._new_episode()
        self._wait_until: Any = self.state.zero
        self._props = self._copy_props()
        self._props_version = self.state.props_version
        self._left = list(self.state.steps.values())       # steps not done yet, in the problem's order
        self._done = (0, 0)                   # (steps done, the sum of their durations: whole-number episodes)
        self._time_set = False                # the ``time`` setter was used (steps_done_by_now counts)
        self._unread: list = []               # Rules.TIMEARENA: weak references to observations not read yet
        if self._sentences is not None:
            self._sentences.reset()

    def _copy_props(self) -> dict:
        return {name: dict(v) for name, v in self.state.props.items() if v}

    def _t(self, x: Any) -> str:
        text = self._clocks.get(x)
        if text is None:
            text = timefmt.clock(x, self.unit)
            if len(self._clocks) < CACHE:
                self._clocks[x] = text
        return text

    def _normalize(self, command: str) -> str:
        return self._read(command)[0]

    def _read(self, command: str) -> tuple[str, Optional[int]]:
        """(normalize(command), the ticks of a wait command or None), kept per command."""
        got = self._normal.get(command)
        if got is None:
            norm = normalize(command)
            m = _WAIT.fullmatch(norm)
            got = (norm, max(1, int(m.group(1) or 1)) if m else None)
            if len(self._normal) < CACHE:
                self._normal[command] = got
        return got

    def _d(self, x: Fraction) -> str:
        return timefmt.duration(x, self.unit)

    def match(self, command: str) -> Optional[tuple[str, int]]:
        """The step a command names (the first one free and startable now when several share its text)."""
        return self._match(self._normalize(command))

    def _match(self, norm: str) -> Optional[tuple[str, int]]:
        keys = self._commands.get(norm)
        if not keys:
            return None
        if len(keys) == 1:
            return keys[0]
        st = self.state.steps
        free = [k for k in keys if st[k].done_at is None and st[k].running is None]
        for k in free:
            out, _ = self.state.check_start(Chunk(-1, k[0], k[1], self._now))
            if not out:
                return k
        return (free or keys)[0]

    def executable(self, agent: Optional[str] = None) -> list[str]:
        """Commands that would be accepted now (for the agent, default the first)."""
        agent = agent or self.problem.agents[0]
        if self._arena is not None:
            return self._arena.executable(self, agent)
        out = []
        for s in self.problem.steps:
            st = self.state.steps[s.key]
            if st.done_at is not None or st.running is not None:
                continue
            v, _ = self.state.check_start(Chunk(-1, s.task, s.index, self._now, None, agent))
            if not v:
                out.append(self.texts[s.key])
        return out

    # ------------------------------------------------------------------ observation
    def observation(self) -> str:
        """The status text now (time, agents, running steps, objects, progress)."""
        return self._render_state(self.state, self._now, (self.success, self.end_reason) if self.done else None,
                                  self._done)

    def _render_state(self, st: ProcState, t: Fraction, over: Optional[tuple], done: Any) -> str:
        busy = []
        for a in self.problem.agents:
            runs = [r for r in st.agent_runs[a] if r.start + r.busy > t and r.busy > 0]
            busy.append(runs[-1] if runs else None)
        holders = {name: [r for r in rs if r.end > t and r.start <= t] for name, rs in st.holders.items()}
        if not self._whole:
            done = [k for k, s in st.steps.items() if s.done_at is not None]
        return self._render(t, busy, st.running_runs(t), holders, st.props, done, over)

    def _lazy_observation(self) -> Observation:
        """``observation()`` as it is now, rendered on first access.  While the episode runs, the state it needs
        is the time, the runs started so far (immutable, appended to ``state.runs``) and the objects'
        properties (copied when a step completed): every run ending by the time has completed (the clock
        stops at the events' time only when the episode ends).  An ended episode's state no longer changes
        (``reset`` makes a new one): its text is rendered from that state and the end's outcome.  With
        ``show_executable`` the text is built at once."""
        if self.show_executable and not self.done:
            return Observation(self.observation())
        if self.done:
            end = (self.state, self._now, (self.success, self.end_reason), self._done)
            return Observation(render=lambda: self._render_state(*end))
        if self._arena is None:
            snap: Any = (self.state, self._now, len(self.state.runs), self._props, self._done)
            return Observation(render=lambda: self._render_snapshot(*snap))
        # a pause moves running steps' ends: ``freeze`` gives the observations not read yet copies of those runs
        snap = [self.state, self._now, len(self.state.runs), self._props, self._done, None]
        obs = Observation(render=lambda: self._render_snapshot(*snap))
        unread = self._unread
        if len(unread) >= 64:
            unread[:] = [(r, sn) for r, sn in unread if (o := r()) is not None and o._text is None]
        unread.append((weakref.ref(obs), snap))
        return obs

    def freeze(self) -> None:
        """Before a pause changes the running steps' ends (``Rules.TIMEARENA``): the observations handed out and
        not read yet keep copies of the runs that had not ended at their time."""
        for ref, snap in self._unread:
            o = ref()
            if o is not None and o._text is None and snap[5] is None:
                st, t, n = snap[0], snap[1], snap[2]
                runs = []
                for r in st.runs[:n]:
                    if r.end > t:
                        c = _new(Run)
                        c.__dict__.update(r.__dict__)
                        r = c
                    runs.append(r)
                snap[5] = runs
        self._unread.clear()

    def _render_snapshot(self, st: ProcState, t: Fraction, n: int, props: dict, done: Any,
                         copies: Optional[list] = None) -> str:
        runs = st.runs[:n] if copies is None else copies
        busy = []
        for a in self.problem.agents:
            mine = [r for r in runs if r.agent == a and r.busy > 0 and r.start + r.busy > t]
            busy.append(mine[-1] if mine else None)
        holders: dict = {}
        running = []
        ended = []
        for r in runs:
            if r.end > t:
                running.append(r)
                if r.start <= t:
                    for u in st.steps[r.key].step.uses:
                        holders.setdefault(u.resource, []).append(r)
            elif not self._whole:
                ended.append(r.key)
        running.sort(key=lambda r: self._pos[r.key])
        return self._render(t, busy, running, holders, props, done if self._whole else ended, None)

    def _progress(self, done: Any) -> tuple[int, int]:
        """(steps done, ``metrics.progress_score``) of ``done``: in whole-number episodes the pair (steps done, the
        sum of their int durations) the clock keeps (``_advance_clock``), floored over the total memoized per
        problem (the same value); else the done steps' keys."""
        if not self._whole:
            return len(done), M.progress_score(self.problem, done)
        n, got = done
        total = self._total
        return n, 100 if total == 0 else 100 * got // total

    def _objects_line(self, holders: dict, props: dict) -> str:
        """"Objects: ..." (each object free, or in use until the earliest end of its holders when they fill its
        capacity, then its properties); "" without objects.  Without properties the line is kept per problem
        by the objects in use and their ends."""
        plain = self._lines is not None and (not props or not any(props.values()))
        if plain:
            capacity = self._capacity
            used = []
            for name, held in holders.items():
                if held and len(held) >= capacity.get(name, 1):
                    used.append((name, min([r.end for r in held])))
            key = frozenset(used)
            line = self._lines.get(key)
            if line is not None:
                return line
        objs = []
        for name, cap, free in self.problem.memo("_env_objects", _objects):
            held = holders.get(name, ())
            desc = f"{name} in use until {self._t(min(r.end for r in held))}" if len(held) >= cap else free
            res_props = props.get(name)
            if res_props:
                desc += ", " + ", ".join(f"{k} {_val(v)}" for k, v in res_props.items())
            objs.append(desc)
        line = "Objects: " + "; ".join(objs) + "." if objs else ""
        if plain and self._lines is not None and len(self._lines) < CACHE:
            self._lines[key] = line
        return line

    def _render(self, t: Fraction, busy: list, running: list, holders: dict, props: dict, done: Any,
                over: Optional[tuple]) -> str:
        lines = [f"Time {self._t(t)}."]
        parts = []
        one = len(self.problem.agents) == 1
        for a, r in zip(self.problem.agents, busy):
            who = "You are" if one else f"{a} is"
            if r is not None:
                parts.append(f"{who} busy with \"{self.texts[r.key]}\" until {self._t(r.start + r.busy)}")
            else:
                parts.append(f"{who} free")
        lines.append("; ".join(parts) + ".")
        if running:
            texts, names = self.texts, self._names
            lines.append("Running: " + "; ".join(
                f"\"{texts[r.key]}\" ({names[r.key]}) until {self._t(r.end)}" for r in running) + ".")
        line = self._objects_line(holders, props)
        if line:
            lines.append(line)
        n_done, score = self._progress(done)
        lines.append(f"Done {n_done} of {len(self.problem.steps)} steps (progress score {score}).")
        if self.show_executable and over is None:
            ex = self.executable()
            lines.append("You can do now: " + ("; ".join(f"\"{e}\"" for e in ex) if ex else "nothing (wait)") + ".")
        if over is not None:
            success, end_reason = over
            lines.append(("All steps are done. " if success else "The episode is over: ") + end_reason)
        return "\n".join(lines)

    # ------------------------------------------------------------------ acting
    def step(self, command: Union[str, dict]) -> tuple[Observation, Feedback]:
        """One command (or one per agent); the observation's text is built when first read."""
        t = self._now
        if self._one and type(command) is str and not self.done:
            sentences = self._sentences
            if sentences is None:
                fb = self._command(self.problem.agents[0], command, t)
                self._advance_clock(t)
            else:
                left, started = self._left, len(self.state.runs)
                fb = self._command(self.problem.agents[0], command, t)
                self._advance_clock(t)
                fb = sentences.render(self, fb, command, left, iter(self.state.runs[started:]))
            if self.done:
                fb = Feedback(fb.ok, fb.message + ("" if sentences is not None else " All steps are done."
                                                   if self.success else f" The episode is over: {self.end_reason}"),
                              fb.time, fb.code, fb.category, fb.hint, True, self.success)
            self.log.append(fb)
            return self._lazy_observation(), fb
        ft = self._fr(t)
        if self.done:
            fb = Feedback(False, "The episode is over.", ft, done=True, success=self.success)
            return self._lazy_observation(), fb
        left, started = self._left, len(self.state.runs)        # for the TimeArena sentences
        agents = self.problem.agents
        if type(command) is str:
            results = [self._command(agents[0], command, t)]
        else:
            if isinstance(command, dict):
                orders = [(a, command.get(a, "wait")) for a in agents]
                unknown = [a for a in command if a not in agents]
            else:
                orders, unknown = [(agents[0], command)], []
            results = [self._refuse(Violation("E103", f"there is no agent {a!r}",
                                              f"use one of: {', '.join(agents)}", None, a, t)) for a in unknown]
            for agent, cmd in orders:
                results.append(self._command(agent, str(cmd) if cmd is not None else "wait", t))
        self._advance_clock(t)
        if self._sentences is not None:
            cmds = [command] if type(command) is str else [str(command.get(a, "wait")) for a in agents] \
                if isinstance(command, dict) else [str(command)]
            cmds = [""] * (len(results) - len(cmds)) + cmds         # the unknown agents' refusals come first
            new_runs = iter(self.state.runs[started:])
            results = [self._sentences.render(self, r, c, left, new_runs) for r, c in zip(results, cmds)]
        fb = results[0] if len(results) == 1 else Feedback(
            all(r.ok for r in results), " ".join(r.message for r in results), ft,
            next((r.code for r in results if r.code), None), next((r.category for r in results if r.category), None),
            " ".join(r.hint for r in results if r.hint))
        if self.done:
            tail = "" if self._sentences is not None else (
                " All steps are done." if self.success else f" The episode is over: {self.end_reason}")
            fb = Feedback(fb.ok, fb.message + tail, ft, fb.code, fb.category, fb.hint, True, self.success)
        self.log.append(fb)
        return self._lazy_observation(), fb

    def _refuse(self, v: Violation) -> Feedback:
        self.refusals += 1
        self.refusals_in_row += 1
        return _feedback(False, v.message, self._fr(self._now), v.code, v.category, v.hint)

    def _command(self, agent: str, cmd: str, t: Fraction) -> Feedback:
        if self.stepping is Stepping.MINUTE and self.state.agent_free_at(agent, t) > t:
            return self._continue(agent, t)
        if self._arena is not None:
            return self._arena.command(self, agent, cmd, t)
        norm, wait = self._read(cmd)
        if wait is not None:
            self.refusals_in_row = 0
            self._wait_until = t + self._tick * wait
            return _feedback(True, "You wait." if len(self.problem.agents) == 1 else f"{agent} waits.", self._fr(t))
        key = self._match(norm)
        self.n += 1
        if key is None:
            return self._refuse(Violation("E104", f"unknown command \"{cmd.strip()[:80]}\"", self._hint(norm),
                                          self.n - 1, agent, t))
        chunk = _new(Chunk)                   # Chunk(self.n - 1, key[0], key[1], t, None, agent), frozen: slow
        chunk.__dict__.update(index=self.n - 1, task=key[0], step=key[1], start=t, duration=None, agent=agent)
        args = self._clear_start(key, agent, t) if self._simple is not None else None
        if args is None:
            out, args = self.state.check_start(chunk)          # state.start(chunk, refuse=True)
            if out:
                return self._refuse(out[0])
            assert args is not None, "a start without refusals can run"
        run = self.state.apply_start(chunk, *args)
        self.refusals_in_row = 0
        text = self.texts[key]
        if run.busy >= run.duration:
            msg = f"You do \"{text}\" until {self._t(run.end)}."
        else:
            msg = f"\"{text}\" runs on its own until {self._t(run.end)}."
        if len(self.problem.agents) > 1:
            msg = f"{agent}: {msg}"
        return _feedback(True, msg, self._fr(t))

    def _clear_start(self, key: tuple, agent: str, t: Any) -> Optional[tuple]:
        """``state.check_start``'s arguments for ``apply_start`` when starting step ``key`` now is plainly free of
        violations, else None (``check_start`` then decides): a step without lags, release, property needs or
        interruption (``_simple``), not started, its prerequisites done, the agent occupied by nothing past
        ``t``, each object it uses below its capacity.  Every violation ``check_start`` could report needs one
        of these to fail (tests/test_env_speed.py checks both paths give the same episodes)."""
        info = self._simple.get(key) if self._simple is not None else None
        if info is None:
            return None
        state = self.state
        st = state.steps[key]
        if st.done_at is not None or st.running is not None or st.first_start is not None:
            return None
        steps = state.steps
        for p in info[0]:
            if steps[p].done_at is None:
                return None
        for r in state.agent_runs[agent]:
            if r.start + r.busy > t:
                return None
        holders = state.holders
        for res, cap in info[1]:
            n = 0
            for r in holders.get(res, ()):
                if r.start + r.duration > t:
                    n += 1
            if n >= cap:
                return None
        s = st.step
        d = s.duration - st.progress
        if d != s.duration or d <= 0 or t < 0:
            return None
        return st, agent, d, s.occupation(d)

    def _continue(self, agent: str, t: Fraction) -> Feedback:
        """``Stepping.MINUTE``: a call while the agent is occupied continues its step for one tick."""
        run = [r for r in self.state.agent_runs[agent] if r.start + r.busy > t][-1]
        return _feedback(True, f"You keep doing \"{self.texts[run.key]}\" until {self._t(run.start + run.busy)}.",
                         self._fr(t), hint=CONTINUED)

    def _hint(self, norm: str) -> str:
        """The hint for an unknown command (the close matches among the commands; kept per command)."""
        hint = self._hints.get(norm)
        if hint is None:
            close = difflib.get_close_matches(norm, list(self._commands), n=3, cutoff=0.6) if len(norm) <= 200 else []
            hint = ("did you mean: " + "; ".join(f"\"{c}\"" for c in close)) if close else \
                "use a step's text exactly as listed, or \"wait\""
            if len(self._hints) < CACHE:
                self._hints[norm] = hint
        return hint

    def _agent_free_at(self, agent: str, t: Fraction) -> Fraction:
        return self.state.agent_free_at(agent, t)

    def _next_time(self, t: Any) -> Any:
        """The time of the next command: a tick later, after a wait, and (``Stepping.COMMAND``) when an agent is
        free."""
        new_t = t + self._tick
        if self._wait_until > new_t:
            new_t = self._wait_until
        self._wait_until = t
        agents = self.problem.agents
        free_at = self.state.agent_free_at
        if self.stepping is Stepping.COMMAND:
            if len(agents) == 1:               # the latest end of the agent's busy runs (free_at of it is itself)
                new_t = free_at(agents[0], new_t)
            else:
                while True:
                    free = min([free_at(a, new_t) for a in agents])
                    if free <= new_t:
                        break
                    new_t = free
        return new_t

    def _completed(self, remaining: list) -> None:
        """After events ran: the objects' properties (copied when written), the steps left and the done totals."""
        st = self.state
        if st.props_version != self._props_version:
            self._props, self._props_version = self._copy_props(), st.props_version
        left = [s for s in remaining if s.done_at is None]
        if len(left) != len(remaining):
            n, got = self._done
            if self._whole:
                durations = self._durations
                got += sum([durations[s.step.key] for s in remaining if s.done_at is not None])
            self._done = (n + len(remaining) - len(left), got)
            self._left = left

    def _advance_clock(self, t: Fraction) -> None:
        new_t = self._next_time(t)
        st = self.state
        before = len(st.violations)
        remaining = self._left                 # steps complete only in advance(): current since the last step
        for s in remaining:
            if s.running is None:
                break
        else:                                  # every step left is running: the clock runs on to the last end
            if remaining and self._arena is None and self.stepping is Stepping.COMMAND:
                new_t = max(new_t, max(s.running.end for s in remaining))
        limit = self._limit
        if limit is not None and new_t > limit:
            new_t = max(t, limit)
        seq = st.seq
        heap = st.queue._heap
        if heap and heap[0][0] <= new_t:
            st.advance(new_t, inclusive_checks=False, stop_on=FATAL)
        elif new_t > st.now:                  # st.advance(new_t, ...) with no event due
            st.now = new_t
        if st.seq != seq:                     # events ran: steps may have completed and set properties
            self._completed(remaining)
        fatal = [v for v in st.violations[before:] if v.code in FATAL] if len(st.violations) > before else []
        self._now = st.now if fatal else new_t
        if not self._left:
            self.done, self.success = True, not fatal
            self.end_reason = f"completed at {self._t(max(s.done_at for s in st.steps.values()))}."
        elif fatal:
            self.done, self.end_reason = True, fatal[0].message + "."
        elif limit is not None and new_t >= limit:
            self.done, self.end_reason = True, f"the time limit {self._t(limit)} is reached."
        elif self.max_refusals is not None and self.refusals_in_row >= self.max_refusals:
            self.done, self.end_reason = True, f"{self.refusals_in_row} refused commands in a row."

    # ------------------------------------------------------------------ scores
    def completion_time(self) -> Optional[Fraction]:
        st = self.state.steps.values()
        return self._fr(max(s.done_at for s in st)) if all(s.done_at is not None for s in st) else None

    def metrics(self) -> dict:
        done = {k: self._fr(s.done_at) for k, s in self.state.steps.items() if s.done_at is not None}
        score = M.progress_score(self.problem, done)
        return {"time": self.time, "success": self.success, "completion_time": self.completion_time(),
                "progress_score": score, "steps_done": len(done), "steps_total": len(self.problem.steps),
                "commands": len(self.log), "refusals": self.refusals, "done": self.done}

    def episode_score(self) -> M.EpisodeScore:
        done = {k: self._fr(s.done_at) for k, s in self.state.steps.items() if s.done_at is not None}
        reached = max(done.values(), default=Fraction(0))
        score = M.progress_score(self.problem, done)
        return M.EpisodeScore(score, M.minutes(reached, self.unit), self.success)


def _tables(problem: ProcedureProblem) -> tuple:
    """Per problem, once: the steps' display texts, normalised command forms -> step keys, step positions."""
    texts = {s.key: display_text(s, problem) for s in problem.steps}
    commands: dict = {}
    for s in problem.steps:
        for form in (texts[s.key], s.text, f"step {s.index} of {s.task}", f"{s.task} step {s.index}",
                     f"{s.task}.{s.index}"):
            keys = commands.setdefault(normalize(form), [])
            if s.key not in keys:
                keys.append(s.key)
    return texts, commands, {s.key: i for i, s in enumerate(problem.steps)}


def _durations(problem: ProcedureProblem) -> tuple[dict, int]:
    """A whole-number problem's step durations (ints) by key, and their total."""
    durations: dict = {s.key: s.duration for s in problem.steps}
    return durations, sum(durations.values(), 0)


def _simple_steps(problem: ProcedureProblem) -> dict:
    """Step key -> (prerequisite keys, ((resource, capacity) of each use)) for the steps without lags, release,
    property needs or interruption whose prerequisites all exist (``Env._clear_start``)."""
    keys = {s.key for s in problem.steps}
    capacity = {r.name: r.capacity for r in problem.resources}
    out = {}
    for s in problem.steps:
        pre = tuple((s.task, p) for p in s.prerequisites)
        if s.lags or s.release is not None or s.interruptible or any(u.needs for u in s.uses) or \
                any(k not in keys for k in pre):
            continue
        out[s.key] = (pre, tuple((u.resource, capacity.get(u.resource, 1)) for u in s.uses))
    return out


def _render_tables(problem: ProcedureProblem) -> tuple[dict, dict, Optional[dict]]:
    """Step key -> its name, resource -> capacity, and a cache of objects lines (None, no cache, when a capacity
    is below 1: such an object is "in use" with no holder)."""
    capacity = {r.name: r.capacity for r in problem.resources}
    return ({s.key: step_name(s.key) for s in problem.steps}, capacity,
            {} if all(c >= 1 for c in capacity.values()) else None)


def _objects(problem: ProcedureProblem) -> tuple:
    """((name, capacity, "NAME free") of each resource), for the status text's objects."""
    return tuple((r.name, r.capacity, f"{r.name} free") for r in problem.resources)


def _caches(problem: ProcedureProblem) -> tuple[dict, dict, dict, dict]:
    return {}, {}, {}, {}


def _val(v) -> str:
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{float(v):g}"
    return str(v)
