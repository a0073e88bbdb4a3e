"""Partially observable households in the compiler: the instantiated ``HouseholdProblem``.

Input and output: those of its modules, each imported by its full name
(``chronoplan.compiler.household.<module>``; this file imports nothing):
- ``problem``: a household scenario instantiated with its seed (hidden placements drawn, room graph, walking
  distances and step costs, goal things resolved);
- ``observe_rules``: the analysis of observe formulas the engine evaluates them with (``miniscope``, witnesses)
  and the worst-case cost per step the checker bounds (C111).
"""
