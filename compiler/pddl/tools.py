"""Classical PDDL export of a tool-use scenario, and a planner's plan back to a tool plan (issue #15 item 7).

Input: a checked ``ir.Project`` and a tool-use scenario with a ``reference`` block (``classical`` is accepted
and ignored: the export is always classical STRIPS + ``:typing``).  Output: ``PddlExport`` whose ``actions``
map each PDDL action name to a ``ToolAction`` (the tool it calls and the parameters its PDDL parameters
stand for) or a ``WaitAction`` (bookkeeping); ``ExportError`` (P010) for a scenario
without a reference plan (its goals are the reference's calls) and for a reference that passes a returned
field to parameters of two incompatible types.  ``to_tool_plan(export, actions)`` turns a planner's
sequential plan into a plan in the tools format (``{"scenario", "steps": [{"id", "tool", "args", "after"}]}``)
that ``validators.tools.grade`` reads, or says why it cannot.

Model (docs/pddl.md, "Tool-use scenarios"):
- objects: one *call* per reference step (constants ``c-1``, ``c-2``... of type ``call-TOOL``), the *values*
  the query and the profile state as the reference writes them (its literal arguments, typed by the
  parameter that takes them), one *result* per returned field of each call (``r1-start``, typed by the
  field's type), and a ``none-TYPE`` object per type of an optional parameter some step leaves out;
- value types: ``value`` > ``t-number`` > ``t-int``; ``t-str``, ``t-iata``, ``t-email``, ``t-date``,
  ``t-time``, ``t-datetime``, ``t-bool``, one type per enum and ``t-list-X`` under ``value``; ``any`` is
  ``value`` (so a wildcard text is a plain string, not an e-mail address or an enum member);
- one action per tool the reference calls: ``TOOL ?c - call-TOOL ?p1 - T1 ... ?r1 - value ...`` over its
  required parameters and the optional ones some reference step gives (a step naming no declared tool, an
  APP operation such as ``Tap(app = ctrip, element = listing)``, gets the signature its reference steps
  show: their arguments, typed by their values, none returned).  Preconditions: the call is pending and
  ready (the calls its reference step waits for are done: a ``wait-cK`` action checks them), and for each
  parameter ``(can-TOOL-PARAM ?c ?v)`` (static) and ``(known ?v)`` (stated values and nones from the
  start, a result once its call is made).  ``can`` holds the reference's value (a literal, or the result
  object of ``$J.field``), the ``none`` of an optional parameter the step leaves out, and for a wildcard
  ``_`` every stated value of the type and every result of a call the step waits for (transitively, so no
  plan consumes an output the task does not let it wait for; never a none).  Effects: the call is done, its
  results are known, and ``(arg-TOOL-PARAM ?c ?v)`` records every argument;
- goal: every call done, and ``(arg-TOOL-PARAM cK v)`` for every argument the reference step gives.
  Only positive preconditions and goals are used (STRIPS + typing: Fast Downward and pyperplan read it), and
  a call grounds into at most the product of its wildcards' candidates.
What it cannot say is reported (P023): date arithmetic and value formats (dates, times, iata codes and
e-mail addresses are opaque objects: the reference's resolved values are the goal), the text matching of
the grader (a string is right only as the reference writes it), optional parameters a reference step does
not give (left out: their default applies) and tools no reference step calls (not exported).  A field
passed to a parameter whose type does not accept it takes that parameter's type (P024).
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from chronoplan.compiler import ir
from chronoplan.compiler.pddl.common import ExportError, PddlExport, TimeScale, error, warning
from chronoplan.compiler.pddl.names import NameMap, slug
from chronoplan.compiler.pddl.write import Domain, Lit, PddlAction, Predicate, Problem

ROOT = "value"
BASE = {"str": "t-str", "int": "t-int", "number": "t-number", "bool": "t-bool", "date": "t-date",
        "time": "t-time", "datetime": "t-datetime", "iata": "t-iata", "email": "t-email", "any": ROOT}
PARENT = {"t-str": ROOT, "t-iata": ROOT, "t-email": ROOT, "t-number": ROOT, "t-int": "t-number",
          "t-bool": ROOT, "t-date": ROOT, "t-time": ROOT, "t-datetime": ROOT}
# values standing for the wildcard ``_`` when the scenario states no value of the parameter's type
FREE = {"str": "any text", "int": 1, "number": 1, "bool": True, "date": "2025-01-01", "time": "09:00",
        "datetime": "2025-01-01T09:00", "iata": "AAA", "email": "user@example.com", "any": "any text"}
RESERVED_NAMES = ("value", "call", "known", "pending", "ready", "done")
MAX_SLUG = 40


@dataclass(frozen=True)
class ToolAction:
    """A PDDL action that calls ``tool``: parameter 0 is the call, parameter i+1 the tool parameter
    ``params[i]``."""

    tool: str
    params: tuple[str, ...]


@dataclass(frozen=True)
class WaitAction:
    """Bookkeeping: reference step ``call`` may start once the steps ``after`` are done; no tool call."""

    call: int
    after: tuple[int, ...]


@dataclass(frozen=True)
class ValueObject:
    """What a PDDL value object stands for: a literal (``json`` is its JSON value), the result ``field`` of
    reference step ``call``, or a left-out optional parameter (``omitted``)."""

    json: Any = None
    call: Optional[int] = None
    field: Optional[str] = None
    omitted: bool = False


def value_of(names: NameMap, obj: str) -> Optional[ValueObject]:
    """What the value object ``obj`` of a tool export stands for (None: not a value object of it)."""
    try:
        key = names.lookup(obj)
    except KeyError:
        return None
    if key[0] == "literal":
        return ValueObject(json=json.loads(key[1]))
    if key[0] == "result":
        return ValueObject(call=key[1], field=key[2])
    if key[0] == "none":
        return ValueObject(omitted=True)
    return None


def call_of(names: NameMap, obj: str) -> Optional[int]:
    """The reference step id of call object ``obj`` (None: not a call object)."""
    try:
        key = names.lookup(obj)
    except KeyError:
        return None
    return key[1] if key[0] == "call" else None


def _lit(pred: str, *args: str) -> Lit:
    return Lit(pred, tuple(args))


def literal_json(v: ir.Value) -> Any:
    """A literal reference value as JSON-ready data (numbers exact when whole, else decimal floats)."""
    if v.kind == "list":
        return [literal_json(x) for x in v.value]
    if isinstance(v.value, Fraction):
        return v.value.numerator if v.value.denominator == 1 else float(v.value)
    if v.kind in ("date", "time", "name"):
        return str(v.value)
    return v.value


def _leaves(value: Any) -> str:
    """The text an object name is made from: a list's elements joined by ``-`` (nested lists flattened)."""
    if isinstance(value, list):
        return "-".join(t for t in (_leaves(x) for x in value) if t)
    return str(value)


