"""The operating space of APP plans as tool signatures.

Input: an operation name as a plan or a reference plan writes it (``Tap``, ``tap``, ``Return``...).
Output: the ``ir.AppOp`` (``op_named``) and the signature an operation step is checked and compared with
(``op_tool``: an ``ir.Tool`` named after the operation, app None):

    Tap(app, element?)                      no element: the app's icon (open the app)
    Text(app, element, text: str)           type ``text`` into the element
    Swipe(app, element?, direction?: up|down|left|right)
    Back(app?)                              PlanningArena's "return"
    Home()

``app`` and ``element`` are names compared exactly (kind ``enum`` without a closed value list); the
grader resolves labels ("Book Now") to names before it compares.  Used by the checker for reference plans
and by ``validators.tools.app`` for plans.
"""
from __future__ import annotations

from typing import Optional

from chronoplan.compiler import ir

DIRECTIONS = ("up", "down", "left", "right")
_NAME = ir.ParamType("enum", ())
_ALIASES = {"return": ir.AppOp.BACK, "input": ir.AppOp.TEXT, "type": ir.AppOp.TEXT}


def _p(name: str, ptype: ir.ParamType, required: bool) -> ir.ToolParam:
    return ir.ToolParam(name, ptype, required)


OP_TOOLS: dict = {
    ir.AppOp.TAP: ir.Tool("Tap", None, (_p("app", _NAME, True), _p("element", _NAME, False)), (),
                          "tap an element, or the app's icon to open it"),
    ir.AppOp.TEXT: ir.Tool("Text", None, (_p("app", _NAME, True), _p("element", _NAME, True),
                                          _p("text", ir.ParamType("str"), True)), (), "type text into an element"),
    ir.AppOp.SWIPE: ir.Tool("Swipe", None, (_p("app", _NAME, True), _p("element", _NAME, False),
                                            _p("direction", ir.ParamType("enum", DIRECTIONS), False)), (),
                            "scroll an element or the screen"),
    ir.AppOp.BACK: ir.Tool("Back", None, (_p("app", _NAME, False),), (), "go back one screen"),
    ir.AppOp.HOME: ir.Tool("Home", None, (), (), "go to the phone's home screen"),
}


def op_named(name: object) -> Optional[ir.AppOp]:
    """The operation a name stands for (case-insensitive; ``Return`` is ``Back``, ``Input``/``Type`` are
    ``Text``), or None."""
    if not isinstance(name, str):
        return None
    key = name.strip().lower()
    return next((op for op in ir.AppOp if op.value.lower() == key), None) or _ALIASES.get(key)


def op_tool(op: ir.AppOp) -> ir.Tool:
    return OP_TOOLS[op]
