"""APP operation steps: which app, element, text and direction a plan step operates on.

Input: the ``ir.Project``, the names of the apps the scenario offers, one read plan step whose name is an
operation (``Tap``, ``Text``, ``Swipe``, ``Back``/``Return``, ``Home``; ``compiler.appops``) and the app the
previous operation step worked in.  Output: an ``AppStep``: the operation, the resolved app (None when
unknown), the canonical arguments the grader compares with the reference (``app``, ``element``, ``text``,
``direction``; names, not labels) and the problems as ``(code, message, hint)``:

* T107 no app of that name (fictitious app); T108 the app is not offered, or has no screens (an API app);
* T109 no such element in the app (or on the named screen), or none named where one is needed;
* T207 the element does not accept the operation, or Back/Home given an element;
* T208 wrong arguments: unknown ones, no app named, Text without text, a direction not up/down/left/right.

Where things are read from, in order: the step's arguments (``{"Tap": {"app": "ctrip", "element":
"book_now"}}``, ``Tap(app='ctrip', element='book_now')``); the app prefix or ``App`` key
(``ctrip.Tap(...)``); the free text PlanningArena writes (``{"Tap": "Tap on the 'Book Now' button"}``: an
app, an element, whose name or label the text contains as whole words, the first mentioned (the longest
where several start at the same word); for Text the first
quoted string that is not an element label); the app of the previous operation step (after ``Home``, none).
Apps and elements may be named by name or label, without case.  A free-text Tap that names the app but no
element taps its icon (opens it).
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any, Optional

from chronoplan.compiler import appops, ir

_QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"|\u2018([^\u2019]+)\u2019|\u201c([^\u201d]+)\u201d")


@dataclass(frozen=True)
class AppStep:
    op: ir.AppOp
    app: Optional[str]                 # the resolved app's name (None: unknown or not needed)
    bound: dict                        # canonical arguments compared with the reference
    problems: tuple                    # (code, message, hint)

    @property
    def codes(self) -> set:
        return {p[0] for p in self.problems}


def _fold(s: str) -> str:
    return " ".join(re.findall(r"[0-9a-z]+", s.casefold().replace("_", " ")))


def _names(name: str, label: Optional[str]) -> tuple:
    return tuple(dict.fromkeys(x for x in (_fold(name), _fold(label or "")) if x))


def _find(text: str, candidates: list) -> Optional[Any]:
    """The candidate (obj, names) whose name occurs first in ``text`` as whole words (the longest at a place)."""
    folded = f" {_fold(text)} "
    best = None
    for obj, names in candidates:
        for n in names:
            at = folded.find(f" {n} ")
            if at >= 0 and (best is None or (at, -len(n)) < best[0]):
                best = ((at, -len(n)), obj)
    return None if best is None else best[1]


def _suggest(name: str, choices: list, what: str) -> str:
    close = difflib.get_close_matches(str(name)[:100], choices, n=1, cutoff=0.6)
    if close:
        return f"did you mean {close[0]!r}?"
    shown = ", ".join(choices[:12]) + (" ..." if len(choices) > 12 else "")
    return f"use a declared {what}: {shown}" if choices else f"no {what}s are declared"


def ui_apps(project: ir.Project) -> dict:
    """The project's apps with screens (APPs), by name."""
    return {n: a for n, a in project.apps.items() if a.has_ui}


def read_app_step(project: ir.Project, offered: tuple, st: Any, current: Optional[str]) -> AppStep:
    """Resolve one operation step (see the module docstring)."""
    op = appops.op_named(st.tool)
    assert op is not None
    tool = appops.op_tool(op)
    problems: list = []
    args = {k: v for k, v in st.args if v is not None}          # null reads as absent (the strict schema's form)
    free = " ".join(v for v in st.positional if isinstance(v, str))
    if any(not isinstance(v, str) for v in st.positional):
        problems.append(("T208", f"{tool.name} takes its arguments by name (app, element, ...) or one description "
                         "text", "write {\"app\": ..., \"element\": ...} or a sentence"))
    app_obj, mentioned, stop = _app(project, offered, op, args.pop("app", st.app), free, current, problems)
    if stop:
        return AppStep(op, None, {}, tuple(problems))
    bound: dict = {"app": app_obj.name} if app_obj is not None and op is not ir.AppOp.HOME else {}
    element = _element(app_obj, op, args, free, mentioned, problems)
    if element is not None:
        bound["element"] = element.name
    _own_args(app_obj, op, args, free, bound, problems)
    return AppStep(op, app_obj.name if app_obj is not None else None, bound, tuple(problems))


