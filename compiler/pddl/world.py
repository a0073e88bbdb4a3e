"""PDDL export of a world scenario: the domain's types, relations and actions, the scenario's objects, init and goal.

Input: a compiled ``ir.Project`` and a world scenario (``ir.ScenarioKind.WORLD``).  Output: ``export_world``
-> ``PddlExport`` (classical: worlds are sequential; ``classical`` is accepted for the family interface and
changes nothing), and ``world_plan(export, text)`` -> the plan a planner wrote, as world action lines
``(name arg ...)`` in the world's own names (for ``chronoplan validate``).

The lowering is one to one: types (``type t < p``) -> ``(:types t - p)``; relations -> predicates; the domain's
objects -> ``(:constants)``, the scenario's -> ``(:objects)``; an action's conditions (every ``when``) -> its
precondition, its effects (every ``at``) -> its effect (``forall`` effects -> ``(forall (?v - t) (when F E))``);
formulas keep their connectives: ``not``, ``and``, ``or``, ``exists`` (``forall`` was read as ``not exists not``),
``a == b`` -> ``(= a b)``.  The requirements are those used (``:strips :typing`` and ``:negative-preconditions``,
``:disjunctive-preconditions``, ``:existential-preconditions``, ``:equality``, ``:conditional-effects`` when
needed).  Names go through ``names.NameMap`` (``at`` is a PDDL keyword: ``n-at``); ``world_plan`` inverts them.
Attributes have no counterpart here yet: a world whose actions or goal read or assign one is refused (P010).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Union

from chronoplan.compiler import ir
from chronoplan.compiler.pddl.common import ExportError, PddlExport, TimeScale, error
from chronoplan.compiler.pddl.names import NameMap, slug
from chronoplan.compiler.pddl.write import Domain, Lit, PddlAction, Predicate, Problem

BUILTIN_PARENTS = frozenset({"object"})


@dataclass(frozen=True)
class Formula(Lit):
    """A precondition, effect or goal written out whole (``Lit`` renders one atom; this renders any formula)."""

    whole: str = ""

    def text(self) -> str:
        return self.whole


class _Unsupported(Exception):
    def __init__(self, what: str, span: Any = None) -> None:
        super().__init__(what)
        self.what, self.span = what, span


class _Writer:
    def __init__(self, part: ir.Project, names: NameMap) -> None:
        self.part, self.n = part, names
        self.used: set[str] = set()

    def obj(self, name: str) -> str:
        return self.n.name(("object", name), None, name)

    def pred(self, name: str) -> str:
        return self.n.name(("pred", name), None, name)

    def typ(self, name: str) -> str:
        return "object" if name == "object" else self.n.name(("type", name), None, name)

    def arg(self, a: str, vars: dict) -> str:
        return f"?{slug(a)}" if a in vars else self.obj(a)

    def atom(self, a: ir.Atom, vars: dict) -> str:
        if a.relation not in self.part.relations:
            raise _Unsupported(f"the built-in relation '{a.relation}'", a.span)
        return "(" + " ".join([self.pred(a.relation)] + [self.arg(x, vars) for x in a.args]) + ")"

    def formula(self, f: ir.Formula, vars: dict) -> str:
        if isinstance(f, ir.Atom):
            return self.atom(f, vars)
        if isinstance(f, ir.Not):
            self.used.add(":negative-preconditions")
            return f"(not {self.formula(f.arg, vars)})"
        if isinstance(f, ir.And):
            return "(and " + " ".join(self.formula(a, vars) for a in _flat(f)) + ")"
        if isinstance(f, ir.Or):
            self.used.add(":disjunctive-preconditions")
            return "(or " + " ".join(self.formula(a, vars) for a in f.args) + ")"
        if isinstance(f, ir.Exists):
            self.used.add(":existential-preconditions")
            inner = {**vars, f.var: f.type}
            return f"(exists (?{slug(f.var)} - {self.typ(f.type)}) {self.formula(f.formula, inner)})"
        if isinstance(f, ir.Const_):
            return "(and)" if f.value else "(or)"
        if isinstance(f, ir.Compare) and f.op in ("==", "!=") and f.left.kind == "var" and f.right.kind == "var":
            self.used.add(":equality")
            eq = f"(= {self.arg(f.left.name, vars)} {self.arg(f.right.name, vars)})"
            if f.op == "==":
                return eq
            self.used.add(":negative-preconditions")
            return f"(not {eq})"
        raise _Unsupported("a comparison of attributes or values" if isinstance(f, ir.Compare) else repr(f))

    def effect(self, e: ir.Effect, vars: dict) -> str:
        if isinstance(e, ir.AddFact):
            return self.atom(e.atom, vars)
        if isinstance(e, ir.DelFact):
            return f"(not {self.atom(e.atom, vars)})"
        if isinstance(e, ir.Forall):
            inner = {**vars, e.var: e.type}
            body = " ".join(self.effect(x, inner) for x in e.effects)
            body = body if len(e.effects) == 1 else f"(and {body})"
            if not (isinstance(e.formula, ir.Const_) and e.formula.value):
                self.used.add(":conditional-effects")
                body = f"(when {self.formula(e.formula, inner)} {body})"
            return f"(forall (?{slug(e.var)} - {self.typ(e.type)}) {body})"
        what = {ir.Assign: "an attribute assignment", ir.Delayed: "a delayed effect",
                ir.BuiltinEffect: "a built-in effect"}.get(type(e), repr(e))
        raise _Unsupported(what)


def export_world(project: ir.Project, scenario: Union[str, ir.Scenario], *, classical: bool = True) -> PddlExport:
    """The PDDL export of a world scenario (see the module docstring); ``ExportError`` (P010) otherwise."""
    scen = project.scenario(scenario) if isinstance(scenario, str) else scenario
    if scen.kind is not ir.ScenarioKind.WORLD or scen.goal is None:
        raise ExportError([error("P010", f"scenario {scen.name} is not a world", scen.span)])
    part = project.part(scen.name)
    names = NameMap()
    w = _Writer(part, names)
    try:
        return _export(project, part, scen, names, w)
    except _Unsupported as exc:
        raise ExportError([error("P010", f"world {scen.name}: {exc.what} has no counterpart in the PDDL export",
                                 exc.span or scen.span)]) from None


def _export(project: ir.Project, part: ir.Project, scen: ir.Scenario, names: NameMap, w: _Writer) -> PddlExport:
    actions, info = [], {}
    for a in part.actions.values():
        vars = {p.name: p.type for p in a.params}
        pre = [w.formula(f, vars) for c in a.conditions for f in _flat(c.formula)]
        eff = [w.effect(e.effect, vars) for e in a.effects]
        name = names.name(("action", a.name), None, a.name)
        info[name] = a.name
        actions.append(PddlAction(name, tuple((f"?{slug(p.name)}", w.typ(p.type)) for p in a.params),
                                  (Formula("", whole=_and(pre)),) if pre else (), (Formula("", whole=_and(eff)),)))
    assert scen.goal is not None, "export_world refuses a scenario without a goal"
    goal = w.formula(scen.goal, {})
    used_types = {p.type for a in part.actions.values() for p in a.params} | {o.type for o in part.objects.values()} \
        | {o.type for o in scen.objects} | {t for r in part.relations.values() for t in r.params}
    anc = part.ancestry()
    types = []
    for t in dict.fromkeys(list(part.types) + sorted(used_types - set(part.types))):
        if t in BUILTIN_PARENTS or t in ("number", "bool", "cell"):
            continue
        parent = anc.get(t, (t, "object"))[1] if len(anc.get(t, (t, "object"))) > 1 else "object"
        types.append((w.typ(t), w.typ(parent)))
    preds = tuple(Predicate(w.pred(r.name), tuple((f"?x{i}", w.typ(t)) for i, t in enumerate(r.params)))
                  for r in part.relations.values())
    reqs = (":strips", ":typing") + tuple(r for r in (":negative-preconditions", ":disjunctive-preconditions",
                                                      ":existential-preconditions", ":equality",
                                                      ":conditional-effects") if r in w.used)
    constants = tuple((w.obj(o.name), w.typ(o.type)) for o in part.objects.values())
    domain_name = slug(part.domain or "world")
    domain = Domain(domain_name, reqs, tuple(types), preds, tuple(actions), (),
                    (f"chronoplan export of the world domain {part.domain or ''}".rstrip(),), constants)
    objects = tuple((w.obj(o.name), w.typ(o.type)) for o in scen.objects)
    init = tuple(Lit(w.pred(a.relation), tuple(w.obj(x) for x in a.args)) for a in scen.init)
    problem = Problem(slug(scen.name), domain_name, objects, init, (), (), (Formula("", whole=goal),), None,
                      (f"chronoplan export of the world scenario {scen.name}",))
    return PddlExport(scen.name, True, domain, problem, (), names, TimeScale(1, 1), info, None)


def _flat(f: ir.Formula) -> list:
    """The conjuncts of nested ``and`` (``a and b and c`` is read as ``(a and b) and c``)."""
    return [x for a in f.args for x in (_flat(a) if isinstance(a, ir.And) else [a])] if isinstance(f, ir.And) else [f]


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else "(and " + " ".join(parts) + ")"


_LINE = re.compile(r"\(([^()]*)\)")


def world_plan(export: PddlExport, text: str) -> list[str]:
    """A planner's plan (``(name args)`` lines, any time prefix or cost comment) -> world action lines in the
    world's own names; names the export did not issue are kept as written (the grader reports them)."""
    out = []
    for line in text.splitlines():
        line = line.split(";", 1)[0]
        m = _LINE.search(line)
        if m is None:
            continue
        tokens = m.group(1).split()
        if not tokens:
            continue
        words = [_back(export, t, kind) for t, kind in zip(tokens, ["action"] + ["object"] * (len(tokens) - 1))]
        out.append("(" + " ".join(words) + ")")
    return out


def _back(export: PddlExport, name: str, kind: str) -> str:
    try:
        key = export.names.lookup(name)
    except KeyError:
        return name
    return key[1] if isinstance(key, tuple) and key[0] == kind else name
