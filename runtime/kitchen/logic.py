"""Compile IR formulas, effects and expressions into closures over a kitchen ``State``.

Input: IR formulas/effects/expressions, the variables in scope (name -> type) and a ``Statics`` bundle (grid,
containers, state attributes, constants).  Output: closures called as ``f(st, env)`` where ``env`` maps
variable names to objects, cells or numbers:
- ``test(f)``: a formula whose variables are all bound -> bool;
- ``Solver``: a conjunction with some variables unbound -> the first binding (``first``) or all of them
  (``all``), found through the relation indexes (conjuncts reordered: bound tests first, then index lookups,
  then enumeration by type);
- ``explain``: the declared-order search used for error messages (the deepest conjunct reached);
- ``effects``: a list of effects -> ``apply(st, env, t, hooks)``;
- ``expression``: a sympy expression (constants substituted) -> number (int or Fraction, exact).
Built-in relations and effects are those of ``compiler/builtins.py`` (``BUILTIN_TESTS``: one test per relation).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple, Optional

import sympy

from chronoplan.compiler import builtins, ir
from chronoplan.runtime.kitchen.state import Rel, State

try:                                             # C types for the hot closures when compiled (setup.py)
    import cython
except ImportError:                              # pragma: no cover - plain Python without Cython installed
    from chronoplan.runtime import cython_shim as cython

BUILTIN_ATOMS = tuple(builtins.RELATIONS)     # the built-in relations, declared in compiler/builtins.py
MAX_ENUMERATION = 10_000
_EMPTY: dict = {}


class CompileFailure(ValueError):
    """The IR cannot be turned into closures for this scenario (a construct the runtime cannot execute)."""


def num(x) -> Any:
    """An exact number: int when integral, else Fraction."""
    if type(x) is int:
        return x
    if isinstance(x, Fraction):
        return x.numerator if x.denominator == 1 else x
    return x


class Statics:
    """What closures need besides the state: the grid, containers, state attributes and positions."""

    def __init__(self, grid, containers: dict, state_attrs: dict, ancestors: dict, relations: dict) -> None:
        self.grid = grid
        self.containers = containers          # type -> ((kind, attr | None, value | None), ...), capacity
        self.state_attrs = state_attrs        # state value -> [(attr name, attr param type)]
        self.ancestors = ancestors
        self.relations = relations            # name -> arity

    def cell_of(self, st, o):
        if isinstance(o, tuple):
            return o
        p = st.pos.get(o)
        if p is not None:
            return p
        return self.grid.station_cell.get(o)

    def adjacent(self, st, x, y) -> bool:
        if y in self.grid.station_cell and x in st.pos:
            return self.grid.is_adjacent(st.pos[x], y)
        a, b = self.cell_of(st, x), self.cell_of(st, y)
        return a is not None and b is not None and abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1

    def distance(self, st, x, y):
        a = self.cell_of(st, x)
        if a is None:
            return None
        if not isinstance(y, tuple) and y in self.grid.station_cell:
            return self.grid.dist_to_station(a, y)
        b = self.cell_of(st, y)
        return None if b is None else self.grid.dist(a, b)

    def container_spec(self, st, c):
        typ = st.otype.get(c)
        for t in self.ancestors.get(typ, ()):
            spec = self.containers.get(t)
            if spec is not None:
                return spec
        return None

    def accepts(self, st, c, i) -> bool:
        spec = self.container_spec(st, c)
        if spec is None or i not in st.otype:
            return False
        for kind, attr, value in spec[0]:
            if st.isa(i, kind) and (attr is None or st.get(attr, i) == value):
                return True
        return False


def _accepts(s: Statics, g0: Callable, g1: Callable) -> Callable:
    """``Statics.accepts`` with what depends only on the two objects' types resolved once per pair of types:
    True (accepted whatever its state), or the (attribute, value) alternatives the item must meet."""
    cache: dict = {}

    def resolve(ctyp, ityp):
        spec = None
        for t in s.ancestors.get(ctyp, ()):
            spec = s.containers.get(t)
            if spec is not None:
                break
        alts = []
        if spec is not None and ityp is not None:
            chain = s.ancestors.get(ityp, (ityp, "object"))
            for kind, attr, value in spec[0]:
                if kind in chain:
                    if attr is None:
                        return True
                    alts.append((attr, value))
        return tuple(alts)

    @cython.locals(st=State)
    def accepts(st, env):
        c, i = g0(st, env), g1(st, env)
        otype = st.otype
        key = (otype.get(c), otype.get(i))
        alts = cache.get(key)
        if alts is None:
            alts = cache[key] = resolve(*key)
        if alts is True:
            return True
        for attr, value in alts:
            if st.attrs[attr].get(i, st.defaults[attr]) == value:
                return True
        return False
    return accepts


# ------------------------------------------------------------------------------ formulas
def conjuncts(f) -> list:
    if f is None:
        return []
    if isinstance(f, ir.And):
        out = []
        for a in f.args:
            out.extend(conjuncts(a))
        return out
    if isinstance(f, ir.Const_) and f.value:
        return []
    return [f]


def free_vars(f, vars: dict) -> set:
    """Variables of ``vars`` occurring free in formula ``f``."""
    if isinstance(f, ir.Atom):
        return {a for a in f.args if a in vars}
    if isinstance(f, ir.Compare):
        out: set = set()
        for t in (f.left, f.right):
            if t.kind == "var" and t.name in vars:
                out.add(t.name)
            elif t.kind == "attr" and t.arg in vars:
                out.add(t.arg)
        return out
    if isinstance(f, ir.Not):
        return free_vars(f.arg, vars)
    if isinstance(f, (ir.And, ir.Or)):
        out = set()
        for a in f.args:
            out |= free_vars(a, vars)
        return out
    if isinstance(f, ir.Exists):
        inner = dict(vars)
        inner[f.var] = f.type
        return free_vars(f.formula, inner) - {f.var}
    return set()


def literal(v: str, attr: Optional[ir.Attribute] = None):
    """A literal term's value (bool for bool attributes, number for numeric ones, else the name)."""
    if attr is not None and attr.kind == "bool" or v in ("true", "false", "True", "False"):
        if v in ("true", "True"):
            return True
        if v in ("false", "False"):
            return False
    try:
        return num(Fraction(v))
    except (ValueError, ZeroDivisionError):
        return v


