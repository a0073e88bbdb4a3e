"""PDDL export of action-based grid kitchens (ParaCook physics): temporal PDDL 2.1 and classical STRIPS.

Input: a checked ``ir.Project`` and a kitchen scenario (a map, agents and orders), instantiated in the
compiler (``compiler/kitchen/problem.py``).  What each operator does is read from its declaration, not its
name (``compiler/kitchen/physics.py``: relation roles and effects give each operator a shape -- move, take,
dispense, pick, put, add, scoop, transfer, process, serve, discard, wait -- and the station types their
parts); the durations, state values, accepted kinds, cook times and the plate-return delay are read from the
compiled scenario, so constant overrides, edited recipes and a consistently renamed physics carry over.
PDDL actions are named after the operators (``put_down`` -> ``put-down``) and typed by their parameters.
Output: ``PddlExport`` whose ``actions`` map each PDDL action name to a ``KitchenAction`` (the surface action
it stands for and which parameters are the agent and the target), used by ``runtime.kitchen.solve`` to turn
a planner's plan into a ParaCook plan.  Raises ``ExportError`` (P010) for operators of no known shape and
for physics without the parts the lowering needs (e.g. no operator cleaning the served plates).

Lowering (docs/pddl.md, "Grid kitchens"): agent positions are facts over the floor cells next to stations
(and the start cells); one ``move-dK`` action per walking distance K with static ``(dist-K from to)``
facts; every interaction takes one PDDL tick (the simulator: 0) so that a planner can order the
zero-duration chains; dispensers hand out objects from a pool per ingredient kind sized by the orders;
cooking processes become ``cook-P`` world actions (no agent) with the cookware on the stove ``over all``
(the simulator pauses instead; lifting the pan is forbidden in PDDL); cookware holds one ingredient at a
time; plates count their contents so that ``serve-K`` (one per order, in sequence) checks the exact recipe;
the dirty plate comes back through a ``return-plate`` world action lasting the delay.  Every restriction is
reported as a warning (P011-P018).  Only positive preconditions are used (lock facts such as ``hand-empty``), so
LPG-td, aries, kairos, Fast Downward and pyperplan read the same files.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

from chronoplan.compiler import ir
from chronoplan.compiler.kitchen.physics import Physics, Shape, conjuncts, literal
from chronoplan.compiler.kitchen.problem import KitchenError, KitchenProblem
from chronoplan.compiler.pddl.common import ExportError, PddlExport, TimeScale, error, unroll_limit, warning
from chronoplan.compiler.pddl.names import NameMap, value_code
from chronoplan.compiler.pddl.write import Domain, DurativeAction, Lit, PddlAction, Predicate, Problem

TICK = 10                      # PDDL ticks per scenario time unit (an interaction lasts one tick)
MAX_MOVE_FACTS = 200_000       # (dist-K from to) facts; beyond that the export refuses (huge maps)

# The export's own predicate and action names (the operators' PDDL names are reserved after them).
RESERVED_NAMES = ("at", "idle", "hand-empty", "holding", "on", "empty", "free", "puttable", "in", "cw-empty",
                  "filled", "succ", "fresh", "pool-next", "pool-last", "source", "adj", "returning", "return-slot",
                  "zero", "all-served", "return-plate", "clean-true", "clean-false")


@dataclass(frozen=True)
class KitchenAction:
    """What a PDDL action of the kitchen export stands for: ``surface`` (MoveTo, Interact, Process) or None
    for world actions (cooking); ``operator`` the physics operator; ``agent`` and ``target`` parameter
    indexes (the target is a cell for MoveTo, a station otherwise)."""

    surface: Optional[str]
    operator: str
    agent: Optional[int] = None
    target: Optional[int] = None


def _lit(pred: str, *args: str) -> Lit:
    return Lit(pred, tuple(args))


def _neg(pred: str, *args: str) -> Lit:
    return Lit(pred, tuple(args), False)


class _Export:
    def __init__(self, project: ir.Project, scenario: str, classical: bool, agents: Optional[tuple] = None) -> None:
        self.world = w = KitchenProblem(project, scenario)
        self.p = w.project
        self.scen = w.scenario
        self.classical = classical
        self.names = NameMap()
        for n in RESERVED_NAMES:            # unified-planning wants one name space for everything
            self.names.name(("reserved", n), None, n)
        self.diags: list = []
        self.actions: list = []
        self.info: dict = {}
        self.consts = w.consts
        self.phys = Physics(self.p)
        for op in self.p.actions:
            self.names.name(("reserved", _dash(op)), None, _dash(op))
        if self.phys.errors:
            op, why = next(iter(self.phys.errors.items()))
            raise ExportError([error(
                "P010", f"scenario {scenario}: operator {op} does not have a shape the kitchen export lowers: "
                f"{why}", self.p.actions[op].span,
                ("see docs/pddl.md, 'Grid kitchens', for the lowering of each kind of operator",))])
        self.surface_of = {op: s.name for s in self.p.surfaces.values() for op in s.operators}
        self.agents = tuple(a for a in w.agents if agents is None or a in agents)
        if agents is not None and len(self.agents) < len(w.agents):
            left = [a for a in w.agents if a not in self.agents]
            self.diags.append(warning("P018", f"planning for {', '.join(self.agents)} only ({', '.join(left)} "
                                      "stay idle)", self.scen.span))
        self.placement = w.roles.get("placement")
        self.stations = list(self.map.stations)

    @property
    def map(self):
        return self.world.map

    # ------------------------------------------------------------------ numbers
    def number(self, expr) -> Fraction:
        v = expr.xreplace(self.consts)
        if not v.is_number:
            raise ExportError([error("P010", f"scenario {self.scen.name}: {expr} is not a number in the "
                                     "kitchen export", self.scen.span)])
        return Fraction(str(v))

    def ticks(self, x: Fraction) -> Fraction:
        return Fraction(x) * self.scale.factor

    def op_duration(self, name: str) -> Fraction:
        return self.number(self.p.actions[name].duration)

    # ------------------------------------------------------------------ names
    def agent(self, a: str) -> str:
        return self.names.name(("agent", a), None, a)

    def cell(self, c) -> str:
        return self.names.name(("cell", tuple(c)), None, f"c{c[0]}_{c[1]}")   # no '-digit': UP reads it as minus

    def station(self, s: str) -> str:
        return self.names.name(("station", s), None, s)

    def item(self, o: str) -> str:
        return self.names.name(("item", o), None, o)

    def count(self, k: int) -> str:
        return self.names.name(("count", k), None, f"n{k}")

    def ptype(self, t: str) -> str:
        return self.names.name(("type", t), None, t)

    # ------------------------------------------------------------------ the export
    def run(self) -> PddlExport:
        w = self.world
        durs = [self.op_duration(a) for a, s in self.phys.shapes.items() if s.kind not in ("move", "wait")]
        factor = TICK
        for d in durs + [self.number(c) for c in self.consts.values() if getattr(c, "is_number", False)]:
            factor = factor * d.denominator // math.gcd(factor, d.denominator)
        self.scale = TimeScale(factor, 1)
        self.transitions()
        self.build_objects()
        self.build_moves()
        for a, shape in self.phys.each("take", "dispense", "pick", "add", "scoop", "transfer", "put", "process"):
            getattr(self, "op_" + shape.kind)(a, shape)
        self.build_cooking()
        self.build_serves()
        for a, _ in self.phys.each("discard"):
            self.diags.append(warning("P016", f"operator {a.name} is not exported (serving the orders never "
                                      "needs it); planners' plans do not use it", a.span))
        domain = Domain(
            name=self.names.name(("domain",), None, "kitchen", self.scen.name),
            requirements=(":strips", ":typing") + ((":action-costs",) if self.classical else (":durative-actions",)),
            types=tuple(self.types), predicates=tuple(self.predicates()), actions=tuple(self.actions),
            functions=("(total-cost) - number",) if self.classical else (),
            header=self.header())
        problem = Problem(
            name=self.names.name(("problem",), None, self.scen.name), domain=domain.name,
            objects=tuple(self.objects), init=tuple(self.init), goal=(_lit(self.turn(len(w.orders))),),
            numeric_init=((("(total-cost)", Fraction(0)),) if self.classical else ()),
            metric="minimize (total-cost)" if self.classical else "minimize (total-time)",
            header=self.header())
        return PddlExport(self.scen.name, self.classical, domain, problem, tuple(self.diags), self.names,
                          self.scale, self.info, None)

    def header(self) -> tuple:
        kind = "classical sequential approximation" if self.classical else "PDDL 2.1 temporal"
        lines = [f"Generated by chronoplan from kitchen scenario {self.scen.name} ({kind}).",
                 f"Time: 1 PDDL unit = 1/{self.scale.factor} {self.world.unit.label}; an interaction "
                 "(0 in the simulator) lasts 1 PDDL unit."]
        if self.classical:
            lines.append("Action costs are durations in scenario time units; chronoplan solve retimes the plan "
                         "in the simulator.")
        return tuple(lines)

    # ------------------------------------------------------------------ states read from the IR
    def cleaning(self) -> tuple:
        """(attribute, from, to) of the operator that makes a served container usable again (a Process
        operator on a served container type, such as ``wash``); P010 when the domain has none (served plates
        come back and must be cleaned)."""
        for a, shape in self.phys.each("process"):
            if self.served_like(self.phys.types(a)[shape.item]):
                return self.trans[a.name]
        raise ExportError([error(
            "P010", f"scenario {self.scen.name}: the kitchen export needs an operator that makes a served "
            f"{' or '.join(sorted(self.phys.served_types))} usable again (a Process operator changing its "
            "attribute, like 'wash' in domains/paracook/physics.chrono), and this domain has none",
            self.scen.span, ("see docs/pddl.md, 'Grid kitchens', for the lowering of each kind of operator",))])

    def transitions(self) -> None:
        """(attribute, from, to) of each Process operator (chop, wash) and each process, read from their
        conditions and effects."""
        self.trans: dict = {}
        for a, _ in self.phys.each("process"):
            conds = [c.formula for c in a.conditions if c.when is ir.When.START]
            effs = [e.effect for e in a.effects if e.when is ir.When.END]
            self.trans[a.name] = self._transition(conds, effs, a.name, a.span)
        self.cooks = []
        for pr in self.p.processes.values():
            fa = [e for e in pr.effects if isinstance(e, ir.Forall)]
            if len(pr.params) != 1 or len(fa) != 1:
                raise self._shape(f"process {pr.name}", pr.span)
            t = self._transition([fa[0].formula], list(fa[0].effects), f"process {pr.name}", pr.span)
            nodes = pr.duration.atoms(ir.Count, ir.AttrRef, ir.Dist)            # count(...), x.attr, dist(...)
            dur = pr.duration.xreplace({f: 1 for f in nodes})                    # each = 1
            heat = self.phys.heat_of(pr)
            if not heat:
                raise ExportError([error("P010", f"process {pr.name} does not say on which station its "
                                         "container must stand (exists(s: T where on(p, s))); the kitchen export "
                                         "lowers it to a world action with the container on such a station",
                                         pr.span)])
            self.cooks.append((pr, pr.params[0].type, t, self.number(dur), heat[0], fa[0].type))
        self.diags += [warning("P011", f"process {pr.name} is exported as an action cook-{pr.name} of "
                               f"{num_text(d)} per item that keeps the {typ} on the stove throughout; the "
                               "simulator pauses cooking when the cookware is lifted instead", pr.span)
                       for pr, typ, _, d, _, _ in self.cooks]

    def _transition(self, conds, effs, what: str, span):
        cmp = [c for f in conds for c in conjuncts(f) if isinstance(c, ir.Compare) and c.op == "==" and
               c.left.kind == ir.TermKind.ATTR and c.right.kind == ir.TermKind.VALUE]
        asg = [e for e in effs if isinstance(e, ir.Assign) and e.value.kind == ir.TermKind.VALUE]
        if len(cmp) != 1 or len(asg) != 1 or cmp[0].left.name != asg[0].target.name:
            raise self._shape(what, span)
        attr = self.p.attributes[cmp[0].left.name]
        return attr.name, _value(attr, cmp[0].right.name), _value(attr, asg[0].value.name)

    def _shape(self, what: str, span) -> ExportError:
        return ExportError([error("P010", f"{what} does not have the shape the kitchen export lowers "
                                  "(one attribute test, one assignment)", span)])

    def state(self, attr: str, value, x: str) -> Lit:
        return _lit(f"{value_code(attr)}-{value_code(value)}", x)

    def attr_conds(self, a: ir.Action, var: Optional[str], x: str) -> list:
        """The state facts of PDDL variable ``x`` that the start conditions of ``a`` require of its parameter
        ``var`` (``d.clean == true`` -> ``(clean-true ?p)``; none when the shape has no such parameter)."""
        out: list = []
        if var is None:
            return out
        for cond in a.conditions:
            if cond.when is not ir.When.START:
                continue
            for c in conjuncts(cond.formula):
                if isinstance(c, ir.Compare) and c.op == "==" and c.left.kind == ir.TermKind.ATTR and \
                        c.left.arg == var and c.right.kind == ir.TermKind.VALUE and c.left.name in self.p.attributes:
                    out.append(self.state(c.left.name, _value(self.p.attributes[c.left.name], c.right.name), x))
        return out

    # ------------------------------------------------------------------ the parts types play (by structure)
    def isa(self, t: str, ancestor: str) -> bool:
        return self.world.isa_type(t, ancestor)

    def related(self, t: str, types) -> bool:
        """``t`` is one of ``types``, a subtype or an ancestor of one (``cookware`` and ``pan``)."""
        return any(self.isa(t, x) or self.isa(x, t) for x in types)

    def cookware_like(self, t: str) -> bool:
        return self.related(t, self.phys.cooking_types)

    def served_like(self, t: str) -> bool:
        return self.related(t, self.phys.served_types)

    def is_container(self, t: str) -> bool:
        """``t`` is below the nearest common ancestor of the declared containers (``container``)."""
        chains = [self.world.ancestors.get(c, (c,)) for c in self.p.containers]
        root = next((x for x in chains[0] if all(x in c for c in chains)), None) if chains else None
        return root is not None and root != "object" and self.isa(t, root)

    def fixed_station(self, kind: str) -> bool:
        """Dispensers and plate returns: the simulator puts things there by itself."""
        return any(self.isa(kind, t) for t in self.phys.dispenser_types | self.phys.return_types)

    def needs_puttable(self, station_type: str) -> bool:
        return any(self.isa(t, station_type) for t in self.phys.dispenser_types | self.phys.return_types)

    def puttable(self, kind: str) -> bool:
        """A station the put operators needing ``puttable`` may put on (not a dispenser or plate return)."""
        return not self.fixed_station(kind) and any(
            self.isa(kind, self.phys.types(a)[sh.station]) for a, sh in self.phys.each("put")
            if self.needs_puttable(self.phys.types(a)[sh.station]))

    # ------------------------------------------------------------------ objects and the initial state
    def build_objects(self) -> None:  # noqa: C901
        w = self.world
        self.objects: list = []
        self.init: list = []
        self.types: list = []
        seen_types: set = set()

        def add_type(t: str) -> str:
            chain = w.ancestors.get(t, (t, "object"))
            for child, parent in zip(chain, chain[1:]):
                if child not in seen_types:
                    seen_types.add(child)
                    self.types.append((self.ptype(child), "object" if parent == "object" else self.ptype(parent)))
            return self.ptype(t) if t != "object" else "object"

        for t in list(w.ancestors) + ["count"]:
            if t not in ("object", "number", "bool"):
                add_type(t)
        for a in self.agents:
            self.objects.append((self.agent(a), add_type("agent")))
            self.init += [_lit("at", self.agent(a), self.cell(w.start_pos[a])), _lit("idle", self.agent(a)),
                          _lit("hand-empty", self.agent(a))]
        resources = set(self.p.resources)
        on = {station: item for item, _, station in w.initial_items}
        otype = {item: typ for item, typ, _ in w.initial_items}
        for s in self.stations:
            self.objects.append((self.station(s.name), add_type(s.kind)))
            if s.name in on:
                self.init.append(_lit("on", self.item(on[s.name]), self.station(s.name)))
            else:
                self.init.append(_lit("empty", self.station(s.name)))
            if any(w.isa_type(s.kind, r) for r in resources):
                self.init.append(_lit("free", self.station(s.name)))
            if self.puttable(s.kind):
                self.init.append(_lit("puttable", self.station(s.name)))
        self.containers = []
        for item in on.values():
            typ = otype[item]
            self.objects.append((self.item(item), add_type(typ)))
            self.init += self.attr_facts(item, typ)
            if self.is_container(typ):
                self.containers.append((self.item(item), typ))
                if self.cookware_like(typ):
                    self.init.append(_lit("cw-empty", self.item(item)))
                else:
                    self.init.append(_lit("filled", self.item(item), self.count(0)))
        # ingredient pools: as many of each kind as the orders need
        need: dict = {}
        for dish in w.orders:
            for k, _, _, n in dish.items:
                unroll_limit(f"the count of {k} in recipe {dish.name}", n, self.scen.span)
            kinds = [k for k, _, _, n in dish.items for _ in range(n)]
            if len(set(kinds)) != len(kinds):
                raise ExportError([error("P010", f"recipe {dish.name} lists an ingredient kind twice; the kitchen "
                                         "export matches each ingredient by kind", self.scen.span)])
            for k in kinds:
                need[k] = need.get(k, 0) + 1
                unroll_limit(f"the number of {k} the orders need", need[k], self.scen.span)
        self.pool: dict = {}
        for kind, n in need.items():
            for j in range(1, n + 1):
                name = self.names.name(("pool", kind, j), None, f"{kind}_{j}")
                self.objects.append((name, add_type(kind)))
                self.pool.setdefault(kind, []).append(name)
                self.init += self.attr_facts(None, kind, name)
                for s in self.stations:
                    if s.arg == kind and any(w.isa_type(s.kind, t) for t in self.phys.dispenser_types):
                        self.init.append(_lit("source", self.station(s.name), name))
        for _kind, names in self.pool.items():      # handed out in a fixed order: no symmetric choices
            self.init += [_lit("fresh", names[0]), _lit("pool-last", names[-1])]
            self.init += [_lit("pool-next", x, y) for x, y in zip(names, names[1:])]
        self.diags.append(warning("P012", "objects created by dispensers come from pools sized by the orders ("
                                  + ", ".join(f"{n} {k}" for k, n in need.items()) + "); a plan that wastes "
                                  "ingredients has no PDDL counterpart", self.scen.span))
        # accepted kinds: one static fact per (container, pool ingredient, required state or 'any')
        self.accepts: dict = {"plate": set(), "cookware": set()}     # role -> {(attr, value) | None}
        for c, typ in self.containers:
            role = "cookware" if self.cookware_like(typ) else "plate"
            for kind, names in self.pool.items():
                for acc_kind, attr, value in _spec(w, typ):
                    if w.isa_type(kind, acc_kind):
                        key = "any" if attr is None else value_code(value)
                        self.accepts[role].add((attr, value) if attr else None)
                        self.init += [_lit(f"accepts-{key}", c, i) for i in names]
        self.max_items = max((sum(n for *_, n in d.items) for d in w.orders), default=0)
        unroll_limit("the number of items on one plate", self.max_items, self.scen.span)
        for k in range(self.max_items + 1):
            self.objects.append((self.count(k), add_type("count")))
            if k:
                self.init.append(_lit("succ", self.count(k - 1), self.count(k)))
        self.init.append(_lit(self.turn(0)))

    def attr_facts(self, obj: Optional[str], typ: str, name: Optional[str] = None) -> list:
        """State facts of an object: its attribute values (the defaults: objects on stations and pool objects
        start with them)."""
        out = []
        for attr in self.p.attributes.values():
            if not attr.params or not self.world.isa_type(typ, attr.params[0]):
                continue
            v = self.world.attr_defaults.get(attr.name)
            if v is not None:
                out.append(self.state(attr.name, v, name or self.item(obj or typ)))
        return out

    def turn(self, k: int) -> str:
        return "all-served" if k >= len(self.world.orders) else f"turn-{k + 1}"

    def predicates(self) -> list:
        used: dict = {}
        for a in self.actions:
            lits = (a.pre + a.eff) if isinstance(a, PddlAction) else \
                (a.cond_start + a.cond_all + a.cond_end + a.eff_start + a.eff_end)
            for lit in lits:
                used.setdefault(lit.pred, len(lit.args))
        for lit in self.init:
            used.setdefault(lit.pred, len(lit.args))
        out = []
        for pred, arity in sorted(used.items()):
            out.append(Predicate(pred, tuple((f"?x{i}", "object") for i in range(arity))))
        return out

    # ------------------------------------------------------------------ movement
    def build_moves(self) -> None:
        w, grid = self.world, self.world.grid
        cells = self.standing_cells()
        for s in self.stations:
            for c in grid.adjacent_cells(s.name):
                if c in cells:
                    self.init.append(_lit("adj", self.cell(c), self.station(s.name)))
        for a in self.agents:
            if w.start_pos[a] not in cells:
                cells.append(w.start_pos[a])
        for c in cells:
            self.objects.append((self.cell(c), self.ptype("cell")))
        pairs = len(cells) * (len(cells) - 1)
        if pairs > MAX_MOVE_FACTS:
            raise ExportError([error("P010", f"scenario {self.scen.name}: {len(cells)} cells next to stations "
                                     f"give {pairs} move facts (limit {MAX_MOVE_FACTS})", self.scen.span)])
        a, _ = self.phys.first("move")
        if a is None:
            return
        dists = sorted(a.duration.atoms(ir.Dist), key=str)
        by_d: dict = {}
        for c1 in cells:
            for c2 in cells:
                d = grid.dist(c1, c2) if c1 != c2 else None
                if d:
                    by_d.setdefault(d, []).append((c1, c2))
        for d in sorted(by_d):
            dur = self.number(a.duration.xreplace({f: d for f in dists}))
            pred = f"dist-{d}"
            self.init += [_lit(pred, self.cell(c1), self.cell(c2)) for c1, c2 in by_d[d]]
            self.agent_action(f"move-d{d}", a.name, (("?a", "agent"), ("?from", "cell"), ("?to", "cell")),
                              dur, [_lit(pred, "?from", "?to")], [_lit("at", "?a", "?from")],
                              [_lit("at", "?a", "?to")], target=2, located=False,
                              comment=f"MoveTo over {d} tiles")

    def standing_cells(self) -> list:
        """The cells agents stop on: a greedy cover of the stations by their floor neighbours (a cell next to
        several stations first; ties: the cell closest to all others, then the smallest (y, x)), among the cells
        some agent can reach.  Every reachable station keeps at least one cell; fewer cells make the planners'
        search much smaller."""
        grid, starts = self.world.grid, [self.world.start_pos[a] for a in self.agents]
        near: dict = {}
        for s in self.stations:
            for c in grid.adjacent_cells(s.name):
                if any(grid.dist(a, c) is not None for a in starts):     # reachable by some agent
                    near.setdefault(c, set()).add(s.name)
        uncovered = set().union(*near.values()) if near else set()
        spread = {c: sum(grid.dist(c, o) or 0 for o in near) for c in near}
        chosen: list = []
        while uncovered:
            best = min(near, key=lambda c: (-len(near[c] & uncovered), spread[c], c[1], c[0]))
            chosen.append(best)
            uncovered -= near[best]
        if len(chosen) < len(near):
            self.diags.append(warning("P017", f"agents stop on {len(chosen)} of the {len(near)} cells next to "
                                      "stations (each station keeps one); plans may walk a little further",
                                      self.scen.span))
        return sorted(chosen, key=lambda c: (c[1], c[0]))

    # ------------------------------------------------------------------ agent actions
    def agent_action(self, name: str, op: str, params: tuple, duration: Fraction, static: list, consumed: list,
                     produced: list, *, target: int, during: tuple = (), released: tuple = (),
                     located: bool = True, comment: str = "") -> None:
        """One PDDL action for ``op``.  ``consumed`` facts are required and deleted at the start, ``produced``
        added at the end,
        ``static`` only required; ``during`` must hold throughout; ``released`` are deleted at the start and
        restored at the end (locks such as a chopping board's ``free``).  ``located``: the agent stands next
        to the target station (a ``?c - cell`` parameter is added)."""
        params = tuple((v, self.ptype(t)) for v, t in params)
        pre = list(static)
        if located:
            params += (("?c", self.ptype("cell")),)
            pre = [_lit("at", "?a", "?c"), _lit("adj", "?c", params[target][0])] + pre
        ticks = self.ticks(duration) if duration else Fraction(1)
        surface = self.surface_of.get(op)
        self.info[name] = KitchenAction(surface, op, 0, target)
        if self.classical:
            eff = [lit.negate() for lit in consumed] + list(produced)
            pre += list(consumed) + list(released) + list(during)
            self.actions.append(PddlAction(name, params, tuple(pre), tuple(_net(eff)), cost=duration, comment=comment))
            return
        lock = [_lit("idle", "?a")]
        self.actions.append(DurativeAction(
            name, params, ticks, False,
            cond_start=tuple([_lit("idle", "?a")] + pre + list(consumed) + list(released)),
            cond_all=tuple(during),
            eff_start=tuple(lit.negate() for lit in lock + list(consumed) + list(released)),
            eff_end=tuple(lock + list(released) + list(produced)),
            comment=comment))

    def plate_add(self, name: str, op: str, params: tuple, static: list, consumed: list, produced: list,
                  plate: str, item: str, **kw) -> None:
        """``agent_action`` variants that put ``item`` into ``plate`` (one per accepted state; counts)."""
        variants = self._variants("plate", plate, item)
        for suffix, st in variants:
            self.agent_action(name + (suffix if len(variants) > 1 else ""), op,
                              params + (("?n", "count"), ("?m", "count")), self.op_duration(op),
                              static + st + [_lit("succ", "?n", "?m")], consumed + [_lit("filled", plate, "?n")],
                              produced + [_lit("filled", plate, "?m"), _lit("in", item, plate)], **kw)

    def _variants(self, role: str, container: str, item: str) -> list:
        """(name suffix, conditions) per accepted state of the containers in ``role``."""
        out = []
        for acc in sorted(self.accepts[role], key=str):
            key = "any" if acc is None else value_code(acc[1])
            out.append((f"-{key}", [_lit(f"accepts-{key}", container, item)]
                        + ([self.state(acc[0], acc[1], item)] if acc else [])))
        return out

    def cookware_add(self, name: str, op: str, params: tuple, static: list, consumed: list, produced: list,
                     cw: str, item: str, **kw) -> None:
        for suffix, st in self._variants("cookware", cw, item):
            self.agent_action(name + suffix, op, params, self.op_duration(op), static + st,
                              consumed + [_lit("cw-empty", cw)], produced + [_lit("in", item, cw)], **kw)

    @staticmethod
    def dispensing(kind: str) -> list:
        """(name suffix, parameters, static facts, produced facts) of the two ways to take pool object ?i: the
        next one ?j (of type ``kind``) becomes fresh, or ?i was the last of its kind."""
        return [("", (("?j", kind),), [_lit("pool-next", "?i", "?j")], [_lit("fresh", "?j")]),
                ("-last", (), [_lit("pool-last", "?i")], [])]

    # The operators, lowered by the shape read from their effects (compiler/kitchen/physics.py); the PDDL
    # action is named after the operator, its parameter types are the operator's.
    def op_take(self, a: ir.Action, sh: Shape) -> None:
        t = self.phys.types(a)
        for suffix, params, static, produced in self.dispensing(t[sh.new]):
            self.agent_action(_dash(a.name) + suffix, a.name,
                              (("?a", t[sh.agent]), ("?d", t[sh.source]), ("?i", t[sh.new])) + params,
                              self.op_duration(a.name), [_lit("empty", "?d"), _lit("source", "?d", "?i")] + static,
                              [_lit("hand-empty", "?a"), _lit("fresh", "?i")], [_lit("holding", "?a", "?i")] + produced,
                              target=1)

    def op_dispense(self, a: ir.Action, sh: Shape) -> None:
        t, op = self.phys.types(a), a.name
        plate = not self.cookware_like(t[sh.container])
        for suffix, params, static, produced in self.dispensing(t[sh.new]):
            params = (("?a", t[sh.agent]), ("?d", t[sh.source]), ("?p", t[sh.container]), ("?i", t[sh.new])) + params
            pre = [_lit("empty", "?d"), _lit("source", "?d", "?i"), _lit("holding", "?a", "?p")] + \
                self.attr_conds(a, sh.container, "?p") + static
            if plate:
                self.plate_add(_dash(op) + suffix, op, params, pre, [_lit("fresh", "?i")], produced, "?p", "?i",
                               target=1)
            else:
                self.cookware_add(_dash(op) + suffix, op, params, pre, [_lit("fresh", "?i")], produced, "?p", "?i",
                                  target=1)

    def op_pick(self, a: ir.Action, sh: Shape) -> None:
        t = self.phys.types(a)
        self.agent_action(_dash(a.name), a.name, (("?a", t[sh.agent]), ("?s", t[sh.station]), ("?i", t[sh.item])),
                          self.op_duration(a.name), [], [_lit("hand-empty", "?a"), _lit("on", "?i", "?s")],
                          [_lit("holding", "?a", "?i"), _lit("empty", "?s")], target=1)

    def _into(self, a: ir.Action, sh: Shape, static: list, consumed: list, produced: list) -> None:
        """add / scoop: ingredient ?i into container ?p (a plate: counted; cookware: one at a time)."""
        t = self.phys.types(a)
        params = (("?a", t[sh.agent]), ("?s", t[sh.station]), ("?i", t[sh.item]), ("?p", t[sh.container]))
        if self.cookware_like(t[sh.container]):
            self.cookware_add(_dash(a.name), a.name, params, static, consumed, produced, "?p", "?i", target=1)
        else:
            self.plate_add(_dash(a.name), a.name, params, static, consumed, produced, "?p", "?i", target=1)

    def op_add(self, a: ir.Action, sh: Shape) -> None:
        self._into(a, sh, [_lit("on", "?p", "?s")] + self.attr_conds(a, sh.container, "?p"),
                   [_lit("holding", "?a", "?i")], [_lit("hand-empty", "?a")])

    def op_scoop(self, a: ir.Action, sh: Shape) -> None:
        self._into(a, sh, [_lit("holding", "?a", "?p")] + self.attr_conds(a, sh.container, "?p"),
                   [_lit("on", "?i", "?s")], [_lit("empty", "?s")])

    def op_transfer(self, a: ir.Action, sh: Shape) -> None:
        """A container's contents onto a plate: the plate held and the cookware on the station, or the
        reverse."""
        t = self.phys.types(a)
        held_plate = self.served_like(t[sh.container]) and not self.cookware_like(t[sh.container])
        plate, cw = (sh.container, sh.other) if held_plate else (sh.other, sh.container)
        item = next(e.effect.type for e in a.effects if isinstance(e.effect, ir.Forall))
        params = (("?a", t[sh.agent]), ("?s", t[sh.station]), ("?p", t[plate]), ("?k", t[cw]), ("?i", item),
                  ("?n", "count"), ("?m", "count"))
        held, on = ("?p", "?k") if held_plate else ("?k", "?p")
        self.agent_action(_dash(a.name), a.name, params, self.op_duration(a.name),
                          [_lit("holding", "?a", held), _lit("on", on, "?s")] + self.attr_conds(a, plate, "?p")
                          + [_lit("succ", "?n", "?m")],
                          [_lit("in", "?i", "?k"), _lit("filled", "?p", "?n")],
                          [_lit("in", "?i", "?p"), _lit("cw-empty", "?k"), _lit("filled", "?p", "?m")], target=1)

    def op_put(self, a: ir.Action, sh: Shape) -> None:
        t = self.phys.types(a)
        x = "?p" if self.is_container(t[sh.item]) else "?i"
        puttable = self.needs_puttable(t[sh.station])
        self.agent_action(_dash(a.name), a.name, (("?a", t[sh.agent]), ("?s", t[sh.station]), (x, t[sh.item])),
                          self.op_duration(a.name),
                          ([_lit("puttable", "?s")] if puttable else []) + self.attr_conds(a, sh.item, x),
                          [_lit("holding", "?a", x), _lit("empty", "?s")],
                          [_lit("on", x, "?s"), _lit("hand-empty", "?a")], target=1)
        if puttable:
            self.diags.append(warning("P013", f"{a.name} is exported for stations that are neither dispensers "
                                      "(there the simulator would dispense into a held container first) nor plate "
                                      "returns (served plates come back there at a fixed time)", a.span))

    def clean(self, x: str) -> Lit:
        attr, _, clean = self.cleaning()
        return self.state(attr, clean, x)

    def op_process(self, a: ir.Action, sh: Shape) -> None:
        t, op = self.phys.types(a), a.name
        attr, before, after = self.trans[op]
        self.agent_action(_dash(op), op, (("?a", t[sh.agent]), ("?s", t[sh.station]), ("?i", t[sh.item])),
                          self.op_duration(op), [_lit("on", "?i", "?s")], [self.state(attr, before, "?i")],
                          [self.state(attr, after, "?i")], target=1, during=(_lit("on", "?i", "?s"),),
                          released=(_lit("free", "?s"),))

    # ------------------------------------------------------------------ cooking and serving
    def world_action(self, name: str, what: str, params: tuple, duration: Fraction, pre: tuple, keep: tuple,
                     eff_start: tuple, eff_end: tuple, end_cond: tuple = (), comment: str = "") -> None:
        """An action without an agent (the simulator does it by itself: cooking, plates coming back): ``pre``
        at the start, ``keep`` at the start and throughout, ``end_cond`` at the end.  Classical: one action,
        cost 0 (no agent time)."""
        self.info[name] = KitchenAction(None, what)
        params = tuple((v, self.ptype(t)) for v, t in params)
        if self.classical:
            self.actions.append(PddlAction(name, params, pre + keep + end_cond, tuple(_net(list(eff_start + eff_end))),
                                       cost=Fraction(0), comment=comment))
            return
        self.actions.append(DurativeAction(name, params, self.ticks(duration), False, cond_start=pre + keep,
                                           cond_all=keep, cond_end=end_cond, eff_start=eff_start, eff_end=eff_end,
                                           comment=comment))

    def build_cooking(self) -> None:
        for pr, typ, (attr, before, after), per_item, heat, kind in self.cooks:
            raw = self.state(attr, before, "?i")
            self.world_action(f"cook-{value_code(pr.name)}", pr.name,
                              (("?p", typ), ("?s", heat), ("?i", kind)), per_item, (raw,),
                              (_lit("on", "?p", "?s"), _lit("in", "?i", "?p")), (raw.negate(),),
                              (self.state(attr, after, "?i"),), comment=f"process {pr.name} (one item, no pause)")
        if self.cooks:
            self.diags.append(warning("P014", "cookware holds one ingredient at a time in the export (the "
                                      "simulator cooks several together)", self.cooks[0][0].span))

    def build_serves(self) -> None:
        w = self.world
        a, sh = self.phys.first("serve")
        if a is None or not w.orders:
            return
        returns = [s.name for s in self.stations if any(w.isa_type(s.kind, t) for t in self.phys.return_types)]
        delayed = [e.effect for e in a.effects if isinstance(e.effect, ir.Delayed)]
        if not returns or len(delayed) != 1 or sh.container is None:
            raise ExportError([error("P010", f"scenario {self.scen.name}: {a.name} needs a held container, a "
                                     "station its delayed effect puts it on, and one delayed effect in the kitchen "
                                     "export", a.span)])
        delay = self.number(delayed[0].delay)
        attr, dirty, clean = self.cleaning()
        ret = self.station(returns[0])
        if len(returns) > 1:
            self.diags.append(warning("P015", f"served plates come back to {returns[0]} in the export (the first "
                                      "plate return, as in the simulator when it is free)", a.span))
        self.init += [_lit("return-slot", ret), _lit("zero", self.count(0))]
        for k, dish in enumerate(w.orders):
            params = [("?a", "agent"), ("?w", self.phys.types(a)[sh.station]), ("?p", dish.container), ("?n", "count"),
                      ("?z", "count")]
            items, states = [], []
            for j, (kind, sattr, value, _) in enumerate(dish.items):
                v = f"?i{j + 1}"
                params.append((v, kind))
                items.append(_lit("in", v, "?p"))
                if sattr is not None:
                    states.append(self.state(sattr, value, v))
            self.init.append(_lit(f"size-{k + 1}", self.count(len(items))))
            static = [_lit(f"size-{k + 1}", "?n"), _lit("zero", "?z")] + states
            produced = [_lit("hand-empty", "?a"), _lit("filled", "?p", "?z"), _lit(self.turn(k + 1)),
                        _lit("returning", "?p")]
            self.agent_action(f"{_dash(a.name)}-{k + 1}", a.name, tuple(params), self.op_duration(a.name), static,
                              [_lit("holding", "?a", "?p"), _lit(self.turn(k)), _lit("filled", "?p", "?n"),
                               self.state(attr, clean, "?p")] + items, produced, target=1,
                              comment=f"order {k + 1}: {dish.name}")
        # the plate lands, dirty, on the (empty) return station at least the delay after the serve (the
        # simulator: exactly the delay after it)
        self.world_action("return-plate", a.name, (("?p", self.phys.types(a)[sh.container]), ("?r", "station")), delay,
                          (_lit("returning", "?p"), _lit("return-slot", "?r")), (), (_neg("returning", "?p"),),
                          (_lit("on", "?p", "?r"), self.state(attr, dirty, "?p"), _neg("empty", "?r")),
                          end_cond=(_lit("empty", "?r"),), comment=f"a served plate comes back after {num_text(delay)}")


def _net(effects: list) -> list:
    """Effects of one instantaneous action: an atom both deleted and added stays (PDDL's delete-then-add)."""
    adds = {(lit.pred, lit.args) for lit in effects if lit.positive}
    out, seen = [], set()
    for lit in effects:
        if (not lit.positive and (lit.pred, lit.args) in adds) or (lit.pred, lit.args, lit.positive) in seen:
            continue
        seen.add((lit.pred, lit.args, lit.positive))
        out.append(lit)
    return out


def _value(attr: ir.Attribute, text: str):
    return literal(text, attr)


def _dash(name: str) -> str:
    """The PDDL spelling of an operator's name (``put_down`` -> ``put-down``)."""
    return name.replace("_", "-")


def _spec(world, typ: str) -> list:
    """The accepted (kind, attr, value) entries of the container type ``typ`` (or its nearest ancestor)."""
    for t in world.ancestors.get(typ, (typ,)):
        c = world.project.containers.get(t)
        if c is not None:
            return [(kind, *(world.state_attr(kind, state) if state is not None else (None, None)))
                    for kind, state in c.accepts]
    return []


def num_text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else str(float(x))


def export_kitchen(project: ir.Project, scenario: str, *, classical: bool = False,
                   agents: Optional[tuple] = None) -> PddlExport:
    """The PDDL export of a kitchen scenario (see the module docstring); ``agents``: plan for these agents
    only (the others stay where they are; P018)."""
    try:
        return _Export(project, scenario, classical, agents).run()
    except KitchenError as exc:
        scen = project.scenario(scenario)
        raise ExportError([error("P010", f"scenario {scenario} cannot be compiled for export: {exc}",
                                 scen.span)]) from exc
