"""Recipes and procedures: AST -> ``ir.Recipe`` / ``ir.Procedure``.

Input: the checker context.  Output: IR recipes and procedures; diagnostics for unknown ingredients or
states (C101, C107), duplicate steps (C204), unknown steps (C203), cyclic prerequisites (C201, found with
networkx), lags or deadlines that can never be met (C202), bad occupancy (C205) and unit mixes (C106);
domain ``verb`` declarations -> ``ir.Verb`` (C206 malformed usage, C207 a step text that fits no usage or several,
W501 a verb no step uses) and a procedure's ``initial`` states and ``private`` names (C101, C102).
"""
from __future__ import annotations

import networkx as nx
import sympy

from chronoplan.compiler import ast as A
from chronoplan.compiler import ir
from chronoplan.compiler.check.expr import convert, literal_value


def check_recipes(ctx) -> None:
    states = {v for a in ctx.out("attributes").values() if a.kind == "enum" for v in a.values}
    known = set(ctx.types) | set(ctx.out("objects"))
    for name, d in ctx.table("recipe").items():
        ok = True
        if d.container.name not in known:
            ctx.error("C101", f"undefined container '{d.container.name}' (declare it as a type or object)",
                      d.container.span)
            ok = False
        items = []
        for ing in d.items:
            if ing.name.name not in known:
                ctx.error("C101", f"undefined ingredient '{ing.name.name}'", ing.name.span)
                ok = False
            if ing.state is not None and ing.state.name not in states:
                ctx.error("C107", f"'{ing.state.name}' is not a state of any attribute", ing.state.span)
                ok = False
            if ing.count < 1:
                ctx.error("C109", "an ingredient count must be at least 1", ing.span)
                ok = False
            items.append(ir.Ingredient(ing.name.name, ing.state.name if ing.state else None, ing.count))
        if not d.items:
            ctx.error("C402", f"recipe '{name}' has no ingredients", d.name.span)
            ok = False
        if ok:
            ctx.out("recipes")[name] = ir.Recipe(name, d.category.name if d.category else None,
                                                 d.container.name, tuple(items), d.span)


def _numeric(expr):
    """A rough numeric value (seconds, unitless as is) under default constants, or None."""
    try:
        e = expr.xreplace({ir.SECOND: 1})
        return e if e.is_Number else None
    except (AttributeError, TypeError):
        return None


def usage_problem(usage: str) -> str:
    """Why a verb usage is malformed ("" when it is fine): it starts with the verb's word, and its object
    placeholders are none, ``OBJ`` once, or ``OBJ1`` then ``OBJ2`` once each."""
    words = usage.split()
    if not words:
        return "the usage is empty"
    if words[0] in ir.PLACEHOLDERS:
        return f"the usage starts with the placeholder {words[0]}, not with the verb"
    marks = [w for w in words if w in ir.PLACEHOLDERS]
    if marks not in ([], ["OBJ"], ["OBJ1", "OBJ2"]):
        return (f"its placeholders are {' '.join(marks)}; use OBJ once (one object) or OBJ1 then OBJ2 "
                "(two objects)")
    return ""


def check_verbs(ctx) -> None:
    """Domain-level ``verb`` declarations -> ``ir.Verb`` (C206 for a malformed usage)."""
    for key, d in ctx.table("verb").items():
        problem = usage_problem(d.usage)
        if problem:
            ctx.error("C206", f"verb usage \"{d.usage}\": {problem}", d.usage_span,
                      'e.g. verb "cook OBJ1 in OBJ2" "Cook the raw item until it is cooked." raw -> cooked')
            continue
        ctx.out("verbs")[key] = ir.Verb(key, " ".join(d.usage.split()), d.description,
                                        d.before.name if d.before else None, d.after.name if d.after else None,
                                        d.span)


def check_procedures(ctx) -> None:
    verbs = ctx.out("verbs")
    for name, d in ctx.table("procedure").items():
        p = _procedure(ctx, d)
        if p is not None:
            ctx.out("procedures")[name] = p
    used = set(ctx.out("verbs_used"))
    for key, v in verbs.items():
        if key not in used:
            ctx.warn("W501", f"verb '{key}' is never used by a step", v.span)


