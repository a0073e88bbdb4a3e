"""Generated JSON Schemas: valid draft 2020-12, real names in enums, reference plans conform."""
from __future__ import annotations

import copy

import pytest
import r2pdata
from jsonschema import Draft202012Validator

import chronoplan
from chronoplan.validators.schema import schema_for

DOMAIN = """
domain stest
procedure Tea { step 0 "boil" 3 min autonomous  step 1 "steep" 4 min after 0 within 1 min of 0 }
procedure Toast { step 0 "toast" 2 min autonomous for 1 min  step 1 "butter" 1 min interruptible after 0 }
scenario one { unit s  agents me  procedures Tea, Toast  limit 1 h }
scenario two { unit min  agents a, b  procedures Tea }
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    p = tmp_path_factory.mktemp("s") / "s.chrono"
    p.write_text(DOMAIN)
    return chronoplan.load(p)


def test_schema_is_valid_and_names_the_scenario(project):
    schema = schema_for(project, "one")
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    action = schema["$defs"]["action"]
    assert action["properties"]["task"]["enum"] == ["Tea", "Toast"]
    assert action["properties"]["agent"]["enum"] == ["me"]
    assert "agent" not in action["required"]
    steps = {b["properties"]["task"]["const"]: b["properties"]["step"]["enum"] for b in action["oneOf"]}
    assert steps == {"Tea": [0, 1], "Toast": [0, 1]}
    assert "seconds" in action["properties"]["start"]["description"]
    assert "1: butter (60, continuous, interruptible)" in action["oneOf"][1]["properties"]["step"]["description"]
    assert schema["properties"]["schedule"]["minItems"] == 4


def test_schema_accepts_valid_and_rejects_hallucinations(project):
    v = Draft202012Validator(schema_for(project, "one"))
    good = {"scenario": "one", "schedule": [
        {"task": "Tea", "step": 0, "start": 0}, {"task": "Toast", "step": 0, "start": 0},
        {"task": "Toast", "step": 1, "start": 120, "duration": 30}, {"task": "Tea", "step": 1, "start": 180},
        {"task": "Toast", "step": 1, "start": 420, "duration": 30, "agent": "me"}]}
    assert list(v.iter_errors(good)) == []
    for path, value in [(("task",), "Coffee"), (("step",), 2), (("agent",), "you"), (("start",), -1),
                        (("duration",), 0), (("note",), "x")]:
        bad = copy.deepcopy(good)
        bad["schedule"][0][path[0]] = value
        assert list(v.iter_errors(bad)), path
    steps_of_tea = copy.deepcopy(good)
    steps_of_tea["schedule"][0] = {"task": "Tea", "step": 5, "start": 0}
    assert list(v.iter_errors(steps_of_tea))


def test_multi_agent_requires_agent(project):
    schema = schema_for(project, "two")
    action = schema["$defs"]["action"]
    assert action["required"] == ["task", "step", "start", "agent"]
    assert action["properties"]["agent"]["enum"] == ["a", "b"]
    assert "minutes" in action["properties"]["start"]["description"]


def test_dispatch(project):
    from pathlib import Path
    assert project.scenario("one").kind.value == "procedures"
    with pytest.raises(KeyError):
        schema_for(project, "nope")
    kitchen = chronoplan.load(Path(__file__).resolve().parents[1] / "domains" / "paracook")
    scen = next(iter(kitchen.scenarios))
    assert kitchen.scenario(scen).kind.value == "grid"
    assert schema_for(kitchen, scen)["$id"] == f"urn:chronoplan:paracook:{scen}"


def test_recipe2plan_reference_plans_conform():
    proj = r2pdata.project(True)
    for key in r2pdata.keys()[::5]:
        schema = schema_for(proj, key)
        Draft202012Validator.check_schema(schema)
        ref = r2pdata.reference(key, True) or r2pdata.reference(key, False)
        assert list(Draft202012Validator(schema).iter_errors(ref)) == [], key
