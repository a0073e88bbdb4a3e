"""Validation reports shared by every plan grader (procedures, tool calls, grid kitchens).

Input: errors found by a grader (``PlanError`` values) and metrics.  Output: a ``Report`` with
``to_json()`` (exactly the DESIGN "Validation report" contract: valid, plan, scenario, errors[code,
category, agent, index, time, message, hint], metrics{makespan, success, ...}) and ``to_text()``.

``PlanError`` (the one plan-problem record, ``runtime.violations``) and ``json_number`` are re-exported here.
Categories are the contract's closed list (``CATEGORIES``, from ``compiler.codes.Category``); every code is
in the registry ``chronoplan.compiler.codes`` and documented in docs/errors.md.  Times are exact
(``Fraction``) inside; JSON shows integers as ints and other fractions as floats (and the exact value in
``metrics`` keys ending in ``_exact`` when a grader wants it).
"""
from __future__ import annotations

import json
import os
import sys
import traceback
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Optional

from chronoplan.compiler.codes import Category, Severity, severity_of
from chronoplan.compiler.diagnostics import interrupt_in
from chronoplan.runtime.violations import PlanError, json_number

CATEGORIES = tuple(c.value for c in Category)      # the contract's closed list, in its order


def _json_value(v: Any) -> Any:
    t = type(v)
    if t is Fraction:                         # the common cases first, as json_number renders them
        return int(v) if v.denominator == 1 else float(v)
    if t is int or t is str or t is bool or v is None:
        return v
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


_new = object.__new__


def new_report(valid: bool, plan: str, scenario: str, errors: tuple, metrics: dict) -> Report:
    """``Report(valid, plan, scenario, errors, metrics)``, built without the frozen dataclass's ``__init__`` (one
    ``object.__setattr__`` per field, a microsecond per report): for the graders' hot paths, whose fields already
    have their types."""
    r = _new(Report)
    r.__dict__.update(valid=valid, plan=plan, scenario=scenario, errors=errors, metrics=metrics, warnings=())
    return r


def _fmt_metric(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return json.dumps(v) if isinstance(v, (dict, list, bool)) or v is None else str(v)


def error_report(plan: str, scenario: str, code: str, message: str, hint: str = "",
                 metrics: Optional[dict] = None) -> Report:
    """A report holding one plan-level error (unreadable plan, unsupported format...)."""
    return Report(False, plan, scenario, (PlanError(code, message, hint),),
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
    return PlanError(INTERNAL_ERROR, f"internal error while grading this plan: {type(exc).__name__}: "
                     f"{str(exc)[:200]}", BUG_HINT)


def internal_error_report(plan: str, scenario: str, exc: BaseException) -> Report:
    return Report(False, plan, scenario, (internal_error(exc),), {"makespan": None, "success": False})


def is_warning(note: PlanError) -> bool:
    """W-codes (text skipped around an LLM reply's plan) are warnings; every other note is an error."""
    return severity_of(note.code) is Severity.WARNING


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
