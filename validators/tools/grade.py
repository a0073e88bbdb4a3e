"""Rule-based grading of tool-call plans against a scenario's tools and reference plan.

Input: an ``ir.Project``, a scenario (name, ``ir.Scenario`` or None for the only one), a plan (JSON text
or decoded object) and its format (``tools``, ``planningarena`` or None to detect).  Output: a
``report.Report`` whose errors carry the stable T-codes of docs/tools.md (index = the step's 0-based
position) and whose metrics hold SER, DA, LPR = SER x DA, SMAR and its checkpoints, the micro rates and
per-category counts.  Never raises on a bad plan.

Order of checks: reading (T0xx), names (T1xx), parameters (T2xx), dependencies (T3xx), then, against
the reference: missing steps and wrong values (T4xx goal), repeated and redundant steps (T5xx repeat),
dates (T6xx time-window).  Plan steps are matched to reference steps with the same tool, best argument
agreement first, ties broken by position.
"""
from __future__ import annotations

import datetime as _dt
import difflib
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional

from chronoplan.compiler import appops, ir
from chronoplan.validators.report import PlanError, Report
from chronoplan.validators.tools.app import read_app_step, ui_apps
from chronoplan.validators.tools.dates import find_date_phrases, parse_iso_date
from chronoplan.validators.tools.metrics import compute_metrics
from chronoplan.validators.tools.read import ToolPlan, read_tool_plan
from chronoplan.validators.tools.refs import StepRef
from chronoplan.validators.tools.results import literal_source
from chronoplan.validators.tools.structure import ancestors, closure, reaches
from chronoplan.validators.tools.values import ANY, DATE_KINDS, check_value, ref_value, same_value


def label(st) -> str:
    """How messages name a plan step: by the id the plan gives it (what ``$N`` and "after" use), or by its
    1-based position when it has no readable id.  The report's ``index`` field stays the 0-based position."""
    return f"step {st.id}" if st.id >= 0 else f"the step at position {st.index + 1}"


@dataclass
class _Step:
    """Grading state of one plan step."""

    tool: Optional[ir.Tool] = None
    bound: dict = field(default_factory=dict)
    codes: set = field(default_factory=set)
    match: Optional[int] = None                # matched reference step id
    bad_args: set = field(default_factory=set)  # parameters with a schema error (not compared again)
    app_step: bool = False                     # an APP operation (Tap/Text/Swipe/Back/Home), not a tool call
    app: Optional[str] = None                  # the app an operation step works in (resolved)


def scenario_today(scen: ir.Scenario) -> Optional[_dt.date]:
    """The profile's ``today`` as a date (None when absent or not a date)."""
    for key, v in scen.profile:
        if key == "today":
            x = v.value if isinstance(v, ir.Value) else v
            if isinstance(x, _dt.datetime):
                return x.date()
            if isinstance(x, _dt.date):
                return x
            return parse_iso_date(str(x))
    return None


def offered_tools(project: ir.Project, scen: ir.Scenario) -> dict:
    """Tools the scenario offers (its apps' tools plus its loose tools); every tool when it names none."""
    names: list = []
    for app in scen.apps:
        a = project.apps.get(app)
        names.extend(a.tools if a else ())
    names.extend(scen.tools)
    if not scen.apps and not scen.tools:
        names = list(project.tools)
    return {n: project.tools[n] for n in names if n in project.tools}


def _resolve_scenario(project: Any, scenario: Any) -> tuple[Optional[ir.Scenario], str]:
    if isinstance(scenario, ir.Scenario):
        return scenario, scenario.name
    try:
        s = project.scenario(scenario)
        return s, s.name
    except (KeyError, AttributeError, TypeError):
        return None, "?" if scenario is None else str(scenario)


def grade_tool_plan(project: ir.Project, scenario: Any, plan_obj: Any, fmt: Optional[str] = None, *,
                    plan_name: str = "<plan>", first: bool = False) -> Report:
    """Grade one tool plan; see the module docstring and docs/tools.md for the codes and metrics."""
    scen, scen_name = _resolve_scenario(project, scenario)
    if scen is None:
        err = PlanError("T010", f"no scenario {scen_name!r} in the project",
                        "name one of: " + ", ".join(getattr(project, "scenarios", {}) or ()))
        return Report(False, plan_name, scen_name, (err,), {"makespan": None, "success": False})
    part = getattr(project, "part", None)
    if callable(part):
        project = part(scen.name)
    plan = read_tool_plan(plan_obj, fmt)
    g = _Grader(project, scen, plan)
    g.run()
    errors = g.errors[:1] if first else g.errors
    metrics = compute_metrics(g.plan, scen, g.state, g.errors, g.ref_info)
    metrics["success"] = not g.errors
    if plan.header:
        metrics["header"] = dict(plan.header)
    return Report(not g.errors, plan_name, scen.name, tuple(errors), metrics, tuple(g.notes))