def _getter(name: str, vars: dict) -> Callable:
    if name in vars:
        return lambda st, env: env[name]
    return lambda st, env: name


class Compiler:
    def __init__(self, statics: Statics, attributes: dict) -> None:
        self.s = statics
        self.attributes = attributes
        self.logged: Optional[frozenset] = None        # the change names effects log (None: all; State.logged)

    # tests ---------------------------------------------------------------------------
    def test(self, f, vars: dict) -> Callable:
        s = self.s
        if isinstance(f, ir.Const_):
            v = f.value
            return lambda st, env: v
        if isinstance(f, ir.Atom):
            gets = [_getter(a, vars) for a in f.args]
            name = f.relation
            if name not in s.relations and name in BUILTIN_ATOMS:
                return self._builtin(name, gets, f.args, vars)
            if len(gets) == 2 and f.args[0] in vars and f.args[1] in vars:
                a0, a1 = f.args                      # the common case: variables only, no getter calls
                return lambda st, env: (env[a0], env[a1]) in st.rels[name].facts
            if len(gets) == 1 and f.args[0] in vars:  # one variable (worlds: clear(x), holding(x))
                v0 = f.args[0]
                return lambda st, env: (env[v0],) in st.rels[name].facts
            if not gets:                              # a 0-ary fact (worlds: handempty())
                return lambda st, env: () in st.rels[name].facts
            if len(gets) == 2:
                g0, g1 = gets
                return lambda st, env: (g0(st, env), g1(st, env)) in st.rels[name].facts
            return lambda st, env: tuple(g(st, env) for g in gets) in st.rels[name].facts
        if isinstance(f, ir.Compare):
            return self._compare(f, vars)
        if isinstance(f, ir.Not):
            inner = self.test(f.arg, vars)
            return lambda st, env: not inner(st, env)
        if isinstance(f, ir.And):
            return _conjunction([self.test(a, vars) for a in f.args])
        if isinstance(f, ir.Or):
            parts = [self.test(a, vars) for a in f.args]
            if len(parts) == 2:
                p0, p1 = parts
                return lambda st, env: bool(p0(st, env) or p1(st, env))
            return lambda st, env: any(p(st, env) for p in parts)
        if isinstance(f, ir.Exists):
            scope = dict(vars)
            scope[f.var] = f.type
            solver = Solver(self, conjuncts(f.formula), frozenset(vars), scope)
            steps = solver.steps
            if len(steps) == 1 and isinstance(steps[0], Lookup):     # exists(x: T where R(x, bound))
                return _exists_lookup(steps[0])
            first = solver.first
            return lambda st, env: first(st, env) is not None
        raise CompileFailure(f"cannot execute formula {f!r}")

    def _builtin(self, name: str, gets: list, args=(), vars=None) -> Callable:
        """A built-in relation's test (``builtins.RELATIONS``), through its entry in ``BUILTIN_TESTS``."""
        make = BUILTIN_TESTS.get(name)
        f = make(self, gets, args, vars or {}) if make is not None else None
        if f is None:
            raise CompileFailure(f"built-in relation {name} with {len(gets)} arguments")
        return f

    def _adjacent(self, gets: list, args, vars: dict) -> Optional[Callable]:
        s = self.s
        if len(args) == 2 and all(a in vars for a in args) and \
                "agent" in s.ancestors.get(vars[args[0]], ()) and "station" in s.ancestors.get(vars[args[1]], ()):
            a, b = args
            adjsets = s.grid._adjset
            return lambda st, env: st.pos.get(env[a]) in adjsets.get(env[b], ())
        if len(gets) == 2:
            g0, g1 = gets
            return lambda st, env: s.adjacent(st, g0(st, env), g1(st, env))
        return None

    def _at(self, gets: list, args, vars: dict) -> Optional[Callable]:
        s = self.s
        if len(gets) == 2:
            g0, g1 = gets

            def at(st, env):
                a, c = g0(st, env), g1(st, env)
                return st.pos.get(a) == c if isinstance(c, tuple) else s.adjacent(st, a, c)
            return at
        return None

    def _walkable(self, gets: list, args, vars: dict) -> Optional[Callable]:
        s = self.s
        if len(gets) == 1 and len(args) == 1 and args[0] in vars:
            a0, floor = args[0], s.grid.floor          # Grid.walkable, inlined
            return lambda st, env: env[a0] in floor
        if len(gets) == 1:
            g0 = gets[0]
            return lambda st, env: s.grid.walkable(g0(st, env))
        return None

    def _reachable(self, gets: list, args, vars: dict) -> Optional[Callable]:
        s = self.s
        if len(gets) == 2:
            g0, g1 = gets
            if len(args) == 2 and all(a in vars for a in args) and vars[args[1]] == "cell" and \
                    "agent" in s.ancestors.get(vars[args[0]], ()):
                a, b = args
                gdist, maps = s.grid.dist, s.grid.bfs_maps()

                @cython.locals(st=State)
                def reachable(st, env):
                    src = st.pos[env[a]]
                    d = maps.get(src) if maps is not None else None     # Grid.dist's cached map, read inline
                    return (env[b] in d) if d is not None else gdist(src, env[b]) is not None
                return reachable
            return lambda st, env: s.distance(st, g0(st, env), g1(st, env)) is not None
        return None

    def _accepts(self, gets: list, args, vars: dict) -> Optional[Callable]:
        if len(gets) == 2:
            g0, g1 = gets
            return _accepts(self.s, g0, g1)
        return None

    def adjacency(self, f, vars: dict) -> Optional[Adjacent]:
        """``f`` as data when it is the built-in adjacent(agent variable, station variable), else None (the
        first-match evaluator of a join inlines this test)."""
        s = self.s
        if not isinstance(f, ir.Atom) or f.relation != builtins.ADJACENT.name or f.relation in s.relations or \
                len(f.args) != 2:
            return None
        a, b = f.args
        if a in vars and b in vars and "agent" in s.ancestors.get(vars[a], ()) and \
                "station" in s.ancestors.get(vars[b], ()):
            return Adjacent(a, b, s.grid._adjset)
        return None

    def term(self, t: ir.Term, vars: dict, other: Optional[ir.Term] = None) -> Callable:
        if t.kind == "var":
            return _getter(t.name, vars)
        if t.kind == "attr":
            assert t.arg is not None, "an attribute term names its object"
            attr, og = t.name, _getter(t.arg, vars)
            return lambda st, env: st.get(attr, og(st, env))
        a = self.attributes.get(other.name) if other is not None and other.kind == "attr" else None
        v = literal(t.name, a)
        return lambda st, env: v

    def _compare(self, f: ir.Compare, vars: dict) -> Callable:
        left, right = self.term(f.left, vars, f.right), self.term(f.right, vars, f.left)
        op = f.op
        if op in ("==", "!=") and f.left.kind == "attr" and f.left.arg in vars and f.right.kind not in ("var", "attr"):
            attr, o = f.left.name, f.left.arg       # the common case: x.attr == literal, without term calls
            v = right(None, None)

            @cython.locals(st=State)
            def attr_eq(st, env):
                return st.attrs[attr].get(env[o], st.defaults[attr]) == v

            @cython.locals(st=State)
            def attr_ne(st, env):
                return st.attrs[attr].get(env[o], st.defaults[attr]) != v
            return attr_eq if op == "==" else attr_ne
        if op == "==":
            return lambda st, env: left(st, env) == right(st, env)
        if op == "!=":
            return lambda st, env: left(st, env) != right(st, env)

        def cmp(st, env):
            a, b = left(st, env), right(st, env)
            try:
                return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
            except TypeError:
                return False
        return cmp

    # effects ---------------------------------------------------------------------------
    def effects(self, effects, vars: dict, delay_of: Callable) -> Callable:  # noqa: C901
        """Compile effects; ``apply(st, env, t, hooks)`` with hooks.delayed / hooks.deliver / hooks.destroy."""
        dels, adds, assigns, foralls, calls, delayed = [], [], [], [], [], []
        for e in effects:
            if isinstance(e, ir.DelFact):
                dels.append(self._fact(e.atom, vars))
            elif isinstance(e, ir.AddFact):
                adds.append(self._fact(e.atom, vars))
            elif isinstance(e, ir.Assign):
                assert e.target.arg is not None, "an assignment's target is an attribute term"
                og = _getter(e.target.arg, vars)
                a = self.attributes.get(e.target.name)
                vg = self.term(e.value, vars, e.target) if e.value.kind != "value" else \
                    (lambda v: (lambda st, env: v))(literal(e.value.name, a))
                assigns.append((e.target.name, og, vg))
            elif isinstance(e, ir.Forall):
                inner = dict(vars)
                inner[e.var] = e.type
                solver = Solver(self, conjuncts(e.formula), frozenset(vars), inner)
                foralls.append((solver, self.effects(e.effects, inner, delay_of)))
            elif isinstance(e, ir.BuiltinEffect):
                if e.name not in builtins.EFFECTS:
                    raise CompileFailure(f"unknown built-in effect {e.name}")
                calls.append((e.name == builtins.DELIVER.name, [_getter(a, vars) for a in e.args]))   # else destroy
            elif isinstance(e, ir.Delayed):
                delayed.append((delay_of(e.delay, vars), self.effects(e.effects, vars, delay_of)))
            else:
                raise CompileFailure(f"cannot execute effect {e!r}")

        logged = self.logged
        log_at = logged is None or "at" in logged
        # the built-in ``at`` (an agent's cell) is a position, not a fact; a declared ``at`` relation (a world's)
        # hides it and is an ordinary fact
        pos_rel = None if "at" in self.s.relations else "at"

        @cython.locals(st=State)
        def apply(st, env, t, hooks):                 # (empty parts skip their comprehensions)
            sols = [(solver.all(st, env), body) for solver, body in foralls] if foralls else ()
            ground_dels = [(rel, f(st, env)) for rel, f in dels] if dels else ()
            ground_adds = [(rel, f(st, env)) for rel, f in adds] if adds else ()
            values = [(name, og(st, env), vg(st, env)) for name, og, vg in assigns] if assigns else ()
            for rel, tup in ground_dels:
                if rel == pos_rel:
                    continue
                st.remove(rel, tup)
            for rel, tup in ground_adds:
                if rel == pos_rel:
                    if st.pos.get(tup[0]) != tup[1]:
                        st.pos[tup[0]] = tup[1]
                        if log_at:
                            st.touched.append(("at", (tup[0],)))
                else:
                    st.add(rel, tup)
            for name, obj, value in values:
                st.set(name, obj, value)
            for envs, body in sols:
                for e2 in envs:
                    body(st, e2, t, hooks)
            for deliver, gets in calls:
                arg = gets[0](st, env) if len(gets) == 1 else [g(st, env) for g in gets][0]
                if deliver:
                    hooks.deliver(arg, t)
                else:
                    hooks.destroy(arg, t)
            for delay, body in delayed:
                hooks.delayed(t + delay(st, env), body, dict(env))
        if not (foralls or calls or delayed or assigns):
            def pair(e):                              # the variable names of a two-variable fact, else None
                args = e.atom.args
                return tuple(args) if len(args) == 2 and args[0] in vars and args[1] in vars else (None, None)
            dels2 = [(rel, f) + pair(e) + (logged is None or rel in logged,) for (rel, f), e in
                     zip(dels, [e for e in effects if isinstance(e, ir.DelFact)])]
            adds2 = [(rel, f) + pair(e) + (logged is None or rel in logged,) for (rel, f), e in
                     zip(adds, [e for e in effects if isinstance(e, ir.AddFact)])]

            @cython.locals(st=State, r=Rel, env=dict, rels=dict, facts=dict, ix=dict, bucket=dict, tup=tuple)
            def apply_facts(st, env, t, hooks):       # the common case: facts only, no allocations
                rels = st.rels
                for rel, f, a0, a1, log in dels2:
                    if rel != pos_rel:
                        tup = (env[a0], env[a1]) if a0 is not None else f(st, env)
                        r = rels[rel]                 # State.remove and Rel.remove, inlined
                        facts = r.facts
                        if tup in facts:
                            del facts[tup]
                            for ix, v in zip(r.idx, tup):
                                bucket = ix[v]
                                del bucket[tup]
                                if not bucket:
                                    del ix[v]
                            if log:
                                st.touched.append((rel, tup))
                for rel, f, a0, a1, log in adds2:
                    tup = (env[a0], env[a1]) if a0 is not None else f(st, env)
                    if rel == pos_rel:
                        if st.pos.get(tup[0]) != tup[1]:
                            st.pos[tup[0]] = tup[1]
                            if log:
                                st.touched.append(("at", (tup[0],)))
                        continue
                    r = rels[rel]                     # State.add and Rel.add, inlined
                    facts = r.facts
                    if tup not in facts:
                        facts[tup] = None
                        for ix, v in zip(r.idx, tup):
                            bucket = ix.get(v)
                            if bucket is None:
                                ix[v] = {tup: None}
                            else:
                                bucket[tup] = None
                        if log:
                            st.touched.append((rel, tup))
            return apply_facts
        return apply

    def _fact(self, atom: ir.Atom, vars: dict):
        gets = [_getter(a, vars) for a in atom.args]
        if len(gets) == 1 and atom.args[0] in vars:
            v0 = atom.args[0]
            return atom.relation, (lambda st, env: (env[v0],))
        if not gets:
            return atom.relation, (lambda st, env: ())
        if len(gets) == 2 and atom.args[0] in vars and atom.args[1] in vars:
            a0, a1 = atom.args
            return atom.relation, (lambda st, env: (env[a0], env[a1]))
        if len(gets) == 2:
            g0, g1 = gets
            return atom.relation, (lambda st, env: (g0(st, env), g1(st, env)))
        return atom.relation, (lambda st, env: tuple(g(st, env) for g in gets))

    # expressions ----------------------------------------------------------------------
    def expression(self, expr, vars: dict, aggregates: dict) -> Callable:
        """A sympy expression (constants already substituted) -> f(st, env) -> exact number."""
        return _expr(self, sympy.sympify(expr), vars, aggregates)


