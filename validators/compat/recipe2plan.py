"""``--compat recipe2plan``: grade one plan exactly as the original Recipe2Plan evaluator does.

Input: a step-level ``ProcedureProblem`` of Recipe2Plan's shape (one cook, capacity-1 objects, maximum
lags, whole seconds), one plan and optionally a reference plan.  A plan is a model's reply (text, bytes, a
log record ``{"response": ...}``, or ``{"plan": "<text>"}``), read by the original's pattern
(``compat.r2p_read``); or a JSON timed plan (schedule, plan.json lists), read by chronoplan's readers since
the original reads no JSON, then executed by the original's rules like its parsed text.
Output: a ``report.Report``: at most one error (the original stops at the first failing check; our code,
a message saying it is the original's rule) or, when every action ran but a recipe is unfinished, one
``E701`` per step the original does not count; metrics ``makespan`` (end of the last executed action),
``success`` (no error and both recipes complete), ``progress`` (the original's: completed steps and their
prerequisites / all steps), ``steps_done``/``steps_total`` (the counts behind it), ``pass`` (the original's
pass: every recipe complete, even when a later action failed), ``goal_ratio``, ``actions_read``,
``actions_executed``, ``error_type`` (the category its result_summarizer files the failure under),
``efficiency`` and, with a reference, ``reference_efficiency``, ``relative_efficiency`` (its
evaluate_complete_speed, capped at 5 E) and ``multitask_score`` (that speed when progress is 1, else 0).
Entries the original's pattern skips are counted in the warning ``W003``.  Never raises on bad plans.
"""
from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import isfinite
from typing import Any, Optional

from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime.procedure.records import Chunk
from chronoplan.validators.compat import r2p_engine as engine
from chronoplan.validators.compat.r2p_engine import Check, Model, NotRepresentable, Num, OAction
from chronoplan.validators.compat.r2p_read import Parsed, ordered, read_text
from chronoplan.validators.compat.r2p_speed import complete_speed
from chronoplan.validators.plan_text import MAX_TEXT, PLAN_KEYS, REPLY_KEYS, decode
from chronoplan.validators.plans import TIMED_FORMATS, read_plan
from chronoplan.validators.report import PlanError, Report

RULE = "(the original Recipe2Plan evaluator's rule, --compat recipe2plan)"
HINTS = {
    Check.NO_ACTIONS: "write entries exactly as Step(3, Cobbler, 00:01:00, 00:02:00): capital S, ', ' between "
                      "fields, H:MM:SS or MM:SS times",
    Check.PARSE: "write step numbers of a plausible size",
    Check.CRASH: "use finite times",
    Check.UNKNOWN_RECIPE: "use the recipe names of the instance",
    Check.UNKNOWN_STEP: "use a step number of the recipe",
    Check.PAST: "start no action before the end of the continuous action listed before it at an earlier or "
                "equal start; at equal starts, list autonomous actions before continuous ones",
    Check.CONTINUOUS_OVERLAP: "do one continuous action at a time",
    Check.OCCUPIED: "start the step when the object is free",
    Check.PROPERTY: "set the object's property first (for an oven: preheat it to the temperature)",
    Check.TIME_CONSTRAINT: "start every chunk of the step within the limit after its partner's latest chunk",
    Check.ALREADY_DONE: "execute each step once",
    Check.ALREADY_RUNNING: "execute each step once",
    Check.TOO_LONG: "give the step at most the time it still needs",
    Check.NOT_INTERRUPTIBLE: "give a non-interruptible step its whole time in one action",
    Check.PREREQ_NOT_COMPLETED: "complete the prerequisite first",
    Check.PREREQ_NOT_FINISHED: "start after the prerequisite has finished",
    Check.INCOMPLETE: "add the missing steps",
}


def model_for(problem: ProcedureProblem) -> Any:
    """The scenario as the original holds it, or the ``NotRepresentable`` that says why it cannot."""
    try:
        return engine.model_of(problem)
    except NotRepresentable as exc:
        return exc


def _unit_time(model: Model, secs: Optional[Num]) -> Optional[Fraction]:
    if secs is None or not isfinite(secs):
        return None
    return Fraction(secs) / model.unit_seconds


