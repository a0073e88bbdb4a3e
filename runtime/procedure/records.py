"""Values of the step-level simulator.

Input: built by the simulator (``runtime.procedure.state``) and by plan readers (``Chunk``).  Output: frozen
records of planned chunks and executed runs, the mutable per-step state and the ``SimResult``.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

from chronoplan.compiler.instantiate import ProcedureProblem, SchedStep
from chronoplan.runtime.violations import PlanError


@dataclass(frozen=True)
class Chunk:
    """One planned action: run step ``step`` of ``task`` from ``start`` for ``duration`` (None = all)."""

    index: int
    task: str
    step: int
    start: Fraction
    duration: Optional[Fraction] = None
    agent: Optional[str] = None


@dataclass(frozen=True)
class Run:
    """An executed chunk."""

    index: int
    key: tuple[str, int]
    agent: str
    start: Fraction
    duration: Fraction
    busy: Fraction            # agent occupation length from ``start``
    seq: int                  # event number of its start

    @property
    def end(self) -> Fraction:
        return self.start + self.duration


@dataclass
class StepState:
    step: SchedStep
    progress: Fraction = Fraction(0)
    first_start: Optional[Fraction] = None
    first_index: Optional[int] = None
    last_index: Optional[int] = None
    running: Optional[Run] = None
    done_at: Optional[Fraction] = None
    completing: Optional[Run] = None


@dataclass(frozen=True)
class SimResult:
    problem: ProcedureProblem
    violations: tuple[PlanError, ...]
    runs: tuple[Run, ...]
    done: dict                      # key -> completion time
    first_violation_seq: Optional[int]
    stopped_early: bool             # --first mode stopped at a violation

    @property
    def makespan(self) -> Optional[Fraction]:
        return max((r.end for r in self.runs), default=None)

    @property
    def clean_runs(self) -> tuple[Run, ...]:
        """Runs started before the first violation (what a stop-at-first-error environment executed)."""
        if self.first_violation_seq is None:
            return self.runs
        return tuple(r for r in self.runs if r.seq < self.first_violation_seq)

    @property
    def clean_done(self) -> dict:
        seqs = {r.index for r in self.clean_runs}
        completing = self._completing
        return {k: t for k, t in self.done.items() if completing.get(k) in seqs}

    @property
    def _completing(self) -> dict:
        return self.__dict__.get("_completing_map", {})


def step_name(key: tuple[str, int]) -> str:
    return f"step {key[1]} of {key[0]}"


def fmt_value(v) -> str:
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{float(v):g}"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