def step_verb(ctx, s: A.StepDecl) -> tuple[bool, str | None]:
    """(ok, the key of the verb whose usage the step's text fits); C207 when the domain declares verbs and the
    text fits none of them, or several."""
    verbs = ctx.out("verbs")
    if not verbs and not ctx.table("verb"):
        return True, None
    fits = [v.key for v in verbs.values() if v.pattern.fullmatch(s.text)]
    for k in fits:
        ctx.out("verbs_used")[k] = True
    if len(fits) == 1:
        return True, fits[0]
    if not verbs:                         # every declared verb is malformed (C206 already)
        return True, None
    if not fits:
        first = s.text.split()[0] if s.text.split() else ""
        close = [v.usage for v in verbs.values() if v.usage.split()[0] == first]
        ctx.error("C207", f"step {s.index} \"{s.text}\" fits no verb usage of the domain", s.index_span,
                  ("usages of '" + first + "': " + "; ".join(close)) if close else
                  "declare its verb: verb \"USAGE\" \"description\" (placeholders OBJ, or OBJ1 and OBJ2)")
    else:
        ctx.error("C207", f"step {s.index} \"{s.text}\" fits several verb usages: "
                          + "; ".join(verbs[k].usage for k in fits), s.index_span)
    return False, None


def _objects(ctx, d: A.ProcedureDecl, local_names: set) -> tuple[tuple, tuple, bool]:
    """The procedure's ``initial`` states and ``private`` names, checked against its local resources
    (C101 unknown, C102 given twice)."""
    initial: dict = {}
    private: dict = {}
    ok = True
    for item in d.items:
        pairs = item.items if isinstance(item, A.InitialStates) else \
            [(n, None) for n in item.names] if isinstance(item, A.PrivateNames) else []
        what = "initial state" if isinstance(item, A.InitialStates) else "private name"
        table = initial if isinstance(item, A.InitialStates) else private
        for n, state in pairs:
            if n.name not in local_names:
                ctx.error("C101", f"{what} of '{n.name}', which is not a local resource of procedure "
                                  f"'{d.name.name}'", n.span, "declare it: resource " + n.name)
                ok = False
            elif n.name in table:
                ctx.error("C102", f"{what} of '{n.name}' given twice in procedure '{d.name.name}'", n.span)
                ok = False
            else:
                table[n.name] = state.name if state is not None else None
    return tuple(initial.items()), tuple(private), ok


def _procedure(ctx, d: A.ProcedureDecl):  # noqa: C901
    local = []
    local_names = set()
    for item in d.items:
        if isinstance(item, A.LocalResource):
            for n in item.names:
                if n.name in local_names:
                    ctx.error("C102", f"duplicate resource '{n.name}' in procedure '{d.name.name}'", n.span)
                    continue
                local_names.add(n.name)
                local.append(ir.Resource(n.name, max(1, item.capacity or 1), (), n.span))
    step_decls = [s for s in d.items if isinstance(s, A.StepDecl)]
    by_index = {}
    for s in step_decls:
        if s.index in by_index:
            ctx.error("C204", f"duplicate step {s.index} in procedure '{d.name.name}'", s.index_span)
        else:
            by_index[s.index] = s
    consts = {n: c.expr for n, c in ctx.constants.items()}
    used_local: set = set()
    steps: list = []
    ok = True
    dims: dict = {}
    for s in by_index.values():
        st = _step(ctx, d, s, by_index, local_names, used_local, dims)
        if st is None:
            ok = False
        else:
            steps.append(st)
    if len(dims) > 1:
        _mixed_units(ctx, d, dims)
        ok = False
    for r in local:
        if r.name not in used_local:
            ctx.warn("W501", f"resource '{r.name}' is never used by a step", r.span)
    initial, private, objects_ok = _objects(ctx, d, local_names)
    if not ok or not objects_ok:
        return None
    g = nx.DiGraph()
    g.add_nodes_from(s.index for s in steps)
    for s in steps:
        for p in s.prerequisites:
            g.add_edge(p, s.index)
    try:
        cycle = nx.find_cycle(g)
        nodes = [u for u, _ in cycle]
        ctx.error("C201", f"cyclic prerequisites in procedure '{d.name.name}': "
                          f"{' -> '.join(map(str, nodes + [nodes[0]]))}", by_index[nodes[0]].index_span)
        return None
    except nx.NetworkXNoCycle:
        pass
    _check_lags(ctx, d, steps, g, by_index, consts, ir.Dim.TIME in dims)
    return ir.Procedure(d.name.name, d.title, tuple(sorted(steps, key=lambda s: s.index)), tuple(local), d.span,
                        initial, private)


