"""Differential test of the integer replay of faulty plans (runtime.procedure.critic) against the exact engine.

Input: the 130 Recipe2Plan scenarios (with and without time constraints, tests/r2pdata) with their reference plans
and seeded mutants of every kind in tests/r2p_mutants.py and of the four kinds of bench/bench_recipe2plan.py, as
Step(...) text; random scenarios of tests/test_procfast.py (several agents, both occupancy rules, interruptible
steps, partial occupancy, lags, resources of capacity 1 and 2, properties, releases, deadlines, limits) with
greedy schedules and many mutants, as JSON schedules and as chunks with agents and plan indexes; hand-made plans
for the rarer codes.  Output: for every plan, in critic mode and with ``first=True``, ``validate_plan`` (fast
path) gives the same report -- verdict, every error with its message, hint, index, agent and time, every metric
and its type, the JSON form -- as ``validate_plan(..., exact=True)``; every faulty plan whose names are known and
whose times are whole multiples of the compiled scale is graded by the integer replay, not the exact engine; and
the replay reports every code the exact engine can report for such plans.
"""
from __future__ import annotations

import random
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
import r2p_mutants
import r2pdata
from test_procfast import greedy, random_problem, schedule
from test_procfast import mutants as schedule_mutants

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import ConcreteLag, ConcreteUse, ProcedureProblem, ResourceInstance, SchedStep
from chronoplan.runtime.procedure import critic
from chronoplan.runtime.procedure.records import Chunk
from chronoplan.validators.plans import ReadPlan
from chronoplan.validators.replay import validate_plan

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = {"_".join(r["recipe"] for r in inst): inst for inst in r2pdata.cooking()}
CODES: set = set()          # codes the replay reported (test_every_code_of_the_exact_engine_is_reached)


@pytest.fixture
def graded(monkeypatch):
    """Records each call of the integer replay: True when it graded the plan, False when it declined."""
    calls: list = []
    real = critic.replay

    def replay(*args, **kw):
        out = real(*args, **kw)
        calls.append(out is not None)
        if out is not None:
            CODES.update(v.code for v in out.violations)
        return out

    monkeypatch.setattr(critic, "replay", replay)
    return calls


def same(problem, plan, *, reference=None, first=False):
    """Both engines' reports on one plan are identical; returns the report."""
    fast = validate_plan(problem, plan, reference=reference, first=first, name="p")
    exact = validate_plan(problem, plan, reference=reference, first=first, name="p", exact=True)
    assert fast == exact, (problem.scenario, plan, fast.errors[:4], exact.errors[:4], fast.metrics, exact.metrics)
    assert fast.to_json() == exact.to_json()
    assert {k: type(v) for k, v in fast.metrics.items()} == {k: type(v) for k, v in exact.metrics.items()}
    return exact


def _both(problem, plan, reference=None, calls=None) -> bool:
    """Critic and first mode; returns whether the integer replay graded the critic-mode plan."""
    before = len(calls)
    report = same(problem, plan, reference=reference)
    used = len(calls) > before and calls[before]
    same(problem, plan, reference=reference, first=True)
    return used and not report.valid


# ------------------------------------------------------------------------------------------ Recipe2Plan
KINDS_ON_THE_REPLAY = {"shift_start", "drop", "duplicate", "wrong_recipe", "wrong_step", "duration_change",
                       "zero_chunk", "split_interruptible", "split_noninterruptible", "overlap_continuous",
                       "overlap_resource", "break_lag", "shift_tail", "overlong_chunk", "late_preheat", "same_preheat"}
# (the other kinds: valid plans in the default mode -- listing order, spacing -- or text the one-pass reader
# leaves to the general reader: graded by the exact engine, compared all the same)


def test_recipe2plan_mutants_of_every_kind(graded):
    replayed: dict = {}
    total = 0
    for key in r2pdata.keys():
        for constrained in (True, False):
            problem = r2pdata.problem(key, constrained)
            entries = r2pdata.plans()[key]["plan_w_restriction" if constrained else "plan_wo_restriction"]
            if entries is None:
                continue
            ref = r2p_mutants.render(entries)
            for seed in ("a", "b"):
                for kind, text in r2p_mutants.mutants(entries, INSTANCES[key], f"{seed}:{key}:{constrained}"):
                    total += 1
                    if _both(problem, text, ref, graded):
                        replayed[kind] = replayed.get(kind, 0) + 1
    assert total > 6000, total
    assert KINDS_ON_THE_REPLAY <= set(replayed), sorted(KINDS_ON_THE_REPLAY - set(replayed))
    assert sum(replayed.values()) > 3000, replayed


