"""Household observation rules: the rewrites their evaluation uses, and their worst-case cost (issue 28 item 11b).

Input: ``ir.ObserveRule`` formulas (``see var: type when formula``; ``self`` is the observing agent) and, for
the cost, the number of members of each type (``type_sizes(household, agents)``).  Output:

- ``conjuncts(f)``, ``mentions(f, var)``, ``miniscope(f)``, ``witness(exists)``, ``chain_witness(exists)``: the
  formula analysis the engine's evaluation (``runtime/household/observe.py``) is built on - one home, so
  that the cost below counts what the engine does;
- ``rule_cost(rule, sizes)``: an upper bound on the work of one step's evaluation of the rule for every agent
  (``Visibility.many``), counted as relation calls (``same_room``: 2, ``location``: 1) with every atom,
  comparison and remembered ``exists`` look-up at least 1, following the engine's shortcuts: after
  ``miniscope``, an ``exists`` with a witness tries at most 1 member (``inside``/``holds``) or 1 + the baskets
  (``on``: what ``y`` is in, or the basket it is in, ...); any other ``exists`` is computed at most once per
  binding of the variables it reads in a step, each time over every member of its type; the rule's own
  body runs once per agent and member of its type.  So nesting that only chains variables two at a time
  stays cheap, and a body that relates ``k`` variables to each other costs about ``|type|^k``;
- ``MAX_OBSERVE_COST``: the limit on that bound for the rules of one household scenario together (the
  checker reports C111 at the rule that crosses it, ``check/household.py``).
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Optional

from chronoplan.compiler import ir

# Relation calls per step for all the observe rules of a household scenario together: at the limit a step takes
# about 0.1 s of CPU at most (bench/bench_check_scaling.py, observe-*; docs/language.md, Limits).
MAX_OBSERVE_COST = 1_000_000
SELF = "self"


def conjuncts(f: ir.Formula) -> list[ir.Formula]:
    """A formula's top-level conjuncts, nested ``and`` flattened (the formula itself when it is no ``and``)."""
    if isinstance(f, ir.And):
        return [g for part in f.args for g in conjuncts(part)]
    return [f]


def mentions(f: ir.Formula, name: str) -> bool:
    """Does ``f`` read the variable ``name`` (not shadowed by an inner ``exists`` over the same name)?"""
    if isinstance(f, ir.Atom):
        return name in f.args
    if isinstance(f, ir.Not):
        return mentions(f.arg, name)
    if isinstance(f, (ir.And, ir.Or)):
        return any(mentions(g, name) for g in f.args)
    if isinstance(f, ir.Exists):
        return f.var != name and mentions(f.formula, name)
    if isinstance(f, ir.Compare):
        return name in (f.left.name, f.right.name)
    return False


def witness(f: ir.Exists) -> Optional[str]:
    """The argument ``y`` of a conjunct ``inside(y, v)`` or ``holds(v, y)`` of the body, which names the only
    ``v`` that can satisfy it (what ``y`` is directly in or held by: ``world.location(y)``), or None."""
    for g in conjuncts(f.formula):
        if isinstance(g, ir.Atom) and len(g.args) == 2:
            if g.relation == "inside" and g.args[1] == f.var and g.args[0] != f.var:
                return g.args[0]
            if g.relation == "holds" and g.args[0] == f.var and g.args[1] != f.var:
                return g.args[1]
    return None


def chain_witness(f: ir.Exists) -> Optional[str]:
    """The argument ``y`` of a conjunct ``on(y, v)`` of the body: only what ``y`` is directly on or in, or
    what the basket holding it is on (``location(y)``, ``location(location(y))``, ...) can satisfy it; None
    when the body has no such conjunct."""
    for g in conjuncts(f.formula):
        if isinstance(g, ir.Atom) and g.relation == "on" and len(g.args) == 2:
            if g.args[1] == f.var and g.args[0] != f.var:
                return g.args[0]
    return None


