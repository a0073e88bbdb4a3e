"""Grading rules of the kitchen simulator: the paper's rules (default) or those of ParaCook's own code (compat).

Input: a compat value -- None (the paper's rules), a ``KitchenRules``, or a member of
``validators.compat.Compat`` (anything whose ``.name`` is ``"PARACOOK"`` selects ``PARACOOK``; the other
benchmarks' members have no kitchen rules and give ``DEFAULT``).  Output: a frozen ``KitchenRules`` that
``kitchen.world.World`` (which operators a surface action may use), ``kitchen.engine.KitchenSim`` (cooking clock,
Finish, completion time) and ``validators.kitchen.grade`` (which bounds) read.
docs/benchmarks/paracook.md lists every difference and which ones ``PARACOOK`` reproduces.

``PARACOOK`` restates the behaviour of ParaCook's code (zsq259/ParaCook: src/game, and the bounds of
src/analysis) where it departs from the paper's rules and the departure can be expressed on our physics
without new operators:
- cooking clock (``Cooking.PARACOOK_CODE``): each cookware keeps one timer for its whole life.  Adding an item
  adds the item's cook time to the required total and starts the timer (its anchor is set the first time
  only).  The timer is brought up to date only at the start of an instant at which some agent completes an
  action of non-zero duration, and only while the cookware stands on a stove: it then credits all the time
  since its anchor -- including time spent off the stove and, for a reused pan, the idle time since its
  last batch finished -- moves the anchor to now, and cooks the contents once the credited time reaches the
  required total.  So lifting a pan mid-cook does not pause it, and a pan that idled long enough cooks a new
  item at the next update.
- Finish is a marker: the agent's later actions still run (no E256).
- OCT is the end of the last action (ParaCook's ``current_time`` at the end of a run), not the last serve.
- T_max and D_max by ParaCook's formula (``kitchen.metrics.paracook_bounds``).
- operator rules: a held container at an empty dispenser is put down on it (no ``dispense_*``); nothing
  can be put on the plate return; a sink takes a dirty plate and gives back only a washed one (no pick-up
  of a dirty plate, no adding to or pouring onto the plate in it).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Optional

from chronoplan.compiler import ir


class Cooking(enum.Enum):
    """How a container process (frying, boiling) keeps time."""

    PAPER = "paper"                    # progress while the condition holds (pauses off the stove); lost when
                                       # the cookware is emptied
    PARACOOK_CODE = "paracook-code"    # one timer per cookware, credited wall-clock time at agent instants


class Finish(enum.Enum):
    """What Finish means for the actions after it."""

    ENDS_PLAN = "ends-plan"            # later actions are an error (E256) and do not run
    MARKER = "marker"                  # later actions run as if Finish were not there


class Bounds(enum.Enum):
    """How T_max and D_max (the paper's appendix G) are computed."""

    MAP = "map"                        # d = W + H of the real map, the cheapest chain of producers
    PARACOOK_CODE = "paracook-code"    # ParaCook's formula: 18 per move, moves by target state, two plates


class Completion(enum.Enum):
    """The completion time (OCT) of a successful run."""

    LAST_SERVE = "last-serve"          # the time the last order is served
    LAST_EVENT = "last-event"          # the end of the last action (trailing waits count)


@dataclass(frozen=True)
class OperatorRule:
    """``operator`` on stations of kind ``station`` (or a subtype; None: any station): unavailable when
    ``require`` is None, else available only when the formula ``require`` also holds at the start.
    ``quirk`` names the difference it reproduces (the id in docs/benchmarks/paracook.md)."""

    operator: str
    station: Optional[str] = None
    require: Any = None                # an ir formula over the operator's parameters, or None
    quirk: str = ""


@dataclass(frozen=True)
class KitchenRules:
    name: str = "paper"
    cooking: Cooking = Cooking.PAPER
    finish: Finish = Finish.ENDS_PLAN
    completion: Completion = Completion.LAST_SERVE
    bounds: Bounds = Bounds.MAP
    operators: tuple = ()              # OperatorRule, ...

    def quirks(self) -> tuple:
        """The ids (docs/benchmarks/paracook.md) of the differences from the paper's rules these rules make."""
        out = []
        if self.cooking is not Cooking.PAPER:
            out.append("cooking-timer")
        if self.finish is not Finish.ENDS_PLAN:
            out.append("after-finish")
        if self.completion is not Completion.LAST_SERVE:
            out.append("completion-time")
        if self.bounds is not Bounds.MAP:
            out.append("upper-bounds")
        out.extend(r.quirk for r in self.operators)
        return tuple(dict.fromkeys(out))

    def operator_rule(self, operator: str, station_chain: tuple) -> Optional[OperatorRule]:
        """The first rule for ``operator`` on a station whose type chain (the type and its ancestors) is
        ``station_chain``; None when the operator is used as declared."""
        for r in self.operators:
            if r.operator == operator and (r.station is None or r.station in station_chain):
                return r
        return None


def _attr_is(var: str, attr: str, value: str) -> ir.Compare:
    return ir.Compare("==", ir.Term(ir.TermKind.ATTR, attr, var), ir.Term(ir.TermKind.VALUE, value))


DEFAULT = KitchenRules()

PARACOOK = KitchenRules(
    name="paracook",
    cooking=Cooking.PARACOOK_CODE,
    finish=Finish.MARKER,
    completion=Completion.LAST_EVENT,
    bounds=Bounds.PARACOOK_CODE,
    operators=(
        OperatorRule("dispense_onto_plate", quirk="dispense-into-held"),
        OperatorRule("dispense_into_cookware", quirk="dispense-into-held"),
        OperatorRule("put_down", "plate_return", quirk="plate-return-counter"),
        OperatorRule("pick_up", "sink", _attr_is("i", "clean", "true"), quirk="sink-dirty-pickup"),
        OperatorRule("add_to_plate", "sink", quirk="sink-work-surface"),
        OperatorRule("pour_onto_plate", "sink", quirk="sink-work-surface"),
    ),
)


def rules_for(compat: Any) -> KitchenRules:
    """The kitchen rules a compat value selects (see the module docstring); never raises."""
    if compat is None:
        return DEFAULT
    if isinstance(compat, KitchenRules):
        return compat
    name = getattr(compat, "name", None)
    if isinstance(name, str) and name.upper() == "PARACOOK":
        return PARACOOK
    return DEFAULT
