"""The scenario-family registry: ``ir.ScenarioKind`` -> what chronoplan can do with a scenario of that kind.

Input: a scenario (its ``kind`` is decided once, when the IR is built: ``ir.ScenarioKind.decide``).  Output:
``family(kind)`` -> ``Family``: its plan formats, grader, JSON Schema builders, PDDL export, planners,
interactive protocols, the metrics its reports carry, and for each missing capability what exists instead.
Every command asks this table (``validate``, ``schema``, ``pddl``, ``solve``, ``play``, ``check --summary``,
``list``); adding a family is one subpackage plus one ``Family`` entry here (docs/architecture.md).

The callables are named by ``module:function`` and imported on first use, so the registry costs nothing at
import time and optional dependencies (ortools, unified-planning engines) load only when used; the modules
ship with chronoplan, so a failing import is a bug, not "unavailable in this build".
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from chronoplan.compiler.ir import Scenario, ScenarioKind


@dataclass(frozen=True)
class Ref:
    """A callable named ``module:function``, imported when first called."""

    target: str

    def load(self) -> Callable:
        module, _, func = self.target.partition(":")
        return getattr(importlib.import_module(module), func)

    def __call__(self, *args, **kwargs) -> Any:
        return self.load()(*args, **kwargs)


@dataclass(frozen=True)
class Family:
    kind: ScenarioKind
    label: str                                  # how summaries name it: "procedure scenarios"
    formats: tuple[str, ...]                    # plan formats its readers accept (--plan-format)
    grade: Ref                                  # (Grader, scenario, plan, fmt, first, name, reference) -> Report
    schema: Ref                                 # (project, scenario) -> JSON Schema
    strict_schema: Ref                          # (project, scenario) -> StrictSchema
    pddl: Optional[Ref]                         # (project, scenario, *, classical) -> PddlExport
    planners: tuple[str, ...]                   # `chronoplan solve --planner` names that solve it
    protocols: tuple[str, ...]                  # `chronoplan play --protocol` names
    metrics: tuple[str, ...]                    # metric keys its reports always carry
    instead: dict                               # capability -> what to use instead, when missing
    chart: Optional[Ref] = None                 # (Grader, scenario, plan, report, fmt) -> render Chart

    def lacks(self, capability: str) -> str:
        """A user-facing sentence for a capability this family does not have."""
        other = self.instead.get(capability, "")
        return f"{self.label} scenarios have no {capability}" + (f"; {other}" if other else "")


PDDL_PLANNERS = ("aries", "kairos", "lpg", "fast-downward", "pyperplan")
FAMILIES: dict[ScenarioKind, Family] = {
    ScenarioKind.PROCEDURES: Family(
        ScenarioKind.PROCEDURES, "procedure", ("schedule", "recipe2plan"),
        Ref("chronoplan.validators.grade:grade_procedures"),
        Ref("chronoplan.validators.schema:procedure_schema_for"),
        Ref("chronoplan.validators.schema:strict_procedure_schema_for"),
        Ref("chronoplan.compiler.pddl_export:export_procedures"),
        ("cpsat",) + PDDL_PLANNERS, ("timearena", "recipe2plan"),
        ("makespan", "success", "progress", "steps_done", "steps_total"), {},
        Ref("chronoplan.validators.render_charts:chart_procedures")),
    ScenarioKind.GRID: Family(
        ScenarioKind.GRID, "kitchen", ("paracook",),
        Ref("chronoplan.validators.grade:grade_grid"),
        Ref("chronoplan.validators.paracook_schema:paracook_plan_schema"),
        Ref("chronoplan.validators.paracook_schema:strict_paracook_plan_schema"),
        Ref("chronoplan.compiler.pddl_kitchen:export_kitchen"),
        PDDL_PLANNERS, ("kitchen",),
        ("makespan", "success"),
        {"planner cpsat": "use a PDDL planner (--planner kairos or fast-downward, docs/planners.md)"},
        Ref("chronoplan.validators.render_charts:chart_kitchen")),
    ScenarioKind.TOOLS: Family(
        ScenarioKind.TOOLS, "tool-use", ("tools", "planningarena"),
        Ref("chronoplan.validators.grade:grade_tools"),
        Ref("chronoplan.validators.tools.schema:tool_plan_schema"),
        Ref("chronoplan.validators.tools.schema:strict_tool_plan_schema"),
        None, (), (),
        ("success",),
        {"PDDL export": "the scenario's reference calls are its reference plan (docs/tools.md); grade tool "
                        "plans with `chronoplan validate` and get their schema with `chronoplan schema`",
         "planner": "the scenario's `reference { ... }` block is its reference plan (docs/tools.md)",
         "interactive protocol": "grade whole tool plans with `chronoplan validate`"},
        Ref("chronoplan.validators.render_charts:chart_tools")),
    # partially observable households (issue #13): episode logs replayed through runtime.household's engine
    ScenarioKind.HOUSEHOLD: Family(
        ScenarioKind.HOUSEHOLD, "household", ("episode",),
        Ref("chronoplan.validators.household.grade:grade_episode"),
        Ref("chronoplan.validators.household.schema:episode_schema"),
        Ref("chronoplan.validators.household.schema:strict_episode_schema"),
        None, ("astar",), ("household",),
        ("success", "steps", "transport_rate", "messages", "characters"),
        {"PDDL export": "the omniscient optimum is solved exactly by `chronoplan solve --planner astar` "
                        "(runtime/household/optimum.py); the baseline and the optimum are compared by "
                        "`chronoplan play --baseline` (docs/benchmarks/pce.md)",
         "chart": "`chronoplan validate` reports the episode's metrics; `chronoplan play --baseline` prints the "
                  "baseline's steps next to the optimum's"}),
}


def family(kind: ScenarioKind) -> Family:
    return FAMILIES[kind]


def family_of(scenario: Scenario) -> Family:
    return FAMILIES[scenario.kind]
