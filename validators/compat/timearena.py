"""``--compat timearena``: grade a plan by playing it in TimeArena's released code (the interactive environment
with ``Rules.TIMEARENA``, ``runtime.procedure.arena_rules``).

Input: a one-agent step-level ``ProcedureProblem`` whose steps are TimeArena commands (``domains/timearena``)
and one plan, either
- a command sequence: a JSON list of strings, or ``{"commands": [...]}`` (or ``"plan"``; either may come with its
  ``"scenario"``, as in a JSON Lines row), each what the agent sent when the
  runner asked it (the runner asks only while the agent is free; "wait" passes a minute), as in the
  original's trajectories; or
- a timed plan in any format chronoplan reads (a schedule...): each chunk's step is sent, under the original's
  object names, at its start minute, "wait" filling the minutes in between and after the last start.
Output: a ``report.Report``: one error per refused command (its code and message; ``index``: the command's
position or the chunk's plan index), a chunk the runner could not send at its minute (the agent busy, or
another command sent that minute: ``E401``; a start that is not a whole minute: ``E104``), the time limit
(``E614``), steps never started (``E701``) or still running when the commands ran out (``E503``).  Metrics:
``makespan`` (completion time, None unless every step is done), ``success`` (every step done: the original's
``isCompleted``), ``progress``, ``steps_done``, ``steps_total``, ``progress_score`` (the original's), ``commands``
(sent, waits included), ``refusals``, ``time`` (the clock at the end).  ``valid``: success with no error.
Never raises on bad plans.
"""
from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import Any, Optional

from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime import metrics as M
from chronoplan.runtime import timefmt
from chronoplan.runtime.procedure.arena_rules import ArenaRules, ArenaShapeError, Rules
from chronoplan.runtime.procedure.env import Env
from chronoplan.runtime.procedure.records import step_name
from chronoplan.validators.plan_text import plan_value
from chronoplan.validators.plans import read_plan
from chronoplan.validators.report import PlanError, Report, error_report

MAX_MINUTES = 100_000        # minutes one plan may be played for (the runner sends a command every minute)
MAX_ERRORS = 1000


def _commands(value: Any) -> Optional[list]:
    """The command sequence a plan value is, or None (then it is read as a timed plan): a list of strings, alone
    or as the ``commands`` or ``plan`` of an object that may also name its ``scenario`` (a JSON Lines row)."""
    if isinstance(value, dict):
        key = next((k for k in ("commands", "plan") if isinstance(value.get(k), list)), None)
        if key is not None and set(value) <= {key, "scenario"}:
            value = value[key]
    if isinstance(value, list) and value and all(isinstance(c, str) for c in value):
        return value
    return None


def grade_plan(problem: ProcedureProblem, plan: Any, *, name: str = "<plan>", fmt: Optional[str] = None,
               first: bool = False, decoded: bool = False) -> Report:
    """Play ``plan`` in TimeArena's rules; see the module's docstring (``first``: report only the first error;
    the plan is still played to its end, so the metrics are the same; ``decoded``: as ``plan_value``'s)."""
    empty = {"makespan": None, "success": False, "progress": 0, "steps_done": 0, "steps_total": len(problem.steps)}
    try:
        env = Env(problem, rules=Rules.TIMEARENA)
    except ArenaShapeError as exc:
        return error_report(name, problem.scenario, "E012", str(exc), "grade this plan without --compat timearena",
                            empty)
    got = plan_value(plan, decoded=decoded)
    if got.error is not None:
        return Report(False, name, problem.scenario, (got.error,), empty)
    env.reset()
    errors: list[PlanError] = []
    commands = _commands(got.value)
    if commands is not None:
        _play_commands(env, commands, errors)
    else:
        read = read_plan(got.value, problem.time_unit, fmt)
        if read.errors:
            return Report(False, name, problem.scenario, tuple(read.errors), empty)
        _play_timed(env, list(read.actions), errors)
    report = _report(env, errors, name)
    return replace(report, errors=report.errors[:1]) if first else report


