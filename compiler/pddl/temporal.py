"""PDDL 2.1 temporal export of step-level scenarios (procedures).

Input: a ``ProcedureProblem`` (``compiler.instantiate``) and optionally its ``ir.Project`` for spans.
Output: ``PddlExport`` (``compiler.pddl.common``) with a domain of durative actions and a problem.

Lowering (docs/pddl.md has the full table):
- step X -> durative action ``step-T-i`` (duration d) taking ``?a - agent`` when it occupies an agent;
  ``(todo X)`` is consumed at start (each step runs once), ``(done X)`` is added at end.
- agents: objects with a lock ``(free ?a)`` taken at start, given back at end.  Autonomous steps (0 units
  of occupation) take no agent; with ``occupancy exclusive`` they take one whose ``(free ?a)`` must hold at
  their start (no step starts while its agent is busy).  "Autonomous for k" (0 < k < d) is split:
  ``step-T-i`` (duration k, holds the agent and the step's resources) adds ``(running X)`` at end;
  ``run-T-i`` (duration d - k) consumes it, keeps the resources and completes the step.
- resources: capacity 1 -> a lock fact ``(free-R)``; capacity c > 1 -> c slot objects of type
  ``slot-R`` with ``(slot-free ?s)`` (the action takes a slot parameter).
- properties: ``(prop-R-P-V)`` facts; a setter adds its value and deletes the others at its end, a needer
  requires the value at its start.
- prerequisites: ``(done X)`` at start.  Release: a timed initial literal ``(released X)``.  Deadline and
  scenario limit: a timed initial literal deleting ``(before-deadline X)`` / ``(in-limit)`` (required at
  the end of the step) slack units after the deadline.
- minimum lag L of Y after X: timer ``wait-T-y-x`` of duration d_X + L started after X starts
  (``(started X)``), whose end adds ``(lag-ok Y X)`` required by Y.
- maximum lag L: envelope ``clip-T-y-x`` of fixed duration (d_X + L) + slack, opened before X (X needs
  ``(clip-open Y X)`` at its start); its end deletes ``(window Y X)``, which Y needs at its start, so Y
  starts before the envelope closes.  A fixed duration is as strong as an upper bound here (the envelope
  may open any time before X); LPG rejects duration inequalities, and an at-end condition "Y has started"
  would make LPG's reachability analysis loop, so neither is used.
- interruptible steps run in one action (P001: a restriction; plans stay valid in the simulator).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Optional

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import ProcedureProblem, SchedStep
from chronoplan.compiler.pddl.common import (
    ActionInfo,
    ExportError,
    PddlExport,
    header,
    resource_span,
    step_spans,
    time_scale,
    unroll_problem,
    warning,
)
from chronoplan.compiler.pddl.names import NameMap, slug, value_code
from chronoplan.compiler.pddl.write import Domain, DurativeAction, Lit, Predicate, Problem


def is_split(s: SchedStep) -> bool:
    o = s.occupation()
    return 0 < o < s.duration


class _TemporalBuilder:
    def __init__(self, problem: ProcedureProblem, spans: dict, envelopes: bool = True) -> None:
        self.p = problem
        self.envelopes = envelopes
        self.spans = spans
        self.n = NameMap()
        self.scale = time_scale(problem)
        self.diags: list = []
        self.preds: dict = {}                 # name -> Predicate (insertion order)
        self.actions: list = []
        self.info: dict = {}
        self.init: list = []
        self.tils: list = []
        self.objects: list = []
        self.types: list = [("agent", "object")]
        self.by_key = {s.key: s for s in problem.steps}

    # -------------------------------------------------------------- names
    def fact(self, kind: str, *parts, comment: str = "") -> str:
        name = self.n.name((kind,) + tuple(parts), kind, *self._show(parts))
        if name not in self.preds or (comment and not self.preds[name].comment):
            self.preds[name] = Predicate(name, (), comment)
        return name

    @staticmethod
    def _show(parts) -> list:
        """Name components: a step key (task, index) shows as task-index; a second key of the same task
        adds only its index."""
        out: list = []
        task = None
        for p in parts:
            if isinstance(p, tuple):
                out += [int(p[1])] if p[0] == task else [p[0], int(p[1])]
                task = p[0]
            else:
                out.append(p)
        return out

    def lit(self, kind: str, *parts, positive: bool = True, comment: str = "") -> Lit:
        return Lit(self.fact(kind, *parts, comment=comment), (), positive)

    def t(self, x: Fraction) -> Fraction:
        return self.scale.to_pddl(x)

    # -------------------------------------------------------------- build
    def build(self) -> PddlExport:
        p = self.p
        for fixed in ("agent", "slot", "free", "slot-free"):       # one namespace: keep these for their use
            self.n.name(("fixed", fixed), fixed)
        for a in p.agents:
            self.objects.append((self.n.name(("agent", a), None, a), "agent"))
        self.preds["free"] = Predicate("free", (("?a", "agent"),), "the agent is not busy")
        self.slots: dict = {}                  # resource -> (type, [objects])
        for r in p.resources:
            if r.capacity == 1:
                self.init.append(self.lit("free", r.name, comment=f"resource {r.name} is not in use"))
            else:
                if not self.slots:
                    self.types.append(("slot", "object"))
                    self.preds["slot-free"] = Predicate("slot-free", (("?s", "slot"),), "the slot is not in use")
                typ = self.n.name(("slot-type", r.name), "slot", r.name)
                self.types.append((typ, "slot"))
                objs = [self.n.name(("slot", r.name, i), "slot", r.name, i) for i in range(1, r.capacity + 1)]
                self.slots[r.name] = (typ, objs)
                self.objects += [(o, typ) for o in objs]
                self.init += [Lit("slot-free", (o,)) for o in objs]
        self._properties()
        for s in p.steps:
            where = f"step {s.index} of {s.task}"
            self.fact("todo", s.key, comment=f"{where} has not started")
            self.fact("done", s.key, comment=f"{where} is complete")
        for a in p.agents:
            self.init.append(Lit("free", (self.n.name(("agent", a), None, a),)))
        if p.limit is not None:
            self.init.append(self.lit("in-limit", comment="the scenario's time limit has not passed"))
            self.tils.append((self.t(p.limit) + self.scale.slack, self.lit("in-limit", positive=False)))
        for s in p.steps:
            self._step(s)
        goal = [self.lit("done", s.key) for s in p.steps]
        return self._finish(goal)

    def _properties(self) -> None:
        """Every (resource, property) value that is initial, set or needed gets a fact."""
        self.values: dict = {}                 # (resource, prop) -> [values]
        for r in self.p.resources:
            for k, v in r.properties:
                self.values.setdefault((r.name, k), []).append(v)
        for s in self.p.steps:
            for u in s.uses:
                for k, v in tuple(u.needs) + tuple(u.sets):
                    vals = self.values.setdefault((u.resource, k), [])
                    if v not in vals:
                        vals.append(v)
        for r in self.p.resources:
            for k, v in r.properties:
                self.init.append(self.prop(r.name, k, v))

    def prop(self, res: str, k: str, v, positive: bool = True) -> Lit:
        name = self.n.name(("prop", res, k, v), "prop", res, k, value_code(v))
        if name not in self.preds:
            self.preds[name] = Predicate(name, (), f"{res} {k} = {v}")
        return Lit(name, (), positive)

    def _step(self, s: SchedStep) -> None:  # noqa: C901
        p, key = self.p, s.key
        span = self.spans.get(key)
        where = f"step {s.index} of {s.task}"
        if s.interruptible:
            self.diags.append(warning(
                "P001", f"{where} is interruptible; the PDDL export runs it as one uninterrupted action",
                span, ("plans found this way are valid in the simulator; schedules that must split the step "
                       "are not representable",)))
        if s.duration == 0:
            self.diags.append(warning("P004", f"{where} has a zero duration", span))
        occ = s.occupation()
        split = is_split(s)
        agent = occ > 0
        watch = not agent and p.occupancy is ir.OccupancyRule.EXCLUSIVE   # starts only while its agent is free
        params: list = [("?a", "agent")] if agent or watch else []
        slot_params = []
        for i, u in enumerate(s.uses):
            if u.resource in self.slots:
                var = f"?s{i + 1}"
                slot_params.append((var, u.resource))
                params.append((var, self.slots[u.resource][0]))
        todo = self.lit("todo", key, comment=f"{where} has not started")
        self.init.append(todo)
        cs = [todo] + ([Lit("free", ("?a",))] if agent or watch else [])
        es = [todo.negate()] + ([Lit("free", ("?a",), False)] if agent else [])
        for q in s.prerequisites:
            cs.append(self.lit("done", (s.task, q)))
        if s.release is not None and s.release > 0:
            rel = self.lit("released", key, comment=f"the release time of {where} has passed")
            cs.append(rel)
            self.tils.append((self.t(s.release), rel))
        for u in s.uses:
            if u.resource in self.slots:
                var = next(v for v, r in slot_params if r == u.resource)
                cs.append(Lit("slot-free", (var,)))
                es.append(Lit("slot-free", (var,), False))
            else:
                lock = self.lit("free", u.resource)
                cs.append(lock)
                es.append(lock.negate())
            for k, v in u.needs:
                cs.append(self.prop(u.resource, k, v))
        # lags where this step is the dependent (Y) or the anchor (X)
        for lag in s.lags:
            cs += self._lag(s, lag)
        for other in p.steps:
            if other.task != s.task:
                continue
            for lag in other.lags:
                if lag.other == s.index and lag.max is not None and self._clip_ok(other, lag):
                    cs.append(self.lit("clip-open", other.key, key))
        if self._started_needed(s):
            es.append(self.lit("started", key, comment=f"{where} has started"))
        # completion effects
        done = [self.lit("done", key, comment=f"{where} is complete")]
        for u in s.uses:
            if u.resource in self.slots:
                var = next(v for v, r in slot_params if r == u.resource)
                done.append(Lit("slot-free", (var,)))
            else:
                done.append(self.lit("free", u.resource))
            for k, v in u.sets:
                done.append(self.prop(u.resource, k, v))
                done += [self.prop(u.resource, k, w, False) for w in self.values[(u.resource, k)] if w != v]
        ends = []
        if s.deadline is not None:
            dl = self.lit("before-deadline", key, comment=f"the deadline of {where} has not passed")
            self.init.append(dl)
            self.tils.append((self.t(s.deadline) + self.scale.slack, dl.negate()))
            ends.append(dl)
        if p.limit is not None:
            ends.append(self.lit("in-limit"))
        comment = f'{where}: "{s.text}" ({s.duration} {p.time_unit.label}'
        name = self.n.name(("step", key), "step", s.task, s.index)
        if not split:
            ee = ([Lit("free", ("?a",))] if agent else []) + done
            self.actions.append(DurativeAction(name, tuple(params), self.t(s.duration), False, tuple(cs),
                                               tuple(ends), tuple(es), tuple(ee), comment + ")"))
            self.info[name] = ActionInfo("step", key, None, 0 if agent or watch else None,
                                         tuple(r for _, r in slot_params))
            return
        running = self.lit("running", key, comment=f"{where} runs without its agent")
        holds = []
        if slot_params:
            hp = self.n.name(("holds", key), "holds", s.task, s.index)
            self.preds[hp] = Predicate(hp, (("?s", "slot"),), f"{where} holds the slot")
            holds = [Lit(hp, (v,)) for v, _ in slot_params]
        self.actions.append(DurativeAction(
            name, tuple(params), self.t(occ), False, tuple(cs), (), tuple(es + holds),
            (Lit("free", ("?a",)), running), comment + f"), first {occ} with its agent"))
        self.info[name] = ActionInfo("step", key, None, 0, tuple(r for _, r in slot_params))
        rname = self.n.name(("run", key), "run", s.task, s.index)
        rparams = tuple((v, self.slots[r][0]) for v, r in slot_params)
        self.actions.append(DurativeAction(
            rname, rparams, self.t(s.duration - occ), False, (running,) + tuple(holds), tuple(ends),
            (running.negate(),) + tuple(h.negate() for h in holds), tuple(done),
            f"{where}: the remaining {s.duration - occ} {p.time_unit.label} without the agent"))
        self.info[rname] = ActionInfo("run", key, None, None, tuple(r for _, r in slot_params))

    def _started_needed(self, s: SchedStep) -> bool:
        for other in self.p.steps:
            if other.task != s.task:
                continue
            for lag in other.lags:
                if lag.other == s.index and lag.min is not None and self._wait_needed(other, lag):
                    return True
        return False

    def _wait_needed(self, y: SchedStep, lag) -> bool:
        x = self.by_key.get((y.task, lag.other))
        return x is not None and x.duration + lag.min > 0 and not (
            lag.min <= 0 and lag.other in y.prerequisites)

    def _clip_ok(self, y: SchedStep, lag) -> bool:
        x = self.by_key.get((y.task, lag.other))
        return self.envelopes and x is not None and self.t(x.duration + lag.max) + self.scale.slack >= 0

    def _lag(self, y: SchedStep, lag) -> list:
        """Conditions of Y for one lag; adds the timer / envelope actions."""
        x = self.by_key.get((y.task, lag.other))
        span = self.spans.get(y.key)
        if x is None:
            return []
        out = []
        unit = self.p.time_unit.label
        if lag.min is not None:
            if self._wait_needed(y, lag):
                avail = self.lit("wait-avail", y.key, x.key)
                ok = self.lit("lag-ok", y.key, x.key,
                              comment=f"at least {lag.min} {unit} passed since step {x.index} ended")
                self.init.append(avail)
                wname = self.n.name(("wait", y.key, x.key), "wait", y.task, y.index, x.index)
                self.actions.append(DurativeAction(
                    wname, (), self.t(x.duration + lag.min), False,
                    (self.lit("started", x.key), avail), (), (avail.negate(),), (ok,),
                    f"minimum lag: step {y.index} of {y.task} starts at least {lag.min} {unit} after step "
                    f"{x.index} ends (timer from the start of step {x.index})"))
                self.info[wname] = ActionInfo("wait", y.key, x.key)
                out.append(ok)
            elif not (lag.min <= 0 and lag.other in y.prerequisites):
                self.diags.append(warning(
                    "P002", f"the minimum lag of step {y.index} of {y.task} after step {x.index} "
                    f"({lag.min} {unit}) lets it start before step {x.index} starts; not exported", span))
        if lag.max is not None and not self.envelopes:
            self.diags.append(warning(
                "P005", f"the maximum lag of step {y.index} of {y.task} after step {x.index} ({lag.max} {unit}) "
                "is left out of this export (no envelopes: for planners without required concurrency)", span,
                ("chronoplan solve enforces it when it retimes the plan; the simulator checks it",)))
        elif lag.max is not None:
            if self._clip_ok(y, lag):
                avail = self.lit("clip-avail", y.key, x.key)
                opened = self.lit("clip-open", y.key, x.key,
                                  comment=f"envelope for step {y.index} within {lag.max} {unit} of step {x.index}")
                window = self.lit("window", y.key, x.key,
                                  comment=f"step {y.index} may still start within its lag after step {x.index}")
                self.init += [avail, window]
                out.append(window)
                cname = self.n.name(("clip", y.key, x.key), "clip", y.task, y.index, x.index)
                self.actions.append(DurativeAction(
                    cname, (), self.t(x.duration + lag.max) + self.scale.slack, False,
                    (avail,), (), (avail.negate(), opened), (opened.negate(), window.negate()),
                    f"maximum lag: step {y.index} of {y.task} starts at most {lag.max} {unit} after step "
                    f"{x.index} ends (envelope opened before step {x.index} starts; step {y.index} must start "
                    "before it closes)"))
                self.info[cname] = ActionInfo("clip", y.key, x.key)
            else:
                self.diags.append(warning(
                    "P003", f"the maximum lag of step {y.index} of {y.task} after step {x.index} "
                    f"({lag.max} {unit}) can never be met; not exported", span))
        return out

    def _finish(self, goal: list) -> PddlExport:
        p = self.p
        reqs = [":strips", ":typing", ":durative-actions"]
        if any(a.duration_le for a in self.actions):
            reqs.append(":duration-inequalities")
        if self.tils:
            reqs.append(":timed-initial-literals")
        dname = "chronoplan-" + slug(p.scenario)
        domain = Domain(dname, tuple(reqs), tuple(self.types), tuple(self.preds.values()), tuple(self.actions),
                        (), header(p, self.scale, False))
        tils = tuple(sorted(self.tils, key=lambda tl: (tl[0], tl[1].text())))
        problem = Problem(dname + "-problem", dname, tuple(self.objects), tuple(self.init), tils, (),
                          tuple(goal), None, header(p, self.scale, False)[:2])
        return PddlExport(p.scenario, False, domain, problem, tuple(self.diags), self.n, self.scale,
                          dict(self.info), p)


def export_temporal(problem: ProcedureProblem, project: Optional[ir.Project] = None, *,
                    envelopes: bool = True) -> PddlExport:
    """The PDDL 2.1 temporal export of a step-level scenario.  ``envelopes=False`` leaves maximum lags out
    (diagnostic P005): LPG-td cannot start an action inside another one (required concurrency), which
    the envelopes need.  Raises ExportError (P020) for a capacity beyond MAX_UNROLLED slot objects."""
    too_big = [unroll_problem(f"the capacity of resource {r.name}", r.capacity,
                              resource_span(project, problem, r.declared)) for r in problem.resources]
    if any(too_big):
        raise ExportError([d for d in too_big if d is not None])
    return _TemporalBuilder(problem, step_spans(project, problem), envelopes).build()


__all__ = ["export_temporal", "is_split"]
