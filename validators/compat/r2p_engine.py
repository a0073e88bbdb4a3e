"""The original Recipe2Plan evaluator's execution rules, re-stated (``--compat recipe2plan``).

Input: a step-level ``ProcedureProblem`` (turned once into ``Model``, the data as the original holds it:
whole seconds, one cook, capacity-1 objects) and the parsed actions, already in the original's order
(stable-sorted by start).  Output: ``Outcome``: how many actions were executed, the first failing check
(``Check``, which names our error code and the category the original's result_summarizer files it under),
the original's progress (completed steps plus their prerequisites) and the sums behind its efficiency
(``compat.r2p_speed``).

The rules (WilliamZR/Recipe2Plan ``evaluation/environment.py``, ``goal.py``, ``physical_objects.py``),
checked in this order for each action, the first failure ending the evaluation:

1. the recipe must be one of the instance's, the step must exist;
2. one clock (the cursor, 0 at first): an action starting before it is "in the past"; otherwise the cursor
   moves to the start, and after a continuous action to its end;
3. a continuous action may not overlap an earlier continuous one (the cursor rule already forbids every
   such overlap, see ``_overlaps_last_continuous``);
4. each object the step uses (in the data's order): held by no other use over an overlapping interval
   (two uses of the very same interval whose property updates already hold are allowed, e.g. one preheat
   per recipe); then each required property must hold now ("volume" must be at least the amount);
5. time constraints, at every chunk: start - (end of the partner's latest chunk) must not exceed the limit;
6. the duration must not exceed what is left (already executed / already executing / too long), and a
   step that cannot be interrupted must be given exactly what is left (a 0-length chunk of an
   interruptible step is accepted, and so is a 0-length repeat of a completed step);
7. every prerequisite must be completed and its latest chunk must have ended by the start.
Executing an action subtracts its duration from what is left, stamps the step's end (every chunk), puts
the interval on each object and sets the object's properties at once (at the start).

Times are floats in seconds, as in the original (so a 400-digit time is infinity there and here); the
original formats a failing action's time for its message, which raises on infinity: that plan ends with
the original's "unexpected error" (``Check.CRASH``).  Memory and time are linear in the number of actions.
"""
from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from math import isfinite
from typing import Any, Optional, Union

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import ProcedureProblem

Num = Union[int, float]

# result_summarizer's error_mapping keys, in its order; the first one found in a message names its type
SUMMARY_KEYS = (
    ("is not one of our goal", "Action Mismatch"), ("there is no step", "Action Mismatch"),
    ("is in the past", "Action Concurrency"), ("they are all continuous actions", "Action Concurrency"),
    ("is not completed", "Action Dependency"), ("twice", "Action Mismatch"),
    ("the execution time", "Action Mismatch"), ("interrupt constraint", "Execution Interruptibility"),
    ("time constraint", "Time Restriction"), ("object", "Resource Limitation"),
    ("temperature", "Resource Limitation"), ("volume", "Resource Limitation"),
    ("not all goals are completed", "Incomplete Exit"), ("completed all goals", "Success"),
)


class Check(Enum):
    """A check of the original evaluator: (our code, the words of the original's message that its
    result_summarizer matches, what the check is)."""

    NO_ACTIONS = ("E001", "", "no action matches the original's Step(...) pattern")
    PARSE = ("E011", "", "parsing the plan raised an exception")
    CRASH = ("E011", "", "the original raised an unexpected exception while judging the action")
    UNKNOWN_RECIPE = ("E101", "is not one of our goal", "the recipe is not one of the instance's")
    UNKNOWN_STEP = ("E102", "", "the step does not exist")
    PAST = ("E613", "is in the past", "the action starts before the original's clock")
    CONTINUOUS_OVERLAP = ("E401", "they are all continuous actions", "two continuous actions overlap")
    OCCUPIED = ("E411", "object", "the object is occupied")
    PROPERTY = ("E201", "", "an object property does not have the required value")
    TIME_CONSTRAINT = ("E601", "time constraint", "a time constraint is exceeded")
    ALREADY_DONE = ("E801", "", "the step is already executed")
    ALREADY_RUNNING = ("E802", "", "the step is already executing")
    TOO_LONG = ("E501", "the execution time", "the duration exceeds what the step needs")
    NOT_INTERRUPTIBLE = ("E511", "the execution time", "a non-interruptible step is not given its whole time")
    PREREQ_NOT_COMPLETED = ("E301", "is not completed", "a prerequisite is not completed")
    PREREQ_NOT_FINISHED = ("E301", "", "a prerequisite has not finished")
    INCOMPLETE = ("E701", "", "every action was executed but some steps are not complete")

    def __init__(self, code: str, phrase: str, what: str) -> None:
        self.code = code
        self.phrase = phrase
        self.what = what


