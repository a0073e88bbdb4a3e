"""The household family's validators (issue #13): reading and grading episode logs, their JSON Schema.

Input: a compiled project, a household scenario and an episode log (``runtime.household.log`` format).
Output: ``read`` (hostile-safe JSON Lines reading), ``grade`` (``grade_log`` / the family grader
``grade_episode`` -> ``validators.report.Report``) and ``schema`` (the JSON Schema of a log record).
"""
