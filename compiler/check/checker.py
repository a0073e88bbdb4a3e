"""Checker: AST modules -> IR ``Project`` + diagnostics.

Input: parsed ``ast.Module`` values (imports already resolved by the driver).  Output: ``(Project, [Diagnostic])``.
Names are resolved in ordered passes (declarations, types, constants, state, resources, actions and processes,
recipes, procedures, maps, tools, households, scenarios, unused warnings); every pass collects diagnostics and
goes on, so one run reports everything.  The Project is built even when there are errors (erroneous parts are left out).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Optional

import networkx as nx
import sympy

from chronoplan.compiler import ast as A
from chronoplan.compiler import builtins, ir
from chronoplan.compiler.check import actions, household, kitchen, maps, procedures, scenarios, tools
from chronoplan.compiler.check.expr import NameScope, convert, literal_value
from chronoplan.compiler.diagnostics import Diagnostic, Severity

BUILTIN_TYPES = builtins.TYPES
DECL_KINDS = {
    A.ConstDecl: "constant", A.TypeDecl: "type", A.ObjectDecl: "object", A.AttrDecl: "attribute",
    A.RelationDecl: "relation", A.ResourceDecl: "resource", A.ActionDecl: "action", A.ProcessDecl: "process",
    A.RecipeDecl: "recipe", A.ProcedureDecl: "procedure", A.MapDecl: "map", A.ToolDecl: "tool",
    A.AppDecl: "app", A.ScenarioDecl: "scenario", A.ContainerDecl: "container", A.SurfaceDecl: "surface",
    A.HouseholdDecl: "household", A.VerbDecl: "verb",
}


@dataclass
class Ctx:
    """Shared state of one checking run."""

    diags: list = field(default_factory=list)
    decls: dict = field(default_factory=dict)        # kind -> {name: ast node}
    types: dict = field(default_factory=dict)        # name -> parent | None
    constants: dict = field(default_factory=dict)    # name -> ir.Constant
    const_dims: dict = field(default_factory=dict)
    used_constants: set = field(default_factory=set)
    used_names: set = field(default_factory=set)     # resources, maps, recipes... referenced
    types_used: set = field(default_factory=set)     # types referenced by parameters and maps
    ir: dict = field(default_factory=dict)           # kind -> {name: ir node}
    instantiated: dict = field(default_factory=dict)  # memo of the scenario evaluations (scenarios._instantiate)
    said_once: set = field(default_factory=set)      # keys of errors reported once per check (household._observe_cost)

    def error(self, code, msg, span, *notes):
        self.diags.append(Diagnostic(code, Severity.ERROR, msg, span, tuple(notes)))

    def warn(self, code, msg, span, *notes):
        self.diags.append(Diagnostic(code, Severity.WARNING, msg, span, tuple(notes)))

    def report(self, d: Diagnostic):
        self.diags.append(d)

    def table(self, kind: str) -> dict:
        return self.decls.setdefault(kind, {})

    def out(self, kind: str) -> dict:
        return self.ir.setdefault(kind, {})

    def scope(self, params=None) -> NameScope:
        broken = frozenset(self.table("constant")) - frozenset(self.const_dims)
        return NameScope(self.const_dims, dict(params or {}), self.used_constants, broken)

    def is_subtype(self, t: str, ancestor: str) -> bool:
        seen: set[str] = set()
        cur: Optional[str] = t
        while cur is not None and cur not in seen:
            if cur == ancestor:
                return True
            seen.add(cur)
            cur = self.types.get(cur)
        return ancestor == "object"

    def is_type(self, name: str) -> bool:
        return name in self.types


def _where(node) -> str:
    sp = getattr(node, "span", None)
    return f"{sp.file}:{sp.line}:{sp.col}" if sp else "elsewhere"


# ------------------------------------------------------------------ pass 1: declarations
def collect(ctx: Ctx, modules) -> None:
    for mod in modules:
        for d in mod.decls:
            kind = DECL_KINDS.get(type(d))
            if kind is None:
                continue
            if isinstance(d, A.ConstDecl):
                for item in d.items:
                    _declare(ctx, "constant", item.name, item)
            elif isinstance(d, A.TypeDecl):
                for item in d.items:
                    _declare(ctx, "type", item.name, item)
            elif isinstance(d, A.ObjectDecl):
                for n in d.names:
                    _declare(ctx, "object", n, d)
            elif isinstance(d, A.AppDecl):
                _declare(ctx, "app", d.name, d)
                for t in d.tools:
                    _declare(ctx, "tool", t.name, (d.name.name, t))
            elif isinstance(d, A.ToolDecl):
                _declare(ctx, "tool", d.name, (None, d))
            elif isinstance(d, A.VerbDecl):
                _declare(ctx, "verb", A.Ident(ir.verb_key(d.usage), d.usage_span), d)
            else:
                _declare(ctx, kind, d.name, d)


def _declare(ctx: Ctx, kind: str, ident: A.Ident, node) -> None:
    table = ctx.table(kind)
    if ident.name in table:
        prev = table[ident.name]
        if kind == "verb" and _same_verb(prev, node):
            return                    # the same verb declared again (each file of a domain compiles alone)
        prev_node = prev[1] if isinstance(prev, tuple) else prev
        ctx.error("C102", f"duplicate {kind} '{ident.name}'", ident.span,
                  f"first declared at {_where(prev_node)}")
        return
    table[ident.name] = node


def _same_verb(a: A.VerbDecl, b: A.VerbDecl) -> bool:
    def state(x: Optional[A.Ident]) -> Optional[str]:
        return x.name if x is not None else None
    return (a.usage.split(), a.description, state(a.before), state(a.after)) == \
        (b.usage.split(), b.description, state(b.before), state(b.after))


# ------------------------------------------------------------------ pass 2: types, constants, state
def check_types(ctx: Ctx) -> None:
    for t in BUILTIN_TYPES:
        ctx.types[t] = None if t == "object" else "object"
    items = ctx.table("type")
    for name, item in items.items():
        if name in BUILTIN_TYPES:
            ctx.error("C102", f"type '{name}' is built in", item.name.span)
            continue
        ctx.types[name] = "object"
    for name, res in ctx.table("resource").items():
        if name in items or name in BUILTIN_TYPES:
            ctx.error("C102", f"resource '{name}' has the name of a type", res.name.span,
                      "a resource is itself a type; declare it once, e.g. resource stove < station")
        ctx.types.setdefault(name, "object")
        if res.parent is not None:
            items_parent = res.parent.name
            if items_parent not in ctx.types and items_parent not in items:
                ctx.error("C101", f"undefined type '{items_parent}'", res.parent.span)
            else:
                ctx.types[name] = items_parent
    for name, item in items.items():
        if item.parent is not None:
            if item.parent.name not in ctx.types:
                ctx.error("C101", f"undefined type '{item.parent.name}'", item.parent.span)
            else:
                ctx.types[name] = item.parent.name
    g = nx.DiGraph((k, v) for k, v in ctx.types.items() if v is not None)
    position = {n: i for i, n in enumerate(items)}
    for cycle in sorted(_canonical(c, position) for c in nx.simple_cycles(g)):
        node = items.get(cycle[0])
        ctx.error("C201", f"cyclic type hierarchy: {' < '.join(cycle + [cycle[0]])}",
                  node.name.span if node else None)
        for t in cycle:
            ctx.types[t] = "object"
    out = ctx.out("types")
    for name, item in items.items():
        out[name] = ir.TypeDef(name, ctx.types.get(name), item.span)


def check_constants(ctx: Ctx) -> None:
    items = ctx.table("constant")
    g = nx.DiGraph()
    for name, item in items.items():
        g.add_node(name)
        for ref in _names_in(item.expr):
            if ref in items:
                g.add_edge(name, ref)
    cyclic = set()
    position = {n: i for i, n in enumerate(items)}
    for cycle in sorted(_canonical(c, position) for c in nx.simple_cycles(g)):
        cyclic.update(cycle)
        ctx.error("C110", f"cyclic constant definition: {' -> '.join(cycle + [cycle[0]])}",
                  items[cycle[0]].name.span)
    order = [n for n in reversed(list(nx.topological_sort(g.subgraph(set(items) - cyclic))))]
    for name in order:
        item = items[name]
        expr, dim = convert(item.expr, NameScope(ctx.const_dims, {}, ctx.used_constants, frozenset(cyclic)),
                            ctx.report)
        if expr is None:
            continue
        ctx.const_dims[name] = dim
        ctx.constants[name] = ir.Constant(name, expr, dim, item.span)


def _canonical(cycle, position) -> list:
    """Rotate a cycle to start at its earliest-declared member (deterministic messages)."""
    i = min(range(len(cycle)), key=lambda k: position.get(cycle[k], 0))
    return cycle[i:] + cycle[:i]


def _names_in(node):
    """Names referenced by an expression (iterative: expressions may be long chains)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, A.Name):
            yield n.ident.name
        stack.extend(getattr(n, a) for a in ("left", "right", "arg") if hasattr(n, a))
        if isinstance(n, A.Call):
            stack.extend(n.args)


