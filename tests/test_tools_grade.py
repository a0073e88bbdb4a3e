"""Rule-based grading of tool plans (validators/tools/grade.py): one plan per error code, metrics, hostile input."""
import copy
import json
import os
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronoplan
from chronoplan.validators.report import CATEGORIES, Report
from chronoplan.validators.tools.export import reference_plan, reference_plan_arena
from chronoplan.validators.tools.grade import grade_tool_plan

TEXT = '''
domain tooltest
app flights "Flights" {
  tool searchFlights(origin: iata, destination: iata, date: date, cabin?: enum(economy, business) = economy)
    -> (flight_id: str, price: number)
  tool bookFlight(flight_id: str, email: email, seat?: enum(window, aisle)) -> (booking_ref: str)
  tool getFlightStatus(flight_number: str, date: date) -> (status: str)
}
app weather { tool queryWeather(city: str, date: date, unit?: enum(C, F) = C) -> (summary: str) }
app hotels {
  tool bookHotel(city: str, check_in: date, check_out: date, guests: int, breakfast?: bool, time?: time,
                 tags?: list[str]) -> (confirmation: str)
}
app music { tool playSong(title: str) }
tool ping(host: str)

scenario trip {
  apps flights, weather, hotels
  query "Fly from Boston to Paris next Friday and book it, check the Paris weather that day, and book a hotel \
for two until three days later."
  profile { today = 2025-03-12  email = "li@example.com"  home_airport = "BOS" }
  structure many-to-many
  reference {
    1: searchFlights(origin = "BOS", destination = "CDG", date = 2025-03-21)
    2: bookFlight(flight_id = $1.flight_id, email = "li@example.com") after 1
    3: queryWeather(city = "Paris", date = 2025-03-21)
    4: bookHotel(city = "Paris", check_in = 2025-03-21, check_out = 2025-03-24, guests = 2) after 2
  }
}
scenario noref { apps weather  tools ping  profile { today = 2025-03-12 } }
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    path = tmp_path_factory.mktemp("tools") / "trip.chrono"
    path.write_text(TEXT)
    return chronoplan.load(path)


@pytest.fixture(scope="module")
def ref(project):
    return reference_plan(project.scenario("trip"))


def grade(project, plan, fmt=None, scenario="trip", **kw):
    report = grade_tool_plan(project, scenario, plan, fmt, **kw)
    assert isinstance(report, Report)
    line = report.to_json_line()                                  # JSON-safe, no NaN
    assert json.loads(line)["scenario"] == report.scenario
    assert report.to_text()
    return report


def found(report):
    return [(e.code, e.index) for e in report.errors]


def edit(ref, fn):
    plan = copy.deepcopy(ref)
    fn(plan["steps"])
    return plan


def test_reference_is_valid_in_both_formats(project, ref):
    scen = project.scenario("trip")
    for plan, fmt in ((ref, "tools"), (reference_plan_arena(scen), "planningarena"), (json.dumps(ref), None)):
        r = grade(project, plan, fmt)
        assert r.valid and not r.errors
        m = r.metrics
        assert (m["SER"], m["DA"], m["LPR"], m["SMAR"]) == (1, 1, 1, 1)
        assert m["success"] is True and m["steps"] == 4 and m["codes"] == {}
        assert not any(m["checkpoints"].values())


def _set(i, key, value):
    def fn(steps):
        steps[i]["args"][key] = value
    return fn


def _drop_arg(i, key):
    def fn(steps):
        del steps[i]["args"][key]
    return fn


CASES = {
    # unknown-name
    "T101": (lambda s: s[0].update(tool="searchFlight"), [("T101", 0), ("T401", None)]),
    "T102": (lambda s: s[2].update(tool="meteo.queryWeather"), [("T102", 2), ("T401", None)]),
    "T103": (lambda s: s.append({"id": 5, "tool": "ping", "args": {"host": "x"}}), [("T103", 4)]),
    "T104": (lambda s: s[2].update(tool="flights.queryWeather"), [("T104", 2), ("T401", None)]),
    "T105": (lambda s: s[1]["args"].update(flight_id="$9.flight_id"), [("T105", 1)]),
    "T106": (lambda s: s[1]["args"].update(flight_id="$1.flight_code"), [("T106", 1)]),
    # schema
    "T201": (_set(0, "seat_class", "economy"), [("T201", 0)]),
    "T202": (_drop_arg(3, "guests"), [("T202", 3)]),
    "T203": (_set(3, "guests", "two"), [("T203", 3)]),
    "T203b": (_set(3, "breakfast", "yes"), [("T203", 3)]),
    "T203c": (_set(3, "tags", "pool"), [("T203", 3)]),
    "T204": (_set(2, "unit", "K"), [("T204", 2)]),
    "T205": (_set(0, "origin", "Boston"), [("T205", 0)]),
    "T205b": (_set(1, "email", "li at example"), [("T205", 1)]),
    "T205c": (_set(3, "time", "25:00"), [("T205", 3)]),
    # dependency
    "T301": (lambda s: s[0]["args"].update(origin="$2.booking_ref"), [("T301", 0)]),
    "T302": (lambda s: s[1].update(after=[]), [("T302", 1)]),
    "T303": (lambda s: s[2].update(after=[7]), [("T303", 2)]),
    "T304": (lambda s: s[3].update(after=[]), [("T304", 3)]),
    "T305": (lambda s: s[2].update(after=[1]), [("T305", 2)]),
    # goal
    "T401": (lambda s: s.pop(2), [("T401", None)]),
    "T402": (_set(2, "city", "London"), [("T402", 2)]),
    # repeat
    "T501": (lambda s: s.append(dict(copy.deepcopy(s[2]), id=5)), [("T501", 4)]),
    "T502": (lambda s: s.append({"id": 5, "tool": "getFlightStatus",
                                 "args": {"flight_number": "AF1", "date": "2025-03-21"}}), [("T502", 4)]),
    # time-window
    "T601": (_set(2, "date", "2025-03-14"), [("T601", 2)]),
    "T601b": (_set(3, "check_out", "2025-03-23"), [("T601", 3)]),
    "T602": (_set(0, "date", "next Friday"), [("T602", 0)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_code(project, ref, name):
    fn, expected = CASES[name]
    r = grade(project, edit(ref, fn))
    assert sorted(found(r), key=str) == sorted(expected, key=str), [e.message for e in r.errors]
    assert not r.valid and r.metrics["success"] is False
    for e in r.errors:
        assert e.category in CATEGORIES and e.hint and e.message


def test_categories_of_codes(project, ref):
    expect = {"T101": "unknown-name", "T201": "schema", "T304": "dependency", "T401": "goal", "T501": "repeat",
              "T601": "time-window", "T602": "time-window", "T002": "syntax"}
    seen = {}
    for fn, _ in CASES.values():
        for e in grade(project, edit(ref, fn)).errors:
            seen[e.code] = e.category
    for code, cat in expect.items():
        if code in seen:
            assert seen[code] == cat


def test_hints(project, ref):
    r = grade(project, edit(ref, _set(2, "date", "2025-03-14")))
    assert "'next Friday'" in r.errors[0].hint and "2025-03-21" in r.errors[0].hint
    r = grade(project, edit(ref, _set(3, "check_out", "2025-03-23")))
    assert "'three days later'" in r.errors[0].hint and "2025-03-24" in r.errors[0].hint
    r = grade(project, edit(ref, lambda s: s[0].update(tool="searchFlight")))
    assert "searchFlights" in r.errors[0].hint
    r = grade(project, edit(ref, _set(1, "email", "bob@example.com")))
    assert found(r) == [("T402", 1)] and "profile" in r.errors[0].hint and "li@example.com" in r.errors[0].hint
    r = grade(project, edit(ref, _set(2, "unit", "c")))
    assert "'C'" in r.errors[0].hint
    r = grade(project, edit(ref, _set(0, "origin", "bos")))
    assert "'BOS'" in r.errors[0].hint


def test_lenient_matching(project, ref):
    # strings: reference words within the plan's value; times and defaults; case of refs forms
    plan = edit(ref, _set(2, "city", "Paris, France"))
    plan["steps"][2]["args"]["unit"] = "C"                         # the default, written out
    plan["steps"][3]["args"]["breakfast"] = True                   # optional extras are fine
    plan["steps"][1]["args"]["flight_id"] = "{step1.flight_id}"
    assert grade(project, plan).valid
    shuffled = copy.deepcopy(ref)
    shuffled["steps"] = [shuffled["steps"][2]] + [s for i, s in enumerate(shuffled["steps"]) if i != 2]
    assert grade(project, shuffled).valid                          # independent steps may come in any order


def test_metrics_exact(project, ref):
    # one wrong date in a 2-argument step: q = 1/2 for that step
    m = grade(project, edit(ref, _set(2, "date", "2025-03-14"))).metrics
    assert m["SER"] == Fraction(7, 8) and m["DA"] == 1 and m["LPR"] == Fraction(7, 8)
    assert m["SMAR"] == Fraction(4, 5) and m["checkpoints"]["time_inference_errors"]
    assert m["TR"] == Fraction(3, 4) and m["time_error_rate"] == Fraction(1, 4)      # 4 date arguments
    assert m["counts"] == {"time-window": 1} and m["codes"] == {"T601": 1}
    # a missing dependency: 1 of 2 reference dependencies satisfied
    m = grade(project, edit(ref, lambda s: s[3].update(after=[]))).metrics
    assert m["DA"] == Fraction(1, 2) and m["SER"] == 1 and m["LPR"] == Fraction(1, 2)
    # a hallucinated dependency: 2 satisfied of 2 required + 1 hallucinated
    m = grade(project, edit(ref, lambda s: s[2].update(after=[1]))).metrics
    assert m["DA"] == Fraction(2, 3)
    # a missing step: SER 3/4, missing-step checkpoint
    m = grade(project, edit(ref, lambda s: s.pop(2))).metrics
    assert m["SER"] == Fraction(3, 4) and m["missing_step_rate"] == Fraction(1, 4)
    assert m["SMAR"] == Fraction(4, 5) and m["checkpoints"]["missing_steps"]
    # fictitious tool and parameter at once
    plan = edit(ref, lambda s: s.append({"id": 5, "tool": "teleport", "args": {}}))
    plan["steps"][0]["args"]["seat_class"] = "x"
    m = grade(project, plan).metrics
    assert m["SMAR"] == Fraction(3, 5) and m["fictitious_tool_rate"] == Fraction(1, 5)
    assert m["fictitious_param_rate"] == Fraction(1, 5) and m["FD_API"] == Fraction(4, 5) and m["PC"] == Fraction(3, 4)
    # redundant step
    m = grade(project, edit(ref, CASES["T502"][0])).metrics
    assert m["redundant_step_rate"] == Fraction(1, 5) and m["checkpoints"]["redundant_steps"]


def test_garbled_output_zeroes_smar(project):
    scen = project.scenario("trip")
    arena = reference_plan_arena(scen)
    arena["OrderSteps"]["StepDetail"][1]["Action"] = "bookFlight({'flight_id': '$1.flight_id', 'email': "
    r = grade(project, arena, "planningarena")
    assert ("T002", 1) in found(r) and ("T401", None) in found(r)
    assert r.metrics["SMAR"] == 0 and r.metrics["checkpoints"]["garbled"]
    r = grade(project, "I would first search for flights...")
    assert found(r) == [("T001", None)] and r.metrics["SER"] == 0 and r.metrics["SMAR"] == 0
    assert r.metrics["LPR"] == 0


def test_planningarena_order_dependencies(project):
    scen = project.scenario("trip")
    arena = reference_plan_arena(scen)
    d = arena["OrderSteps"]["StepDetail"]
    d[0], d[1] = d[1], d[0]                                          # book before search
    r = grade(project, arena)
    assert found(r) == [("T301", 0), ("T304", 0)]                    # position 0 must wait for position 1
    arena = reference_plan_arena(scen)
    d = arena["OrderSteps"]["StepDetail"]
    d[2]["Action"] = "queryWeather({'city': 'Paris', 'date': '<output of step 1>'})"
    r = grade(project, arena)                                         # weather needs nothing from the flight
    assert ("T305", 2) in found(r) and ("T402", 2) not in found(r)


def test_positional_arguments(project):
    arena = reference_plan_arena(project.scenario("trip"))
    arena["OrderSteps"]["StepDetail"][2]["Action"] = "queryWeather('Paris', '2025-03-21')"
    assert grade(project, arena).valid
    arena["OrderSteps"]["StepDetail"][2]["Action"] = "queryWeather('Paris', '2025-03-21', 'C', 'extra')"
    assert ("T206", 2) in found(grade(project, arena))
    arena["OrderSteps"]["StepDetail"][2]["Action"] = "queryWeather('Paris', '2025-03-21', city='Rome')"
    assert ("T206", 2) in found(grade(project, arena))


def test_first_mode_and_unknown_scenario(project, ref):
    plan = edit(ref, lambda s: (s[0].update(tool="nope"), s[2]["args"].update(unit="K")))
    assert len(grade(project, plan).errors) > 1
    assert len(grade(project, plan, first=True).errors) == 1
    r = grade_tool_plan(project, "no_such", ref, None)
    assert found(r) == [("T010", None)] and not r.valid
    r = grade_tool_plan(project, project.scenario("trip"), ref, None, plan_name="x.json")
    assert r.valid and r.plan == "x.json"


def test_scenario_without_reference(project):
    plan = {"steps": [{"id": 1, "tool": "ping", "args": {"host": "a"}},
                      {"id": 2, "tool": "queryWeather", "args": {"city": "$1.summary", "date": "2025-03-13"},
                       "after": [1]}]}
    r = grade(project, plan, scenario="noref")
    assert r.valid and r.metrics["SER"] is None and r.metrics["DA"] is None and r.metrics["SMAR"] == 1
    plan["steps"][0]["tool"] = "searchFlights"
    assert ("T103", 0) in found(grade(project, plan, scenario="noref"))


HOSTILE = [
    None, 0, 1.5, True, "", "null", "[]", "{}", "nan", '{"steps": NaN}', [None], [[]], {"steps": [None, 1, "x", []]},
    {"steps": [{"tool": 5, "args": {"a": {"b": [1, {"c": None}]}}}]},
    {"steps": [{"tool": "searchFlights", "args": {"origin": ["BOS"], "destination": {"x": 1}, "date": 20250321}}]},
    {"steps": [{"tool": "searchFlights",
                "args": {"date": "9999-99-99", "origin": "$0.x", "destination": "${99999999999}"}}]},
    {"steps": [{"id": 10 ** 30, "tool": "x", "after": [10 ** 30, -1]}]},
    {"OrderSteps": {"TotalSteps": "many", "StepDetail": {"StepNumber": "1", "Action": "queryWeather(" * 500}}},
    {"OrderSteps": {"StepDetail": [{"Action": "__import__('os').system('touch /tmp/pwned_by_plan')"}]}},
    {"OrderSteps": {"StepDetail": [{"Action": "queryWeather({'city': open('/etc/passwd').read()})"}]}},
    {"OrderSteps": {"StepDetail": [{"Action": "queryWeather({'city': 'Paris', 'date': "
                                              + "[" * 50 + "]" * 50 + "})"}]}},
    {"steps": [{"tool": "queryWeather", "args": {"city": "x" * 1_000_000, "date": "next Friday" * 10}}]},
    "[" * 200_000, '{"steps": [' + ",".join(['{"tool": "queryWeather"}'] * 100_000) + "]}",
    {"steps": [{"id": i + 1, "tool": "queryWeather", "args": {"city": "$" + str(i) + ".summary", "date": "2025-03-21"},
                "after": [i] if i else []} for i in range(5000)]},
]


@pytest.mark.parametrize("plan", HOSTILE, ids=lambda p: repr(p)[:40])
def test_hostile_plans_give_reports(project, plan):
    for fmt in (None, "tools", "planningarena"):
        r = grade(project, plan, fmt)
        assert not r.valid
    assert not os.path.exists("/tmp/pwned_by_plan")


def test_hundred_thousand_steps_is_quick(project):
    import time
    plan = {"steps": [{"id": i, "tool": "queryWeather", "args": {"city": "Paris", "date": "2025-03-21"}}
                      for i in range(1, 100_001)]}
    t = time.perf_counter()
    r = grade(project, plan)
    assert found(r) == [("T007", None)] and time.perf_counter() - t < 5
    assert r.metrics["SMAR"] == 0 and r.metrics["SER"] == 0 and not r.metrics["checkpoints"]["garbled"]
    r = grade(project, json.dumps(plan))                             # 8.8 MB of text: read, then refused
    assert found(r) == [("T007", None)]


_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(allow_nan=True),
                     st.text(max_size=30), st.sampled_from(["$1.flight_id", "{step2.x}", "<output of step 9>",
                                                            "next Friday", "2025-03-21", "BOS", "queryWeather"]))
_json = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                     max_leaves=20)
_step = st.fixed_dictionaries({"id": st.one_of(st.integers(-2, 6), _scalars),
                               "tool": st.sampled_from(["searchFlights", "bookFlight", "queryWeather", "bookHotel",
                                                        "ping", "x", "weather.queryWeather"]),
                               "args": st.one_of(st.dictionaries(st.sampled_from(
                                   ["origin", "destination", "date", "city", "flight_id", "email", "guests",
                                    "check_in", "check_out", "unit", "zzz"]), _json, max_size=5), _json),
                               "after": st.one_of(st.lists(st.integers(-1, 7), max_size=3), _json)})
_action = st.one_of(st.text(max_size=60), st.builds(lambda t, a: f"{t}({a!r})",
                                                     st.sampled_from(["queryWeather", "bookFlight", "x.y"]),
                                                     st.dictionaries(st.text(max_size=6), _scalars, max_size=3)))


@settings(max_examples=int(os.environ.get("TOOLS_FUZZ", 150)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_json, st.fixed_dictionaries({"steps": st.lists(_step, max_size=6)}),
                 st.fixed_dictionaries({"OrderSteps": st.fixed_dictionaries(
                     {"TotalSteps": _scalars, "StepDetail": st.lists(st.fixed_dictionaries(
                         {"StepNumber": st.one_of(st.integers(0, 6), _scalars), "Action": st.one_of(_action, _json)}),
                         max_size=6)})})))
def test_fuzzed_plans_always_give_reports(project, plan):
    r = grade_tool_plan(project, "trip", plan, None)
    json.loads(r.to_json_line())
    assert r.valid == (not r.errors)
    assert 0 <= r.metrics["SMAR"] <= 1 and 0 <= r.metrics["SER"] <= 1 and 0 <= r.metrics["DA"] <= 1


def test_messages_name_steps_by_their_ids(project, ref):
    """#16 finding 7: messages mixed 0-based positions with the 1-based ids that ``$N`` and "after" use
    ("step 1: uses $1.flight_id but does not wait for step 1").  They now name every step by its id; the
    report's ``index`` stays the 0-based position."""
    r = grade(project, edit(ref, lambda s: s[1].update(after=[])), "tools")
    (e,) = [e for e in r.errors if e.code == "T302"]
    assert e.index == 1
    assert e.message == f"step {ref['steps'][1]['id']}: uses $1.flight_id but does not wait for step 1"
    r = grade(project, edit(ref, lambda s: s[0]["args"].update(origin="$2.booking_ref")), "tools")
    (e,) = [e for e in r.errors if e.code == "T301"]
    assert e.message.startswith(f"step {ref['steps'][0]['id']}: uses $2.booking_ref, the output of a later step "
                                f"(step 2)")
