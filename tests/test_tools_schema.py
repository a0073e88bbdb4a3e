"""JSON Schemas of tool plans (validators/tools/schema.py): contract shape, reference plans, agreement with the
grader."""
import copy
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

import chronoplan
from chronoplan.validators.tools.export import reference_plan
from chronoplan.validators.tools.grade import grade_tool_plan, offered_tools
from chronoplan.validators.tools.schema import op_tools, tool_plan_schema

TOOLS_DIR = Path(__file__).resolve().parent.parent / "domains" / "tools"
STEP_LOCAL = ("T1", "T2", "T602")        # problems a per-step schema can see (names, parameters, formats)


@pytest.fixture(scope="module")
def project():
    return chronoplan.load(TOOLS_DIR)


def validator(schema):
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def test_contract_shape(project):
    for name, scen in project.scenarios.items():
        schema = tool_plan_schema(project, name)
        Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        branches = schema["$defs"]["step"]["oneOf"]
        tools = offered_tools(project, scen)
        ops = op_tools(project, scen)                      # APP operations follow the tools (#15 item 6)
        assert [b["properties"]["tool"] for b in branches] == [{"const": t} for t in [*tools, *(o.name for o in ops)]]
        for b, tool in zip(branches, tools.values()):
            args = b["properties"]["args"]
            assert args["type"] == "object" and args["additionalProperties"] is False
            assert set(args["properties"]) == {p.name for p in tool.params}
            assert args["required"] == [p.name for p in tool.params if p.required]
        json.dumps(schema)


def test_reference_plans_validate(project):
    for name, scen in project.scenarios.items():
        v = validator(tool_plan_schema(project, name))
        plan = reference_plan(scen)
        assert not list(v.iter_errors(plan)), name
        for form in ("{step%d.%s}", "<output of step %d: %s>", "${%d.%s}"):
            alt = copy.deepcopy(plan)
            for st in alt["steps"]:
                for k, val in st["args"].items():
                    if isinstance(val, str) and val.startswith("$") and "." in val:
                        n, f = val[1:].split(".", 1)
                        st["args"][k] = form % (int(n), f)
            assert not list(v.iter_errors(alt)), (name, form)
            assert grade_tool_plan(project, name, alt).valid


def _mutations(plan, scen, project):
    """Plans with one step-local defect each (and a few harmless edits)."""
    tools = offered_tools(project, scen)
    out = []
    for i, st in enumerate(plan["steps"]):
        if st["tool"] not in tools:
            continue                                       # APP operations: tests/test_tools_planningarena_plans.py
        tool = tools[st["tool"]]
        m = copy.deepcopy(plan)
        m["steps"][i]["tool"] = st["tool"] + "X"
        out.append(m)
        m = copy.deepcopy(plan)
        m["steps"][i]["args"]["bogus_param"] = 1
        out.append(m)
        for p in tool.params:
            m = copy.deepcopy(plan)
            if p.name in m["steps"][i]["args"]:
                del m["steps"][i]["args"][p.name]
                out.append(m)
            bad = {"str": 5, "int": "7", "number": "x", "bool": "yes", "date": "2025/01/02", "time": "7pm",
                   "datetime": "tomorrow 9am", "iata": "Paris", "email": "me@", "enum": "not_a_member",
                   "list": "one"}.get(p.type.kind)
            if bad is not None:
                m = copy.deepcopy(plan)
                m["steps"][i]["args"][p.name] = bad
                out.append(m)
            good = {"str": "text", "int": 3, "number": 2.5, "bool": True, "date": "2026-02-28", "time": "07:05",
                    "datetime": "2026-02-28T07:05", "iata": "NRT", "email": "x@y.org"}.get(p.type.kind)
            if good is not None:
                m = copy.deepcopy(plan)
                m["steps"][i]["args"][p.name] = good
                out.append(m)
    return out


def test_schema_agrees_with_grader_on_step_local_errors(project):
    """Differential check: the schema rejects a plan iff the grader finds a name/parameter/format error."""
    checked = 0
    for name, scen in project.scenarios.items():
        v = validator(tool_plan_schema(project, name))
        for plan in _mutations(reference_plan(scen), scen, project):
            schema_ok = not list(v.iter_errors(plan))
            report = grade_tool_plan(project, name, plan)
            local = [e.code for e in report.errors if e.code.startswith(STEP_LOCAL)]
            assert schema_ok == (not local), (name, json.dumps(plan)[:300], local)
            checked += 1
    assert checked > 500


def test_rejects_wrong_shapes(project):
    v = validator(tool_plan_schema(project, "travel_weather_parallel"))
    good = {"steps": [{"id": 1, "tool": "queryWeather", "args": {"city": "Rome", "date": "2025-03-21"}}]}
    assert not list(v.iter_errors(good))
    for bad in ({}, {"steps": {}}, {"steps": [1]}, {"steps": [], "extra": 1},
                {"steps": [{"id": 1, "tool": "queryWeather"}]},
                {"steps": [dict(good["steps"][0], after=["1"])]},
                {"steps": [dict(good["steps"][0], app="maps")]},
                {"steps": [dict(good["steps"][0], note="x")]},
                {"steps": [{"id": -1, "tool": "queryWeather", "args": good["steps"][0]["args"]}]}):
        assert list(v.iter_errors(bad)), bad