def error_type(check: Check, words: Sequence[str] = ()) -> str:
    """The result_summarizer category of a failure: the first of its keys found in the check's own words or
    in the names its message shows (recipe, object, property); "Unknown" when none is."""
    text = " ".join((check.phrase,) + tuple(str(w) for w in words)).lower()
    return next((label for key, label in SUMMARY_KEYS if key in text), "Unknown")


class NotRepresentable(ValueError):
    """The scenario uses something the original's data model cannot express."""


@dataclass(frozen=True)
class OUse:
    obj: str
    require: tuple[tuple[str, Any], ...]
    update: tuple[tuple[str, Any], ...]         # empty: the data has no "update" key


@dataclass(frozen=True)
class OStep:
    time: int                                   # whole seconds
    parallel: bool                              # autonomous ("parallel": 1)
    interrupt: bool
    prereqs: tuple[int, ...]
    lags: tuple[tuple[int, int], ...]           # (partner step, maximum seconds from its end to this start)
    uses: tuple[OUse, ...]


@dataclass(frozen=True)
class Model:
    """A scenario as the original evaluator holds it: recipes in order, objects with initial properties."""

    recipes: tuple[tuple[str, tuple[OStep, ...]], ...]
    objects: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]
    unit_seconds: int

    def steps_of(self, recipe: str) -> Optional[tuple[OStep, ...]]:
        table = self.__dict__.get("_table")
        if table is None:
            table = dict(self.recipes)
            object.__setattr__(self, "_table", table)
        return table.get(recipe)

    @property
    def total_steps(self) -> int:
        return sum(len(steps) for _, steps in self.recipes)


def _whole_seconds(x: Fraction, unit: int, what: str) -> int:
    s = Fraction(x) * unit
    if s.denominator != 1 or s < 0:
        raise NotRepresentable(f"{what} is {s} s, not a whole number of seconds")
    return int(s)


def model_of(problem: ProcedureProblem) -> Model:
    """``ProcedureProblem`` -> ``Model``; raises ``NotRepresentable`` naming what the original cannot hold."""
    unit = problem.time_unit.seconds
    if unit is None:
        raise NotRepresentable("the scenario is measured in unitless ticks; the original counts seconds")
    if len(problem.agents) != 1:
        raise NotRepresentable(f"the scenario has {len(problem.agents)} agents; the original has one cook")
    if problem.limit is not None:
        raise NotRepresentable("the scenario has a time limit")
    for r in problem.resources:
        if r.capacity != 1:
            raise NotRepresentable(f"object {r.name} has capacity {r.capacity}; the original's objects have 1")
    recipes = []
    for task in problem.tasks:
        steps = []
        for pos, s in enumerate(problem.task_steps(task)):
            where = f"step {s.index} of {task}"
            if s.index != pos:
                raise NotRepresentable(f"{task}'s steps are not numbered 0, 1, 2...")
            if s.occupancy not in (ir.Occupancy.CONTINUOUS, ir.Occupancy.START):
                raise NotRepresentable(f"{where} occupies the cook for part of its time; the original's steps "
                                       "are continuous or autonomous")
            if s.release is not None or s.deadline is not None:
                raise NotRepresentable(f"{where} has a release time or a deadline")
            lags = []
            for lag in s.lags:
                if lag.min is not None or lag.max is None:
                    raise NotRepresentable(f"{where} has a minimum lag; the original's constraints are maxima")
                lags.append((lag.other, _whole_seconds(lag.max, unit, f"the time constraint of {where}")))
            uses = tuple(OUse(u.resource, tuple(u.needs), tuple(u.sets)) for u in s.uses)
            steps.append(OStep(_whole_seconds(s.duration, unit, f"the duration of {where}"),
                               s.occupancy is ir.Occupancy.START, s.interruptible, tuple(s.prerequisites),
                               tuple(lags), uses))
        recipes.append((task, tuple(steps)))
    objects = tuple((r.name, tuple(r.properties)) for r in problem.resources)
    return Model(tuple(recipes), objects, unit)