# the runtime's test of each built-in relation of ``builtins.RELATIONS`` (tests/test_builtins.py keeps the two
# equal): (compiler, argument getters, argument names, variable types) -> closure, or None for a form it lacks
BUILTIN_TESTS: dict[str, Callable] = {
    builtins.ADJACENT.name: Compiler._adjacent,
    builtins.AT.name: Compiler._at,
    builtins.WALKABLE.name: Compiler._walkable,
    builtins.REACHABLE.name: Compiler._reachable,
    builtins.ACCEPTS.name: Compiler._accepts,
}


def _expr(c: Compiler, e, vars: dict, aggregates: dict) -> Callable:  # noqa: C901
    if e.is_Integer:
        v = int(e)
        return lambda st, env: v
    if e.is_Rational:
        v = num(Fraction(int(e.p), int(e.q)))
        return lambda st, env: v
    if e.is_Symbol:
        name = e.name
        if name not in vars:
            raise CompileFailure(f"unresolved name {name} in an expression")
        return lambda st, env: env[name]
    if e.is_Add:
        parts = [_expr(c, a, vars, aggregates) for a in e.args]
        return lambda st, env: num(sum(p(st, env) for p in parts))
    if e.is_Mul:
        parts = [_expr(c, a, vars, aggregates) for a in e.args]
        if len(parts) == 2:
            m0, m1 = parts
            return lambda st, env: num(m0(st, env) * m1(st, env))

        def mul(st, env):
            out = 1
            for p in parts:
                out = out * p(st, env)
            return num(out)
        return mul
    if e.is_Pow:
        base = _expr(c, e.args[0], vars, aggregates)
        ex = e.args[1]
        if not ex.is_Integer:
            raise CompileFailure(f"non-integer power in {e}")
        n = int(ex)
        return lambda st, env: num(Fraction(base(st, env)) ** n)
    if isinstance(e, sympy.ceiling):
        inner = _expr(c, e.args[0], vars, aggregates)
        return lambda st, env: math.ceil(inner(st, env))
    if isinstance(e, sympy.floor):
        inner = _expr(c, e.args[0], vars, aggregates)
        return lambda st, env: math.floor(inner(st, env))
    if isinstance(e, (sympy.Max, sympy.Min)):
        parts = [_expr(c, a, vars, aggregates) for a in e.args]
        f = max if isinstance(e, sympy.Max) else min
        return lambda st, env: f(p(st, env) for p in parts)
    if isinstance(e, ir.Dist):
        a, b = e.names
        ga, gb = _getter(a, vars), _getter(b, vars)
        s = c.s
        anc = s.ancestors
        if a in vars and b in vars and "agent" in anc.get(vars[a], ()) and vars[b] == "cell":
            gdist, maps = s.grid.dist, s.grid.bfs_maps()

            @cython.locals(st=State)
            def dist_agent_cell(st, env):       # the common MoveTo case, without the generic lookups
                src = st.pos[env[a]]
                m = maps.get(src) if maps is not None else None      # Grid.dist's cached map, read inline
                d = m.get(env[b]) if m is not None else gdist(src, env[b])
                return math.inf if d is None else d
            return dist_agent_cell

        def dist(st, env):
            d = s.distance(st, ga(st, env), gb(st, env))
            return math.inf if d is None else d
        return dist
    if isinstance(e, ir.AttrRef):
        attr, og = e.attr, _getter(e.obj, vars)
        return lambda st, env: st.get(attr, og(st, env))
    if isinstance(e, ir.Count):
        if e.symbol in aggregates:
            agg = aggregates[e.symbol]
            scope = dict(vars)
            scope[agg.var] = agg.type
            solver = Solver(c, conjuncts(agg.formula), frozenset(vars), scope)
            var = agg.var
            steps = solver.steps
            if steps and isinstance(steps[0], Lookup) and steps[0].var == var and \
                    all(isinstance(s, Test) for s in steps[1:]):
                return _count_lookup(steps[0], [s.fn for s in steps[1:]])
            return lambda st, env: len({x[var] for x in solver.all(st, env)})
    raise CompileFailure(f"cannot evaluate expression {e}")


