"""The mutable world state of a kitchen simulation: objects, facts, attributes and agent positions.

Input: object declarations, initial facts and the type hierarchy (from ``kitchen.world``).  Output: a
``State`` with indexed relations (``Rel``: an ordered fact set plus one index per argument position), typed
object sets (``members[type]``, in creation order, subtypes included), attribute values with defaults, agent
cells, and a change log (``touched``: (relation or attribute name, objects)) read by process tracking; only the
names in ``logged`` are logged when it is set (``kitchen.world`` computes which names anything reads).
Iteration orders are creation/insertion orders, so every run is deterministic.
"""
from __future__ import annotations

import builtins
from collections.abc import Iterable
from typing import Any, Optional

EMPTY: dict = {}


class Rel:
    """An n-ary relation: ``facts`` (ordered set of tuples) and ``idx[pos][value]`` (ordered sets of tuples)."""

    __slots__ = ("name", "arity", "facts", "idx")

    def __init__(self, name: str, arity: int) -> None:
        self.name = name
        self.arity = arity
        self.facts: dict = {}
        self.idx: list = [{} for _ in range(arity)]

    def add(self, tup: tuple) -> bool:
        facts = self.facts
        if tup in facts:
            return False
        facts[tup] = None
        for ix, v in zip(self.idx, tup):
            bucket = ix.get(v)
            if bucket is None:
                ix[v] = {tup: None}
            else:
                bucket[tup] = None
        return True

    def remove(self, tup: tuple) -> bool:
        facts = self.facts
        if tup not in facts:
            return False
        del facts[tup]
        for ix, v in zip(self.idx, tup):
            bucket = ix[v]
            del bucket[tup]
            if not bucket:
                del ix[v]
        return True

    def by(self, pos: int, value) -> dict:
        return self.idx[pos].get(value, EMPTY)

    def copy(self) -> Rel:
        r = Rel.__new__(Rel)
        r.name, r.arity = self.name, self.arity
        r.facts = dict(self.facts)
        r.idx = [{k: dict(v) for k, v in ix.items()} for ix in self.idx]
        return r


class State:
    def __init__(self, ancestors: dict, relations: dict, attr_defaults: dict) -> None:
        self.ancestors = ancestors                      # type -> tuple of the type and its ancestors
        self.otype: dict = {}                           # object -> type
        self.members: dict = {}                         # type -> {object: None}
        self.rels = {name: Rel(name, arity) for name, arity in relations.items()}
        self.attrs: dict = {name: {} for name in attr_defaults}
        self.defaults = attr_defaults
        self.pos: dict = {}                             # agent -> (x, y)
        self.touched: list = []                         # (name, objects) changes since the last drain
        self.logged: Optional[frozenset] = None         # the names logged in ``touched`` (None: all)
        self.counters: dict = {}

    # objects ----------------------------------------------------------------------
    def add_object(self, name: str, typ: str) -> None:
        self.otype[name] = typ
        for t in self.ancestors.get(typ, (typ, "object")):
            self.members.setdefault(t, {})[name] = None

    def new_object(self, typ: str) -> str:
        n = self.counters.get(typ, 0)
        while True:
            n += 1
            name = f"{typ}{n}"
            if name not in self.otype:
                break
        self.counters[typ] = n
        self.add_object(name, typ)
        if self.logged is None or "new" in self.logged:
            self.touched.append(("new", (name,)))
        return name

    def tentative(self, typ: str) -> str:
        """Create an object without logging it (undo with ``forget``); ``confirm`` logs the creation."""
        n = self.counters.get(typ, 0)
        name = f"{typ}{n + 1}"
        while name in self.otype:
            n += 1
            name = f"{typ}{n + 1}"
        self.add_object(name, typ)
        return name

    def forget(self, name: str) -> None:
        typ = self.otype.pop(name)
        for t in self.ancestors.get(typ, (typ, "object")):
            self.members.get(t, {}).pop(name, None)

    def confirm(self, name: str) -> None:
        typ = self.otype[name]
        digits = name[len(typ):]
        if digits.isdigit():
            self.counters[typ] = max(self.counters.get(typ, 0), int(digits))
        if self.logged is None or "new" in self.logged:
            self.touched.append(("new", (name,)))

    def destroy(self, obj) -> None:
        """Remove an object and every fact and attribute value that mentions it."""
        typ = self.otype.pop(obj, None)
        if typ is None:
            return
        for t in self.ancestors.get(typ, (typ, "object")):
            self.members.get(t, {}).pop(obj, None)
        touched = self.touched
        logged = self.logged
        for rel in self.rels.values():
            for ix in rel.idx:
                bucket = ix.get(obj)
                if bucket:
                    for tup in list(bucket):
                        if rel.remove(tup) and (logged is None or rel.name in logged):
                            touched.append((rel.name, tup))
        for name, values in self.attrs.items():
            if values.pop(obj, None) is not None and (logged is None or name in logged):
                touched.append((name, (obj,)))
        touched.append(("destroy", (obj,)))

    def isa(self, obj, typ: str) -> bool:
        return obj in self.members.get(typ, EMPTY)

    # facts ------------------------------------------------------------------------
    def add(self, rel: str, tup: tuple) -> None:
        if self.rels[rel].add(tup) and (self.logged is None or rel in self.logged):
            self.touched.append((rel, tup))

    def remove(self, rel: str, tup: tuple) -> None:
        if self.rels[rel].remove(tup) and (self.logged is None or rel in self.logged):
            self.touched.append((rel, tup))

    def holds(self, rel: str, tup: tuple) -> bool:
        return tup in self.rels[rel].facts

    def get(self, attr: str, obj) -> Any:
        return self.attrs[attr].get(obj, self.defaults[attr])

    def set(self, attr: str, obj, value) -> None:
        values = self.attrs[attr]
        if values.get(obj, self.defaults[attr]) != value:
            values[obj] = value
            if self.logged is None or attr in self.logged:
                self.touched.append((attr, (obj,)))

    def drain(self) -> list:
        out, self.touched = self.touched, []
        return out

    def related(self, obj, rel_names: Iterable[str]) -> builtins.set:       # (State.set is a method)
        """Objects sharing a fact with ``obj`` in the given relations (one hop)."""
        out = set()
        for name in rel_names:
            rel = self.rels.get(name)
            if rel is None:
                continue
            for pos in range(rel.arity):
                for tup in rel.by(pos, obj):
                    out.update(tup)
        out.discard(obj)
        return out

    def snapshot(self) -> State:
        s = State.__new__(State)                        # every field set below
        s.ancestors = self.ancestors
        s.defaults = self.defaults
        s.touched = []
        s.otype = dict(self.otype)
        s.members = {k: dict(v) for k, v in self.members.items()}
        s.rels = {k: r.copy() for k, r in self.rels.items()}
        s.attrs = {k: dict(v) for k, v in self.attrs.items()}
        s.pos = dict(self.pos)
        s.counters = dict(self.counters)
        s.logged = self.logged
        return s
