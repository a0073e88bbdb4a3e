"""Sequential execution of a world's actions: the kitchen's action semantics without a map.

Input: a ``compiler.world.problem.WorldProblem``.  Output: ``WorldEngine`` with
- ``initial()`` -> a fresh ``runtime.kitchen.state.State`` (the world's objects and ``init`` facts; every other
  fact false, attributes at their defaults);
- ``action(name)`` -> the ``WorldAction`` of that name (case-insensitive, as PDDL names are), or None;
- ``failures(st, act, args)`` -> the precondition conjuncts that do not hold, as ``Failure`` values (each with
  the ground atom it is about, so a grader can say which earlier step changed it);
- ``apply(st, act, args)`` -> the facts the step changed, as ``((relation, args), now_true)`` pairs;
- ``run(st, act, args)`` -> both at once for a grader: (the failures, the facts changed when there are none);
- ``goal`` (the goal's top-level conjuncts) and ``goal_holds(st)`` -> one bool per conjunct.
Formulas and effects are compiled by ``runtime.kitchen.logic.Compiler`` (``Statics`` without a grid): one
action semantics for kitchens and worlds.  An action is instantaneous: its conditions (``when start``, ``all``
and ``end``) are tested in the state before it, then its effects (``at start`` and ``at end``) are applied,
all grounded in that state, deletes before adds (PDDL's rule: a fact both deleted and added holds after).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

from chronoplan.compiler import ir
from chronoplan.compiler.world.problem import WorldProblem
from chronoplan.runtime.kitchen.logic import Compiler, Statics, conjuncts, literal, show_formula
from chronoplan.runtime.kitchen.state import State


@dataclass(frozen=True)
class Failure:
    """A precondition conjunct that does not hold: ``text`` shows it ground; ``fact`` is the ground atom it tests
    (``(relation, args)``) and ``wanted`` its truth value the conjunct needs, when the conjunct is a literal."""

    text: str
    fact: Optional[tuple] = None
    wanted: bool = True


@dataclass(frozen=True)
class WorldAction:
    name: str
    params: tuple            # ((name, type), ...)
    tests: tuple             # ((ir formula, closure), ...): the precondition conjuncts in declared order
    effects: Callable        # apply(st, env, t, hooks)

    def env(self, args: tuple) -> dict:
        return {p: a for (p, _), a in zip(self.params, args)}


class WorldEngine:
    def __init__(self, problem: WorldProblem) -> None:
        self.problem = problem
        defaults = {n: (None if a.default is None else literal(a.default, a)) for n, a in problem.attributes.items()}
        self._defaults = defaults
        self.compiler = Compiler(Statics(None, {}, {}, problem.ancestors, problem.relations), problem.attributes)
        self.actions = {name: self._compile(a) for name, a in problem.actions.items()}
        self._folded = {name.lower(): act for name, act in self.actions.items()}
        self.goal = tuple(conjuncts(problem.goal))
        self._goal_tests = [self.compiler.test(g, {}) for g in self.goal]
        self.objects = problem.objects

    def _compile(self, a: ir.Action) -> WorldAction:
        vars = {p.name: p.type for p in a.params}
        tests = tuple((f, self.compiler.test(f, vars)) for c in a.conditions for f in conjuncts(c.formula))
        effects = self.compiler.effects([e.effect for e in a.effects], vars, _no_delay)
        return WorldAction(a.name, tuple((p.name, p.type) for p in a.params), tests, effects)

    def initial(self) -> State:
        p = self.problem
        st = State(p.ancestors, p.relations, self._defaults)
        for name, typ in p.objects.items():
            st.add_object(name, typ)
        for rel, args in p.init:
            st.rels[rel].add(tuple(args))
        return st

    def action(self, name: str) -> Optional[WorldAction]:
        return self.actions.get(name) or self._folded.get(name.lower())

    def failures(self, st: State, act: WorldAction, args: tuple) -> list[Failure]:
        env = act.env(args)
        out = []
        for f, test in act.tests:
            if not test(st, env):
                out.append(_failure(f, env))
        return out

    def apply(self, st: State, act: WorldAction, args: tuple) -> list[tuple[tuple, bool]]:
        st.touched = []
        act.effects(st, act.env(args), 0, None)
        changed = [((rel, tup), tup in st.rels[rel].facts) for rel, tup in st.touched if rel in st.rels]
        st.touched = []
        return changed

    def run(self, st: State, act: WorldAction, args: tuple) -> tuple[list[Failure], list]:
        """``failures``, then (when there are none) the step applied: (failures, the facts it changed)."""
        env = act.env(args)
        fails = [_failure(f, env) for f, test in act.tests if not test(st, env)]
        if fails:
            return fails, []
        st.touched = []
        act.effects(st, env, 0, None)
        changed = [(rel, tup) for rel, tup in st.touched]
        st.touched = []
        return fails, changed

    def goal_holds(self, st: State) -> list[bool]:
        return [bool(t(st, {})) for t in self._goal_tests]


def _no_delay(expr, vars):  # pragma: no cover - the checker refuses delayed effects in worlds (C703)
    raise ValueError("delayed effects are not available in worlds")


def _failure(f: ir.Formula, env: dict) -> Failure:
    text = show_formula(f, env)
    if isinstance(f, ir.Atom):
        return Failure(text, (f.relation, tuple(env.get(a, a) for a in f.args)), True)
    if isinstance(f, ir.Not) and isinstance(f.arg, ir.Atom):
        return Failure(text, (f.arg.relation, tuple(env.get(a, a) for a in f.arg.args)), False)
    return Failure(text)
