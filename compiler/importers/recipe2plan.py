"""Recipe2Plan importer: cooking.json -> chronoplan procedures and scenarios.

Input: one or more Recipe2Plan ``cooking.json`` files (a list of instances, each a list of recipes
``{"recipe": NAME, "steps": [...]}``).  Output: ``{"recipes.chrono": ..., "instances.chrono": ...}``:
global resources (oven with a temperature, microwave, stove, and any other object the data names), one
procedure per distinct recipe, and per instance a scenario ``<key>`` (with the time constraints) and
``<key>_easy`` (without them), both in seconds with one agent.  ``<key>`` joins the recipe names with
"_" as plan.json does (a key that is already a procedure's or resource's name, as a one-recipe instance's is,
gets a suffix: ``Toast_2``).

Lags live on procedure steps, so the procedures are written twice, under the same names, in two domains
(separate namespaces): ``recipes.chrono`` + ``instances.chrono`` (domain ``recipe2plan``, scenarios
``<key>``) and ``easy/recipes.chrono`` + ``easy/instances.chrono`` (domain ``recipe2plan_easy``, no time
constraints, scenarios ``<key>_easy``).  Plans name the original recipes in both.  Names that are not
valid chronoplan names are sanitized (the procedure title keeps the original).  The Recipe2Plan MIT licence
notice is copied into both files' header: from the LICENSE file beside the source when there is one that is a
regular UTF-8 file of at most 64 KiB inside the source's directory (a link is followed only within that
directory), else the notice bundled here, with a warning ``warn(file, item, message)`` saying why.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from chronoplan.compiler.importers import ImportFormatError
from chronoplan.compiler.importers.common import (
    Names,
    comment,
    language_number,
    number_problem,
    quote,
    read_beside,
    read_json,
)

LICENCE = """MIT License

