"""Plans as PlanningArena writes them (#15 item 6): the leading header element, literal values copied from an
earlier step's simulated Results (W060), and APP plans (Tap/Text/Swipe on named apps, FD-APP and OSC)."""
import json
from fractions import Fraction
from pathlib import Path

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


# ------------------------------------------------------------------ APP plans
@pytest.fixture(scope="module")
def bundled():
    project, diags, _ = chronoplan.compile_paths(Path(__file__).resolve().parent.parent / "domains" / "tools")
    assert project is not None and not diags, [str(d) for d in diags]
    return project


APT = "app_ctrip_apartment_chain"
# the bundled scenario's reference, as (operation, arguments)
APT_STEPS = [("Tap", {"app": "ctrip"}),
             ("Text", {"app": "ctrip", "element": "search_bar", "text": "Bangkok apartments"}),
             ("Swipe", {"app": "ctrip", "element": "result_list"}), ("Tap", {"app": "ctrip", "element": "listing"}),
             ("Tap", {"app": "ctrip", "element": "reviews"}), ("Tap", {"app": "ctrip", "element": "facilities"}),
             ("Tap", {"app": "ctrip", "element": "book_now"}),
             ("Text", {"app": "ctrip", "element": "nights", "text": "3"}),
             ("Tap", {"app": "ctrip", "element": "confirm_booking"})]


def app_plan(steps, header=True):
    """PlanningArena's shape: header, then one element per step whose Action is {"Op": arguments-or-text}."""
    out = [{"MessageNumber": "6", "Query": "Use Ctrip to book the Sunshine Apartment..."}] if header else []
    return out + [element(n, len(steps), {op: args}) for n, (op, args) in enumerate(steps, 1)]


def codes_of(r):
    return [e.code for e in r.errors]


def test_app_reference_plan_is_valid_in_every_form(bundled):
    for plan in (app_plan(APT_STEPS),
                 {"steps": [{"id": n, "tool": op, "app": a["app"], "after": [n - 1] if n > 1 else [],
                             "args": {k: v for k, v in a.items() if k != "app"}}
                            for n, (op, a) in enumerate(APT_STEPS, 1)]},
                 app_plan([(f"ctrip.{op}", {k: v for k, v in a.items() if k != "app"}) for op, a in APT_STEPS])):
        r = grade_tool_plan(bundled, APT, plan)
        assert r.valid, r.to_text()
        m = r.metrics
        assert (m["SER"], m["DA"], m["SMAR"], m["FD_APP"], m["OSC"], m["PC"]) == (1, 1, 1, 1, 1, 1)
        assert m["FD_API"] is None                   # the scenario offers no API tool and the plan calls none
    # API scenarios keep FD_API and have no FD_APP/OSC
    api_r = grade_tool_plan(bundled, "travel_weather_parallel", {"steps": []})
    assert api_r.metrics["FD_API"] == 1 and api_r.metrics["FD_APP"] is None and api_r.metrics["OSC"] is None


def test_app_plan_in_the_free_text_planningarena_writes(bundled):
    texts = [("Tap", "Tap on the Ctrip app icon to open it."),
             ("Text", "Enter 'Bangkok apartments' in the search bar and initiate the search."),
             ("Swipe", "Scroll through the search results to find Sunshine Apartment."),
             ("Tap", "Tap on the Sunshine Apartment listing to view its reviews and facilities."),
             ("Tap", "Tap on Reviews."), ("Tap", "Tap on Facilities."),
             ("Tap", "Tap on the 'Book Now' button."), ("Text", "Enter '3' in the nights field."),
             ("Tap", "Tap on the 'Confirm Booking' button to finalize the booking.")]
    r = grade_tool_plan(bundled, APT, app_plan(texts))
    assert r.valid, r.to_text()
    assert r.metrics["SER"] == 1 and r.metrics["OSC"] == 1
    # a text that names no declared element of the app it works in
    bad = texts[:6] + [("Tap", "Tap on the 'Reserve' button.")] + texts[7:]
    r = grade_tool_plan(bundled, APT, app_plan(bad))
    assert codes_of(r) == ["T109"] and "names no element of app 'ctrip'" in r.errors[0].message
    assert r.metrics["SER"] == Fraction(8 + Fraction(1, 2), 9) and r.metrics["OSC"] == Fraction(8, 9)


