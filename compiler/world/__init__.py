"""Worlds (``ir.ScenarioKind.WORLD``): the problem a world scenario instantiates (``problem.WorldProblem``)."""
