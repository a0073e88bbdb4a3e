"""PDDL export of a household episode's omniscient relaxation (compiler/pddl/household.py, issue #13 item 5).

Golden files (tests/golden/pddl/household/): the exports of the bundled episodes tea_1 and transport food_1
(UPDATE_GOLDEN=1 regenerates them).  Without planners: every bundled household episode exports
deterministically with P021, goals are resolved to things when their count takes every candidate and
counted otherwise (P022), the drawn placements and walking steps reach the problem, baskets and TDW's
transport are lowered, and ``chronoplan pddl`` writes the files.  With planners (pytest -m planners): Fast
Downward solves the exports of tea_1 and of food_1 (baskets), VAL accepts the plans, and their total cost
(every agent's steps, one after another) is at least the optimum's steps (a sequence is an episode in which
one agent acts at a time, so the optimum can be no longer).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden_util import check_golden as _golden

import chronoplan
from chronoplan.cli import main
from chronoplan.compiler.household.problem import HouseholdProblem
from chronoplan.compiler.pddl.household import export_household
from chronoplan.runtime.household.optimum import optimum
from chronoplan.runtime.planners.external import missing, run_val, run_worker, validate_binary
from chronoplan.validators.families import export_scenario

ROOT = Path(__file__).resolve().parent.parent
HOME = ROOT / "domains" / "household"
TRANSPORT = ROOT / "domains" / "transport"
GOLDEN = Path(__file__).parent / "golden" / "pddl" / "household"
TEA = "tea_1"


@pytest.fixture(scope="module")
def home():
    return chronoplan.load(HOME)


def _episodes(project) -> list:
    return [n for n, s in project.scenarios.items() if s.household is not None]


def test_golden_export(home):
    e = export_scenario(home, TEA)
    _golden(GOLDEN / "domain.pddl", e.domain_text())
    _golden(GOLDEN / "problem.pddl", e.problem_text())


def test_every_episode_exports_deterministically_with_its_placements_and_steps(home):
    names = _episodes(home)
    assert len(names) >= 2
    for name in names:
        a, b = export_household(home, name), export_household(home, name)
        assert (a.domain_text(), a.problem_text()) == (b.domain_text(), b.problem_text())
        assert a.diagnostics[0].code == "P021"
        p = HouseholdProblem(home, name)
        text = a.problem_text()
        for x in p.things:                                   # the seed's draw is the initial state
            assert f"(lies {x} {p.placement[x]})" in text
        for agent in p.agents:
            assert f"(at {agent} {p.starts[agent]})" in text
        r, q = p.rooms[0], p.places[p.surfaces[-1]].name
        assert f"(= (steps {r} {q}) {p.steps(r, q)})" in text


def test_goals_are_things_when_the_count_takes_them_all_and_counters_otherwise(home):
    e = export_household(home, TEA)                          # 2 of 2 cupcakes, 1 of 2 apples, 1 of 2 juices
    goal = e.problem_text().split("(:goal", 1)[1]
    assert "(lies cupcake1 coffeetable)" in goal and "(lies cupcake2 coffeetable)" in goal
    assert "(counted-g2 n1)" in goal and "(counted-g3 n1)" in goal and "apple" not in goal
    p022 = [d for d in e.diagnostics if d.code == "P022"]
    assert [d.message.split(":")[0] for d in p022] == ["goal 1 on(apple, coffeetable)",
                                                       "goal 1 on(juice, coffeetable)"]
    assert "(:action count-g2" in e.domain_text() and "(:action count-g1" not in e.domain_text()


def test_golden_transport_export_with_baskets():
    e = export_scenario(chronoplan.load(TRANSPORT), "food_1")
    _golden(GOLDEN / "transport-domain.pddl", e.domain_text())
    _golden(GOLDEN / "transport-problem.pddl", e.problem_text())


def test_baskets_and_transport_are_lowered():
    project = chronoplan.load(TRANSPORT)
    e = export_household(project, "food_1")
    p = HouseholdProblem(project, "food_1")
    assert [d.code for d in e.diagnostics] == ["P021"]
    dom, prob = e.domain_text(), e.problem_text()
    for action in ("put-in", "settle", "transport", "drop", "finish-transport"):
        assert f"(:action {action}\n" in dom
    assert "basket - thing" in dom and "spot - point" in dom
    # a basket lies at its own point and its fill counter starts at top - capacity (3 of 3 places free)
    assert "(lies plate plate-spot)" in prob and "(fill plate n0)" in prob and "(next n2 n3)" in prob
    assert "(next n3 " not in prob
    for x in p.things:
        assert f"(lies {x} {p.placement[x]})" in prob and f"(item {x})" in prob
    assert "(goal-place bed)" in prob and "(idle alice)" in prob
    # every agent action waits for the end of a transport; bookkeeping costs nothing
    walk = dom[dom.index("(:action walk"):dom.index("(:action open")]
    assert "(idle ?a)" in walk
    assert e.actions["transport"].kind == "transport" and e.actions["put-in"].kind == "put"
    assert {e.actions[a].kind for a in ("settle", "drop", "finish-transport")} == {"count"}


def test_household_without_tdw_syntax_has_no_transport(home):
    dom = export_household(home, TEA).domain_text()
    assert "(:action transport" not in dom and "idle" not in dom and "basket" not in dom


def test_the_command_writes_domain_and_problem(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["pddl", str(HOME), "--scenario", TEA, "-o", str(out), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["ok"] and [d["code"] for d in summary["diagnostics"]] == ["P021", "P022", "P022"]
    assert (out / "domain.pddl").read_text(encoding="utf-8") == (GOLDEN / "domain.pddl").read_text(encoding="utf-8")
    assert (out / "problem.pddl").read_text(encoding="utf-8") == (GOLDEN / "problem.pddl").read_text(encoding="utf-8")


@pytest.mark.planners
@pytest.mark.skipif(missing("fast-downward") is not None, reason=missing("fast-downward") or "")
@pytest.mark.skipif(validate_binary() is None, reason="VAL is not installed: pip install 'chronoplan[planners]'")
@pytest.mark.parametrize("root,scenario", [(HOME, TEA), (TRANSPORT, "food_1")])
def test_fast_downward_solves_val_accepts_and_the_cost_is_at_least_the_optimum(root, scenario, tmp_path):
    project = chronoplan.load(root)
    e = export_household(project, scenario)
    dom, prob = e.write(tmp_path)
    outcome = run_worker("fast-downward", dom, prob, 120, tmp_path)
    assert outcome.status == "solved", outcome.message
    plan = "".join("(" + " ".join((a.name,) + a.args) + ")\n" for a in outcome.actions)
    val = run_val(e.domain_text(), e.problem_text(), plan)
    assert val.valid, val.output
    p = HouseholdProblem(project, scenario)
    cost = 0
    for a in outcome.actions:
        kind = e.actions[a.name].kind if a.name in e.actions else "count"
        if kind == "walk":
            cost += p.steps(e.names.lookup(a.args[1])[1], e.names.lookup(a.args[2])[1])
        elif kind != "count":
            cost += 1
    assert f"Value: {cost}" in val.output                    # VAL's total-cost is the steps counted here
    best = optimum(p)
    assert best.proven and best.steps is not None and cost >= best.steps


def test_a_plan_maps_to_high_level_actions_and_plays_in_parallel():
    from collections import namedtuple

    from chronoplan.runtime.household.actions import ActKind
    from chronoplan.runtime.household.sequence import play, to_steps
    project = chronoplan.load(TRANSPORT)
    p, e = HouseholdProblem(project, "food_1"), export_household(project, "food_1")
    A = namedtuple("A", "name args")
    x, y, z = "bread1", "bread2", "apple1"
    px, py, pz = (p.placement[t] for t in (x, y, z))
    plan = [A("walk", ("alice", "livingroom", px)), A("grab", ("alice", "h1", x, px)),
            A("walk", ("alice", px, py)), A("grab", ("alice", "h2", y, py)),
            A("walk", ("alice", py, "bed")), A("transport", ("alice", "bed")), A("drop", ("alice", "h1", x, "bed")),
            A("finish-transport", ("alice",)),                     # bread2 still held: a put of bread1 alone
            A("walk", ("bob", "office", pz)), A("grab", ("bob", "h1", z, pz)),
            A("walk", ("bob", pz, "bed")), A("transport", ("bob", "bed")), A("drop", ("bob", "h1", z, "bed")),
            A("finish-transport", ("bob",))]                       # everything bob holds: a transport
    steps = to_steps(p, e, plan)
    assert [(s.agent, s.action.kind, s.action.target) for s in steps] == [
        ("alice", ActKind.GRAB, x), ("alice", ActKind.GRAB, y), ("alice", ActKind.PUT, x),
        ("bob", ActKind.GRAB, z), ("bob", ActKind.TRANSPORT, None)]
    played = play(p, steps)
    assert played.error is None and not played.engine.success
    assert played.plan["bob"][0][0] == 0                          # bob does not wait for alice: nothing shared
    assert sum(1 for _, a in played.plan["alice"] if a.kind == ActKind.PUT) == 1


@pytest.mark.planners
@pytest.mark.skipif(missing("fast-downward") is not None, reason=missing("fast-downward") or "")
@pytest.mark.parametrize("root,scenario", [(HOME, TEA), (TRANSPORT, "food_1")])
def test_solve_with_fast_downward_plays_the_plan_as_an_episode(root, scenario, tmp_path, capsys):
    out = tmp_path / "plan.json"
    code = main(["solve", str(root), "--scenario", scenario, "--planner", "fast-downward", "-o", str(out),
                 "--format", "json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["status"] == "feasible" and summary["valid"], summary
    plan = json.loads(out.read_text())
    assert plan["omniscient"] and not plan["proven"] and plan["steps"] == summary["makespan"]
    best = optimum(HouseholdProblem(chronoplan.load(root), scenario))
    assert best.steps is not None and summary["makespan"] >= best.steps


def test_pyperplan_is_refused_for_households_with_what_to_use(capsys):
    assert main(["solve", str(HOME), "--scenario", TEA, "--planner", "pyperplan"]) == 2
    assert "--planner fast-downward" in capsys.readouterr().err