# ------------------------------------------------------------------------------------ state
@dataclass
class _StepState:
    time_left: Num
    finished: Optional[Num] = None              # end of the latest chunk ("finished_time_stamp")
    completed: bool = False


@dataclass
class _Object:
    """An object's properties and the intervals of its uses still open at the current start.  Starts are
    never earlier than those of the stored intervals (actions come in start order), so an interval that
    ended at or before the current start can never overlap a later one under the original's test."""

    props: dict
    ends: list = field(default_factory=list)            # heap of (end, start)
    spans: Counter = field(default_factory=Counter)     # (start, end) -> open intervals
    starts: Counter = field(default_factory=Counter)    # start -> open intervals

    def advance(self, start: Num) -> None:
        while self.ends and not self.ends[0][0] > start:
            end, s = heapq.heappop(self.ends)
            self.spans[(s, end)] -= 1
            self.starts[s] -= 1

    def overlapping(self, start: Num, end: Num, identical_ok: bool) -> int:
        """How many stored intervals the original counts against [start, end]: for a point, those strictly
        around it; for an interval, those that end after its start, except copies of the very same interval
        when the update already holds."""
        open_now = len(self.ends)
        if start == end:
            return open_now - self.starts[start]
        return open_now - (self.spans[(start, end)] if identical_ok else 0)

    def add(self, start: Num, end: Num) -> None:
        heapq.heappush(self.ends, (end, start))
        self.spans[(start, end)] += 1
        self.starts[start] += 1


@dataclass(frozen=True, slots=True)
class OAction:
    """One parsed action: start and duration in seconds (floats from text), step, recipe, written position."""

    start: Num
    step: int
    recipe: str
    time: Num
    pos: int


@dataclass(frozen=True)
class Failure:
    check: Check
    action: Optional[OAction]
    order: int                                  # the original's action number (position in start order)
    detail: str                                 # our words, with the numbers of the case
    words: tuple[str, ...] = ()                 # names the original's message shows (for error_type)
    start: Optional[Num] = None

    @property
    def error_type(self) -> str:
        return error_type(self.check, self.words)


@dataclass(frozen=True)
class Outcome:
    executed: int                               # actions executed before the failure (all when none)
    failure: Optional[Failure]
    counted: int                                # the original's progress count
    total: int
    complete: tuple[bool, ...]                  # per recipe: progress count == its steps
    missing: tuple[tuple[str, int], ...]        # steps not counted, in recipe order
    max_end: Optional[Num]                      # over executed actions
    sum_time: Num                               # sum of executed durations, in order
    parallel_done: int                          # full time of completed autonomous steps

    @property
    def progress(self) -> float:
        return self.counted / self.total if self.total else 0.0


def fmt_clock(t: Num) -> str:
    """A time as HH:MM:SS for messages (fractions of a second kept; non-finite shown as is)."""
    if not isfinite(t):
        return str(t)
    h, rest = divmod(Fraction(t), 3600)
    m, s = divmod(rest, 60)
    sec = f"{int(s):02d}" if s.denominator == 1 else f"{float(s):06.3f}".rstrip("0")
    return f"{int(h):02d}:{int(m):02d}:{sec}"


