"""Observation rules compiled once to closures over a household world (issue #13).

Input: the household's ``ir.ObserveRule`` tuple (``see var: type when formula``) and a ``World``: any object
with the built-in relations as methods (the engine's state).  Output: ``compile_rules(rules, world)`` -> a
``Visibility``, called as ``visible(agent) -> set of names`` (every object some rule shows the agent, the agent
itself excluded; ``visible.many(agents)`` for several at once), evaluated against the world's current state
each time it is called.

Formulas: ``Atom`` over the built-in relations of ``compiler.builtins.OBSERVE_RELATIONS`` (``same_room/2``,
``inside/2``, ``on/2``, ``closed/1``, ``holds/2``, ``near/2``, ``explored/1``, ``is/2``); ``Not``, ``And``,
``Or``, ``Const_``, ``Exists`` (over a type, as in rules), ``Compare`` with ``==``/``!=`` between names.  An
argument is a variable in scope (the rule's variable, ``self``, a quantified variable) or a constant name.
An unknown relation or arity raises ``ObserveError`` (the checker reports it first, located).

Evaluation shortcuts (same results, fewer relation calls; the relations are pure functions of the world's
state, so evaluating a rule's conjuncts in another order changes nothing but the work done):

- a rule's conjuncts that do not mention its variable (``explored(self)``) are evaluated once per agent,
  before its candidates;
- a conjunct ``same_room(self, var)`` (either order) restricts the candidates to the agent's room: the
  members of its type are grouped by room once per ``many`` call for all agents (a world's optional
  ``fixed_room(name)`` names the room of a member that never moves, which is then not asked again);
- ``exists(v: type where ... inside(y, v) ...)`` and ``exists(v: type where ... holds(v, y) ...)`` try the
  one ``v`` the world can name, ``world.location(y)`` (what ``y`` is directly in or held by), instead of every
  member of the type (the world's ``members`` are fixed for its lifetime); ``exists(v: type where ... on(y, v)
  ...)`` tries the chain ``location(y)``, ``location(location(y))``, ... (a thing in a basket on a table is on
  the table; the world's ``on`` holds for nothing else);
- ``miniscope``: a conjunct of an ``exists`` body that does not read its variable is evaluated outside it,
  once, not once per member (innermost ``exists`` first, so it moves as far out as it can);
- in a ``Visibility``, each ``exists`` remembers its value per binding of the variables it reads, until the
  next ``many`` call (a new state): nested ``exists`` cost the product of the sizes of what each one reads,
  not of every enclosing variable.

The formula analysis behind these shortcuts (``miniscope``, the witnesses) lives in
``compiler/household/observe_rules.py``, which also bounds a rule's cost per step from them (C111 at check).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Optional, Protocol

from chronoplan.compiler import ir
from chronoplan.compiler.builtins import OBSERVE_RELATIONS
from chronoplan.compiler.household.observe_rules import chain_witness as _chain_witness
from chronoplan.compiler.household.observe_rules import conjuncts as _conjuncts
from chronoplan.compiler.household.observe_rules import mentions as _mentions
from chronoplan.compiler.household.observe_rules import miniscope, witness

Env = dict
Pred = Callable[[Env], bool]
_witness = witness       # the inside/holds witness (a name a test replaces)
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
    def location(self, name: str) -> Optional[str]: ...


def _arg(name: str, scope: frozenset) -> Callable[[Env], str]:
    if name in scope:
        return lambda env: env[name]
    return lambda env: name


def _unary(fn: Callable[[str], bool], a: str, scope: frozenset) -> Pred:
    if a in scope:
        return lambda env: fn(env[a])
    return lambda env: fn(a)


def _binary(fn: Callable[[str, str], bool], a: str, b: str, scope: frozenset) -> Pred:
    """``fn(a, b)`` with each argument read from the environment (a variable) or fixed (a name)."""
    if a in scope and b in scope:
        return lambda env: fn(env[a], env[b])
    if a in scope:
        return lambda env: fn(env[a], b)
    if b in scope:
        return lambda env: fn(a, env[b])
    return lambda env: fn(a, b)


def _same_room(room: Callable[[str], str], a: str, b: str, scope: frozenset) -> Pred:
    if a in scope and b in scope:
        return lambda env: room(env[a]) == room(env[b])
    if a in scope:
        return lambda env: room(env[a]) == room(b)
    if b in scope:
        return lambda env: room(a) == room(env[b])
    return lambda env: room(a) == room(b)


def _atom(f: ir.Atom, world: World, scope: frozenset) -> Pred:
    if f.relation not in ARITY:
        raise ObserveError(f"unknown relation {f.relation} in an observe rule")
    if len(f.args) != ARITY[f.relation]:
        raise ObserveError(f"{f.relation} takes {ARITY[f.relation]} argument(s), got {len(f.args)}")
    if f.relation in ("explored", "closed"):
        return _unary(getattr(world, f.relation), f.args[0], scope)
    a, b = f.args
    if f.relation == "same_room":
        return _same_room(world.room_of, a, b, scope)
    if f.relation == "is":
        getter_a, getter_b = _arg(a, scope), _arg(b, scope)
        return lambda env: getter_a(env) == getter_b(env)
    return _binary(getattr(world, f.relation), a, b, scope)


def _exists(f: ir.Exists, world: World, scope: frozenset, memos: Optional[list] = None) -> Pred:
    body = compile_formula(f.formula, world, scope | {f.var}, memos)
    var, members = f.var, world.members
    y, chain = _witness(f), False
    if y is None:
        y, chain = _chain_witness(f), True
    if y is not None:
        return _witnessed(f, world, body, y, chain, y in scope)

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
    if memos is None:
        return pred
    free = tuple(v for v in sorted(scope) if v != var and _mentions(f.formula, v))
    memo: dict = {}
    memos.append(memo)

    def remembered(env: Env) -> bool:
        key = tuple(env[v] for v in free)
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = pred(env)
        return hit
    return remembered


def _witnessed(f: ir.Exists, world: World, body: Pred, y: str, chain: bool, y_var: bool) -> Pred:
    """``exists v`` trying only what ``y`` is directly in or held by (``location(y)``) or, with ``chain``
    (an ``on(y, v)`` conjunct), also what that basket is in or on, and so on up (a thing in a basket on a
    table is on the table)."""
    var, location = f.var, world.location
    allowed = frozenset(world.members(f.type))
    if not chain:
        def one(env: Env) -> bool:
            c = location(env[y] if y_var else y)
            if c is None or c not in allowed:
                return False
            saved = env.get(var)
            env[var] = c
            try:
                return bool(body(env))
            finally:
                env[var] = saved
        return one

    def up(env: Env) -> bool:
        seen: set = set()
        c = location(env[y] if y_var else y)
        saved = env.get(var)
        try:
            while c is not None and c not in seen:
                if c in allowed:
                    env[var] = c
                    if body(env):
                        return True
                seen.add(c)
                c = location(c)
            return False
        finally:
            env[var] = saved
    return up


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


def compile_formula(f: ir.Formula, world: World, scope: frozenset, memos: Optional[list] = None) -> Pred:
    """A formula -> a predicate over an environment of variable bindings.  With ``memos`` (a list), every
    ``exists`` remembers its value per binding of the variables it reads in a dict appended to it: the caller
    clears them whenever the world's state may have changed."""
    if isinstance(f, ir.Atom):
        return _atom(f, world, scope)
    if isinstance(f, ir.Not):
        inner = compile_formula(f.arg, world, scope, memos)
        return lambda env: not inner(env)
    if isinstance(f, (ir.And, ir.Or)):
        parts = tuple(compile_formula(g, world, scope, memos) for g in f.args)
        return _and(parts) if isinstance(f, ir.And) else _or(parts)
    if isinstance(f, ir.Const_):
        value = f.value
        return lambda env: value
    if isinstance(f, ir.Exists):
        return _exists(f, world, scope, memos)
    if isinstance(f, ir.Compare):
        return _compare(f, scope)
    raise ObserveError(f"unsupported formula {type(f).__name__} in an observe rule")


