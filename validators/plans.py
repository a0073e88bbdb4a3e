"""Plan readers: plan text or decoded JSON -> one normalized timed plan (``ReadPlan``).

Input: a plan as text (JSON, JSON Lines, Recipe2Plan ``Step(3, Cobbler, 00:01:00, 00:02:00), ...``) or as
a decoded JSON value, the scenario's time unit and optionally a forced format.  Output: ``ReadPlan`` with
``PlanAction`` values (times exact, in the scenario's unit), the syntax/schema errors found (each with its
JSON path) and, for formats graded elsewhere (paracook, tools, planningarena), the decoded value.
Never raises on bad input.  Formats: ``schedule`` ({"schedule": [{"task","step","start","duration"?,
"agent"?}]} or a bare list of such objects), ``recipe2plan`` (the text form, or plan.json's
[[step, recipe, duration_s, start_s], ...] lists, seconds), ``paracook``, ``tools``, ``planningarena``.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from jsonschema import Draft202012Validator

from chronoplan.runtime.simtypes import Chunk
from chronoplan.compiler import ir
from chronoplan.validators.report import PlanError

FORMATS = ("paracook", "schedule", "recipe2plan", "tools", "planningarena")
TIMED_FORMATS = ("schedule", "recipe2plan")
MAX_ACTIONS = 100_000
MAX_NUMBER = 10 ** 12
MAX_TEXT = 50_000_000

_ACTION = {
    "type": "object",
    "required": ["task", "step", "start"],
    "properties": {"task": {"type": "string"}, "step": {"type": "integer"}, "start": {"type": "number"},
                   "duration": {"type": "number"}, "agent": {"type": "string"}},
}
SCHEDULE_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "anyOf": [
        {"type": "object", "required": ["schedule"],
         "properties": {"scenario": {"type": "string"}, "schedule": {"type": "array", "items": _ACTION}}},
        {"type": "array", "items": _ACTION},
    ],
}
_OBJECT_SCHEMA = SCHEDULE_SCHEMA["anyOf"][0]
_LIST_SCHEMA = SCHEDULE_SCHEMA["anyOf"][1]
R2P_LIST_SCHEMA = {
    "type": "array",
    "items": {"type": "array", "minItems": 3, "maxItems": 4,
              "prefixItems": [{"type": "integer"}, {"type": "string"}, {"type": "number"}, {"type": "number"}]},
}
_VALIDATORS = {id(s): Draft202012Validator(s) for s in (_OBJECT_SCHEMA, _LIST_SCHEMA, R2P_LIST_SCHEMA)}


# One timed action is the simulator's Chunk: (index, task, step, start, duration=None, agent=None).
PlanAction = Chunk


@dataclass(frozen=True)
class ReadPlan:
    format: Optional[str]
    actions: tuple[PlanAction, ...] = ()
    errors: tuple[PlanError, ...] = ()
    scenario: Optional[str] = None          # top-level "scenario" key
    data: Any = None                        # the decoded value (for formats graded elsewhere)
    skipped: tuple[tuple[str, int], ...] = ()   # (task, step) of entries dropped for schema errors

    @property
    def fatal(self) -> bool:
        """Nothing can be replayed: unparsable, undetectable or oversized."""
        return any(e.code in ("E001", "E002", "E012", "E013") for e in self.errors)


# ------------------------------------------------------------------------------------ decoding
def _json_path(path) -> str:
    out = "$"
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def _short(x: Any, n: int = 60) -> str:
    try:
        s = json.dumps(x, ensure_ascii=False)[: n + 1]
    except (TypeError, ValueError, RecursionError):
        s = repr(type(x))
    return s if len(s) <= n else s[:n] + "..."


def _type_name(x: Any) -> str:
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "boolean"
    if isinstance(x, (int, float)):
        return "number"
    if isinstance(x, str):
        return "string"
    if isinstance(x, list):
        return "array"
    if isinstance(x, dict):
        return "object"
    return type(x).__name__


def strip_fence(text: str) -> str:
    """Remove one surrounding Markdown code fence (```json ... ```), as LLMs often add."""
    body = text.strip()
    if body.startswith("```") and body.endswith("```") and "\n" in body:
        inner = body[3:-3]
        return inner.split("\n", 1)[1] if "\n" in inner else ""
    return text


def decode(text: str) -> tuple[list[tuple[Optional[int], Any]], Optional[PlanError]]:
    """Text -> [(line number or None, value)]: one JSON value, JSON Lines, or [(None, text)]."""
    if len(text) > MAX_TEXT:
        return [], PlanError("E013", "schema", f"the plan is {len(text)} characters long; at most {MAX_TEXT}",
                             "split the plan file")
    body = strip_fence(text).strip()
    if not body:
        return [], PlanError("E002", "syntax", "the plan is empty", "write a plan")
    if body[0] in "[{":
        try:
            return [(None, json.loads(body))], None
        except RecursionError:
            return [], PlanError("E001", "syntax", "the JSON is nested too deeply", "flatten the plan")
        except ValueError as exc:
            values = []
            for no, line in enumerate(body.splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    values.append((no, json.loads(line)))
                except (ValueError, RecursionError):
                    values = None
                    break
            if values and len(values) > 1:
                return values, None
            if re.search(r"step\s*\(", body, re.I):
                return [(None, body)], None
            return [], PlanError("E001", "syntax", f"invalid JSON: {exc}", "write the plan as valid JSON")
    return [(None, body)], None


def detect(value: Any) -> Optional[str]:
    """The format of a decoded plan (text: recipe2plan if it holds Step(...) entries)."""
    if isinstance(value, str):
        return "recipe2plan" if re.search(r"step\s*\(", value, re.I) else None
    if isinstance(value, dict):
        if "schedule" in value:
            return "schedule"
        if "OrderSteps" in value or "GlobalThought" in value:
            return "planningarena"
        steps = value.get("steps")
        if isinstance(steps, list) and any(isinstance(s, dict) and "tool" in s for s in steps):
            return "tools"
        plan = value.get("plan", value)
        if isinstance(plan, dict) and plan and all(isinstance(v, list) for v in plan.values()):
            return "paracook"
        if isinstance(plan, str):
            return detect(plan)
        return None
    if isinstance(value, list):
        if value and all(isinstance(v, list) for v in value):
            return "recipe2plan"
        if value and all(isinstance(v, dict) for v in value):
            if any("tool" in v for v in value):
                return "tools"
            return "schedule"
        return "schedule" if not value else None
    return None


# ------------------------------------------------------------------------------------ numbers
def _number(x: Any, path: str, errors: list, index: Optional[int]) -> Optional[Fraction]:
    if isinstance(x, float) and not math.isfinite(x):
        errors.append(PlanError("E011", "schema", f"{path}: {x} is not a finite number",
                                "use a finite number", None, index))
        return None
    try:
        f = Fraction(repr(x)) if isinstance(x, float) else Fraction(x)
    except (TypeError, ValueError, OverflowError):
        return None
    if abs(f) > MAX_NUMBER:
        errors.append(PlanError("E011", "schema", f"{path}: {_short(x)} is out of range (at most 10^12)",
                                "use a plausible time", None, index))
        return None
    return f


def _is_int(x: Any) -> bool:
    return (isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, float) and x.is_integer())


def _field_number(e: dict, key: str, path: str, errors: list, index: int, quiet: bool) -> Optional[Fraction]:
    """A numeric field of a schedule entry (None when absent or unusable; errors only when not quiet)."""
    x = e.get(key)
    if x is None or isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return _number(x, path, [] if quiet else errors, index)


def _scale(unit: ir.TimeUnit) -> Optional[Fraction]:
    """Factor from seconds to the scenario unit (None for unitless ticks)."""
    return None if unit.seconds is None else Fraction(1, unit.seconds)


# ------------------------------------------------------------------------------------ schedule JSON
def _schema_errors(validator_schema: dict, value: Any, prefix: str = "") -> list[PlanError]:
    errors = []
    for err in sorted(_VALIDATORS[id(validator_schema)].iter_errors(value), key=lambda e: list(map(str, e.path))):
        path = _json_path(err.absolute_path)
        idx = next((p for p in err.absolute_path if isinstance(p, int)), None)
        if err.validator == "type":
            msg = f"{path}: expected {err.validator_value}, got {_type_name(err.instance)} {_short(err.instance, 40)}"
        elif err.validator == "required":
            missing = [k for k in err.validator_value if isinstance(err.instance, dict) and k not in err.instance]
            msg = f"{path}: missing {', '.join(map(repr, missing))}"
        else:
            msg = f"{path}: {err.message[:200]}"
        errors.append(PlanError("E010", "schema", msg, "see `chronoplan schema` for the expected shape", None, idx))
    return errors


def _plain_action(e: Any) -> bool:
    """Fast path: an entry the schema accepts for sure (the schema layer runs only when one fails)."""
    if type(e) is not dict:
        return False
    t, s, st, d, a = e.get("task"), e.get("step"), e.get("start"), e.get("duration", 0), e.get("agent", "")
    return (type(t) is str and type(s) is int and type(st) in (int, float) and type(d) in (int, float)
            and type(a) is str)


def _read_schedule(value: Any, unit: ir.TimeUnit) -> ReadPlan:
    scenario = value.get("scenario") if isinstance(value, dict) else None
    scenario = scenario if isinstance(scenario, str) else None
    entries = value.get("schedule") if isinstance(value, dict) else value
    if isinstance(entries, list) and len(entries) > MAX_ACTIONS:
        return ReadPlan("schedule", (), (PlanError("E013", "schema", f"the schedule has {len(entries)} actions; "
                        f"at most {MAX_ACTIONS} are graded", "shorten the plan"),), scenario)
    well_formed = (isinstance(entries, list) and all(map(_plain_action, entries))
                   and not (isinstance(value, dict) and "scenario" in value and type(value["scenario"]) is not str))
    errors = [] if well_formed else _schema_errors(_OBJECT_SCHEMA if isinstance(value, dict) else _LIST_SCHEMA,
                                                   value)
    if not isinstance(entries, list):
        if not errors:
            errors.append(PlanError("E010", "schema", "$: expected an object with a \"schedule\" array", ""))
        return ReadPlan("schedule", (), tuple(errors), scenario)
    bad = {e.index for e in errors if e.index is not None}
    base = "$.schedule" if isinstance(value, dict) else "$"
    actions, skipped = [], []
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            continue
        task, step = e.get("task"), e.get("step")
        key_ok = isinstance(task, str) and _is_int(step)
        quiet = i in bad      # its schema errors are reported; salvage what is readable without new errors
        start = _field_number(e, "start", f"{base}[{i}].start", errors, i, quiet)
        dur = _field_number(e, "duration", f"{base}[{i}].duration", errors, i, quiet)
        agent = e.get("agent") if isinstance(e.get("agent"), str) else None
        if not key_ok or start is None:
            if key_ok:
                skipped.append((task, int(step)))
            elif isinstance(task, str) and isinstance(step, str) and step.strip().isdigit():
                skipped.append((task, int(step)))
            continue
        actions.append(PlanAction(i, task, int(step), start, dur, agent))
    return ReadPlan("schedule", tuple(actions), tuple(errors), scenario, value, tuple(skipped))


def _read_r2p_list(value: list, unit: ir.TimeUnit) -> ReadPlan:
    """plan.json's [[step, recipe, duration_s, start_s], ...] (a 3-item entry: [step, recipe, start_s])."""
    if len(value) > MAX_ACTIONS:
        return ReadPlan("recipe2plan", (), (PlanError("E013", "schema", f"the plan has {len(value)} actions; at "
                        f"most {MAX_ACTIONS} are graded", "shorten the plan"),))
    errors = _schema_errors(R2P_LIST_SCHEMA, value)
    scale = _scale(unit)
    if scale is None:
        errors.append(PlanError("E010", "schema", "$: times in seconds cannot be used in a unitless scenario",
                                "write a schedule in ticks"))
        return ReadPlan("recipe2plan", (), tuple(errors))
    bad = {e.index for e in errors if e.index is not None}
    actions = []
    for i, e in enumerate(value):
        if i in bad or not isinstance(e, list):
            continue
        dur = None if len(e) == 3 else _number(e[2], f"$[{i}][2]", errors, i)
        start = _number(e[-1], f"$[{i}][{len(e) - 1}]", errors, i)
        if start is None or (len(e) == 4 and dur is None):
            continue
        actions.append(PlanAction(i, e[1], int(e[0]), start * scale, None if dur is None else dur * scale))
    return ReadPlan("recipe2plan", tuple(actions), tuple(errors), None, value)


