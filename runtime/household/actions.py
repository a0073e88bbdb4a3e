"""High-level household actions: the record, the catalogue of an episode, texts in both syntaxes (issue #13).

Input: a ``compiler.household.problem.HouseholdProblem`` and action texts.  Output: ``Action`` (a frozen
record: ``kind``, ``target``, ``place``, ``text``), ``catalogue(problem)`` (every action of the episode in a
fixed order: the PettingZoo action space), ``render(action, problem, syntax, held)`` (the text an agent is
shown) and ``parse(text, problem)`` (an ``Action`` or a ``ParseFailure``; never raises).

Texts (``ActionSyntax.CWAH`` / ``ActionSyntax.TDW``; the parser reads both, whatever the episode shows):

- explore a room: ``[goexplore] <kitchen> (2)`` / ``explore current room <kitchen>``;
- walk to a room: ``[goto] <kitchen> (2)`` (ours) / ``go to <kitchen>``;
- open a container: ``[gocheck] <fridge> (5)`` / ``go check container <fridge> (5)`` (ours);
- grasp: ``[gograb] <cupcake1> (12)`` / ``go grasp target object <apple1> (7)``, a basket
  ``go grasp container <basket1> (9)``;
- put: ``[goput] <coffeetable> (6)`` (the first thing held) or ``[goput] <cupcake1> (12) <coffeetable> (6)`` /
  ``put <apple1> (7) into the container <basket1> (9)``, on a surface ``put <apple1> (7) on the <sofa> (4)`` (ours);
- put everything held on the goal place: ``[transport]`` (ours) / ``transport objects I'm holding to the
  <coffeetable>`` (``to the bed`` when the goal place is called bed);
- message: ``[send_message] <text>`` / ``send a message: text``;
- do nothing for a step: ``[wait]`` / ``wait``.

A name may be followed by its ``(id)`` (``problem.ids``) or given by the id alone (``<> (7)`` is not needed:
``(7)`` alone is read); a name and an id that disagree are refused.
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Optional, Union

from chronoplan.compiler.household.problem import HouseholdProblem
from chronoplan.compiler.ir import ActionSyntax, PlaceKind


class ActKind(enum.Enum):
    EXPLORE = "explore"
    GOTO = "goto"
    CHECK = "check"
    GRAB = "grab"
    PUT = "put"
    TRANSPORT = "transport"
    SEND = "send"
    WAIT = "wait"

    # members are singletons compared by identity: the identity hash agrees with equality and, unlike
    # Enum.__hash__ (hash of the name, in Python), costs no Python call when an Action is hashed
    __hash__ = object.__hash__


@dataclass(frozen=True)
class Action:
    """One high-level action.  ``target``: the room (explore, goto), container (check), thing or basket (grab,
    put; None for C-WAH's ``[goput] <place>``: the first thing held); ``place``: where a put puts;
    ``text``: a message (empty in the catalogue: the engine sends a summary of the agent's knowledge)."""

    kind: ActKind
    target: Optional[str] = None
    place: Optional[str] = None
    text: str = ""


WAIT = Action(ActKind.WAIT)


@dataclass(frozen=True)
class ParseFailure:
    """An action text that names no action of the episode: why, and whether a name was unknown."""

    message: str
    unknown_name: bool = False


def catalogue(problem: HouseholdProblem) -> tuple[Action, ...]:
    """Every action of the episode, in a fixed order (the Discrete action space): explore (and, in TDW
    syntax, goto) each room, check each container, grab each thing and basket, put each thing or basket in or
    on each place that can take it, transport (TDW), send (a knowledge summary) and wait."""
    tdw = problem.syntax == ActionSyntax.TDW
    out = [Action(ActKind.EXPLORE, r) for r in problem.rooms]
    if tdw:
        out += [Action(ActKind.GOTO, r) for r in problem.rooms]
    out += [Action(ActKind.CHECK, c) for c in problem.containers]
    movable = (*problem.things, *problem.baskets)
    out += [Action(ActKind.GRAB, x) for x in movable]
    for x in movable:
        for p, place in problem.places.items():
            if p != x and not (x in problem.places and place.kind == PlaceKind.BASKET):
                out.append(Action(ActKind.PUT, x, p))
    if tdw and problem.goal_place is not None:
        out.append(Action(ActKind.TRANSPORT))
    out += [Action(ActKind.SEND), WAIT]
    return tuple(out)


# ---------------------------------------------------------------------------------------------- rendering
def _named(problem: HouseholdProblem, name: Optional[str]) -> str:
    if name is None:
        return "<?>"
    i = problem.ids.get(name)
    return f"<{name}> ({i})" if i is not None else f"<{name}>"


def _goal_phrase(problem: HouseholdProblem) -> str:
    return f"<{problem.goal_place}>" if problem.goal_place != "bed" else "bed"


def render(action: Action, problem: HouseholdProblem, syntax: Optional[ActionSyntax] = None,
           held: tuple[str, ...] = ()) -> str:
    """The action's text in ``syntax`` (default: the episode's).  ``held``: what the acting agent holds (C-WAH
    writes a put of the first thing held as ``[goput] <place> (id)``)."""
    syntax = problem.syntax if syntax is None else syntax
    return (_render_tdw if syntax == ActionSyntax.TDW else _render_cwah)(action, problem, held)


def _render_cwah(a: Action, problem: HouseholdProblem, held: tuple[str, ...]) -> str:
    k = a.kind
    if k == ActKind.PUT:
        if a.target is None or (held and held[0] == a.target):
            return f"[goput] {_named(problem, a.place)}"
        return f"[goput] {_named(problem, a.target)} {_named(problem, a.place)}"
    if k == ActKind.SEND:
        return f"[send_message] <{a.text}>"
    verb = {ActKind.EXPLORE: "goexplore", ActKind.GOTO: "goto", ActKind.CHECK: "gocheck", ActKind.GRAB: "gograb",
            ActKind.TRANSPORT: "transport", ActKind.WAIT: "wait"}[k]
    return f"[{verb}] {_named(problem, a.target)}" if a.target is not None else f"[{verb}]"


def _render_tdw(a: Action, problem: HouseholdProblem, held: tuple[str, ...]) -> str:
    k = a.kind
    if k == ActKind.GOTO:
        return f"go to <{a.target}>"
    if k == ActKind.EXPLORE:
        return f"explore current room <{a.target}>"
    if k == ActKind.CHECK:
        return f"go check container {_named(problem, a.target)}"
    if k == ActKind.GRAB:
        what = "container" if a.target in problem.places else "target object"
        return f"go grasp {what} {_named(problem, a.target)}"
    if k == ActKind.PUT:
        target = a.target if a.target is not None else (held[0] if held else None)
        place = problem.places.get(a.place or "")
        how = "on the" if place is not None and place.kind == PlaceKind.SURFACE else "into the container"
        return f"put {_named(problem, target)} {how} {_named(problem, a.place)}"
    if k == ActKind.TRANSPORT:
        return f"transport objects I'm holding to the {_goal_phrase(problem)}"
    if k == ActKind.SEND:
        return f"send a message: {a.text}"
    return "wait"


# ---------------------------------------------------------------------------------------------- parsing
_REF = re.compile(r"<([^<>]*)>\s*(?:\((\d+)\))?|\((\d+)\)")
_CWAH = re.compile(r"^\[(\w+)\]\s*(.*)$", re.DOTALL)
_TDW = [
    (re.compile(r"^go to (.+)$", re.I), ActKind.GOTO),
    (re.compile(r"^explore current room (.+)$", re.I), ActKind.EXPLORE),
    (re.compile(r"^go check container (.+)$", re.I), ActKind.CHECK),
    (re.compile(r"^go grasp (?:target object|container) (.+)$", re.I), ActKind.GRAB),
    (re.compile(r"^put (.+?) (?:into the container|on the|onto the|into the|in the) (.+)$", re.I), ActKind.PUT),
    (re.compile(r"^transport objects i'm holding to the (.+)$", re.I), ActKind.TRANSPORT),
]
_CWAH_VERBS = {"goexplore": ActKind.EXPLORE, "goto": ActKind.GOTO, "gocheck": ActKind.CHECK,
               "gograb": ActKind.GRAB, "goput": ActKind.PUT, "transport": ActKind.TRANSPORT, "wait": ActKind.WAIT}


def _refs(problem: HouseholdProblem, text: str) -> Union[list[str], ParseFailure]:
    """The names in ``text``: ``<name> (id)``, ``<name>``, ``(id)`` or a bare name."""
    found = list(_REF.finditer(text))
    if not found:
        out: list[str] = []
        for word in text.replace("<", " ").replace(">", " ").split():
            got = _resolve(problem, word, None)
            if isinstance(got, ParseFailure):
                return got
            out += got
        return out
    out = []
    for m in found:
        name, ident = (m.group(1), m.group(2)) if m.group(3) is None else (None, m.group(3))
        got = _resolve(problem, name.strip() if name is not None else None, ident)
        if isinstance(got, ParseFailure):
            return got
        out += got
    return out


def _resolve(problem: HouseholdProblem, name: Optional[str], ident: Optional[str]) -> Union[list[str], ParseFailure]:
    by_id = problem.by_id.get(int(ident)) if ident is not None else None
    if ident is not None and by_id is None:
        return ParseFailure(f"no object has the id ({ident})", unknown_name=True)
    if name:
        known = name if name in problem.ids or name in problem.agents else None
        if known is None:
            return ParseFailure(f"unknown object <{name}>", unknown_name=True)
        if by_id is not None and by_id != known:
            return ParseFailure(f"<{name}> is ({problem.ids[known]}), not ({ident}) (that is <{by_id}>)")
        return [known]
    return [by_id] if by_id is not None else []


def parse(text: str, problem: HouseholdProblem) -> Union[Action, ParseFailure]:
    """An action text in either syntax -> ``Action`` (names checked against the episode, not the agent's
    knowledge: the engine refuses what the agent does not know)."""
    s = " ".join(text.strip().split()) if not text.lstrip().lower().startswith(("[send_message]", "send a message"))\
        else text.strip()
    low = s.lower()
    if low in ("wait", "[wait]", "noop", ""):
        return WAIT
    if low.startswith("[send_message]"):
        body = s[len("[send_message]"):].strip()
        if body.startswith("<") and body.endswith(">"):
            body = body[1:-1]
        return Action(ActKind.SEND, text=body)
    if low.startswith("send a message:") or low.startswith("send a message"):
        return Action(ActKind.SEND, text=s[len("send a message"):].lstrip(":").strip())
    m = _CWAH.match(s)
    if m:
        kind = _CWAH_VERBS.get(m.group(1).lower())
        if kind is None:
            return ParseFailure(f"unknown action [{m.group(1)}]")
        return _build(problem, kind, m.group(2), s)
    for pattern, kind in _TDW:
        m = pattern.match(s)
        if m:
            return _build(problem, kind, " ".join(m.groups()), s)
    return ParseFailure(f"not an action: {s[:80]!r}")


def _build(problem: HouseholdProblem, kind: ActKind, args: str, text: str) -> Union[Action, ParseFailure]:
    if kind == ActKind.TRANSPORT:
        return Action(ActKind.TRANSPORT)
    if kind == ActKind.WAIT:
        return WAIT
    names = _refs(problem, args)
    if isinstance(names, ParseFailure):
        return names
    if kind == ActKind.PUT:
        if len(names) == 1:
            return Action(ActKind.PUT, None, names[0])
        if len(names) == 2:
            return Action(ActKind.PUT, names[0], names[1])
        return ParseFailure(f"a put names a place (and optionally the thing first): {text[:80]!r}")
    if len(names) != 1:
        return ParseFailure(f"{kind.value} names one object: {text[:80]!r}")
    return Action(kind, names[0])