def _same_room_var(f: ir.Formula, var: str) -> bool:
    return isinstance(f, ir.Atom) and f.relation == "same_room" and set(f.args) == {"self", var} and var != "self"


def _compile_rule(rule: ir.ObserveRule, world: World, memos: list) -> tuple[str, Optional[Pred], bool, Pred]:
    """(type, guard over self only or None, same-room restriction, predicate over the rule's variable)."""
    scope = frozenset({rule.var, "self"})
    parts = _conjuncts(miniscope(rule.when))
    local = any(_same_room_var(g, rule.var) for g in parts)
    rest = [g for g in parts if not _same_room_var(g, rule.var)]
    guards = [g for g in rest if not _mentions(g, rule.var)]
    body = [g for g in rest if _mentions(g, rule.var)]
    guard = _and(tuple(compile_formula(g, world, scope, memos) for g in guards)) if guards else None
    pred = _and(tuple(compile_formula(g, world, scope, memos) for g in body)) if body else (lambda env: True)
    return rule.type, guard, local, pred


class Visibility:
    """Compiled rules: ``vis(agent)`` -> the names some rule shows ``agent``; ``vis.many(agents)`` -> the same
    per agent, with the members of the same-room rules' types grouped by room once for all of them."""

    def __init__(self, rules: Iterable[ir.ObserveRule], world: World) -> None:
        self.memos: list[dict] = []              # the exists memos: valid for one state, cleared by many()
        self.rules = [(r.var, *_compile_rule(r, world, self.memos)) for r in rules]
        self.world = world
        local_types = dict.fromkeys(t for _v, t, _g, local, _p in self.rules if local)
        fixed_room = getattr(world, "fixed_room", lambda name: None)
        # per type of a same-room rule: its members, each with its room when that can never change
        self.local_members = tuple((t, tuple((o, fixed_room(o)) for o in world.members(t))) for t in local_types)

    def __call__(self, agent: str) -> set:
        return self.many((agent,))[agent]

    def many(self, agents: Iterable[str]) -> dict[str, set]:
        for memo in self.memos:
            memo.clear()
        world = self.world
        members, room_of = world.members, world.room_of
        by_room: dict[str, dict[str, list[str]]] = {}
        for type_name, fixed in self.local_members:     # members order kept inside each room
            rooms: dict[str, list[str]] = {}
            for o, room in fixed:
                rooms.setdefault(room if room is not None else room_of(o), []).append(o)
            by_room[type_name] = rooms
        out: dict[str, set] = {}
        for agent in agents:
            seen: set = set()
            env: Env = {"self": agent}
            here: Optional[str] = None
            for var, type_name, guard, local, pred in self.rules:
                if guard is not None and not guard(env):
                    continue
                if local:
                    if here is None:
                        here = room_of(agent)
                    candidates: Iterable[str] = by_room[type_name].get(here, ())
                else:
                    candidates = members(type_name)
                for o in candidates:
                    if o == agent or o in seen:
                        continue
                    env[var] = o
                    if pred(env):
                        seen.add(o)
            out[agent] = seen
        return out


def compile_rules(rules: Iterable[ir.ObserveRule], world: World) -> Visibility:
    """The rules -> ``Visibility``: ``visible(agent)`` is the set of names some rule shows ``agent`` in the
    world's current state (``visible.many(agents)``: a dict of them)."""
    return Visibility(rules, world)
