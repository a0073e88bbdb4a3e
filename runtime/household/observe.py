"""Observation rules compiled once to closures over a household world (issue #13).

Input: the household's ``ir.ObserveRule`` tuple (``see var: type when formula``) and a ``World``: any object
with the built-in relations as methods (the engine's state).  Output: ``compile_rules(rules, world)`` -> a
function ``visible(agent) -> set of names`` (every object some rule shows the agent, the agent itself
excluded), evaluated against the world's current state each time it is called.

Formulas: ``Atom`` over the built-in relations of ``compiler.builtins.OBSERVE_RELATIONS`` (``same_room/2``,
``inside/2``, ``on/2``, ``closed/1``, ``holds/2``, ``near/2``, ``explored/1``, ``is/2``); ``Not``, ``And``,
``Or``, ``Const_``, ``Exists`` (over a type, as in rules), ``Compare`` with ``==``/``!=`` between names.  An
argument is a variable in scope (the rule's variable, ``self``, a quantified variable) or a constant name.
An unknown relation or arity raises ``ObserveError`` (the checker reports it first, located).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from chronoplan.compiler import ir
from chronoplan.compiler.builtins import OBSERVE_RELATIONS

Env = dict
Pred = Callable[[Env], bool]
ARITY = {name: rel.arity for name, rel in OBSERVE_RELATIONS.items()}   # declared once in compiler/builtins.py


class ObserveError(ValueError):
    """A rule the engine cannot evaluate (unknown relation, wrong arity, unsupported comparison)."""


class World(Protocol):
    def room_of(self, name: str) -> str: ...
    def inside(self, x: str, c: str) -> bool: ...
    def on(self, x: str, s: str) -> bool: ...
    def closed(self, c: str) -> bool: ...
    def holds(self, a: str, x: str) -> bool: ...
    def near(self, a: str, p: str) -> bool: ...
    def explored(self, a: str) -> bool: ...
    def members(self, type_name: str) -> tuple[str, ...]: ...


def _arg(name: str, scope: frozenset) -> Callable[[Env], str]:
    if name in scope:
        return lambda env: env[name]
    return lambda env: name


def _atom(f: ir.Atom, world: World, scope: frozenset) -> Pred:
    if f.relation not in ARITY:
        raise ObserveError(f"unknown relation {f.relation} in an observe rule")
    if len(f.args) != ARITY[f.relation]:
        raise ObserveError(f"{f.relation} takes {ARITY[f.relation]} argument(s), got {len(f.args)}")
    getters = [_arg(a, scope) for a in f.args]
    if f.relation in ("explored", "closed"):
        one = getattr(world, f.relation)
        g0 = getters[0]
        return lambda env: one(g0(env))
    a, b = getters
    if f.relation == "same_room":
        room = world.room_of
        return lambda env: room(a(env)) == room(b(env))
    if f.relation == "is":
        return lambda env: a(env) == b(env)
    two = getattr(world, f.relation)
    return lambda env: two(a(env), b(env))


def _exists(f: ir.Exists, world: World, scope: frozenset) -> Pred:
    body = compile_formula(f.formula, world, scope | {f.var})
    var, members = f.var, world.members

    def pred(env: Env) -> bool:
        saved = env.get(var)
        try:
            for o in members(f.type):
                env[var] = o
                if body(env):
                    return True
            return False
        finally:
            env[var] = saved
    return pred


def _compare(f: ir.Compare, scope: frozenset) -> Pred:
    if f.op not in ("==", "!=") or f.left.kind != ir.TermKind.VAR or f.right.kind != ir.TermKind.VAR:
        raise ObserveError(f"observe rules compare names with == or != only, not {f.op}")
    a, b = _arg(f.left.name, scope), _arg(f.right.name, scope)
    if f.op == "==":
        return lambda env: a(env) == b(env)
    return lambda env: a(env) != b(env)


def _and(parts: tuple) -> Pred:
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        p0, p1 = parts
        return lambda env: p0(env) and p1(env)
    return lambda env: all(p(env) for p in parts)


def _or(parts: tuple) -> Pred:
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        p0, p1 = parts
        return lambda env: p0(env) or p1(env)
    return lambda env: any(p(env) for p in parts)


def compile_formula(f: ir.Formula, world: World, scope: frozenset) -> Pred:
    """A formula -> a predicate over an environment of variable bindings."""
    if isinstance(f, ir.Atom):
        return _atom(f, world, scope)
    if isinstance(f, ir.Not):
        inner = compile_formula(f.arg, world, scope)
        return lambda env: not inner(env)
    if isinstance(f, (ir.And, ir.Or)):
        parts = tuple(compile_formula(g, world, scope) for g in f.args)
        return _and(parts) if isinstance(f, ir.And) else _or(parts)
    if isinstance(f, ir.Const_):
        value = f.value
        return lambda env: value
    if isinstance(f, ir.Exists):
        return _exists(f, world, scope)
    if isinstance(f, ir.Compare):
        return _compare(f, scope)
    raise ObserveError(f"unsupported formula {type(f).__name__} in an observe rule")


def compile_rules(rules: Iterable[ir.ObserveRule], world: World) -> Callable[[str], set]:
    """The rules -> ``visible(agent)``: the names some rule shows ``agent`` in the world's current state."""
    compiled = [(r.var, r.type, compile_formula(r.when, world, frozenset({r.var, "self"}))) for r in rules]
    members = world.members

    def visible(agent: str) -> set:
        seen: set = set()
        env: Env = {"self": agent}
        for var, type_name, pred in compiled:
            for o in members(type_name):
                if o == agent or o in seen:
                    continue
                env[var] = o
                if pred(env):
                    seen.add(o)
        return seen
    return visible
