"""A world scenario instantiated: its objects, initial facts, goal and actions, ready for an engine.

Input: a compiled ``ir.Project`` and the name (or IR) of a world scenario (``ir.ScenarioKind.WORLD``).
Output: ``WorldProblem``: ``objects`` (name -> type: the domain's objects, then the scenario's, in declaration
order), ``ancestors`` (type -> the type and its ancestors), ``relations`` (name -> arity), ``init`` (ground facts
as (relation, args) pairs), ``goal`` (the IR formula), ``actions`` (name -> ``ir.Action``) and ``attributes``.
``WorldError`` for a scenario that is not a world.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from chronoplan.compiler import ir


class WorldError(ValueError):
    """The scenario is not a world (it has no goal formula)."""


@dataclass(frozen=True)
class WorldProblem:
    scenario: ir.Scenario
    objects: dict            # name -> type
    ancestors: dict          # type -> (type, parent, ..., "object")
    relations: dict          # name -> arity
    init: tuple              # ((relation, args), ...)
    goal: ir.Formula
    actions: dict            # name -> ir.Action
    attributes: dict         # name -> ir.Attribute

    @classmethod
    def of(cls, project: ir.Project, scenario: Union[str, ir.Scenario]) -> WorldProblem:
        scen = project.scenario(scenario) if isinstance(scenario, str) else scenario
        if scen.kind is not ir.ScenarioKind.WORLD or scen.goal is None:
            raise WorldError(f"scenario {scen.name} is not a world (it has no goal formula)")
        part = project.part(scen.name)
        objects = {o.name: o.type for o in part.objects.values()}
        objects.update((o.name, o.type) for o in scen.objects)
        return cls(scen, objects, part.ancestry(), {n: len(r.params) for n, r in part.relations.items()},
                   tuple((a.relation, a.args) for a in scen.init), scen.goal, dict(part.actions),
                   dict(part.attributes))
