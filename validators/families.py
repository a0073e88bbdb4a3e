"""The scenario-family registry: ``ir.ScenarioKind`` -> what chronoplan can do with a scenario of that kind.

Input: a scenario (its ``kind`` is decided once, when the IR is built: ``ir.ScenarioKind.decide``).  Output:
``family(kind)`` / ``family_of(scenario)`` -> ``Family``: its name and labels, plan formats, grader, JSON Schema
builders, PDDL export, planners (and how a PDDL planner solves it), interactive protocols, compatibility modes,
the metrics its reports carry, and for each missing capability what exists instead; ``compat_family(mode)``
-> the family a ``--compat`` mode grades; ``export_scenario`` -> the PDDL export of any scenario (the
family's exporter, or P010 saying what exists instead).
Every command asks this table (``validate``, ``schema``, ``pddl``, ``solve``, ``play``, ``render``, ``check
--summary``, ``list``) and so do the Gymnasium environments (``chronoplan.envs``); nothing else branches on
``Scenario.kind``.  Adding a family is one subpackage plus one ``Family`` entry here (docs/architecture.md).

The callables are named by ``module:function`` and imported on first use, so the registry costs nothing at
import time and optional dependencies (ortools, unified-planning engines) load only when used; the modules
ship with chronoplan, so a failing import is a bug, not "unavailable in this build".
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from chronoplan.compiler.ir import Project, Scenario, ScenarioKind

if TYPE_CHECKING:
    from chronoplan.compiler.pddl.common import PddlExport


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
    label: str                                  # how summaries name it: "procedure" (-> "procedure scenarios")
    title: str                                  # how sentences name its scenarios: "grid kitchens"
    formats: tuple[str, ...]                    # plan formats its readers accept (--plan-format)
    grade: Ref                                  # (Grader, scenario, plan, fmt, first, name, reference) -> Report
    schema: Ref                                 # (project, scenario) -> JSON Schema
    strict_schema: Ref                          # (project, scenario) -> StrictSchema
    pddl: Optional[Ref]                         # (project, scenario, *, classical) -> PddlExport
    planners: tuple[str, ...]                   # `chronoplan solve --planner` names; the first is the default
    pddl_solve: Optional[Ref]                   # (project, scenario, planner, timeout) -> a PDDL planner's result
    protocols: tuple[str, ...]                  # `chronoplan play --protocol` names
    compat: tuple[str, ...]                     # `--compat` modes that grade it (validators.compat)
    metrics: tuple[str, ...]                    # metric keys every report of its grader carries
    instead: dict                               # capability -> what to use instead, when missing
    chart: Optional[Ref] = None                 # (Grader, scenario, plan, report, fmt) -> render Chart

    @property
    def name(self) -> str:
        """The family's name in JSON output (``chronoplan list``: procedures | tools | grid | household)."""
        return self.kind.value

    def lacks(self, capability: str) -> str:
        """A user-facing sentence for a capability this family does not have."""
        other = self.instead.get(capability, "")
        return f"{self.label} scenarios have no {capability}" + (f"; {other}" if other else "")


PDDL_PLANNERS = ("aries", "kairos", "lpg", "fast-downward", "pyperplan")   # solved through Family.pddl_solve
KITCHEN_PLANNERS = ("kairos", "fast-downward", "aries", "lpg", "pyperplan")   # kairos solves all 24 bundled
HOUSEHOLD_PLANNERS = ("astar", "fast-downward")    # the household export has action costs: not pyperplan
TOOL_PLANNERS = ("fast-downward", "pyperplan")     # the tool-use export is classical (compiler.pddl.tools)
ASTAR_INSTEAD = "astar solves partially observable households (docs/benchmarks/pce.md)"