# ------------------------------------------------------------------------------------ Recipe2Plan text
MAX_ENTRY = 200          # characters between "Step(" and ")"
_START = re.compile(r"step\s*\(", re.I)
_UNITS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "min": 60, "mins": 60, "minute": 60,
          "minutes": 60, "h": 3600, "hr": 3600, "hour": 3600, "hours": 3600}


def parse_time(text: str) -> Optional[Fraction]:
    """'00:10:00', '10:00' (MM:SS), '10 min', '30 sec', '1 hour', '1.5 min', '10' (minutes) -> seconds."""
    t = text.strip().strip("'\"")
    if len(t) > 40:
        return None
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(?::(\d+(?:\.\d+)?))?(?::(\d+(?:\.\d+)?))?", t)
    if m:
        parts = [Fraction(p) for p in m.groups() if p is not None]
        if len(parts) == 3:
            return parts[0] * 3600 + parts[1] * 60 + parts[2]
        if len(parts) == 2:
            return parts[0] * 60 + parts[1]
        return parts[0] * 60          # a bare number means minutes, as in the original evaluator
    total = Fraction(0)
    found = False
    for num, unit in re.findall(r"(\d+(?:\.\d+)?)\s*([a-zA-Z]+)", t):
        if unit.lower() not in _UNITS:
            return None
        total += Fraction(num) * _UNITS[unit.lower()]
        found = True
    rest = re.sub(r"(\d+(?:\.\d+)?)\s*([a-zA-Z]+)", "", t).strip()
    return total if found and not rest else None


