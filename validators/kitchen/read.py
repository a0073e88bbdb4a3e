"""ParaCook plan reader: plan text or decoded JSON -> per-agent lists of surface actions.

Input: a plan as text (JSON, possibly in a Markdown fence) or a decoded value.  ParaCook's format is
``{"plan": {"agent1": [{"action": "MoveTo", "target": [x, y]}, {"action": "Interact", "target": "stove1"},
{"action": "Wait", "duration": 3}, {"action": "Finish"}], ...}}``; without a "plan" key the whole object is
the plan (keys such as "reasoning", "CoT", "graph", "time_dict" and "scenario" are then ignored, and they
are always allowed beside "plan").  Output: ``CookPlan`` -- ``steps`` {agent: [kitchen.engine.KitchenStep]} keeping
each action's position in its list, the schema errors found (E001/E002/E010/E011/E012/E013 as
``report.PlanError``; an ill-shaped entry is dropped, its index kept by the others) and the top-level
"scenario" key.  Never raises on bad input.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from typing import Any, Optional

from chronoplan.runtime.kitchen.engine import KitchenStep
from chronoplan.validators.plan_text import plan_value
from chronoplan.validators.report import PlanError, is_warning

MAX_ACTIONS = 100_000
META_KEYS = ("reasoning", "CoT", "cot", "graph", "time_dict", "scenario", "thought", "thoughts")


@dataclass(frozen=True)
class CookPlan:
    steps: dict = field(default_factory=dict)
    errors: tuple = ()
    scenario: Optional[str] = None

    @property
    def fatal(self) -> bool:
        return any(e.code in ("E001", "E002", "E012", "E013") for e in self.errors)


def _short(x: Any, n: int = 50) -> str:
    try:
        s = json.dumps(x, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        s = repr(type(x))
    return s if len(s) <= n else s[:n] + "..."


def _bad_number(x: Any) -> bool:
    """A NaN or an infinity (Python's json reads "NaN" and "Infinity").  Not ``numparse.exact`` on purpose:
    this converts nothing, it only finds non-finite floats in any field of an action, in the reader's
    per-field loop, where a conversion would be wasted; the kitchen reads the numbers it uses through
    ``numparse.exact`` (``runtime.kitchen.engine._number``)."""
    return isinstance(x, float) and not math.isfinite(x)


def read_cook_plan(plan: Any) -> CookPlan:
    """Normalize one ParaCook plan (text or decoded JSON)."""
    try:
        return _read(plan)
    except RecursionError:
        return CookPlan({}, (PlanError("E001", "the plan is nested too deeply", "flatten it"),))


def _read(plan: Any) -> CookPlan:
    got = plan_value(plan)
    if got.error is not None:
        return CookPlan({}, (got.error,))
    read = _read_value(got.value)
    errs = tuple(n for n in got.notes if not is_warning(n))     # warnings reach the report via Grader
    return replace(read, errors=errs + read.errors) if errs else read


def _read_value(value: Any) -> CookPlan:
    scenario = value.get("scenario") if isinstance(value, dict) and isinstance(value.get("scenario"), str) else None
    if not isinstance(value, dict):
        return CookPlan({}, (PlanError("E012", f"expected a JSON object of per-agent action lists, "
                                       f"got {_short(value)}", "write {\"plan\": {\"agent1\": [...]}}"),), scenario)
    if "plan" in value:
        body = value["plan"]
        if not isinstance(body, dict):
            return CookPlan({}, (PlanError("E010", f"$.plan: expected an object of per-agent action "
                                           f"lists, got {_short(body)}", "write {\"plan\": {\"agent1\": [...]}}"),),
                            scenario)
        base = "$.plan"
    else:
        body = {k: v for k, v in value.items() if k not in META_KEYS}
        base = "$"
    total = sum(len(v) for v in body.values() if isinstance(v, list))
    if total > MAX_ACTIONS:
        return CookPlan({}, (PlanError("E013", f"the plan has {total} actions; at most {MAX_ACTIONS} "
                                       "are graded", "shorten the plan"),), scenario)
    errors, steps = [], {}
    for agent, actions in body.items():
        path = f"{base}.{agent}"
        if not isinstance(actions, list):
            errors.append(PlanError("E010", f"{path}: expected a list of actions, got {_short(actions)}",
                                    "give each agent a list of {\"action\": ...} objects", agent=str(agent)))
            continue
        out = []
        for i, a in enumerate(actions):
            if not isinstance(a, dict):
                errors.append(PlanError("E010", f"{path}[{i}]: expected an object like {{\"action\": "
                                        f"\"MoveTo\", \"target\": [x, y]}}, got {_short(a)}", "", i, str(agent)))
                continue
            name = a.get("action")
            if not isinstance(name, str):
                errors.append(PlanError("E010", f"{path}[{i}]: \"action\" must be a string, got "
                                        f"{_short(name)}", "add \"action\": \"MoveTo\" (or Interact, Process, Wait, "
                                        "Finish)", i, str(agent)))
                continue
            args = a.copy()
            del args["action"]
            bad = None
            for k, x in args.items():
                c = type(x)
                if c is list and len(x) == 2 and type(x[0]) is int and type(x[1]) is int:
                    continue                            # a cell [x, y]: nothing to check
                if (c is float and not math.isfinite(x)) or (c is list and any(map(_bad_number, x))):
                    bad = k
                    break
            if bad is not None:
                errors.append(PlanError("E011", f"{path}[{i}].{bad}: {_short(a[bad])} is not a "
                                        "finite number", "use finite numbers", i, str(agent)))
                continue
            out.append(tuple.__new__(KitchenStep, (i, name, args)))
        steps[str(agent)] = out
    if not body and not errors:
        errors.append(PlanError("E012", "the plan has no agent action lists",
                                "write {\"plan\": {\"agent1\": [...]}}"))
    return CookPlan(steps, tuple(errors), scenario)
