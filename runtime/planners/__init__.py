"""Reference planners: CP-SAT schedules and external PDDL planners run in killed subprocesses.

Input and output: those of its modules, one per concern, each imported by its full name
(``chronoplan.runtime.planners.<module>``; this file imports nothing):
- ``cpsat``: Optimal reference schedules for step-level scenarios with OR-tools CP-SAT.
- ``external``: External PDDL planners (through unified-planning) and the VAL plan validator.
- ``proctree``: Process-tree bookkeeping for planner runs: every process group a worker's descendants ever used.
- ``tools``: Classical PDDL planners on tool-use scenarios: export, plan in a killed subprocess, map back.
- ``worker``: Subprocess side of ``runtime.planners.external``: run one unified-planning engine on PDDL files.
"""