def _read_r2p_text(text: str, unit: ir.TimeUnit) -> ReadPlan:
    scale = _scale(unit)
    errors: list[PlanError] = []
    actions = []
    count = sum(1 for _ in _START.finditer(text))
    if count > MAX_ACTIONS:
        return ReadPlan("recipe2plan", (), (PlanError("E013", "schema", f"the plan has {count} actions; "
                        f"at most {MAX_ACTIONS} are graded", "shorten the plan"),))
    if not count:
        return ReadPlan("recipe2plan", (), (PlanError("E001", "syntax", "no Step(...) entries found",
                        "write entries like Step(3, Cobbler, 00:01:00, 00:02:00)"),))
    if scale is None:
        return ReadPlan("recipe2plan", (), (PlanError("E010", "schema", "Step(...) times are clock times, but the "
                        "scenario is measured in unitless ticks", "write a schedule in ticks"),))
    for i, m in enumerate(_START.finditer(text)):
        close = text.find(")", m.end(), m.end() + MAX_ENTRY)
        body = text[m.end():close] if close >= 0 else ""
        snippet = text[m.start():m.start() + 60].split(")")[0] + ")"
        parts = [p.strip() for p in body.split(",")]
        task = parts[1].strip("'\"").strip() if len(parts) > 1 else ""
        if close < 0 or len(parts) not in (3, 4) or not parts[0].isdigit() or not task:
            errors.append(PlanError("E010", "schema", f"entry {i}: cannot read {snippet!r}",
                                    "write Step(step, recipe, duration, start) with HH:MM:SS times", None, i))
            continue
        dur_s, start_s = (None, parts[2]) if len(parts) == 3 else (parts[2], parts[3])
        start = parse_time(start_s)
        dur = None if dur_s is None else parse_time(dur_s)
        if start is None or (dur_s is not None and dur is None):
            what = start_s if start is None else dur_s
            errors.append(PlanError("E010", "schema", f"entry {i}: cannot read the time {what[:40]!r}",
                                    "write times as HH:MM:SS or '10 min'", None, i))
            continue
        if start > MAX_NUMBER or (dur is not None and dur > MAX_NUMBER):
            errors.append(PlanError("E011", "schema", f"entry {i}: time out of range", "use a plausible time",
                                    None, i))
            continue
        actions.append(PlanAction(i, task, int(parts[0]), start * scale, None if dur is None else dur * scale))
    return ReadPlan("recipe2plan", tuple(actions), tuple(errors), None, text)


