"""`chronoplan validate` and `chronoplan schema` on the bundled tool scenarios (dispatch to
tools_grade/tools_schema)."""
import json
from pathlib import Path

import pytest

import chronoplan
from chronoplan.cli import main
from chronoplan.validators.tools.export import reference_plan, reference_plan_arena

TOOLS_DIR = Path(__file__).resolve().parent.parent / "domains" / "tools"


@pytest.fixture(scope="module")
def project():
    return chronoplan.load(TOOLS_DIR)


def test_validate_json_lines(project, tmp_path, capsys):
    scen = project.scenario("travel_flight_hotel_chain")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(reference_plan(scen)))               # matched by its "scenario" key
    arena = reference_plan_arena(scen)
    arena["OrderSteps"]["StepDetail"][0]["Action"] = arena["OrderSteps"]["StepDetail"][0]["Action"].replace(
        "2025-03-21", "2025-03-14")
    bad = tmp_path / "travel_flight_hotel_chain.json"              # matched by the file name
    bad.write_text(json.dumps(arena))
    hostile = tmp_path / "travel_weather_parallel.json"
    hostile.write_text('{"OrderSteps": {"StepDetail": [{"Action": "__import__(\'os\').system(\'x\')"}]}}')
    status = main(["validate", str(TOOLS_DIR), str(good), str(bad), str(hostile), "--format", "json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert status == 1 and len(lines) == 3
    assert lines[0]["valid"] and lines[0]["metrics"]["LPR"] == 1
    assert not lines[1]["valid"] and [(e["code"], e["category"], e["index"]) for e in lines[1]["errors"]] == [
        ("T601", "time-window", 0)]
    assert "next Friday" in lines[1]["errors"][0]["hint"]
    assert lines[2]["errors"][0]["code"] == "T002" and lines[2]["metrics"]["SMAR"] == 0


def test_validate_plan_format_flag(project, tmp_path, capsys):
    scen = project.scenario("shop_checkout_chain")
    path = tmp_path / "p.json"
    path.write_text(json.dumps(reference_plan_arena(scen)))
    assert main(["validate", str(TOOLS_DIR), str(path), "--scenario", scen.name,
                 "--plan-format", "planningarena", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["valid"]


def test_schema_command(capsys):
    assert main(["schema", str(TOOLS_DIR), "--scenario", "health_diet_chain"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert [b["properties"]["tool"]["const"] for b in schema["$defs"]["step"]["oneOf"]][:3] == [
        "calculateBMI", "getExercisePlan", "logWorkout"]
