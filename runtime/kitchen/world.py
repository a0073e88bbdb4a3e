"""A kitchen scenario compiled once into closures and index structures (``World``).

Input: a checked ``ir.Project``, the name of a scenario with orders on a map and the grading rules
(``kitchen.rules.KitchenRules``; default: the paper's).  The instance facts are the compiler's
(``compiler.kitchen.problem.KitchenProblem``, built once per World as ``World.problem``): the map and its
geometry, the time unit and the constants (overrides applied), the agents and their start cells, the type
hierarchy (``ancestors``, ``isa_type``, ``state_attr``), the relation roles, the orders
(``kitchen.problem.Order``) and the items that start on stations, with their names; the World reads them and
derives none of them again.  Output: ``World`` -- what the simulator (``runtime.kitchen.engine``) and its readers
(metrics, explanations, the scripted planner, the environments, charts) use: those facts, the grid compiled
for speed (``kitchen.geo.Grid``, built from the problem's ``KitchenGrid``), compiled operators (``Op``:
start-condition solver per number of surface-bound parameters, duration, effects, capacity checks, held
resources), compiled surfaces (candidate operators per argument types), compiled processes (``Proc``),
the attribute defaults as runtime values, the time limit, the rules and ``initial_state()``.  The rules'
operator rules are applied when a surface's candidates are compiled: an operator is left out, or compiled
again with an extra start condition, for the station kinds a rule names.  Numbers are exact.  Raises
``CompileFailure`` for constructs the runtime cannot execute.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, Optional

from chronoplan.compiler import ir
from chronoplan.compiler.kitchen.problem import NO_PLACEMENT, KitchenProblem
from chronoplan.runtime.kitchen.geo import Grid
from chronoplan.runtime.kitchen.logic import (
    BUILTIN_ATOMS,
    CompileFailure,
    Compiler,
    Solver,
    Statics,
    _getter,
    conjuncts,
    literal,
)
from chronoplan.runtime.kitchen.rules import DEFAULT, KitchenRules
from chronoplan.runtime.kitchen.state import State

try:                                             # C types for the hot closures when compiled (setup.py)
    import cython
except ImportError:                              # pragma: no cover - plain Python without Cython installed
    from chronoplan.runtime import cython_shim as cython

__all__ = ["World", "Op", "Proc", "Link", "Trigger", "FastTrigger", "CompileFailure", "compile_world"]

_NAMES: dict = {}                              # parameter-name tuples, interned (the simulator compares identity)


class Op:
    """One operator compiled for the simulator (a plain class, so that the compiled build can give it C
    fields through kitchen/world.pxd)."""

    def __init__(self, name: str, action: ir.Action, vars: dict, start_parts: list, duration: Callable,
                 distance: Optional[Callable], all_test: Optional[Callable], end_test: Optional[Callable],
                 start_apply: Optional[Callable], end_apply: Optional[Callable], caps: list, holds: tuple,
                 new: tuple, world: Any = None) -> None:
        self.name, self.action, self.vars, self.start_parts = name, action, vars, start_parts
        self.duration, self.distance, self.all_test, self.end_test = duration, distance, all_test, end_test
        self.start_apply, self.end_apply, self.caps, self.holds = start_apply, end_apply, caps, holds
        self.new = new                         # (param, type, source param | None)
        self.world = world
        self._solvers: dict = {}
        self._names: dict = {}
        self.cap_check: Optional[Callable] = None
        self.distance_is_duration = False
        self.res_holds: tuple = ()             # held parameters whose objects may be resources with capacity
        self.instant = False                   # duration 0, no distance, no start effects, no 'when all'

    def __repr__(self) -> str:
        return f"Op({self.name})"

    def bound_names(self, k: int) -> tuple:
        names = self._names.get(k)
        if names is None:
            names = tuple(p.name for p in self.action.params[:k])
            names = self._names[k] = _NAMES.setdefault(names, names)     # one tuple per spelling (shared)
        return names

    def solver(self, k: int) -> Solver:
        s = self._solvers.get(k)
        if s is None:
            bound = frozenset([p.name for p in self.action.params[:k]] + [p for p, _, _ in self.new])
            s = self._solvers[k] = Solver(self.world.compiler, self.start_parts, bound, self.vars)
        return s


@dataclass
class Proc:
    name: str
    process: ir.Process
    params: tuple
    types: tuple
    scope: Optional[Callable]
    cond: Callable
    duration: Callable
    apply: Callable
    deps: frozenset
    depth: int
    binders: list                              # per parameter position: Solver over the scope, that param bound
    cond_in_scope: Callable                    # ``cond`` where ``scope`` holds (its conjuncts left out)
    triggers: Optional[dict] = None            # change name -> [Trigger]; None: search the neighbourhood


class Link(NamedTuple):
    """A quantified variable joined to a process parameter by a fact of ``relation``: the variable at
    ``var_pos``, the parameter at ``param_pos``."""

    relation: str
    var_pos: int
    param_pos: int


class Trigger(NamedTuple):
    """A change (of a relation or an attribute) that can affect a process's parameter ``param``: the changed
    object (at ``pos`` of the fact; None: the attribute's object) is the parameter's value (``link`` None) or a
    quantified variable of type ``var_type`` (None: unknown) joined to it by ``link``."""

    pos: Optional[int]
    link: Optional[Link]
    param: int
    var_type: Optional[str]


class FastTrigger(NamedTuple):
    """A trigger of a one-parameter process as the simulator reads it (``World.fast_for``): the process, the
    changed object's position, the link, and the parameter's type."""

    proc: Proc
    pos: Optional[int]
    link: Optional[Link]
    param_type: str


def compile_world(project: ir.Project, scenario: str) -> World:
    return World(project, scenario)


class World:
    def __init__(self, project: ir.Project, scenario: str, rules: KitchenRules = DEFAULT) -> None:
        p = project.part(scenario)
        s = p.scenario(scenario)
        if s.map is None or not s.orders and not p.surfaces:
            raise CompileFailure(f"scenario {s.name} is not a grid kitchen (no map or orders)")
        if not p.surfaces:
            raise CompileFailure(f"the domain of scenario {s.name} declares no surface actions (MoveTo, ...)")
        # the instance facts, computed once by the compiler (the missing placement relation is reported by
        # initial_state, as the simulator always has)
        self.problem = kp = KitchenProblem(project, scenario, check_placement=False)
        self.rules = rules
        self.project, self.scenario, self.map = kp.project, kp.scenario, kp.map
        self.grid = Grid(kp.grid)
        self.unit = kp.unit
        self.consts = kp.consts
        self.agents = kp.agents
        self.rank = {a: i for i, a in enumerate(self.agents)}
        self.start_pos = kp.start_pos
        self.ancestors = kp.ancestors                 # type -> (type, parent, ..., "object"), read-only
        self.isa_type = kp.isa_type
        self.state_attr = kp.state_attr
        self.relations = {n: len(r.params) for n, r in p.relations.items()}
        self.roles = kp.roles
        self.attr_defaults = {n: self._default(a) for n, a in p.attributes.items()}   # runtime values
        self.station_arg = {st.name: st.arg for st in self.map.stations}
        self.resource_cap = {n: r.capacity for n, r in p.resources.items()}
        self.statics = Statics(self.grid, self._containers(p), {}, self.ancestors, self.relations)
        self.compiler = Compiler(self.statics, p.attributes)
        self.logged = _logged_changes(p)
        self.compiler.logged = self.logged
        self.ops = {n: self._op(a) for n, a in p.actions.items()}
        self.surfaces = p.surfaces
        # action name -> (surface, argument name, cell?, {argument type: candidates}) for the surfaces with one
        # cell or object argument (the plan steps the simulator prepares without the general argument checks)
        self.step_specs: dict[str, tuple] = {name: (sf, sf.params[1].name, sf.params[1].type == "cell", {})
                           for name, sf in p.surfaces.items()
                           if len(sf.params) == 2 and not sf.final and sf.params[1].type != "number"}
        self.procs = [self._proc(pr) for pr in p.processes.values()]
        self.watched = frozenset(["destroy"]).union(*[pr.deps for pr in self.procs]) if self.procs else \
            frozenset(["destroy"])
        self.fast_triggers: Optional[dict] = None  # change name -> {types of the changed objects: triggers}
        self._fast_entries: dict = {}              # change name -> [(FastTrigger, var type)]
        if all(pr.triggers is not None and len(pr.params) == 1 for pr in self.procs):
            for pr in self.procs:
                assert pr.triggers is not None
                for name, triggers in pr.triggers.items():
                    for tr in triggers:
                        fast = FastTrigger(pr, tr.pos, tr.link, pr.types[tr.param])
                        self._fast_entries.setdefault(name, []).append((fast, tr.var_type))
            self.fast_triggers = {name: {} for name in self._fast_entries}
        self.orders = kp.orders
        self.limit = None
        if s.limit is not None:
            self.limit = self._number(s.limit)
        self._cands: dict = {}
        self._variants: dict = {}                  # (operator, rule) -> Op with the rule's extra start condition
        self._rescap: dict = {}
        self._initial: Optional[State] = None

    # ------------------------------------------------------------------ values
    @staticmethod
    def _default(a: ir.Attribute):
        """An attribute's default as the runtime holds it (``kitchen.logic.literal``: numbers exact)."""
        if a.default is None:
            return None
        return literal(a.default, a)

    def _number(self, expr):
        f = self.compiler.expression(expr.xreplace(self.consts), {}, {})
        return f(None, {})

    def _containers(self, p: ir.Project) -> dict:
        out = {}
        for name, c in p.containers.items():
            accepts = []
            for kind, state in c.accepts:
                attr, value = self.state_attr(kind, state) if state is not None else (None, None)
                accepts.append((kind, attr, value))
            out[name] = (tuple(accepts), c.capacity)
        return out

    # ------------------------------------------------------------------ operators
    def _delay(self, expr, vars):
        return self.compiler.expression(expr.xreplace(self.consts), vars, {})

    def _op(self, a: ir.Action) -> Op:
        c = self.compiler
        vars = {p.name: p.type for p in a.params}
        aggs = {g.symbol: g for g in a.aggregates}
        start_parts: list = []
        all_parts: list = []
        end_parts: list = []
        for cond in a.conditions:
            {ir.When.START: start_parts, ir.When.ALL: all_parts, ir.When.END: end_parts}[cond.when].extend(
                conjuncts(cond.formula))
        dur = a.duration.xreplace(self.consts)
        duration = c.expression(dur, vars, aggs)
        distance = None
        dists = sorted(dur.atoms(ir.Dist), key=str)
        if dists:
            distance = c.expression(dists[0], vars, aggs)
        starts = [e.effect for e in a.effects if e.when is ir.When.START]
        ends = [e.effect for e in a.effects if e.when is ir.When.END]
        op = Op(a.name, a, vars, start_parts, duration, distance,
                c.test(ir.And(tuple(all_parts)), vars) if all_parts else None,
                c.test(ir.And(tuple(end_parts)), vars) if end_parts else None,
                c.effects(starts, vars, self._delay) if starts else None,
                c.effects(ends, vars, self._delay) if ends else None,
                self._caps(a, starts + ends, vars), tuple(a.holds),
                tuple((p.name, p.type, p.source) for p in a.params if p.new), self)
        if op.caps:
            op.cap_check = _fast_caps(op.caps, self._cap_args(starts + ends, op.caps, vars)) or \
                (lambda st, env, op=op: self.check_caps(op, st, env))
        op.res_holds = tuple(n for n in op.holds if self._may_be_resource(vars.get(n)))
        op.distance_is_duration = bool(dists) and dur == dists[0]
        op.instant = bool(dur.is_Integer) and int(dur) == 0 and distance is None and op.start_apply is None and \
            op.all_test is None
        return op

    def _may_be_resource(self, typ: Optional[str]) -> bool:
        """Whether an object of declared type ``typ`` (None: unknown) can be a resource with a capacity."""
        if typ is None:
            return True
        for t, chain in self.ancestors.items():
            if (typ in chain or t in self.ancestors.get(typ, ())) and any(x in self.resource_cap for x in chain):
                return True
        return typ not in self.ancestors

    def _caps(self, a: ir.Action, effects, vars) -> list:
        """Capacity checks of an action's direct effects: (relation, position, capacity | None, adds, dels)."""
        out = []
        for r in self.project.relations.values():
            containment = r.role == "containment"
            if r.capacity is None and not containment:
                continue
            pos = r.capacity_per if r.capacity is not None else 1
            adds = [e.atom for e in effects if isinstance(e, ir.AddFact) and e.atom.relation == r.name]
            dels = [e.atom for e in effects if isinstance(e, ir.DelFact) and e.atom.relation == r.name]
            if not adds:
                continue
            if containment and r.capacity is None and not any(c[1] for c in self.statics.containers.values()):
                continue
            g = lambda atom: tuple(_getter(x, vars) for x in atom.args)   # noqa: E731
            out.append((r.name, pos, r.capacity, r.role, [g(x) for x in adds], [g(x) for x in dels]))
        return out

    @staticmethod
    def _cap_args(effects, caps: list, vars: dict) -> Optional[list]:
        """Per capacity check of ``_caps``: the variable names of its one added fact (None: some added fact
        has a literal argument, or there are several)."""
        out = []
        for name, *_ in caps:
            adds = [e.atom.args for e in effects if isinstance(e, ir.AddFact) and e.atom.relation == name]
            if len(adds) != 1 or not all(x in vars for x in adds[0]):
                return None
            out.append(tuple(adds[0]))
        return out

    def check_caps(self, op: Op, st: State, env: dict):
        """None, or (relation, key object, capacity, role) of the first capacity the action would exceed."""
        for name, pos, cap, role, adds, dels in op.caps:
            rel = st.rels[name]
            facts = rel.facts
            if len(adds) == 1 and not dels and cap is not None:        # the common case: one new fact
                tup = tuple([g(st, env) for g in adds[0]])
                key = tup[pos]
                if tup not in facts and len(rel.by(pos, key)) + 1 > cap:
                    return name, key, cap, role
                continue
            added = list(dict.fromkeys(tuple([g(st, env) for g in gs]) for gs in adds))
            removed = list(dict.fromkeys(tuple([g(st, env) for g in gs]) for gs in dels))
            for tup in added:
                key = tup[pos]
                limit = cap
                if role == "containment" and limit is None:
                    spec = self.statics.container_spec(st, key)
                    limit = spec[1] if spec else None
                if limit is None:
                    continue
                n = len(rel.by(pos, key))
                n += sum(1 for x in added if x[pos] == key and x not in facts)
                n -= sum(1 for x in removed if x[pos] == key and x in facts)
                if n > limit:
                    return name, key, limit, role
        return None

    def candidates(self, surface: ir.Surface, args: tuple, st: State) -> list:
        """Operators of ``surface`` whose bound parameter types fit the argument objects (declared order), as
        (op, names of the surface-bound parameters, first-binding solver, the second name when there are two
        else None, new objects, capacity check, held resource parameters, instant, end test, end effects)
        tuples: what the simulator's start path reads, resolved once."""
        otype = st.otype
        if len(args) == 1:
            x = args[0]
            key = (surface.name, otype.get(x, "cell" if isinstance(x, tuple) else "number"))
        else:
            key = (surface.name,) + tuple([otype.get(x, "cell" if isinstance(x, tuple) else "number") for x in args])
        out = self._cands.get(key)
        if out is None:
            out = []
            k = len(surface.params)
            rules = self.rules.operators
            for name in surface.operators:
                op = self.ops[name]
                if rules:
                    ruled = self._ruled(op, key[1:])
                    if ruled is None:
                        continue
                    op = ruled
                if all(self.isa_type(t, p.type) for t, p in zip(key[1:], op.action.params[1:])):
                    names = op.bound_names(k)
                    out.append((op, names, op.solver(k).first, names[1] if len(names) == 2 else None, op.new,
                                op.cap_check, op.res_holds, op.instant, op.end_test, op.end_apply))
            self._cands[key] = out
        return out

    def _ruled(self, op: Op, arg_types: tuple) -> Optional[Op]:
        """``op`` as the rules allow it on arguments of ``arg_types``: None when a rule leaves it out for a
        station argument's kind, a variant with the rule's extra start condition, or ``op`` itself."""
        for t in arg_types:
            rule = self.rules.operator_rule(op.name, self.ancestors.get(t, (t, "object")))
            if rule is None:
                continue
            if rule.require is None:
                return None
            variant = self._variants.get((op.name, rule))
            if variant is None:
                a = op.action
                cond = ir.Condition(ir.When.START, rule.require)
                variant = self._variants[(op.name, rule)] = self._op(replace(a, conditions=a.conditions + (cond,)))
            return variant
        return op

    def resource_capacity(self, st: State, obj) -> Optional[int]:
        typ = st.otype.get(obj)
        cap = self._rescap.get(typ, 0)
        if cap == 0:
            cap = None
            for t in self.ancestors.get(typ, ()):
                if t in self.resource_cap:
                    cap = self.resource_cap[t]
                    break
            self._rescap[typ] = cap
        return cap

    # ------------------------------------------------------------------ processes
    def fast_for(self, name: str, types: tuple) -> tuple:
        """The process triggers (``FastTrigger``) a change of ``name`` on objects of ``types`` (None: not an
        object) fires, in declared order; a direct trigger (link None) applies when the object is of the
        parameter's type, a linked one when it is of the quantified variable's type (or that type is unknown).
        Cached in ``fast_triggers``."""
        found = []
        for fast, vtype in self._fast_entries[name]:
            typ = types[0] if fast.pos is None else types[fast.pos]
            chain = self.ancestors.get(typ, (typ, "object")) if typ is not None else ()
            if (fast.param_type in chain) if fast.link is None else (vtype is None or vtype in chain):
                found.append(fast)
        out = tuple(found)
        cache = self.fast_triggers
        assert cache is not None, "asked only when every process has fast triggers"
        cache[name][types] = out
        return out

    def _proc(self, pr: ir.Process) -> Proc:
        c = self.compiler
        vars = {p.name: p.type for p in pr.params}
        aggs = {g.symbol: g for g in pr.aggregates}
        scope = c.test(pr.scope, vars) if pr.scope is not None else None
        deps: set = set()
        _deps(pr.condition, deps)
        for g in pr.aggregates:
            _deps(g.formula, deps)
        depth = max([1, _nesting(pr.condition)] + [_nesting(g.formula) + 1 for g in pr.aggregates])
        base = conjuncts(pr.scope if pr.scope is not None else pr.condition)
        binders = []
        for p in pr.params:
            binders.append(Solver(c, base, frozenset([p.name]), vars))
        formulas = [pr.condition] + [ir.Exists(g.var, g.type, g.formula) for g in pr.aggregates]
        cond = c.test(pr.condition, vars)
        duration = c.expression(pr.duration.xreplace(self.consts), vars, aggs)
        apply = c.effects(pr.effects, vars, self._delay)
        triggers = _triggers(formulas, [p.name for p in pr.params], set(self.relations))
        cond_in_scope = cond
        if pr.scope is not None:
            within = conjuncts(pr.scope)
            parts = conjuncts(pr.condition)
            if all(f in parts for f in within):
                rest = [f for f in parts if f not in within]
                cond_in_scope = c.test(ir.And(tuple(rest)), vars) if rest else (lambda st, env: True)
        return Proc(pr.name, pr, tuple(p.name for p in pr.params), tuple(p.type for p in pr.params), scope,
                    cond, duration, apply, frozenset(deps), depth, binders, cond_in_scope, triggers)

    # ------------------------------------------------------------------ the initial state
    def initial_state(self) -> State:
        """A fresh copy of the scenario's initial state (built once, then copied)."""
        if self._initial is None:
            self._initial = self._build_initial()
        return self._initial.snapshot()

    def _build_initial(self) -> State:
        st = State(self.ancestors, self.relations, self.attr_defaults)
        st.logged = self.logged
        for a in self.agents:
            st.add_object(a, "agent")
            st.pos[a] = self.start_pos[a]
        for name, o in self.project.objects.items():
            st.add_object(name, o.type)
        for s in self.map.stations:
            st.add_object(s.name, s.kind)
        placement = self.roles.get("placement")
        for item, typ, station in self.problem.initial_items:       # named by the problem: plate1, pan1, ...
            if placement is None:
                raise CompileFailure(NO_PLACEMENT)
            st.add_object(item, typ)
            st.confirm(item)                                         # as new_object: counter and log
            st.add(placement, (item, station))
        st.drain()
        return st


def _fast_caps(caps: list, args: Optional[list] = None) -> Optional[Callable]:
    """``World.check_caps`` for the common case (each capped relation gains one fact and loses none), or
    None when some check needs the general path.  ``args``: the variable names of each added fact (see
    ``World._cap_args``), read from the binding directly when every fact has two."""
    if not all(len(adds) == 1 and not dels and cap is not None for _, _, cap, _, adds, dels in caps):
        return None
    specs = [(name, pos, cap, role, adds[0]) for name, pos, cap, role, adds, _ in caps]
    empty: dict = {}
    if args is not None and all(len(a) == 2 for a in args):
        specs2 = [(name, pos, cap, role, a[0], a[1]) for (name, pos, cap, role, _), a in zip(specs, args)]

        @cython.locals(st=State)
        def check2(st, env):
            rels = st.rels
            for name, pos, cap, role, a0, a1 in specs2:
                rel = rels[name]
                tup = (env[a0], env[a1])
                key = tup[pos]
                if tup not in rel.facts and len(rel.idx[pos].get(key, empty)) + 1 > cap:
                    return name, key, cap, role
            return None
        return check2

    def check(st, env):
        rels = st.rels
        for name, pos, cap, role, gs in specs:
            rel = rels[name]
            tup = (gs[0](st, env), gs[1](st, env)) if len(gs) == 2 else tuple([g(st, env) for g in gs])
            key = tup[pos]
            if tup not in rel.facts and len(rel.idx[pos].get(key, empty)) + 1 > cap:
                return name, key, cap, role
        return None
    return check


def _logged_changes(p: ir.Project) -> Optional[frozenset]:
    """The change names the simulator must log (``State.logged``): what processes depend on, what the 'when
    all' conditions of actions read, and object destruction; None (log everything) when some 'when all'
    condition could be falsified without touching its action's objects or could be false when the action
    starts -- the simulator re-checks it on any logged change of its objects, so only then do other changes
    matter.  Exact for conditions that are conjunctions of atoms and comparisons over the action's
    parameters, each also a start condition."""
    names = {"destroy"}
    for pr in p.processes.values():
        _deps(pr.condition, names)
        for g in pr.aggregates:
            _deps(g.formula, names)
    for a in p.actions.values():
        params = {q.name for q in a.params}
        start = set()
        for cond in a.conditions:
            if cond.when is ir.When.START:
                start.update(conjuncts(cond.formula))
        for cond in a.conditions:
            if cond.when is not ir.When.ALL:
                continue
            for f in conjuncts(cond.formula):
                if f not in start:
                    return None
                if isinstance(f, ir.Atom):
                    if f.relation not in p.relations or not all(x in params for x in f.args):
                        return None
                elif isinstance(f, ir.Compare):
                    for term in (f.left, f.right):
                        if term.kind == "attr" and term.arg not in params or term.kind == "var" and \
                                term.name not in params:
                            return None
                else:
                    return None
                _deps(f, names)
    return frozenset(names)


def _deps(f, out: set) -> None:
    if isinstance(f, ir.Atom):
        out.add(f.relation)
    elif isinstance(f, ir.Compare):
        for t in (f.left, f.right):
            if t.kind == "attr":
                out.add(t.name)
    elif isinstance(f, (ir.And, ir.Or)):
        for a in f.args:
            _deps(a, out)
    elif isinstance(f, ir.Not):
        _deps(f.arg, out)
    elif isinstance(f, ir.Exists):
        _deps(f.formula, out)


def _nesting(f) -> int:
    if isinstance(f, ir.Exists):
        return 1 + _nesting(f.formula)
    if isinstance(f, (ir.And, ir.Or)):
        return max([0] + [_nesting(a) for a in f.args])
    if isinstance(f, ir.Not):
        return _nesting(f.arg)
    return 0


BUILTINS = BUILTIN_ATOMS


def _triggers(formulas, params: list, relations: set):  # noqa: C901
    """Which parameter values a change can affect: {relation or attribute: [Trigger]} where a changed fact's
    (or attribute's, pos None) object at ``pos`` is parameter j (link None) or is a quantified variable of
    type vtype joined to parameter j by a ``Link``.
    None when the formulas nest quantifiers or use a quantified variable without such a join (the simulator
    then searches neighbours)."""
    out: dict = {}
    pindex = {p: j for j, p in enumerate(params)}

    qtypes: dict = {}

    def links_of(parts, var):
        found = []
        for a in parts:
            if isinstance(a, ir.Atom) and a.relation in relations and var in a.args:
                for k, x in enumerate(a.args):
                    if x in pindex:
                        found.append((Link(a.relation, a.args.index(var), k), pindex[x]))
        return found

    def visit(parts, qvar):  # noqa: C901
        for f in parts:
            if isinstance(f, ir.Exists):
                if qvar is not None:
                    return False
                inner = conjuncts(f.formula)
                qtypes[f.var] = f.type
                if not links_of(inner, f.var):
                    return False
                if not visit(inner, f.var):
                    return False
            elif isinstance(f, ir.Not):
                if not visit([f.arg], qvar):
                    return False
            elif isinstance(f, (ir.And, ir.Or)):
                if not visit(list(f.args), qvar):
                    return False
            else:
                names = []
                if isinstance(f, ir.Atom):
                    if f.relation not in relations:
                        continue
                    names = [(f.relation, k, x) for k, x in enumerate(f.args)]
                elif isinstance(f, ir.Compare):
                    names = [(t.name, None, t.arg) for t in (f.left, f.right) if t.kind == "attr"]
                for name, pos, x in names:
                    if x in pindex:
                        out.setdefault(name, []).append(Trigger(pos, None, pindex[x], None))
                    elif x == qvar:
                        for link, j in links_of(parts, qvar):
                            out.setdefault(name, []).append(Trigger(pos, link, j, qtypes.get(qvar)))
        return True

    for f in formulas:
        if not visit(conjuncts(f), None):
            return None
    return {k: list(dict.fromkeys(v)) for k, v in out.items()}
