"""Metrics of the step-level benchmarks.

Input: a ``ProcedureProblem`` and a ``procedure.sim.SimResult`` (or runs and completed steps; or a batch of
episode scores).  Output: numbers (exact ``Fraction`` where they are ratios of times):
- ``progress`` (Recipe2Plan progress rate): steps completed before the first violation / all steps;
- ``multitask_efficiency`` E = (sum of executed durations - finish time) / sum of the durations of the
  completed autonomous steps (Recipe2Plan eq. 1; autonomous = not continuous);
- ``reference_efficiency``: E of a reference schedule truncated to the same number of actions, computed
  as the original does (denominator: autonomous entries of the truncated reference);
  ``relative_efficiency`` = E / E_ref; ``multitask_score`` = relative efficiency if progress = 1 else 0;
- ``progress_score`` (TimeArena): floor(100 * completed duration / total duration);
- ``arena_summary``: AS, CS, CR, CT over a batch of episodes (TimeArena, times in minutes);
- ``lower_bound``: max(critical path with minimum lags and releases, agent load, resource load).
Where the metric is undefined (division by zero) the value is ``None``.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime.procedure.sim import Chunk, Run, SimResult


def is_autonomous(step) -> bool:
    return step.occupancy is not ir.Occupancy.CONTINUOUS


def progress(result: SimResult) -> Fraction:
    total = len(result.problem.steps)
    return Fraction(len(result.clean_done), total) if total else Fraction(1)


def _total_duration(problem: ProcedureProblem) -> Fraction:
    return sum((s.duration for s in problem.steps), Fraction(0))


def progress_score(problem: ProcedureProblem, done_keys: Iterable) -> int:
    """TimeArena's progress score: duration-weighted share of completed steps, x100, floored."""
    total = problem.memo("_total_duration", _total_duration)
    if total == 0:
        return 100
    got = _sum([s.duration for s in _steps(problem, done_keys) if s is not None])
    return math.floor(100 * got / total)


def _steps(problem: ProcedureProblem, done_keys: Iterable) -> list:
    """The steps (None for unknown keys) of distinct keys: a dict's keys in their order (read in the order they
    were stored, which long plans make much faster than a set's order), else those of ``set(done_keys)``."""
    get = problem._index().get
    return [get(k) for k in (done_keys if isinstance(done_keys, dict) else set(done_keys))]


def multitask_efficiency(problem: ProcedureProblem, runs: Sequence[Run], done_keys: Iterable) -> Optional[Fraction]:
    """Recipe2Plan E over executed runs; None when no autonomous step was completed."""
    if not runs:
        return None
    finish = _finish(runs)
    saved = max(Fraction(0), _sum([r.duration for r in runs]) - (finish or 0))
    done = _steps(problem, done_keys)
    auto = _sum([s.duration for s in done if s is not None and is_autonomous(s)])
    return None if auto == 0 else saved / auto


def _sum(xs: list) -> Fraction:
    """``sum(xs, Fraction(0))``: ints and whole ``Fraction`` values are added as ints (the common case: seconds),
    the same exact value and type."""
    total = 0
    for x in xs:
        if type(x) is int:
            total += x
        elif type(x) is not Fraction or x.denominator != 1:
            return sum(xs, Fraction(0))
        else:
            total += x.numerator
    return Fraction(total)


def _finish(runs: Sequence[Run]) -> Optional[Fraction]:
    """``max(r.end for r in runs)`` (None when there are none), with whole ``Fraction`` times added as ints."""
    best = None
    for r in runs:
        s, d = r.start, r.duration
        if type(s) is not Fraction or type(d) is not Fraction or s.denominator != 1 or d.denominator != 1:
            return max(r.end for r in runs)
        e = s.numerator + d.numerator
        if best is None or e > best:
            best = e
    return None if best is None else Fraction(best)


def reference_efficiency(problem: ProcedureProblem, reference: Sequence[Chunk], n: int) -> Optional[Fraction]:
    """E of the first ``n`` entries of a reference schedule (listed order)."""
    ref = list(reference)[:n]
    if not ref:
        return None
    durs = []
    for c in ref:
        s = problem.step(c.task, c.step)
        d = c.duration if c.duration is not None else (s.duration if s is not None else Fraction(0))
        durs.append((c, s, d))
    finish = max(c.start + d for c, _, d in durs)
    saved = sum((d for _, _, d in durs), Fraction(0)) - finish
    auto = sum((d for _, s, d in durs if s is not None and is_autonomous(s)), Fraction(0))
    return None if auto == 0 else saved / auto


def relative_efficiency(e: Optional[Fraction], e_ref: Optional[Fraction]) -> Optional[Fraction]:
    if e is None or e_ref is None or e_ref == 0:
        return None
    return e / e_ref


def multitask_score(rel: Optional[Fraction], prog: Fraction) -> Fraction:
    return (rel if rel is not None else Fraction(0)) if prog == 1 else Fraction(0)


# ---------------------------------------------------------------------------------------- lower bound
@dataclass(frozen=True)
class LowerBound:
    critical_path: Fraction
    agent_load: Fraction
    resource_load: Fraction

    @property
    def value(self) -> Fraction:
        return max(self.critical_path, self.agent_load, self.resource_load)


