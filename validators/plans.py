"""Plan readers: plan text or decoded JSON -> one normalized timed plan (``ReadPlan``).

Input: a plan as text (JSON, JSON Lines, Recipe2Plan ``Step(3, Cobbler, 00:01:00, 00:02:00), ...``) or as
a decoded JSON value, the scenario's time unit and optionally a forced format.  Output: ``ReadPlan`` with
``Chunk`` values (times exact, in the scenario's unit), the syntax/schema errors found (each with its
JSON path) and, for formats graded elsewhere (paracook, tools, planningarena), the decoded value.
Never raises on bad input.  Formats: ``schedule`` ({"schedule": [{"task","step","start","duration"?,
"agent"?}]} or a bare list of such objects), ``recipe2plan`` (the text form, or plan.json's
[[step, recipe, duration_s, start_s], ...] lists, seconds), ``paracook``, ``tools``, ``planningarena``.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Optional

from jsonschema import Draft202012Validator

from chronoplan.compiler import ir
from chronoplan.compiler.numparse import NumberProblem, describe, exact, exact_int, parse_int
from chronoplan.runtime.procedure.records import Chunk
from chronoplan.validators.plan_text import plan_value
from chronoplan.validators.report import PlanError, is_warning

FORMATS = ("paracook", "schedule", "recipe2plan", "tools", "planningarena", "episode",   # episode: household logs
           "world")                                                                     # world: action sequences
TIMED_FORMATS = ("schedule", "recipe2plan")
MAX_ACTIONS = 100_000
MAX_NUMBER = 10 ** 12

_ACTION = {
    "type": "object",
    "required": ["task", "step", "start"],
    "properties": {"task": {"type": "string"}, "step": {"type": "integer"}, "start": {"type": "number"},
                   "duration": {"type": ["number", "null"]}, "agent": {"type": ["string", "null"]}},   # null: absent
}
SCHEDULE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "anyOf": [
        {"type": "object", "required": ["schedule"],
         "properties": {"scenario": {"type": "string"}, "schedule": {"type": "array", "items": _ACTION}}},
        {"type": "array", "items": _ACTION},
    ],
}
_OBJECT_SCHEMA, _LIST_SCHEMA = SCHEDULE_SCHEMA["anyOf"]
R2P_LIST_SCHEMA = {
    "type": "array",
    "items": {"type": "array", "minItems": 3, "maxItems": 4,
              "prefixItems": [{"type": "integer"}, {"type": "string"}, {"type": "number"}, {"type": "number"}]},
}
_VALIDATORS = {id(s): Draft202012Validator(s) for s in (_OBJECT_SCHEMA, _LIST_SCHEMA, R2P_LIST_SCHEMA)}


# One timed action is the simulator's Chunk: (index, task, step, start, duration=None, agent=None).


@dataclass(frozen=True)
class ReadPlan:
    format: Optional[str]
    actions: tuple[Chunk, ...] = ()
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


_STEP_OPEN = re.compile(r"step\s*\(", re.I)
_ARENA_KEYS = ("OrderSteps", "GlobalThought", "StepDetail")


def detect(value: Any) -> Optional[str]:
    """The format of a decoded plan (text: recipe2plan if it holds Step(...) entries)."""
    if isinstance(value, str):
        return "recipe2plan" if _STEP_OPEN.search(value) else None
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
            if any(k in v for v in value for k in _ARENA_KEYS):
                return "planningarena"      # PlanningArena's layout: a header, then one element per step
            return "schedule"
        return "schedule" if not value else None
    return None


# ------------------------------------------------------------------------------------ numbers
MAX_STEP = 10 ** 9


def _number(x: Any, path: str, errors: list, index: Optional[int]) -> Optional[Fraction]:
    """A time or duration of any numeric type -> exact Fraction; a problem is reported (E010/E011), never dropped."""
    if type(x) is int and -MAX_NUMBER <= x <= MAX_NUMBER:
        return Fraction(x)                      # what exact() gives, without its type tests
    f = exact(x, limit=MAX_NUMBER)
    if isinstance(f, NumberProblem):
        code = "E010" if f in (NumberProblem.NOT_A_NUMBER, NumberProblem.NOT_INTEGER) else "E011"
        errors.append(PlanError(code, f"{path}: {_short(x)} {f.value}"
                                f"{' (at most 10^12)' if f is NumberProblem.OUT_OF_RANGE else ''}",
                                "use a finite number of plausible size", index))
        return None
    return f


def _step_number(x: Any) -> Optional[int]:
    """A step index written as a number or as ASCII digits -> int (None when it is neither)."""
    if type(x) is int and -MAX_STEP <= x <= MAX_STEP:
        return x
    n = exact_int(x, limit=MAX_STEP) if not isinstance(x, str) else parse_int(x, limit=MAX_STEP)
    return None if isinstance(n, NumberProblem) else n


def _field_number(e: dict, key: str, path: str, errors: list, index: int, quiet: bool) -> Optional[Fraction]:
    """A numeric field of a schedule entry (None when absent or unusable; errors only when not quiet)."""
    x = e.get(key)
    if x is None or isinstance(x, (str, bool, list, dict)):
        return None                  # absent, or a wrong type that the schema check reports
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
        errors.append(PlanError("E010", msg, "see `chronoplan schema` for the expected shape", idx))
    return errors


def _plain_action(e: Any) -> bool:
    """Fast path: an entry the schema accepts for sure (the schema layer runs only when one fails)."""
    if type(e) is not dict:
        return False
    t, s, st, d, a = e.get("task"), e.get("step"), e.get("start"), e.get("duration"), e.get("agent")
    return (type(t) is str and type(s) is int and type(st) in (int, float) and (d is None or type(d) in (int, float))
            and (a is None or type(a) is str))


def _read_schedule(value: Any, unit: ir.TimeUnit) -> ReadPlan:
    scenario = value.get("scenario") if isinstance(value, dict) else None
    scenario = scenario if isinstance(scenario, str) else None
    entries = value.get("schedule") if isinstance(value, dict) else value
    if isinstance(entries, list) and len(entries) > MAX_ACTIONS:
        return ReadPlan("schedule", (), (PlanError("E013", f"the schedule has {len(entries)} actions; "
                        f"at most {MAX_ACTIONS} are graded", "shorten the plan"),), scenario)
    well_formed = (isinstance(entries, list) and all(map(_plain_action, entries))
                   and not (isinstance(value, dict) and "scenario" in value and type(value["scenario"]) is not str))
    errors = [] if well_formed else _schema_errors(_OBJECT_SCHEMA if isinstance(value, dict) else _LIST_SCHEMA,
                                                   value)
    if not isinstance(entries, list):
        if not errors:
            errors.append(PlanError("E010", "$: expected an object with a \"schedule\" array", ""))
        return ReadPlan("schedule", (), tuple(errors), scenario)
    bad = {e.index for e in errors if e.index is not None}
    base = "$.schedule" if isinstance(value, dict) else "$"
    actions, skipped = [], []
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            continue
        task, step = e.get("task"), e.get("step")
        num = _step_number(step)
        key_ok = isinstance(task, str) and num is not None and not isinstance(step, str)
        quiet = i in bad      # its schema errors are reported; salvage what is readable without new errors
        start = _field_number(e, "start", f"{base}[{i}].start", errors, i, quiet)
        dur = _field_number(e, "duration", f"{base}[{i}].duration", errors, i, quiet)
        agent = e.get("agent") if isinstance(e.get("agent"), str) else None
        if not key_ok or start is None or not isinstance(task, str) or num is None:    # (key_ok implies both)
            if isinstance(task, str) and num is not None:
                skipped.append((task, num))
            continue
        actions.append(Chunk(i, task, num, start, dur, agent))
    return ReadPlan("schedule", tuple(actions), tuple(errors), scenario, value, tuple(skipped))


def _read_r2p_list(value: list, unit: ir.TimeUnit) -> ReadPlan:
    """plan.json's [[step, recipe, duration_s, start_s], ...] (a 3-item entry: [step, recipe, start_s])."""
    if len(value) > MAX_ACTIONS:
        return ReadPlan("recipe2plan", (), (PlanError("E013", f"the plan has {len(value)} actions; at "
                        f"most {MAX_ACTIONS} are graded", "shorten the plan"),))
    errors = _schema_errors(R2P_LIST_SCHEMA, value)
    scale = _scale(unit)
    if scale is None:
        errors.append(PlanError("E010", "$: times in seconds cannot be used in a unitless scenario",
                                "write a schedule in ticks"))
        return ReadPlan("recipe2plan", (), tuple(errors))
    bad = {e.index for e in errors if e.index is not None}
    actions = []
    for i, e in enumerate(value):
        if i in bad or not isinstance(e, list):
            continue
        dur = None if len(e) == 3 else _number(e[2], f"$[{i}][2]", errors, i)
        start = _number(e[-1], f"$[{i}][{len(e) - 1}]", errors, i)
        step = _step_number(e[0])
        if step is None:
            errors.append(PlanError("E010", f"$[{i}][0]: {_short(e[0])} is not a step number",
                                    "write the step index as an integer", i))
        if start is None or (len(e) == 4 and dur is None) or step is None:
            continue
        actions.append(Chunk(i, e[1], step, start * scale, None if dur is None else dur * scale))
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
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(?::([0-9]+(?:\.[0-9]+)?))?(?::([0-9]+(?:\.[0-9]+)?))?", t)
    if m:
        parts = [Fraction(p) for p in m.groups() if p is not None]
        if len(parts) == 3:
            return parts[0] * 3600 + parts[1] * 60 + parts[2]
        if len(parts) == 2:
            return parts[0] * 60 + parts[1]
        return parts[0] * 60          # a bare number means minutes, as in the original evaluator
    total = Fraction(0)
    found = False
    for num, unit in re.findall(r"([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]+)", t):
        if unit.lower() not in _UNITS:
            return None
        total += Fraction(num) * _UNITS[unit.lower()]
        found = True
    rest = re.sub(r"([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]+)", "", t).strip()
    return total if found and not rest else None