def require_type(ctx: Ctx, ident: A.Ident) -> bool:
    if ident.name not in ctx.types:
        ctx.error("C101", f"undefined type '{ident.name}'", ident.span)
        return False
    return True


def check_state(ctx: Ctx) -> None:
    for name, d in ctx.table("object").items():
        if require_type(ctx, d.type):
            ctx.out("objects")[name] = ir.ObjectDef(name, d.type.name, d.span)
    for name, d in ctx.table("attribute").items():
        ok = all([require_type(ctx, p) for p in d.params])
        values = tuple(v.name for v in d.values)
        if values:
            kind = "enum"
            dup = {v for v in values if values.count(v) > 1}
            for v in dup:
                ctx.error("C102", f"duplicate value '{v}' in attribute '{name}'", d.name.span)
        elif d.kind.name in ("number", "bool"):
            kind = d.kind.name
        else:
            ctx.error("C105", f"attribute type must be number, bool or a list of values a | b | c, "
                              f"not '{d.kind.name}'", d.kind.span)
            continue
        default = None
        if d.default is not None:
            v, dim = literal_value(d.default)
            if kind == "enum" and not (d.default.kind == "name" and v in values):
                ctx.error("C107", f"default '{v}' is not one of {' | '.join(values)}", d.default.span)
            elif kind == "number" and d.default.kind != "number":
                ctx.error("C105", "default of a number attribute must be a number", d.default.span)
            elif kind == "bool" and d.default.kind != "bool":
                ctx.error("C105", "default of a bool attribute must be true or false", d.default.span)
            default = str(v)
        if ok:
            ctx.out("attributes")[name] = ir.Attribute(name, tuple(p.name for p in d.params), kind, values,
                                                       default, d.span)
    for name, d in ctx.table("relation").items():
        if all([require_type(ctx, p) for p in d.params]):
            ctx.out("relations")[name] = ir.Relation(name, tuple(p.name for p in d.params), d.span)


