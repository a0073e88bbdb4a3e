"""Error kinds of the kitchen validator: one plan per kind, on the generated burger map (seed 42).

burger_s42 (see test_kitchen_plans.py for the legend):
    0123456789
  0 C.t...5TC3       agent1 starts at (9,7), agent2 at (7,7)
  1 ....P.....
  2 .#.P......
  3 .....S....
  4 41..#..t..
  5 K....T....
  6 ....2.....
  7 ....R.....
"""
import json

import pytest
from kitchen_util import GENERATED, IN, F, M, P, W, codes, generated, grade

from chronoplan.cli import main
from chronoplan.validators.kitchen.grade import grade_grid_plan

SCEN = "burger_s42_o1_a2"
S1 = "burger_s42_o1_a1"


def only(rep, code, category):
    got = [(e.code, e.category) for e in rep.errors if e.code != "E751"]
    assert got == [(code, category)], rep.to_text()
    return next(e for e in rep.errors if e.code == code)


@pytest.mark.parametrize("cell,what", [((4, 1), "station stove1"), ((1, 2), "a wall"),
                                       ((10, 3), "outside the 10x8 map"), ((-1, 0), "outside")])
def test_move_to_infeasible_location(cell, what):
    e = only(grade(S1, {"agent1": [M(*cell)]}), "E250", "precondition")
    assert what in e.message and e.index == 0 and e.time == 0 and e.agent == "agent1"


def test_move_to_unreachable_floor(tmp_path):
    src = tmp_path / "closed.chrono"
    src.write_text(f'domain paracook\nimport "{(GENERATED.parent / "physics.chrono").as_posix()}"\n'
                   'map closed """\n  ..S#.\n  ..T#.\n  ...##\n""" where S = serving_window, T = table with plate\n'
                   'scenario closed { map closed agents agent1 at (0, 0) orders salad_basic }\n')
    import chronoplan
    rep = grade_grid_plan(chronoplan.load(src), "closed", {"plan": {"agent1": [M(4, 0)]}})
    e = only(rep, "E250", "precondition")
    assert "no floor path" in e.message


def test_interact_from_a_distance():
    e = only(grade(S1, {"agent1": [IN("table2")]}), "E251", "precondition")
    assert "not next to table2" in e.message and "(7, 1)" in e.message.replace("[7, 1]", "(7, 1)")
    assert e.message.startswith("Interact table2: agent1 at") and e.message.count("not next to") == 1  # said once
    assert "MoveTo" in e.hint


def test_picking_up_while_holding():
    plan = {"agent1": [M(9, 1), IN("dispenser2"),         # lettuce1 (dispenser2 (9,0) above (9,1))
                       M(8, 1), IN("chopping_board2"),     # put lettuce1 on the board
                       M(9, 1), IN("dispenser2"),          # lettuce2 in hand
                       M(8, 1), IN("chopping_board2")]}    # the board holds lettuce1: hands full
    e = only(grade(S1, plan), "E252", "precondition")
    assert e.index == 7 and "agent1 holds lettuce2" in e.message and "pick_up" in e.message and "put_down" in e.message


def test_ingredient_not_accepted_by_cookware():
    # raw meat into the pan (a pan takes chopped meat): the closest operator fails on accepts(pan1, meat1)
    plan = {"agent1": [M(5, 6), IN("dispenser5"), M(4, 2), IN("stove1")]}
    e = only(grade(S1, plan), "E257", "precondition")
    assert "accepts(pan1, meat1)" in e.message
    # issue 28 item 18: the cause leads (it was the fourth of eight "operator: condition" clauses, 440 characters)
    assert e.message.startswith("Interact stove1: add_to_cookware: accepts(pan1, meat1) is false (agent1 holds meat1")
    assert e.message.count(" is false") == 1 and "no operator applies (also tried: put_on_stove, pick_up" in e.message
    assert len(e.message) < 260


def test_unknown_names():
    rep = grade(S1, {"agent1": [IN("stove9"), {"action": "Chop", "target": "stove1"}], "agent7": [F]})
    assert sorted((e.code, e.category, e.agent, e.index) for e in rep.errors if e.code != "E751") == [
        ("E150", "unknown-name", "agent1", 1), ("E151", "unknown-name", "agent7", None),
        ("E152", "unknown-name", "agent1", 0)]
    e152 = next(e for e in rep.errors if e.code == "E152")
    assert e152.message == "unknown station 'stove9'" and "did you mean" in e152.hint and "stove1" in e152.hint


def test_wrong_dish_is_a_goal_error():
    plan = {"agent1": [M(7, 1), IN("table2"), M(2, 4), IN("dispenser4"),   # plate1, then bread onto it
                       M(4, 3), IN("serving_window1")]}
    rep = grade(S1, plan)
    e = only(rep, "E750", "goal")
    assert "burger_basic" in e.message and "bread1 (raw)" in e.message
    assert ("E751", "goal", None, None) in codes(rep) and rep.metrics["success"] is False


