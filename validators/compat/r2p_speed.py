"""The original Recipe2Plan evaluator's efficiency (``evaluate_complete_speed``), re-stated.

Input: the scenario's ``compat.r2p_engine.Model``, the ``Outcome`` of a plan and the reference plan's entries
(step, recipe, duration, start; seconds, listed order).  Output: ``Speed``: the plan's E, the reference's
E_ref and the original's complete speed min(E / E_ref, 5 E), with 0 wherever the original's computation
raises (its bare ``except``): no reference, an empty truncated reference, an unknown recipe or step in it,
no completed autonomous step, E_ref = 0, nothing executed.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

from chronoplan.validators.compat.r2p_engine import Model, Num, Outcome


@dataclass(frozen=True)
class Speed:
    """The original's evaluate_complete_speed and the two ratios behind it."""

    complete_speed: float                       # min(E / E_ref, 5 E), 0 where the original hits an exception
    efficiency: Optional[float]                 # E = max(0, sum of durations - finish) / completed autonomous time
    reference: float                            # E_ref of the reference truncated to as many actions; 0 on error


def reference_speed(model: Model, reference: Sequence[tuple[int, str, Num, Num]], executed: int) -> float:
    """E_ref: (sum of durations - finish) / autonomous time of the first ``executed`` reference entries
    (step, recipe, duration, start), listed order; 0 wherever the original's computation raises."""
    ref = list(reference[:executed])
    if not ref:
        return 0
    finish = max(e[3] + e[2] for e in ref)
    total: Num = 0
    for e in ref:
        total += e[2]
    par: Num = 0
    for step, recipe, dur, _ in ref:
        steps = model.steps_of(recipe)
        if steps is None or not isinstance(step, int) or not -len(steps) <= step < len(steps):
            return 0                            # the original's KeyError / IndexError
        if steps[step].parallel:
            par += dur
    try:
        return (total - finish) / par
    except ArithmeticError:
        return 0


def complete_speed(model: Model, out: Outcome, reference: Optional[Sequence]) -> Speed:
    """The original's efficiency of an evaluated plan against a reference plan (None: the original's
    missing reference, E_ref = 0)."""
    e_ref = 0 if reference is None else reference_speed(model, reference, out.executed)
    if out.executed == 0 or out.max_end is None:
        return Speed(0, None, e_ref)
    saved = out.sum_time - out.max_end
    if saved < 0:
        saved = 0
    par = out.parallel_done
    e = saved / par if par else None
    try:
        speed = saved / par / e_ref
        speed = min(speed, 5 * saved / par)
    except ArithmeticError:
        speed = 0
    return Speed(speed, e, e_ref)