# The common form, read in one pass: every "step(" starts an entry Step(N, recipe, HH:MM:SS[, HH:MM:SS]) with
# plain digits and a recipe name without quotes, commas or parentheses.  The pattern also matches a bare "step("
# (empty groups), so that it finds exactly the entries the general reader below finds (``_START``: no entry of
# the common form holds another "step(").  Its bounds keep the body under ``MAX_ENTRY`` characters.
_RECIPE = r"[^\s,()'\"](?:[^,()'\"]{0,62}[^\s,()'\"])?"
_CLOCK = r"[0-9]{1,6}:[0-9]{1,6}:[0-9]{1,6}"
_COMMON = re.compile(r"(?i:step)\s*\((?:\s{0,8}([0-9]{1,9}\s{0,8},\s{0,8}" + _RECIPE + r")\s{0,8},(?:\s{0,8}("
                     + _CLOCK + r")\s{0,8},)?\s{0,8}(" + _CLOCK + r")\s{0,8}\))?")
# The same entries with single spaces after the commas and two-digit clock fields, as models and plan.json
# write them (with a duration; then with or without): scanned for "Step(" case-sensitively (several times
# faster); used when every "(" of the text opens such an entry, so that no other "step(" can be in the text.
_HMS = r"[0-9][0-9]:[0-9][0-9]:[0-9][0-9]"
_NAME = r"[^,()'\"]{1,64}"       # like _RECIPE but faster: spaces around it are stripped; blank: see read_fields
_CANONICAL = re.compile(r"Step\(([0-9]{1,9}, " + _NAME + r"), (" + _HMS + r"), (" + _HMS + r")\)")
_CANONICAL_3 = re.compile(r"Step\(([0-9]{1,9}, " + _NAME + r"), (?:(" + _HMS + r"), )?(" + _HMS + r")\)")
_NOT_COMMON = ("", "", "")
_KEYS: dict = {}                 # "3, Cobbler" -> ("Cobbler", 3)
CACHE_SIZE = 1 << 16