Copyright (c) 2025 Zirui Wu

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE."""

# Recipe2Plan writes "30 sec", "5 min", "1 hour"; the chronoplan unit keeps the written magnitude.
_DURATION = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h)\.?\s*",
                       re.IGNORECASE | re.ASCII)
_STEP_NUMBER = re.compile(r"\s*([0-9]{1,10})\s*")
MAX_STEP = 10 ** 9
_UNITS = {"s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s", "m": "min", "min": "min",
          "mins": "min", "minute": "min", "minutes": "min", "h": "h", "hr": "h", "hrs": "h", "hour": "h",
          "hours": "h"}
STANDARD_RESOURCES = (("oven", ("temperature",)), ("microwave", ()), ("stove", ()))
DOMAIN = "recipe2plan"
Warn = Callable[[str, str, str], None]
EASY_SUFFIX = "_easy"


@dataclass(frozen=True)
class Use:
    obj: str
    needs: tuple[tuple[str, str], ...]       # (property, NUMBER literal)
    sets: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class R2PStep:
    index: int
    text: str
    duration: str                            # a chronoplan quantity, e.g. "30 s"
    autonomous: bool
    interruptible: bool
    after: tuple[int, ...]
    lags: tuple[tuple[int, str], ...]        # (other step, maximum lag quantity)
    uses: tuple[Use, ...]


@dataclass(frozen=True)
class R2PRecipe:
    name: str
    steps: tuple[R2PStep, ...]


# ------------------------------------------------------------------------------------ reading
def quantity(text: Any, where: str) -> str:
    """'30 sec' -> '30 s', '5 min' -> '5 min', '1 hour' -> '1 h' (ImportFormatError otherwise)."""
    if not isinstance(text, str):
        raise ImportFormatError(f"{where}: expected a duration string like \"5 min\", got {_show(text)}")
    m = _DURATION.fullmatch(text) if len(text) <= 200 else None
    if not m:
        raise ImportFormatError(f"{where}: cannot read the duration {_show(text)} (expected e.g. \"30 sec\", "
                                f"\"5 min\" or \"1 hour\", ASCII digits)")
    problem = number_problem(m.group(1))
    if problem is not None:
        raise ImportFormatError(f"{where}: the duration {_show(text)}: its number {problem}")
    return f"{m.group(1)} {_UNITS[m.group(2).lower()]}"


def _show(x: Any) -> str:
    s = repr(x)
    return s if len(s) <= 60 else s[:57] + "..."


def _flag(step: dict, key: str, where: str) -> bool:
    v = step.get(key, 0)
    if isinstance(v, bool) or (isinstance(v, (int, float)) and v in (0, 1)):
        return bool(v)
    raise ImportFormatError(f"{where}: {key!r} must be 0 or 1, got {_show(v)}")


def _int(v: Any, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise ImportFormatError(f"{where}: expected a step number, got {_show(v)}")
    if isinstance(v, str):
        m = _STEP_NUMBER.fullmatch(v)             # ASCII digits: str.isdigit() also takes "²", which int() refuses
        if m is None:
            raise ImportFormatError(f"{where}: expected a step number (ASCII digits), got {_show(v)}")
        v = int(m.group(1))
    if v < 0 or v > MAX_STEP:
        raise ImportFormatError(f"{where}: step number {v} out of range")
    return v


def _props(d: Any, where: str) -> tuple[tuple[str, str], ...]:
    if d is None:
        return ()
    if not isinstance(d, dict):
        raise ImportFormatError(f"{where}: expected an object of property values, got {_show(d)}")
    return tuple((k, language_number(v, f"{where}: property {_show(k)}")) for k, v in d.items())


def _step(s: Any, where: str) -> R2PStep:
    if not isinstance(s, dict):
        raise ImportFormatError(f"{where}: expected a step object, got {_show(s)}")
    for key in ("step", "text", "time"):
        if key not in s:
            raise ImportFormatError(f"{where}: missing {key!r}")
    index = _int(s["step"], f"{where}: 'step'")
    where = f"{where} (step {index})"
    if not isinstance(s["text"], str):
        raise ImportFormatError(f"{where}: 'text' must be a string, got {_show(s['text'])}")
    prereq = s.get("prequisites", s.get("prerequisites", []))
    if not isinstance(prereq, list):
        raise ImportFormatError(f"{where}: 'prequisites' must be a list of step numbers, got {_show(prereq)}")
    after = tuple(_int(p, f"{where}: 'prequisites'") for p in prereq)
    tc = s.get("time_constraint") or {}
    if not isinstance(tc, dict):
        raise ImportFormatError(f"{where}: 'time_constraint' must be an object, got {_show(tc)}")
    lags = tuple((_int(k, f"{where}: 'time_constraint' key"), quantity(v, f"{where}: 'time_constraint'"))
                 for k, v in tc.items())
    phys = s.get("physical") or {}
    if not isinstance(phys, dict):
        raise ImportFormatError(f"{where}: 'physical' must be an object, got {_show(phys)}")
    uses = []
    for obj, arg in phys.items():
        arg = arg or {}
        if not isinstance(arg, dict):
            raise ImportFormatError(f"{where}: 'physical'.{obj} must be an object, got {_show(arg)}")
        uses.append(Use(obj, _props(arg.get("require"), f"{where}: {obj}.require"),
                        _props(arg.get("update"), f"{where}: {obj}.update")))
    return R2PStep(index, s["text"], quantity(s["time"], f"{where}: 'time'"), _flag(s, "parallel", where),
                   _flag(s, "interrupt", where), after, lags, tuple(uses))


def _recipe(r: Any, where: str) -> R2PRecipe:
    if not isinstance(r, dict):
        raise ImportFormatError(f"{where}: expected a recipe object {{\"recipe\", \"steps\"}}, got {_show(r)}")
    name, steps = r.get("recipe"), r.get("steps")
    if not isinstance(name, str) or not name.strip():
        raise ImportFormatError(f"{where}: 'recipe' must be a non-empty string, got {_show(name)}")
    where = f"{where} ({name})"
    if not isinstance(steps, list) or not steps:
        raise ImportFormatError(f"{where}: 'steps' must be a non-empty list, got {_show(steps)}")
    parsed = tuple(_step(s, f"{where} step {i}") for i, s in enumerate(steps))
    indices = [s.index for s in parsed]
    for s in parsed:
        if indices.count(s.index) > 1:
            raise ImportFormatError(f"{where}: step {s.index} is defined twice")
        for other in s.after + tuple(o for o, _ in s.lags):
            if other not in indices:
                raise ImportFormatError(f"{where}: step {s.index} refers to step {other}, which does not exist")
    return R2PRecipe(name, parsed)


def read_instances(paths) -> tuple[list[R2PRecipe], list[tuple[str, ...]]]:
    """Recipes (each distinct name once, first definition) and instances (tuples of recipe names)."""
    recipes: dict = {}
    origin: dict = {}
    instances = []
    for path in paths:
        path = Path(path)
        data = read_json(path)
        if not isinstance(data, list):
            raise ImportFormatError(f"{path}: expected a list of instances (each a list of recipes), "
                                    f"got {type(data).__name__}")
        for i, inst in enumerate(data):
            where = f"{path}: instance {i}"
            if not isinstance(inst, list) or not inst:
                raise ImportFormatError(f"{where}: expected a non-empty list of recipes, got {_show(inst)}")
            names = []
            for j, r in enumerate(inst):
                rec = _recipe(r, f"{where} recipe {j}")
                if rec.name in recipes and recipes[rec.name] != rec:
                    raise ImportFormatError(f"{where}: recipe {rec.name!r} differs from its definition in "
                                            f"{origin[rec.name]}")
                recipes.setdefault(rec.name, rec)
                origin.setdefault(rec.name, where)
                names.append(rec.name)
            if len(set(names)) != len(names):
                raise ImportFormatError(f"{where}: a recipe appears twice in one instance")
            instances.append(tuple(names))
    if not instances:
        raise ImportFormatError("no instances in the input")
    return list(recipes.values()), instances


# ------------------------------------------------------------------------------------ writing
def licence(paths, warn: Optional[Warn] = None) -> str:
    """The licence notice: the first LICENSE file beside a source that ``read_beside`` accepts and that is
    not empty, else the bundled ``LICENCE``; a LICENSE that is refused (a link out of the source's
    directory, not a regular file, too large, not UTF-8) is reported through ``warn`` and skipped."""
    for p in paths:
        try:
            text = read_beside(Path(p), "LICENSE", "the licence file")
        except ImportFormatError as exc:
            if warn is not None:
                warn(str(Path(p).parent / "LICENSE"), "LICENSE", f"{exc}; the bundled Recipe2Plan notice is used")
            continue
        if text is not None and text.strip():
            return text.strip()
    return LICENCE


def _header(paths, what: str, notice: str) -> str:
    src = ", ".join(Path(p).name for p in paths)
    lines = [f"Generated by `chronoplan import recipe2plan` from {src}: {what}.",
             "Derived from the Recipe2Plan data set (WilliamZR/Recipe2Plan), under this licence:", ""]
    lines += notice.splitlines()
    return "\n".join(("# " + comment(ln, 400)).rstrip() for ln in lines)


def _step_line(s: R2PStep, lags: bool, res_names: dict, prop_names: dict) -> str:
    parts = [f"step {s.index}", quote(s.text), s.duration]
    if s.autonomous:
        parts.append("autonomous")
    if s.interruptible:
        parts.append("interruptible")
    if s.after:
        parts.append("after " + ", ".join(map(str, s.after)))
    if lags:
        parts += [f"within {q} of {o}" for o, q in s.lags]
    if s.uses:
        uses = []
        for u in s.uses:
            txt = res_names[u.obj]
            txt += "".join(f" needs {prop_names[(u.obj, k)]} = {v}" for k, v in u.needs)
            txt += "".join(f" sets {prop_names[(u.obj, k)]} = {v}" for k, v in u.sets)
            uses.append(txt)
        parts.append("uses " + ", ".join(uses))
    return "  " + " ".join(parts)


def _recipes_text(paths, recipes, lags: bool, domain: str, res_names: dict, props: dict, prop_names: dict,
                  proc: dict, notice: str) -> str:
    what = "with" if lags else "without"
    out = [_header(paths, f"resources and one procedure per recipe, {what} its time constraints", notice), "",
           f"domain {domain}", ""]
    for obj, ks in props.items():
        block = " { " + " ".join(f"{prop_names[(obj, k)]} = 0" for k in ks) + " }" if ks else ""
        out.append(f"resource {res_names[obj]} capacity 1{block}")
    for r in recipes:
        title = f" {quote(r.name)}" if proc[r.name] != r.name else ""
        out += ["", f"procedure {proc[r.name]}{title} {{"]
        out += [_step_line(s, lags, res_names, prop_names) for s in r.steps]
        out.append("}")
    return "\n".join(out) + "\n"


def _instances_text(paths, instances, lags: bool, domain: str, proc: dict, suffix: str, taken: set,
                    notice: str) -> str:
    what = "with" if lags else "without"
    lines = [_header(paths, f"one scenario per instance, {what} time constraints, in seconds", notice), "",
             f"domain {domain}", 'import "recipes.chrono"', ""]
    scen = Names()
    scen.taken |= taken                       # a scenario may not be named like a procedure or a resource
    for inst in instances:
        key = scen.claim("_".join(proc[n] for n in inst) + suffix, "instance")
        lines.append(f"scenario {key} {{ unit s  agents agent1  occupancy exclusive  "
                     f"procedures {', '.join(proc[n] for n in inst)} }}")
    return "\n".join(lines) + "\n"


def convert(sources, warn: Optional[Warn] = None) -> dict:
    """cooking.json path(s) -> {relative path: text} for OUT/{recipes,instances}.chrono (domain
    ``recipe2plan``, scenarios ``<key>``, with time constraints) and OUT/easy/{recipes,instances}.chrono
    (domain ``recipe2plan_easy``, the same procedure names without time constraints, scenarios
    ``<key>_easy``)."""
    paths = [Path(p) for p in sources]
    recipes, instances = read_instances(paths)
    names = Names()
    props: dict = {obj: list(ps) for obj, ps in STANDARD_RESOURCES}
    for r in recipes:
        for s in r.steps:
            for u in s.uses:
                lst = props.setdefault(u.obj, [])
                lst += [k for k in dict.fromkeys(k for k, _ in u.needs + u.sets) if k not in lst]
    res_names = {obj: names.claim(obj, "object") for obj in props}
    prop_names = {}
    for obj, ks in props.items():
        own = Names()                         # one namespace per resource: "a b" and "a_b" stay two properties
        prop_names.update({(obj, k): own.claim(k, "property") for k in ks})
    proc = {r.name: names.claim(r.name, "recipe") for r in recipes}
    notice = licence(paths, warn)
    return {
        "recipes.chrono": _recipes_text(paths, recipes, True, DOMAIN, res_names, props, prop_names, proc, notice),
        "instances.chrono": _instances_text(paths, instances, True, DOMAIN, proc, "", names.taken, notice),
        "easy/recipes.chrono": _recipes_text(paths, recipes, False, DOMAIN + EASY_SUFFIX, res_names, props,
                                             prop_names, proc, notice),
        "easy/instances.chrono": _instances_text(paths, instances, False, DOMAIN + EASY_SUFFIX, proc,
                                                 EASY_SUFFIX, names.taken, notice),
    }
