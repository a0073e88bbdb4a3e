"""The household family's runtime (issue #13): the decentralised engine (``engine``), observation rules
compiled to closures (``observe``), the high-level actions and their texts (``actions``), episode logs
(``log``), the scripted explore-then-deliver baseline (``baseline``) and the omniscient optimum (``optimum``).

Input: a ``compiler.household.problem.HouseholdProblem``.  Output: see each module.
"""
