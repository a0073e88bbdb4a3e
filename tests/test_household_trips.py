"""The omniscient optimum of transport episodes by trip decomposition (runtime/household/trips.py, issue #13).

The decomposition must equal the A* of runtime/household/optimum.py wherever the A* closes (smaller goals,
one or two agents, several seeds of the bundled apartment), its plans must replay through the engine to
success at exactly the optimum, and it proves the optimum of the bundled ten-target episodes that the A*
cannot finish.
"""
from __future__ import annotations

import json
import re

import household_util
import pytest

import chronoplan
from chronoplan.compiler.household.problem import HouseholdProblem
from chronoplan.runtime.household.baseline import run_baseline
from chronoplan.runtime.household.optimum import Method, optimum, replay
from chronoplan.runtime.household.trips import applies, trip_optimum

TRANSPORT = "domains/transport"
TEXT = open(f"{TRANSPORT}/apartment.chrono").read()
GOALS = ("2 on(bread, bed), 1 on(burger, bed), 2 on(apple, bed)",
         "1 on(bread, bed), 1 on(apple, bed), 1 on(banana, bed), 1 on(orange, bed)",   # 2 candidates per goal
         "1 on(iphone, bed), 2 on(pen, bed), 1 on(key, bed), 1 on(ipod, bed)",
         "1 on(lighter, bed), 1 on(purse, bed), 1 on(calculator, bed), 1 on(pencil_bucket, bed), 1 on(mouse, bed)")
AGENTS = (None, "alice at kitchen", "bob at office", "alice at bedroom, bob at kitchen")
CASES = [(0, 2, 3), (0, 0, 1), (1, 0, 2), (1, 1, 1)] + [(g, a, s) for g in (2, 3) for a in range(4) for s in (1, 2)]


def variant(tmp_path, goal: str, agents, seed: int) -> HouseholdProblem:
    """food_1 of the bundled apartment with other goals, agents and seed."""
    text = re.sub(r"goal 2 on\(bread, bed\).*?\n\s+2 on\(orange, bed\)", "goal " + goal, TEXT, flags=re.S)
    text = text.replace("seed 1\n", f"seed {seed}\n")
    if agents:
        text = text.replace("agents alice at livingroom, bob at office", "agents " + agents)
    (tmp_path / "a.chrono").write_text(text)
    return HouseholdProblem(chronoplan.load(str(tmp_path)), "food_1")


@pytest.mark.parametrize("g,a,seed", CASES)
def test_decomposition_equals_the_astar(tmp_path, g, a, seed):
    p = variant(tmp_path, GOALS[g], AGENTS[a], seed)
    assert applies(p)
    found = trip_optimum(p)
    assert found is not None
    steps, proven, plan, _, _ = found
    astar = optimum(p, trips=False)
    assert astar.proven and astar.method == Method.ASTAR
    assert steps == astar.steps and proven
    engine = replay(p, plan)
    assert engine.success and engine.t == steps


def test_a_held_basket_carries_on_after_a_put_on_the_goal(tmp_path):
    # one agent: the A* keeps the tea tray in hand while putting the burger on the bed, then fills the tray on a
    # later walk (54 steps); delivering the basket at the end of every walk would take 55
    p = variant(tmp_path, GOALS[0], "bob at office", 3)
    steps, _, plan, _, _ = trip_optimum(p)          # type: ignore[misc]
    assert steps == 54
    puts_on_bed = [act for _, act in plan["bob"] if act.kind.value == "put" and act.place == "bed"]
    assert puts_on_bed


@pytest.mark.parametrize("scenario", ["food_1", "stuff_1"])
def test_bundled_transport_optimum_is_proven_and_below_the_baseline(scenario):
    p = HouseholdProblem(chronoplan.load(TRANSPORT), scenario)
    opt = optimum(p)
    assert opt.proven and opt.method == Method.TRIPS and opt.steps is not None
    engine = replay(p, opt.plan)
    assert engine.success and engine.t == opt.steps
    assert opt.steps <= run_baseline(p).t


def test_a_horizon_below_the_optimum_is_infeasible(tmp_path):
    text = TEXT.replace("horizon 3000", "horizon 20", 1)
    (tmp_path / "a.chrono").write_text(text)
    p = HouseholdProblem(chronoplan.load(str(tmp_path)), "food_1")
    steps, proven, plan, _, _ = trip_optimum(p)     # type: ignore[misc]
    assert steps is None and proven and plan == {}


def test_other_households_keep_the_astar():
    p = household_util.problem()                     # C-WAH syntax, closed containers
    assert not applies(p)
    assert trip_optimum(p) is None
    assert optimum(p).method == Method.ASTAR


def test_solve_reports_the_proven_transport_optimum(capsys):
    from chronoplan.cli import main
    code = main(["solve", TRANSPORT, "--scenario", "stuff_1", "--planner", "astar", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert json.loads(out)["status"] == "optimal" and "trip decomposition" in err
