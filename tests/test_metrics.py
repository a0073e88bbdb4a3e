"""Metrics: progress score, efficiency, reference truncation, TimeArena batch scores, lower bounds."""
from __future__ import annotations

from fractions import Fraction

import pytest

import chronoplan
from chronoplan.compiler.instantiate import procedure_problem
from chronoplan.runtime import metrics as M
from chronoplan.runtime.procedure.sim import Chunk, simulate

DOMAIN = """
domain mtest
resource oven capacity 1
resource hob capacity 2
procedure P {
  step 0 "a" 3
  step 1 "b" 10 autonomous uses oven
  step 2 "c" 8 after 0 gap 2 after 0 release 1
  step 3 "d" 6 autonomous uses oven
  step 4 "e" 2 autonomous for 1 uses hob
  step 5 "f" 2 autonomous for 1 uses hob
  step 6 "g" 2 autonomous for 1 uses hob
}
scenario one { agents x  procedures P }
scenario two { agents x, y  procedures P }
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    p = tmp_path_factory.mktemp("m") / "m.chrono"
    p.write_text(DOMAIN)
    return chronoplan.load(p)


def test_lower_bound_parts(project):
    one = procedure_problem(project, project.scenario("one"))
    lb = M.lower_bound(one)
    assert lb.critical_path == 3 + 2 + 8           # a, the 2-tick gap, c (longer than b alone)
    assert lb.agent_load == 3 + 8 + 1 + 1 + 1       # continuous steps + first tick of each partial step
    assert lb.resource_load == 16                   # b and d share the oven
    assert lb.value == 16
    two = procedure_problem(project, project.scenario("two"))
    assert M.lower_bound(two).agent_load == 7


def test_progress_score_is_floored_and_duration_weighted(project):
    one = procedure_problem(project, project.scenario("one"))
    total = 3 + 10 + 8 + 6 + 2 + 2 + 2
    assert M.progress_score(one, [("P", 0)]) == 100 * 3 // total == 9
    assert M.progress_score(one, [("P", 1), ("P", 3)]) == 1600 // total
    assert M.progress_score(one, [s.key for s in one.steps]) == 100
    assert M.progress_score(one, []) == 0


def test_efficiency_and_reference(project):
    one = procedure_problem(project, project.scenario("one"))
    chunks = [Chunk(0, "P", 1, Fraction(0)), Chunk(1, "P", 0, Fraction(0)), Chunk(2, "P", 2, Fraction(5)),
              Chunk(3, "P", 3, Fraction(10)), Chunk(4, "P", 4, Fraction(13)), Chunk(5, "P", 5, Fraction(14)),
              Chunk(6, "P", 6, Fraction(15))]
    res = simulate(one, chunks)
    assert res.violations == ()
    e = M.multitask_efficiency(one, res.runs, res.done)
    assert e == Fraction(33 - 17, 10 + 6 + 2 + 2 + 2)
    assert M.reference_efficiency(one, chunks, 7) == e
    assert M.reference_efficiency(one, chunks, 1) == 0          # one autonomous entry: nothing saved
    assert M.reference_efficiency(one, chunks[1:], 1) is None   # no autonomous entry: undefined
    assert M.relative_efficiency(e, None) is None and M.relative_efficiency(e, Fraction(0)) is None
    assert M.multitask_score(Fraction(1, 2), Fraction(1)) == Fraction(1, 2)
    assert M.multitask_score(Fraction(1, 2), Fraction(6, 7)) == 0
    m = M.plan_metrics(res, chunks)
    assert m["relative_efficiency"] == 1 and m["makespan"] == 17 and m["success"]


def test_progress_counts_until_first_violation(project):
    one = procedure_problem(project, project.scenario("one"))
    chunks = [Chunk(0, "P", 0, Fraction(0)), Chunk(1, "P", 2, Fraction(4)),   # gap 1 < 2: violation at 4
              Chunk(2, "P", 1, Fraction(20))]
    res = simulate(one, chunks)
    assert [v.code for v in res.violations][:1] == ["E602"]
    assert set(res.done) == {("P", 0), ("P", 2), ("P", 1)}
    assert set(res.clean_done) == {("P", 0)}                    # the original environment stops at the error
    assert M.progress(res) == Fraction(1, 7)


def test_arena_summary():
    eps = [M.EpisodeScore(100, Fraction(20), True), M.EpisodeScore(50, Fraction(30), False),
           M.EpisodeScore(100, Fraction(10), True)]
    s = M.arena_summary(eps)
    assert s["AS"] == Fraction(250, 3)
    assert s["CS"] == Fraction(250, 60)
    assert s["CR"] == Fraction(200, 3)
    assert s["CT"] == 15
    assert M.arena_summary([]) == {"AS": None, "CS": None, "CR": None, "CT": None}
    assert M.arena_summary([M.EpisodeScore(0, Fraction(0), False)])["CT"] is None


def test_minutes_conversion():
    from chronoplan.compiler import ir
    assert M.minutes(Fraction(90), ir.TimeUnit.S) == Fraction(3, 2)
    assert M.minutes(Fraction(2), ir.TimeUnit.H) == 120
    assert M.minutes(Fraction(7), ir.TimeUnit.TICK) == 7
