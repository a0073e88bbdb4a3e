"""chronoplan.validators: plan readers, JSON Schemas, semantic replay, reports and batch grading.

Input: plans (text or decoded JSON) and a compiled project or instantiated scenario.  Output: ``Report``
values.  Public API (imported lazily): ``validate_plan(problem, plan)``, ``validate_many(project, plans)``,
``grade_plan(project, scenario, plan)``, ``schema_for(project, scenario)``, ``read_plan``, ``Report``,
``PlanError``, ``Compat`` (``--compat`` modes: grade like a benchmark's original evaluator).
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "validate_plan": "chronoplan.validators.replay",
    "validate_many": "chronoplan.validators.grade",
    "grade_plan": ("chronoplan.validators.grade", "grade"),
    "Grader": "chronoplan.validators.grade",
    "schema_for": "chronoplan.validators.schema",
    "read_plan": "chronoplan.validators.plans",
    "Report": "chronoplan.validators.report",
    "PlanError": "chronoplan.validators.report",
    "Compat": "chronoplan.validators.compat",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        target = _EXPORTS[name]
        module, attr = target if isinstance(target, tuple) else (target, name)
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'chronoplan.validators' has no attribute {name!r}")
