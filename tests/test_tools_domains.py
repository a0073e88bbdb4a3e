"""The bundled tool domains (domains/tools): catalogue size, structures, reference plans, relative dates."""
import copy
import datetime as dt
import json
from collections import Counter
from pathlib import Path

import pytest

import chronoplan
from chronoplan.compiler.appops import op_named
from chronoplan.validators.tools.dates import find_date_phrases, parse_iso_date
from chronoplan.validators.tools.export import reference_plan, reference_plan_arena
from chronoplan.validators.tools.grade import grade_tool_plan, offered_tools, scenario_today
from chronoplan.validators.tools.refs import StepRef
from chronoplan.validators.tools.structure import STRUCTURES, classify
from chronoplan.validators.tools.values import ANY, ref_value

TOOLS_DIR = Path(__file__).resolve().parent.parent / "domains" / "tools"


@pytest.fixture(scope="module")
def project():
    project, diags, _ = chronoplan.compile_paths(TOOLS_DIR)
    assert project is not None and not [d for d in diags if d.is_error], diags
    assert not diags, [str(d) for d in diags]                      # no warnings either
    return project


def tool_scenarios(project):
    return [s for s in project.scenarios.values() if s.reference]


def test_catalogue(project):
    assert len(project.tools) >= 30
    apps = Counter(t.app for t in project.tools.values())
    assert len(apps) >= 12 and all(apps.values())
    kinds = Counter(p.type.kind for t in project.tools.values() for p in t.params)
    for kind in ("str", "int", "number", "bool", "date", "time", "datetime", "iata", "email", "enum", "list"):
        assert kinds[kind] or any(r.kind == kind for t in project.tools.values() for _, r in t.returns), kind
    assert sum(not p.required for t in project.tools.values() for p in t.params) >= 20
    assert all(t.returns for t in project.tools.values())
    for file in ("travel", "calendar", "shopping", "health"):
        assert (TOOLS_DIR / f"{file}.chrono").exists()


def test_structures(project):
    scens = tool_scenarios(project)
    per = Counter(s.structure for s in scens)
    assert set(per) == set(STRUCTURES) and min(per.values()) >= 2, per
    for s in scens:
        ids = [c.id for c in s.reference]
        edges = {(a, c.id) for c in s.reference for a in c.after}
        assert classify(ids, edges) == s.structure, s.name


def test_reference_fields_exist(project):
    for s in tool_scenarios(project):
        tools = {c.id: project.tools[c.tool] for c in s.reference if op_named(c.tool) is None}
        for c in s.reference:
            for _name, v in c.args:
                if v.kind == "ref":
                    step, field = v.value
                    assert field in {n for n, _ in tools[step].returns}, (s.name, c.id, field)


def test_relative_dates_in_queries_match_references(project):
    """Every date in a reference plan is what a phrase of the query resolves to from the profile's today."""
    relative = 0
    for s in tool_scenarios(project):
        today = scenario_today(s)
        assert isinstance(today, dt.date), s.name
        said = {d for _, d in find_date_phrases(s.query, today)}
        dates = {parse_iso_date(ref_value(v)) for c in s.reference for _, v in c.args if v.kind == "date"}
        assert dates <= said, (s.name, sorted(dates - said), find_date_phrases(s.query, today))
        relative += bool(dates)
    assert relative >= 10


def test_every_reference_plan_is_valid(project):
    for s in tool_scenarios(project):
        for plan, fmt in ((reference_plan(s), "tools"), (reference_plan_arena(s), "planningarena"),
                          (json.dumps(reference_plan(s)), None), (json.dumps(reference_plan_arena(s)), None)):
            r = grade_tool_plan(project, s.name, plan, fmt)
            assert r.valid, (s.name, fmt, r.to_text())
            m = r.metrics
            assert (m["SER"], m["DA"], m["LPR"], m["SMAR"], m["PC"], m["TR"]) == (1,) * 6, (s.name, m)
            if any(op_named(c.tool) for c in s.reference):         # an APP scenario (#15 item 6)
                assert (m["FD_APP"], m["OSC"], m["FD_API"]) == (1, 1, None), (s.name, m)
            else:
                assert (m["FD_API"], m["FD_APP"], m["OSC"]) == (1, None, None), (s.name, m)


