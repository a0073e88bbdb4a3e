"""Error codes of the grid-kitchen simulator (ParaCook-style action plans): a view of the code registry.

Input: ``chronoplan.compiler.codes``.  Output: ``KCODES`` (code -> (category, title): the plan-reading codes
shared by every plan reader and the kitchen's own codes, in the free ``x50``-``x99`` range of each category
block).  The kitchen runtime reports them as ``runtime.violations.PlanError``, the one plan-problem record.
docs/benchmarks/paracook.md lists this table and a test keeps the two equal.
"""
from __future__ import annotations

from chronoplan.compiler.codes import Scope, codes_in

KCODES: dict[str, tuple[str, str]] = {
    c: (v.category.value, v.title) for c, v in codes_in(Scope.READING, Scope.KITCHEN).items()}