def _with(i, op, args):
    steps = list(APT_STEPS)
    steps[i] = (op, args)
    return app_plan(steps)


def test_wrong_app(bundled):
    r = grade_tool_plan(bundled, APT, _with(4, "Tap", {"app": "Agoda", "element": "reviews"}))
    assert codes_of(r)[0] == "T107" and r.errors[0].index == 4 and r.errors[0].category.value == "unknown-name"
    assert "T401" in codes_of(r)                              # the step's job is not done
    assert r.metrics["FD_APP"] == Fraction(8, 9) and r.metrics["checkpoints"]["fictitious_tools"]
    r = grade_tool_plan(bundled, APT, _with(4, "Tap", {"app": "WeChat", "element": "contact"}))   # by its label
    assert codes_of(r)[0] == "T108" and "not offered" in r.errors[0].message
    r = grade_tool_plan(bundled, APT, _with(4, "Tap", {"app": "flights"}))                    # an API app
    assert codes_of(r)[0] == "T108" and "no screens" in r.errors[0].message
    r = grade_tool_plan(bundled, APT, _with(4, "Tap", {"app": "ctrp", "element": "reviews"}))
    assert r.errors[0].code == "T107" and r.errors[0].hint == "did you mean 'ctrip'?"


def test_wrong_element(bundled):
    r = grade_tool_plan(bundled, APT, _with(6, "Tap", {"app": "ctrip", "element": "buy_button"}))
    assert codes_of(r)[0] == "T109" and "has no element 'buy_button'" in r.errors[0].message
    r = grade_tool_plan(bundled, APT, _with(6, "Text", {"app": "ctrip", "element": "book_now", "text": "x"}))
    assert "T207" in codes_of(r) and "does not accept Text" in r.errors[codes_of(r).index("T207")].message
    assert r.metrics["OSC"] == Fraction(8, 9)
    # a declared element, but not the one the task needs: a wrong value
    r = grade_tool_plan(bundled, APT, _with(6, "Tap", {"app": "ctrip", "element": "reviews"}))
    assert codes_of(r) == ["T402"] and "'reviews', the task needs 'book_now'" in r.errors[0].message
    # arguments: Text without text, a bad direction, an unknown argument, Back with an element, no app at all
    r = grade_tool_plan(bundled, APT, _with(1, "Text", {"app": "ctrip", "element": "search_bar"}))
    assert "T208" in codes_of(r)
    r = grade_tool_plan(bundled, APT, _with(2, "Swipe", {"app": "ctrip", "element": "result_list",
                                                           "direction": "sideways", "speed": 3}))
    assert codes_of(r).count("T208") == 2
    r = grade_tool_plan(bundled, APT, _with(2, "Back", {"element": "result_list"}))
    assert "T207" in codes_of(r)
    r = grade_tool_plan(bundled, APT, app_plan([("Tap", {"element": "listing"})]))
    assert codes_of(r)[0] == "T208" and "names no app" in r.errors[0].message


