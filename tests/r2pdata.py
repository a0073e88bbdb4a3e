"""Test helper: Recipe2Plan data (../shared/data/recipe2plan) -> IR -> ProcedureProblem.

Input: cooking.json / plan.json read in place (never copied into the project).  Output: ``project()``
(an ``ir.Project`` with one scenario per instance, with and without time constraints),
``problem(key, constrained)`` and ``reference(key, constrained)`` (the plan.json schedule as plan JSON).
Built directly as IR until the ``chronoplan import recipe2plan`` importer is available.
"""
from __future__ import annotations

import json
import re
from fractions import Fraction
from functools import lru_cache

import sympy
from shared_data import shared_data

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import procedure_problem

DATA = shared_data("recipe2plan")


def seconds(text: str) -> int:
    m = re.fullmatch(r"\s*(\d+)\s*(sec|min|hour)s?\s*", text)
    n, unit = int(m.group(1)), m.group(2)
    return n * {"sec": 1, "min": 60, "hour": 3600}[unit]


def _t(secs: int):
    return sympy.Integer(secs) * ir.SECOND


def _value(v):
    return Fraction(str(v)) if isinstance(v, (int, float)) else v


@lru_cache(maxsize=1)
def cooking() -> list:
    return json.loads((DATA / "cooking.json").read_text())


@lru_cache(maxsize=1)
def plans() -> dict:
    return json.loads((DATA / "plan.json").read_text())


def keys() -> list[str]:
    return ["_".join(r["recipe"] for r in inst) for inst in cooking()]


def _procedure(recipe: dict, constrained: bool) -> ir.Procedure:
    steps = []
    for s in recipe["steps"]:
        uses = tuple(ir.ResourceUse(obj, tuple((k, _value(v)) for k, v in arg.get("require", {}).items()),
                                    tuple((k, _value(v)) for k, v in arg.get("update", {}).items()))
                     for obj, arg in s["physical"].items())
        lags = tuple(ir.Lag(int(k), None, _t(seconds(v))) for k, v in s["time_constraint"].items()) \
            if constrained else ()
        steps.append(ir.Step(
            s["step"], s["text"], _t(seconds(s["time"])),
            ir.Occupancy.START if s["parallel"] else ir.Occupancy.CONTINUOUS, None, bool(s["interrupt"]),
            tuple(s["prequisites"]), lags, uses))
    return ir.Procedure(recipe["recipe"], None, tuple(steps), ())


@lru_cache(maxsize=2)
def project(constrained: bool = True) -> ir.Project:
    procedures = {}
    scenarios = {}
    for inst in cooking():
        for r in inst:
            procedures.setdefault(r["recipe"], _procedure(r, constrained))
        name = "_".join(r["recipe"] for r in inst)
        scenarios[name] = ir.Scenario(
            name, ir.TimeUnit.S, None, (ir.AgentDecl("agent1", None),), (), tuple(r["recipe"] for r in inst),
            (), (), None, (), (), None, (), None, (), occupancy=ir.OccupancyRule.EXCLUSIVE)
    resources = {
        "oven": ir.Resource("oven", 1, (ir.Property("temperature", Fraction(0)),)),
        "microwave": ir.Resource("microwave", 1, ()),
        "stove": ir.Resource("stove", 1, ()),
    }
    return ir.Project(("recipe2plan",), {}, {}, {}, {}, {}, resources, {}, {}, {}, procedures, {}, {}, {},
                      scenarios)


def problem(key: str, constrained: bool = True):
    p = project(constrained)
    return procedure_problem(p, p.scenarios[key])


def reference(key: str, constrained: bool = True):
    """The heuristic plan as schedule JSON (None for the one null constrained plan)."""
    entries = plans()[key]["plan_w_restriction" if constrained else "plan_wo_restriction"]
    if entries is None:
        return None
    return {"scenario": key, "schedule": [{"task": r, "step": s, "start": st, "duration": d}
                                          for s, r, d, st in entries]}
