"""PlanningArena tool catalogue (+ tasks, user profiles) -> chronoplan tool-use files.

Input: ``tool_list.json`` (an object of groups: ``app_tools`` maps scenario names to app-name lists; every
other group maps tool names to a signature in one of two shapes: ``{"requiredParams": {p: {"type": T}},
"optionalParams": {...}}`` or ``{p: {"type": T, "required": bool}}``; an enum parameter may list its values
under "enum", "values" or "options"), optionally the tasks (``--tasks data.json``: a list of records with
"Task ID", "Operational Scenario", "Query-en", "User_ID", "GroundTruth" = a JSON string holding, as
released, ``[{header}, {"GlobalThought", "OrderSteps": {"TotalSteps": N, "StepDetail": {step 1}}}, ...]``:
one element per step, every one read; one element listing every step is read too) and a directory of user
profiles (``--profiles DIR``: ``user_N.json`` objects, picked by a task's "User_ID" ``UserN``; nested at
most ``MAX_PROFILE_DEPTH`` levels).
Output: ``{"tools.chrono": ..., "tasks.chrono": ...}`` (domain ``planningarena``): one app per API group,
one scenario per API task (offering every imported app) with its query, profile and the gold plan as the
reference.  What the source lacks or chronoplan cannot say is never dropped silently: each such item is
reported through ``warn(file, item, message)`` (the command prints ``chronoplan import: warning: ...``).
Errors (``ImportFormatError``: missing file, bad JSON, wrong shape) name the file and the item.
"""
from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Optional

from chronoplan.compiler.importers import ImportFormatError
from chronoplan.compiler.importers.common import Names, number, quote, read_json
from chronoplan.compiler.numparse import MAX_DIGITS, NumberProblem, parse_decimal
from chronoplan.validators.tools.read import read_tool_plan
from chronoplan.validators.tools.refs import StepRef, refs_in
from chronoplan.validators.tools.values import format_ok

DOMAIN = "planningarena"
TYPES = {"str": "str", "string": "str", "text": "str", "int": "int", "integer": "int", "number": "number",
         "float": "number", "double": "number", "bool": "bool", "boolean": "bool", "date": "date",
         "datetime": "datetime", "time": "time", "email": "email", "list": "list[any]", "array": "list[any]",
         "object": "any", "dict": "any", "any": "any"}
ENUM_KEYS = ("enum", "values", "options")
SHAPE_A = ("requiredParams", "optionalParams")
MAX_PROFILE_DEPTH = 20          # nested objects/lists in a user profile
_CLOCK = re.compile(r"([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d)?")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")

Warn = Callable[[str, str, str], None]


@dataclass
class ImportedParam:
    """A parameter of an imported PlanningArena tool, before it becomes chronoplan text (not ``ir.Param``)."""

    name: str                      # chronoplan name
    type: str                      # chronoplan type text
    required: bool
    values: tuple = ()             # enum values


@dataclass
class ImportedTool:
    """A PlanningArena tool being imported, before it becomes chronoplan text (not ``ir.Tool``)."""

    name: str                      # chronoplan name
    app: str
    params: list = field(default_factory=list)
    by_key: dict = field(default_factory=dict)   # source key (as written and stripped) -> ImportedParam


def _warner(warn: Optional[Warn]) -> Warn:
    if warn is not None:
        return warn
    return lambda f, item, msg: None


def _type_word(t: str) -> str:
    """"Date (yyyy-mm-dd)" -> "date"; "String" -> "string"."""
    return re.split(r"[\s(]", t.strip().lower(), maxsplit=1)[0] if t.strip() else ""