def check_resources(ctx: Ctx) -> None:
    for name, d in ctx.table("resource").items():
        r = resource_ir(ctx, d.name, d.capacity, d.props, d.span)
        parent = ctx.types.get(name)
        ctx.out("resources")[name] = r if parent in (None, "object") else dataclasses.replace(r, parent=parent)


def resource_ir(ctx: Ctx, ident: A.Ident, capacity, props, span) -> ir.Resource:
    if capacity is not None and capacity < 1:
        ctx.error("C109", f"capacity of '{ident.name}' must be at least 1", span)
    seen = set()
    properties = []
    for p in props:
        if p.name.name in seen:
            ctx.error("C102", f"duplicate property '{p.name.name}'", p.name.span)
            continue
        seen.add(p.name.name)
        v, _ = literal_value(p.value)
        properties.append(ir.Property(p.name.name, v))
    return ir.Resource(ident.name, max(1, capacity or 1), tuple(properties), span)


# ------------------------------------------------------------------ driver
def check(modules) -> tuple:
    """Check parsed modules; return (ir.Project, diagnostics sorted by position)."""
    ctx = Ctx()
    collect(ctx, modules)
    check_types(ctx)
    check_constants(ctx)
    check_state(ctx)
    check_resources(ctx)
    actions.check_actions(ctx)
    procedures.check_recipes(ctx)
    procedures.check_verbs(ctx)
    procedures.check_procedures(ctx)
    maps.check_maps(ctx)
    kitchen.check_kitchen(ctx)
    tools.check_tools(ctx)
    household.check_households(ctx)
    scenarios.check_scenarios(ctx)
    kitchen.check_kitchen_scenarios(ctx)
    warn_unused(ctx)
    project = ir.Project(
        files=tuple(m.file for m in modules),
        constants=dict(ctx.constants), types=ctx.out("types"), objects=ctx.out("objects"),
        attributes=ctx.out("attributes"), relations=ctx.out("relations"), resources=ctx.out("resources"),
        actions=ctx.out("actions"), processes=ctx.out("processes"), recipes=ctx.out("recipes"),
        procedures=ctx.out("procedures"), maps=ctx.out("maps"), tools=ctx.out("tools"), apps=ctx.out("apps"),
        scenarios=ctx.out("scenarios"), containers=ctx.out("containers"), surfaces=ctx.out("surfaces"),
        households=ctx.out("households"), verbs=ctx.out("verbs"))
    return project, ctx.diags


def warn_unused(ctx: Ctx) -> None:
    for name, item in ctx.table("constant").items():
        if name not in ctx.used_constants and name in ctx.constants:
            ctx.warn("W501", f"constant '{name}' is never used", item.name.span)
    for name, d in ctx.table("resource").items():
        if name not in ctx.used_names and name not in ctx.types_used:
            ctx.warn("W501", f"resource '{name}' is never used", d.name.span)


def sym(name: str) -> sympy.Symbol:
    return sympy.Symbol(name)
