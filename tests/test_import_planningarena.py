"""`chronoplan import planningarena`: small files written here in PlanningArena's formats (tool catalogue in both
signature shapes, tasks with GroundTruth strings, a user profile) -> .chrono files that check clean, warnings
naming each item the source lacks, gold plans usable as references by `chronoplan validate`, failure modes."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

CATALOGUE = {
    "app_tools": {"Shopping Scenarios": ["Ele.me", "Taobao"]},
    "travel_tools": {
        "queryFlights": {
            "requiredParams": {"departureDate ": {"type": "date"}, "origin": {"type": "str"},
                               "destination": {"type": "str"}},
            "optionalParams": {"cabinClass": {"type": "Enum", "enum": ["economy", "business"]},
                               "passengers": {"type": "int"}},
        },
        "bookFlight": {
            "requiredParams": {"flightNumber": {"type": "str"}, "contactNumber": {"type": "str"}},
        },
    },
    "shopping_tools": {
        "1688DataHub": {"keyword": {"type": "String", "required": True},
                        "sort": {"type": "Enum", "required": False},
                        "maxPrice": {"type": "Number", "required": False},
                        "arrivalDate": {"type": "Date (yyyy-mm-dd)", "required": False}},
    },
}


def gold(steps):
    plan = {"GlobalThought": "think", "OrderSteps": {"TotalSteps": len(steps), "StepDetail": [
        {"StepNumber": i + 1, "Description": "d", "Action": a} for i, a in enumerate(steps)]}}
    return json.dumps([{"MessageNumber": "1", "Query": "header query"}, plan])


FLIGHT_STEPS = ["queryFlights({'departureDate': '2025-03-21', 'origin': 'Boston', 'destination': 'Paris', "
                "'cabinClass': 'economy'})",
                "bookFlight({'flightNumber': '<output of step 1>', 'contactNumber': '555-0100'})"]
TASKS = [
    {"Operational Scenario": "API", "Scenario": "1_travel", "Relation": "SAPI", "Task ID": 1,
     "Query-en": "Book an economy flight from Boston to Paris on 2025-03-21.", "level": 2, "User_ID": "User1",
     "Struct": "chain", "GroundTruth": gold(FLIGHT_STEPS)},
    {"Operational Scenario": "API", "Scenario": "3_shopping", "Task ID": "2",
     "Query-en": "Find cheap phone cases on 1688.",
     "GroundTruth": gold(["1688DataHub({'keyword': 'phone case', 'maxPrice': 10, 'colour': 'red'})"])},
    {"Operational Scenario": "APP", "Scenario": "3_shopping", "Task ID": 3, "Query-en": "Order food.",
     "GroundTruth": gold(["Tap({'app': 'Ele.me'})"])},
]
PROFILE = {"name": "Li Wei", "age": 31, "phone ": "555-0100", "home": {"city": "Boston"},
           "today": "2025-03-12", "hobbies": ["chess", "tea"]}


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "chronoplan.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd)


@pytest.fixture()
def arena(tmp_path):
    (tmp_path / "tool_list.json").write_text(json.dumps(CATALOGUE), encoding="utf-8")
    (tmp_path / "data.json").write_text(json.dumps(TASKS), encoding="utf-8")
    (tmp_path / "users").mkdir()
    (tmp_path / "users" / "user_1.json").write_text(json.dumps(PROFILE), encoding="utf-8")
    return tmp_path


@pytest.fixture()
def imported(arena):
    r = run("import", "planningarena", arena / "tool_list.json", "--tasks", arena / "data.json",
            "--profiles", arena / "users", "-o", arena / "out")
    assert r.returncode == 0, r.stderr
    return arena, r


def test_output_checks_clean(imported):
    arena, r = imported
    out = arena / "out"
    assert sorted(p.name for p in out.iterdir()) == ["tasks.chrono", "tools.chrono"]
    c = run("check", out)
    assert c.returncode == 0, c.stdout + c.stderr
    assert "error" not in (c.stdout + c.stderr).lower().replace("0 errors", "")
    tools = (out / "tools.chrono").read_text()
    assert 'cabinClass?: enum("economy", "business")' in tools      # enum with values
    assert "departureDate: date" in tools                           # trailing space stripped, required date
    assert "arrivalDate?: date" in tools and "maxPrice?: number" in tools and "keyword: str" in tools
    assert "tool tool_1688DataHub(" in tools and "sort?: str" in tools
    tasks = (out / "tasks.chrono").read_text()
    assert "scenario task_1 {" in tasks and "scenario task_2 {" in tasks and "task_3" not in tasks
    assert 'query "Book an economy flight' in tasks
    assert 'name = "Li Wei"' in tasks and "today = 2025-03-12" in tasks and 'home_city = "Boston"' in tasks
    assert 'hobbies = ["chess", "tea"]' in tasks and 'phone = "555-0100"' in tasks
    assert ('1: queryFlights(departureDate = 2025-03-21, origin = "Boston", destination = "Paris", '
            'cabinClass = "economy")') in tasks
    assert '2: bookFlight(flightNumber = _, contactNumber = "555-0100") after 1' in tasks


def test_warnings_name_each_item(imported):
    arena, r = imported
    lines = [x for x in r.stderr.splitlines() if x.startswith("chronoplan import: warning: ")]
    assert len(lines) == len(r.stderr.splitlines())
    text = "\n".join(lines)
    tl = str(arena / "tool_list.json")
    assert f"{tl}: tool '1688DataHub'.'sort': enum lists no values" in text
    assert f"{tl}: tool '1688DataHub': tool name is not an identifier" in text and "'tool_1688DataHub'" in text
    assert f"{tl}: tool 'queryFlights'.'departureDate ': parameter name has leading or trailing spaces" in text
    for t in ("queryFlights", "bookFlight", "1688DataHub"):
        assert f"{tl}: tool '{t}': declares no return fields" in text
    assert f"{tl}: app_tools: 2 app names in 1 scenarios describe no operations" in text
    data = str(arena / "data.json")
    assert f"{data}: task 3: an APP task" in text
    assert f"{data}: task '2' step 1: parameter 'colour' is not a parameter of 'tool_1688DataHub'" in text
    assert "profile key is not an identifier" in text and "'phone '" in text


def test_gold_plan_grades_valid_and_wrong_plan_invalid(imported, tmp_path):
    arena, _ = imported
    good = {"GlobalThought": "g", "OrderSteps": {"TotalSteps": 2, "StepDetail": [
        {"StepNumber": 1, "Action": FLIGHT_STEPS[0]}, {"StepNumber": 2, "Action": FLIGHT_STEPS[1]}]}}
    bad = {"GlobalThought": "g", "OrderSteps": {"TotalSteps": 1, "StepDetail": [
        {"StepNumber": 1, "Action": FLIGHT_STEPS[0].replace("2025-03-21", "2025-03-22")}]}}
    (tmp_path / "good.json").write_text(json.dumps(good))
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    for name, valid in (("good.json", True), ("bad.json", False)):
        r = run("validate", arena / "out", tmp_path / name, "--scenario", "task_1", "--format", "json",
                "--no-progress")
        rep = json.loads(r.stdout)
        rep = rep[0] if isinstance(rep, list) else rep
        assert rep["valid"] is valid, r.stdout + r.stderr
        assert (r.returncode == 0) is valid
    codes = {e["code"] for e in rep["errors"]}
    assert {"T401", "T601"} <= codes


def test_catalogue_alone_and_json_report(arena):
    r = run("import", "planningarena", arena / "tool_list.json", "-o", arena / "o2", "--format", "json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["ok"] and [p.endswith("tools.chrono") for p in rep["files"]] == [True]
    assert any("enum lists no values" in w for w in rep["warnings"])
    assert run("check", arena / "o2").returncode == 0


def test_convert_api_collects_warnings(arena):
    from chronoplan.commands.importer import load_format
    got = []
    files = load_format("planningarena").convert([arena / "tool_list.json"], tasks=str(arena / "data.json"),
                                                 warn=lambda f, item, msg: got.append((item, msg)))
    assert set(files) == {"tools.chrono", "tasks.chrono"}
    assert ("tool '1688DataHub'.'sort'", "enum lists no values; imported as 'str' (any string is accepted)") in got


@pytest.mark.parametrize("setup, message", [
    (lambda d: None, "no such file"),
    (lambda d: (d / "tool_list.json").write_text("{not json"), "invalid JSON"),
    (lambda d: (d / "tool_list.json").write_text("[1, 2]"), "expected a JSON object of tool groups"),
    (lambda d: (d / "tool_list.json").write_text('{"travel_tools": {"f": 3}}'), "tool 'f' must be an object"),
    (lambda d: (d / "tool_list.json").write_text('{"travel_tools": {"f": {"p": "str"}}}'),
     "parameter 'p' must be an object"),
    (lambda d: (d / "tool_list.json").write_text('{"travel_tools": []}'), "expected an object of tool name"),
])
def test_failures_exit_2_without_traceback(tmp_path, setup, message):
    setup(tmp_path)
    r = run("import", "planningarena", tmp_path / "tool_list.json", "-o", tmp_path / "out")
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr
    assert r.stderr.startswith("chronoplan import: error: ")


def test_bad_tasks_and_profiles_exit_2(arena):
    (arena / "bad.json").write_text('{"Task ID": 1}')
    r = run("import", "planningarena", arena / "tool_list.json", "--tasks", arena / "bad.json", "-o", arena / "o")
    assert r.returncode == 2 and "expected a JSON list of task records" in r.stderr and "Traceback" not in r.stderr
    r = run("import", "planningarena", arena / "tool_list.json", "--tasks", arena / "missing.json", "-o", arena / "o")
    assert r.returncode == 2 and "no such file" in r.stderr
    r = run("import", "planningarena", arena / "tool_list.json", "--tasks", arena / "data.json",
            "--profiles", arena / "nope", "-o", arena / "o")
    assert r.returncode == 2 and "not a directory" in r.stderr
    (arena / "users" / "user_1.json").write_text("[1]")
    r = run("import", "planningarena", arena / "tool_list.json", "--tasks", arena / "data.json",
            "--profiles", arena / "users", "-o", arena / "o")
    assert r.returncode == 2 and "a user profile must be a JSON object" in r.stderr
    r = run("import", "paracook", arena / "tool_list.json", "--tasks", arena / "data.json", "-o", arena / "o.chrono")
    assert r.returncode == 2 and "--tasks is only used by the planningarena format" in r.stderr


def test_unreadable_gold_plan_is_warned_not_dropped_silently(arena):
    tasks = [{"Operational Scenario": "API", "Task ID": 9, "Query-en": "q", "GroundTruth": "not json"},
             {"Operational Scenario": "API", "Task ID": 10, "Query-en": "q",
              "GroundTruth": gold(["noSuchTool({'a': 1})"])},
             {"Operational Scenario": "API", "Task ID": 11, "Query-en": "q",
              "GroundTruth": gold(["bookFlight({'flightNumber': 5})"])}]
    (arena / "t.json").write_text(json.dumps(tasks))
    r = run("import", "planningarena", arena / "tool_list.json", "--tasks", arena / "t.json", "-o", arena / "o")
    assert r.returncode == 0, r.stderr
    assert "task 9: GroundTruth is not JSON" in r.stderr
    assert "task 10 step 1: calls 'noSuchTool', which the catalogue does not declare" in r.stderr
    assert "task 11 step 1: value 5 of 'flightNumber' does not fit its type str" in r.stderr
    assert "misses required parameter 'contactNumber'" in r.stderr
    text = (arena / "o" / "tasks.chrono").read_text()
    assert "1: bookFlight(flightNumber = _, contactNumber = _)" in text
    c = run("check", arena / "o")
    assert c.returncode == 0, c.stdout + c.stderr


def test_missing_type_and_required_flag_are_warned(tmp_path):
    (tmp_path / "t.json").write_text(json.dumps({"misc_tools": {"ping": {"host": {"type": "str"},
                                                                         "port": {"required": True},
                                                                         "mode": {"type": "Colour"}}}}))
    r = run("import", "planningarena", tmp_path / "t.json", "-o", tmp_path / "o")
    assert r.returncode == 0, r.stderr
    assert "tool 'ping'.'host': no \"required\": true|false flag; imported as optional" in r.stderr
    assert "tool 'ping'.'port': parameter has no type; imported as 'any'" in r.stderr
    assert "tool 'ping'.'mode': unknown type 'Colour'; imported as 'any'" in r.stderr
    assert "tool ping(host?: str, port: any, mode?: any)" in (tmp_path / "o" / "tools.chrono").read_text()
    assert run("check", tmp_path / "o").returncode == 0
    r = run("import", "planningarena", tmp_path / "t.json", "--profiles", tmp_path, "-o", tmp_path / "o2")
    assert r.returncode == 2 and "--profiles needs --tasks" in r.stderr


def test_hostile_names_and_values_still_check_clean(tmp_path):
    cat = {"x_tools": {"tool": {"list": {"type": "int", "required": True},
                                "enum": {"type": "Enum", "required": False, "values": ["a b", "1", 2]},
                                "true": {"type": "list", "required": False},
                                "after": {"type": "number", "required": False}}}}
    tasks = [{"Operational Scenario": "API", "Task ID": "a\nb\"c", "Query-en": "q\r\n\"x\"\\",
              "GroundTruth": gold(["tool({'list': -3, 'enum': 2, 'true': [1, -2.5, 'x'], 'after': 1e30})",
                                   "tool(5, 'a b')"])}]
    (tmp_path / "t.json").write_text(json.dumps(cat))
    (tmp_path / "d.json").write_text(json.dumps(tasks))
    r = run("import", "planningarena", tmp_path / "t.json", "--tasks", tmp_path / "d.json", "-o", tmp_path / "o")
    assert r.returncode == 0, r.stderr
    assert "\"Task ID\" is not an identifier (or is used twice); the scenario is 'task_a_b_c'" in r.stderr
    text = (tmp_path / "o" / "tasks.chrono").read_text()
    assert '1: tool(list = -3, enum = "2", true = [1, -2.5, "x"], after = 1' in text
    assert '2: tool(list = 5, enum = "a b")' in text
    c = run("check", tmp_path / "o")
    assert c.returncode == 0, c.stdout + c.stderr