def test_app_metrics_by_hand(bundled):
    steps = list(APT_STEPS)
    steps[4] = ("Tap", {"app": "Agoda", "element": "reviews"})      # T107: fictitious app, matches nothing
    steps[6] = ("Tap", {"app": "ctrip", "element": "buy_button"})   # T109: fictitious element
    r = grade_tool_plan(bundled, APT, app_plan(steps))
    assert sorted(codes_of(r)) == ["T107", "T109", "T304", "T401"], r.to_text()
    m = r.metrics
    # matching: the Tap without a known element (plan step 7) is paired with the first open Tap of the
    # reference, step 5 (reviews): q = 1/2 (app right); reference step 7 (book_now) is missing
    assert m["SER"] == Fraction(1 + 1 + 1 + 1 + Fraction(1, 2) + 1 + 0 + 1 + 1, 9) == Fraction(5, 6)
    # 8 chain edges; 7->8 and 6->7 touch the missing step; 5->6 is reversed (plan step 7 after plan step 6)
    assert m["DA"] == Fraction(5, 8) and m["LPR"] == Fraction(25, 48)
    assert m["SMAR"] == Fraction(5 - 3, 5)         # missing step, fictitious parameter (element), fictitious app
    assert m["FD_APP"] == Fraction(8, 9)           # 1 of 9 operation steps names a fictitious app
    assert m["OSC"] == Fraction(7, 8)              # of the 8 steps in a known app, 1 names no such element
    assert m["PC"] == 1 and m["FD_API"] is None and m["TR"] == 1


def test_cross_app_plan_with_home(bundled):
    from chronoplan.validators.tools.export import reference_plan_arena
    s = bundled.scenario("app_share_booking_chain")
    r = grade_tool_plan(bundled, s.name, reference_plan_arena(s, bundled))
    assert r.valid and r.metrics["FD_APP"] == 1, r.to_text()
    # after Home the next free-text step must name its app: "Tap on Send" alone names none
    texts = [("Tap", "Open Ctrip."), ("Text", "Type 'Sunshine Apartment Bangkok' into the search bar."),
             ("Tap", "Tap the listing."), ("Tap", "Tap 'Book Now'."), ("Tap", "Tap 'Confirm Booking'."),
             ("Home", "Go to the home screen."), ("Tap", "Open WeChat."), ("Text", "Search for 'Li Wei' in search."),
             ("Tap", "Tap the contact."), ("Text", "Write 'it is booked' in the message box."), ("Tap", "Tap Send.")]
    r = grade_tool_plan(bundled, s.name, app_plan(texts))
    assert r.valid, r.to_text()
    r = grade_tool_plan(bundled, s.name, app_plan(texts[:6] + [("Tap", "Tap Send.")]))
    assert "T208" in codes_of(r)


@pytest.mark.parametrize("scenario", [APT, "app_share_booking_chain", "travel_weather_parallel"])
def test_odd_operation_steps_give_reports(bundled, scenario):
    """Every shape of an operation step gives a report with located errors, never an exception."""
    values = [None, 5, "", "ctrip", ["x"], {"a": 1}, True, "book_now", "nowhere", 1.5, "up"]
    for op in ("Tap", "text", "Swipe", "Return", "Home", "LongPress", "ctrip.Tap", "nope.Tap", "flights.Tap"):
        actions = [{op: "Tap on the 'Book Now' button in Ctrip"}, {op: 7}]
        actions += [{op: {"app": "ctrip", k: v}} for k in ("element", "text", "direction", "screen", "zzz")
                    for v in values]
        for action in actions:
            r = grade_tool_plan(bundled, scenario, [{"MessageNumber": "1"}, element(1, 1, action)])
            json.loads(r.to_json_line())
            assert not r.valid and "T401" in codes_of(r)            # one step never does the whole task
            assert all(e.index in (0, None) for e in r.errors)


def test_per_step_elements_that_disagree_on_total_steps_are_t008():
    """Issue 28 item 1: in the one-element-per-step layout every element repeats TotalSteps; elements that
    disagree are reported (the last one was taken silently), elements that agree are not."""
    same = [{"MessageNumber": "1", "Query": "q"}, element(1, 2, SEARCH), element(2, 2, WEATHER)]
    assert [e.code for e in read_tool_plan(same).errors] == []
    differ = [{"MessageNumber": "1", "Query": "q"}, element(1, 3, SEARCH), element(2, 2, WEATHER)]
    got = read_tool_plan(differ)
    assert [e.code for e in got.errors] == ["T008"] and len(got.steps) == 2
    assert "disagree on TotalSteps (3, 2)" in got.errors[0].message