def _bench_mutant(entries, rng: random.Random) -> list:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import bench_recipe2plan  # the bench's own mutants: the plans it times
    finally:
        sys.path.pop(0)
    return bench_recipe2plan.mutant(entries, rng)


def test_the_bench_faulty_plans_are_graded_by_the_replay(graded):
    rng = random.Random(14)
    faulty = 0
    for key in r2pdata.keys():
        problem = r2pdata.problem(key, True)
        entries = r2pdata.plans()[key]["plan_w_restriction"]
        if entries is None:
            continue
        ref = r2p_mutants.render(entries)
        for _ in range(12):
            text = r2p_mutants.render(_bench_mutant(entries, rng))
            before = len(graded)
            report = same(problem, text, reference=ref)
            same(problem, text, reference=ref, first=True)
            if not report.valid:
                faulty += 1
                assert graded[before:before + 1] == [True], text      # the sweep declined, the replay graded it
    assert faulty > 600, faulty


# ------------------------------------------------------------------------------------------ random scenarios
def test_random_scenarios_many_mutants(graded):
    rng = random.Random(1414)
    replayed = total = 0
    for n in range(360):
        problem = random_problem(rng, n, free=n % 5 == 4)
        base = greedy(problem, rng, split=0.6)
        for entries in [base] + schedule_mutants(base, rng, problem, 8):
            total += 1
            replayed += _both(problem, schedule(entries), calls=graded)
            chunks = ReadPlan("schedule", tuple(
                Chunk(10 * len(entries) - 3 * i, e["task"], e["step"], Fraction(e["start"]),
                      None if "duration" not in e else Fraction(e["duration"]), e.get("agent"))
                for i, e in enumerate(entries)))        # plan indexes not in listed order
            _both(problem, chunks, calls=graded)
    assert total > 3000 and replayed > 1200, (total, replayed)


# ------------------------------------------------------------------------------------------ rare codes
def _step(task, i, dur, kind=ir.Occupancy.CONTINUOUS, *, prerequisites=(), lags=(), uses=(), release=None,
          deadline=None, interruptible=False, occupy=None):
    occ = Fraction(dur) if kind is ir.Occupancy.CONTINUOUS else Fraction(0) if kind is ir.Occupancy.START else \
        Fraction(occupy)
    return SchedStep(task, i, f"step {i} of {task}", Fraction(dur), kind, occ, interruptible, prerequisites, lags,
                     uses, None if release is None else Fraction(release),
                     None if deadline is None else Fraction(deadline))


def _problem(steps, agents=("cook",), limit=None, rule=ir.OccupancyRule.OVERLAP) -> ProcedureProblem:
    resources = (ResourceInstance("oven", 1, (("temperature", 0),), "oven"), ResourceInstance("pan", 2, (), "pan"))
    tasks = tuple(dict.fromkeys(s.task for s in steps))
    return ProcedureProblem("hand", ir.TimeUnit.MIN, agents, tasks, tuple(steps), resources,
                            None if limit is None else Fraction(limit), rule)


def _plan(*entries) -> dict:
    return {"schedule": [dict(zip(("task", "step", "start", "duration", "agent"), e)) for e in entries]}