def step_fields(text: str) -> Optional[list[tuple[str, str, str]]]:
    """Step(...) text whose entries all have the common form -> per entry (its "step, recipe" text, its duration
    text or "" when it has none, its start text); None when an entry has another form, there is none, or there
    are more than ``MAX_ACTIONS`` (the general reader then decides, with its errors)."""
    opened = text.count("(")
    fields = _CANONICAL.findall(text)
    if len(fields) != opened:
        fields = _CANONICAL_3.findall(text)
        if len(fields) != opened:
            fields = _COMMON.findall(text)
            if _NOT_COMMON in fields:
                return None
    if not fields or len(fields) > MAX_ACTIONS:
        return None
    return fields


def step_key(raw: str) -> tuple[str, int]:
    """The "step, recipe" text of a common entry -> (recipe, step number)."""
    step, task = raw.split(",", 1)
    return task.strip(), int(step.strip())


def clock_seconds(raw: str) -> int:
    """HH:MM:SS of a common entry -> seconds (minutes and seconds may exceed 59, as in ``parse_time``)."""
    h, m, s = raw.split(":")
    return int(h) * 3600 + int(m) * 60 + int(s)


def _cached_key(raw: str) -> tuple[str, int]:
    got = _KEYS.get(raw)
    if got is None:
        if len(_KEYS) >= CACHE_SIZE:
            _KEYS.clear()
        got = _KEYS[raw] = step_key(raw)
    return got


