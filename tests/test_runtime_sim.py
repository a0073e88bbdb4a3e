"""Simulator semantics and one test plan per error category (code, category, index, time)."""
from __future__ import annotations

from fractions import Fraction

import pytest

import chronoplan
from chronoplan.compiler.instantiate import procedure_problem
from chronoplan.runtime.procedure.sim import Chunk, simulate
from chronoplan.validators.replay import validate_plan

DOMAIN = """
domain simtest
resource oven capacity 1 { temperature = 0 }
resource pan capacity 2
procedure A {
  step 0 "preheat" 10 autonomous uses oven sets temperature = 350
  step 1 "mix" 3 interruptible
  step 2 "pour" 2 after 1 within 2 of 1
  step 3 "bake" 20 autonomous after 0, 2 uses oven needs temperature = 350
  step 4 "rest" 5 after 3 gap 2 after 3 release 33 deadline 60
}
procedure B {
  step 0 "fry" 4 autonomous for 1 uses pan
  step 1 "boil" 4 autonomous for 1 uses pan
  step 2 "stir" 2 after 0, 1
}
procedure C {
  step 0 "toast" 5 autonomous uses oven sets temperature = 200
}
procedure L {
  step 0 "whip" 2
  step 1 "fold" 1 within 3 of 0
}
scenario solo { agents cook  procedures A, B, C  limit 100 }
scenario duo { agents c1, c2  procedures A, B, C }
scenario lagged { agents cook  procedures L }
"""

# (task, step, start[, duration]) in plan order; indices are list positions
VALID = [("A", 0, 0), ("A", 1, 0), ("A", 2, 3), ("B", 0, 5), ("B", 1, 6), ("A", 3, 10), ("B", 2, 10),
         ("C", 0, 30), ("A", 4, 33)]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    path = tmp_path_factory.mktemp("sim") / "simtest.chrono"
    path.write_text(DOMAIN)
    return chronoplan.load(path)


@pytest.fixture(scope="module")
def solo(project):
    return procedure_problem(project, project.scenario("solo"))


def plan(entries, agents=None):
    out = []
    for i, e in enumerate(entries):
        d = {"task": e[0], "step": e[1], "start": e[2]}
        if len(e) > 3 and e[3] is not None:
            d["duration"] = e[3]
        if agents:
            d["agent"] = agents[i]
        out.append(d)
    return {"schedule": out}


def replace(entries, index, new):
    out = list(entries)
    out[index] = new
    return out


def errors(problem, entries, **kw):
    rep = validate_plan(problem, plan(entries, kw.pop("agents", None)), **kw)
    return rep, [(e.code, e.category, e.index, e.time) for e in rep.errors]


def test_valid_plan_and_instants(solo):
    # bake starts when preheat ends (ends before starts: the oven is free and already at 350),
    # stir starts when boil ends, toast takes the oven when bake releases it, pour at max lag - 0
    rep, errs = errors(solo, VALID)
    assert errs == []
    assert rep.valid and rep.metrics["success"] and rep.metrics["makespan"] == 38


def test_max_lag_boundary_is_inclusive(solo):
    entries = [("A", 0, 0), ("A", 1, 0), ("B", 0, 3), ("A", 2, 5), ("B", 1, 7), ("A", 3, 10), ("B", 2, 11),
               ("C", 0, 30), ("A", 4, 33)]
    assert errors(solo, entries)[1] == []
    late = replace(entries, 3, ("A", 2, 6))
    late[4] = ("B", 1, 8)
    late[6] = ("B", 2, 12)
    assert errors(solo, late)[1] == [("E601", "time-window", 3, 6)]


@pytest.mark.parametrize("index,entry,expected", [
    (6, ("B", 2, 9), [("E301", "dependency", 6, 9)]),
    (3, ("B", 0, 4), [("E401", "agent-busy", 3, 4)]),
    (6, ("B", 2, 10, 5), [("E501", "duration", 6, 10)]),
    (6, ("B", 2, 10, 0), [("E502", "duration", 6, 10)]),
    (2, ("A", 2, 3, 1), [("E511", "interrupt", 2, 3)]),
    (8, ("A", 4, 32), [("E611", "time-window", 8, 32)]),
    (8, ("A", 4, 56), [("E612", "time-window", 8, 60)]),
    (7, ("C", 0, -5), [("E613", "time-window", 7, -5)]),
    (7, ("C", 0, 98), [("E614", "time-window", 7, 100)]),
    (7, ("Z", 0, 50), [("E101", "unknown-name", 7, 50), ("E701", "goal", None, 38)]),
    (7, ("C", 9, 50), [("E102", "unknown-name", 7, 50), ("E701", "goal", None, 38)]),
])
def test_each_error_category(solo, index, entry, expected):
    assert errors(solo, replace(VALID, index, entry))[1] == expected


def test_resource_busy(solo):
    entries = VALID[:7] + [("C", 0, 5), ("A", 4, 33)]
    # toast holds the oven on [5, 10) while preheat holds it on [0, 10); toast then sets 200 at 10,
    # after preheat set 350, so bake at 10 needs 350 and finds 200
    got = errors(solo, entries)[1]
    assert got[0] == ("E411", "resource-busy", 7, 5)
    assert got[1] == ("E201", "precondition", 5, 10)


def test_precondition_property_set_at_end(solo):
    entries = [("A", 0, 0), ("A", 1, 0), ("A", 2, 3), ("B", 0, 5), ("B", 1, 6), ("C", 0, 10), ("A", 3, 15),
               ("B", 2, 10), ("A", 4, 37)]
    rep, got = errors(solo, entries)
    assert got == [("E201", "precondition", 6, 15)]
    assert "temperature = 350" in rep.errors[0].message and "step 0 of A" in rep.errors[0].hint


