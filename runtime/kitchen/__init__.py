"""The action-level kitchen engine: grid kitchens (ParaCook-style plans) compiled into closures and simulated; the hot
modules are compiled with Cython (src/chronoplan/build.py).

Input and output: those of its modules, one per concern, each imported by its full name
(``chronoplan.runtime.kitchen.<module>``; this file imports nothing):
- ``codes``: Error codes of the grid-kitchen simulator (ParaCook-style action plans): a view of the code registry.
- ``engine``: The action-level kitchen simulator: per-agent plans of surface actions on a compiled ``World``.
- ``env``: Interactive kitchen environment for closed-loop agents (ParaCook's MultiStepReAct protocol).
- ``explain``: Error explanations and dish matching for the kitchen simulator.
- ``generate``: Seeded ParaCook-style instance generator: categories x order sizes x agent counts x map seeds ->
  .chrono.
- ``geo``: Grid geometry for the kitchen simulator: walkable cells, station neighbourhoods and walking distances.
- ``logic``: Compile IR formulas, effects and expressions into closures over a kitchen ``State``.
- ``metrics``: ParaCook metrics of kitchen runs: per run (OCT, distance, utilisation, time budget) and per batch.
- ``rules``: Grading rules of the kitchen simulator: the paper's rules (default) or those of ParaCook's own code
  (compat).
- ``scripted``: A scripted reference planner for ParaCook-style kitchens (a baseline, not an optimiser).
- ``solve``: PDDL planners on grid kitchens: export, plan in a killed subprocess, map back, retime in the simulator.
- ``state``: The mutable world state of a kitchen simulation: objects, facts, attributes and agent positions.
- ``world``: A kitchen scenario compiled once into closures and index structures (``World``).
"""
