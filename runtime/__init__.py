"""chronoplan.runtime: the discrete-event simulator, the interactive environment and the metrics.

Input: instantiated scenarios (``compiler.instantiate.ProcedureProblem``).  Output: simulation results,
observations and scores.  Public API (imported lazily): ``simulate(problem, chunks)``, ``Chunk``,
``Env(problem)``, ``metrics``.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "simulate": "chronoplan.runtime.procedure.sim",
    "Chunk": "chronoplan.runtime.procedure.sim",
    "SimResult": "chronoplan.runtime.procedure.sim",
    "Env": "chronoplan.runtime.procedure.env",
    "Feedback": "chronoplan.runtime.procedure.env",
}
__all__ = list(_EXPORTS) + ["metrics"]


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    if name == "metrics":
        return importlib.import_module("chronoplan.runtime.metrics")
    raise AttributeError(f"module 'chronoplan.runtime' has no attribute {name!r}")