FAMILIES: dict[ScenarioKind, Family] = {
    ScenarioKind.PROCEDURES: Family(
        ScenarioKind.PROCEDURES, "procedure", "step-level scenarios (procedures)",
        formats=("schedule", "recipe2plan"),
        grade=Ref("chronoplan.validators.grade:grade_procedures"),
        schema=Ref("chronoplan.validators.schema:procedure_schema_for"),
        strict_schema=Ref("chronoplan.validators.schema:strict_procedure_schema_for"),
        pddl=Ref("chronoplan.compiler.pddl.export:export_procedures"),
        planners=("cpsat",) + PDDL_PLANNERS,
        pddl_solve=Ref("chronoplan.runtime.planners.external:solve_procedures"),
        protocols=("timearena", "recipe2plan"),
        compat=("recipe2plan", "timearena"),
        metrics=("makespan", "success", "progress", "steps_done", "steps_total"),
        instead={"planner astar": ASTAR_INSTEAD},
        chart=Ref("chronoplan.validators.render_charts:chart_procedures")),
    ScenarioKind.GRID: Family(
        ScenarioKind.GRID, "kitchen", "grid kitchens",
        formats=("paracook",),
        grade=Ref("chronoplan.validators.grade:grade_grid"),
        schema=Ref("chronoplan.validators.kitchen.schema:paracook_plan_schema"),
        strict_schema=Ref("chronoplan.validators.kitchen.schema:strict_paracook_plan_schema"),
        pddl=Ref("chronoplan.compiler.pddl.kitchen:export_kitchen"),
        planners=KITCHEN_PLANNERS,
        pddl_solve=Ref("chronoplan.runtime.kitchen.solve:solve_kitchen"),
        protocols=("kitchen",),
        compat=("paracook",),
        metrics=("makespan", "success", "oct", "poct", "pmd", "T_max", "D_max"),
        instead={"planner cpsat": "use a PDDL planner (--planner kairos or fast-downward, docs/planners.md)",
                 "planner astar": ASTAR_INSTEAD},
        chart=Ref("chronoplan.validators.render_charts:chart_kitchen")),
    ScenarioKind.TOOLS: Family(
        ScenarioKind.TOOLS, "tool-use", "tool-use scenarios",
        formats=("tools", "planningarena"),
        grade=Ref("chronoplan.validators.grade:grade_tools"),
        schema=Ref("chronoplan.validators.tools.schema:tool_plan_schema"),
        strict_schema=Ref("chronoplan.validators.tools.schema:strict_tool_plan_schema"),
        pddl=Ref("chronoplan.compiler.pddl.tools:export_tools"),
        planners=TOOL_PLANNERS,
        pddl_solve=Ref("chronoplan.runtime.planners.tools:solve_tools"),
        protocols=(),
        compat=(),
        metrics=("makespan", "success", "SER", "DA", "LPR", "SMAR", "TR", "PC", "FD_API"),
        instead={**{f"planner {p}": "the tool-use export is classical (docs/pddl.md, Tool-use scenarios): "
                                    f"--planner {' or '.join(TOOL_PLANNERS)}"
                    for p in ("cpsat", "astar") + PDDL_PLANNERS if p not in TOOL_PLANNERS},
                 "interactive protocol": "grade whole tool plans with `chronoplan validate`"},
        chart=Ref("chronoplan.validators.render_charts:chart_tools")),
    # partially observable households (issue #13): episode logs replayed through runtime.household's engine
    ScenarioKind.HOUSEHOLD: Family(
        ScenarioKind.HOUSEHOLD, "household", "partially observable households",
        formats=("episode",),
        grade=Ref("chronoplan.validators.household.grade:grade_episode"),
        schema=Ref("chronoplan.validators.household.schema:episode_schema"),
        strict_schema=Ref("chronoplan.validators.household.schema:strict_episode_schema"),
        pddl=Ref("chronoplan.compiler.pddl.household:export_household"),
        planners=HOUSEHOLD_PLANNERS,
        pddl_solve=Ref("chronoplan.validators.household.solve:solve_pddl"),
        protocols=("household",),
        compat=(),
        metrics=("success", "steps", "transport_rate", "messages", "characters"),
        instead={**{f"planner {p}": "households have no schedule model and their PDDL export (the omniscient "
                                    "sequential relaxation) is classical with action costs: --planner "
                                    "fast-downward, or the proven omniscient optimum with --planner astar "
                                    "(docs/benchmarks/pce.md)"
                    for p in ("cpsat",) + PDDL_PLANNERS if p not in HOUSEHOLD_PLANNERS},
                 "chart": "`chronoplan validate` reports the episode's metrics; `chronoplan play --baseline` prints "
                          "the baseline's steps next to the optimum's"},
        chart=None),
    # worlds (issue #24): objects, initial facts, a goal formula; sequential plans (docs/language.md, Worlds)
    ScenarioKind.WORLD: Family(
        ScenarioKind.WORLD, "world", "worlds (objects, init and a goal)",
        formats=("world",),
        grade=Ref("chronoplan.validators.world.grade:grade_world"),
        schema=Ref("chronoplan.validators.world.schema:world_plan_schema"),
        strict_schema=Ref("chronoplan.validators.world.schema:strict_world_plan_schema"),
        pddl=Ref("chronoplan.compiler.pddl.world:export_world"),
        planners=TOOL_PLANNERS,
        pddl_solve=Ref("chronoplan.runtime.world.solve:solve_world"),
        protocols=(),
        compat=(),
        metrics=("makespan", "success", "goal_reached", "plan_length", "prefix_length", "goal_fraction",
                 "goal_conjuncts"),
        instead={**{f"planner {p}": "worlds are sequential and their export is classical (docs/pddl.md, Worlds): "
                                    f"--planner {' or '.join(TOOL_PLANNERS)}"
                    for p in ("cpsat", "astar") + PDDL_PLANNERS if p not in TOOL_PLANNERS},
                 "interactive protocol": "grade whole plans with `chronoplan validate`",
                 "chart": "`chronoplan validate` reports the plan's steps and goal"},
        chart=None),
}


def family(kind: ScenarioKind) -> Family:
    return FAMILIES[kind]


def family_of(scenario: Scenario) -> Family:
    return FAMILIES[scenario.kind]


def compat_family(mode: str) -> Family:
    """The family whose scenarios the ``--compat`` mode ``mode`` (its CLI name) grades (KeyError: none)."""
    for fam in FAMILIES.values():
        if mode in fam.compat:
            return fam
    raise KeyError(f"no scenario family is graded by --compat {mode}")


def export_scenario(project: Project, scenario: Optional[str], *, classical: bool = False) -> PddlExport:
    """The PDDL export of any scenario: its family's exporter (temporal, or ``classical`` STRIPS); a family
    without one raises ``ExportError`` with a P010 that says what exists instead (``Family.lacks``)."""
    from chronoplan.compiler.pddl.common import ExportError, error  # lazy: `chronoplan check` reads the registry
    scen = project.scenario(scenario)
    fam = family_of(scen)
    if fam.pddl is None:
        raise ExportError([error("P010", f"scenario {scen.name}: {fam.lacks('PDDL export')}", scen.span)])
    export: PddlExport = fam.pddl(project, scen.name, classical=classical)
    return export