def _is_wild(v: ir.Value) -> bool:
    return v.kind == "name" and v.value == "_"


class _Types:
    """PDDL types of tool parameter types (``ir.ParamType``), with their parents, named through ``NameMap``."""

    def __init__(self, names: NameMap) -> None:
        self.names = names
        self.parent: dict[str, str] = {}

    def of(self, t: ir.ParamType) -> str:
        if t.kind == "enum":
            name = self.names.name(("type", "enum", t.values), "t-enum", *t.values[:3])
            self.parent.setdefault(name, ROOT)
            return name
        if t.kind == "list":
            item = self.of(t.item or ir.ParamType("str"))
            name = self.names.name(("type", "list", item), "t-list", item[2:] if item.startswith("t-") else item)
            self.parent.setdefault(name, ROOT)
            return name
        name = BASE.get(t.kind, ROOT)
        if name != ROOT:
            self.names.name(("type", name), None, name)
            self.parent.setdefault(name, PARENT[name])
            if PARENT[name] != ROOT:
                self.parent.setdefault(PARENT[name], ROOT)
        return name

    def fits(self, sub: str, sup: str) -> bool:
        """Is type ``sub`` (or an object of it) accepted where ``sup`` is expected?"""
        cur: Optional[str] = sub
        while cur is not None:
            if cur == sup:
                return True
            cur = self.parent.get(cur) if cur != ROOT else None
        return False


