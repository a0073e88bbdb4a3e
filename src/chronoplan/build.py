"""Which modules run compiled: the list setup.py compiles with Cython, and a check of what was loaded.

Input: none.  Output: ``MODULES`` (module name -> source path in the repository, read by setup.py without
importing the package) and ``compiled() -> {module: bool}`` (True when the imported module is a C extension,
False when it is the pure-Python source).  It lives in the top package because the list names modules of the
runtime and the validators layers (docs/architecture.md, layers); ``chronoplan.runtime.compiled`` holds the
pure-Python tree and the fallback note.
"""
from __future__ import annotations

import importlib

MODULES = {
    "chronoplan.runtime.events": "runtime/events.py",
    "chronoplan.runtime.kitchen.engine": "runtime/kitchen/engine.py",
    "chronoplan.runtime.kitchen.explain": "runtime/kitchen/explain.py",
    "chronoplan.runtime.kitchen.geo": "runtime/kitchen/geo.py",
    "chronoplan.runtime.kitchen.logic": "runtime/kitchen/logic.py",
    "chronoplan.runtime.kitchen.metrics": "runtime/kitchen/metrics.py",
    "chronoplan.runtime.kitchen.state": "runtime/kitchen/state.py",
    "chronoplan.runtime.kitchen.world": "runtime/kitchen/world.py",
    "chronoplan.validators.kitchen.grade": "validators/kitchen/grade.py",
    "chronoplan.validators.kitchen.read": "validators/kitchen/read.py",
    "chronoplan.validators.report": "validators/report.py",
    # the Recipe2Plan grading fast path (#14 item 5): the sweep, the critic replay, the plan reader, the replay
    "chronoplan.runtime.procedure.fast": "runtime/procedure/fast.py",
    "chronoplan.runtime.procedure.critic": "runtime/procedure/critic.py",
    "chronoplan.validators.plan_text": "validators/plan_text.py",
    "chronoplan.validators.replay": "validators/replay.py",
}


def compiled() -> dict:
    """{module name: True if it was loaded from a compiled extension}."""
    out = {}
    for name in MODULES:
        path = getattr(importlib.import_module(name), "__file__", "") or ""
        out[name] = not path.endswith(".py")
    return out
