"""The one record of a plan problem, built by the engines and the plan readers alike.

Input: a code of the registry (``chronoplan.compiler.codes``), a message, a hint and where it happened.
Output: ``PlanError`` (its ``category`` derived from the code; ``to_json()`` is one entry of the report
contract's ``errors`` list), ``json_number`` (numbers in reports), and ``CODES``, the view of the registry
for timed plans (code -> (category, title); docs/errors.md lists it).  ``Violation`` (the step-level
engines) is another name of the same record, which the kitchen engine builds too (its codes:
``kitchen.codes.KCODES``); ``chronoplan.validators.report`` re-exports it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from chronoplan.compiler.codes import CATEGORY, Category, Scope, category_table

CODES: dict[str, tuple[str, str]] = category_table(Scope.READING, Scope.GRADING, Scope.STEPS)


def json_number(x: Any) -> Any:
    """A JSON-safe rendering of a number: int when integral, float otherwise, None for NaN/inf."""
    if x is None or isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x
    if isinstance(x, Fraction):
        return int(x) if x.denominator == 1 else float(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            return None
        return int(x) if x.is_integer() and abs(x) < 2 ** 53 else x
    return x


def _fmt_num(x: Any) -> str:
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else f"{float(x):g}"
    return str(x)


@dataclass(frozen=True)
class PlanError:
    """One problem of a plan (an error, or a W-code reading note): ``index`` is the action's position in the
    schedule or in its agent's list (None: not one action), ``time`` the simulated time it happens at.
    The category is the code's (``compiler.codes``); an unknown code is refused."""

    code: str
    message: str
    hint: str = ""
    index: Optional[int] = None
    agent: Optional[str] = None
    time: Optional[Any] = None          # Fraction or int (scenario unit)

    def __post_init__(self) -> None:
        if self.code not in CATEGORY:
            raise ValueError(f"unknown plan error code {self.code!r} (not in chronoplan.compiler.codes)")

    @property
    def category(self) -> Category:
        return CATEGORY[self.code]

    def to_json(self) -> dict:
        return {"code": self.code, "category": CATEGORY[self.code].value, "agent": self.agent, "index": self.index,
                "time": json_number(self.time), "message": self.message, "hint": self.hint}

    def to_text(self) -> str:
        where = []
        if self.index is not None:
            where.append(f"#{self.index}")
        if self.agent is not None:
            where.append(self.agent)
        if self.time is not None:
            where.append(f"t={_fmt_num(self.time)}")
        loc = f" [{' '.join(where)}]" if where else ""
        text = f"{self.code} {CATEGORY[self.code].value}{loc}: {self.message}"
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text


Violation = PlanError        # the step-level engines' name for it (runtime/procedure/state.py, procedure/env.py)
