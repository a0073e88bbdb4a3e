"""`chronoplan import paracook`: ParaCook map JSON -> scenario; ParaCook plans validate identically on it."""
import json

import pytest
from kitchen_util import grade
from test_kitchen_plans import BURGER_B

import chronoplan
from chronoplan.cli import main
from chronoplan.compiler.importers import ImportFormatError
from chronoplan.compiler.importers.paracook import convert_map, station_kind

# The generated burger_s42 map written in ParaCook's JSON map format (x = column, y = row).
BURGER_MAP = {
    "name": "kitchen", "width": 10, "height": 8,
    "agents": [{"name": "agent1", "x": 9, "y": 7}, {"name": "agent2", "x": 7, "y": 7}],
    "tiles": [
        {"x": 0, "y": 0, "type": "station", "name": "chopping_board1"},
        {"x": 2, "y": 0, "type": "station", "name": "table1"},
        {"x": 6, "y": 0, "type": "station", "name": "dispenser1", "provides": "cheese"},
        {"x": 7, "y": 0, "type": "station", "name": "table2", "item": "plate"},
        {"x": 8, "y": 0, "type": "station", "name": "chopping_board2"},
        {"x": 9, "y": 0, "type": "station", "name": "dispenser2", "provides": "lettuce"},
        {"x": 4, "y": 1, "type": "station", "name": "stove1", "item": "pan"},
        {"x": 3, "y": 2, "type": "station", "name": "stove2", "item": "pan"},
        {"x": 1, "y": 2, "type": "obstacle", "name": "wall"},
        {"x": 5, "y": 3, "type": "station", "name": "serving_window1"},
        {"x": 0, "y": 4, "type": "station", "name": "dispenser3", "provides": "tomato"},
        {"x": 1, "y": 4, "type": "station", "name": "dispenser4", "provides": "bread"},
        {"x": 4, "y": 4, "type": "obstacle", "name": "wall"},
        {"x": 7, "y": 4, "type": "station", "name": "table3"},
        {"x": 0, "y": 5, "type": "station", "name": "sink1"},
        {"x": 5, "y": 5, "type": "station", "name": "table4", "item": "plate"},
        {"x": 4, "y": 6, "type": "station", "name": "dispenser5", "provides": "meat"},
        {"x": 4, "y": 7, "type": "station", "name": "plate_return1"},
    ],
}


def imported(tmp_path, data=BURGER_MAP, orders="burger/burger_basic", name="kitchen42"):
    src = tmp_path / f"{name}.json"
    src.write_text(json.dumps(data))
    out = tmp_path / "out" / f"{name}.chrono"
    assert main(["import", "paracook", str(src), "--orders", orders, "-o", str(out)]) == 0
    return out


def test_import_and_validate_like_the_native_scenario(tmp_path, capsys):
    out = imported(tmp_path)
    native = grade("burger_s42_o1_a2", BURGER_B)
    p = chronoplan.load(out)
    assert list(p.scenarios) == ["kitchen42"]
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps({"reasoning": "agent1 cooks, agent2 plates", "plan": BURGER_B}))
    capsys.readouterr()
    assert main(["validate", str(out), str(plan_file), "--format", "json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["valid"] and line["scenario"] == "kitchen42"
    assert line["metrics"] == native.to_json()["metrics"]
    # without the "plan" key the whole object is the plan; extra keys such as "CoT" are ignored
    plan_file.write_text(json.dumps(dict(BURGER_B, CoT=["step 1"])))
    assert main(["validate", str(out), str(plan_file), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]["oct"] == 47


def test_names_are_kept_even_out_of_reading_order(tmp_path):
    data = json.loads(json.dumps(BURGER_MAP))
    for t in data["tiles"]:                      # swap the names of the meat and bread dispensers
        if t.get("name") == "dispenser5":
            t["name"] = "dispenser4"
        elif t.get("name") == "dispenser4":
            t["name"] = "dispenser5"
    out = imported(tmp_path, data)
    m = next(iter(chronoplan.load(out).maps.values()))
    st = {s.name: (s.x, s.y, s.arg) for s in m.stations}
    assert st["dispenser4"] == (4, 6, "meat") and st["dispenser5"] == (1, 4, "bread")
    assert {s.name: s.item for s in m.stations}["table2"] == "plate"


def test_station_kind_rules():
    assert [station_kind(n) for n in ("table3", "dispenser_meat", "chopping_board2", "stove1", "serving_window1",
                                      "sink", "plate_return1", "trash1", "oven")] == [
        "table", "dispenser", "chopping_board", "stove", "serving_window", "sink", "plate_return", "trash", None]


@pytest.mark.parametrize("mutate,orders,message", [
    (lambda d: d["tiles"].append({"x": 3, "y": 3, "type": "station", "name": "oven1"}), "burger_basic",
     "cannot tell the kind"),
    (lambda d: d["tiles"][2].update(provides="caviar"), "burger_basic", "not a known ingredient"),
    (lambda d: d["tiles"][1].update(item="meat"), "burger_basic", "initial items may only be"),
    (lambda d: d["agents"][0].update(x=4, y=7), "burger_basic", "not a floor tile"),
    (lambda d: d["tiles"].append({"x": 0, "y": 0, "type": "obstacle"}), "burger_basic", "used twice"),
    (lambda d: d.update(width="ten"), "burger_basic", "expected an integer"),
    (lambda d: None, "burger_royale", "unknown dish"),
    (lambda d: None, "salad/burger_basic", "is in category 'burger'"),
    (lambda d: None, "", "give the orders"),
])
def test_import_errors(mutate, orders, message):
    data = json.loads(json.dumps(BURGER_MAP))
    mutate(data)
    with pytest.raises(ImportFormatError, match=message):
        convert_map(data, "k", orders)


def test_cli_import_errors(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["import", "paracook", str(bad), "--orders", "burger_basic", "-o", str(tmp_path / "x.chrono")]) == 2
    assert "invalid JSON" in capsys.readouterr().err
    assert main(["import", "recipe2plan", str(bad), "--orders", "x", "-o", str(tmp_path / "y")]) == 2
    assert "--orders is only used" in capsys.readouterr().err