# ------------------------------------------------------------------------------ matching
# A conjunction with unbound variables is planned once into steps, each a small frozen record: a test of
# bound variables, an index lookup R(bound, free), a scan of any other relation atom, or an enumeration of a
# type.  Each kind of step has one evaluator for the first binding (``_first_from``) and one for all of them
# (``_bindings``); the index bucket of a lookup is read by ``bucket_values`` (and, inlined, by the first-match
# evaluator of a lookup, the hottest path).
class Adjacent(NamedTuple):
    """adjacent(agent, station) as data: the variables and the grid's cells next to each station."""

    agent: str
    station: str
    cells: dict                                   # station -> its adjacent floor cells (Grid._adjset)


@dataclass(frozen=True)
class Test:
    """A conjunct whose variables are all bound: ``fn(st, env) -> bool`` (``adjacent``: the same test as data,
    when it is adjacent(agent, station), so that the first-match evaluator can inline it)."""

    fn: Callable
    adjacent: Optional[Adjacent] = None


@dataclass(frozen=True)
class Lookup:
    """R(bound, free) on a binary relation: the facts of ``relation`` whose position ``key_pos`` holds the
    value of ``key_var`` (one index bucket) bind ``var`` to their position ``pos``, if of type ``type``
    (None: any)."""

    relation: str
    key_pos: int
    key_var: str
    pos: int
    var: str
    type: Optional[str]