def _rare_cases() -> list:
    """(problem, plan) pairs for the codes mutants seldom reach."""
    lag_max = (ConcreteLag(0, None, Fraction(2)),)
    lag_min = (ConcreteLag(0, Fraction(3), None),)
    cases = [
        # Step text naming a task (E101) or a step (E102) the scenario lacks
        (_problem([_step("A", 0, 2), _step("A", 1, 1, prerequisites=(0,))]),
         "Step(0, A, 00:02:00, 00:00:00), Step(5, A, 00:01:00, 00:01:00), Step(0, Z, 00:01:00, 00:03:00), "
         "Step(1, A, 00:01:00, 00:01:00)"),
        # a JSON schedule naming an agent (E103), a step (E102) or a task (E101) the scenario lacks
        (_problem([_step("A", 0, 2), _step("A", 1, 1, prerequisites=(0,))], agents=("x", "y")),
         _plan(("A", 0, 0, 2, "nobody"), ("A", 7, 1, 1, "x"), ("Q", 0, 1, 1, "y"), ("A", 1, 3, 1, "y"),
               ("A", 0, 4, 2, "x"))),
        # a negative start (E613), a start before the release (E611); a plan ending before 0 (makespan, E701 time)
        (_problem([_step("A", 0, 2, release=3)]), _plan(("A", 0, -1, 2))),
        (_problem([_step("A", 0, 2), _step("A", 1, 1, prerequisites=(0,)), _step("B", 0, 2, ir.Occupancy.START)]),
         _plan(("A", 0, -5, 2), ("B", 0, -4, 2))),
        # a maximum lag whose dependent is never planned (E603, then E701), a lag partner never finishing (E604)
        (_problem([_step("A", 0, 2), _step("A", 1, 2, lags=lag_max), _step("A", 2, 1)]),
         _plan(("A", 0, 0, 2), ("A", 2, 9, 1))),
        (_problem([_step("A", 0, 4, interruptible=True), _step("A", 1, 2, lags=lag_min)]),
         _plan(("A", 0, 0, 1), ("A", 1, 5, 2))),
        # deadlines passed while running, not started, incomplete (E612); a time limit (E614)
        (_problem([_step("A", 0, 4, deadline=3), _step("B", 0, 2, deadline=1), _step("C", 0, 4, deadline=5,
                                                                                     interruptible=True)],
                  agents=("x", "y", "z"), limit=6),
         _plan(("A", 0, 1, 4, "x"), ("B", 0, 2, 2, "y"), ("C", 0, 0, 1, "z"), ("C", 0, 6, 3, "z"))),
        # an agent not named among several (E014), a zero duration (E502), a repeated step (E801, E802)
        (_problem([_step("A", 0, 2), _step("A", 1, 2, prerequisites=(0,)), _step("B", 0, 3)], agents=("x", "y")),
         _plan(("A", 0, 0, 2), ("A", 1, 3, 0, "x"), ("B", 0, 0, 3, "y"), ("B", 0, 1, 3, "y"), ("B", 0, 5, 3, "y"))),
        # properties (E201 with each hint), resources of capacity 1 and 2 (E411), exclusive and partial occupancy
        (_problem([_step("A", 0, 3, ir.Occupancy.START, uses=(ConcreteUse("oven", (), (("temperature", 200),)),)),
                   _step("A", 1, 2, ir.Occupancy.PARTIAL, occupy=1,
                         uses=(ConcreteUse("oven", (("temperature", 200),), ()),)),
                   _step("A", 2, 2, ir.Occupancy.START, uses=(ConcreteUse("pan", (), ()), ConcreteUse("pan", (), ()))),
                   _step("B", 0, 2, ir.Occupancy.START, uses=(ConcreteUse("oven", (("temperature", 90),), ()),)),
                   _step("B", 1, 3)], rule=ir.OccupancyRule.EXCLUSIVE),
         _plan(("A", 0, 0, 3), ("A", 1, 1, 2), ("A", 2, 1, 2), ("B", 0, 2, 2), ("B", 1, 3, 3), ("A", 1, 4, 2))),
    ]
    return cases


def test_rare_codes(graded):
    for problem, plan in _rare_cases():
        _both(problem, plan, calls=graded)
        _both(problem, plan, reference=plan, calls=graded)
    assert all(graded)


def test_every_code_of_the_exact_engine_is_reached(graded):
    """The codes the integer replay writes, on the rare cases and on random scenarios with mutants."""
    CODES.clear()
    for problem, plan in _rare_cases():
        same(problem, plan)
    rng = random.Random(77)
    for n in range(200):
        problem = random_problem(rng, n, free=n % 5 == 4)
        base = greedy(problem, rng, split=0.6)
        for entries in schedule_mutants(base, rng, problem, 6):
            same(problem, schedule(entries))
    expected = {"E014", "E101", "E102", "E103", "E201", "E301", "E401", "E411", "E501", "E502", "E503", "E511", "E601",
                "E602", "E603", "E604", "E611", "E612", "E613", "E614", "E701", "E801", "E802"}
    assert expected <= CODES, sorted(expected - CODES)


def test_times_out_of_the_typed_range_go_to_the_exact_engine(graded):
    """The sweep and the replay keep times in C int64 when compiled: a start or duration at or beyond ``LIMIT`` (the
    same bound in a pure-Python install; plan files cannot reach it -- the schema caps numbers at 10^12 --, chunks
    given to the API can) makes it decline, and the exact engine writes the report; a plan just inside the bound
    is still replayed.  Both give the exact engine's report."""
    problem = _problem([_step("A", 0, 2), _step("A", 1, 1, prerequisites=(0,))])
    per_minute = 60                                   # the compiled scale of a minute-unit scenario (seconds)
    for value, replayed in ((critic.LIMIT // per_minute + 1, False), (-(critic.LIMIT // per_minute) - 1, False),
                            (10 ** 30, False), (critic.LIMIT // (4 * per_minute), True)):
        for field in ("start", "duration"):
            chunks = [Chunk(0, "A", 0, Fraction(0), Fraction(2)), Chunk(1, "A", 1, Fraction(1), Fraction(1))]
            chunks[0] = replace(chunks[0], **{field: Fraction(value)})
            before = len(graded)
            report = same(problem, ReadPlan("schedule", tuple(chunks)))
            assert not report.valid
            assert graded[before] is replayed, (value, field, graded[before:])