def step_text(value: Any, fmt: Optional[str] = None) -> Optional[str]:
    """A decoded plan value (``plan_text.plan_value``) -> the Step(...) text ``read_plan`` would read from it;
    None when it would read another format."""
    if (fmt or detect(value)) != "recipe2plan":
        return None
    if isinstance(value, dict) and isinstance(value.get("plan"), str):
        value = value["plan"]
    return value if isinstance(value, str) else None


def read_fields(text: str, fields: list, unit: ir.TimeUnit) -> Optional[ReadPlan]:
    """``step_fields(text)`` -> the ``ReadPlan`` of ``text`` (None for a unitless scenario or a blank recipe name:
    the general reader reports them)."""
    if unit.seconds is None:
        return None
    times = _TIMES.get(unit.seconds)
    if times is None or len(times) >= CACHE_SIZE:
        times = _TIMES[unit.seconds] = {"": None}
    actions = []
    for i, (key, dur, start) in enumerate(fields):
        task, step = _cached_key(key)
        if not task:
            return None
        t = times.get(start)
        if t is None:
            t = times[start] = Fraction(clock_seconds(start), unit.seconds)
        d = times.get(dur, _MISSING)
        if d is _MISSING:
            d = times[dur] = Fraction(clock_seconds(dur), unit.seconds)
        actions.append(Chunk(i, task, step, t, d))
    return ReadPlan("recipe2plan", tuple(actions), (), None, text)


_TIMES: dict = {}               # unit seconds -> {clock text: time in that unit ("": no duration)}
_MISSING = object()


def _read_r2p_text(text: str, unit: ir.TimeUnit) -> ReadPlan:
    """Step(...) text: the one-pass reader for the common form, else the general one (same result)."""
    fields = step_fields(text)
    read = None if fields is None else read_fields(text, fields, unit)
    return read if read is not None else read_r2p_general(text, unit)