class _Run:
    """One evaluation of a plan by the original's rules (see the module docstring)."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.steps = {name: [_StepState(s.time) for s in steps] for name, steps in model.recipes}
        self.counted: dict[str, set] = {name: set() for name, _ in model.recipes}
        self.objects = {name: _Object(dict(props)) for name, props in model.objects}
        self.cursor: Num = 0.0
        self.last_continuous: Optional[tuple[Num, Num]] = None
        self.executed = 0
        self.max_end: Optional[Num] = None
        self.sum_time: Num = 0

    # -------------------------------------------------------------------------------- checks
    def _fail(self, check: Check, a: OAction, i: int, detail: str, words: tuple = (), *stamps: Num) -> Failure:
        if any(not isfinite(t) for t in stamps):
            # the original formats these times into its message; int(inf) raises, which it reports as an
            # unexpected error instead of the check's message
            return Failure(Check.CRASH, a, i, f"the original evaluator crashes while reporting that "
                           f"{check.what} for step {a.step} of {a.recipe} (it cannot print the time "
                           f"{fmt_clock(max(stamps))}) and reports an unexpected error", (), a.start)
        return Failure(check, a, i, detail, words, a.start)

    def _overlaps_last_continuous(self, start: Num, end: Num) -> bool:
        """The original tests a continuous action against every earlier continuous interval.  Each earlier
        one ends at or before the cursor, which this start is not earlier than, so no test can succeed; the
        latest interval is tested to keep the rule visible (tests/test_compat_recipe2plan.py checks on
        thousands of plans that the full test never fires)."""
        if self.last_continuous is None:
            return False
        s1, e1 = self.last_continuous
        if s1 == e1:
            return start < s1 < end
        if start == end:
            return s1 < start < e1
        return max(s1, start) < min(e1, end)

    def check(self, a: OAction, i: int) -> Optional[Failure]:
        steps = self.model.steps_of(a.recipe)
        if steps is None:
            return self._fail(Check.UNKNOWN_RECIPE, a, i, f"step {a.step} of {a.recipe}: {a.recipe} is not one of "
                              f"the instance's recipes ({', '.join(n for n, _ in self.model.recipes)})", (a.recipe,))
        if a.step < 0 or a.step >= len(steps):
            return self._fail(Check.UNKNOWN_STEP, a, i, f"step {a.step} of {a.recipe}: {a.recipe} has no step "
                              f"{a.step} (steps 0 to {len(steps) - 1})", (a.recipe,))
        g, t = a.start, a.time
        name = f"step {a.step} of {a.recipe}"
        if g < self.cursor:
            return self._fail(Check.PAST, a, i, f"{name} starts at {fmt_clock(g)}, before the original "
                              f"evaluator's clock ({fmt_clock(self.cursor)}: the latest start, or the end of "
                              "the last continuous action executed): for it the start is in the past",
                              (a.recipe,), self.cursor, g)
        if g > self.cursor:
            self.cursor = g
        spec = steps[a.step]
        if not spec.parallel and self._overlaps_last_continuous(g, g + t):
            return self._fail(Check.CONTINUOUS_OVERLAP, a, i, f"{name} overlaps another continuous action",
                              (a.recipe,), g)
        for use in spec.uses:
            obj = self.objects.get(use.obj)
            if obj is None:
                continue
            obj.advance(g)
            same = bool(use.update) and all(obj.props.get(k) == v for k, v in use.update)
            if obj.overlapping(g, g + t, same) >= 1:
                return self._fail(Check.OCCUPIED, a, i, f"{use.obj} is occupied when {name} starts at "
                                  f"{fmt_clock(g)}", (a.recipe, use.obj), g)
            for key, need in use.require:
                have = obj.props.get(key)
                if _lacks(key, have, need):
                    return self._fail(Check.PROPERTY, a, i, f"{name} needs {use.obj} {key} "
                                      f"{'at least ' if key == 'volume' else '= '}{_show(need)} at {fmt_clock(g)}; "
                                      f"it is {_show(have)}", (a.recipe, use.obj, key, _show(need), _show(have)), g)
        return self._goal_check(a, i, spec, name)

    def _goal_check(self, a: OAction, i: int, spec: OStep, name: str) -> Optional[Failure]:
        states = self.steps[a.recipe]
        me = states[a.step]
        g, t = a.start, a.time
        for other, limit in spec.lags:
            fin = states[other].finished
            if fin is not None and g - fin > limit:
                return self._fail(Check.TIME_CONSTRAINT, a, i, f"{name} starts {_secs(g - fin)} after step "
                                  f"{other} of {a.recipe} ended (at {fmt_clock(fin)}; checked at every chunk); "
                                  f"the limit is {_secs(limit)}", (a.recipe,))
        if t > me.time_left:
            if me.time_left == 0:
                return self._fail(Check.ALREADY_DONE, a, i, f"{name} is already executed", (a.recipe,))
            if me.finished and me.finished < g:
                return self._fail(Check.ALREADY_RUNNING, a, i, f"{name} is already executing and finishes at "
                                  f"{fmt_clock(me.finished)}", (a.recipe,), me.finished)
            return self._fail(Check.TOO_LONG, a, i, f"{name} is given {_secs(t)} but needs only "
                              f"{_secs(me.time_left)} more", (a.recipe,))
        if me.time_left != t and not spec.interrupt:
            return self._fail(Check.NOT_INTERRUPTIBLE, a, i, f"{name} cannot be interrupted: it must be given "
                              f"exactly {_secs(me.time_left)}, not {_secs(t)}", (a.recipe,))
        for pre in spec.prereqs:
            p = states[pre]
            if not p.completed:
                return self._fail(Check.PREREQ_NOT_COMPLETED, a, i, f"{name} needs step {pre} of {a.recipe}, "
                                  "which is not completed", (a.recipe,))
            fin = p.finished if p.finished is not None else float("inf")     # (completed: always set)
            if not fin <= g:
                return self._fail(Check.PREREQ_NOT_FINISHED, a, i, f"{name} starts at {fmt_clock(g)} but its "
                                  f"prerequisite step {pre} of {a.recipe} finishes at {fmt_clock(fin)}",
                                  (a.recipe,), fin)
        return None

    # -------------------------------------------------------------------------------- execution
    def execute(self, a: OAction) -> None:
        spec = self.model.steps_of(a.recipe)[a.step]   # type: ignore[index]  # checked: a known recipe
        me = self.steps[a.recipe][a.step]
        g, t = a.start, a.time
        me.time_left -= t
        if me.time_left <= 0:
            me.time_left = 0
            if not me.completed:
                me.completed = True
                counted = self.counted[a.recipe]
                counted.add(a.step)
                counted.update(spec.prereqs)
        me.finished = t + g
        if not spec.parallel:
            self.last_continuous = (g, g + t)
            self.cursor = g + t
        for use in spec.uses:
            obj = self.objects.get(use.obj)
            if obj is None:
                continue
            obj.add(g, g + t)
            for key, value in use.update:
                obj.props[key] = value
            need = dict(use.require).get("volume")
            if need is not None and obj.props.get("volume") is not None:
                obj.props["volume"] -= need
        self.executed += 1
        end = g + t
        self.max_end = end if self.max_end is None or end > self.max_end else self.max_end
        self.sum_time += t

    def outcome(self, failure: Optional[Failure]) -> Outcome:
        complete, missing, counted, total, par = [], [], 0, 0, 0
        for name, steps in self.model.recipes:
            got = self.counted[name]
            counted += len(got)
            total += len(steps)
            complete.append(len(got) == len(steps))
            missing += [(name, k) for k in range(len(steps)) if k not in got]
            par += sum(s.time for s, st in zip(steps, self.steps[name]) if s.parallel and st.completed)
        return Outcome(self.executed, failure, counted, total, tuple(complete), tuple(missing), self.max_end,
                       self.sum_time, par)


def _lacks(key: str, have: Any, need: Any) -> bool:
    """The original's test of one required property ("volume" is an amount that must suffice; a comparison
    that raises is a failed check there too, as its object errors are caught and reported)."""
    if key != "volume":
        return have != need
    try:
        return have is None or have < need
    except TypeError:
        return True


def _show(v: Any) -> str:
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{float(v):g}"
    return str(v)


def _secs(x: Num) -> str:
    if not isfinite(x):
        return f"{x} s"
    return f"{int(x)} s" if float(x).is_integer() else f"{float(x):g} s"


def run(model: Model, actions: Sequence[OAction]) -> Outcome:
    """Execute ``actions`` (in the original's order) until the first failure."""
    state = _Run(model)
    for i, a in enumerate(actions):
        failure = state.check(a, i)
        if failure is not None:
            return state.outcome(failure)
        state.execute(a)
    return state.outcome(None)