def _closure(calls: tuple) -> dict[int, set]:
    """Reference step id -> the ids it waits for, transitively (its ``after`` lists and the steps it reads)."""
    direct = {c.id: set(c.after) | {v.value[0] for _, v in c.args if v.kind == "ref"} for c in calls}
    out: dict[int, set] = {}
    for c in calls:                                 # reference steps only wait for earlier ones (C404)
        seen: set = set()
        for d in direct[c.id]:
            seen |= {d} | out.get(d, set())
        out[c.id] = seen
    return out


def export_tools(project: ir.Project, scenario: str, *, classical: bool = True) -> PddlExport:  # noqa: C901
    """The tool-use scenario ``scenario`` as classical PDDL: its reference calls are the goal."""
    scen = project.scenario(scenario)
    part = project.part(scen.name)
    calls = scen.reference
    if not calls:
        raise ExportError([error("P010", f"scenario {scen.name} has no reference plan: the PDDL export of a "
                                 "tool-use scenario takes its goals from the reference's calls", scen.span,
                                 ("add a `reference { ... }` block (docs/tools.md)",))])
    tools = {c.tool: part.tools.get(c.tool) or _operation(c.tool, calls, part) for c in calls}
    n = NameMap()
    for r in RESERVED_NAMES:
        n.name(("reserved", r), None, r)
    types = _Types(n)
    waits = _closure(calls)
    diags = []

    # the parameters each tool's action takes: required ones and the optional ones some call gives
    given: dict[str, set] = {}
    for c in calls:
        given.setdefault(c.tool, set()).update(k for k, _ in c.args)
    act_params = {t: tuple(p for p in tool.params if p.required or p.name in given[t]) for t, tool in tools.items()}
    ptype = {(t, p.name): types.of(p.type) for t, ps in act_params.items() for p in ps}

    # results: one object per returned field of each call, typed by the field (or by its consumer, P024)
    call_obj = {c.id: n.name(("call", c.id), "c", c.id) for c in calls}
    objects: dict[str, ValueObject] = {}
    obj_type: dict[str, str] = {}
    result: dict[tuple, str] = {}
    for c in calls:
        for fname, ftype in tools[c.tool].returns:
            name = n.name(("result", c.id, fname), f"r{c.id}", fname)
            result[(c.id, fname)] = name
            objects[name] = ValueObject(call=c.id, field=fname)
            obj_type[name] = types.of(ftype)
    by_id = {c.id: c for c in calls}
    for c in calls:
        for k, v in c.args:
            if v.kind != "ref":
                continue
            src, fname = v.value
            made = result.get((src, fname))
            want = ptype[(c.tool, k)]
            if made is None or types.fits(obj_type[made], want):
                continue
            consumers = [ptype[(d.tool, j)] for d in calls for j, w in d.args
                         if w.kind == "ref" and tuple(w.value) == (src, fname)]
            if not all(types.fits(want, other) for other in consumers):
                raise ExportError([error("P010", f"scenario {scen.name}: the field {fname} of reference step {src} "
                                         f"({by_id[src].tool}) is passed to parameters of incompatible types "
                                         f"({', '.join(sorted(set(consumers)))}), which one PDDL object cannot have",
                                         c.span)])
            diags.append(warning("P024", f"reference step {c.id} passes the field {fname} of step {src} "
                                 f"({obj_type[made]}) to {c.tool}.{k} ({want}): the result object takes the "
                                 "parameter's type", c.span))
            obj_type[made] = want

    # literal values: the reference's arguments, one object per (value, type)
    literal: dict[tuple, str] = {}

    def lit_obj(value: Any, typ: str) -> str:
        key = (json.dumps(value, sort_keys=True), typ)
        if key not in literal:
            text = slug(_leaves(value)).strip("-")[:MAX_SLUG] or "empty"
            name = n.name(("literal",) + key, "l" if typ.startswith("t-list") else None, text)
            literal[key] = name
            objects[name] = ValueObject(json=value)
            obj_type[name] = typ
        return literal[key]

    for c in calls:
        for k, v in c.args:
            if v.kind != "ref" and not _is_wild(v):
                lit_obj(literal_json(v), ptype[(c.tool, k)])
    # a wildcard needs some value of its type: add a stand-in when the scenario states none
    for c in calls:
        for k, v in c.args:
            want = ptype[(c.tool, k)]
            if _is_wild(v) and not any(types.fits(obj_type[o], want) and (ob.call is None or ob.call in waits[c.id])
                                       for o, ob in objects.items() if not ob.omitted):
                kind = next(p.type.kind for p in tools[c.tool].params if p.name == k)
                lit_obj(FREE.get(kind, "any text"), want)
    nones = {}                      # a none per type of an optional parameter that a call leaves out
    for c in calls:
        mine = dict(c.args)
        for p in act_params[c.tool]:
            if not p.required and p.name not in mine:
                typ = ptype[(c.tool, p.name)]
                if typ not in nones:
                    name = n.name(("none", typ), "none", typ[2:] if typ.startswith("t-") else typ)
                    nones[typ] = name
                    objects[name] = ValueObject(omitted=True)
                    obj_type[name] = typ

    # predicates, actions
    preds = [Predicate("pending", (("?c", "call"),), "the call has not been made"),
             Predicate("ready", (("?c", "call"),), "the calls this call waits for are done"),
             Predicate("done", (("?c", "call"),), "the call has been made"),
             Predicate("known", (("?v", ROOT),), "a value the planner can pass: stated by the query (or a none), "
                       "or returned by a call made")]
    arg_pred: dict[tuple, str] = {}
    can_pred: dict[tuple, str] = {}
    acts: list = []
    info: dict = {}
    call_type = {}
    for t, tool in tools.items():
        ct = n.name(("type", "call", t), "call", t)
        call_type[t] = ct
        params = [("?c", ct)]
        pre = [_lit("pending", "?c"), _lit("ready", "?c")]
        eff = [Lit("pending", ("?c",), False), _lit("done", "?c")]
        for i, p in enumerate(act_params[t]):
            var = f"?p{i + 1}"
            params.append((var, ptype[(t, p.name)]))
            cp = n.name(("can", t, p.name), "can", t, p.name)
            can_pred[(t, p.name)] = cp
            pre += [_lit(cp, "?c", var), _lit("known", var)]
            ap = n.name(("arg", t, p.name), "arg", t, p.name)
            arg_pred[(t, p.name)] = ap
            preds.append(Predicate(cp, (("?c", ct), ("?v", ptype[(t, p.name)])),
                                   f"the call may pass the value as {t}.{p.name} (static)"))
            preds.append(Predicate(ap, (("?c", ct), ("?v", ptype[(t, p.name)])),
                                   f"{t}.{p.name} ({p.type}{'' if p.required else ', optional'}) of the call"))
            eff.append(_lit(ap, "?c", var))
        ret_params = [fname for fname, _ in tool.returns]
        name = n.name(("action", t), None, t)
        # results become known through a static link (returns-TOOL-FIELD ?c ?r) per field
        for j, fname in enumerate(ret_params):
            var = f"?r{j + 1}"
            rp = n.name(("returns", t, fname), "returns", t, fname)
            preds.append(Predicate(rp, (("?c", ct), ("?r", ROOT)), f"the result object of the call's {fname}"))
            params.append((var, ROOT))
            pre.append(_lit(rp, "?c", var))
            eff.append(_lit("known", var))
        sig = ", ".join(f"{p.name}{'' if p.required else '?'}: {p.type}" for p in act_params[t])
        acts.append(PddlAction(name, tuple(params), tuple(pre), tuple(eff), None,
                               f"{t}({sig})" + (f" -> ({', '.join(ret_params)})" if ret_params else "")
                               + (f": {tool.doc}" if tool.doc else "")))
        info[name] = ToolAction(t, tuple(p.name for p in act_params[t]))
    for c in calls:
        if not c.after:
            continue
        name = n.name(("action", "wait", c.id), "wait", call_obj[c.id])
        acts.append(PddlAction(name, (), tuple(_lit("done", call_obj[a]) for a in c.after),
                               (_lit("ready", call_obj[c.id]),), None,
                               f"reference step {c.id} waits for step(s) {', '.join(map(str, c.after))}"))
        info[name] = WaitAction(c.id, tuple(c.after))

    # the problem
    init = [_lit("pending", call_obj[c.id]) for c in calls]
    init += [_lit("ready", call_obj[c.id]) for c in calls if not c.after]
    init += [_lit("known", o) for o, ob in objects.items() if ob.call is None]
    for c in calls:
        for fname, _ in tools[c.tool].returns:
            link = n.get(("returns", c.tool, fname))
            assert link is not None
            init.append(_lit(link, call_obj[c.id], result[(c.id, fname)]))
    # what each call may pass as each parameter: the reference's value, the none of a parameter it leaves out,
    # for a wildcard any stated value of the type or result of a call it waits for (never a none)
    goal = []
    for c in calls:
        goal.append(_lit("done", call_obj[c.id]))
        mine = dict(c.args)
        for p in act_params[c.tool]:
            cp, ap, typ = can_pred[(c.tool, p.name)], arg_pred[(c.tool, p.name)], ptype[(c.tool, p.name)]
            if p.name not in mine:
                init.append(_lit(cp, call_obj[c.id], nones[typ]))
                continue
            v = mine[p.name]
            if _is_wild(v):
                init += [_lit(cp, call_obj[c.id], o) for o, ob in objects.items() if not ob.omitted
                         and types.fits(obj_type[o], typ) and (ob.call is None or ob.call in waits[c.id])]
            else:
                o = result[tuple(v.value)] if v.kind == "ref" else \
                    literal[(json.dumps(literal_json(v), sort_keys=True), typ)]
                init.append(_lit(cp, call_obj[c.id], o))
                goal.append(_lit(ap, call_obj[c.id], o))

    unused = _unused(project, scen, tools)
    diags.insert(0, warning(
        "P023", f"the PDDL export of {scen.name} plans its {len(calls)} reference call(s) as the goal: values are "
        "opaque objects (no date arithmetic, formats or text matching: the reference's resolved values are "
        "the goal), optional parameters a reference step does not give are left out"
        + (f", and {len(unused)} offered tool(s) no reference step calls are not exported ({', '.join(unused[:5])}"
           + (", ..." if len(unused) > 5 else "") + ")" if unused else ""), scen.span,
        ("chronoplan solve maps the planner's calls back to a tool plan and grades it",)))
    type_pairs = [(ct, "call") for ct in call_type.values()]
    used_types = set(obj_type.values()) | set(ptype.values())
    for typ in list(used_types):
        cur = typ
        while cur != ROOT and cur in types.parent:
            used_types.add(cur)
            cur = types.parent[cur]
    type_pairs += [(typ, types.parent[typ]) for typ in _order(used_types, types.parent)]
    consts = tuple((call_obj[c.id], call_type[c.tool]) for c in calls)   # the wait actions name them
    objs = [(o, obj_type[o]) for o in objects]
    head = (f"Generated by chronoplan from tool-use scenario {scen.name} (classical; goal: the reference's calls).",
            "Values are opaque objects: literals as the reference states them, one result object per returned "
            "field of each call.")
    dname = "chronoplan-" + slug(scen.name) + "-tools"
    reqs = (":strips", ":typing")
    domain = Domain(dname, reqs, (("call", "object"), (ROOT, "object")) + tuple(type_pairs), tuple(preds),
                    tuple(acts), (), head, consts)
    prob = Problem(dname + "-problem", dname, tuple(objs), tuple(init), (), (), tuple(goal), None, head[:1])
    return PddlExport(scen.name, True, domain, prob, tuple(diags), n, TimeScale(1, 1), info, None)