def _mixed_units(ctx, d, dims: dict) -> None:
    """C106 for a procedure whose times ``dims`` (dimension -> [first span, count], in the order met) mix
    times and plain numbers: the caret goes on the first time written the rarer way (on a tie, the way met
    second) - the odd one out, such as a unitless lag among durations in minutes."""
    order = list(dims)
    odd = min(order, key=lambda k: (dims[k][1], -order.index(k)))
    others = sum(n for k, (_, n) in dims.items() if k is not odd)
    this = "has a time unit" if odd is ir.Dim.TIME else "has no time unit"
    rest = (f"{others} other{'s' * (others != 1)} {'have' if others != 1 else 'has'} "
            + ("none" if odd is ir.Dim.TIME else "one"))
    ctx.error("C106", f"procedure '{d.name.name}' mixes durations with and without time units: this one {this}, "
                      f"{rest}", dims[odd][0], "write every duration with a unit (10 min), or none (scenario ticks)")


def _step(ctx, d, s: A.StepDecl, by_index, local_names, used_local, dims):  # noqa: C901
    scope = ctx.scope()
    dur, dim = convert(s.duration, scope, ctx.report)
    if dur is not None:
        dims.setdefault(dim, [s.duration.span, 0])[1] += 1
    occupancy, occupy_for, interruptible = ir.Occupancy.CONTINUOUS, None, False
    prereq: list = []
    lags: dict = {}
    uses: list = []
    release, deadline = None, None
    ok = dur is not None

    def time_expr(node):
        e, dm = convert(node, scope, ctx.report)
        if e is not None:
            dims.setdefault(dm, [node.span, 0])[1] += 1
        return e

    def step_ref(idx, span):
        if idx not in by_index:
            ctx.error("C203", f"step {s.index} refers to unknown step {idx} of '{d.name.name}'", span)
            return False
        if idx == s.index:
            ctx.error("C201", f"step {s.index} depends on itself", span)
            return False
        return True

    for opt in s.opts:
        k = opt.kind
        if k == "autonomous":
            if opt.args and opt.args[0] is not None:
                occupy_for = time_expr(opt.args[0])
                occupancy = ir.Occupancy.PARTIAL
                ok &= occupy_for is not None
            else:
                occupancy = ir.Occupancy.START
        elif k == "continuous":
            occupancy = ir.Occupancy.CONTINUOUS
        elif k == "interruptible":
            interruptible = True
        elif k == "after":
            for idx, span in opt.args:
                if step_ref(idx, span or opt.span):
                    prereq.append(idx)
                else:
                    ok = False
        elif k in ("within", "gap"):
            node, idx_tok = opt.args
            idx = int(idx_tok)
            e = time_expr(node)
            if e is None or not step_ref(idx, opt.span):
                ok = False
                continue
            lo, hi = lags.get(idx, (None, None))
            lags[idx] = (lo, e) if k == "within" else (e, hi)
            if k == "gap":
                prereq.append(idx)
        elif k in ("release", "deadline"):
            e = time_expr(opt.args[0])
            ok &= e is not None
            if k == "release":
                release = e
            else:
                deadline = e
        elif k == "uses":
            for u in opt.args:
                use = _use(ctx, u, local_names, used_local)
                ok &= use is not None
                if use is not None:
                    uses.append(use)
    if interruptible and occupancy is not ir.Occupancy.CONTINUOUS:
        ctx.error("C205", f"step {s.index} is autonomous and interruptible; an interruptible step must be "
                          "continuous (the agent performs it)", s.index_span)
        ok = False
    if not ok:
        return None
    if occupy_for is not None and _numeric(occupy_for) is not None and _numeric(dur) is not None \
            and _numeric(occupy_for) > _numeric(dur):
        ctx.error("C205", f"step {s.index} occupies its agent for longer than it lasts", s.index_span)
        ok = False
    if _numeric(dur) is not None and _numeric(dur) < 0:
        ctx.error("C109", f"step {s.index} has a negative duration", s.duration.span)
        ok = False
    for idx, (lo, hi) in lags.items():
        if lo is not None and hi is not None and _numeric(lo) is not None and _numeric(hi) is not None \
                and _numeric(lo) > _numeric(hi):
            ctx.error("C202", f"step {s.index}: the gap after step {idx} is larger than the 'within' bound",
                      s.index_span)
            ok = False
    verb_ok, verb = step_verb(ctx, s)
    if not ok or not verb_ok:
        return None
    return ir.Step(s.index, s.text, dur, occupancy, occupy_for, interruptible,
                   tuple(dict.fromkeys(prereq)),
                   tuple(ir.Lag(i, lo, hi) for i, (lo, hi) in lags.items()), tuple(uses), release, deadline,
                   s.span, verb)


