"""Entry point of the PDDL backends: project + scenario name -> ``PddlExport``.

Input: a checked ``ir.Project`` and a scenario name.  Output: the temporal (``compiler.pddl_temporal``) or
classical (``compiler.pddl_classical``) export.  Raises ``pddl_common.ExportError`` (diagnostic P010) for
scenario kinds the backends do not cover yet (grid kitchens with actions and processes, tool-use tasks).
"""
from __future__ import annotations

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import InstantiationError, procedure_problem
from chronoplan.compiler.pddl_common import ExportError, PddlExport, error


def export_scenario(project: ir.Project, scenario: str, *, classical: bool = False) -> PddlExport:
    scen = project.scenario(scenario)
    if not scen.procedures:
        kind = "a tool-use task" if (scen.apps or scen.tools) else "an action-based grid kitchen"
        raise ExportError([error(
            "P010", f"scenario {scen.name} is {kind}; the PDDL export covers step-level scenarios "
            "(scenarios listing procedures)", scen.span,
            ("see docs/pddl.md for what an action-based export needs",))])
    try:
        problem = procedure_problem(project, scen)
    except InstantiationError as exc:
        raise ExportError([error("P010", f"scenario {scen.name} cannot be instantiated: {exc}", scen.span)])
    if classical:
        from chronoplan.compiler.pddl_classical import export_classical
        return export_classical(problem, project)
    from chronoplan.compiler.pddl_temporal import export_temporal
    return export_temporal(problem, project)