def _base_metrics(problem: ProcedureProblem) -> dict:
    return {"makespan": None, "success": False, "progress": 0.0, "steps_done": 0,
            "steps_total": len(problem.steps), "pass": False, "compat": "recipe2plan"}


def _refused(problem: ProcedureProblem, name: str, message: str) -> Report:
    return Report(False, name, problem.scenario, (PlanError("E012", message, "grade this scenario "
                  "without --compat"),), _base_metrics(problem))


# ------------------------------------------------------------------------------------ plan values
def _reply_of(value: Any) -> Optional[str]:
    """The reply text held by a log record or a ``{"plan": "<text>"}`` object (None for other values)."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("plan"), str):
        return value["plan"]
    if any(k in value for k in PLAN_KEYS):
        return None
    return next((value[k] for k in REPLY_KEYS if isinstance(value.get(k), str)), None)


def _seconds(x: Fraction, unit: int) -> Num:
    s = Fraction(x) * unit
    return int(s) if s.denominator == 1 else float(s)


def _from_chunks(chunks: Sequence[Chunk], model: Model) -> tuple[list[OAction], Optional[PlanError]]:
    """chronoplan's timed actions (scenario unit) -> the original's actions (seconds, written order); the
    original's text cannot hold a negative time, so one is refused."""
    out = []
    for c in chunks:
        if c.start < 0 or (c.duration is not None and c.duration < 0):
            return [], PlanError("E010", f"entry {c.index}: a negative time cannot be written in the "
                                 "original evaluator's Step(...) text", "use times of 0 or more", c.index)
        steps = model.steps_of(c.task)
        if c.duration is None:        # the 3-field form: the step's whole time (0 when there is no such step)
            dur: Num = steps[c.step].time if steps is not None and 0 <= c.step < len(steps) else 0
        else:
            dur = _seconds(c.duration, model.unit_seconds)
        out.append(OAction(_seconds(c.start, model.unit_seconds), c.step, c.task, dur, c.index))
    return out, None


def _read(problem: ProcedureProblem, model: Model, plan: Any, fmt: Optional[str]) -> Any:
    """A plan -> ``Parsed``, or a tuple of reading errors."""
    if isinstance(plan, (bytes, bytearray)):
        try:
            plan = bytes(plan).decode("utf-8")
        except UnicodeDecodeError:
            bad = decode(plan)[0]
            return (bad.error or PlanError("E002", "the plan is not UTF-8 text", "save it as UTF-8"),)
    if isinstance(plan, str):
        if len(plan) > MAX_TEXT:
            return (PlanError("E013", f"the plan is {len(plan)} characters long; at most {MAX_TEXT}",
                              "split the plan file"),)
        got = decode(plan)
        value = got[0].value if len(got) == 1 and got[0].error is None else None
        if not isinstance(value, (dict, list)):
            return read_text(plan, model)            # a reply: the original's pattern on the text as written
        reply = _reply_of(value)
    else:
        reply = _reply_of(plan)
    if reply is not None:
        return read_text(reply, model)
    if fmt is not None and fmt not in TIMED_FORMATS:
        return (PlanError("E012", f"--compat recipe2plan grades timed plans, not {fmt} plans",
                          "write Step(...) text or a timed schedule"),)
    read = read_plan(plan, problem.time_unit, fmt)
    if read.errors:
        return read.errors
    if read.format not in TIMED_FORMATS:
        return (PlanError("E012", f"a {read.format} plan cannot be graded against the step-level "
                          f"scenario {problem.scenario}", "write Step(...) text or a timed schedule"),)
    actions, err = _from_chunks(read.actions, model)
    return (err,) if err is not None else ordered(actions)


def reference_entries(problem: ProcedureProblem, model: Model, reference: Any) -> Optional[list]:
    """A reference plan -> its (step, recipe, duration, start) entries in seconds, in the order the original
    uses: a JSON plan as listed (plan.json's order), a text plan as the original parses it; None when it
    cannot be read."""
    if reference is None:
        return None
    if isinstance(reference, (list, tuple)) and reference and all(isinstance(c, Chunk) for c in reference):
        actions, err = _from_chunks(reference, model)
    else:
        got = _read(problem, model, reference, None)
        if not isinstance(got, Parsed) or got.failure is not None:
            return None
        if isinstance(reference, (str, bytes, bytearray)) or _reply_of(reference) is not None:
            actions, err = list(got.actions), None
        else:
            actions, err = sorted(got.actions, key=lambda a: a.pos), None
    if err is not None:
        return None
    return [(a.step, a.recipe, a.time, a.start) for a in actions]