def lower_bound(problem: ProcedureProblem) -> LowerBound:
    """A makespan no valid plan can beat (computed once per problem)."""
    return problem.memo("_lower_bound", _lower_bound)


def _lower_bound(problem: ProcedureProblem) -> LowerBound:
    steps = list(problem.steps)
    es = {s.key: (s.release if s.release is not None and s.release > 0 else Fraction(0)) for s in steps}

    def relax(with_lags: bool) -> bool:
        for _ in range(len(steps) + 1):
            changed = False
            for s in steps:
                best = es[s.key]
                for p in s.prerequisites:
                    other = problem.step(s.task, p)
                    if other is not None:
                        best = max(best, es[other.key] + other.duration)
                if with_lags:
                    for lag in s.lags:
                        other = problem.step(s.task, lag.other)
                        if other is not None and lag.min is not None:
                            best = max(best, es[other.key] + other.duration + lag.min)
                if best != es[s.key]:
                    es[s.key] = best
                    changed = True
            if not changed:
                return True
        return False

    if not relax(True):                 # positive cycle through lags: fall back to prerequisites only
        for s in steps:
            es[s.key] = s.release if s.release is not None and s.release > 0 else Fraction(0)
        relax(False)
    cp = max((es[s.key] + s.duration for s in steps), default=Fraction(0))
    agents = max(1, len(problem.agents))
    agent = sum((s.occupation() for s in steps), Fraction(0)) / agents
    load: dict = {}
    for s in steps:
        for u in s.uses:
            load[u.resource] = load.get(u.resource, Fraction(0)) + s.duration
    caps = {r: getattr(problem.resource(r), "capacity", 1) for r in load}
    res = max((v / max(1, caps[r]) for r, v in load.items()), default=Fraction(0))
    return LowerBound(cp, agent, res)


# ---------------------------------------------------------------------------------------- TimeArena batch
@dataclass(frozen=True)
class EpisodeScore:
    """One episode: the highest progress score, the minutes taken to reach it, whether it reached 100."""

    score: int
    minutes: Fraction
    completed: bool


def minutes(x: Fraction, unit: ir.TimeUnit) -> Fraction:
    """A scenario time in minutes (ticks stay ticks)."""
    return Fraction(x) if unit.seconds is None else Fraction(x) * unit.seconds / 60


def arena_summary(episodes: Sequence[EpisodeScore]) -> dict:
    """TimeArena AS (mean score), CS (score per minute), CR (% completed), CT (mean minutes, completed)."""
    n = len(episodes)
    if n == 0:
        return {"AS": None, "CS": None, "CR": None, "CT": None}
    total_min = sum((e.minutes for e in episodes), Fraction(0))
    done = [e for e in episodes if e.completed]
    return {
        "AS": Fraction(sum(e.score for e in episodes), n),
        "CS": None if total_min == 0 else Fraction(sum(e.score for e in episodes)) / total_min,
        "CR": Fraction(100 * len(done), n),
        "CT": None if not done else sum((e.minutes for e in done), Fraction(0)) / len(done),
    }


def episode_score(result: SimResult) -> EpisodeScore:
    """TimeArena score of a replayed plan: steps counted until the first violation."""
    p = result.problem
    clean = result.clean_done
    score = progress_score(p, clean)
    reached = max(clean.values(), default=Fraction(0))
    return EpisodeScore(score, minutes(reached, p.time_unit), score >= 100 and len(clean) == len(p.steps))


# ---------------------------------------------------------------------------------------- one plan
def plan_metrics(result: SimResult, reference: Optional[Sequence[Chunk]] = None, *,
                 problem: Optional[ProcedureProblem] = None) -> dict:
    """The metrics block of a validation report.  ``problem``: given for ``procedure.sim.simulate_whole``'s result (int
    times, the whole-number problem): measured against this problem, the makespan a ``Fraction``, the same block
    as for ``simulate``'s result."""
    p = result.problem if problem is None else problem
    clean_runs = result.clean_runs
    clean = result.clean_done
    total = len(p.steps)
    prog = Fraction(len(clean), total) if total else Fraction(1)        # progress(result)
    e = multitask_efficiency(p, clean_runs, clean)
    lb = lower_bound(p)
    makespan = _finish(result.runs)             # result.makespan
    if problem is not None and type(makespan) is int:
        makespan = Fraction(makespan)
    out = {
        "makespan": makespan,
        "success": not result.violations and len(result.done) == len(p.steps),
        "progress": prog,
        "steps_done": len(clean),
        "steps_total": len(p.steps),
        "progress_score": progress_score(p, clean),
        "efficiency": e,
        "lower_bound": lb.value,
    }
    if reference is not None:
        out.update(reference_metrics(e, reference_efficiency(p, reference, len(clean_runs)), prog))
    return out


def reference_metrics(e: Optional[Fraction], e_ref: Optional[Fraction], prog: Fraction) -> dict:
    """The reference part of ``plan_metrics``: efficiency ``e`` and progress against the reference's ``e_ref``."""
    rel = relative_efficiency(e, e_ref)
    return {"reference_efficiency": e_ref, "relative_efficiency": rel, "multitask_score": multitask_score(rel, prog)}
