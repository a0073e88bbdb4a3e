"""Error codes of the grid-kitchen simulator (ParaCook-style action plans): a view of the code registry.

Input: ``chronoplan.compiler.codes``.  Output: ``KCODES`` (code -> (category, title): the plan-reading codes
shared by every plan reader and the kitchen's own codes, in the free ``x50``-``x99`` range of each category
block).  The kitchen runtime reports them as ``runtime.violations.PlanError``, the one plan-problem record.
docs/benchmarks/paracook.md lists this table and a test keeps the two equal.
"""
from __future__ import annotations

from chronoplan.compiler.codes import Scope, category_table

KCODES: dict[str, tuple[str, str]] = category_table(Scope.READING, Scope.KITCHEN)