def _use(ctx, u: A.UseDecl, local_names, used_local):
    name = u.resource.name
    if name in local_names:
        used_local.add(name)
        props = {}
    elif name in ctx.out("resources"):
        ctx.used_names.add(name)
        props = {p.name: p.default for p in ctx.out("resources")[name].properties}
    else:
        ctx.error("C101", f"undefined resource '{name}'", u.resource.span)
        return None
    ok = True
    needs: list = []
    sets: list = []
    for group, out in ((u.needs, needs), (u.sets, sets)):
        for pname, lit in group:
            if pname.name not in props:
                ctx.error("C101", f"resource '{name}' has no property '{pname.name}'", pname.span,
                          f"declare it: resource {name} {{ {pname.name} = ... }}")
                ok = False
                continue
            v, _ = literal_value(lit)
            out.append((pname.name, v))
    return ir.ResourceUse(name, tuple(needs), tuple(sets)) if ok else None


def _check_lags(ctx, d, steps, g, by_index, consts, timed):
    """C202 for max lags that a prerequisite chain makes impossible, and min lags against the order.  The
    longest chains are computed once per step that lags are measured from, over only the steps between it and
    the lags' other ends, so a procedure whose lags span few steps, or are measured from few steps (``within
    2 h of 0`` on every step), is checked in linear time."""
    durations = {}
    for s in steps:
        v = _numeric(s.duration.xreplace(consts))
        durations[s.index] = v
    if any(v is None for v in durations.values()):
        return
    order = list(nx.topological_sort(g))
    pos = {n: i for i, n in enumerate(order)}
    ends: dict = {}                            # step x -> the steps with a max lag from x, after x in ``order``
    for s in steps:
        for lag in s.lags:
            if lag.max is not None and pos[lag.other] <= pos[s.index]:
                ends.setdefault(lag.other, []).append(s.index)
    gaps = {(x, y): gap for x, ys in ends.items() for y, gap in _longest(g, pos, durations, x, ys).items()}
    for s in steps:
        for lag in s.lags:
            x, y = lag.other, s.index
            if lag.min is not None and pos[y] < pos[x] and x in _between(g, pos, y, [x]):
                ctx.error("C202", f"step {y} must start at least a gap after step {x} ends, but step {x} "
                                  f"depends on step {y}", by_index[y].index_span)
                continue
            if lag.max is None or (x, y) not in gaps:
                continue
            hi = _numeric(lag.max.xreplace(consts))
            if hi is None:
                continue
            gap = gaps[x, y]
            if gap > hi:
                ctx.error("C202", f"step {y} must start within {_fmt(hi, timed)} of the end of step {x}, but the steps "
                                  f"between them take at least {_fmt(gap, timed)}", by_index[y].index_span)
    # deadlines against the critical path
    step_of = {s.index: s for s in steps}
    earliest = {}
    for n in order:
        st = step_of[n]
        rel = _numeric(st.release.xreplace(consts)) if st.release is not None else 0
        start = max([rel or 0] + [earliest[p] for p in g.predecessors(n)])
        earliest[n] = start + durations[n]
        if st.deadline is not None:
            dlv = _numeric(st.deadline.xreplace(consts))
            if dlv is not None and earliest[n] > dlv:
                ctx.error("C202", f"step {n} cannot end before its deadline {_fmt(dlv, timed)}: its prerequisites "
                                  f"end no earlier than {_fmt(earliest[n], timed)}", by_index[n].index_span)


def _between(g, pos: dict, x, ys) -> set:
    """The ancestors of the steps ``ys`` (included) that a topological order ``pos`` places at or after ``x``:
    every step on a path from ``x`` to one of ``ys``, and ``x`` itself exactly when there is such a path."""
    seen, stack = set(ys), list(ys)
    while stack:
        for p in g.predecessors(stack.pop()):
            if p not in seen and pos[p] >= pos[x]:
                seen.add(p)
                stack.append(p)
    return seen


def _longest(g, pos: dict, durations: dict, x, ys) -> dict:
    """{y: the longest total duration of the steps strictly between ``x`` and ``y``} for the steps ``ys`` that
    a chain of prerequisites leads to from ``x``; one pass over the steps between them."""
    between = _between(g, pos, x, ys)
    if x not in between:
        return {}
    longest = {x: sympy.Integer(0)}
    for n in sorted(between, key=pos.__getitem__):
        if n not in longest:
            continue
        extra = 0 if n == x else durations[n]
        for m in g.successors(n):
            if m in between and (m not in longest or longest[n] + extra > longest[m]):
                longest[m] = longest[n] + extra
    return {y: longest[y] for y in ys if y in longest and y != x}


def _fmt(v, timed: bool = True) -> str:
    """A value in seconds (or ticks when not ``timed``) for messages: 120 -> '2 min'."""
    if not timed:
        return f"{v} ticks"
    if v % 3600 == 0 and v:
        return f"{v // 3600} h"
    if v % 60 == 0 and v:
        return f"{v // 60} min"
    return f"{v} s"
