"""Plans as PlanningArena writes them (#15 item 6): the leading header element, literal values copied from an
earlier step's simulated Results (W060), and APP plans (Tap/Text/Swipe on named apps, FD-APP and OSC)."""
import json
from fractions import Fraction

import pytest

import chronoplan
from chronoplan.validators.tools.grade import grade_tool_plan
from chronoplan.validators.tools.read import detect_format, read_tool_plan
from chronoplan.validators.tools.results import literal_source

API = '''
domain arena6
app flights "Flights" {
  tool searchFlights(origin: iata, destination: iata, date: date) -> (flight_id: str, price: number)
  tool bookFlight(flight_id: str, email: email) -> (booking_ref: str)
}
app weather { tool queryWeather(city: str, date: date) -> (summary: str) }
scenario trip {
  apps flights, weather
  query "Fly from Boston to Paris next Friday and book it; check the Paris weather that day."
  profile { today = 2025-03-12  email = "li@example.com" }
  reference {
    1: searchFlights(origin = "BOS", destination = "CDG", date = 2025-03-21)
    2: bookFlight(flight_id = $1.flight_id, email = "li@example.com") after 1
    3: queryWeather(city = "Paris", date = 2025-03-21)
  }
}
'''


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    path = tmp_path_factory.mktemp("arena6") / "api.chrono"
    path.write_text(API)
    return chronoplan.load(path)


def element(n, total, action, results=None):
    """One list element as PlanningArena's model outputs write it: a whole plan object holding one step."""
    step = {"StepNumber": n, "Description": "...", "Action": action}
    if results is not None:
        step["Results"] = results
    return {"GlobalThought": "...", "OrderSteps": {"TotalSteps": total, "StepDetail": step}}


SEARCH = "searchFlights({'origin': 'BOS', 'destination': 'CDG', 'date': '2025-03-21'})"
FOUND = {"Status": "Success", "Response": {"flight_id": "AF0334", "price": 412.5, "airline": "Air France"}}
WEATHER = "queryWeather({'city': 'Paris', 'date': '2025-03-21'})"


def arena_file(book_action, results=FOUND):
    """A plan file in PlanningArena's shape: the header, then one element per step."""
    return json.dumps([{"MessageNumber": "15", "Query": "Fly from Boston to Paris next Friday and book it."},
                       element(1, 3, SEARCH, results),
                       element(2, 3, book_action, {"Status": "Success", "Response": {"booking_ref": "X1"}}),
                       element(3, 3, WEATHER)])


# ------------------------------------------------------------------ the header element
def test_header_is_skipped_and_recorded(api):
    text = arena_file("bookFlight({'flight_id': '<output of step 1>', 'email': 'li@example.com'})")
    assert detect_format(json.loads(text)) == "planningarena"
    plan = read_tool_plan(text)
    assert [s.tool for s in plan.steps] == ["searchFlights", "bookFlight", "queryWeather"]
    assert not plan.errors and plan.declared_total == 3
    assert dict(plan.header) == {"MessageNumber": "15", "Query": "Fly from Boston to Paris next Friday and book it."}
    r = grade_tool_plan(api, "trip", text)
    assert r.valid, r.to_text()
    assert r.metrics["steps"] == 3 and r.metrics["SER"] == 1 and r.metrics["DA"] == 1
    assert r.to_json()["metrics"]["header"]["MessageNumber"] == "15"


def test_header_keys_on_the_first_plan_object_and_a_lone_header():
    # the paper's listings put MessageNumber and Query on the first plan object itself
    first = dict(element(1, 2, SEARCH), MessageNumber="6", Query="q")
    plan = read_tool_plan([first, element(2, 2, WEATHER)])
    assert [s.tool for s in plan.steps] == ["searchFlights", "queryWeather"] and not plan.errors
    assert dict(plan.header) == {"MessageNumber": "6", "Query": "q"}
    lone = read_tool_plan([{"MessageNumber": "1", "Query": "q"}], "planningarena")
    assert lone.steps == () and dict(lone.header)["MessageNumber"] == "1"
    # before #15 the header was read as a step without an Action (T004) and TotalSteps did not match (T008)
    later = read_tool_plan([element(1, 2, SEARCH), {"MessageNumber": "1", "Query": "q"}])
    assert "T004" in [e.code for e in later.errors]      # only the leading element is a header


# ------------------------------------------------------------------ literal values of simulated results
def test_literal_copy_of_a_simulated_result_is_accepted_as_the_reference(api):
    text = arena_file("bookFlight({'flight_id': 'AF0334', 'email': 'li@example.com'})")
    r = grade_tool_plan(api, "trip", text)
    assert r.valid, r.to_text()
    assert r.metrics["SER"] == 1 and r.metrics["LPR"] == 1 and r.metrics["SMAR"] == 1
    (note,) = r.warnings
    assert note.code == "W060" and note.index == 1 and note.category.value == "dependency"
    assert "'AF0334'" in note.message and "Response.flight_id" in note.message and "$1.flight_id" in note.message
    assert r.to_json()["metrics"]["warnings"][0]["code"] == "W060"
    assert "warning W060" in r.to_text()


def test_literal_that_no_earlier_result_shows_is_a_wrong_value(api):
    r = grade_tool_plan(api, "trip", arena_file("bookFlight({'flight_id': 'LH123', 'email': 'li@example.com'})"))
    assert [e.code for e in r.errors] == ["T402"] and not r.warnings
    assert r.metrics["SER"] == Fraction(1, 3) * (1 + Fraction(1, 2) + 1)
    # the value sits in the result, but under another key than the field the task reads
    r = grade_tool_plan(api, "trip", arena_file("bookFlight({'flight_id': 'Air France', 'email': 'li@example.com'})"))
    assert "T402" in [e.code for e in r.errors] and not r.warnings
    # without Results there is nothing to repeat
    r = grade_tool_plan(api, "trip", arena_file("bookFlight({'flight_id': 'AF0334', 'email': 'li@example.com'})",
                                                results=None))
    assert [e.code for e in r.errors] == ["T402"] and not r.warnings


def test_literal_copy_of_a_result_the_task_does_not_read_is_wrong(api):
    # the weather step's result would show 'AF0334' too, but bookFlight needs the search's output: a copy from
    # a step placed before it that is not the search is no reference to the search
    text = json.dumps([{"MessageNumber": "15", "Query": "q"},
                       element(1, 3, WEATHER, {"Response": {"flight_id": "AF0334"}}),
                       element(2, 3, SEARCH, {"Response": {"flight_id": "AF0999"}}),
                       element(3, 3, "bookFlight({'flight_id': 'AF0334', 'email': 'li@example.com'})")])
    r = grade_tool_plan(api, "trip", text)
    assert "T402" in [e.code for e in r.errors] and not r.warnings


def test_literal_source_rule():
    leaves = ((("Status",), "Success"), (("Response", "flightID"), "AF0334"), (("Response", "price"), Fraction(825, 2)))
    assert literal_source(" af0334 ", leaves, "flight_id") == ("Response", "flightID")     # key named like the field
    assert literal_source(Fraction(825, 2), leaves, "flight_id") is None                   # another key's value
    assert literal_source(Fraction(825, 2), leaves, "cost") == ("Response", "price")      # keys named freely
    assert literal_source("Success", leaves, None) is None                                 # a Status names nothing
    assert literal_source(True, leaves, None) is None and literal_source("", leaves, None) is None
