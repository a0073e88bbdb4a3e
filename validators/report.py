"""Validation reports shared by every plan grader (procedures, tool calls, grid kitchens).

Input: errors found by a grader (``PlanError`` values) and metrics.  Output: a ``Report`` with
``to_json()`` (exactly the DESIGN "Validation report" contract: valid, plan, scenario, errors[code,
category, agent, index, time, message, hint], metrics{makespan, success, ...}) and ``to_text()``.

Categories are the contract's closed list (``CATEGORIES``); codes are stable and documented in
docs/errors.md.  Times are exact (``Fraction``) inside; JSON shows integers as ints and other fractions
as floats (and the exact value in ``metrics`` keys ending in ``_exact`` when a grader wants it).
"""
from __future__ import annotations

import json
import math
import os
import sys
import traceback
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Optional

from chronoplan.compiler.diagnostics import interrupt_in

CATEGORIES = (
    "syntax", "schema", "unknown-name", "precondition", "dependency", "agent-busy", "resource-busy",
    "duration", "interrupt", "time-window", "goal", "repeat",
)


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


def _json_value(v: Any) -> Any:
    if isinstance(v, (int, float, Fraction)) and not isinstance(v, bool):
        return json_number(v)
    if isinstance(v, dict):
        return {str(k): _json_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    return v


# Characters json.dumps(ensure_ascii=False) writes raw that break a batch's output: line breaks of
# str.splitlines(), and lone surrogates (a plan's "\ud800" escape), which cannot be encoded as UTF-8 at all
_JSON_ESCAPES = {0x2028: "\\u2028", 0x2029: "\\u2029", 0x85: "\\u0085"}
_JSON_ESCAPES.update({c: f"\\u{c:04x}" for c in range(0xD800, 0xE000)})


def printable(text: str) -> str:
    """``text`` with lone surrogates written as ``\\udXXX``, so that it can be printed as UTF-8."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


@dataclass(frozen=True)
class PlanError:
    """One violation: ``index`` is the action's position in its agent's list or in the schedule."""

    code: str
    category: str
    message: str
    hint: str = ""
    agent: Optional[str] = None
    index: Optional[int] = None
    time: Optional[Fraction] = None

    def __post_init__(self) -> None:
        if self.category not in CATEGORIES:
            raise ValueError(f"unknown error category {self.category!r}")

    def to_json(self) -> dict:
        return {"code": self.code, "category": self.category, "agent": self.agent, "index": self.index,
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
        text = f"{self.code} {self.category}{loc}: {self.message}"
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text


def _fmt_num(x: Any) -> str:
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else f"{float(x):g}"
    return str(x)


@dataclass(frozen=True)
class Report:
    """The result of grading one plan; ``metrics`` always holds ``makespan`` and ``success``."""

    valid: bool
    plan: str
    scenario: str
    errors: tuple[PlanError, ...] = ()
    metrics: dict = field(default_factory=dict)
    warnings: tuple[PlanError, ...] = ()     # W-codes: reading choices that do not make the plan invalid

    def to_json(self) -> dict:
        metrics = {"makespan": None, "success": False}
        metrics.update(self.metrics)
        out = {"valid": bool(self.valid), "plan": self.plan, "scenario": self.scenario,
               "errors": [e.to_json() for e in self.errors], "metrics": _json_value(metrics)}
        if self.warnings:        # inside metrics, whose keys are open: the contract's top-level fields stay as they are
            out["metrics"]["warnings"] = [w.to_json() for w in self.warnings]
        return out

    def to_json_line(self) -> str:
        """One line of JSON, printable as UTF-8.  U+2028, U+2029 and U+0085 (from the plan's text) are escaped:
        str.splitlines() and older JavaScript break lines there, and a batch prints exactly one line per plan;
        so are lone surrogates, which UTF-8 cannot encode (printing one stopped the whole batch)."""
        line = json.dumps(self.to_json(), ensure_ascii=False, allow_nan=False)
        return line if line.isascii() else line.translate(_JSON_ESCAPES)

    def to_text(self) -> str:
        status = "valid" if self.valid else f"INVALID ({len(self.errors)} error{'s' * (len(self.errors) != 1)})"
        lines = [f"{self.plan}: {status} against {self.scenario}"]
        lines += ["  " + e.to_text().replace("\n", "\n  ") for e in self.errors]
        lines += ["  warning " + w.to_text().replace("\n", "\n  ") for w in self.warnings]
        m = self.to_json()["metrics"]
        m.pop("warnings", None)                  # listed above as warning lines
        if m:
            lines.append("  metrics: " + ", ".join(f"{k}={_fmt_metric(v)}" for k, v in m.items()))
        return printable("\n".join(lines))

    def with_plan(self, plan: str) -> Report:
        return replace(self, plan=plan)


def _fmt_metric(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return json.dumps(v) if isinstance(v, (dict, list, bool)) or v is None else str(v)


def error_report(plan: str, scenario: str, code: str, category: str, message: str, hint: str = "",
                 metrics: Optional[dict] = None) -> Report:
    """A report holding one plan-level error (unreadable plan, unsupported format...)."""
    return Report(False, plan, scenario, (PlanError(code, category, message, hint),),
                  dict(metrics or {"makespan": None, "success": False}))


INTERNAL_ERROR = "E090"
BUG_HINT = ("this is a bug in chronoplan, not in the plan: please report it with the plan and the command "
            "(set CHRONOPLAN_DEBUG=1 for the traceback)")


def internal_error(exc: BaseException) -> PlanError:
    """The error of a plan whose grading crashed (code E090; the batch goes on).  An interrupt hidden in the
    crash's causes is raised instead: Ctrl-C and SIGTERM stop the batch."""
    hidden = interrupt_in(exc)
    if hidden is not None:
        raise hidden
    if os.environ.get("CHRONOPLAN_DEBUG"):
        traceback.print_exception(exc, file=sys.stderr)
    return PlanError(INTERNAL_ERROR, "schema", f"internal error while grading this plan: {type(exc).__name__}: "
                     f"{str(exc)[:200]}", BUG_HINT)


def internal_error_report(plan: str, scenario: str, exc: BaseException) -> Report:
    return Report(False, plan, scenario, (internal_error(exc),), {"makespan": None, "success": False})


def is_warning(note: PlanError) -> bool:
    """W-codes (text skipped around an LLM reply's plan) are warnings; every other note is an error."""
    return note.code.startswith("W")


def with_notes(report: Report, notes: tuple[PlanError, ...]) -> Report:
    """A report with reading notes: warnings (W-codes) attached, problems (repeated JSON keys) put first among
    the errors; a plan with such a problem is not valid."""
    if not notes:
        return report
    warns = tuple(n for n in notes if is_warning(n))
    errs = tuple(n for n in notes if not is_warning(n))
    if warns:
        report = replace(report, warnings=warns + report.warnings)
    if not errs:
        return report
    metrics = dict(report.metrics, success=False)
    return replace(report, valid=False, errors=errs + report.errors, metrics=metrics)