def test_mutated_reference_plans_are_caught(project):
    """Per scenario: drop a step, shift a date by a day, duplicate a step -> goal, time-window, repeat."""
    for s in tool_scenarios(project):
        base = reference_plan(s)
        dropped = copy.deepcopy(base)
        gone = dropped["steps"].pop()
        r = grade_tool_plan(project, s.name, dropped)
        assert ("T401", None) in [(e.code, e.index) for e in r.errors], s.name
        assert r.metrics["SER"] < 1 and r.metrics["checkpoints"]["missing_steps"]
        dup = copy.deepcopy(base)
        dup["steps"].append(dict(copy.deepcopy(base["steps"][0]), id=99, after=[]))
        assert [e.code for e in grade_tool_plan(project, s.name, dup).errors] == ["T501"], s.name
        for i, st in enumerate(base["steps"]):
            for k, v in st["args"].items():
                if parse_iso_date(v) if isinstance(v, str) else False:
                    shifted = copy.deepcopy(base)
                    shifted["steps"][i]["args"][k] = (parse_iso_date(v) + dt.timedelta(days=1)).isoformat()
                    r = grade_tool_plan(project, s.name, shifted)
                    assert [(e.code, e.index) for e in r.errors] == [("T601", i)], (s.name, r.to_text())
                    assert r.metrics["checkpoints"]["time_inference_errors"] and r.metrics["TR"] < 1
        assert gone


def test_scenario_tools_are_offered(project):
    for s in tool_scenarios(project):
        offered = offered_tools(project, s)
        assert all(c.tool in offered or op_named(c.tool) for c in s.reference)
        assert all(isinstance(ref_value(v), (str, int, StepRef, tuple)) or v.kind == "number" or ref_value(v) is ANY
                   for c in s.reference for _, v in c.args)


def test_wildcards_and_templates(project):
    """`_` in a reference accepts any value; a template embedding the right output satisfies a reference."""
    s = project.scenario("travel_paris_many_to_many")
    plan = reference_plan(s, project)
    assert plan["steps"][4]["args"]["title"] == "any text"
    plan["steps"][4]["args"]["title"] = "Trip to Paris"
    plan["steps"][5]["args"].update(subject="Your hotel", body="Booked! Confirmation: {step4.confirmation}")
    assert grade_tool_plan(project, s.name, plan).valid
    plan["steps"][5]["args"]["body"] = "Booked! Confirmation: {step3.booking_ref}"     # the flight's output
    assert [(e.code, e.index) for e in grade_tool_plan(project, s.name, plan).errors] == [("T402", 5)]
    del plan["steps"][4]["args"]["title"]
    codes = [e.code for e in grade_tool_plan(project, s.name, plan).errors]
    assert "T202" in codes


def test_list_arguments_compare_by_item_type(project):
    s = project.scenario("shop_groceries_many_to_one")
    plan = reference_plan(s)
    plan["steps"][2]["args"]["items"] = ["Spinach", "firm tofu"]          # str items: words, any order
    assert grade_tool_plan(project, s.name, plan).valid
    plan["steps"][2]["args"]["items"] = ["tofu"]
    assert [(e.code, e.index) for e in grade_tool_plan(project, s.name, plan).errors] == [("T402", 2)]
    s = project.scenario("calendar_meeting_chain")
    plan = reference_plan(s)
    plan["steps"][1]["args"]["participants"] = ["ANA@example.com"]       # email items: case-insensitive
    assert grade_tool_plan(project, s.name, plan).valid
    plan["steps"][1]["args"]["participants"] = ["ana@example.org"]
    assert [e.code for e in grade_tool_plan(project, s.name, plan).errors] == ["T402"]