def test_min_lag(solo):
    got = errors(solo, replace(VALID, 8, ("A", 4, 31)))[1]
    assert ("E602", "time-window", 8, 31) in got and ("E611", "time-window", 8, 31) in got


def test_goal_missing_step(solo):
    rep, got = errors(solo, VALID[:7] + VALID[8:])
    assert got == [("E701", "goal", None, 38)]
    assert rep.metrics["progress"] == Fraction(8, 9)


@pytest.mark.parametrize("extra,expected", [
    (("B", 2, 12), ("E801", "repeat", 9, 12)),
    (("B", 2, 11), ("E802", "repeat", 9, 11)),
])
def test_repeat(solo, extra, expected):
    assert errors(solo, VALID + [extra])[1] == [expected]


def test_interruptible_chunks(solo):
    split = [("A", 1, 0, 1), ("A", 1, 1, 2)] + VALID[:1] + VALID[2:]
    assert errors(solo, split)[1] == []
    gap = [("A", 1, 0, 1), ("A", 1, 2, 2)] + VALID[:1] + VALID[2:]   # chunks [0,1) and [2,4): pour at 3
    assert [e[0] for e in errors(solo, gap)[1]] == ["E301", "E401"]
    short = [("A", 1, 0, 1), ("A", 1, 1, 1)] + VALID[:1] + VALID[2:]
    codes = [e[0] for e in errors(solo, short)[1]]
    assert "E503" in codes and "E301" in codes
    e503 = next(e for e in errors(solo, short)[1] if e[0] == "E503")
    assert e503[2] == 1


def test_unknown_agent_and_missing_agent(project, solo):
    rep, got = errors(solo, VALID, agents=["cook"] * 6 + ["bob"] + ["cook"] * 2)
    assert got == [("E103", "unknown-name", 6, 10)]        # stir is skipped but not also reported missing
    duo = procedure_problem(project, project.scenario("duo"))
    rep, got = errors(duo, VALID)
    assert {e[0] for e in got} == {"E014"}
    assert [e[2] for e in got] == [1, 2, 3, 4, 6, 8]    # steps occupying an agent need one; autonomous do not


def test_two_agents_and_same_instant_order(project):
    duo = procedure_problem(project, project.scenario("duo"))
    agents = ["c1", "c1", "c1", "c2", "c2", "c1", "c2", "c2", "c1"]
    entries = [("A", 0, 0), ("A", 1, 0), ("A", 2, 3), ("B", 0, 0), ("B", 1, 1), ("A", 3, 10), ("B", 2, 5),
               ("C", 0, 30), ("A", 4, 33)]
    assert errors(duo, entries, agents=agents)[1] == []
    # both want the oven at 30: c1's preheat (agent order) wins although c2's toast is listed first
    res = simulate(duo, [Chunk(0, "C", 0, Fraction(30), None, "c2"), Chunk(1, "A", 0, Fraction(30), None, "c1")])
    busy = [v for v in res.violations if v.code == "E411"]
    assert [(v.index, v.agent, v.time) for v in busy] == [(0, "c2", 30)]
    res = simulate(duo, [Chunk(0, "C", 0, Fraction(30), None, "c1"), Chunk(1, "A", 0, Fraction(30), None, "c2")])
    assert [(v.index, v.agent) for v in res.violations if v.code == "E411"] == [(1, "c2")]


def test_lag_partner_checks(project):
    lagged = procedure_problem(project, project.scenario("lagged"))
    # fold never starts: the max lag expires at end(whip) + 3 = 5
    got = errors(lagged, [("L", 0, 0)])[1]
    assert got == [("E603", "time-window", None, 5), ("E701", "goal", None, 2)]
    # fold starts, whip never finishes (and is not a prerequisite)
    got = errors(lagged, [("L", 1, 0)])[1]
    assert ("E604", "time-window", 0, 1) in got and ("E701", "goal", None, 1) in got
    # fold starts before whip ends: checked when whip completes (negative gap is within a max lag)
    assert errors(lagged, [("L", 1, 0), ("L", 0, 1)])[1] == []


def test_several_independent_faults_all_reported(solo):
    entries = replace(VALID, 6, ("B", 2, 10, 5)) + [("Z", 0, 50), ("B", 2, 20)]
    entries = replace(entries, 7, ("C", 0, 98))
    rep, got = errors(solo, entries)
    assert [e[0] for e in got] == ["E501", "E801", "E101", "E614"]
    assert [e[2] for e in got] == [6, 10, 9, 7]
    rep1, got1 = errors(solo, entries, first=True)
    assert got1 == [("E501", "duration", 6, 10)]
    assert not rep1.valid


def test_hint_names_the_repair(solo):
    rep, _ = errors(solo, replace(VALID, 3, ("B", 0, 4)))
    assert rep.errors[0].hint == "start step 0 of B at or after 5"
    late = [("A", 0, 0), ("A", 1, 0), ("B", 0, 3), ("B", 1, 4), ("A", 2, 6), ("A", 3, 10), ("B", 2, 11),
            ("C", 0, 30), ("A", 4, 33)]
    rep, _ = errors(solo, late)
    assert rep.errors[0].hint == "start step 2 of A no later than 5"


def test_determinism_plan_order_does_not_matter(solo):
    a = validate_plan(solo, plan(VALID)).to_json()
    b = validate_plan(solo, plan(list(reversed(VALID)))).to_json()
    assert a["metrics"] == b["metrics"] and a["valid"] and b["valid"]
    bad = replace(VALID, 3, ("B", 0, 4))
    e1 = [(e.code, e.time) for e in validate_plan(solo, plan(bad)).errors]
    e2 = [(e.code, e.time) for e in validate_plan(solo, plan(list(reversed(bad)))).errors]
    assert e1 == e2