def read_r2p_general(text: str, unit: ir.TimeUnit) -> ReadPlan:
    """Step(...) text, entry by entry, with an error for each entry it cannot read."""
    scale = _scale(unit)
    errors: list[PlanError] = []
    actions = []
    count = sum(1 for _ in _START.finditer(text))
    if count > MAX_ACTIONS:
        return ReadPlan("recipe2plan", (), (PlanError("E013", f"the plan has {count} actions; "
                        f"at most {MAX_ACTIONS} are graded", "shorten the plan"),))
    if not count:
        return ReadPlan("recipe2plan", (), (PlanError("E001", "no Step(...) entries found",
                        "write entries like Step(3, Cobbler, 00:01:00, 00:02:00)"),))
    if scale is None:
        return ReadPlan("recipe2plan", (), (PlanError("E010", "Step(...) times are clock times, but the "
                        "scenario is measured in unitless ticks", "write a schedule in ticks"),))
    for i, m in enumerate(_START.finditer(text)):
        close = text.find(")", m.end(), m.end() + MAX_ENTRY)
        body = text[m.end():close] if close >= 0 else ""
        snippet = text[m.start():m.start() + 60].split(")")[0] + ")"
        parts = [p.strip() for p in body.split(",")]
        task = parts[1].strip("'\"").strip() if len(parts) > 1 else ""
        step = parse_int(parts[0], limit=MAX_STEP) if parts else NumberProblem.NOT_A_NUMBER
        agent = parts[4].strip("'\"").strip() if len(parts) == 5 else None
        if isinstance(step, NumberProblem) and close >= 0 and len(parts) in (3, 4, 5) and task:
            errors.append(PlanError("E010", f"entry {i}: the step number {describe(parts[0], step)}",
                                    "write the step number with the digits 0-9", i))
            continue
        if close < 0 or len(parts) not in (3, 4, 5) or isinstance(step, NumberProblem) or not task or agent == "":
            errors.append(PlanError("E010", f"entry {i}: cannot read {snippet!r}",
                                    "write Step(step, recipe, duration, start[, agent]) with HH:MM:SS times", i))
            continue
        dur_s, start_s = (None, parts[2]) if len(parts) == 3 else (parts[2], parts[3])
        start = parse_time(start_s)
        dur = None if dur_s is None else parse_time(dur_s)
        if start is None or (dur_s is not None and dur is None):
            what = start_s if start is None else dur_s or ""
            errors.append(PlanError("E010", f"entry {i}: cannot read the time {what[:40]!r}",
                                    "write times as HH:MM:SS or '10 min'", i))
            continue
        if start > MAX_NUMBER or (dur is not None and dur > MAX_NUMBER):
            errors.append(PlanError("E011", f"entry {i}: time out of range", "use a plausible time", i))
            continue
        actions.append(Chunk(i, task, step, start * scale, None if dur is None else dur * scale, agent))
    return ReadPlan("recipe2plan", tuple(actions), tuple(errors), None, text)


# ------------------------------------------------------------------------------------ entry point
def read_plan(plan: Any, unit: ir.TimeUnit, fmt: Optional[str] = None) -> ReadPlan:
    """Normalize one plan (text or decoded JSON).  ``fmt`` forces a format; else it is detected."""
    try:
        return _read(plan, unit, fmt)
    except RecursionError:
        return ReadPlan(fmt, (), (PlanError("E001", "the plan is nested too deeply", "flatten it"),))


def _read(plan: Any, unit: ir.TimeUnit, fmt: Optional[str]) -> ReadPlan:
    got = plan_value(plan)
    if got.error is not None:
        return ReadPlan(fmt, (), (got.error,))
    read = _read_value(got.value, unit, fmt)
    errs = tuple(n for n in got.notes if not is_warning(n))     # warnings reach the report via Grader
    return replace(read, errors=errs + read.errors) if errs else read


def _read_value(value: Any, unit: ir.TimeUnit, fmt: Optional[str]) -> ReadPlan:
    found = fmt or detect(value)
    if isinstance(value, dict) and isinstance(value.get("plan"), str) and found == "recipe2plan":
        value = value["plan"]
    scenario = value.get("scenario") if isinstance(value, dict) and isinstance(value.get("scenario"), str) else None
    if found is None and isinstance(value, str):
        return ReadPlan(None, (), (PlanError("E001", "the plan is neither JSON nor Step(...) text",
                        "write a JSON schedule or Step(step, recipe, duration, start) entries"),), None, value)
    if found is None:
        return ReadPlan(None, (), (PlanError("E012", "cannot tell the plan's format (expected a "
                        "\"schedule\" object, Step(...) text, per-agent action lists or tool-call steps)",
                        "pass --plan-format"),), scenario, value)
    if found not in FORMATS:
        return ReadPlan(None, (), (PlanError("E012", f"unknown plan format {found!r}",
                        f"use one of {', '.join(FORMATS)}"),), scenario, value)
    if found == "schedule":
        return _read_schedule(value, unit)
    if found == "recipe2plan":
        if isinstance(value, str):
            return _read_r2p_text(value, unit)
        if isinstance(value, list):
            return _read_r2p_list(value, unit)
        return ReadPlan("recipe2plan", (), (PlanError("E010", f"$: expected Step(...) text or a list "
                        f"of [step, recipe, duration, start], got {_type_name(value)}", ""),), scenario, value)
    return ReadPlan(found, (), (), scenario, value)
