"""Tool-call plans (PlanningArena-style apps and tools): reading, grading, metrics, JSON Schemas and exports.

Input: plans of tool calls and a compiled project with tools, apps and reference calls.  Output: reports
(``grade``), schemas (``schema``), metrics (``metrics``); one module per concern."""
