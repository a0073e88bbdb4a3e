"""Entry point of the PDDL backends: project + scenario name -> ``PddlExport``.

Input: a checked ``ir.Project`` and a scenario name.  Output: the temporal (``compiler.pddl_temporal``) or
classical (``compiler.pddl_classical``) export of step-level scenarios, or the kitchen export
(``compiler.pddl_kitchen``) of grid kitchens.  Raises ``pddl_common.ExportError`` (diagnostic P010) for
scenario kinds the backends do not cover (tool-use tasks) and kitchens whose operators they do not know.
"""
from __future__ import annotations

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import InstantiationError, procedure_problem
from chronoplan.compiler.pddl_common import ExportError, PddlExport, error


def export_scenario(project: ir.Project, scenario: str, *, classical: bool = False) -> PddlExport:
    """The export of any scenario, by its kind (commands ask ``validators.families`` instead)."""
    scen = project.scenario(scenario)
    if scen.kind is ir.ScenarioKind.GRID:
        from chronoplan.compiler.pddl_kitchen import export_kitchen
        return export_kitchen(project, scen.name, classical=classical)
    if scen.kind is not ir.ScenarioKind.PROCEDURES:
        raise ExportError([error(
            "P010", f"scenario {scen.name} is a {scen.kind.value} scenario; the PDDL export covers step-level "
            "scenarios (scenarios listing procedures) and grid kitchens (a map and orders)", scen.span,
            ("see docs/pddl.md",))])
    return export_procedures(project, scen.name, classical=classical)


def export_procedures(project: ir.Project, scenario: str, *, classical: bool = False) -> PddlExport:
    """Temporal PDDL 2.1 (or, ``classical``, STRIPS) export of a step-level scenario."""
    scen = project.scenario(scenario)
    try:
        problem = procedure_problem(project, scen)
    except InstantiationError as exc:
        raise ExportError([error("P010", f"scenario {scen.name} cannot be instantiated: {exc}", scen.span)]) from exc
    if classical:
        from chronoplan.compiler.pddl_classical import export_classical
        return export_classical(problem, project)
    from chronoplan.compiler.pddl_temporal import export_temporal
    return export_temporal(problem, project)
