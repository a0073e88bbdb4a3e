"""PlanningArena-style metrics of a graded tool plan.

Input: the read ``ToolPlan``, the ``ir.Scenario``, per-step grading state (tool, codes, matched reference
step), the errors and the reference bookkeeping of ``tools.grade``.  Output: a metrics dict (exact
``Fraction`` values; the report renders them as JSON numbers):

* ``SER`` = sum over reference steps of c_i * q_i / number of reference steps (w_i = 1; c_i = 1 when a
  plan step is matched to it; q_i = share of its reference arguments the plan step gets right);
* ``DA`` = satisfied reference dependencies / (reference dependencies + hallucinated plan dependencies);
* ``LPR`` = SER x DA;
* ``SMAR`` = (5 - B_MS - B_RS - B_FP - B_FT - B_TIE) / 5, or 0 when the output is garbled (B_gc) or no
  step could be read at all;
  the checkpoints are in ``checkpoints``;
* rates: ``missing_step_rate``, ``redundant_step_rate``, ``fictitious_param_rate``,
  ``fictitious_tool_rate`` (fictitious tools and apps), ``time_error_rate``; micro accuracies ``FD_API``
  (1 - API steps with T101-T104 / API steps), ``FD_APP`` (1 - operation steps with T107/T108 / operation
  steps), ``OSC`` (operation steps in a known app without T109/T207 / those steps), ``PC``, ``TR``;
  ``FD_APP`` and ``OSC`` are None when the scenario offers no APP and the plan has no operation step,
  ``FD_API`` when it offers only APPs and the plan calls no tool;
* ``counts``: errors per category; ``codes``: errors per code.
Without a reference plan SER, DA and LPR are None and the missing/redundant checkpoints are False.
"""
from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any, Optional

FICTITIOUS_PARAM = ("T201", "T204", "T205", "T109")
FICTITIOUS_API = ("T101", "T102", "T103", "T104")
FICTITIOUS_APP = ("T107", "T108")
FICTITIOUS_TOOL = FICTITIOUS_API + FICTITIOUS_APP
OUT_OF_SPACE = ("T109", "T207")                       # against OSC: no such element, or it does not take the op
TIME = ("T601", "T602")
REDUNDANT = ("T501", "T502")


def _ratio(a: int, b: int, empty: Fraction = Fraction(1)) -> Fraction:
    return Fraction(a, b) if b else empty


def compute_metrics(plan: Any, scen: Any, state: list, errors: list, ref_info: dict) -> dict:
    codes = Counter(e.code for e in errors)
    n = len(plan.steps)
    has_ref = bool(scen.reference)
    n_ref = len(scen.reference)
    garbled = bool(plan.garbled)
    step_codes = [s.codes for s in state]
    fict_param = sum(1 for c in step_codes if c & set(FICTITIOUS_PARAM))
    fict_tool = sum(1 for c in step_codes if c & set(FICTITIOUS_TOOL))
    redundant = sum(codes[c] for c in REDUNDANT)
    missing = codes["T401"]
    time_errors = sum(codes[c] for c in TIME)
    checkpoints = {
        "missing_steps": missing > 0,
        "redundant_steps": redundant > 0,
        "fictitious_params": fict_param > 0,
        "fictitious_tools": fict_tool > 0,
        "time_inference_errors": time_errors > 0,
        "garbled": garbled,
    }
    unreadable = n == 0 and bool(plan.errors)          # nothing could be read (too large, wrong shape)
    smar = Fraction(0) if garbled or unreadable else \
        Fraction(5 - sum(v for k, v in checkpoints.items() if k != "garbled"), 5)
    ser: Optional[Fraction] = None
    da: Optional[Fraction] = None
    if has_ref:
        quality = ref_info.get("quality", {})
        ser = Fraction(sum(quality.values(), Fraction(0)), n_ref)
        dep_total = ref_info.get("dep_total", 0)
        da = _ratio(ref_info.get("dep_ok", 0), dep_total + ref_info.get("dep_bad", 0))
        if n == 0 and dep_total == 0:
            da = Fraction(0)
    known = [s for s in state if s.tool is not None]
    compliant = sum(1 for s in known if not any((c.startswith("T2") and c != "T207") or c == "T602" for c in s.codes))
    app_steps = [s for s in state if s.app_step]
    api_steps = [s for s in state if not s.app_step]
    with_app = [s for s in app_steps if s.app is not None]
    ui = bool(ref_info.get("ui")) or bool(app_steps)
    return {
        "makespan": None,
        "steps": n,
        "reference_steps": n_ref,
        "SER": ser,
        "DA": da,
        "LPR": None if ser is None or da is None else ser * da,
        "SMAR": smar,
        "checkpoints": checkpoints,
        "missing_step_rate": _ratio(missing, n_ref, Fraction(0)) if has_ref else None,
        "redundant_step_rate": _ratio(redundant, n, Fraction(0)),
        "fictitious_param_rate": _ratio(fict_param, n, Fraction(0)),
        "fictitious_tool_rate": _ratio(fict_tool, n, Fraction(0)),
        "time_error_rate": (_ratio(ref_info.get("date_total", 0) - ref_info.get("date_ok", 0),
                                   ref_info.get("date_total", 0), Fraction(0)) if has_ref else None),
        "FD_API": (1 - _ratio(sum(1 for s in api_steps if s.codes & set(FICTITIOUS_API)), len(api_steps), Fraction(0))
                   if api_steps or not ui or ref_info.get("api", True) else None),
        "FD_APP": (1 - _ratio(sum(1 for s in app_steps if s.codes & set(FICTITIOUS_APP)), len(app_steps), Fraction(0))
                   if ui else None),
        "OSC": (_ratio(sum(1 for s in with_app if not s.codes & set(OUT_OF_SPACE)), len(with_app)) if ui else None),
        "PC": _ratio(compliant, len(known)),
        "TR": _ratio(ref_info.get("date_ok", 0), ref_info.get("date_total", 0)) if has_ref else None,
        "counts": dict(sorted(Counter(e.category.value for e in errors).items())),
        "codes": dict(sorted(codes.items())),
    }
