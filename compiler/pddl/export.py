"""PDDL export of step-level scenarios: project + scenario name -> ``PddlExport``.

Input: a checked ``ir.Project`` and the name of a step-level scenario (one listing procedures).  Output: its
temporal (``compiler.pddl.temporal``) or classical (``compiler.pddl.classical``) export; ``pddl.common.
ExportError`` (diagnostic P010) when the scenario cannot be instantiated.  Grid kitchens are exported by
``compiler.pddl.kitchen.export_kitchen``; which exporter serves a scenario is the family registry's answer
(``validators.families``: ``Family.pddl``, and ``export_scenario`` for any scenario).
"""
from __future__ import annotations

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import InstantiationError, procedure_problem
from chronoplan.compiler.pddl.classical import export_classical
from chronoplan.compiler.pddl.common import ExportError, PddlExport, error
from chronoplan.compiler.pddl.temporal import export_temporal


def export_procedures(project: ir.Project, scenario: str, *, classical: bool = False) -> PddlExport:
    """Temporal PDDL 2.1 (or, ``classical``, STRIPS) export of a step-level scenario."""
    scen = project.scenario(scenario)
    try:
        problem = procedure_problem(project, scen)
    except InstantiationError as exc:
        raise ExportError([error("P010", f"scenario {scen.name} cannot be instantiated: {exc}", scen.span)]) from exc
    if classical:
        return export_classical(problem, project)
    return export_temporal(problem, project)
