"""Actions and processes: AST -> ``ir.Action`` / ``ir.Process`` with typed conditions and effects.

Input: the checker context (types, constants, attributes, relations, resources already resolved).
Output: IR actions/processes in the context; diagnostics for undefined names (C101), wrong arity (C104),
type errors (C105), unit mismatches (C106) and values outside an attribute's domain (C107).
"""
from __future__ import annotations

import dataclasses
from typing import Optional

import sympy

from chronoplan.compiler import ast as A
from chronoplan.compiler import builtins, ir
from chronoplan.compiler.check.expr import convert, literal_value


def check_actions(ctx) -> None:
    for name, d in ctx.table("action").items():
        a = _action(ctx, d)
        if a is not None:
            ctx.out("actions")[name] = a
    for name, d in ctx.table("process").items():
        params = _params(ctx, d.params)
        if params is None:
            continue
        if any(p.new for p in params):
            ctx.error("C105", "a process cannot create objects ('new' parameters belong to actions)", d.name.span)
            continue
        ptypes = {p.name: p.type for p in params}
        aggregates: list = []
        scope = _with_aggregates(ctx, ctx.scope(ptypes), ptypes, params, aggregates)
        dur, dim = convert(d.duration, scope, ctx.report)
        cond = _formula(ctx, d.condition, dict(ptypes))
        when = None if d.scope is None else _formula(ctx, d.scope, dict(ptypes))
        effects = tuple(e for e in (_effect(ctx, x, dict(ptypes)) for x in d.effects) if e is not None)
        if dur is not None and cond is not None and (d.scope is None or when is not None) \
                and len(effects) == len(d.effects):
            full = cond if when is None else ir.And((when, cond))
            ctx.out("processes")[name] = ir.Process(name, params, full, dur, effects, d.span, when,
                                                    tuple(aggregates))


def _with_aggregates(ctx, scope, ptypes, params, out: list):
    """A scope whose count(v: T where F) expressions are checked and recorded in ``out``."""
    def aggregate(node):
        if node.type.name not in ctx.types:
            ctx.error("C101", f"undefined type '{node.type.name}'", node.type.span)
            return None
        inner = dict(ptypes)
        inner[node.var.name] = node.type.name
        f = _formula(ctx, node.formula, inner)
        if f is None:
            return None
        symbol = f"count_{len(out) + 1}"
        out.append(ir.Aggregate(symbol, node.var.name, node.type.name, f))
        return ir.Count.of(symbol, tuple(p.name for p in params))
    return dataclasses.replace(scope, aggregate=aggregate)


def _params(ctx, decls):
    seen, out, ok = set(), [], True
    for p in decls:
        if p.name.name in seen:
            ctx.error("C102", f"duplicate parameter '{p.name.name}'", p.name.span)
            ok = False
        seen.add(p.name.name)
        if p.type.name not in ctx.types:
            ctx.error("C101", f"undefined type '{p.type.name}'", p.type.span)
            ok = False
        ctx.types_used.add(p.type.name)
        source = None
        if p.source is not None:
            source = p.source.name
            earlier = {q.name.name: q.type.name for q in decls[:list(decls).index(p)]}
            if source not in earlier:
                ctx.error("C101", f"'{source}' is not an earlier parameter (new {p.name.name}: "
                                  f"{p.type.name} from ...)", p.source.span)
                ok = False
            elif not ctx.is_subtype(earlier[source], "station"):
                ctx.error("C105", f"'from {source}' needs a station parameter, '{source}' is a "
                                  f"{earlier[source]}", p.source.span)
                ok = False
        out.append(ir.Param(p.name.name, p.type.name, bool(getattr(p, "new", False)), source))
    return tuple(out) if ok else None


