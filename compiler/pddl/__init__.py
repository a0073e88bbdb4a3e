"""The PDDL back ends: temporal and classical exports of procedures and kitchens, plans back.

Input and output: those of its modules, one per concern, each imported by its full name
(``chronoplan.compiler.pddl.<module>``; this file imports nothing):
- ``classical``: Classical (sequential STRIPS + action costs) approximation of a step-level scenario.
- ``common``: Shared pieces of the PDDL exporters: the export result, time scaling, diagnostics.
- ``export``: PDDL export of step-level scenarios: project + scenario name -> ``PddlExport``.
- ``household``: Classical PDDL export of a household episode's omniscient relaxation (issue #13 item 5).
- ``kitchen``: PDDL export of action-based grid kitchens (ParaCook physics): temporal PDDL 2.1 and classical STRIPS.
- ``names``: Reversible name mangling for PDDL.
- ``plan``: PDDL plans <-> timed schedules of a step-level scenario.
- ``temporal``: PDDL 2.1 temporal export of step-level scenarios (procedures).
- ``tools``: Classical PDDL export of a tool-use scenario, and a planner's plan back to a tool plan (issue #15 item 7).
- ``write``: A small PDDL model and its deterministic text rendering.
"""
