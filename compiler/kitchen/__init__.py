"""Grid kitchens in the compiler: the instantiated ``KitchenProblem`` and the operators' physics.

Input and output: those of its modules, one per concern, each imported by its full name
(``chronoplan.compiler.kitchen.<module>``; this file imports nothing):
- ``physics``: What each operator of an action-based kitchen physics does, read from its declarations (issue #12
  item 3).
- ``problem``: A grid-kitchen scenario instantiated in the compiler (``KitchenProblem``), next to
  ``ProcedureProblem``.
"""