def test_station_busy_is_resource_busy():
    plan = {"agent1": [M(9, 1), IN("dispenser2"), M(8, 1), IN("chopping_board2"), P("chopping_board2")],
            # agent2 reaches (8,1) at 7 via (7,6),(7,5),(8,5),(8,4),(8,3),(8,2),(8,1) and processes at 7
            "agent2": [M(8, 1), P("chopping_board2")]}
    rep = grade(SCEN, plan)
    e = only(rep, "E450", "resource-busy")
    assert e.agent == "agent2" and e.time == 7 and "in use by agent1" in e.message


def test_process_on_the_wrong_station_kind():
    e = only(grade(S1, {"agent1": [M(5, 1), P("stove1")]}), "E253", "precondition")
    assert "chop needs a chopping_board" in e.message


def test_negative_wait_and_after_finish():
    rep = grade(S1, {"agent1": [W(-1), F, M(8, 1)]})
    assert [(e.code, e.category, e.index) for e in rep.errors if e.code != "E751"] == [
        ("E550", "duration", 0), ("E256", "precondition", 2)]


def test_taking_the_ingredient_off_a_running_chop():
    # agent1 chops meat on chopping_board2 [13, 17]; agent2 takes plate1 at 8 (from (7,1), 8 moves away),
    # steps to (8,1) [8, 9], waits [9, 15] and scoops the meat off the board at 15
    plan = {"agent1": [M(5, 6), IN("dispenser5"), M(8, 1), IN("chopping_board2"), P("chopping_board2")],
            "agent2": [M(7, 1), IN("table2"), M(8, 1), W(6), IN("chopping_board2")]}
    rep = grade(SCEN, plan)
    e = only(rep, "E258", "precondition")
    assert e.agent == "agent1" and e.index == 4 and e.time == 15 and "on(meat1, chopping_board2)" in e.message


@pytest.mark.parametrize("plan,code,where", [
    ({"agent1": [{"action": "MoveTo", "target": "here"}]}, "E010", "target must be [x, y]"),
    ({"agent1": [{"action": "MoveTo"}]}, "E010", "needs \"target\""),
    ({"agent1": [{"action": "Wait", "duration": "3"}]}, "E010", "must be a number"),
    ({"agent1": [{"action": "Wait", "duration": 10 ** 13}]}, "E011", "finite number"),
    ({"agent1": [{"action": "Interact", "target": 7}]}, "E010", "must be a name"),
    ({"agent1": [["MoveTo", [1, 1]]]}, "E010", "expected an object"),
    ({"agent1": [{"target": [1, 1]}]}, "E010", "\"action\" must be a string"),
    ({"agent1": "MoveTo"}, "E010", "expected a list"),
])
def test_schema_errors(plan, code, where):
    rep = grade(S1, plan)
    e = rep.errors[0]
    assert (e.code, e.category) == (code, "schema") and where in e.message, rep.to_text()


def test_hostile_plans_give_reports():
    p = generated()
    for bad in ("not json", "", "[1, 2]", '{"plan": 5}', '{"plan": {"agent1": [{"action": "Wait", "duration": NaN}]}}',
                json.dumps({"plan": {"agent1": [{"action": "Wait", "duration": 1}] * 100_001}}), b"\xff\xfe"):
        rep = grade_grid_plan(p, S1, bad)
        assert not rep.valid and rep.errors and rep.errors[0].category in ("syntax", "schema")
        json.dumps(rep.to_json(), allow_nan=False)


def test_first_stops_at_the_first_error():
    plan = {"agent1": [IN("table2"), M(4, 1), IN("stove9")]}
    assert [e.code for e in grade(S1, plan).errors] == ["E251", "E250", "E152", "E751"]
    assert [e.code for e in grade(S1, plan, first=True).errors] == ["E251"]


def test_cli_validate_json_lines(tmp_path, capsys):
    from test_kitchen_plans import BURGER_B
    good = tmp_path / "burger_s42_o1_a2.json"
    good.write_text(json.dumps({"reasoning": "two cooks", "plan": BURGER_B}))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"agent1": [M(4, 1)]}))            # no "plan" key: the object is the plan
    assert main(["validate", str(GENERATED), str(good), "--format", "json"]) == 0
    line = json.loads(capsys.readouterr().out.strip())
    assert line["valid"] and line["scenario"] == "burger_s42_o1_a2" and line["metrics"]["oct"] == 47
    assert main(["validate", str(GENERATED), str(bad), "--scenario", S1, "--format", "json",
                 "--plan-format", "paracook"]) == 1
    line = json.loads(capsys.readouterr().out.strip())
    assert line["errors"][0]["code"] == "E250" and line["errors"][0]["category"] == "precondition"


def test_time_limit(tmp_path):
    import chronoplan
    src = tmp_path / "limit.chrono"
    src.write_text(f'domain paracook\nimport "{(GENERATED / "burger_s42.chrono").as_posix()}"\n'
                   "scenario limited { map burger_s42 agents agent1 at (9, 7) orders burger_basic limit 10 }\n")
    rep = grade_grid_plan(chronoplan.load(src), "limited", {"plan": {"agent1": [W(8), M(5, 6)]}})
    # the Wait ends at 8, the MoveTo (5 tiles) would end at 13 > 10
    assert [(e.code, e.category, e.time) for e in rep.errors][:1] == [("E650", "time-window", 10)]
