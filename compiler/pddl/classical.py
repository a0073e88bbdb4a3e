"""Classical (sequential STRIPS + action costs) approximation of a step-level scenario.

Input: a ``ProcedureProblem`` (and optionally its ``ir.Project`` for spans).  Output: ``PddlExport`` whose
domain has one ``:action`` per step: precondition ``(todo X)``, the prerequisites' ``(done ...)`` and the
property values it needs; effects ``(done X)``, the property values it sets, and
``(increase (total-cost) d)`` with d its duration in PDDL time units; the metric minimises total-cost.
A sequential plan is an order of the steps; ``compiler.pddl.plan.schedule_sequence`` turns it back into a
timed schedule (agents, resources, lags) that the simulator then checks.  What a sequence cannot say is
reported: P101 (agents, concurrency, capacities: handled by rescheduling), P102-P106 (lags, release,
deadline, limit: dropped from the PDDL, checked only by the simulator after rescheduling).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Optional

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.compiler.pddl.common import ActionInfo, PddlExport, header, step_spans, time_scale, warning
from chronoplan.compiler.pddl.names import NameMap, slug, value_code
from chronoplan.compiler.pddl.write import Domain, Lit, PddlAction, Predicate, Problem


def export_classical(problem: ProcedureProblem, project: Optional[ir.Project] = None) -> PddlExport:  # noqa: C901
    p = problem
    spans = step_spans(project, p)
    scale = time_scale(p)
    n = NameMap()
    preds: dict = {}
    diags = [warning("P101", f"the classical export of {p.scenario} is sequential: agents, concurrency and "
                     "resource capacities are not modelled", None,
                     ("chronoplan solve reschedules the planner's sequence over the agents and resources",))]

    def fact(kind, key, comment=""):
        name = n.name((kind, key), kind, key[0], int(key[1]))
        if name not in preds:
            preds[name] = Predicate(name, (), comment)
        return Lit(name)

    values: dict = {}
    for r in p.resources:
        for k, v in r.properties:
            values.setdefault((r.name, k), []).append(v)
    for s in p.steps:
        for u in s.uses:
            for k, v in tuple(u.needs) + tuple(u.sets):
                if v not in values.setdefault((u.resource, k), []):
                    values[(u.resource, k)].append(v)

    def prop(res, k, v, positive=True):
        name = n.name(("prop", res, k, v), "prop", res, k, value_code(v))
        if name not in preds:
            preds[name] = Predicate(name, (), f"{res} {k} = {v}")
        return Lit(name, (), positive)

    for s in p.steps:
        fact("todo", s.key, f"step {s.index} of {s.task} has not run")
        fact("done", s.key, f"step {s.index} of {s.task} is complete")
    init = [fact("todo", s.key) for s in p.steps]
    init += [prop(r.name, k, v) for r in p.resources for k, v in r.properties]
    actions, info = [], {}
    unit = p.time_unit.label
    for s in p.steps:
        where = f"step {s.index} of {s.task}"
        span = spans.get(s.key)
        for lag in s.lags:
            if lag.max is not None:
                diags.append(warning("P102", f"{where}: maximum lag of {lag.max} {unit} after step {lag.other} "
                                     "dropped from the classical export", span))
            if lag.min is not None and not (lag.min <= 0 and lag.other in s.prerequisites):
                diags.append(warning("P103", f"{where}: minimum lag of {lag.min} {unit} after step {lag.other} "
                                     "dropped from the classical export (rescheduling keeps it)", span))
        if s.release is not None and s.release > 0:
            diags.append(warning("P104", f"{where}: release time {s.release} {unit} dropped from the classical "
                                 "export (rescheduling keeps it)", span))
        if s.deadline is not None:
            diags.append(warning("P105", f"{where}: deadline {s.deadline} {unit} dropped from the classical "
                                 "export", span))
        pre = [fact("todo", s.key)] + [fact("done", (s.task, q)) for q in s.prerequisites]
        eff = [fact("todo", s.key).negate(), fact("done", s.key)]
        for u in s.uses:
            pre += [prop(u.resource, k, v) for k, v in u.needs]
            for k, v in u.sets:
                eff.append(prop(u.resource, k, v))
                eff += [prop(u.resource, k, w, False) for w in values[(u.resource, k)] if w != v]
        name = n.name(("step", s.key), "step", s.task, s.index)
        actions.append(PddlAction(name, (), tuple(pre), tuple(eff), scale.to_pddl(s.duration),
                              f'{where}: "{s.text}" ({s.duration} {unit})'))
        info[name] = ActionInfo("step", s.key)
    if p.limit is not None:
        diags.append(warning("P106", f"the time limit {p.limit} {unit} of {p.scenario} is dropped from the "
                             "classical export", None))
    dname = "chronoplan-" + slug(p.scenario) + "-seq"
    domain = Domain(dname, (":strips", ":action-costs"), (), tuple(preds.values()), tuple(actions),
                    ("(total-cost) - number",), header(p, scale, True))
    goal = tuple(fact("done", s.key) for s in p.steps)
    prob = Problem(dname + "-problem", dname, (), tuple(init), (), (("(total-cost)", Fraction(0)),), goal,
                   "minimize (total-cost)", header(p, scale, True)[:2])
    return PddlExport(p.scenario, True, domain, prob, tuple(diags), n, scale, info, p)
