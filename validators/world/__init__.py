"""Grading plans against world scenarios: ``read`` (PDDL plan text and JSON), ``grade`` (the family's grader),
``schema`` (the JSON plan schema)."""