def miniscope(f: ir.Formula) -> ir.Formula:
    """``f`` with every conjunct of an ``exists`` body that does not read its variable moved out of it, from
    the innermost ``exists`` out: ``exists v (A and B(v))`` is ``A and exists v B(v)`` (false alike when the
    type has no members), so ``A`` is evaluated once instead of once per ``v``."""
    if isinstance(f, ir.Not):
        return ir.Not(miniscope(f.arg))
    if isinstance(f, (ir.And, ir.Or)):
        return type(f)(tuple(miniscope(g) for g in f.args))
    if not isinstance(f, ir.Exists):
        return f
    parts = conjuncts(miniscope(f.formula))
    outside = [g for g in parts if not mentions(g, f.var)]
    inside = [g for g in parts if mentions(g, f.var)]
    body = ir.And(tuple(inside)) if len(inside) > 1 else inside[0] if inside else ir.Const_(True)
    inner = ir.Exists(f.var, f.type, body)
    return ir.And((*outside, inner)) if outside else inner


def type_sizes(h: ir.Household, agents: int) -> dict[str, int]:
    """Type -> how many members an observe rule's variable of that type ranges over, in household ``h``
    with ``agents`` agents (``object``: everything, an upper bound)."""
    sizes = {"thing": len(h.things), "place": len(h.places), "agent": agents, "room": len(h.rooms)}
    for kind in ir.PlaceKind:
        sizes[kind.value] = sum(1 for p in h.places if p.kind is kind)
    for t in h.things:
        if t.type not in sizes:
            sizes[t.type] = sum(1 for u in h.things if u.type == t.type)
    sizes["object"] = len(h.things) + len(h.places) + agents + len(h.rooms)
    return sizes


class _Cost:
    """The bound of one rule: ``each(f)`` is the cost of one evaluation of ``f`` (a remembered ``exists``
    costs its look-up there), and ``filled`` sums what computing the remembered ``exists`` costs per step:
    at most one computation per binding of the enclosing variables its body reads, each over every member."""

    def __init__(self, sizes: Mapping[str, int], domains: dict[str, int]) -> None:
        self.sizes, self.domains, self.filled = sizes, domains, 0

    def each(self, f: ir.Formula) -> int:
        if isinstance(f, ir.Atom):
            return 2 if f.relation == "same_room" else 1          # same_room asks both rooms
        if isinstance(f, ir.Compare):
            return 1
        if isinstance(f, ir.Not):
            return self.each(f.arg)
        if isinstance(f, (ir.And, ir.Or)):
            return sum(self.each(g) for g in f.args)
        if isinstance(f, ir.Exists):
            return self.exists(f)
        return 0

    def exists(self, f: ir.Exists) -> int:
        outer = self.domains
        self.domains = {**outer, f.var: self.sizes.get(f.type, 0)}
        try:
            body = self.each(f.formula)
        finally:
            self.domains = outer
        if witness(f) is not None:                  # one location call, the body once
            return 1 + body
        if chain_witness(f) is not None:            # up the baskets: a location call each, and the last None
            baskets = self.sizes.get("basket", 0)
            return 2 + baskets + (1 + baskets) * body
        keys = math.prod(size for v, size in outer.items() if mentions(f.formula, v))
        self.filled += keys * self.sizes.get(f.type, 0) * body
        return 1


def rule_cost(rule: ir.ObserveRule, sizes: Mapping[str, int]) -> int:
    """An upper bound on the relation calls (and look-ups, each at least 1) of one step of ``rule`` for all
    agents (``sizes``: members per type, ``agent`` included; ``type_sizes``)."""
    cost = _Cost(sizes, {SELF: sizes.get("agent", 0), rule.var: sizes.get(rule.type, 0)})
    parts = conjuncts(miniscope(rule.when))
    guards = sum(cost.each(g) for g in parts if not mentions(g, rule.var))
    body = sum(cost.each(g) for g in parts if mentions(g, rule.var))
    # per agent: its guards, its room (asked once for the same-room candidates), then every candidate's body
    return sizes.get("agent", 0) * (guards + 1 + sizes.get(rule.type, 0) * body) + cost.filled


def over_limit(rules: Iterable[ir.ObserveRule], sizes: Mapping[str, int],
               limit: int = MAX_OBSERVE_COST) -> Optional[tuple[ir.ObserveRule, int, int]]:
    """(the first rule whose cost brings the rules' total over ``limit``, its cost, the total), or None."""
    total = 0
    for rule in rules:
        own = rule_cost(rule, sizes)
        total += own
        if total > limit:
            return rule, own, total
    return None
