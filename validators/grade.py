"""Batch grading: plan files -> plan values -> scenario matching -> the right grader -> reports.

Input: a compiled ``ir.Project``, plan sources (files, directories, JSON Lines, ``-`` for stdin, or
in-memory ``(name, value)`` pairs) and options.  Output: one ``report.Report`` per plan
(``validate_many``) or for one plan (``grade``).  Step-level scenarios are replayed here
(``validators.replay``); tool scenarios go to ``chronoplan.validators.tools_grade.grade_tool_plan`` and
grid kitchens to ``chronoplan.validators.paracook_grade.grade_grid_plan`` when those modules are installed.
Scenario matching (no ``--scenario``): the only scenario, else the plan's top-level "scenario" key, else
the plan file's stem.
"""
from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import InstantiationError, procedure_problem
from chronoplan.validators.plans import decode
from chronoplan.validators.replay import validate_plan
from chronoplan.validators.report import PlanError, Report, error_report
from chronoplan.validators.schema import scenario_kind

PLAN_SUFFIXES = (".json", ".jsonl", ".txt", ".plan")


@dataclass(frozen=True)
class PlanSource:
    name: str                         # display name: path, path:line for JSON Lines
    stem: str                         # file stem, for scenario matching
    value: Any = None                 # plan text or decoded JSON value
    error: Optional[PlanError] = None  # unreadable / unparsable


def _read_file(path: Path, name: str) -> Iterator[PlanSource]:
    try:
        text = sys.stdin.read() if name == "-" else path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        yield PlanSource(name, path.stem, None, PlanError("E002", "syntax", f"cannot read {name}: "
                                                          f"{exc.strerror or exc}", "check the path"))
        return
    values, err = decode(text)
    if err is not None:
        yield PlanSource(name, path.stem, None, err)
    elif len(values) == 1:
        yield PlanSource(name, path.stem, values[0][1])
    else:
        for line, value in values:
            yield PlanSource(f"{name}:{line}", path.stem, value)


def iter_sources(items: Iterable[Any]) -> Iterator[PlanSource]:
    """Expand paths (files, directories, ``-``), ``(name, value)`` pairs and ``PlanSource`` values."""
    for item in items:
        if isinstance(item, PlanSource):
            yield item
        elif isinstance(item, tuple) and len(item) == 2:
            yield PlanSource(str(item[0]), Path(str(item[0])).stem, item[1])
        else:
            path = Path(item)
            if str(item) == "-":
                yield from _read_file(path, "-")
            elif path.is_dir():
                for f in sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in PLAN_SUFFIXES):
                    yield from _read_file(f, str(f))
            else:
                yield from _read_file(path, str(item))


def match_scenario(project: ir.Project, explicit: Optional[str], value: Any, stem: str) -> Optional[str]:
    if explicit is not None:
        return explicit if explicit in project.scenarios else None
    if len(project.scenarios) == 1:
        return next(iter(project.scenarios))
    if isinstance(value, dict) and isinstance(value.get("scenario"), str) and value["scenario"] in project.scenarios:
        return value["scenario"]
    return stem if stem in project.scenarios else None


class Grader:
    """Grades plans against one project, caching instantiated scenarios."""

    def __init__(self, project: ir.Project) -> None:
        self.project = project
        self._problems: dict = {}

    def problem(self, scenario: str):
        if scenario not in self._problems:
            scen = self.project.scenario(scenario)
            self._problems[scenario] = procedure_problem(self.project, scen)
        return self._problems[scenario]

    def grade(self, scenario: str, plan: Any, *, fmt: Optional[str] = None, first: bool = False,
              name: str = "<plan>", reference: Any = None) -> Report:
        try:
            scen = self.project.scenario(scenario)
        except KeyError as exc:
            return error_report(name, str(scenario), "E015", "schema", str(exc.args[0] if exc.args else exc),
                                "name a scenario with --scenario or a top-level \"scenario\" key")
        kind = scenario_kind(scen)
        if kind == "procedures":
            try:
                problem = self.problem(scen.name)
            except InstantiationError as exc:
                return error_report(name, scen.name, "E012", "schema", f"scenario {scen.name} cannot be "
                                    f"instantiated: {exc}", "fix the scenario")
            return validate_plan(problem, plan, first=first, name=name, fmt=fmt, reference=reference)
        module, func = (("chronoplan.validators.tools_grade", "grade_tool_plan") if kind == "tools" else
                        ("chronoplan.validators.paracook_grade", "grade_grid_plan"))
        try:
            grader = getattr(importlib.import_module(module), func)
        except (ModuleNotFoundError, AttributeError):
            return error_report(name, scen.name, "E012", "schema", f"plans for {kind} scenarios cannot be "
                                f"graded in this build ({module}.{func} is missing)",
                                f"{kind} plans are not supported by this version of chronoplan")
        return grader(self.project, scen.name, plan, fmt, plan_name=name, first=first)


def grade(project: ir.Project, scenario: str, plan: Any, **kw) -> Report:
    """Grade one plan against a scenario of a project (any kind)."""
    return Grader(project).grade(scenario, plan, **kw)


def validate_many(project: ir.Project, plans: Iterable[Any], *, scenario: Optional[str] = None,
                  fmt: Optional[str] = None, first: bool = False, references: Optional[dict] = None,
                  grader: Optional[Grader] = None) -> Iterator[Report]:
    """Grade many plans; ``references`` maps scenario names to reference plans (Recipe2Plan metrics)."""
    grader = grader or Grader(project)
    for src in iter_sources(plans):
        target = match_scenario(project, scenario, src.value, src.stem)
        if src.error is not None:
            yield Report(False, src.name, target or "", (src.error,), {"makespan": None, "success": False})
            continue
        if target is None:
            known = ", ".join(list(project.scenarios)[:10])
            what = f"no scenario named {scenario!r}" if scenario else \
                f"no scenario matches {src.name} (neither a \"scenario\" key nor the file name {src.stem!r})"
            yield error_report(src.name, scenario or "", "E015", "schema", what,
                               f"pass --scenario, one of: {known}")
            continue
        ref = (references or {}).get(target)
        yield grader.grade(target, src.value, fmt=fmt, first=first, name=src.name, reference=ref)