@dataclass(frozen=True)
class Scan:
    """Any other relation atom with unbound variables: ``gen(st, env) -> [extended env, ...]``."""

    gen: Callable


@dataclass(frozen=True)
class Enumerate:
    """A variable no relation binds: every object of its type (at most ``MAX_ENUMERATION``, creation order)."""

    var: str
    type: str


def bucket_values(st, relation, key_pos, key, pos, typ) -> list:
    """The values at ``pos`` of the facts of ``relation`` holding ``key`` at ``key_pos`` (the relation's index
    bucket of ``key``), those of objects of type ``typ`` only unless it is None: the one scan of an index
    bucket (typed in kitchen/logic.pxd)."""
    out = []
    bucket = st.rels[relation].idx[key_pos].get(key)
    if bucket:
        members = st.members.get(typ, _EMPTY) if typ is not None else None
        for tup in bucket:
            v = tup[pos]
            if members is None or v in members:
                out.append(v)
    return out


def _objects(st, typ: str) -> list:
    return list(st.members.get(typ, _EMPTY))[:MAX_ENUMERATION]


class Solver:
    """Bindings of the unbound variables of a conjunction (first one, or all), via the relation indexes."""

    def __init__(self, c: Compiler, parts: list, bound: frozenset, vars: dict) -> None:
        self.c = c
        self.parts = parts
        self.vars = vars
        self.bound = bound
        self.steps = self._plan(parts, set(bound), vars)
        self.first = _first_from(self.steps, 0)

    def all(self, st, env) -> list:
        out: list = []
        _collect(self.steps, 0, st, env, out)
        return out

    def _plan(self, parts, bound: set, vars: dict) -> list:
        """The conjuncts as steps: tests as soon as their variables are bound, else a relation atom binding
        some (an index lookup when it can), else an enumeration of a free variable's type."""
        c = self.c
        remaining = list(parts)
        steps: list = []
        while remaining:
            pick = next((p for p in remaining if free_vars(p, vars) <= bound), None)
            if pick is not None:
                steps.append(Test(c.test(pick, vars), c.adjacency(pick, vars)))
                remaining.remove(pick)
                continue
            pick = next((p for p in remaining if isinstance(p, ir.Atom) and p.relation in c.s.relations), None)
            if pick is not None:
                steps.append(_atom_step(pick, vars, bound))
                bound |= {a for a in pick.args if a in vars}
                remaining.remove(pick)
                continue
            var = sorted(free_vars(remaining[0], vars) - bound)[0]
            steps.append(_enumerate(var, vars[var]))
            bound.add(var)
        for var in vars:                     # parameters no condition mentions: any object of their type
            if var not in bound:
                steps.append(_enumerate(var, vars[var]))
                bound.add(var)
        return steps