def _app(project: ir.Project, offered: tuple, op: ir.AppOp, named: Any, free: str, current: Optional[str],
         problems: list) -> tuple[Optional[ir.App], bool, bool]:
    """(the app, whether the step names it, whether the step cannot be read further: T107/T108)."""
    name = appops.op_tool(op).name
    apps = ui_apps(project)
    offered_ui = [a for a in offered if a in apps]
    if named is not None and not isinstance(named, str):
        problems.append(("T208", f"{name}: 'app' is {named!r}, not an app name", "name the app as text"))
        named = None
    app_obj: Optional[ir.App] = None
    if named is not None:
        app_obj = next((a for a in project.apps.values() if _fold(named) in _names(a.name, a.doc)), None)
        if app_obj is None:
            problems.append(("T107", f"there is no app {named!r}", _suggest(named, offered_ui, "app")))
            return None, True, True
    elif free:
        app_obj = _find(free, [(a, _names(a.name, a.doc)) for a in apps.values()])
    mentioned = app_obj is not None
    if app_obj is None and current is not None and op is not ir.AppOp.HOME:
        app_obj = apps.get(current)
    if app_obj is not None and not app_obj.has_ui:
        problems.append(("T108", f"app {app_obj.name!r} has no screens: it offers API tools, not {name} operations",
                         f"call its tools ({', '.join(app_obj.tools[:5])}) or operate one of: {', '.join(offered_ui)}"))
        return None, True, True
    if app_obj is not None and app_obj.name not in offered:
        problems.append(("T108", f"app {app_obj.name!r} is not offered in this scenario",
                         _suggest(app_obj.name, offered_ui, "app of the scenario")))
        return None, True, True
    if app_obj is None and op is not ir.AppOp.HOME:
        problems.append(("T208", f"{name} names no app, and no earlier operation opened one",
                         "name the app: {\"app\": \"...\"}, or open it first (Tap on its icon)"))
    return app_obj, mentioned, False


def _element(app: Optional[ir.App], op: ir.AppOp, args: dict, free: str, mentioned: bool,
             problems: list) -> Optional[ir.AppElement]:
    """The element the step operates on (None: none, or not found: T109/T207/T208 added)."""
    name = appops.op_tool(op).name
    screen = args.pop("screen", None)
    el_name = args.pop("element", None)
    if el_name is not None and op in (ir.AppOp.BACK, ir.AppOp.HOME):
        problems.append(("T207", f"{name} takes no element (it acts on the app, not on {el_name!r})",
                         f"drop the element, or use {'Tap' if op is ir.AppOp.BACK else 'Tap or Swipe'}"))
        return None
    if app is None or op in (ir.AppOp.BACK, ir.AppOp.HOME):
        return None
    candidates = [e for e in app.elements
                  if screen is None or (isinstance(screen, str) and _fold(screen) in _names(e.screen, None))]
    if screen is not None and not any(_fold(str(screen)) in _names(s.name, s.doc) for s in app.screens):
        problems.append(("T109", f"app {app.name!r} has no screen {screen!r}",
                         _suggest(str(screen), [s.name for s in app.screens], "screen")))
        return None
    element = None
    if el_name is not None and not isinstance(el_name, str):
        problems.append(("T208", f"{name}: 'element' is {el_name!r}, not an element name", "name the element as text"))
        return None
    if el_name is not None:
        element = next((e for e in candidates if _fold(el_name) in _names(e.name, e.label)), None)
        if element is None:
            where = f"screen {screen!r} of app {app.name!r}" if screen is not None else f"app {app.name!r}"
            problems.append(("T109", f"{where} has no element {el_name!r}",
                             _suggest(el_name, [e.name for e in candidates if op in e.ops],
                                      f"element accepting {name}")))
            return None
    elif free:
        element = _find(free, [(e, _names(e.name, e.label)) for e in candidates])
    if element is None:
        if op is ir.AppOp.TEXT or (op is ir.AppOp.TAP and free and not mentioned):
            problems.append(("T109", f"{name} names no element of app {app.name!r}",
                             "name one of: " + ", ".join(e.name for e in app.elements if op in e.ops)))
        return None
    if op not in element.ops:
        problems.append(("T207", f"element {element.name!r} of app {app.name!r} does not accept {name} (it accepts "
                         f"{', '.join(o.value for o in element.ops)})",
                         _suggest(element.name, [e.name for e in app.elements if op in e.ops],
                                  f"element accepting {name}")))
    return element


def _own_args(app: Optional[ir.App], op: ir.AppOp, args: dict, free: str, bound: dict, problems: list) -> None:
    """Text's text, Swipe's direction, and unknown arguments (T208)."""
    name = appops.op_tool(op).name
    if op is ir.AppOp.TEXT:
        text = args.pop("text", None)
        if text is None and free:
            labels = {n for e in (app.elements if app else ()) for n in _names(e.name, e.label)}
            text = next((q for m in _QUOTED.finditer(free) for q in m.groups() if q and _fold(q) not in labels), None)
        if not isinstance(text, str) or not text.strip():
            problems.append(("T208", "Text needs the text to type", "give \"text\": \"...\" (or quote it: "
                             "Enter 'Bangkok' in the search bar)"))
        else:
            bound["text"] = text
    if op is ir.AppOp.SWIPE and "direction" in args:
        d = args.pop("direction")
        if not isinstance(d, str) or d.strip().lower() not in appops.DIRECTIONS:
            problems.append(("T208", f"Swipe direction {d!r} is not one of {', '.join(appops.DIRECTIONS)}",
                             "use up, down, left or right"))
        else:
            bound["direction"] = d.strip().lower()
    for k in args:
        problems.append(("T208", f"{name} has no argument {k!r}",
                         "its arguments: " + (", ".join(p.name for p in appops.op_tool(op).params) or "none")))