class _Grader:
    def __init__(self, project: ir.Project, scen: ir.Scenario, plan: ToolPlan) -> None:
        self.project, self.scen, self.plan = project, scen, plan
        self.today = scenario_today(scen)
        self.tools = offered_tools(project, scen)
        self.errors: list[PlanError] = list(plan.errors)
        self.notes: list[PlanError] = []           # W-codes: readings that do not make the plan invalid
        self.state = [_Step() for _ in plan.steps]
        self.pos_of: dict = {}
        for st in plan.steps:
            self.pos_of.setdefault(st.id, st.index)
        uis = ui_apps(project)
        self.ref_info: dict = {"ui": any(a in uis for a in scen.apps), "api": bool(self.tools)}
        self._phrases: Optional[list] = None
        self._has_ui = bool(uis)
        self._current_app: Optional[str] = None     # the app the previous operation step worked in

    def err(self, code: str, message: str, hint: str, index: Optional[int]) -> None:
        self.errors.append(PlanError(code, message, hint, index))
        if index is not None and 0 <= index < len(self.state):
            self.state[index].codes.add(code)

    def run(self) -> None:
        for st in self.plan.steps:
            self.check_name(st)
            if self.state[st.index].tool is not None and not self.state[st.index].app_step:
                self.check_params(st)
        self.check_dependencies()
        unreadable = not self.plan.steps and bool(self.plan.errors)
        if self.scen.reference and not unreadable:     # an unreadable plan is not also "missing" every step
            self.match_reference()

    # ------------------------------------------------------------------ names
    def check_name(self, st) -> None:
        if st.tool is None:
            return
        if self._has_ui and st.tool not in self.tools and appops.op_named(st.tool) is not None:
            self.check_app_step(st)
            return
        p = self.project
        if st.app is not None and st.app not in p.apps:
            self.err("T102", f"{label(st)}: there is no app {st.app!r}",
                     _suggest(st.app, self._offered_apps(), "app"), st.index)
            return
        tool = p.tools.get(st.tool)
        if tool is None:
            self.err("T101", f"{label(st)}: there is no tool {st.tool!r}",
                     _suggest(st.tool, list(self.tools), "tool"), st.index)
            return
        if st.app is not None and tool.app != st.app:
            self.err("T104", f"{label(st)}: app {st.app!r} has no tool {st.tool!r}",
                     f"{st.tool!r} belongs to " + (f"app {tool.app!r}" if tool.app else "no app"), st.index)
            return
        if st.tool not in self.tools:
            self.err("T103", f"{label(st)}: tool {st.tool!r} is not offered in this scenario",
                     _suggest(st.tool, list(self.tools), "tool"), st.index)
            return
        self.state[st.index].tool = tool

    def check_app_step(self, st) -> None:
        """An APP operation: app (T107/T108), element (T109, T207) and arguments (T208); ``validators.tools.app``."""
        s = self.state[st.index]
        s.app_step = True
        got = read_app_step(self.project, self.scen.apps, st, self._current_app)
        for code, message, hint in got.problems:
            self.err(code, f"{label(st)}: {message}", hint, st.index)
        s.app = got.app
        self._current_app = None if got.op is ir.AppOp.HOME else (got.app or self._current_app)
        if not got.codes & {"T107", "T108"} and (got.app is not None or got.op is ir.AppOp.HOME):
            s.tool = appops.op_tool(got.op)
            s.bound = got.bound
            if got.codes & {"T109", "T207", "T208"}:       # reported already: not a wrong value as well
                s.bad_args = {k for k in ("element", "text", "direction") if k not in got.bound}
                if "T207" in got.codes:
                    s.bad_args.add("element")

    def _offered_apps(self) -> list:
        return list(self.scen.apps) or list(self.project.apps)

    # ------------------------------------------------------------------ parameters
    def check_params(self, st) -> None:
        s = self.state[st.index]
        tool = s.tool
        params = {p.name: p for p in tool.params}
        bound: dict = {}
        if len(st.positional) > len(tool.params):
            self.err("T206", f"{label(st)}: {st.tool} takes {len(tool.params)} argument(s), "
                     f"{len(st.positional)} given", "pass the arguments by name", st.index)
        for p, v in zip(tool.params, st.positional):
            bound[p.name] = v
        for name, v in st.args:
            if name not in params:
                self.err("T201", f"{label(st)}: {st.tool} has no parameter {name!r}",
                         _suggest(name, list(params), "parameter"), st.index)
                continue
            if name in bound:
                self.err("T206", f"{label(st)}: parameter {name!r} is given twice",
                         "give each parameter once", st.index)
            bound[name] = v
        for p in tool.params:
            v = bound.get(p.name)
            if v is None:
                if p.required:
                    s.bad_args.add(p.name)
                    self.err("T202", f"{label(st)}: {st.tool} needs parameter {p.name!r} ({p.type})",
                             f"add {p.name!r}: a {p.type} value", st.index)
                continue
            problem = check_value(p.type, v, self.today)
            if problem:
                code, msg, hint = problem
                s.bad_args.add(p.name)
                self.err(code, f"{label(st)}: {st.tool}.{p.name}: {msg}", hint, st.index)
        s.bound = {k: v for k, v in bound.items() if v is not None}

    # ------------------------------------------------------------------ dependencies
    def check_dependencies(self) -> None:
        steps = self.plan.steps
        n = len(steps)
        after_preds: list = [[] for _ in range(n)]
        all_preds: list = [[] for _ in range(n)]
        for st in steps:
            for a in st.after:
                j = self.pos_of.get(a)
                if j is None or j >= st.index:
                    what = "does not exist" if j is None else ("is the step itself" if j == st.index
                                                               else "comes later in the plan")
                    self.err("T303", f"{label(st)}: \"after\" names step {a}, which {what}",
                             "list only earlier steps in \"after\" (ids of steps that must finish first)", st.index)
                    continue
                after_preds[st.index].append(j)
                all_preds[st.index].append(j)
            for r in st.refs:
                j = self.pos_of.get(r.step)
                if j is None:
                    self.err("T105", f"{label(st)}: {r} refers to step {r.step}, which does not exist",
                             "refer only to steps of this plan ($N.field with N a step id)", st.index)
                    continue
                if j >= st.index:
                    self.err("T301", f"{label(st)}: uses {r}, the output of "
                             + ("itself" if j == st.index else f"a later step ({label(steps[j])})"),
                             "move the producing step before this one", st.index)
                    continue
                all_preds[st.index].append(j)
                producer = self.state[j].tool
                if r.field and producer is not None and producer.returns and \
                        r.field not in {name for name, _ in producer.returns}:
                    self.err("T106", f"{label(st)}: {producer.name} returns no field {r.field!r}",
                             "use one of its fields: " + ", ".join(name for name, _ in producer.returns), st.index)
        self.after_anc = ancestors(n, after_preds)
        self.all_anc = ancestors(n, all_preds)
        self.all_preds = all_preds
        for st in steps:
            if not st.declares_after:
                continue
            for r in st.refs:
                j = self.pos_of.get(r.step)
                if j is not None and j < st.index and not reaches(self.after_anc, j, st.index):
                    self.err("T302", f"{label(st)}: uses {r} but does not wait for step {r.step}",
                             f"add {r.step} to this step's \"after\" list", st.index)

    # ------------------------------------------------------------------ the reference
    def match_reference(self) -> None:
        ref = self.scen.reference
        self.ref_vals = {c.id: {k: ref_value(v, self.today) for k, v in c.args} for c in ref}
        pairs = []
        for k, call in enumerate(ref):
            for st in self.plan.steps:
                s = self.state[st.index]
                if s.tool is None or s.tool.name != call.tool:
                    continue
                score = sum(self._same(s, name, call, None, st.index) for name, _ in call.args)
                pairs.append((-score, st.index, k, call.id))
        pairs.sort()
        used_plan, used_ref = set(), set()
        for _, i, _, rid in pairs:
            if i in used_plan or rid in used_ref:
                continue
            used_plan.add(i)
            used_ref.add(rid)
            self.state[i].match = rid
        self.ref_map = {self.plan.steps[i].id: s.match for i, s in enumerate(self.state) if s.match is not None}
        self.check_values(ref)
        self.check_missing_and_redundant(ref)
        self.check_ref_dependencies(ref)

    def _same(self, s: _Step, name: str, call: ir.RefCall, ref_map: Optional[dict], index: int) -> bool:
        param = next((p for p in s.tool.params if p.name == name), None) if s.tool is not None else None
        ptype = param.type if param is not None else None
        kind = ptype.kind if ptype is not None else "str"
        if ptype is not None and kind == "list" and ptype.item is not None:
            kind = ptype.item.kind               # list elements compare by their own type
        value = s.bound.get(name)
        if value is None and param is not None and param.default is not None:
            value = ref_value(param.default, self.today) if isinstance(param.default, ir.Value) else param.default
        if value is None:
            return False
        want = self.ref_vals[call.id][name]
        return same_value(value, want, kind, ref_map) or self._copied(index, value, want, ref_map) is not None

    def _copied(self, index: int, value: Any, want: Any, ref_map: Optional[dict]) -> Optional[tuple]:
        """(producing plan step, key path) when the literal ``value`` repeats a leaf of the simulated Results of
        an earlier plan step that does the job of reference step ``want.step`` (any earlier step while
        matching, ``ref_map`` None); None otherwise (``tools.results``)."""
        if not isinstance(want, StepRef) or isinstance(value, (StepRef, tuple, dict)):
            return None
        for o in self.plan.steps[:index]:
            if not o.results or (ref_map is not None and self.state[o.index].match != want.step):
                continue
            path = literal_source(value, o.results, want.field)
            if path is not None:
                return o, path
        return None

    def check_values(self, ref) -> None:
        by_id = {c.id: c for c in ref}
        self.matched_ids = {s.match for s in self.state if s.match is not None}
        quality = {}
        date_total = date_ok = 0
        for st in self.plan.steps:
            s = self.state[st.index]
            if s.match is None:
                continue
            call = by_id[s.match]
            good = 0
            for name, rv in call.args:
                param = next((p for p in s.tool.params if p.name == name), None)
                is_date = ((param is not None and param.type.kind in DATE_KINDS)
                           or rv.kind in ("date", "time", "relative"))
                ok = self._same(s, name, call, self.ref_map, st.index)
                if ok:
                    self._note_copy(st, name, s.bound.get(name), self.ref_vals[call.id][name])
                date_total += is_date
                date_ok += is_date and ok
                good += ok
                if ok:
                    continue
                want = self.ref_vals[call.id][name]
                got = s.bound.get(name)
                if name in s.bad_args:
                    continue                     # reported as a schema error already
                if isinstance(want, StepRef) and want.step not in self.matched_ids:
                    continue                     # knock-on of a missing step (reported as T401)
                if isinstance(got, StepRef) and s.codes & {"T105", "T106", "T301"}:
                    continue                     # the bad reference is reported already
                src = next((o for o in self.plan.steps if self.state[o.index].match == want.step), None) \
                    if isinstance(want, StepRef) and isinstance(got, StepRef) else None     # (want is matched: found)
                if src is not None:
                    self.err("T402", f"{label(st)}: {st.tool}.{name} is {_fmt(got)}, but the task "
                             f"needs the {want.field or 'output'} of {src.tool}"
                             f" (step id {src.id}, position {src.index})",
                             f"use ${src.id}.{want.field}" if want.field else f"use ${src.id}", st.index)
                    continue
                if is_date:
                    self.err("T601", f"{label(st)}: {st.tool}.{name} is {_fmt(got)}, "
                             f"but the query asks for {_fmt(want)}", self._date_hint(want), st.index)
                else:
                    self.err("T402", f"{label(st)}: {st.tool}.{name} is {_fmt(got)}, "
                             f"the task needs {_fmt(want)}", self._value_hint(name, want), st.index)
            quality[s.match] = Fraction(good, len(call.args)) if call.args else Fraction(1)
        self.ref_info.update(quality=quality, date_total=date_total, date_ok=date_ok)

    def _note_copy(self, st, name: str, got: Any, want: Any) -> None:
        """W060 when a right argument is right only as a literal copy of an earlier step's simulated result."""
        if got is None or isinstance(want, StepRef) and same_value(got, want, "str", self.ref_map):
            return
        hit = self._copied(st.index, got, want, self.ref_map)
        if hit is None:
            return
        src, path = hit
        ref = f"${src.id}.{want.field}" if want.field else f"${src.id}"
        self.notes.append(PlanError(
            "W060", f"{label(st)}: {st.tool}.{name} is {_fmt(got)}, the value {label(src)}'s simulated Results show "
            f"at {'.'.join(path)}: read as {ref}, the output of that step",
            f"write the reference instead of the value: <output of step {src.id}>", st.index))

    def _date_hint(self, want: Any) -> str:
        if self._phrases is None:
            self._phrases = find_date_phrases(self.scen.query or "", self.today) if self.today else []
        phrases = self._phrases
        d = parse_iso_date(want) if isinstance(want, str) else None
        said = [p for p, pd in phrases if d is not None and pd == d]
        if said and self.today and d is not None:
            return (f"the query says {said[0]!r}; counted from today ({self.today.isoformat()}, a "
                    f"{self.today.strftime('%A')}) that is {want} (a {d.strftime('%A')}); weeks start on Monday")
        return f"use {want}"

    def _value_hint(self, name: str, want: Any) -> str:
        for key, v in self.scen.profile:
            if key != "today" and ref_value(v, self.today) == want:
                return f"use {_fmt(want)} (the user's profile: {key})"
        if isinstance(want, StepRef):
            return f"pass the output of the step that does reference step {want.step}'s job ({want})"
        if isinstance(want, str) and want.lower() in (self.scen.query or "").lower():
            return f"use {_fmt(want)} as asked in the query"
        return f"the task needs {_fmt(want)}"

    def check_missing_and_redundant(self, ref) -> None:
        matched = {s.match for s in self.state if s.match is not None}
        for call in ref:
            if call.id not in matched:
                args = ", ".join(f"{k}={_fmt(self.ref_vals[call.id][k])}" for k, _ in call.args)
                self.err("T401", f"no step calls {call.tool} for reference step {call.id}",
                         f"add a step {call.tool}({args})", None)
        matched_by_tool: dict = {}
        for o in self.plan.steps:
            if self.state[o.index].match is not None:
                matched_by_tool.setdefault(o.tool, []).append(o)
        for st in self.plan.steps:
            s = self.state[st.index]
            if s.tool is None or s.match is not None:
                continue
            twin = next((o for o in matched_by_tool.get(st.tool, ())
                         if _same_bound(self.state[o.index].bound, s.bound)), None)
            if twin is not None:
                self.err("T501", f"{label(st)}: repeats {label(twin)} ({st.tool} with the same arguments)",
                         "remove the repeated step", st.index)
            else:
                self.err("T502", f"{label(st)}: {st.tool} is not needed for this task",
                         "remove the step, or check that it serves the query", st.index)

    def check_ref_dependencies(self, ref) -> None:
        ids = [c.id for c in ref]
        edges: set = set()
        for c in ref:
            edges.update((a, c.id) for a in c.after)
            edges.update((v.step, c.id) for v in _value_refs(self.ref_vals[c.id].values()))
        ref_closure = closure(ids, edges)
        pos = {s.match: i for i, s in enumerate(self.state) if s.match is not None}
        satisfied = 0
        for a, b in sorted(edges):
            ia, ib = pos.get(a), pos.get(b)
            if ia is None or ib is None:
                continue
            step_b = self.plan.steps[ib]
            ok = reaches(self.all_anc, ia, ib) if step_b.declares_after else ia < ib
            if ok:
                satisfied += 1
            else:
                how = (f"add {self.plan.steps[ia].id} to its \"after\" list" if step_b.declares_after
                       else "move it after that step")
                self.err("T304", f"{label(step_b)}: must wait for {label(self.plan.steps[ia])} "
                         f"({self.plan.steps[ia].tool}), as reference step {b} waits for step {a}", how, ib)
        hallucinated = 0
        for st in self.plan.steps:
            for j in dict.fromkeys(self.all_preds[st.index]):
                a, b = self.state[j].match, self.state[st.index].match
                if a is None or b is None or (a, b) in ref_closure:
                    continue
                hallucinated += 1
                self.err("T305", f"{label(st)}: waits for {label(self.plan.steps[j])} "
                         f"({self.plan.steps[j].tool}), which the task does not require",
                         "drop the dependency so both can run in parallel", st.index)
        hallucinated += sum(1 for e in self.errors if e.code in ("T105", "T301", "T303"))
        self.ref_info.update(dep_total=len(edges), dep_ok=satisfied, dep_bad=hallucinated)


def _value_refs(values) -> list:
    out = []
    for v in values:
        if isinstance(v, StepRef):
            out.append(v)
        elif isinstance(v, tuple):
            out.extend(_value_refs(v))
    return out


def _same_bound(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(same_value(b[k], a[k], "exact") for k in a)


def _fmt(v: Any) -> str:
    if v is None:
        return "missing"
    if v is ANY:
        return "a value"
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{float(v):g}"
    if isinstance(v, StepRef):
        return str(v)
    text = repr(v) if isinstance(v, str) else str(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _suggest(name: str, choices: list, what: str) -> str:
    close = difflib.get_close_matches(str(name)[:100], [str(c) for c in choices], n=1, cutoff=0.6)
    if close:
        return f"did you mean {close[0]!r}?"
    shown = ", ".join(str(c) for c in choices[:12]) + (" ..." if len(choices) > 12 else "")
    return f"use a declared {what}: {shown}" if choices else f"no {what}s are declared"