def _is_date(s: Any) -> bool:
    if not isinstance(s, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
        return False
    try:
        _dt.date.fromisoformat(s)
        return True
    except ValueError:
        return False


# ----------------------------------------------------------------------------- catalogue
def _param(spec: Any, key: str, required: bool, where: str, fname: str, warn: Warn, names: Names,
           tool_item: str) -> ImportedParam:
    if not isinstance(spec, dict):
        raise ImportFormatError(f"{where}: parameter {key!r} must be an object such as {{\"type\": \"str\"}}, "
                                f"got {type(spec).__name__}")
    item = f"{tool_item}.{key!r}"
    if key != key.strip():
        warn(fname, item, f"parameter name has leading or trailing spaces; imported as {key.strip()!r}")
    stripped = key.strip()
    name = names.claim(stripped, "param")
    if name != stripped:
        warn(fname, item, f"parameter name is not an identifier (or is used twice); imported as '{name}'")
    raw = spec.get("type")
    if not isinstance(raw, str) or not raw.strip():
        warn(fname, item, "parameter has no type; imported as 'any'")
        return ImportedParam(name, "any", required)
    word = _type_word(raw)
    if word == "enum":
        vals = next((spec[k] for k in ENUM_KEYS if k in spec), None)
        if isinstance(vals, list):
            good = [v for v in vals if isinstance(v, (str, int)) and not isinstance(v, bool) and str(v) != ""]
            if len(good) != len(vals):
                warn(fname, item, "enum values that are not strings or integers are left out")
            uniq = tuple(dict.fromkeys(str(v) for v in good))
            if uniq:
                return ImportedParam(name, "enum", required, uniq)
        warn(fname, item, "enum lists no values; imported as 'str' (any string is accepted)")
        return ImportedParam(name, "str", required)
    if word not in TYPES:
        warn(fname, item, f"unknown type {raw!r}; imported as 'any'")
        return ImportedParam(name, "any", required)
    return ImportedParam(name, TYPES[word], required)


def _tool(name: str, spec: Any, app: str, where: str, fname: str, warn: Warn, tool_names: Names) -> ImportedTool:
    if not isinstance(spec, dict):
        raise ImportFormatError(f"{where}: tool {name!r} must be an object of parameters, got {type(spec).__name__}")
    item = f"tool {name!r}"
    if name != name.strip():
        warn(fname, item, f"tool name has leading or trailing spaces; imported as {name.strip()!r}")
    cname = tool_names.claim(name.strip(), "tool")
    if cname != name.strip():
        warn(fname, item, f"tool name is not an identifier (or is used twice); imported as '{cname}' "
                          f"(plans must call it '{cname}')")
    tool = ImportedTool(cname, app)
    pnames = Names()
    entries: list = []
    if any(k in spec for k in SHAPE_A):
        extra = [k for k in spec if k not in SHAPE_A]
        if extra:
            warn(fname, item, "keys other than requiredParams/optionalParams are ignored: "
                              + ", ".join(map(repr, extra)))
        for group, req in (("requiredParams", True), ("optionalParams", False)):
            ps = spec.get(group, {})
            if ps is None:
                continue
            if not isinstance(ps, dict):
                raise ImportFormatError(f"{where}: tool {name!r}: {group} must be an object, got {type(ps).__name__}")
            entries.extend((k, v, req) for k, v in ps.items())
    else:
        for k, v in spec.items():
            flag = v.get("required") if isinstance(v, dict) else None
            if not isinstance(flag, bool):
                warn(fname, f"{item}.{k!r}", "no \"required\": true|false flag; imported as optional")
                flag = False
            entries.append((k, v, flag))
    for k, v, req in entries:
        p = _param(v, k, req, f"{where}: tool {name!r}", fname, warn, pnames, item)
        tool.params.append(p)
        tool.by_key.setdefault(k, p)
        tool.by_key.setdefault(k.strip(), p)
        tool.by_key.setdefault(p.name, p)
    warn(fname, item, "declares no return fields; a gold step using its output is written '_' after that step")
    return tool


def _tool_text(t: ImportedTool) -> str:
    ps = []
    for p in t.params:
        typ = "enum(" + ", ".join(quote(v) for v in p.values) + ")" if p.type == "enum" else p.type
        ps.append(f"{p.name}{'' if p.required else '?'}: {typ}")
    return f"  tool {t.name}(" + ", ".join(ps) + ")"


def read_catalogue(data: Any, fname: str, warn: Warn) -> tuple[dict, dict, str]:
    """tool_list data -> (source tool name -> ImportedTool, app name -> [ImportedTool], tools.chrono text)."""
    if not isinstance(data, dict):
        raise ImportFormatError(f"{fname}: expected a JSON object of tool groups (app_tools, travel_tools, ...), "
                                f"got {type(data).__name__}")
    names = Names()
    tools: dict = {}
    apps: dict = {}
    for group, body in data.items():
        where = f"{fname}: {group}"
        if group == "app_tools":
            if not isinstance(body, dict) or not all(isinstance(v, list) for v in body.values()):
                raise ImportFormatError(f"{where}: expected an object of scenario name -> list of app names")
            n = sum(len(v) for v in body.values())
            warn(fname, "app_tools", f"{n} app names in {len(body)} scenarios describe no operations; not imported "
                                     "(an APP is graded against its declared screens and elements, which the "
                                     "source lacks)")
            continue
        if not isinstance(body, dict):
            raise ImportFormatError(f"{where}: expected an object of tool name -> parameters, "
                                    f"got {type(body).__name__}")
        app = names.claim(group.strip(), "app")
        if app != group:
            warn(fname, f"group {group!r}", f"group name is not an identifier; its app is named '{app}'")
        apps[app] = []
        for tname, spec in body.items():
            if tname in tools:
                warn(fname, f"tool {tname!r}", f"declared again in group {group!r}; the first declaration is kept")
                continue
            t = _tool(tname, spec, app, where, fname, warn, names)
            tools[tname] = t
            tools.setdefault(tname.strip(), t)
            tools.setdefault(t.name, t)
            apps[app].append(t)
        if not apps[app]:
            warn(fname, f"group {group!r}", "has no tools; not imported")
            del apps[app]
    lines = [_comment(f"Imported from the PlanningArena tool catalogue {Path(fname).name} "
                      "by `chronoplan import planningarena`."),
             "# One app per API group. The catalogue declares no return fields.", f"domain {DOMAIN}", ""]
    for app, ts in apps.items():
        lines.append(f"app {app} {{")
        lines.extend(_tool_text(t) for t in ts)
        lines += ["}", ""]
    return tools, apps, "\n".join(lines)


# ----------------------------------------------------------------------------- values
def _literal(v: Any, p: ImportedParam) -> Optional[str]:
    """A reference-call literal of value ``v`` (normalised, see validators.tools.read) for ``p``; None when it
    does not fit."""
    t = p.type
    if t == "any":
        return _any_literal(v)
    if t.startswith("list"):
        if not isinstance(v, tuple):
            return None
        items = [_any_literal(x) for x in v]
        return None if any(x is None for x in items) else "[" + ", ".join(items) + "]"  # type: ignore[arg-type]
    if t == "enum":
        if isinstance(v, (str, int)) and not isinstance(v, bool) and str(v) in p.values:
            return quote(str(v))
        return None
    if t == "str":
        return quote(v) if isinstance(v, str) else None
    if t == "int":
        return _num(v) if isinstance(v, int) and not isinstance(v, bool) else None
    if t == "number":
        return _num(v)
    if t == "bool":
        return ("true" if v else "false") if isinstance(v, bool) else None
    if t == "date":
        return v if _is_date(v) else None
    if t == "time":
        return v if isinstance(v, str) and _CLOCK.fullmatch(v) else None
    if t == "datetime":
        return quote(v) if isinstance(v, str) and format_ok("datetime", v) else None
    if t == "email":
        return quote(v) if isinstance(v, str) and _EMAIL.match(v) else None
    return None


def _num(v: Any) -> Optional[str]:
    """A NUMBER literal for an int, float or Fraction; None when there is none the compiler accepts (NaN, an
    infinity, more than the language's MAX_DIGITS digits: C111)."""
    if isinstance(v, bool) or not isinstance(v, (int, float, Fraction)):
        return None
    try:
        text = number(v)
    except ValueError:
        return None
    return None if isinstance(parse_decimal(text.lstrip("-"), limit=10 ** MAX_DIGITS), NumberProblem) else text


def _any_literal(v: Any) -> Optional[str]:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return quote(v)
    if isinstance(v, (int, Fraction)):
        return _num(v)
    if isinstance(v, tuple):
        items = [_any_literal(x) for x in v]
        return None if any(x is None for x in items) else "[" + ", ".join(items) + "]"  # type: ignore[arg-type]
    return None


def _profile_value(v: Any, depth: int = 0) -> Optional[str]:
    """A profile value as a chronoplan literal; None when it cannot be written (lists nested deeper than
    MAX_PROFILE_DEPTH included)."""
    if isinstance(v, str) and _is_date(v):
        return v
    if isinstance(v, float):
        return _num(v)
    if isinstance(v, list):
        if depth >= MAX_PROFILE_DEPTH:
            return None
        items = [_profile_value(x, depth + 1) for x in v]
        return None if any(x is None for x in items) else "[" + ", ".join(items) + "]"  # type: ignore[arg-type]
    return _any_literal(v)


# ----------------------------------------------------------------------------- tasks
def _profile_items(data: Any, fname: str, warn: Warn) -> list:
    """A profile object -> ``name = literal`` lines; nested objects are flattened (``home.city`` ->
    ``home_city``); ImportFormatError, naming the key, for objects nested deeper than MAX_PROFILE_DEPTH."""
    if not isinstance(data, dict):
        raise ImportFormatError(f"{fname}: a user profile must be a JSON object, got {type(data).__name__}")
    names, items = Names(), []

    def walk(obj: dict, prefix: str, depth: int) -> None:
        for k, v in obj.items():
            key = f"{prefix}{str(k).strip()}"
            if isinstance(v, dict):
                if depth + 1 >= MAX_PROFILE_DEPTH:
                    raise ImportFormatError(f"{fname}: profile key {_clip(key)!r}: objects nested deeper than "
                                            f"{MAX_PROFILE_DEPTH} levels (a profile is flattened into names)")
                walk(v, key + "_", depth + 1)
                continue
            name = names.claim(key, "item")
            if name != str(k) and not prefix:
                warn(fname, repr(k), f"profile key is not an identifier (or is used twice); imported as '{name}'")
            elif prefix and name != key:
                warn(fname, repr(key), f"profile key is not an identifier; imported as '{name}'")
            lit = None if v is None else _profile_value(v)
            if lit is None:
                names.taken.discard(name)
                warn(fname, repr(key), "profile value is null or cannot be written (a list of objects, or "
                                       f"lists nested deeper than {MAX_PROFILE_DEPTH} levels?); left out")
                continue
            items.append(f"{name} = {lit}")
    walk(data, "", 0)
    return items


def _clip(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[:n] + "..."


def _load_profile(profiles: Path, user: Any, task_item: str, tfile: str, warn: Warn) -> Optional[list]:
    m = re.fullmatch(r"\s*user[ _-]?([0-9]{1,9})\s*", user, re.I) if isinstance(user, str) else None
    if m is None:
        shown = _clip(repr(user)) if isinstance(user, str) else f"(a {type(user).__name__})"
        warn(tfile, task_item, f"User_ID {shown} names no single user (User followed by at most 9 digits); "
                               "no profile")
        return None
    path = profiles / f"user_{int(m.group(1))}.json"
    if not path.exists():
        warn(tfile, task_item, f"no profile file {path}; no profile")
        return None
    return _profile_items(read_json(path), str(path), warn)


def _gold_plan(gt: Any, task_item: str, tfile: str, warn: Warn) -> tuple[Any, Optional[str]]:
    """GroundTruth -> (the plan elements for the tool-plan reader or None, the header's Query or None).

    The released tasks hold a list: a header ``{"MessageNumber", "Query"}``, then ONE ELEMENT PER STEP, each
    ``{"GlobalThought", "OrderSteps": {"TotalSteps": n, "StepDetail": {one step}}}``; a single plan element
    whose StepDetail lists every step is read too.  Every plan element is kept (the reader merges them)."""
    if isinstance(gt, str):
        try:
            gt = json.loads(gt)
        except (ValueError, RecursionError) as exc:
            warn(tfile, task_item, f"GroundTruth is not JSON ({str(exc)[:80]}); no reference plan")
            return None, None
    items = gt if isinstance(gt, list) else [gt]
    header = next((x for x in items if isinstance(x, dict) and not _is_plan_element(x)), None)
    query = header.get("Query") if isinstance(header, dict) and isinstance(header.get("Query"), str) else None
    if query is not None and len(query) > 1 and query[0] == query[-1] == '"':
        query = query[1:-1]             # the released headers wrap the query in quotes
    plan = [x for x in items if isinstance(x, dict) and _is_plan_element(x)]
    if not plan:
        warn(tfile, task_item, "GroundTruth holds no plan with OrderSteps; no reference plan")
        return None, query
    return plan, query


def _is_plan_element(x: dict) -> bool:
    return "OrderSteps" in x or "StepDetail" in x


def _renamed_actions(obj: Any, tools: dict, depth: int = 0) -> Any:
    """A copy of the plan whose Action strings call non-identifier tool names ("1688DataHub(...)") by their
    imported names, so the Action parser can read them."""
    if depth > 40:
        return obj
    if isinstance(obj, list):
        return [_renamed_actions(x, tools, depth + 1) for x in obj]
    if not isinstance(obj, dict):
        return obj
    out = {k: _renamed_actions(v, tools, depth + 1) for k, v in obj.items()}
    action = obj.get("Action")
    if isinstance(action, str):
        m = re.match(r"\s*([^(\s][^(]*?)\s*\(", action)
        if m and m.group(1) in tools and tools[m.group(1)].name != m.group(1):
            out["Action"] = tools[m.group(1)].name + action[m.end() - 1:]
    return out


def _step_args(st: Any, tool: ImportedTool, sid: int, ids: dict, item: str, tfile: str, warn: Warn) -> tuple[dict, set]:
    """One gold step's arguments as {param: literal} and the steps whose outputs it uses."""
    args: dict = {}
    after: set = set()
    bound = list(zip([p.name for p in tool.params], st.positional))
    if len(st.positional) > len(tool.params):
        warn(tfile, item, f"{len(st.positional) - len(tool.params)} extra positional values left out")
    pairs = [(k2, v) for k2, v in st.args] + bound
    for key, v in pairs:
        p = tool.by_key.get(key) or tool.by_key.get(key.strip())
        if p is None:
            warn(tfile, item, f"parameter {key!r} is not a parameter of '{tool.name}'; left out")
            continue
        if p.name in args:
            warn(tfile, item, f"parameter {key!r} given twice; the first value is kept")
            continue
        refs = refs_in(v)
        if refs:
            for r in refs:
                if r.step in ids and ids[r.step] < sid:
                    after.add(ids[r.step])
                else:
                    warn(tfile, item, f"argument {key!r} uses the output of step {r.step}, which does not come "
                                      "before it; written '_' without a dependency")
            args[p.name] = "_"
            continue
        lit = None if v is None or isinstance(v, StepRef) else _literal(v, p)
        if lit is None:
            fill = " written '_' (any value)" if p.required else " left out"
            why = " (a date where a datetime is declared)" if p.type == "datetime" and _is_date(v) else \
                f" (more than {MAX_DIGITS} digits)" if isinstance(v, (int, Fraction)) and not isinstance(v, bool) \
                and _num(v) is None else ""
            warn(tfile, item, f"value {v!r} of {key!r} does not fit its type {p.type}"
                              f"{' ' + repr(p.values) if p.values else ''}{why};{fill}")
            if p.required:
                args[p.name] = "_"
            continue
        args[p.name] = lit
    return args, after


def _reference(plan: Any, tools: dict, task_item: str, tfile: str, warn: Warn) -> Optional[list]:
    """The gold plan's reference-call lines, or None (with warnings) when it cannot be a reference."""
    tp = read_tool_plan(_renamed_actions(plan, tools), "planningarena")
    for e in tp.errors:
        warn(tfile, task_item, f"gold plan: {e.code}: {e.message}")
    if tp.garbled or not tp.steps or any(e.code in ("T002", "T003", "T004", "T005", "T007") for e in tp.errors):
        warn(tfile, task_item, "the gold plan cannot be read as tool calls; no reference plan")
        return None
    ids = {st.id: k + 1 for k, st in enumerate(tp.steps)}
    lines, ok = [], True
    for k, st in enumerate(tp.steps):
        sid, item = k + 1, f"{task_item} step {st.id}"
        tool = tools.get(st.tool) if st.tool else None
        if tool is None and st.tool:
            tool = tools.get(st.tool.strip())
        if tool is None:
            warn(tfile, item, f"calls {st.tool!r}, which the catalogue does not declare; no reference plan")
            ok = False
            continue
        args, after = _step_args(st, tool, sid, ids, item, tfile, warn)
        for p in tool.params:
            if p.required and p.name not in args:
                warn(tfile, item, f"misses required parameter '{p.name}' of '{tool.name}'; written '_' (any value)")
                args[p.name] = "_"
        text = f"    {sid}: {tool.name}(" + ", ".join(f"{n} = {v}" for n, v in args.items()) + ")"
        if after:
            text += " after " + ", ".join(str(a) for a in sorted(after))
        lines.append(text)
    return lines if ok else None


def _comment(text: str) -> str:
    """A one-line comment (control characters, newlines included, become spaces)."""
    return "# " + re.sub(r"[\x00-\x1f\x7f\x85\u2028\u2029]", " ", text)[:300]


def _task_id(rec: dict, i: int, tfile: str, warn: Warn) -> tuple[Any, str]:
    """A task's "Task ID" (a string or an integer; else its index ``i``, with a warning) and its item name."""
    tid = rec.get("Task ID")
    if tid is not None and (isinstance(tid, bool) or not isinstance(tid, (str, int))):
        warn(tfile, f"task [{i}]", f"\"Task ID\" is a {type(tid).__name__}, not a string or an integer; "
                                   f"named task_{i}")
        tid = i
    task_item = f"task {_clip(repr(tid))}" if tid is not None else f"task [{i}]"
    if tid is None:
        warn(tfile, task_item, f"no \"Task ID\"; named task_{i}")
        tid = i
    return tid, task_item


def read_tasks(data: Any, tools: dict, apps: dict, tfile: str, profiles: Optional[Path], warn: Warn) -> str:
    if not isinstance(data, list):
        raise ImportFormatError(f"{tfile}: expected a JSON list of task records, got {type(data).__name__}")
    names = Names()
    out = [_comment(f"Imported from the PlanningArena tasks {Path(tfile).name} by `chronoplan import planningarena`."),
           f"domain {DOMAIN}", 'import "tools.chrono"', ""]
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            raise ImportFormatError(f"{tfile}: [{i}]: a task must be an object, got {type(rec).__name__}")
        tid, task_item = _task_id(rec, i, tfile, warn)
        if rec.get("Operational Scenario") == "APP":
            warn(tfile, task_item, "an APP task (phone operations such as Tap/Text/Swipe); not imported: its apps "
                                     "declare no screens or elements")
            continue
        if not apps:
            warn(tfile, task_item, "the catalogue has no API tools to offer; not imported")
            continue
        scen = names.claim(f"task_{tid}", "task")
        if scen != f"task_{tid}":
            warn(tfile, task_item, f"\"Task ID\" is not an identifier (or is used twice); the scenario is '{scen}'")
        plan, header_query = _gold_plan(rec["GroundTruth"], task_item, tfile, warn) if "GroundTruth" in rec \
            else (None, None)
        if "GroundTruth" not in rec:
            warn(tfile, task_item, "no GroundTruth; no reference plan")
        query = rec.get("Query-en")
        if not isinstance(query, str) or not query.strip():
            query = header_query
            warn(tfile, task_item, "no \"Query-en\"" + ("; the GroundTruth header's Query is used" if query else
                                                       "; the scenario has no query"))
        profile = None
        if profiles is not None:
            if rec.get("User_ID") in (None, ""):
                warn(tfile, task_item, "no User_ID; no profile")
            else:
                profile = _load_profile(profiles, rec.get("User_ID"), task_item, tfile, warn)
        ref = _reference(plan, tools, task_item, tfile, warn) if plan is not None else None
        meta = ", ".join(f"{k} {rec[k]}" for k in ("Scenario", "Relation", "Struct", "level", "User_ID")
                         if isinstance(rec.get(k), (str, int)) and not isinstance(rec.get(k), bool))
        out.append(_comment(f"Task ID {tid}" + (f" ({meta})" if meta else "")))
        out.append(f"scenario {scen} {{")
        out.append("  apps " + ", ".join(apps))
        if query:
            out.append(f"  query {quote(query)}")
        if profile:
            out.append("  profile {")
            out.extend(f"    {x}" for x in profile)
            out.append("  }")
        if ref:
            out.append("  reference {")
            out.extend(ref)
            out.append("  }")
        out += ["}", ""]
    return "\n".join(out)


def convert(sources: list, tasks: Optional[str] = None, profiles: Optional[str] = None,
            warn: Optional[Warn] = None) -> dict:
    """tool_list.json (+ tasks file, profiles directory) -> {"tools.chrono", "tasks.chrono"?: text}."""
    w = _warner(warn)
    if len(sources) != 1:
        raise ImportFormatError(f"planningarena takes one tool list file (tasks with --tasks), got {len(sources)}")
    path = Path(sources[0])
    tools, apps, text = read_catalogue(read_json(path), str(path), w)
    files = {"tools.chrono": text}
    if profiles is not None:
        pdir = Path(profiles)
        if not pdir.is_dir():
            raise ImportFormatError(f"--profiles {pdir}: not a directory")
        if tasks is None:
            raise ImportFormatError("--profiles needs --tasks (profiles are attached to tasks by User_ID)")
    if tasks is not None:
        tpath = Path(tasks)
        files["tasks.chrono"] = read_tasks(read_json(tpath), tools, apps, str(tpath),
                                           Path(profiles) if profiles is not None else None, w)
    return files
