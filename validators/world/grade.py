"""Grading a sequential plan against a world scenario (STRIPS/ADL semantics), reporting every problem.

Input: a compiled project, a world scenario and a plan (``read.read_world_plan``'s text or JSON).  Output:
``grade_world_plan(...)`` -> ``validators.report.Report``; ``grade_world`` is the family's grader
(``validators.families``).  Never raises on a plan.

Rules (docs/language.md, "Worlds"): the steps run in order from the scenario's initial state.  A step naming
an action the domain does not have is E110, an object the world does not have E111 (both with the nearest
name as hint: hallucinations), the wrong number of arguments E112, an argument of another type E211; each
precondition conjunct that does not hold is one E210, saying which earlier step made it false (or true, for a
negative conjunct) or that it never held.  A step with an error is skipped (no effects) and grading goes on,
so every problem of the plan is reported; the *executable prefix* is the steps before the first error.  The
goal is judged in the state after that prefix (where VAL stops): each top-level goal conjunct that does not
hold is one E710.  Names are matched case-insensitively (PDDL names are).

Metrics: ``valid``-ity is the report's; ``success`` (valid: every step ran and the goal holds), ``goal_reached``,
``plan_length``, ``prefix_length``, ``goal_fraction`` (goal conjuncts satisfied / all), ``goal_conjuncts``,
``makespan`` (the plan length when valid: one time unit per step, else None).
"""
from __future__ import annotations

from typing import Any, Optional

from chronoplan.compiler import ir
from chronoplan.compiler.diagnostics import nearest
from chronoplan.compiler.world.problem import WorldError, WorldProblem
from chronoplan.runtime.kitchen.logic import show_formula
from chronoplan.runtime.world.engine import WorldEngine
from chronoplan.validators.report import PlanError, Report, error_report
from chronoplan.validators.world.read import Step, read_world_plan

FORMAT = "world"
METRICS = ("makespan", "success", "goal_reached", "plan_length", "prefix_length", "goal_fraction", "goal_conjuncts")


def empty_metrics() -> dict:
    return {"makespan": None, "success": False, "goal_reached": False, "plan_length": 0, "prefix_length": 0,
            "goal_fraction": 0.0, "goal_conjuncts": 0}


def grade_world(grader: Any, scen: ir.Scenario, plan: Any, fmt: Optional[str], first: bool, name: str,
                reference: Any) -> Report:
    """The world family's grader (``validators.families``): ``plan`` is PDDL plan text or a JSON action list."""
    if fmt not in (None, FORMAT):
        return error_report(name, scen.name, "E012", f"a {fmt} plan cannot be graded against the world scenario "
                            f"{scen.name}: its plans are action sequences (--plan-format {FORMAT})",
                            "write one (action args) per line, or a JSON list", empty_metrics())
    cache = grader.__dict__.setdefault("_world_engines", {})
    engine = cache.get(scen.name)
    if engine is None:
        engine = cache[scen.name] = WorldEngine(WorldProblem.of(grader.project, scen))
    return grade_world_plan(engine, plan, name=name, first=first)


def engine_for(project: ir.Project, scenario: str) -> WorldEngine:
    """The engine of a world scenario (``WorldError`` if it is not one)."""
    return WorldEngine(WorldProblem.of(project, scenario))


def grade_world_plan(engine: WorldEngine, plan: Any, *, name: str = "<plan>", first: bool = False) -> Report:
    """Grade ``plan`` (text or a decoded JSON value) on ``engine``'s world (see the module docstring)."""
    scen = engine.problem.scenario.name
    read = read_world_plan(plan.value if hasattr(plan, "value") and not isinstance(plan, (str, list, dict))
                           else plan)
    if read.too_large or (read.errors and not read.steps and all(e.index is None for e in read.errors)):
        return Report(False, name, scen, read.errors, dict(empty_metrics(), goal_conjuncts=len(engine.goal)))
    return _Grading(engine, first).run(read, name, scen)