def _type_ok(typ: str):
    if typ in ("object",):
        return None
    return typ


def _enumerate(var: str, typ: str) -> Enumerate:
    if typ in ("cell", "number", "bool"):
        raise CompileFailure(f"variable {var}: {typ} cannot be enumerated; bind it with a relation")
    return Enumerate(var, typ)


def _atom_step(atom: ir.Atom, vars: dict, bound: set):
    """A relation atom with unbound variables: a ``Lookup`` for R(bound variable, free variable), else a
    ``Scan`` of the facts (through the index of its first known argument, if any)."""
    name = atom.relation
    args = atom.args
    known = [(i, a) for i, a in enumerate(args) if a not in vars or a in bound]
    unknown = [(i, a, _type_ok(vars[a])) for i, a in enumerate(args) if a in vars and a not in bound]
    key = known[0] if known else None
    rest = known[1:]
    if len(args) == 2 and key is not None and key[1] in vars and not rest and len(unknown) == 1:
        (kpos, kvar), (upos, uvar, utyp) = key, unknown[0]
        return Lookup(name, kpos, kvar, upos, uvar, utyp)

    def gen(st, env):
        rel = st.rels[name]
        if key is None:
            tuples = rel.facts
        else:
            tuples = rel.by(key[0], env[key[1]] if key[1] in vars else key[1])
        out = []
        for tup in tuples:
            if any(tup[i] != (env[a] if a in vars else a) for i, a in rest):
                continue
            e2 = dict(env)
            for i, a, typ in unknown:
                v = tup[i]
                if a in e2 and e2[a] != v or (typ is not None and not st.isa(v, typ)):
                    break
                e2[a] = v
            else:
                out.append(e2)
        return out
    return Scan(gen)