# ------------------------------------------------------------------------------------ report
def _error(model: Model, f: engine.Failure, n: int) -> PlanError:
    a = f.action
    where = f"its action {f.order} of {n} in start order" if a is not None else "the plan"
    return PlanError(f.check.code, f"{f.detail} {RULE}; the original stops at {where}", HINTS[f.check],
                     None if a is None else a.pos, None, None if a is None else _unit_time(model, a.start))


def grade_plan(problem: ProcedureProblem, plan: Any, *, name: str = "<plan>", fmt: Optional[str] = None,
               reference: Any = None, model: Any = None) -> Report:
    """Grade one plan by the original evaluator's rules (see the module docstring)."""
    model = model_for(problem) if model is None else model
    if isinstance(model, NotRepresentable):
        return _refused(problem, name, f"--compat recipe2plan cannot grade scenario {problem.scenario}: {model} "
                        "(the original evaluator has no such thing)")
    got = _read(problem, model, plan, fmt)
    warnings: tuple[PlanError, ...] = ()
    if isinstance(got, Parsed) and got.skipped:
        what = "entry" if got.skipped == 1 else "entries"
        warnings = (PlanError("W003", f"the original evaluator's pattern Step(<step>, <recipe>, <duration>, "
                              f"<start>) does not read {got.skipped} Step(...) {what}; skipped, as the original "
                              "skips them", HINTS[Check.NO_ACTIONS]),)
    if not isinstance(got, Parsed):                 # the original's parse error
        metrics = _metrics(problem, model, Parsed(), engine.run(model, ()), reference, "Unknown")
        return Report(False, name, problem.scenario, tuple(got), metrics, warnings)
    if got.failure is not None:                     # "no actions" (filed as Unknown by its summarizer)
        metrics = _metrics(problem, model, Parsed(), engine.run(model, ()), reference, "Unknown")
        return Report(False, name, problem.scenario, (PlanError(got.failure.code, f"{got.detail} {RULE}",
                                                                HINTS[got.failure]),), metrics, warnings)
    out = engine.run(model, got.actions)
    errors: list[PlanError] = []
    if out.failure is not None:
        errors.append(_error(model, out.failure, got.entries))
    else:
        end = _unit_time(model, out.max_end)
        errors += [PlanError("E701", f"step {k} of {task} is not complete after the last action: the "
                             f"original evaluator executes every action, and does not count this step "
                             f"{RULE}", HINTS[Check.INCOMPLETE], None, None, end) for task, k in out.missing]
    metrics = _metrics(problem, model, got, out, reference)
    return Report(not errors, name, problem.scenario, tuple(errors[:1000]), metrics, warnings)


def _metrics(problem: ProcedureProblem, model: Model, got: Parsed, out: engine.Outcome, reference: Any,
             unread: Optional[str] = None) -> dict:
    """The report's metrics; ``unread``: the error type of a plan that could not be read (nothing ran)."""
    done = all(out.complete)
    m = _base_metrics(problem)
    speed = complete_speed(model, out, None)
    m.update({
        "makespan": _unit_time(model, out.max_end),
        "success": out.failure is None and done and unread is None,
        "progress": out.progress,
        "steps_done": out.counted,
        "steps_total": out.total,
        "pass": done,
        "goal_ratio": sum(out.complete) / len(out.complete) if out.complete else 0.0,
        "actions_read": got.entries,
        "actions_executed": out.executed,
        "error_type": unread if out.failure is None else out.failure.error_type,
        "efficiency": speed.efficiency,
    })
    if reference is not None:
        entries = reference_entries(problem, model, reference)
        if entries is None:             # unreadable: nothing to compare with (not the original's missing plan)
            m.update(reference_efficiency=None, relative_efficiency=None, multitask_score=None)
        else:
            speed = complete_speed(model, out, entries)
            m["reference_efficiency"] = speed.reference
            m["relative_efficiency"] = speed.complete_speed
            m["multitask_score"] = speed.complete_speed if out.progress == 1 else 0
    return m