class _Grading:
    def __init__(self, engine: WorldEngine, first: bool) -> None:
        self.engine, self.first = engine, first
        self.objects = {o.lower(): o for o in engine.objects}
        self.errors: list[PlanError] = []

    def run(self, read, name: str, scen: str) -> Report:
        eng = self.engine
        st = eng.initial()
        changed_by: dict = {}                 # ground fact -> the step that last changed it
        self.errors = list(read.errors)
        unreadable = min((e.index for e in read.errors if e.index is not None), default=None)
        at_prefix = None                      # the state after the executable prefix, once a step breaks it
        prefix = 0
        for step in read.steps:
            if self.first and self.errors:
                break
            if at_prefix is None and unreadable is not None and unreadable < step.index:
                at_prefix = st.snapshot()
            if self._step(st, step, changed_by):
                prefix += at_prefix is None
            elif at_prefix is None:
                at_prefix = st.snapshot()     # a failing step changes nothing: this is the prefix's state
        holds = eng.goal_holds(st if at_prefix is None else at_prefix)
        whole = at_prefix is None and not read.errors
        if not (self.first and self.errors):
            after = "the plan" if whole else f"the executable prefix ({prefix} steps)"
            for f, ok in zip(eng.goal, holds):
                if not ok:
                    self.errors.append(PlanError("E710", f"goal not reached: {show_formula(f, {})} does not hold "
                                                 f"after {after}", "add the steps that make it true"))
        n = len(holds)
        valid = not self.errors
        metrics = {"makespan": len(read.steps) if valid else None, "success": valid, "goal_reached": all(holds),
                   "plan_length": len(read.steps), "prefix_length": prefix,
                   "goal_fraction": (sum(holds) / n) if n else 1.0, "goal_conjuncts": n}
        errors = self.errors[:1] if self.first else self.errors
        return Report(valid, name, scen, tuple(errors), metrics)

    def _step(self, st, step: Step, changed_by: dict) -> bool:
        eng = self.engine
        act = eng.action(step.name)
        if act is None:
            self.errors.append(PlanError("E110", f"step {step.index} {step.text}: the domain has no action "
                                         f"'{step.name}'", nearest(step.name, eng.actions, fold=True), step.index))
            return False
        objects = self.objects
        args = tuple([objects.get(a) or objects.get(a.lower()) for a in step.args])
        if len(args) != len(act.params) or None in args:
            return self._names(st, step, act, args)
        for (_pname, ptype), obj in zip(act.params, args):
            if not st.isa(obj, ptype):
                return self._types(st, step, act, args)
        fails, changed = eng.run(st, act, args)
        if fails:
            for f in fails:
                self.errors.append(PlanError("E210", f"step {step.index} {step.text}: precondition {f.text} does "
                                             "not hold", _why(f, changed_by), step.index))
            return False
        for fact in changed:
            changed_by[fact] = step
        return True

    def _names(self, st, step: Step, act, args: tuple) -> bool:
        """E112 and E111 for a step with the wrong number of arguments or unknown objects (always False)."""
        where = f"step {step.index} {step.text}"
        if len(step.args) != len(act.params):
            sig = f"({act.name} {' '.join(f'?{p}' for p, _ in act.params)})".replace(" )", ")")
            self.errors.append(PlanError("E112", f"{where}: '{act.name}' takes {len(act.params)} argument"
                                         f"{'s' * (len(act.params) != 1)}, got {len(step.args)}", sig, step.index))
        for a, obj in zip(step.args, args):
            if obj is None:
                self.errors.append(PlanError("E111", f"{where}: the world has no object '{a}'",
                                             nearest(a, self.engine.objects, fold=True), step.index))
        return False

    def _types(self, st, step: Step, act, args: tuple) -> bool:
        """E211 for each argument that is not of its parameter's type (always False)."""
        for (pname, ptype), obj in zip(act.params, args):
            if not st.isa(obj, ptype):
                self.errors.append(PlanError("E211", f"step {step.index} {step.text}: '{obj}' is a "
                                             f"{self.engine.objects[obj]}, parameter {pname} of '{act.name}' takes "
                                             f"a {ptype}", "", step.index))
        return False


def _why(f, changed_by: dict) -> str:
    if f.fact is None:
        return ""
    last = changed_by.get(f.fact)
    if last is None:
        return ("it was false from the start and no earlier step made it true" if f.wanted
                else "it was true from the start and no earlier step made it false")
    return f"step {last.index} {last.text} made it {'false' if f.wanted else 'true'}"


__all__ = ["FORMAT", "METRICS", "WorldError", "empty_metrics", "engine_for", "grade_world", "grade_world_plan"]