def _action(ctx, d: A.ActionDecl):  # noqa: C901
    params = _params(ctx, d.params)
    if params is None:
        return None
    ptypes = {p.name: p.type for p in params}
    aggregates: list = []
    scope = _with_aggregates(ctx, ctx.scope(ptypes), ptypes, params, aggregates)
    duration, occupancy, occupy_for = None, ir.Occupancy.START, None
    agents, holds, interruptible = [], [], False
    conditions, effects = [], []
    ok = True
    for item in d.items:
        if item.kind == "duration":
            if duration is not None:
                ctx.error("C102", "duration given twice", item.span)
            duration, _ = convert(item.args[0], scope, ctx.report)
            ok &= duration is not None
        elif item.kind == "busy":
            names, k = item.args
            for n in names:
                if n.name not in ptypes:
                    ctx.error("C101", f"'{n.name}' is not a parameter of action '{d.name.name}'", n.span)
                    ok = False
                elif ctx.is_subtype(ptypes[n.name], "agent"):
                    agents.append(n.name)
                else:
                    holds.append(n.name)
            if agents:
                occupancy = ir.Occupancy.CONTINUOUS
            if k is not None:
                occupy_for, _ = convert(k, scope, ctx.report)
                occupancy = ir.Occupancy.PARTIAL
        elif item.kind == "holds":
            for n in item.args[0]:
                if n.name not in ptypes:
                    ctx.error("C101", f"'{n.name}' is not a parameter of action '{d.name.name}'", n.span)
                    ok = False
                else:
                    holds.append(n.name)
        elif item.kind == "interruptible":
            interruptible = True
        elif item.kind == "condition":
            when, f = item.args
            cond = _formula(ctx, f, ptypes)
            if cond is None:
                ok = False
            else:
                conditions.append(ir.Condition(ir.When(when), cond))
        elif item.kind == "effect":
            when, effs = item.args
            if when == "all":
                ctx.error("C105", "effects happen 'at start' or 'at end', not 'at all'", item.span)
                ok = False
                continue
            for e in effs:
                eff = _effect(ctx, e, ptypes)
                if eff is None:
                    ok = False
                else:
                    effects.append(ir.TimedEffect(ir.When(when), eff))
    if duration is None:
        duration = sympy.Integer(0)          # an action without a duration is instantaneous
    if not ok:
        return None
    return ir.Action(d.name.name, params, duration, occupancy, occupy_for, tuple(agents), tuple(holds),
                     interruptible, tuple(conditions), tuple(effects), d.span, tuple(aggregates))


def _formulas(items: list[Optional[ir.Formula]]) -> Optional[tuple[ir.Formula, ...]]:
    """The formulas, when none is None (the checker reported why), else None."""
    out = tuple(x for x in items if x is not None)
    return out if len(out) == len(items) else None


def _effects(items: list[Optional[ir.Effect]]) -> Optional[tuple[ir.Effect, ...]]:
    """The effects, when none is None (the checker reported why), else None."""
    out = tuple(x for x in items if x is not None)
    return out if len(out) == len(items) else None


def _term(ctx, t, ptypes):
    """A term -> (ir.Term, type name or attribute domain marker) or (None, None)."""
    if isinstance(t, A.TName):
        n = t.ident.name
        if n in ptypes:
            return ir.Term(ir.TermKind.VAR, n, span=t.span), ptypes[n]
        if n in ctx.out("objects"):
            return ir.Term(ir.TermKind.VAR, n, span=t.span), ctx.out("objects")[n].type
        # a bare name: an enum value or a constant; resolved against the other side of a comparison
        return ir.Term(ir.TermKind.VALUE, n, span=t.span), None
    if isinstance(t, A.TAttr):
        obj, attr = t.obj.name, t.attr.name
        if obj not in ptypes and obj not in ctx.out("objects"):
            ctx.error("C101", f"undefined parameter or object '{obj}'", t.obj.span)
            return None, None
        a = ctx.out("attributes").get(attr)
        if a is None:
            ctx.error("C101", f"undefined attribute '{attr}'", t.attr.span)
            return None, None
        otype = ptypes.get(obj) or ctx.out("objects")[obj].type
        if a.params and not any(ctx.is_subtype(otype, p) or ctx.is_subtype(p, otype) for p in a.params[:1]):
            ctx.error("C105", f"attribute '{attr}' applies to {a.params[0]}, not to {obj}: {otype}", t.span)
            return None, None
        return ir.Term(ir.TermKind.ATTR, attr, obj, span=t.span), a
    if isinstance(t, A.Literal):
        v, _ = literal_value(t)
        return ir.Term(ir.TermKind.VALUE, str(v), span=t.span), None
    return None, None


def _check_value(ctx, attr: ir.Attribute, term: ir.Term, span):
    if attr.kind == "enum" and term.kind == ir.TermKind.VALUE and term.name not in attr.values:
        ctx.error("C107", f"'{term.name}' is not a value of attribute '{attr.name}' "
                          f"({' | '.join(attr.values)})", span)
        return False
    return True


def _formula(ctx, f, ptypes) -> Optional[ir.Formula]:
    if isinstance(f, A.FBool):
        if f.op == "true":
            return ir.Const_(True)
        if f.op == "false":
            return ir.Const_(False)
        args = _formulas([_formula(ctx, a, ptypes) for a in f.args])
        if args is None:
            return None
        if f.op == "not":
            return ir.Not(args[0])
        return ir.And(args) if f.op == "and" else ir.Or(args)
    if isinstance(f, A.FAtom):
        return _atom(ctx, f.rel, f.args, ptypes, f.span)
    if isinstance(f, A.FExists):
        inner = _bind(ctx, f.var, f.type, ptypes)
        if inner is None:
            return None
        body = _formula(ctx, f.formula, inner)
        return None if body is None else ir.Exists(f.var.name, f.type.name, body)
    if isinstance(f, A.FCmp):
        lt, la = _term(ctx, f.left, ptypes)
        rt, ra = _term(ctx, f.right, ptypes)
        if lt is None or rt is None:
            return None
        ok = True
        if isinstance(la, ir.Attribute):
            ok &= _check_value(ctx, la, rt, f.right.span)
        if isinstance(ra, ir.Attribute):
            ok &= _check_value(ctx, ra, lt, f.left.span)
        return ir.Compare(f.op, lt, rt) if ok else None
    return None


