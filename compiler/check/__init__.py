"""The checker: AST modules -> IR ``Project`` + diagnostics, one module per kind of declaration.

Input and output: those of its modules, one per concern, each imported by its full name
(``chronoplan.compiler.check.<module>``; this file imports nothing):
- ``actions``: Actions and processes: AST -> ``ir.Action`` / ``ir.Process`` with typed conditions and effects.
- ``checker``: Checker: AST modules -> IR ``Project`` + diagnostics.
- ``expr``: Expressions: AST expression -> (sympy expression, dimension), with unit checks.
- ``household``: Households (partial observability): AST -> ``ir.Household``; household scenarios ->
  ``ir.Scenario``.
- ``kitchen``: Grid-kitchen declarations: relation roles and capacities, containers, surface actions, created
  objects.
- ``maps``: Grid maps: ASCII art + legend -> ``ir.GridMap``.
- ``procedures``: Recipes and procedures: AST -> ``ir.Recipe`` / ``ir.Procedure``.
- ``scenarios``: Scenarios: AST -> ``ir.Scenario``.
- ``tools``: Tool/API signatures: AST -> ``ir.Tool`` / ``ir.App``, plus typed values.
"""
