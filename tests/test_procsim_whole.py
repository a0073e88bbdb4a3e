"""The exact engine's whole-number replay (procedure.sim: every time an int) against its Fraction replay.

Input: the random scenarios and plans of tests/test_procfast.py (several agents, both occupancy rules,
interruptible steps, lags, resources, properties, releases, deadlines, limits, fractional durations: those
take the Fraction replay) and the Recipe2Plan reference plans with seeded mutants (tests/r2p_mutants.py).
Output: ``procedure.sim.simulate`` gives the same ``SimResult`` -- every violation (code, message, hint, index,
agent, time), every run, every completion, the first-violation event number, the stop flag, the completing
runs -- with the same value types (``Fraction`` times) as ``procedure.sim._replay(..., whole=False)``, critic mode
and ``first`` mode alike; and the whole-number replay is taken for most of these plans.
"""
from __future__ import annotations

import random
from fractions import Fraction

import r2pdata
import test_procfast as tp
from r2p_mutants import mutants as r2p_mutants

from chronoplan.runtime import metrics as M
from chronoplan.runtime.procedure import sim
from chronoplan.validators.plans import read_plan


def _types(res) -> list:
    out = [type(v.time) for v in res.violations]
    out += [(type(r.start), type(r.duration), type(r.busy)) for r in res.runs]
    out += [type(t) for t in res.done.values()]
    return out


def same(problem, chunks, first: bool) -> bool:
    """Both replays agree on ``chunks``; returns whether the whole-number replay could be used."""
    whole = sim._whole_problem(problem) is not False and sim._whole_chunks(chunks) is not None
    got = sim.simulate(problem, chunks, first=first)
    want = sim._replay(problem, list(chunks), first, (), False)
    assert got == want, (problem.scenario, chunks)
    assert got.problem is problem
    assert _types(got) == _types(want)
    assert got._completing == want._completing
    assert [v.time for v in got.violations] == [v.time for v in want.violations]
    return whole


def _chunks(entries) -> list:
    return [sim.Chunk(i, e["task"], e["step"], Fraction(e["start"]),
                          None if e.get("duration") is None else Fraction(e["duration"]), e.get("agent"))
            for i, e in enumerate(entries)]


def test_random_scenarios():
    rng = random.Random(1414)
    whole = total = 0
    for n in range(200):
        problem = tp.random_problem(rng, n, free=n % 4 == 3)
        base = tp.greedy(problem, rng, split=0.6)
        for k, entries in enumerate([base] + tp.mutants(base, rng, problem)):
            total += 1
            whole += same(problem, _chunks(entries), first=k == 1)
    assert total > 800 and 0.2 * total < whole < total, (total, whole)


def test_recipe2plan_mutants():
    plans = r2pdata.plans()
    recipes = {"_".join(r["recipe"] for r in inst): inst for inst in r2pdata.cooking()}
    whole = total = 0
    for key in r2pdata.keys()[:40]:
        ref = plans[key]["plan_w_restriction"]
        if ref is None:
            continue
        problem = r2pdata.problem(key)
        for i, (_, text) in enumerate(r2p_mutants(ref, recipes[key], 14)):
            read = read_plan(text, problem.time_unit)
            total += 1
            whole += same(problem, list(read.actions), first=i % 5 == 0)
    assert total > 100 and whole == total, (total, whole)


def test_int_times_take_the_fraction_replay():
    """Hand-made chunks with int times: the Fraction replay keeps ints in its results, so it replays them."""
    rng = random.Random(7)
    for n in range(30):
        problem = tp.random_problem(rng, n)
        entries = tp.greedy(problem, rng)
        chunks = [sim.Chunk(i, e["task"], e["step"], int(e["start"]) if Fraction(e["start"]).denominator == 1
                                else Fraction(e["start"]), None, e.get("agent")) for i, e in enumerate(entries)]
        assert not same(problem, chunks, first=False)


def test_metrics_sums_of_whole_times():
    """metrics' int sums give sum(..., Fraction(0)) and max(r.end ...) exactly (value and type)."""
    rng = random.Random(8)
    for n in range(60):
        problem = tp.random_problem(rng, n)
        res = sim.simulate(problem, _chunks(tp.greedy(problem, rng)))
        for xs in ([r.duration for r in res.runs], [s.duration for s in problem.steps], [], [1, Fraction(2)]):
            got, want = M._sum(xs), sum(xs, Fraction(0))
            assert got == want and type(got) is type(want)
        got, want = M._finish(res.runs), max((r.end for r in res.runs), default=None)
        assert got == want and type(got) is type(want)