def _refused(env: Env, fb: Any, index: int, errors: list) -> None:
    if not fb.ok and fb.code is not None:
        errors.append(PlanError(fb.code, fb.message, fb.hint, index, None, fb.time))


def _play_commands(env: Env, commands: list, errors: list) -> None:
    for i, command in enumerate(commands):
        if env.done:
            break
        _refused(env, env.step(command)[1], i, errors)


def _wait_until(env: Env, t: Fraction, errors: list) -> bool:
    """Send "wait" until the clock reaches ``t``; False when the episode ends first or the plan waits too long."""
    while env.time < t and not env.done:
        if env.time >= MAX_MINUTES * env.tick:
            errors.append(PlanError("E614", f"--compat timearena plays at most {MAX_MINUTES} minutes; the plan "
                                    f"waits until {timefmt.clock(t, env.unit)}", "start every step earlier"))
            return False
        env.step("wait")
    return not env.done


def _play_timed(env: Env, chunks: list, errors: list) -> None:
    rules = ArenaRules.for_problem(env.problem)
    for c in sorted(chunks, key=lambda c: (c.start, c.index)):
        key = (c.task, c.step)
        if key not in rules.texts:
            errors.append(PlanError("E102", f"{c.task} has no step {c.step}" if c.task in env.problem.tasks
                                    else f"there is no task {c.task!r}", "name a step of the scenario", c.index,
                                    None, c.start))
            continue
        ticks = Fraction(c.start) / env.tick
        if ticks.denominator != 1 or c.start < 0:
            errors.append(PlanError("E104", f"{step_name(key)} starts at {timefmt.clock(c.start, env.unit)}: "
                                    "TimeArena's runner takes commands at whole minutes from 0",
                                    f"start it at {timefmt.clock(max(math.ceil(ticks), 0) * env.tick, env.unit)}",
                                    c.index, None, c.start))
            continue
        if not _wait_until(env, c.start, errors):
            break
        if env.time > c.start:
            errors.append(PlanError("E401", f"{step_name(key)} starts at {timefmt.clock(c.start, env.unit)}, but "
                                    "TimeArena's runner asks for one command a minute, when the agent is free: the "
                                    f"next is at {timefmt.clock(env.time, env.unit)}",
                                    f"start it at or after {timefmt.clock(env.time, env.unit)}", c.index, None,
                                    c.start))
            continue
        _refused(env, env.step(rules.texts[key])[1], c.index, errors)
    while not env.done and any(s.running is not None for s in env.state.steps.values()):
        if not _wait_until(env, env.time + env.tick, errors):
            break


def _report(env: Env, errors: list, name: str) -> Report:
    problem = env.problem
    st = env.state.steps
    if env.done and not env.success and env.end_reason.startswith("the time limit"):
        errors.append(PlanError("E614", f"the episode ended: {env.end_reason}", "finish every step by the limit",
                                None, None, env.time))
    for key, s in st.items():
        if s.done_at is not None:
            continue
        if s.running is not None:
            errors.append(PlanError("E503", f"{step_name(key)} (\"{env.texts[key]}\") is still running at "
                                    f"{timefmt.clock(env.time, env.unit)}, when the plan ends",
                                    "wait until it completes", None, None, env.time))
        else:
            errors.append(PlanError("E701", f"{step_name(key)} (\"{env.texts[key]}\") is never executed",
                                    f"send \"{env.texts[key]}\"", None, None, env.time))
    done = [k for k, s in st.items() if s.done_at is not None]
    metrics = {"makespan": env.completion_time(), "success": env.success,
               "progress": Fraction(len(done), len(problem.steps)) if problem.steps else Fraction(1),
               "steps_done": len(done), "steps_total": len(problem.steps),
               "progress_score": M.progress_score(problem, done), "commands": len(env.log),
               "refusals": env.refusals, "time": env.time}
    if len(errors) > MAX_ERRORS:
        metrics["errors_omitted"] = len(errors) - MAX_ERRORS
    return Report(env.success and not errors, name, problem.scenario, tuple(errors[:MAX_ERRORS]), metrics)