# first binding ---------------------------------------------------------------------------
def _first_from(steps: list, i: int) -> Callable:
    """``first(st, env)``: the first binding that steps[i:] extend ``env`` to, or None.  Up to two tests
    before an index lookup are folded into its evaluator."""
    if i == len(steps):
        return _same
    step = steps[i]
    if isinstance(step, Test):
        j = i
        while j < len(steps) and isinstance(steps[j], Test):
            j += 1
        tests = steps[i:j]
        if j < len(steps) and len(tests) <= 2 and isinstance(steps[j], Lookup):
            return _lookup_first(steps, j, tests)
        return _tests_first([t.fn for t in tests], _first_from(steps, j) if j < len(steps) else None)
    if isinstance(step, Lookup):
        return _lookup_first(steps, i, [])
    nxt = _first_from(steps, i + 1) if i + 1 < len(steps) else None
    if isinstance(step, Enumerate):
        return _enumerate_first(step, nxt)
    return _scan_first(step, nxt)


def _same(st, env):
    return env


def _conjunction(fns: list) -> Callable:
    """The tests ``fns`` (at least one) as one test."""
    if len(fns) == 1:
        return fns[0]
    if len(fns) == 2:                            # the usual size, without a generator
        f1, f2 = fns
        return lambda st, env: bool(f1(st, env) and f2(st, env))
    return lambda st, env: all(f(st, env) for f in fns)


def _tests_first(fns: list, nxt) -> Callable:
    """Consecutive tests, then the rest of the chain (``nxt``; None: the binding itself is the answer)."""
    f1, f2 = (fns[0], fns[1]) if len(fns) == 2 else (_conjunction(fns), None)
    if nxt is None:
        if f2 is None:
            return lambda st, env: env if f1(st, env) else None
        return lambda st, env: env if f1(st, env) and f2(st, env) else None
    if f2 is None:
        return lambda st, env: nxt(st, env) if f1(st, env) else None
    return lambda st, env: nxt(st, env) if f1(st, env) and f2(st, env) else None


def _lookup_first(steps: list, i: int, pre: list) -> Callable:
    """steps[i] is a ``Lookup``: the tests ``pre`` (at most two; an adjacency test inlined), the lookup, then
    the tests after it when there are at most two and nothing else follows, else the rest of the chain."""
    lk = steps[i]
    name, kpos, kvar, upos, uvar, utyp = lk.relation, lk.key_pos, lk.key_var, lk.pos, lk.var, lk.type
    rest = steps[i + 1:]
    nxt = None
    posts: list = []
    if len(rest) <= 2 and all(isinstance(s, Test) for s in rest):
        posts = [s.fn for s in rest]
    else:
        nxt = _first_from(steps, i + 1)
    p1 = posts[0] if posts else None
    p2 = posts[1] if len(posts) > 1 else None
    adj = pre[0].adjacent if len(pre) == 1 else None
    adj_agent, adj_station, adj_cells = adj if adj is not None else (None, None, _EMPTY)
    q1 = pre[0].fn if pre and adj is None else None
    q2 = pre[1].fn if len(pre) > 1 else None

    @cython.locals(st=State, env=dict, e2=dict, bucket=dict, members=dict, tup=tuple)
    def first(st, env):
        if adj is not None:
            if st.pos.get(env[adj_agent]) not in adj_cells.get(env[adj_station], ()):
                return None
        elif q1 is not None and not (q1(st, env) and (q2 is None or q2(st, env))):
            return None
        bucket = st.rels[name].idx[kpos].get(env[kvar])    # bucket_values, inlined: the hottest path (pure
        if not bucket:                                      # Python pays ~4% for the call and its list)
            return None
        members = st.members.get(utyp, _EMPTY) if utyp is not None else None
        for tup in bucket:
            v = tup[upos]
            if members is None or v in members:
                e2 = env.copy()
                e2[uvar] = v
                if nxt is not None:
                    r = nxt(st, e2)
                    if r is not None:
                        return r
                elif p1 is None or (p1(st, e2) and (p2 is None or p2(st, e2))):
                    return e2
        return None
    return first


def _enumerate_first(step: Enumerate, nxt) -> Callable:
    var, typ = step.var, step.type
    if nxt is None:
        @cython.locals(st=State)
        def first_object(st, env):               # the last step: its first object (creation order) is the answer
            for o in st.members.get(typ, _EMPTY):
                e2 = dict(env)
                e2[var] = o
                return e2
            return None
        return first_object

    def first(st, env):
        for o in _objects(st, typ):
            e2 = dict(env)
            e2[var] = o
            r = nxt(st, e2)
            if r is not None:
                return r
        return None
    return first


def _scan_first(step: Scan, nxt) -> Callable:
    gen = step.gen

    def first(st, env):
        for e2 in gen(st, env):
            r = e2 if nxt is None else nxt(st, e2)
            if r is not None:
                return r
        return None
    return first


