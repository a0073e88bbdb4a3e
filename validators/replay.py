"""Semantic replay of timed plans on the step-level simulator.

Input: a ``ProcedureProblem`` and a plan (text, decoded JSON or ``plans.ReadPlan``), optionally a reference
plan (for Recipe2Plan's relative efficiency).  Output: a ``report.Report`` listing every violation (critic
mode) or only the first (``first=True``), with the metrics of ``runtime.metrics.plan_metrics``.
Never raises on bad plans.
"""
from __future__ import annotations

from typing import Any, Optional

from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime import metrics as M
from chronoplan.runtime.procsim import Chunk, simulate
from chronoplan.runtime.violations import Violation
from chronoplan.validators.plans import ReadPlan, read_plan
from chronoplan.validators.report import PlanError, Report

MAX_ERRORS = 1000


def to_error(v: Violation) -> PlanError:
    return PlanError(v.code, v.category, v.message, v.hint, v.agent, v.index, v.time)


def chunks_of(read: ReadPlan) -> list[Chunk]:
    return list(read.actions)


def _empty_metrics(problem: ProcedureProblem) -> dict:
    return {"makespan": None, "success": False, "progress": 0, "steps_done": 0,
            "steps_total": len(problem.steps)}


def reference_chunks(problem: ProcedureProblem, reference: Any) -> Optional[list[Chunk]]:
    """A reference plan (any timed format, or chunks) as chunks in listed order; None if unreadable."""
    if reference is None:
        return None
    if isinstance(reference, (list, tuple)) and reference and all(isinstance(c, Chunk) for c in reference):
        return list(reference)
    read = reference if isinstance(reference, ReadPlan) else read_plan(reference, problem.time_unit)
    if read.errors or read.format not in ("schedule", "recipe2plan"):
        return None
    return chunks_of(read)


def validate_plan(problem: ProcedureProblem, plan: Any, *, first: bool = False, name: str = "<plan>",
                  fmt: Optional[str] = None, reference: Any = None) -> Report:
    """Grade one timed plan against a step-level scenario."""
    try:
        return _validate(problem, plan, first, name, fmt, reference)
    except RecursionError:
        return Report(False, name, problem.scenario, (PlanError(
            "E001", "syntax", "the plan is nested too deeply", "flatten it"),), _empty_metrics(problem))


def _validate(problem, plan, first, name, fmt, reference) -> Report:
    read = plan if isinstance(plan, ReadPlan) else read_plan(plan, problem.time_unit, fmt)
    if read.format is not None and read.format not in ("schedule", "recipe2plan") and not read.errors:
        read = ReadPlan(read.format, (), (PlanError(
            "E012", "schema", f"a {read.format} plan cannot be graded against the step-level scenario "
            f"{problem.scenario}", "write a timed schedule ({\"schedule\": [...]}) or Step(...) text"),))
    schema_errors = list(read.errors)
    if read.fatal or (first and schema_errors):
        return Report(False, name, problem.scenario, tuple(schema_errors[:1] if first else schema_errors),
                      _empty_metrics(problem))
    result = _simulate(problem, read, first)
    errors = schema_errors + [to_error(v) for v in result.violations]
    metrics = M.plan_metrics(result, reference_chunks(problem, reference))
    if schema_errors:
        metrics["success"] = False
    if len(errors) > MAX_ERRORS:
        metrics["errors_omitted"] = len(errors) - MAX_ERRORS
        errors = errors[:MAX_ERRORS]
    return Report(not errors, name, problem.scenario, tuple(errors), metrics)


def _simulate(problem: ProcedureProblem, read: ReadPlan, first: bool):
    return simulate(problem, chunks_of(read), first=first, suppress=read.skipped)
