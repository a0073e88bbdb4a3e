"""Readers for tool-call plans: the DESIGN contract format and PlanningArena's step format.

Input: a plan as JSON text or an already-decoded object, and a format name (``tools``,
``planningarena`` or ``None`` to detect it).  Output: a ``ToolPlan`` (normalised ``ToolStep`` values plus
the reading errors as ``PlanError`` values).  Never raises on bad input.

DESIGN format: ``{"steps": [{"id": 1, "tool": "x", "args": {...}, "after": [..]}]}`` (``app``,
``description`` and ``thought`` are optional step keys; a bare list of steps and ``{"plan": {...}}`` are
accepted too).  PlanningArena format: ``{"GlobalThought": ..., "OrderSteps": {"TotalSteps": n,
"StepDetail": ...}}`` where StepDetail is a list, one step object, or an object keyed by step number, and
each step's ``Action`` is a Python-literal call string ``Tool({'key': 'value'})`` parsed by
``tools.literal`` (never evaluated); a top-level list of such objects (one step each, as in the paper's
listings) is merged.  A leading header element ``{"MessageNumber": ..., "Query": ...}`` (as PlanningArena's
task files and model outputs begin) is not a step: it is kept in ``ToolPlan.header``.  Each step's
``Results`` (the simulated tool response) is kept as its scalar leaves in ``ToolStep.results`` (for
``tools.results``).  Argument values are normalised: JSON floats become exact ``Fraction`` values,
strings that are exactly one step reference become ``tools.refs.StepRef``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from chronoplan.compiler.numparse import NumberProblem, exact_int, parse_int
from chronoplan.validators.plan_text import plan_value
from chronoplan.validators.report import PlanError
from chronoplan.validators.tools.literal import LiteralError, parse_call
from chronoplan.validators.tools.refs import StepRef, as_ref, refs_in

MAX_STEPS = 5_000
MAX_ID = 10 ** 9 - 1            # step ids and StepDetail keys
MAX_DEPTH = 40
MAX_INT_DIGITS = 400
FORMATS = ("tools", "planningarena")
STEP_KEYS = {"id", "tool", "app", "args", "after", "description", "thought"}
HEADER_KEYS = ("MessageNumber", "Query")
MAX_RESULT_LEAVES = 200                # scalar values kept per step's Results


@dataclass(frozen=True)
class ToolStep:
    """One plan step; ``index`` is its 0-based position (``plan.steps[k].index == k``), ``id`` the id
    written in the plan (negative for an unreadable step)."""

    index: int
    id: int
    tool: Optional[str]                       # None when the step names no tool
    app: Optional[str]                        # app prefix ("weather.queryWeather") or "app" key
    args: tuple                               # (name, value) pairs, keyword arguments
    positional: tuple = ()                    # positional values (mapped by declaration order)
    after: tuple = ()                         # declared predecessors (ids)
    refs: tuple = ()                          # StepRef values used in the arguments
    declares_after: bool = True               # the format has explicit dependencies
    text: str = ""                            # the raw Action string (PlanningArena)
    results: tuple = ()                       # (key path, scalar value) leaves of the step's Results


@dataclass(frozen=True)
class ToolPlan:
    fmt: str
    steps: tuple
    errors: tuple                             # PlanError values found while reading
    garbled: bool = False                     # unreadable text or an unparsable Action
    declared_total: Optional[int] = None
    header: tuple = ()                        # (key, value) pairs of a skipped leading header element


def _err(code: str, message: str, hint: str, index: Optional[int] = None) -> PlanError:
    return PlanError(code, message, hint, index)


class _Bad(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def decode(plan: Any) -> tuple[Any, Optional[PlanError]]:
    """A plan as text, bytes or value -> its JSON-native value (``plan_text.plan_value``), errors as T-codes."""
    got = plan_value(plan, constants=False)
    if got.error is None and isinstance(plan, (str, bytes, bytearray)) and isinstance(got.value, str):
        return None, _err("T001", "the plan is not JSON", 'write one JSON object such as {"steps": '
                          '[{"id": 1, "tool": "...", "args": {}}]}')
    if got.error is None:
        return got.value, None
    e = got.error
    if e.code == "E013":
        return None, _err("T007", e.message, "submit a smaller plan")
    return None, _err("T001", f"the plan is not valid JSON: {e.message}",
                      'write one JSON object such as {"steps": [{"id": 1, "tool": "...", "args": {}}]}')


def normalize_value(v: Any, depth: int = 0) -> Any:
    """Normalise a decoded argument value; raise _Bad for NaN, huge numbers or deep nesting."""
    if depth > MAX_DEPTH:
        raise _Bad(f"a value is nested deeper than {MAX_DEPTH} levels")
    if v is None or isinstance(v, (bool, StepRef)):
        return v
    if isinstance(v, int):
        if v.bit_length() > MAX_INT_DIGITS * 4:
            raise _Bad("an integer is too large")
        return v
    if isinstance(v, float):
        if not math.isfinite(v):
            raise _Bad("a number is NaN or infinite")
        f = Fraction(repr(v))
        return int(f) if f.denominator == 1 and v.is_integer() and abs(v) < 2 ** 53 else f
    if isinstance(v, Fraction):
        return v
    if isinstance(v, str):
        r = as_ref(v)
        return r if r is not None else v
    if isinstance(v, (list, tuple)):
        return tuple(normalize_value(x, depth + 1) for x in v)
    if isinstance(v, dict):
        return {str(k): normalize_value(x, depth + 1) for k, x in v.items()}
    raise _Bad(f"unsupported value of type {type(v).__name__}")


def detect_format(obj: Any) -> Optional[str]:
    """``tools``, ``planningarena`` or None."""
    if isinstance(obj, dict):
        if "OrderSteps" in obj or "GlobalThought" in obj or "StepDetail" in obj:
            return "planningarena"
        if "steps" in obj:
            return "tools"
        if isinstance(obj.get("plan"), dict):
            return detect_format(obj["plan"])
        return None
    if isinstance(obj, list) and obj:
        first = obj[0]
        if is_header(first) and len(obj) > 1:
            return "planningarena" if detect_format(obj[1:]) in (None, "planningarena") else "tools"
        if isinstance(first, dict):
            if "OrderSteps" in first or "StepNumber" in first or "Action" in first or "GlobalThought" in first:
                return "planningarena"
            if "tool" in first:
                return "tools"
    return None


def is_header(item: Any) -> bool:
    """A PlanningArena header element: an object with MessageNumber and/or Query and no plan or tool call."""
    return (isinstance(item, dict) and any(k in item for k in HEADER_KEYS)
            and not any(k in item for k in ("OrderSteps", "StepDetail", "Action", "StepNumber", "steps", "tool")))


def _header_of(item: dict) -> tuple:
    return tuple((k, item[k] if isinstance(item[k], (str, int)) and not isinstance(item[k], bool) else str(item[k]))
                 for k in HEADER_KEYS if k in item)


def read_tool_plan(plan: Any, fmt: Optional[str] = None) -> ToolPlan:
    """Read a plan (JSON text or decoded object) in format ``fmt`` (None or "auto": detect)."""
    obj, error = decode(plan)
    if error is not None:
        return ToolPlan(fmt or "tools", (), (error,), garbled=error.code == "T001")
    if fmt in (None, "", "auto"):
        fmt = detect_format(obj) or "tools"
    if fmt not in FORMATS:
        return ToolPlan(str(fmt), (), (_err("T003", f"unknown tool-plan format {fmt!r}",
                                            f"use one of: {', '.join(FORMATS)}"),))
    try:
        if fmt == "tools":
            return _read_design(obj)
        return _read_arena(obj)
    except RecursionError:
        return ToolPlan(fmt, (), (_err("T003", "the plan is nested too deeply", "flatten the plan"),))


# ----------------------------------------------------------------------------- DESIGN format
def _read_design(obj: Any) -> ToolPlan:
    if isinstance(obj, dict) and "steps" not in obj and isinstance(obj.get("plan"), dict):
        obj = obj["plan"]
    if isinstance(obj, dict):
        raw = obj.get("steps")
    elif isinstance(obj, list):
        raw = obj
    else:
        raw = None
    if not isinstance(raw, list):
        return ToolPlan("tools", (), (_err("T003", 'the plan has no "steps" list',
                                           'write {"steps": [{"id": 1, "tool": "...", "args": {...}, '
                                           '"after": []}]}'),))
    if len(raw) > MAX_STEPS:
        return ToolPlan("tools", (), (_err("T007", f"the plan has {len(raw)} steps (limit {MAX_STEPS})",
                                           "submit a plan with fewer steps"),))
    steps, errors = [], []
    for i, st in enumerate(raw):
        if not isinstance(st, dict):
            errors.append(_err("T004", f"step {i} is a {_tname(st)}, not an object",
                               'write each step as {"id": N, "tool": "...", "args": {...}}', i))
            steps.append(_placeholder(i, True))
            continue
        extra = sorted(str(k) for k in st if k not in STEP_KEYS)
        if extra:
            errors.append(_err("T004", f"step {i} has unknown key(s) {', '.join(map(repr, extra[:5]))}",
                               f"a step has only the keys {', '.join(sorted(STEP_KEYS))}", i))
        sid = _read_id(st.get("id"), i, errors, "id")
        tool, app = _split_name(st.get("tool"))
        if tool is None:
            errors.append(_err("T004", f"step {i} has no tool name (\"tool\" must be a non-empty string)",
                               'add "tool": "<tool name>"', i))
        if isinstance(st.get("app"), str) and st["app"]:
            app = st["app"] if app is None else app
        args_raw = st.get("args", {})
        args: tuple = ()
        if args_raw is None:
            args_raw = {}
        if not isinstance(args_raw, dict):
            errors.append(_err("T004", f'step {i}: "args" is a {_tname(args_raw)}, not an object',
                               'write "args": {"name": value, ...}', i))
        else:
            args = _norm_args(args_raw.items(), i, errors)
        after = _read_after(st.get("after", []), i, errors)
        steps.append(ToolStep(i, sid, tool, app, args, (), after, _refs(args), True))
    _check_ids(steps, errors)
    return ToolPlan("tools", tuple(steps), tuple(errors))


# ----------------------------------------------------------------------------- PlanningArena format
def _arena_details(obj: Any) -> tuple[list, Optional[int]]:
    """The raw StepDetail entries (in order) and the declared TotalSteps."""
    if isinstance(obj, list):
        out: list = []
        total = None
        for item in obj:
            if len(out) > MAX_STEPS:
                break                       # already over the limit: reported as T007
            if isinstance(item, dict) and ("OrderSteps" in item or "StepDetail" in item):
                sub, t = _arena_details(item)
                out.extend(sub)
                total = t if t is not None else total
            else:
                out.append(item)
        return out, total
    if not isinstance(obj, dict):
        raise _Bad(f"the plan is a {_tname(obj)}, not a PlanningArena object")
    order = obj.get("OrderSteps", obj)
    if isinstance(order, list):
        return list(order), None
    if not isinstance(order, dict):
        raise _Bad('"OrderSteps" is not an object')
    total = order.get("TotalSteps")
    detail = order.get("StepDetail")
    if isinstance(detail, list):
        return list(detail), total
    if isinstance(detail, dict):
        if any(k in detail for k in ("StepNumber", "Action", "Description")):
            return [detail], total
        keyed = []
        for k, v in detail.items():
            n = parse_int(k, limit=MAX_ID)
            if isinstance(n, NumberProblem) or n < 0:
                raise _Bad(f'"StepDetail" key {_clip(repr(k))} is not a step number (digits 0-9)')
            keyed.append((n, v))
        keyed.sort(key=lambda kv: kv[0])
        return [dict(v, StepNumber=v.get("StepNumber", k)) if isinstance(v, dict) else v for k, v in keyed], total
    raise _Bad('"OrderSteps" has no "StepDetail" list or object')


def _split_header(obj: Any) -> tuple[Any, tuple]:
    """(the plan without a leading header element, the header's pairs); the header keys may also sit on the
    first plan object (as in the paper's listings), which then stays a step."""
    if isinstance(obj, list) and obj and isinstance(obj[0], dict) and any(k in obj[0] for k in HEADER_KEYS):
        return (obj[1:] if is_header(obj[0]) else obj), _header_of(obj[0])
    if isinstance(obj, dict) and any(k in obj for k in HEADER_KEYS):
        return obj, _header_of(obj)
    return obj, ()


def _read_arena(obj: Any) -> ToolPlan:
    obj, header = _split_header(obj)
    try:
        details, total = _arena_details(obj)
    except _Bad as bad:
        return ToolPlan("planningarena", (), (_err("T003", bad.message,
                                                   'write {"OrderSteps": {"TotalSteps": n, "StepDetail": '
                                                   '[{"StepNumber": 1, "Action": "Tool({...})"}]}}'),),
                        header=header)
    if len(details) > MAX_STEPS:
        return ToolPlan("planningarena", (), (_err("T007", f"the plan has {len(details)} steps "
                                                   f"(limit {MAX_STEPS})", "submit a plan with fewer steps"),),
                        header=header)
    steps, errors, garbled = [], [], False
    for i, st in enumerate(details):
        if not isinstance(st, dict):
            errors.append(_err("T004", f"step {i} is a {_tname(st)}, not an object",
                               'write each step as {"StepNumber": N, "Action": "Tool({...})"}', i))
            steps.append(_placeholder(i, False))
            continue
        sid = _read_id(st.get("StepNumber"), i, errors, "StepNumber")
        action = st.get("Action")
        tool = app = None
        args: tuple = ()
        positional: tuple = ()
        text = action if isinstance(action, str) else ""
        if isinstance(action, str):
            try:
                call = parse_call(action)
            except LiteralError as exc:
                garbled = True
                errors.append(_err("T002", f"step {i}: the Action {_clip(action)!r} is not a tool call "
                                   f"({exc.message} at character {exc.pos})",
                                   "write the Action as ToolName({'param': 'value', ...}) with literal values only", i))
                steps.append(ToolStep(i, sid, None, None, (), (), (), (), False, text))
                continue
            tool, app = _split_name(call.name)
            if len(call.positional) == 1 and isinstance(call.positional[0], dict) and not call.keywords:
                args = _norm_args(call.positional[0].items(), i, errors)
            else:
                args = _norm_args(call.keywords, i, errors)
                positional = _norm_positional(call.positional, i, errors)
        elif isinstance(action, dict) and len(action) == 1:
            name, val = next(iter(action.items()))
            tool, app = _split_name(name)
            if isinstance(val, dict):
                args = _norm_args(val.items(), i, errors)
            else:
                positional = _norm_positional((val,), i, errors)
        else:
            errors.append(_err("T004", f"step {i} has no Action string",
                               "add \"Action\": \"ToolName({'param': 'value'})\"", i))
        if isinstance(st.get("App"), str) and st["App"] and app is None:
            app = st["App"]
        refs = _refs(args) + tuple(refs_in(positional))
        results = result_leaves(st.get("Results", st.get("Result")))
        steps.append(ToolStep(i, sid, tool, app, args, positional, (), refs, False, text, results))
    errors.extend(_disagreeing_totals(obj))
    count = _step_count(total)
    if total is not None and count is None:
        errors.append(_err("T008", f"TotalSteps {_clip(repr(total))} is not a number of steps",
                           "make TotalSteps the number of StepDetail entries (an integer)"))
    elif count is not None and count != len(details):
        errors.append(_err("T008", f"TotalSteps says {total} but the plan has {len(details)} steps",
                           "make TotalSteps equal to the number of StepDetail entries"))
    _check_ids(steps, errors)
    return ToolPlan("planningarena", tuple(steps), tuple(errors), garbled, count, header)


def _disagreeing_totals(obj: Any) -> list:
    """T008 when the elements of a one-element-per-step list (each repeats the plan's TotalSteps, as released)
    give different TotalSteps; the last one is the plan's."""
    if not isinstance(obj, list):
        return []
    totals = dict.fromkeys(_clip(repr(x["OrderSteps"]["TotalSteps"])) for x in obj[:MAX_STEPS + 1]
                           if isinstance(x, dict) and isinstance(x.get("OrderSteps"), dict)
                           and "TotalSteps" in x["OrderSteps"])
    if len(totals) < 2:
        return []
    return [_err("T008", f"the plan's elements disagree on TotalSteps ({', '.join(list(totals)[:5])})",
                 "give every element the same TotalSteps, the number of steps")]


def result_leaves(results: Any) -> tuple:
    """A step's simulated ``Results`` -> its scalar leaves as ((key, ...), value), depth-first, at most
    ``MAX_RESULT_LEAVES``; strings are stripped, empty strings, booleans and nulls are left out (they name
    nothing), numbers are normalised like argument values."""
    out: list = []
    stack: list = [((), results, 0)]
    while stack and len(out) < MAX_RESULT_LEAVES:
        path, v, depth = stack.pop()
        if depth > MAX_DEPTH:
            continue
        if isinstance(v, dict):
            stack.extend(((*path, str(k)), x, depth + 1) for k, x in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend((path, x, depth + 1) for x in reversed(v))
        elif isinstance(v, str) and v.strip():
            out.append((path, v.strip()))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            try:
                out.append((path, normalize_value(v)))
            except _Bad:
                continue
    return tuple(out)


def _step_count(v: Any) -> Optional[int]:
    """A declared TotalSteps (an integer, or ASCII digits) -> int; None when absent or not a count."""
    n = parse_int(v, limit=MAX_ID) if isinstance(v, str) else exact_int(v, limit=MAX_ID)
    return None if isinstance(n, NumberProblem) or n < 0 else n


# ----------------------------------------------------------------------------- helpers
def _placeholder(i: int, declares_after: bool) -> ToolStep:
    """An unreadable step keeps its position (``steps[k].index == k``) with an id no plan can name."""
    return ToolStep(i, -(i + 1), None, None, (), (), (), (), declares_after)


def _tname(v: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", int: "number", float: "number",
            type(None): "null"}.get(type(v), type(v).__name__)


def _clip(s: str, n: int = 60) -> str:
    return s if len(s) <= n else s[:n] + "..."


def _split_name(name: Any) -> tuple[Optional[str], Optional[str]]:
    if not isinstance(name, str) or not name.strip():
        return None, None
    name = name.strip()
    if "." in name:
        app, _, tool = name.rpartition(".")
        return tool or None, app or None
    return name, None


def _read_id(v: Any, i: int, errors: list, key: str) -> int:
    if v is None:
        return i + 1
    if isinstance(v, str) and not isinstance(parse_int(v, limit=MAX_ID), NumberProblem):
        v = parse_int(v, limit=MAX_ID)
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_ID:
        errors.append(_err("T005", f"step {i}: {key} {_clip(repr(v))} is not a step number",
                           f"give every step a positive integer {key}", i))
        return i + 1
    return v


def _read_after(v: Any, i: int, errors: list) -> tuple:
    if v is None:
        return ()
    if isinstance(v, int) and not isinstance(v, bool):
        v = [v]
    if not isinstance(v, list) or len(v) > MAX_STEPS:
        errors.append(_err("T006", f'step {i}: "after" is not a list of step ids',
                           'write "after": [1, 2] with the ids of the steps this one waits for', i))
        return ()
    out = []
    for x in v:
        if isinstance(x, str) and not isinstance(parse_int(x, limit=MAX_ID), NumberProblem):
            x = parse_int(x, limit=MAX_ID)
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= MAX_ID:
            errors.append(_err("T006", f'step {i}: "after" entry {_clip(repr(x))} is not a step id',
                               'list step ids (integers) in "after"', i))
            continue
        out.append(x)
    return tuple(dict.fromkeys(out))


def _norm_args(items: Any, i: int, errors: list) -> tuple:
    out = []
    for k, v in items:
        try:
            out.append((str(k), normalize_value(v)))
        except _Bad as bad:
            errors.append(_err("T009", f"step {i}: argument {str(k)!r}: {bad.message}",
                               "use plain strings, finite numbers, booleans, lists and objects", i))
        except RecursionError:
            errors.append(_err("T009", f"step {i}: argument {str(k)!r} is nested too deeply",
                               "use flat values", i))
    return tuple(out)


def _norm_positional(values: tuple, i: int, errors: list) -> tuple:
    named = _norm_args(((f"#{n}", v) for n, v in enumerate(values)), i, errors)
    return tuple(v for _, v in named)


def _refs(args: tuple) -> tuple:
    out: list = []
    for _, v in args:
        out.extend(refs_in(v))
    return tuple(dict.fromkeys(out))


def _check_ids(steps: list, errors: list) -> None:
    seen: dict = {}
    for st in steps:
        if st.id in seen:
            errors.append(_err("T005", f"step {st.index}: id {st.id} is used by step {seen[st.id]} too",
                               "give every step its own id", st.index))
        else:
            seen[st.id] = st.index


# ----------------------------------------------------------------------------- writers (for tests and docs)
def value_to_json(v: Any) -> Any:
    """A normalised value back to JSON-ready data (StepRef -> "$N.f")."""
    if isinstance(v, StepRef):
        return str(v)
    if isinstance(v, Fraction):
        return int(v) if v.denominator == 1 else float(v)
    if isinstance(v, tuple):
        return [value_to_json(x) for x in v]
    if isinstance(v, dict):
        return {k: value_to_json(x) for k, x in v.items()}
    return v


def value_to_literal(v: Any) -> str:
    """A normalised value as Python-literal text for a PlanningArena Action string."""
    if isinstance(v, StepRef):
        return repr(str(v))
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, Fraction):
        return str(int(v)) if v.denominator == 1 else repr(float(v))
    if isinstance(v, (int, str)):
        return repr(v)
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(value_to_literal(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {value_to_literal(x)}" for k, x in v.items()) + "}"
    return repr(str(v))