# all bindings ----------------------------------------------------------------------------
def _bindings(step, st, env: dict) -> list:
    """Every extension of ``env`` by one binding step (``Lookup``, ``Scan`` or ``Enumerate``)."""
    if isinstance(step, Lookup):
        var = step.var
        out = []
        for v in bucket_values(st, step.relation, step.key_pos, env[step.key_var], step.pos, step.type):
            e2 = env.copy()
            e2[var] = v
            out.append(e2)
        return out
    if isinstance(step, Enumerate):
        out = []
        for o in _objects(st, step.type):
            e2 = dict(env)
            e2[step.var] = o
            out.append(e2)
        return out
    return step.gen(st, env)


def _collect(steps, i, st, env, out) -> None:
    if i == len(steps):
        out.append(env)
        return
    step = steps[i]
    if isinstance(step, Test):
        if step.fn(st, env):
            _collect(steps, i + 1, st, env, out)
        return
    for e2 in _bindings(step, st, env):
        _collect(steps, i + 1, st, e2, out)


# the two aggregates of one lookup ----------------------------------------------------------
def _exists_lookup(lk: Lookup) -> Callable:
    """exists(x: T where R(x, bound)): whether the index bucket holds an object of type T."""
    name, kpos, kvar, upos, utyp = lk.relation, lk.key_pos, lk.key_var, lk.pos, lk.type

    @cython.locals(st=State)
    def exists(st, env):
        return len(bucket_values(st, name, kpos, env[kvar], upos, utyp)) > 0
    return exists


def _count_lookup(lk: Lookup, tests: list) -> Callable:
    """count(x: T where R(x, bound) and tests): the distinct values of the index bucket passing the tests,
    each tried in one reused binding (what ``len({x[var] for x in solver.all(st, env)})`` counts)."""
    name, kpos, kvar, upos, uvar, utyp = lk.relation, lk.key_pos, lk.key_var, lk.pos, lk.var, lk.type

    @cython.locals(st=State)
    def count(st, env):
        values = bucket_values(st, name, kpos, env[kvar], upos, utyp)
        if not values:
            return 0
        e2 = env.copy()
        seen = set()
        for v in values:
            e2[uvar] = v
            for g in tests:
                if not g(st, e2):
                    break
            else:
                seen.add(v)
        return len(seen)
    return count


# ------------------------------------------------------------------------------ explanations
def explain(c: Compiler, parts: list, vars: dict, st, env: dict) -> tuple[int, Optional[Any], dict]:
    """Search the conjuncts in declared order; return (depth reached, the conjunct that failed there or None
    when every conjunct held, the binding at that point)."""
    best: list[Any] = [-1, None, env]

    def go(i, e):
        if i > best[0]:
            best[0], best[1], best[2] = i, (parts[i] if i < len(parts) else None), e
        if i == len(parts):
            return True
        p = parts[i]
        unbound = sorted(free_vars(p, vars) - set(e))
        if not unbound:
            return c.test(p, vars)(st, e) and go(i + 1, e)
        if isinstance(p, ir.Atom) and p.relation in c.s.relations:
            cands = _bindings(_atom_step(p, vars, set(e)), st, e)
        else:
            cands = [e]
            for v in unbound:
                cands = [x for e1 in cands for x in _bindings(_enumerate(v, vars[v]), st, e1)][:MAX_ENUMERATION]
            cands = [x for x in cands if c.test(p, vars)(st, x)]
        return any(go(i + 1, e2) for e2 in cands)
    try:
        go(0, dict(env))
    finally:
        # the recursive closure refers to itself: a reference cycle (~9 KB a failing Interact); rebinding the
        # name to None breaks it (mypy: a function's name stays a function; ``del go`` reads as undefined to ruff)
        go = None  # type: ignore[assignment]
    return best[0], best[1], best[2]


def _shown(env: dict, name) -> str:
    x = env.get(name, name)
    return f"[{x[0]}, {x[1]}]" if isinstance(x, tuple) else str(x)


def _shown_term(env: dict, x) -> str:
    return f"{_shown(env, x.arg)}.{x.name}" if x.kind == "attr" else (_shown(env, x.name) if x.kind == "var"
                                                                       else x.name)


def show_formula(f, env: dict) -> str:
    """A formula with bound variables replaced by their values (for messages).  No nested functions: compiled,
    a closure that another closure uses keeps its scope alive in a reference cycle (8 per failing Interact)."""
    if isinstance(f, ir.Atom):
        return f"{f.relation}({', '.join([_shown(env, a) for a in f.args])})"
    if isinstance(f, ir.Compare):
        return f"{_shown_term(env, f.left)} {f.op} {_shown_term(env, f.right)}"
    if isinstance(f, ir.Not):
        return f"not {show_formula(f.arg, env)}"
    if isinstance(f, ir.And):
        return " and ".join(show_formula(a, env) for a in f.args)
    if isinstance(f, ir.Or):
        return "(" + " or ".join(show_formula(a, env) for a in f.args) + ")"
    if isinstance(f, ir.Exists):
        inner = {k: x for k, x in env.items() if k != f.var}
        return f"exists({f.var}: {f.type} where {show_formula(f.formula, inner)})"
    if isinstance(f, ir.Const_):
        return "true" if f.value else "false"
    return str(f)
