"""ParaCook plans of grid kitchens: the plan reader, the grader and the JSON Schemas.

Input and output: those of its modules, one per concern, each imported by its full name
(``chronoplan.validators.kitchen.<module>``; this file imports nothing):
- ``grade``: Grade ParaCook plans against grid-kitchen scenarios: plan -> kitchen simulator -> report.
- ``read``: ParaCook plan reader: plan text or decoded JSON -> per-agent lists of surface actions.
- ``schema``: JSON Schema (draft 2020-12) of the ParaCook plans of a grid-kitchen scenario (orders on a map).
"""
