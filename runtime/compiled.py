"""Which modules run compiled: the list setup.py compiles with Cython, and a check of what was loaded.

Input: none.  Output: ``MODULES`` (module name -> source path in the repository, read by setup.py) and
``compiled() -> {module: bool}`` (True when the imported module is a C extension, False when it is the
pure-Python source).  Results are identical either way (tests/test_compiled.py); only speed differs.
"""
from __future__ import annotations

import importlib

MODULES = {
    "chronoplan.runtime.events": "runtime/events.py",
    "chronoplan.runtime.kitchen": "runtime/kitchen.py",
    "chronoplan.runtime.kitchen_explain": "runtime/kitchen_explain.py",
    "chronoplan.runtime.kitchen_geo": "runtime/kitchen_geo.py",
    "chronoplan.runtime.kitchen_logic": "runtime/kitchen_logic.py",
    "chronoplan.runtime.kitchen_metrics": "runtime/kitchen_metrics.py",
    "chronoplan.runtime.kitchen_state": "runtime/kitchen_state.py",
    "chronoplan.runtime.kitchen_world": "runtime/kitchen_world.py",
    "chronoplan.validators.paracook_grade": "validators/paracook_grade.py",
    "chronoplan.validators.paracook_read": "validators/paracook_read.py",
    "chronoplan.validators.report": "validators/report.py",
}


def compiled() -> dict:
    """{module name: True if it was loaded from a compiled extension}."""
    out = {}
    for name in MODULES:
        path = getattr(importlib.import_module(name), "__file__", "") or ""
        out[name] = not path.endswith(".py")
    return out
