"""Violation codes of the step-level simulator and plan graders.

Input: nothing (a table).  Output: ``CODES`` (code -> (category, title)) and the ``Violation`` value the
runtime produces.  Categories are DESIGN's closed list; the validators turn a ``Violation`` into a
``chronoplan.validators.report.PlanError``.  docs/errors.md documents the same table; a test keeps them equal.

Numbering: the hundreds digit names the category block (E0xx syntax/schema, E1xx unknown-name,
E2xx precondition, E3xx dependency, E4xx agent-busy/resource-busy, E5xx duration/interrupt,
E6xx time-window, E7xx goal, E8xx repeat).  Procedure plans use xx01-xx49 of each block; xx50-xx99 are
reserved for tool-call plans and grid kitchens.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

CODES: dict[str, tuple[str, str]] = {
    # syntax and schema (plan reading)
    "E001": ("syntax", "the plan cannot be parsed (not JSON, no Step(...) entries)"),
    "E002": ("syntax", "the plan file cannot be read or is empty"),
    "E010": ("schema", "the plan does not match the plan schema (wrong shape or type)"),
    "E011": ("schema", "a number is not finite or out of range (NaN, Infinity, above 10^12)"),
    "E012": ("schema", "the plan format cannot be detected or is not supported for this scenario"),
    "E013": ("schema", "the plan is too large to grade"),
    "E014": ("schema", "an agent must be named (the scenario has several agents)"),
    "E015": ("schema", "no scenario matches the plan"),
    # shared by every plan kind (outside the x01-x49 rule): grading crashed, a chronoplan bug
    "E090": ("schema", "internal error: grading this plan failed inside chronoplan (a bug; the plan is not graded)"),
    # unknown names
    "E101": ("unknown-name", "unknown task (recipe or procedure)"),
    "E102": ("unknown-name", "unknown step of a task"),
    "E103": ("unknown-name", "unknown agent"),
    "E104": ("unknown-name", "unknown command (interactive play)"),
    # preconditions
    "E201": ("precondition", "a resource property does not have the value the step needs"),
    # dependencies
    "E301": ("dependency", "a prerequisite step has not finished when the step starts"),
    # agents and resources
    "E401": ("agent-busy", "the agent is already occupied by another step"),
    "E411": ("resource-busy", "the resource is held by as many steps as its capacity"),
    # durations and interruption
    "E501": ("duration", "the duration is longer than the step (or what remains of it)"),
    "E502": ("duration", "the duration is zero or negative"),
    "E503": ("duration", "an interruptible step's chunks add up to less than its duration"),
    "E511": ("interrupt", "a non-interruptible step is split or cut short"),
    # time windows
    "E601": ("time-window", "the step starts later after its partner ended than the maximum lag allows"),
    "E602": ("time-window", "the step starts sooner after its partner ended than the minimum lag allows"),
    "E603": ("time-window", "the partner ended but the step never started within the maximum lag"),
    "E604": ("time-window", "the step has a lag relative to a step that never finished"),
    "E611": ("time-window", "the step starts before its release time"),
    "E612": ("time-window", "the step finishes after its deadline"),
    "E613": ("time-window", "the step starts in the past (before the plan begins or, interactively, before the "
                            "current time)"),
    "E614": ("time-window", "the plan runs past the scenario's time limit"),
    # goals
    "E701": ("goal", "a step of a task is never executed"),
    "E702": ("goal", "the episode ended before every step was done (interactive play)"),
    # repeats
    "E801": ("repeat", "the step is already done"),
    "E802": ("repeat", "the step is already running"),
}


@dataclass(frozen=True)
class Violation:
    """One broken rule found by the simulator; ``index`` is the plan position (None: not one action)."""

    code: str
    message: str
    hint: str = ""
    index: Optional[int] = None
    agent: Optional[str] = None
    time: Optional[Fraction] = None

    @property
    def category(self) -> str:
        return CODES[self.code][0]
