"""PDDL plans <-> schedules without external tools: parsing, mapping back, retiming, sequences, and the
PDDL plan written for a schedule (helper actions and epsilon separations)."""
from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chronoplan
from chronoplan.compiler.pddl.names import NameMap, slug
from chronoplan.compiler.pddl.plan import (
    PlanAction,
    TimedEntry,
    parse_plan,
    plan_text,
    retime,
    schedule_sequence,
    to_pddl_plan,
    to_schedule,
)
from chronoplan.runtime.procedure.sim import Chunk, simulate
from chronoplan.validators.families import export_scenario

GOLDEN = Path(__file__).parent / "golden" / "pddl"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def cake():
    proj = chronoplan.load(GOLDEN / "cake.chrono")
    return export_scenario(proj, "cake"), export_scenario(proj, "cake", classical=True)


def _valid(problem, entries):
    res = simulate(problem, [Chunk(i, e.task, e.step, e.start, e.duration, e.agent) for i, e in enumerate(entries)])
    return [v.code for v in res.violations]


# a kairos-style plan of the cake scenario: epsilon 0.001 between dependent events (PDDL units of 6 s)
KAIROS = """
; a comment line
0.000: (step-cake-0) [100.000]
0.000: (clip-cake-2-1) [105.000]
50.001: (step-cake-1 cook1) [50.000]
50.001: (step-cake-3 cook2 slot-fryer-1) [20.000]
70.002: (run-cake-3 slot-fryer-1) [40.000]
100.002: (step-cake-2) [300.000]
100.003: (wait-cake-4-2) [320.000]
420.004: (step-cake-4) [100.000]
520.005: (step-cake-5 cook1) [20.000]
"""


def test_parse_plan_is_tolerant():
    acts = parse_plan("0.0003:   (STEP-COOKING1-4 AGENT1) [2.0000])\n; cost = 3\n"
                      "(step-a)\n2.5: (run-b x)\nnot a plan line\n1e1: (x) [1]\n")
    assert acts[0] == PlanAction(F(3, 10000), "step-cooking1-4", ("agent1",), F(2))
    assert acts[1] == PlanAction(F(1), "step-a", (), None)          # sequential: position
    assert acts[2] == PlanAction(F(5, 2), "run-b", ("x",), None)
    assert acts[3].start == 10 and len(acts) == 4
    assert parse_plan(plan_text(acts)) == sorted(acts, key=lambda a: (a.start, a.name, a.args))


def test_parse_plan_survives_hostile_text():
    junk = "(" * 5000 + "\n1e999999999: (a) [1]\n" + " " * 100000 + "(b)\n" + "9" * 50 + ": (c) [1]\n()\n"
    acts = parse_plan(junk)
    assert [a.name for a in acts] == ["b"]


def test_map_back_and_retime_remove_epsilons(cake):
    e, _ = cake
    mapped = to_schedule(e, parse_plan(KAIROS))
    assert not mapped.problems
    assert mapped.pddl_makespan == F(540005, 10000)             # 540.005 PDDL units in minutes
    by = {x.step: x for x in mapped.entries}
    assert by[1].start == F(50001, 10000) and by[3].agent == "cook2" and by[3].duration == 6
    tight = retime(e.source, mapped.entries, F(1))
    assert [(x.step, x.start) for x in tight] == [(0, 0), (1, 0), (3, 5), (2, 10), (4, 42), (5, 52)]
    assert _valid(e.source, tight) == []
    assert _valid(e.source, mapped.entries) == []               # the epsilon-shifted times are valid too


def test_retime_keeps_decisions_and_detects_inconsistency(cake):
    e, _ = cake
    entries = [TimedEntry("Cake", 0, F(0), F(10), "cook1"), TimedEntry("Cake", 1, F(20), F(5), "cook1"),
               TimedEntry("Cake", 3, F(30), F(6), "cook1"), TimedEntry("Cake", 2, F(26), F(30), "cook1"),
               TimedEntry("Cake", 4, F(58), F(10), "cook1"), TimedEntry("Cake", 5, F(70), F(2), "cook1")]
    tight = retime(e.source, entries, F(1))
    by = {x.step: x.start for x in tight}
    assert by[1] == 0 and by[3] >= by[1] + 5          # mix then fry on one agent, order kept
    assert by[2] == 10 and by[4] == 42 and by[5] == 52
    assert _valid(e.source, tight) == []
    # the ordering decisions of a plan can contradict a maximum lag: C within 0 of A, but the plan runs B
    # between A and C on the only agent
    from chronoplan.compiler import ir
    from chronoplan.compiler.instantiate import ConcreteLag, ProcedureProblem, SchedStep
    c = ir.Occupancy.CONTINUOUS
    steps = (SchedStep("T", 0, "A", F(2), c, F(2), False, (), (), (), None, None),
             SchedStep("T", 1, "B", F(2), c, F(2), False, (), (), (), None, None),
             SchedStep("T", 2, "C", F(1), c, F(1), False, (0,), (ConcreteLag(0, None, F(0)),), (), None, None))
    p = ProcedureProblem("t", ir.TimeUnit.TICK, ("a",), ("T",), steps, (), None)
    order = [TimedEntry("T", 0, F(0), F(2), "a"), TimedEntry("T", 1, F(2), F(2), "a"),
             TimedEntry("T", 2, F(4), F(1), "a")]
    assert retime(p, order, F(1)) is None
    swapped = [TimedEntry("T", 1, F(0), F(2), "a"), TimedEntry("T", 0, F(3), F(2), "a"),
               TimedEntry("T", 2, F(5), F(1), "a")]
    assert [(x.step, x.start) for x in retime(p, swapped, F(1))] == [(1, 0), (0, 2), (2, 4)]


