"""The step-level engine: procedure scenarios (Recipe2Plan, TimeArena) replayed step by step.

Input and output: those of its modules, one per concern, each imported by its full name
(``chronoplan.runtime.procedure.<module>``; this file imports nothing):
- ``critic``: Fast replay of faulty plans: the exact engine's violations and metrics from the compiled integer form.
- ``env``: Interactive text environment over a step-level scenario (TimeArena's closed-loop protocol).
- ``fast``: Fast replay of step-level plans that are valid: a compiled integer form of a scenario and one sweep.
- ``records``: Values of the step-level simulator.
- ``sim``: Discrete-event simulator for step-level scenarios (Recipe2Plan, TimeArena, ParaCook abstract tasks).
- ``state``: The mutable state of the step-level simulator (rules: see ``runtime.procedure.sim``).
"""