def _bind(ctx, var, typ, ptypes):
    """ptypes extended by a quantified variable (exists, forall, count); None after an error."""
    if typ.name not in ctx.types:
        ctx.error("C101", f"undefined type '{typ.name}'", typ.span)
        return None
    if var.name in ptypes:
        ctx.error("C102", f"'{var.name}' is already a parameter or quantified variable here", var.span)
        return None
    ctx.types_used.add(typ.name)
    inner = dict(ptypes)
    inner[var.name] = typ.name
    return inner


def _atom(ctx, rel: A.Ident, args, ptypes, span) -> Optional[ir.Atom]:
    r = ctx.out("relations").get(rel.name) or builtins.RELATIONS.get(rel.name)   # a declared one hides a built-in
    if r is None:
        ctx.error("C101", f"undefined relation '{rel.name}'", rel.span)
        return None
    arity = len(r.params)
    if len(args) != arity:
        ctx.error("C104", f"relation '{rel.name}' takes {arity} argument{'s' * (arity != 1)}, got {len(args)}",
                  span)
        return None
    names = []
    for i, a in enumerate(args):
        t, typ = _term(ctx, a, ptypes)
        if t is None:
            return None
        if t.kind == ir.TermKind.VALUE and t.name in ctx.types:
            ctx.error("C103", f"'{t.name}' is a type, not a parameter or object; add a parameter "
                              f"'x: {t.name}' and use x", a.span)
            return None
        if t.kind != ir.TermKind.VAR:
            ctx.error("C101" if t.kind == ir.TermKind.VALUE else "C105",
                      f"'{t.name}' is not a parameter or object" if t.kind == ir.TermKind.VALUE
                      else "relation arguments are parameters or objects", a.span)
            return None
        if r is not None and typ is not None and not (ctx.is_subtype(typ, r.params[i])
                                                      or ctx.is_subtype(r.params[i], typ)):
            ctx.error("C105", f"argument {i + 1} of '{rel.name}' must be a {r.params[i]}, "
                              f"'{t.name}' is a {typ}", a.span)
            return None
        names.append(t.name)
    return ir.Atom(rel.name, tuple(names), span)


def _effect(ctx, e, ptypes) -> Optional[ir.Effect]:
    if isinstance(e, A.EAssign):
        target, attr = _term(ctx, A.TAttr(e.obj, e.attr, e.span), ptypes)
        value, _ = _term(ctx, e.value, ptypes)
        if target is None or value is None:
            return None
        if not _check_value(ctx, attr, value, e.value.span):
            return None
        return ir.Assign(target, value)
    if isinstance(e, A.EFact) and e.rel.name in builtins.EFFECTS and e.rel.name not in ctx.out("relations"):
        return _builtin_effect(ctx, e, ptypes)
    if isinstance(e, A.EForall):
        inner = _bind(ctx, e.var, e.type, ptypes)
        if inner is None:
            return None
        body = _formula(ctx, e.formula, inner)
        effs = _effects([_effect(ctx, x, inner) for x in e.effects])
        if body is None or effs is None:
            return None
        return ir.Forall(e.var.name, e.type.name, body, effs)
    if isinstance(e, A.EFact):
        atom = _atom(ctx, e.rel, e.args, ptypes, e.span)
        if atom is None:
            return None
        return ir.AddFact(atom) if e.positive else ir.DelFact(atom)
    if isinstance(e, A.EDelayed):
        delay, _ = convert(e.delay, ctx.scope(ptypes), ctx.report)
        inner = _effects([_effect(ctx, x, ptypes) for x in e.effects])
        if delay is None or inner is None:
            return None
        return ir.Delayed(delay, inner)
    return None


def _builtin_effect(ctx, e, ptypes) -> Optional[ir.BuiltinEffect]:
    name = e.rel.name
    decl = builtins.EFFECTS[name]
    if not e.positive:
        ctx.error("C105", f"'{name}' is a built-in effect; it cannot be negated", e.span)
        return None
    if len(e.args) != decl.arity:
        ctx.error("C104", f"{name}() takes {decl.arity} argument, got {len(e.args)}", e.span)
        return None
    args = []
    for a in e.args:
        t, _ = _term(ctx, a, ptypes)
        if t is None:
            return None
        if t.kind != ir.TermKind.VAR:
            ctx.error("C101", f"'{t.name}' is not a parameter or object", a.span)
            return None
        args.append(t.name)
    return ir.BuiltinEffect(name, tuple(args))