def test_unknown_and_repeated_actions_are_reported(cake):
    e, _ = cake
    m = to_schedule(e, parse_plan("0: (step-nope) [1]\n0: (step-cake-0) [100]\n1: (step-cake-0) [100]\n"
                                  "2: (step-cake-1 ghost) [50]\n"))
    assert any("step-nope" in p for p in m.problems)
    assert any("runs twice" in p for p in m.problems)
    assert any("unknown agent ghost" in p for p in m.problems)


def test_classical_sequence_is_rescheduled(cake):
    _, c = cake
    order = "(step-cake-3)\n(step-cake-0)\n(step-cake-1)\n(step-cake-2)\n(step-cake-4)\n(step-cake-5)\n"
    m = to_schedule(c, parse_plan(order))
    assert not m.problems and [x.step for x in m.entries] == [3, 0, 1, 2, 4, 5]
    by = {x.step: x for x in m.entries}
    assert by[3].start == 5                                  # release
    assert by[0].start == 0 and by[1].start == 0             # backfilled before the step listed first
    assert by[1].agent == "cook1" and by[3].agent == "cook1"  # mix [0, 5) and fry's first 2 min [5, 7)
    assert by[2].start == 10 and by[4].start == 42 and by[5].start == 52
    assert _valid(c.source, m.entries) == []


def test_sequence_keeps_the_meaning_of_property_order(cake):
    _, c = cake
    seq = schedule_sequence(c.source, [("Cake", 1), ("Cake", 0), ("Cake", 2)])
    by = {x.step: x.start for x in seq}
    assert by[2] == 10                                       # bake waits for preheat (sets the value)
    # a second setter listed after a needer starts no earlier than it, so the needer keeps its value
    from chronoplan.compiler import ir
    from chronoplan.compiler.instantiate import ConcreteUse, ProcedureProblem, ResourceInstance, SchedStep
    st = ir.Occupancy.START
    oven = (ResourceInstance("oven", 2, (("t", 0),), "oven"),)
    steps = (SchedStep("T", 0, "heat", F(4), st, F(0), False, (), (), (ConcreteUse("oven", (), (("t", 200),)),),
                       None, None),
             SchedStep("T", 1, "bake", F(6), st, F(0), False, (), (), (ConcreteUse("oven", (("t", 200),), ()),),
                       None, None),
             SchedStep("T", 2, "cool", F(1), st, F(0), False, (), (), (ConcreteUse("oven", (), (("t", 0),)),),
                       None, None))
    p = ProcedureProblem("t", ir.TimeUnit.TICK, ("a",), ("T",), steps, oven, None)
    seq = {x.step: x.start for x in schedule_sequence(p, [("T", 0), ("T", 1), ("T", 2)])}
    assert seq == {0: 0, 1: 4, 2: 4}
    assert _valid(p, [x for x in schedule_sequence(p, [("T", 0), ("T", 1), ("T", 2)])]) == []


def test_pddl_plan_of_a_schedule(cake):
    e, _ = cake
    sched = [TimedEntry("Cake", 0, F(0), F(10), "cook1"), TimedEntry("Cake", 1, F(0), F(5), "cook1"),
             TimedEntry("Cake", 3, F(5), F(6), "cook2"), TimedEntry("Cake", 2, F(10), F(30), "cook1"),
             TimedEntry("Cake", 4, F(42), F(10), "cook1"), TimedEntry("Cake", 5, F(52), F(2), "cook1")]
    text, tol = to_pddl_plan(e, sched)
    acts = {a.name: a for a in parse_plan(text)}
    assert set(acts) == {"step-cake-0", "step-cake-1", "step-cake-2", "step-cake-3", "run-cake-3",
                         "step-cake-4", "step-cake-5", "clip-cake-2-1", "wait-cake-4-2"}
    eps = tol * 2
    assert acts["clip-cake-2-1"].start < acts["step-cake-1"].start           # envelope opens first
    assert acts["wait-cake-4-2"].start > acts["step-cake-2"].start           # timer after its anchor
    assert acts["step-cake-2"].start > 100 and acts["step-cake-2"].start - 100 < 5   # after mix's end
    assert acts["run-cake-3"].start > acts["step-cake-3"].start + 20
    assert acts["step-cake-3"].args == ("cook2", "slot-fryer-1")
    assert acts["step-cake-1"].duration == 50 and acts["run-cake-3"].duration == 40
    assert eps > 0 and max(a.start for a in acts.values()) < 520 + 5 / 2
    # names outside the export are written as given, so that VAL rejects them
    text2, _ = to_pddl_plan(e, [TimedEntry("Cake", 9, F(0), F(1), "ghost")])
    assert "(step-cake-9)" in text2


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=30))
def test_name_map_is_injective_and_reversible(names):
    m = NameMap()
    issued = {}
    for _i, text in enumerate(names):
        key = ("obj", text)
        name = m.name(key, None, text)
        assert name == m.name(key, None, text)                   # stable
        assert name[0].isalpha() and all(c.isalnum() or c in "-_" for c in name) and name == name.lower()
        issued.setdefault(name, set()).add(key)
        assert m.lookup(name.upper()) == key
    assert all(len(keys) == 1 for keys in issued.values())


def test_slug():
    assert slug("Roast-Chicken") == "roast-chicken" and slug("a b/c") == "a-b-c" and slug("x_1") == "x_1"
