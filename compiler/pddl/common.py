"""Shared pieces of the PDDL exporters: the export result, time scaling, diagnostics.

Input: a ``compiler.instantiate.ProcedureProblem`` (and optionally the ``ir.Project`` for source spans).
Output: ``TimeScale`` (PDDL time = scenario time x ``factor``; every number of the scenario becomes an
integer), ``PddlExport`` (domain and problem models, their text, diagnostics, the name map and what each
PDDL action stands for, used to map planners' plans back), and diagnostic helpers (codes P001...).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

from chronoplan.compiler import ir
from chronoplan.compiler.codes import Scope, codes_in
from chronoplan.compiler.diagnostics import Diagnostic, Severity, Span
from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.compiler.pddl.names import NameMap
from chronoplan.compiler.pddl.write import Domain, Problem, num, write_domain, write_problem

# Stable diagnostic codes of the PDDL backends (docs/pddl.md): code -> title, a view of the registry
CODES: dict[str, str] = {c: v.title for c, v in codes_in(Scope.PDDL).items()}


MAX_UNROLLED = 1000     # PDDL objects one count may unroll into (resource slots, ingredient pools, plate counts)


def unroll_problem(what: str, n: int, span: Optional[Span]) -> Optional[Diagnostic]:
    """P020 when ``n`` (a capacity or count the export writes one object per unit of) is beyond MAX_UNROLLED:
    a huge capacity would otherwise exhaust memory while the problem is built."""
    if n <= MAX_UNROLLED:
        return None
    return error("P020", f"{what} is {n}: the PDDL export writes one object per unit and allows at most "
                         f"{MAX_UNROLLED}", span)


def unroll_limit(what: str, n: int, span: Optional[Span]) -> None:
    """Raise ExportError (P020) when ``n`` is beyond MAX_UNROLLED (``unroll_problem``)."""
    d = unroll_problem(what, n, span)
    if d is not None:
        raise ExportError([d])


def resource_span(project: Optional[ir.Project], problem: ProcedureProblem, declared: str) -> Optional[Span]:
    """The declaration of resource ``declared`` (global, or local to one of the scenario's procedures)."""
    if project is None:
        return None
    part = project.part(problem.scenario)
    if declared in part.resources:
        return part.resources[declared].span
    for task in problem.tasks:
        for r in getattr(part.procedures.get(task), "local_resources", ()):
            if r.name == declared:
                return r.span
    return None


def warning(code: str, message: str, span: Optional[Span] = None, notes: tuple = ()) -> Diagnostic:
    return Diagnostic(code, Severity.WARNING, message, span, tuple(notes))


def error(code: str, message: str, span: Optional[Span] = None, notes: tuple = ()) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, message, span, tuple(notes))


def step_spans(project: Optional[ir.Project], problem: ProcedureProblem) -> dict:
    """(task, step) -> source span of the step (empty without a project)."""
    out: dict = {}
    if project is None:
        return out
    part = project.part(problem.scenario)
    for task in problem.tasks:
        proc = part.procedures.get(task)
        if proc is None:
            continue
        for s in proc.steps:
            out[(task, s.index)] = s.span
    return out


@dataclass(frozen=True)
class TimeScale:
    """PDDL time = scenario time x ``factor``.  ``grid`` (PDDL units) divides every scaled number;
    ``slack`` = grid / 2 is the tolerance given to maximum lags, deadlines and the limit so that PDDL 2.1's
    epsilon separation does not forbid plans that meet them exactly (docs/pddl.md).  It is an integer
    (aries accepts integer durations only) and exceeds three epsilons of every planner used here (aries
    separates events by 0.1, kairos by 0.001, LPG by less)."""

    factor: int
    grid: int

    @property
    def slack(self) -> Fraction:
        return Fraction(self.grid, 2)

    def to_pddl(self, t: Fraction) -> Fraction:
        return Fraction(t) * self.factor

    def from_pddl(self, t: Fraction) -> Fraction:
        return Fraction(t) / self.factor


def time_scale(problem: ProcedureProblem) -> TimeScale:
    """The smallest factor that makes every number of the scenario an integer, times 10 when the resulting
    grid is odd, so that the slack (half a grid unit) is an integer too (aries accepts integer durations
    only)."""
    factor, g = problem.grid()
    if g % 2:
        factor, g = factor * 10, g * 10
    return TimeScale(factor, g)


@dataclass(frozen=True)
class ActionInfo:
    """What a PDDL action stands for.

    kind: ``step`` (a step, or the agent-occupying first part of a split "autonomous for k" step),
    ``run`` (the running part of a split step), ``clip`` (max-lag envelope), ``wait`` (min-lag timer).
    ``key`` is the step (task, index); ``other`` the lag's anchor step; ``agent_param`` the index of the
    agent parameter (None when the action takes no agent); ``slots`` the resources of its slot parameters."""

    kind: str
    key: tuple
    other: Optional[tuple] = None
    agent_param: Optional[int] = None
    slots: tuple = ()


@dataclass(frozen=True)
class PddlExport:
    scenario: str
    classical: bool
    domain: Domain
    problem: Problem
    diagnostics: tuple[Diagnostic, ...]
    names: NameMap = field(compare=False)
    scale: TimeScale
    actions: dict = field(compare=False)          # PDDL action name -> ActionInfo
    source: Optional[ProcedureProblem] = field(default=None, compare=False, repr=False)

    def domain_text(self) -> str:
        return write_domain(self.domain)

    def problem_text(self) -> str:
        return write_problem(self.problem)

    def write(self, directory) -> tuple:
        """Write domain.pddl and problem.pddl into ``directory`` (created if needed); return the paths."""
        from pathlib import Path
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        dom, prob = d / "domain.pddl", d / "problem.pddl"
        dom.write_text(self.domain_text(), encoding="utf-8")
        prob.write_text(self.problem_text(), encoding="utf-8")
        return dom, prob

    def agent_of(self, pddl_name: str) -> Optional[str]:
        try:
            key = self.names.lookup(pddl_name)
        except KeyError:
            return None
        return key[1] if isinstance(key, tuple) and key and key[0] == "agent" else None


class ExportError(ValueError):
    """The scenario cannot be exported (the diagnostics say why)."""

    def __init__(self, diagnostics):
        self.diagnostics = tuple(diagnostics)
        super().__init__("; ".join(d.message for d in self.diagnostics))


def header(problem: ProcedureProblem, scale: TimeScale, classical: bool) -> tuple:
    unit = problem.time_unit.label
    per = "1" if scale.factor == 1 else f"1/{scale.factor}"
    lines = [f"Generated by chronoplan from scenario {problem.scenario} "
             f"({'classical sequential approximation' if classical else 'PDDL 2.1 temporal'}).",
             f"Time: 1 PDDL unit = {per} {unit}."]
    if not classical:
        lines.append(f"Maximum lags, deadlines and the time limit carry a slack of {num(scale.slack)} PDDL units "
                     f"(half of the {scale.grid}-unit grid) for epsilon separation; see docs/pddl.md.")
    else:
        lines.append("Action costs are durations; the sequence is rescheduled by chronoplan solve.")
    return tuple(lines)
