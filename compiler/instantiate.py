"""Scenario instantiation: IR ``Project`` + scenario name -> concrete numbers.

Input: a checked ``ir.Project`` and a scenario.  Output: ``ProcedureProblem`` (for step-level scenarios:
steps with ``Fraction`` durations in the scenario's time unit, resource instances, agents) and
``evaluate`` for any IR expression.  Constant overrides of the scenario apply here.

Resource instances: a global ``resource oven`` is one instance ``oven``.  A resource declared inside a
procedure is local to it; when several tasks of a scenario declare the same local name and the scenario does
not ``share`` it, the instances are suffixed ``_1``, ``_2``... in task order (TimeArena's convention);
shared or unique names stay plain, and a shared name is one single object of capacity 1 whatever the
declarations say (TimeArena's resource constraint: one pot for all tasks, even where a task had two).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

import sympy

from chronoplan.compiler import ir


class InstantiationError(ValueError):
    """A scenario cannot be turned into numbers (should have been caught by the checker)."""


def constant_values(project: ir.Project, scenario: Optional[ir.Scenario] = None) -> dict:
    """Symbol -> sympy value for every constant, with the scenario's overrides applied."""
    exprs = {name: c.expr for name, c in project.constants.items()}
    if scenario is not None:
        exprs.update(dict(scenario.overrides))
    values: dict = {}
    # constants may refer to earlier constants; resolve by repeated substitution (acyclic by checking)
    pending = dict(exprs)
    for _ in range(len(pending) + 1):
        progressed = False
        for name, e in list(pending.items()):
            e2 = e.xreplace(values)
            if not (e2.free_symbols - {ir.SECOND}):
                values[sympy.Symbol(name)] = e2
                del pending[name]
                progressed = True
        if not progressed:
            break
    return values


def unit_factor(unit: ir.TimeUnit) -> dict:
    """Substitution for the SECOND symbol in scenario unit ``unit`` (ticks: no seconds allowed)."""
    if unit.seconds is None:
        return {}
    return {ir.SECOND: sympy.Rational(1, unit.seconds)}


def evaluate(expr: Any, values: dict, unit: ir.TimeUnit, bindings: Optional[dict] = None) -> Fraction:
    """Evaluate an IR expression to an exact Fraction in ``unit``; raise InstantiationError if it fails."""
    if expr is None:
        raise InstantiationError("no expression")
    e = sympy.sympify(expr) if isinstance(expr, (int, Fraction)) else expr  # numbers only, never text
    if bindings:
        e = e.xreplace(bindings)
    e = e.xreplace(values).xreplace(unit_factor(unit))
    if ir.SECOND in e.free_symbols:
        raise InstantiationError("a time with a unit is used in a scenario measured in unitless ticks")
    e = sympy.simplify(e) if e.free_symbols or not e.is_Number else e
    if e.free_symbols:
        raise InstantiationError(f"unresolved symbols: {', '.join(sorted(map(str, e.free_symbols)))}")
    try:
        return ir.to_fraction(e)
    except ValueError as exc:
        raise InstantiationError(str(exc)) from None


@dataclass(frozen=True)
class ResourceInstance:
    name: str
    capacity: int
    properties: tuple[tuple[str, Any], ...]   # initial property values
    declared: str                             # the declared (unsuffixed) name
    initial: Optional[str] = None             # ``initial x = state`` of its procedure (an instruction shows it)
    task_only: Optional[str] = None           # ``private x`` suffixed in a combination: the task it belongs to


@dataclass(frozen=True)
class ConcreteUse:
    resource: str                             # instance name
    needs: tuple[tuple[str, Any], ...]
    sets: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class ConcreteLag:
    other: int
    min: Optional[Fraction]
    max: Optional[Fraction]


@dataclass(frozen=True)
class SchedStep:
    task: str
    index: int
    text: str
    duration: Fraction
    occupancy: ir.Occupancy
    occupy_for: Fraction                      # agent-busy units from the start (0 .. duration)
    interruptible: bool
    prerequisites: tuple[int, ...]
    lags: tuple[ConcreteLag, ...]
    uses: tuple[ConcreteUse, ...]
    release: Optional[Fraction]
    deadline: Optional[Fraction]
    verb: Optional[str] = None                # the key of the domain's verb the text fits (``verb`` declarations)

    @property
    def key(self) -> tuple[str, int]:
        return (self.task, self.index)

    def occupation(self, d: Optional[Fraction] = None) -> Fraction:
        """How long the step's agent is busy from its start, for a chunk of length ``d`` (default: the whole
        step): all of it (continuous), nothing (autonomous), or its first ``occupy_for`` (occupies).  The one
        statement of the rule for the engines, the metrics and the PDDL export."""
        d = self.duration if d is None else d
        if self.occupancy is ir.Occupancy.CONTINUOUS:
            return d
        if self.occupancy is ir.Occupancy.START:
            return d - d                        # zero of d's type (int in the whole-number replay)
        return min(self.occupy_for, d)


