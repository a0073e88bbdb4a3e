"""Error codes of the grid-kitchen simulator (ParaCook-style action plans).

Input: nothing (a table).  Output: ``KCODES`` (code -> (category, title)) and ``KitchenError``, the value
the kitchen runtime produces (the validators turn it into a ``report.PlanError``; the runtime does not
import the validators).  Codes use the free ``x50``-``x99`` range of each category block of docs/errors.md
(plan-reading codes E001-E013 are shared with the other plan readers); docs/benchmarks/paracook.md lists
this table and a test keeps the two equal.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Optional, Union

KCODES: dict[str, tuple[str, str]] = {
    "E001": ("syntax", "the plan cannot be parsed (not JSON)"),
    "E002": ("syntax", "the plan file cannot be read or is empty"),
    "E010": ("schema", "an action does not have the shape of its surface action (missing or ill-typed field)"),
    "E011": ("schema", "a number is not finite or out of range (NaN, Infinity, above 10^12)"),
    "E012": ("schema", "the plan is not a ParaCook plan (per-agent action lists)"),
    "E013": ("schema", "the plan is too large to grade"),
    "E150": ("unknown-name", "unknown action type (not one of the scenario's surface actions)"),
    "E151": ("unknown-name", "unknown agent"),
    "E152": ("unknown-name", "unknown station or object"),
    "E250": ("precondition", "infeasible location: the MoveTo target is not a reachable floor tile"),
    "E251": ("precondition", "not adjacent: the agent is not next to the station it acts on"),
    "E252": ("precondition", "holding: the agent's hands are full (or it holds the wrong thing)"),
    "E253": ("precondition", "wrong station kind: no operator of this action works on this kind of station"),
    "E254": ("precondition", "no operator applies: an object is missing or in the wrong state"),
    "E255": ("precondition", "capacity: the station or container is full"),
    "E256": ("precondition", "the agent already declared Finish"),
    "E257": ("precondition", "not accepted: the container does not take this item in this state"),
    "E258": ("precondition", "a condition required during the action stopped holding"),
    "E450": ("resource-busy", "the station is in use by another agent's Process"),
    "E550": ("duration", "a duration is negative"),
    "E650": ("time-window", "the plan runs past the scenario's time limit"),
    "E750": ("goal", "wrong dish: the served plate does not match the current order"),
    "E751": ("goal", "orders left unserved at the end of the plan"),
    "E752": ("goal", "a dish was served when every order had already been served"),
}

Number = Union[int, Fraction]


@dataclass(frozen=True)
class KitchenError:
    """One violation found while executing a kitchen plan; ``index`` is the action's position in its agent's
    list (None for plan-level problems such as unserved orders)."""

    code: str
    message: str
    hint: str = ""
    agent: Optional[str] = None
    index: Optional[int] = None
    time: Optional[Number] = None

    @property
    def category(self) -> str:
        return KCODES[self.code][0]