_KIND_TYPES = {"str": "str", "int": "int", "number": "number", "bool": "bool", "date": "date", "time": "time"}


def _value_type(v: ir.Value, calls: tuple, part: ir.Project) -> ir.ParamType:
    """The parameter type a reference value stands for (names are enum members; ``_`` is text)."""
    if v.kind == "list":
        return ir.ParamType("list", (), _value_type(v.value[0], calls, part) if v.value else ir.ParamType("str"))
    if v.kind == "ref":
        src = next((c for c in calls if c.id == v.value[0]), None)
        producer = part.tools.get(src.tool) if src is not None else None
        return dict(producer.returns).get(v.value[1], ir.ParamType("any")) if producer else ir.ParamType("any")
    if v.kind == "name":
        return ir.ParamType("str") if v.value == "_" else ir.ParamType("enum", ())
    return ir.ParamType(_KIND_TYPES.get(v.kind, "any"))


def _operation(name: str, calls: tuple, part: ir.Project) -> ir.Tool:
    """The signature of a reference step that names no declared tool (an APP operation: Tap, Text, Swipe,
    Back, Home), read off the reference: its parameters are the arguments its steps give (required when every
    such step gives it), typed by their values; it returns nothing."""
    mine = [c for c in calls if c.tool == name]
    params: dict = {}
    for c in mine:
        for k, v in c.args:
            params.setdefault(k, _value_type(v, calls, part))
    return ir.Tool(name, None, tuple(ir.ToolParam(k, t, all(k in dict(c.args) for c in mine))
                                     for k, t in params.items()), (), "an operation of the reference plan")


