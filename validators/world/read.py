"""Reading sequential plans for world scenarios: PDDL plan text and JSON.

Input: a plan value as the graders receive it (``plan_text.plan_value``): text, or decoded JSON.
Output: ``read_world_plan(value)`` -> ``WorldPlan``: the steps (``Step``: position, action name and arguments as
written, the text) and the reading problems (``PlanError`` with the position), so that one unreadable line is
one located error and the rest of the plan is still read.

Text, one action per line, as planners and VAL write plans: ``(unstack a b)``; a time and a duration are allowed
(``0.000: (unstack a b) [1.000]``), as are a step number (``1. (unstack a b)``, ``2) ...``, ``3: ...``); ``;``
starts a comment; blank lines are skipped; any case.  The position of a text step is its line number.
JSON: a list (or ``{"plan": [...]}`` / ``{"steps": [...]}``) whose entries are action strings as above (the
parentheses are optional) or objects ``{"action": NAME, "args": [OBJECT, ...]}``; the position is the entry's
number (1-based).  Unreadable entries: E001 (text) and E010 (JSON); too many steps: E013.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional

from chronoplan.validators.report import PlanError

MAX_STEPS = 100_000
PLAN_KEYS = ("plan", "steps")
_PREFIX = re.compile(r"^\s*(?:\d+(?:\.\d+)?\s*[:.)]\s*)?")
_ACTION = re.compile(r"^\((?P<body>[^()]*)\)\s*(?:\[\s*\d+(?:\.\d+)?\s*\])?\s*$")
_TOKEN = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
_BODY = re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_\-]*(?:\s+[A-Za-z_][A-Za-z0-9_\-]*)*\s*$")


@dataclass(frozen=True)
class Step:
    index: int               # line number (text) or entry number (JSON), 1-based
    name: str
    args: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class WorldPlan:
    steps: tuple[Step, ...]
    errors: tuple[PlanError, ...]
    too_large: bool = False


def read_world_plan(value: Any) -> WorldPlan:
    if isinstance(value, dict):
        key = next((k for k in PLAN_KEYS if k in value), None)
        if key is None:
            return WorldPlan((), (PlanError("E010", "a world plan is a list of actions (or {\"plan\": [...]}), "
                                            f"not an object with keys {', '.join(map(str, list(value)[:5]))}",
                                            "write [\"(unstack a b)\", ...]"),))
        value = value[key]
    if isinstance(value, str):
        return _read_text(value)
    if isinstance(value, list):
        return _read_list(value)
    return WorldPlan((), (PlanError("E010", f"a world plan is text or a list of actions, not {type(value).__name__}",
                                    "write one (action args) per line, or a JSON list"),))


def _too_large(n: int) -> WorldPlan:
    return WorldPlan((), (PlanError("E013", f"the plan has {n} steps; at most {MAX_STEPS} are graded",
                                    "grade a shorter plan"),), True)


def _parse(text: str, bare: bool) -> Optional[tuple[str, tuple[str, ...]]]:
    """``(name args)`` (with an optional time prefix, step number or duration) -> (name, args); None if it is not.
    ``bare``: the parentheses may be left out (JSON strings)."""
    s = _PREFIX.sub("", text, count=1).strip()
    m = _ACTION.match(s)
    body = m.group("body") if m else (s if bare and "(" not in s and ")" not in s else None)
    if body is None:
        return None
    if not _BODY.match(body):
        return None
    tokens = body.split()
    return tokens[0], tuple(tokens[1:])


def _read_text(text: str) -> WorldPlan:
    lines = text.splitlines()
    steps, errors = [], []
    for no, raw in enumerate(lines, 1):
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        got = _parse(line, False)
        if got is None:
            errors.append(PlanError("E001", f"line {no} is not an action: {line[:80]!r}",
                                    "write one action per line: (name arg ...)", no))
            continue
        steps.append(Step(no, got[0], got[1], line))
        if len(steps) > MAX_STEPS:
            return _too_large(len(steps))
    return WorldPlan(tuple(steps), tuple(errors))


def _read_list(entries: list) -> WorldPlan:
    if len(entries) > MAX_STEPS:
        return _too_large(len(entries))
    steps, errors = [], []
    for no, e in enumerate(entries, 1):
        got = None
        if isinstance(e, str):
            got = _parse(e, True)
            shown = e
        elif isinstance(e, dict) and isinstance(e.get("action"), str) and _TOKEN.match(e["action"]) \
                and isinstance(e.get("args", []), list) and all(isinstance(a, str) for a in e.get("args", [])) \
                and set(e) <= {"action", "args"}:
            got = (e["action"], tuple(e.get("args", [])))
            shown = f"({' '.join((e['action'], *got[1]))})"
        if got is None:
            errors.append(PlanError("E010", f"entry {no} is not an action: {str(e)[:80]!r}",
                                    "write \"(name arg ...)\" or {\"action\": name, \"args\": [...]}", no))
            continue
        steps.append(Step(no, got[0], got[1], shown))
    return WorldPlan(tuple(steps), tuple(errors))