@dataclass(frozen=True)
class ProcedureProblem:
    scenario: str
    time_unit: ir.TimeUnit
    agents: tuple[str, ...]
    tasks: tuple[str, ...]
    steps: tuple[SchedStep, ...]
    resources: tuple[ResourceInstance, ...]
    limit: Optional[Fraction]
    occupancy: ir.OccupancyRule = ir.OccupancyRule.OVERLAP    # may a step start while its agent is busy?
    verbs: tuple[ir.Verb, ...] = ()                           # the domain's verbs (instructions, feedback)
    titles: tuple[tuple[str, Optional[str]], ...] = ()         # (task, its procedure's title)

    def step(self, task: str, index: int) -> Optional[SchedStep]:
        return self._index().get((task, index))

    def task_steps(self, task: str) -> tuple[SchedStep, ...]:
        return tuple(s for s in self.steps if s.task == task)

    def numbers(self) -> list:
        """Every time quantity of the problem (durations, occupations, lags, release/deadline, limit)."""
        xs = []
        for s in self.steps:
            xs += [s.duration, s.occupy_for]
            xs += [v for lag in s.lags for v in (lag.min, lag.max) if v is not None]
            xs += [v for v in (s.release, s.deadline) if v is not None]
        if self.limit is not None:
            xs.append(self.limit)
        return [Fraction(x) for x in xs]

    def grid(self) -> tuple[int, int]:
        """(scale, g): the smallest integer ``scale`` that makes every number of the problem whole, and the
        greatest common divisor ``g`` of those whole numbers (1 when they are all 0); every number is a multiple
        of ``g / scale`` (the CP-SAT time grid; the PDDL export's integer time scale)."""
        xs = self.numbers()
        scale = 1
        for x in xs:
            scale = scale * x.denominator // math.gcd(scale, x.denominator)
        g = 0
        for x in xs:
            g = math.gcd(g, abs(int(x * scale)))
        return scale, g or 1

    def resource(self, name: str) -> Optional[ResourceInstance]:
        for r in self.resources:
            if r.name == name:
                return r
        return None

    def memo(self, name: str, build):
        """``build(self)``, computed once and kept on this (frozen) problem under ``name``: the one home for
        the tables engines and graders derive from a problem (step index, compiled sweep, bounds, caches)."""
        value = self.__dict__.get(name)
        if value is None:
            value = build(self)
            object.__setattr__(self, name, value)
        return value

    def _index(self) -> dict:
        return self.memo("_idx", _step_index)


def _step_index(problem: ProcedureProblem) -> dict:
    return {s.key: s for s in problem.steps}


def _prop_value(v: Any, values: dict, unit: ir.TimeUnit) -> Any:
    if isinstance(v, sympy.Basic):
        return evaluate(v, values, unit)
    return v


def procedure_problem(project: ir.Project, scenario: ir.Scenario) -> ProcedureProblem:  # noqa: C901
    """Instantiate a step-level scenario (one listing ``procedures``; InstantiationError for any other)."""
    if not scenario.procedures:
        raise InstantiationError(f"scenario {scenario.name} lists no procedures (it is not a step-level scenario)")
    project = project.part(scenario.name)
    unit = scenario.time_unit
    values = constant_values(project, scenario)
    tasks = scenario.procedures
    agents = tuple(a.name for a in scenario.agents) or ("agent1",)

    # local resource naming
    local_count: dict = {}
    for t in tasks:
        for r in project.procedures[t].local_resources:
            local_count[r.name] = local_count.get(r.name, 0) + 1
    instances: dict = {}
    local_names: dict = {}          # (task, declared) -> instance name
    seen: dict = {}
    for t in tasks:
        for r in project.procedures[t].local_resources:
            if r.name in scenario.shared or local_count[r.name] == 1:
                inst = r.name
            else:
                seen[r.name] = seen.get(r.name, 0) + 1
                inst = f"{r.name}_{seen[r.name]}"
            local_names[(t, r.name)] = inst
            if inst not in instances:
                capacity = 1 if r.name in scenario.shared else r.capacity   # one single shared object
                proc = project.procedures[t]
                instances[inst] = ResourceInstance(
                    inst, capacity, tuple((p.name, _prop_value(p.default, values, unit)) for p in r.properties),
                    r.name, dict(proc.initial).get(r.name),
                    t if inst != r.name and r.name in proc.private else None)
    used_globals = []
    for t in tasks:
        for s in project.procedures[t].steps:
            for u in s.uses:
                if (t, u.resource) not in local_names and u.resource not in used_globals:
                    used_globals.append(u.resource)
    for name in used_globals:
        r = project.resources[name]
        instances[name] = ResourceInstance(
            name, r.capacity, tuple((p.name, _prop_value(p.default, values, unit)) for p in r.properties), name)

    steps = []
    for t in tasks:
        for s in project.procedures[t].steps:
            dur = evaluate(s.duration, values, unit)
            if s.occupancy is ir.Occupancy.CONTINUOUS:
                occ = dur
            elif s.occupancy is ir.Occupancy.START:
                occ = Fraction(0)
            else:
                occ = min(dur, evaluate(s.occupy_for, values, unit))
            lags = tuple(ConcreteLag(
                lg.other,
                None if lg.min is None else evaluate(lg.min, values, unit),
                None if lg.max is None else evaluate(lg.max, values, unit)) for lg in s.lags)
            uses = tuple(ConcreteUse(
                local_names.get((t, u.resource), u.resource),
                tuple((k, _prop_value(v, values, unit)) for k, v in u.needs),
                tuple((k, _prop_value(v, values, unit)) for k, v in u.sets)) for u in s.uses)
            steps.append(SchedStep(
                t, s.index, s.text, dur, s.occupancy, occ, s.interruptible, s.prerequisites, lags, uses,
                None if s.release is None else evaluate(s.release, values, unit),
                None if s.deadline is None else evaluate(s.deadline, values, unit), s.verb))
    limit = None if scenario.limit is None else evaluate(scenario.limit, values, unit)
    return ProcedureProblem(scenario.name, unit, agents, tasks, tuple(steps), tuple(instances.values()), limit,
                            scenario.occupancy, tuple(project.verbs.values()),
                            tuple((t, project.procedures[t].title) for t in tasks))
