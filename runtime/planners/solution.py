"""The record a PDDL planner run hands to ``chronoplan solve`` (kitchens, tool use).

Input: the run's outcome.  Output: ``Solution`` (frozen: ``status`` optimal | feasible | timeout | unsolvable |
error, ``makespan``, ``bound``, ``plan`` (the family's plan body, or None), ``seconds``, ``planner``, ``message``,
``stats``) whose ``plan_json(scenario)`` is the plan in the family's format; subclasses say which
(``runtime.kitchen.solve.KitchenSolution``: ParaCook per-agent lists; ``runtime.planners.tools.ToolSolution``:
a tool plan's steps).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional


@dataclass(frozen=True)
class Solution:
    status: str
    makespan: Optional[Fraction]
    bound: Optional[Fraction]
    plan: Optional[dict]
    seconds: float
    planner: str
    message: str = ""
    stats: dict = field(default_factory=dict, compare=False)

    def body(self) -> dict:
        """The plan's JSON without the scenario key (the family's format)."""
        raise NotImplementedError

    def plan_json(self, scenario: Optional[str] = None) -> dict:
        out = self.body()
        return {"scenario": scenario, **out} if scenario else out
