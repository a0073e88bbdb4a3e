"""Grade a plan and build its picture: project + scenario + plan -> (``Report``, ``chart.Chart``).

Input: a compiled ``ir.Project``, a scenario name and one plan (text, bytes or a decoded value, as the
grader takes it).  Output: ``picture`` returns the normal grader's report (``grade.Grader``) and a chart of
the plan's own timeline: for procedures the exact simulator's runs (``procedure.sim.simulate``: the schedule as
replayed, violations included), for grid kitchens the kitchen simulator's runs and each agent's walk
(``chart_build.kitchen_walk``), for tool plans one row per step placed at its dependency level (the longest
chain of "after" and ``$N`` references leading to it; arrows for the dependencies).  The report's errors
mark the bars they name (by plan index, and agent for kitchens).  A plan that cannot be read still gets a
chart (no bars, its errors as notes).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Optional

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import InstantiationError
from chronoplan.runtime.chart import VIOLATION, Bar, Chart, ChartLegendEntry, Fill, Row, colour
from chronoplan.runtime.chart_build import kitchen_chart, kitchen_walk, notes_for, procedure_chart
from chronoplan.runtime.kitchen.world import CompileFailure
from chronoplan.runtime.procedure.sim import simulate
from chronoplan.runtime.timefmt import clock as clock_text
from chronoplan.validators.families import family_of
from chronoplan.validators.grade import Grader
from chronoplan.validators.plan_text import Native, plan_value, unwrap_reply
from chronoplan.validators.plans import read_plan
from chronoplan.validators.report import Report
from chronoplan.validators.tools.read import read_tool_plan


@dataclass(frozen=True)
class Picture:
    report: Report
    chart: Chart


def plan_of(plan: Any, decoded: bool = False) -> Optional[Any]:
    """The plan value the grader reads (a logged reply unwrapped); None when it cannot be read."""
    got = plan_value(plan, decoded=decoded)
    inner = unwrap_reply(got.value) if got.error is None else None
    if inner is not None:
        got = inner
    return None if got.error is not None else got.value


def picture(project: ir.Project, scenario: str, plan: Any, *, name: str = "<plan>", decoded: bool = False,
            fmt: Optional[str] = None) -> Picture:
    """Grade ``plan`` against ``scenario`` (an existing scenario of ``project``) and chart it."""
    grader = Grader(project)
    report = grader.grade(scenario, plan, name=name, decoded=decoded, fmt=fmt)
    value = plan_of(plan, decoded)
    scen = project.scenario(scenario)
    family = family_of(scen)
    empty = "nothing to simulate" if family.chart is not None else family.lacks("chart")
    try:
        if family.chart is not None:
            return Picture(report, family.chart(grader, scen, value, report, fmt))
    except (InstantiationError, CompileFailure):      # the report says why (E012): a chart without bars
        pass
    chart = Chart(_title(report, empty), (Row("(no run)"),), (), "time",
                  notes=notes_for(report.errors, ir.TimeUnit.TICK), valid=report.valid)
    return Picture(report, chart)


def verdict(report: Report) -> str:
    n = len(report.errors)
    return "valid" if report.valid else f"INVALID ({n} error{'s' * (n != 1)})"


def _title(report: Report, what: str) -> str:
    return f"{report.scenario}: {verdict(report)}, {what}"


def _time(x: Any, unit: ir.TimeUnit) -> str:
    from fractions import Fraction
    if x is None:
        return "-"
    return clock_text(Fraction(x).limit_denominator(10 ** 6) if isinstance(x, float) else Fraction(x), unit)


# ------------------------------------------------------------------------------------------ procedures
def _procedures(grader: Grader, scen, value, report: Report, fmt) -> Chart:
    problem = grader.problem(scen.name)
    runs = None
    if value is not None:
        read = read_plan(Native(value), problem.time_unit, fmt)
        if not read.fatal and read.format in ("schedule", "recipe2plan"):
            runs = simulate(problem, list(read.actions), suppress=read.skipped)
    if runs is None:
        runs = simulate(problem, [])
    makespan = report.metrics.get("makespan")
    unit = problem.time_unit
    title = _title(report, f"makespan {_time(makespan, unit)}" + (f" {unit.label}" if unit.seconds is None else ""))
    return procedure_chart(problem, runs, report.errors, title, report.valid)


# ------------------------------------------------------------------------------------------ kitchens
def _kitchen(project, scen, value, report: Report) -> Chart:
    from chronoplan.validators.kitchen.grade import MAX_ERRORS, world_for  # lazy: the kitchen simulator, kitchens only
    from chronoplan.validators.kitchen.read import read_cook_plan  # lazy: imports the kitchen simulator
    world, _ = world_for(project, scen.name)
    steps: dict = {}
    if value is not None:
        read = read_cook_plan(Native(value))
        if not read.fatal:
            steps = read.steps
    result, cells = kitchen_walk(world, steps, MAX_ERRORS)
    m = report.metrics
    unit = world.unit
    what = f"OCT {_time(m.get('oct'), unit)}, makespan {_time(m.get('makespan'), unit)}"
    served = m.get("served")
    if served is not None:
        what += f", {served} of {result.orders_total} orders served"
    return kitchen_chart(result, steps, cells, report.errors, _title(report, what), report.valid)


# ------------------------------------------------------------------------------------------ tool plans
def _tools(scen, value, report: Report, fmt) -> Chart:
    plan = read_tool_plan(Native(value) if value is not None else "", fmt)
    steps = plan.steps if value is not None else ()
    preds = dependencies(steps)
    levels: list[int] = []
    for i in range(len(steps)):
        levels.append(1 + max((levels[j] for j in preds[i]), default=-1))
    depth = max(levels, default=-1) + 1
    tools = list(dict.fromkeys(st.tool or "?" for st in steps))
    by_index: dict = {}
    for e in report.errors:
        if e.index is not None:
            by_index.setdefault(e.index, []).append(e)
    rows, bars = [], []
    for st, level in zip(steps, levels):
        name = f"step {st.id}" if st.id >= 0 else f"position {st.index + 1}"
        rows.append(Row(name, 1, "step"))
        errs = by_index.get(st.index, [])
        args = ", ".join(f"{k}={_short(v)}" for k, v in st.args)
        after = sorted({steps[j].id for j in preds[st.index]})
        tip = f"{name}: {st.tool or '(no tool)'}({args})" + (f" after {', '.join(map(str, after))}" if after else "")
        tip += "".join(f"\n{e.code}: {e.message}" for e in errs)
        bars.append(Bar(len(rows) - 1, 0, level + 0.06, level + 0.94, st.tool or "?", tip,
                        colour(tools.index(st.tool or "?")), Fill.LEVEL, None, tuple(e.code for e in errs)))
    links = tuple((j, i) for i in range(len(steps)) for j in preds[i])
    ticks = tuple((k + 0.5, f"level {k + 1}") for k in range(max(depth, 1)))
    legend = [ChartLegendEntry("arrow: depends on (after / $N)", "#777777")]
    if report.errors:
        legend.append(ChartLegendEntry("violation", VIOLATION))
    what = f"{len(steps)} step{'s' * (len(steps) != 1)} in {depth} level{'s' * (depth != 1)}"
    chart = Chart(_title(report, what), tuple(rows), tuple(bars), "dependency level (steps of one level may run "
                  "in parallel)", (), (), links, tuple(legend), notes_for(report.errors, ir.TimeUnit.TICK), None,
                  ticks, None, report.valid)
    if not rows:
        chart = replace(chart, rows=(Row("(no readable step)", 1, "step"),))
    return chart


def dependencies(steps) -> list[list[int]]:
    """Each step's predecessors (positions): the steps its "after" ids and ``$N`` references name, when
    those come earlier in the plan (a later or unknown one is the grader's T303/T301/T105, not an edge)."""
    pos: dict = {}
    for st in steps:
        pos.setdefault(st.id, st.index)
    out = []
    for st in steps:
        named = list(st.after) + [r.step for r in st.refs]
        out.append(sorted({pos[n] for n in named if n in pos and pos[n] < st.index}))
    return out


def _short(v: Any, n: int = 24) -> str:
    s = str(v)
    return s if len(s) <= n else s[: n - 3] + "..."


# ---------------------------------------------------------------- family chart builders (validators.families)
def chart_procedures(grader: Grader, scen, value, report, fmt) -> Chart:
    return _procedures(grader, scen, value, report, fmt)


def chart_kitchen(grader: Grader, scen, value, report, fmt) -> Chart:
    return _kitchen(grader.project, scen, value, report)


def chart_tools(grader: Grader, scen, value, report, fmt) -> Chart:
    return _tools(scen, value, report, fmt)