def _unused(project: ir.Project, scen: ir.Scenario, called: dict) -> list:
    apps = project.part(scen.name).apps
    offered = list(scen.tools) + [t for a in scen.apps for t in getattr(apps.get(a), "tools", ())]
    return sorted(set(offered) - set(called))


def _order(types: set, parent: dict) -> list:
    """``types`` (except the root) parents first, then by name: a deterministic (:types ...) order."""
    out: list = []
    depth = {}
    for t in types:
        d, cur = 0, t
        while cur != ROOT and cur in parent:
            d, cur = d + 1, parent[cur]
        depth[t] = d
    for t in sorted((t for t in types if t != ROOT), key=lambda t: (depth[t], t)):
        out.append(t)
    return out


@dataclass(frozen=True)
class ToolPlanBack:
    """A planner's plan as a tool plan (``plan``: tools-format JSON, None when ``problems`` says why not)."""

    plan: Optional[dict]
    problems: tuple[str, ...]
    calls: int


def to_tool_plan(export: PddlExport, actions: Iterable) -> ToolPlanBack:
    """The planner's actions (``compiler.pddl.plan.PlanAction``: ``name``, ``args``, ``start``), in plan order,
    as a tools-format plan: one step per tool action (ids 1, 2, ... in plan order), its arguments the values
    its PDDL parameters stand for (a result object -> ``$ID.field`` of the step that made that call, a
    ``none`` -> the parameter left out), ``after`` = the steps of the calls its reference step waits for and
    of every result it consumes.  Wait actions are bookkeeping and dropped."""
    after_of = {a.call: a.after for a in export.actions.values() if isinstance(a, WaitAction)}
    steps: list = []
    problems: list = []
    step_of_call: dict = {}
    for a in sorted(actions, key=lambda x: x.start):
        info = export.actions.get(a.name)
        if isinstance(info, WaitAction):
            continue
        if not isinstance(info, ToolAction):
            problems.append(f"unknown PDDL action {a.name}")
            continue
        cid = call_of(export.names, a.args[0]) if a.args else None
        if cid is None or len(a.args) < 1 + len(info.params) or cid in step_of_call:
            problems.append(f"{a.name}: unexpected arguments ({' '.join(a.args)})")
            continue
        sid = len(steps) + 1
        args: dict = {}
        after: list = [step_of_call[d] for d in after_of.get(cid, ()) if d in step_of_call]
        for pname, obj in zip(info.params, a.args[1:]):
            ob = value_of(export.names, obj)
            if ob is None:
                problems.append(f"{a.name}: {obj} is not a value of the export")
            elif ob.call is not None:
                src = step_of_call.get(ob.call)
                if src is None:
                    problems.append(f"{a.name}: uses {obj} before the call that returns it")
                    continue
                args[pname] = f"${src}.{ob.field}"
                if src not in after:
                    after.append(src)
            elif not ob.omitted:
                args[pname] = ob.json
        step_of_call[cid] = sid
        steps.append({"id": sid, "tool": info.tool, "args": args, "after": sorted(after)})
    expected = {c for c in (call_of(export.names, o) for o, _ in export.domain.constants) if c is not None}
    missing = sorted(expected - set(step_of_call))
    if missing:
        problems.append("the plan makes no call for reference step(s) " + ", ".join(map(str, missing)))
    plan = None if problems else {"scenario": export.scenario, "steps": steps}
    return ToolPlanBack(plan, tuple(problems), len(steps))
