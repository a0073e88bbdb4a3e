"""Recipe2Plan's ReAct protocol: timed actions submitted one at a time, judged by the step-level engine.

Input: a one-agent ``ProcedureProblem`` whose unit has seconds; then, per call, text holding one or more
timed actions ``Step(3, Cobbler, 00:01:00, 00:02:00)`` (step, recipe, duration, start; also the 3-argument
form and "10 min" durations, read by ``validators.plans``; LLM chatter around them is ignored),
``wait`` / ``wait 5 min`` / ``wait until 00:20:00``, or ``finish`` ("Action: Finish").  Output:
``env.reset() -> observation``, ``env.step(text) -> (observation, ReactFeedback)`` where ``ReactFeedback`` has one
``ActionFeedback`` per action tried (accepted, or refused with an E-code, our category, the paper's
Table 14 label and a hint); ``env.critique(plan_text) -> validators.report.Report`` (critic mode: the
whole plan at once); ``env.metrics()``; ``env.plan_text()`` (the accepted actions as Step(...) text).

Protocol (docs/runtime.md; the rules are runtime/procedure/sim.py's, applied by the same ``ProcState``):
- The current time is the start of the latest accepted action (or the target of the latest ``wait``);
  0 at first.  An action must start at or after it, else it is refused as a time error (E613).  Being
  busy is not "the past": a continuous action overlapping another is refused as infeasible multitask
  (E401) with the time the agent is free.
- An action at t >= now is judged on a copy of the state advanced to t (completions up to t, then
  maximum-lag and deadline checks before t).  Every violation is reported, the action's own first
  (duration, time, dependency before object rules), then those the passage of time would cause (a time
  constraint of another step lapsing: E603).  A refused action changes neither the state nor the clock.
- Several actions in one call are tried in order; the first refusal stops the call.
- A refusal whose violations include a code in ``fatal`` (default: time constraints, E601-E604, as the
  paper aborts on them) ends the episode; so do ``max_refusals`` refused calls in a row (default 3) and
  ``max_revisions`` refused calls in all (default 10, the paper's revision budget); None: no limit.
- When nothing is left to start, the clock runs to the last completion; the episode succeeds when every
  step is done with no violation.  Time constraints are checked then as well (a lag whose partner
  completes late).  ``finish`` ends the episode (E702 when steps are missing).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Optional

from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime import metrics as M
from chronoplan.runtime import timefmt
from chronoplan.runtime.procedure.env import Feedback as BaseFeedback
from chronoplan.runtime.procedure.records import Chunk, fmt_value, step_name
from chronoplan.runtime.procedure.state import ProcState
from chronoplan.runtime.violations import Violation
from chronoplan.validators.plans import parse_time, read_plan
from chronoplan.validators.replay import reference_chunks, validate_plan
from chronoplan.validators.report import PlanError

TIME_CONSTRAINT_CODES = frozenset({"E601", "E602", "E603", "E604"})
LABELS = {      # code -> the paper's feedback label (Table 14; "Plan Completeness" from its critic mode)
    "E001": "Unreadable Action", "E002": "Unreadable Action", "E010": "Unreadable Action",
    "E011": "Unreadable Action", "E012": "Unreadable Action", "E013": "Unreadable Action",
    "E104": "Unreadable Action", "E014": "Wrong Agent", "E103": "Wrong Agent",
    "E101": "Wrong Recipe", "E102": "Wrong Action", "E613": "Time Error", "E611": "Time Error",
    "E401": "Infeasible Multitask", "E411": "Object Occupancy", "E201": "Object Temperature",
    "E301": "Dependency", "E801": "Repeated Action", "E802": "Repeated Action",
    "E601": "Time Constraint", "E602": "Time Constraint", "E603": "Time Constraint",
    "E604": "Time Constraint", "E612": "Deadline", "E614": "Time Limit",
    "E501": "Action Duration", "E502": "Action Duration", "E503": "Action Duration",
    "E511": "Execution Interruptibility", "E701": "Plan Completeness", "E702": "Plan Completeness",
}
_FINISH = re.compile(r"^(?:action\s*:\s*)?(?:finish|done)\W*$|\baction\s*:\s*finish\b", re.I)
_WAIT = re.compile(r"^(?:action\s*:\s*)?wait(?:\s+(until|till|to)\b)?\s*(.*?)\W*$", re.I | re.S)
MAX_COMMAND = 100_000


@dataclass(frozen=True)
class ActionFeedback:
    """The verdict on one action: accepted (``run`` times set) or refused (``violations``, primary first)."""

    action: str
    ok: bool
    message: str
    label: str = ""
    code: Optional[str] = None
    category: Optional[str] = None
    hint: str = ""
    violations: tuple[Violation, ...] = ()
    start: Optional[Fraction] = None
    end: Optional[Fraction] = None


@dataclass(frozen=True)
class ReactFeedback(BaseFeedback):
    """The answer to one call; ``code``/``category``/``label``/``hint`` are those of its first refusal."""

    label: str = ""
    fatal: bool = False
    results: tuple[ActionFeedback, ...] = ()


def label_of(code: Optional[str]) -> str:
    return LABELS.get(code or "", "")


class ReactEnv:
    """Recipe2Plan's closed-loop (ReAct) environment over ``ProcState``."""

    def __init__(self, problem: ProcedureProblem, *, show_executable: bool = False,
                 max_refusals: Optional[int] = 3, max_revisions: Optional[int] = 10,
                 fatal: Iterable[str] = TIME_CONSTRAINT_CODES, limit: Optional[Fraction] = None) -> None:
        if len(problem.agents) != 1:
            raise ValueError(f"the recipe2plan protocol has one agent; scenario {problem.scenario} has "
                             f"{len(problem.agents)}")
        if problem.time_unit.seconds is None:
            raise ValueError(f"the recipe2plan protocol uses clock times; scenario {problem.scenario} is "
                             "measured in unitless ticks")
        self.problem = problem
        self.unit = problem.time_unit
        self.agent = problem.agents[0]
        self.show_executable = show_executable
        self.max_refusals = max_refusals
        self.max_revisions = max_revisions
        self.fatal = frozenset(fatal)
        self.limit = limit if limit is not None else problem.limit
        self.reset()

    # ------------------------------------------------------------------ episode state
    def reset(self) -> str:
        self.state = ProcState(self.problem)
        self.time = Fraction(0)
        self.accepted: list[Chunk] = []
        self.commands = 0
        self.refusals = 0
        self.refusals_in_row = 0
        self.done = False
        self.success = False
        self.end_reason = ""
        self.end_violations: tuple[Violation, ...] = ()
        self.log: list[tuple[str, ReactFeedback]] = []
        return self.observation()

    def _t(self, x: Optional[Fraction]) -> str:
        return timefmt.clock(x, self.unit) if x is not None else "(not yet)"

    def _d(self, x: Fraction) -> str:
        return timefmt.duration(x, self.unit)

    def _fork(self) -> ProcState:
        return self.state.fork()

    def _left(self, state: ProcState, t: Fraction) -> list:
        """Steps that still need a chunk started (not done, and not covered by a chunk running at t)."""
        out = []
        for key, st in state.steps.items():
            if st.done_at is not None:
                continue
            r = st.running
            if r is not None and r.end > t and st.progress + r.duration >= st.step.duration:
                continue
            out.append(key)
        return out

    # ------------------------------------------------------------------ observation
    def executable(self) -> list[tuple[Fraction, list]]:
        """[(time, [step keys])]: each step still to start, at the earliest of now and the coming
        completions at which starting it (for what remains of it) breaks no rule."""
        fork = self._fork()
        times = sorted({self.time} | {r.end for r in fork.running_runs(self.time)})
        left = self._left(fork, self.time)
        found: dict = {}
        for t in times:
            fork.advance(t, inclusive_checks=False)
            for key in list(left):
                st = fork.steps[key]
                if st.done_at is not None or (st.running is not None and st.running.end > t):
                    continue
                out, _ = fork.check_start(Chunk(-1, key[0], key[1], t, None, self.agent))
                if not out:
                    found.setdefault(t, []).append(key)
                    left.remove(key)
        return sorted(found.items())

    def observation(self) -> str:
        st, t = self.state, self.time
        lines = [f"The current time is {self._t(t)}."]
        busy = [r for r in st.agent_runs[self.agent] if r.start + r.busy > t and r.busy > 0]
        lines.append(f"You are busy with {step_name(busy[-1].key)} until {self._t(busy[-1].start + busy[-1].busy)}."
                     if busy else "You are free.")
        done = sorted((s.done_at, k) for k, s in st.steps.items() if s.done_at is not None and s.done_at <= t)
        lines.append("Completed: " + ("; ".join(f"{step_name(k)} (at {self._t(d)})" for d, k in done)
                                      if done else "nothing yet") + ".")
        running = sorted(st.running_runs(t), key=lambda r: (r.end, r.key))
        if running:
            lines.append("Running: " + "; ".join(
                f"{step_name(r.key)} ({'continuous' if r.busy >= r.duration else 'autonomous'}, "
                f"will finish at {self._t(r.end)})" for r in running) + ".")
        objs = []
        for res in self.problem.resources:
            holders = [r for r in st.holders.get(res.name, ()) if r.start <= t < r.end]
            desc = (f"{res.name} is occupied by {', '.join(step_name(r.key) for r in holders)} until "
                    f"{self._t(min(r.end for r in holders))}" if len(holders) >= res.capacity
                    else f"{res.name} is not occupied")
            props = st.props.get(res.name, {})
            if props:
                desc += ", " + ", ".join(f"{k} is {fmt_value(v)}" for k, v in props.items())
            objs.append(desc)
        if objs:
            lines.append("Status of physical objects: " + "; ".join(objs) + ".")
        n_done = sum(1 for s in st.steps.values() if s.done_at is not None)
        lines.append(f"Done {n_done} of {len(st.steps)} steps.")
        if self.show_executable and not self.done:
            groups = self.executable()
            lines.append("Hint: " + ("; ".join(
                f"the following actions are ready to be executed after {self._t(when)}: "
                + ", ".join(step_name(k) for k in keys) for when, keys in groups) + "."
                if groups else "no action can be executed."))
        if self.done:
            lines.append("All steps are done: " + self.end_reason if self.success else
                         "The episode is over: " + self.end_reason)
        return "\n".join(lines)

    # ------------------------------------------------------------------ acting
    def step(self, command: Any) -> tuple[str, ReactFeedback]:
        t0 = self.time
        if self.done:
            return self.observation(), ReactFeedback(False, "The episode is over.", t0, done=True, success=self.success)
        text = str(command) if command is not None else ""
        self.commands += 1
        results: list[ActionFeedback] = []
        stripped = text.strip()
        wait = _WAIT.match(stripped) if len(stripped) <= 200 else None
        if len(text) > MAX_COMMAND:
            results.append(self._refusal(text[:60], [Violation(
                "E013", f"the command is {len(text)} characters long; at most {MAX_COMMAND}",
                "send fewer actions at once")]))
        elif wait is not None and not re.search(r"step\s*\(", stripped, re.I):
            results.append(self._wait(wait.group(1) is not None, wait.group(2)))
        elif re.search(r"step\s*\(|^\s*\[", stripped, re.I):
            results = self._actions(text)
            if results and results[-1].ok and not self.done and _FINISH.search(stripped):
                results.append(self._finish())
        elif _FINISH.search(stripped):
            results.append(self._finish())
        else:
            results.append(self._refusal(stripped[:80], [Violation(
                "E104", f"cannot read \"{stripped[:80]}\" as an action",
                "write Step(step, recipe, duration, start) with HH:MM:SS times, \"wait until HH:MM:SS\" or "
                "\"finish\"", None, self.agent, t0)]))
        refused = next((r for r in results if not r.ok), None)
        fatal = False
        if refused is not None and refused.code != "E702":
            self.refusals += 1
            self.refusals_in_row += 1
            fatal = any(v.code in self.fatal for v in refused.violations)
            if fatal:
                v = next(v for v in refused.violations if v.code in self.fatal)
                self._end(False, f"{v.message}.", tuple(refused.violations))
            elif self.max_refusals is not None and self.refusals_in_row >= self.max_refusals:
                self._end(False, f"{self.refusals_in_row} refused actions in a row.")
            elif self.max_revisions is not None and self.refusals >= self.max_revisions:
                self._end(False, f"{self.refusals} refused actions (the revision budget).")
        message = " ".join(r.message for r in results)
        if self.done:
            message += " All steps are done." if self.success else f" The episode is over: {self.end_reason}"
        fb = ReactFeedback(refused is None, message, t0, refused.code if refused else None,
                      refused.category if refused else None, refused.hint if refused else "", self.done,
                      self.success, refused.label if refused else "", fatal, tuple(results))
        self.log.append((text, fb))
        return self.observation(), fb

    def _refusal(self, action: str, violations: list[Violation], prefix: str = "") -> ActionFeedback:
        v = violations[0]
        more = f" ({len(violations) - 1} more: {'; '.join(x.message for x in violations[1:])})" \
            if len(violations) > 1 else ""
        return ActionFeedback(action, False, f"{prefix}{label_of(v.code) or v.category}: {v.message}{more}.",
                              label_of(v.code), v.code, v.category, v.hint, tuple(violations))

    def _actions(self, text: str) -> list[ActionFeedback]:
        """Read Step(...) entries (or plan.json rows) and try them in order until one is refused."""

        read = read_plan(text, self.unit, "recipe2plan")
        entries: dict = {}
        for e in read.errors:
            entries.setdefault(e.index if e.index is not None else -1, e)
        for a in read.actions:
            entries.setdefault(a.index, a)
        results: list[ActionFeedback] = []
        order = sorted(entries)
        for pos, i in enumerate(order):
            item = entries[i]
            if isinstance(item, PlanError):
                results.append(self._refusal(f"entry {i}" if i >= 0 else "the command", [Violation(
                    item.code, item.message, item.hint, None, self.agent, self.time)]))
            else:
                results.append(self._try(item))
            rest = len(order) - pos - 1
            if not results[-1].ok and rest:
                last = results[-1]
                results[-1] = replace(last, message=last.message + f" The {rest} later action"
                                      f"{'s were' if rest != 1 else ' was'} not tried.")
            if not results[-1].ok or self.done:
                break
        return results

    def _describe(self, a) -> str:
        dur = "" if a.duration is None else f"{self._t(a.duration)}, "
        return f"Step({a.step}, {a.task}, {dur}{self._t(a.start)})"

    def _try(self, a) -> ActionFeedback:
        """Judge one action on a copy of the state; adopt the copy when the action is accepted."""
        desc = self._describe(a)
        name = step_name((a.task, a.step))
        chunk = Chunk(len(self.accepted), a.task, a.step, a.start, a.duration, self.agent)
        prefix = f"{name[0].upper()}{name[1:]} can not be executed at {self._t(a.start)}. "
        if a.task not in self.state.tasks or (a.task, a.step) not in self.state.steps:
            out, _ = self.state.check_start(chunk)
            return self._refusal(desc, out, prefix)
        if a.start < self.time:
            return self._refusal(desc, [Violation(
                "E613", f"the current time is {self._t(self.time)}; {name} cannot start at {self._t(a.start)}, "
                "which is in the past", f"start {name} at or after {self._t(self.time)}", chunk.index,
                self.agent, a.start)], prefix)
        fork = self._fork()
        fork.planned.add((a.task, a.step))        # its own lapsing time constraint is reported as E601
        before = len(fork.violations)
        fork.advance(a.start, inclusive_checks=False)
        passed = fork.violations[before:]
        own, args = fork.check_start(chunk)
        if args is not None and self.limit is not None and a.start + args[2] > self.limit:
            own.append(Violation("E614", f"{name} would run until {self._t(a.start + args[2])}, past the time "
                                 f"limit {self._t(self.limit)}", f"finish every step by {self._t(self.limit)}",
                                 chunk.index, self.agent, a.start))
        violations = own + passed
        if violations or args is None:
            return self._refusal(desc, violations, prefix)
        run = fork.apply_start(chunk, *args)
        self.state = fork
        self.time = a.start
        self.accepted.append(chunk)
        self.refusals_in_row = 0
        continuous = run.busy >= run.duration and run.duration > 0
        msg = (f"Continuous action executed successfully: {name} from {self._t(run.start)} to "
               f"{self._t(run.end)}." if continuous else
               f"Autonomous action started successfully: {name} runs from {self._t(run.start)} until "
               f"{self._t(run.end)}.")
        if not self._left(self.state, self.time):
            self._run_out()
        return ActionFeedback(desc, True, msg, "Success Execution", start=run.start, end=run.end)

    def _wait(self, absolute: bool, arg: str) -> ActionFeedback:

        t0 = self.time
        if not arg.strip():
            ends = [r.end for r in self.state.running_runs(t0)]
            target = min(ends) if ends else t0
        else:
            secs = parse_time(arg)
            if secs is None:
                return self._refusal(f"wait {arg[:40]}", [Violation(
                    "E104", f"cannot read the time \"{arg[:40]}\"",
                    "write \"wait until HH:MM:SS\" or \"wait 5 min\"", None, self.agent, t0)])
            target = secs / (self.unit.seconds or 1) + (0 if absolute else t0)    # tick scenarios: 1 s = 1 tick
        if target < t0:
            return self._refusal(f"wait until {self._t(target)}", [Violation(
                "E613", f"the current time is {self._t(t0)}; {self._t(target)} is in the past",
                f"wait until a time at or after {self._t(t0)}", None, self.agent, target)])
        fork = self._fork()
        before = len(fork.violations)
        fork.advance(target, inclusive_checks=False)
        passed = fork.violations[before:]
        if passed:
            return self._refusal(f"wait until {self._t(target)}", passed, f"You can not wait until "
                                 f"{self._t(target)}. ")
        self.state, self.time = fork, target
        self.refusals_in_row = 0
        return ActionFeedback(f"wait until {self._t(target)}", True, f"You wait until {self._t(target)}.")

    def _finish(self) -> ActionFeedback:
        missing = [k for k, s in self.state.steps.items() if s.done_at is None]
        if not missing:
            self._end(True, f"completed at {self._t(self.completion_time())}.")
            return ActionFeedback("finish", True, "Finished.")
        names = ", ".join(step_name(k) for k in missing[:10]) + (", ..." if len(missing) > 10 else "")
        v = Violation("E702", f"the episode ended with {len(missing)} of {len(self.state.steps)} steps not done "
                      f"({names})", "start every step before finishing", None, self.agent, self.time)
        self._end(False, f"finished with {len(missing)} of {len(self.state.steps)} steps not done.", (v,))
        return self._refusal("finish", [v])

    def _run_out(self) -> None:
        """Nothing is left to start: let every running step complete, then apply the end-of-plan checks."""
        st = self.state
        before = len(st.violations)
        st.advance()
        ends = [r.end for r in st.runs]
        st.finish(max(ends) if ends else Fraction(0))
        found = tuple(st.violations[before:])
        self.time = max([self.time] + ends)
        if found:
            self._end(False, found[0].message + ".", found)
        else:
            self._end(True, f"completed at {self._t(self.completion_time())}.")

    def _end(self, success: bool, reason: str, violations: tuple = ()) -> None:
        self.done, self.success, self.end_reason, self.end_violations = True, success, reason, violations

    # ------------------------------------------------------------------ critic mode and scores
    def critique(self, plan_text: Any, *, first: bool = False, reference: Any = None):
        """Feedback on a whole plan at once (``validate``): a ``validators.report.Report``."""

        return validate_plan(self.problem, plan_text, first=first, name="<critique>", fmt=None,
                             reference=reference)

    def plan_text(self) -> str:
        """The accepted actions as Step(...) text (what a batch validation of this episode reads)."""
        out = []
        for c in self.accepted:
            run = next(r for r in self.state.runs if r.index == c.index)
            out.append(f"Step({c.step}, {c.task}, {self._t(run.duration)}, {self._t(c.start)})")
        return ", ".join(out)

    def completion_time(self) -> Optional[Fraction]:
        st = self.state.steps.values()
        return max(s.done_at for s in st) if all(s.done_at is not None for s in st) else None

    def metrics(self, reference: Any = None) -> dict:
        """``runtime.metrics.plan_metrics`` of the accepted actions, plus the episode's counters."""

        m = M.plan_metrics(self.state.result(), reference_chunks(self.problem, reference))
        m.update({"success": self.success, "done": self.done, "time": self.time,
                  "completion_time": self.completion_time(), "actions": len(self.accepted),
                  "commands": self.commands, "refusals": self.refusals})
        return m

    def help_text(self) -> str:
        tasks = ", ".join(self.problem.tasks)
        return ("Actions: Step(step, recipe, duration, start) with HH:MM:SS times (also \"10 min\"; "
                "Step(step, recipe, start) runs what remains of the step), several separated by commas; "
                f"\"wait\", \"wait 5 min\", \"wait until HH:MM:SS\"; \"finish\"; \"critique <plan>\". Recipes: "
                f"{tasks}.")