# ------------------------------------------------------------------------------------ entry point
def read_plan(plan: Any, unit: ir.TimeUnit, fmt: Optional[str] = None) -> ReadPlan:
    """Normalize one plan (text or decoded JSON).  ``fmt`` forces a format; else it is detected."""
    try:
        return _read(plan, unit, fmt)
    except RecursionError:
        return ReadPlan(fmt, (), (PlanError("E001", "syntax", "the plan is nested too deeply", "flatten it"),))


def _read(plan: Any, unit: ir.TimeUnit, fmt: Optional[str]) -> ReadPlan:
    value = plan
    if isinstance(plan, (bytes, bytearray)):
        plan = plan.decode("utf-8", "replace")
    if isinstance(plan, str):
        values, err = decode(plan)
        if err is not None:
            return ReadPlan(fmt, (), (err,))
        if len(values) > 1:
            return ReadPlan(fmt, (), (PlanError("E010", "schema", f"the text holds {len(values)} plans (JSON "
                            "Lines); grade them one by one", "use validate_many or the CLI"),))
        value = values[0][1]
    found = fmt or detect(value)
    if isinstance(value, dict) and isinstance(value.get("plan"), str) and found == "recipe2plan":
        value = value["plan"]
    scenario = value.get("scenario") if isinstance(value, dict) and isinstance(value.get("scenario"), str) else None
    if found is None and isinstance(value, str):
        return ReadPlan(None, (), (PlanError("E001", "syntax", "the plan is neither JSON nor Step(...) text",
                        "write a JSON schedule or Step(step, recipe, duration, start) entries"),), None, value)
    if found is None:
        return ReadPlan(None, (), (PlanError("E012", "schema", "cannot tell the plan's format (expected a "
                        "\"schedule\" object, Step(...) text, per-agent action lists or tool-call steps)",
                        "pass --plan-format"),), scenario, value)
    if found not in FORMATS:
        return ReadPlan(None, (), (PlanError("E012", "schema", f"unknown plan format {found!r}",
                        f"use one of {', '.join(FORMATS)}"),), scenario, value)
    if found == "schedule":
        return _read_schedule(value, unit)
    if found == "recipe2plan":
        if isinstance(value, str):
            return _read_r2p_text(value, unit)
        if isinstance(value, list):
            return _read_r2p_list(value, unit)
        return ReadPlan("recipe2plan", (), (PlanError("E010", "schema", f"$: expected Step(...) text or a list "
                        f"of [step, recipe, duration, start], got {_type_name(value)}", ""),), scenario, value)
    return ReadPlan(found, (), (), scenario, value)
