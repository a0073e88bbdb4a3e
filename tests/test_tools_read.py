"""Tool-plan readers (validators/tools/read.py): both formats, their variants and hostile input."""
import json
from fractions import Fraction

import pytest

from chronoplan.validators.tools.read import MAX_STEPS, detect_format, read_tool_plan
from chronoplan.validators.tools.refs import StepRef


def codes(plan):
    return [e.code for e in plan.errors]


def test_design_format():
    plan = read_tool_plan(json.dumps({"steps": [
        {"id": 1, "tool": "searchFlights", "args": {"origin": "BOS", "n": 2, "price": 99.5}, "after": []},
        {"id": 2, "tool": "flights.bookFlight", "args": {"flight_id": "$1.flight_id"}, "after": [1]},
    ]}))
    assert plan.fmt == "tools" and not plan.errors and not plan.garbled
    a, b = plan.steps
    assert (a.index, a.id, a.tool, a.app) == (0, 1, "searchFlights", None)
    assert dict(a.args) == {"origin": "BOS", "n": 2, "price": Fraction(199, 2)}
    assert (b.tool, b.app, b.after, b.refs) == ("bookFlight", "flights", (1,), (StepRef(1, "flight_id"),))
    assert dict(b.args)["flight_id"] == StepRef(1, "flight_id") and b.declares_after


def test_design_variants():
    steps = [{"tool": "a"}, {"tool": "b", "after": 1, "app": "x"}]
    for obj in ({"steps": steps}, {"plan": {"steps": steps}}, steps):
        plan = read_tool_plan(obj)
        assert plan.fmt == "tools" and not plan.errors
        assert [s.id for s in plan.steps] == [1, 2] and plan.steps[1].after == (1,) and plan.steps[1].app == "x"
    fenced = "```json\n" + json.dumps({"steps": steps}) + "\n```"
    assert not read_tool_plan(fenced).errors


def _arena(detail, total=None):
    order = {"StepDetail": detail}
    if total is not None:
        order["TotalSteps"] = total
    return {"GlobalThought": "g", "OrderSteps": order}


def test_arena_detail_shapes():
    one = {"StepNumber": 1, "Description": "d", "Action": "queryWeather({'city': 'Paris', 'date': '2025-03-21'})"}
    two = {"StepNumber": 2, "Action": "bookFlight(flight_id='<output of step 1>')"}
    for obj in (_arena([one, two], 2), _arena({"1": one, "2": two}, 2), _arena({"2": two, "1": one}),
                [_arena(one), _arena(two)]):
        plan = read_tool_plan(obj)
        assert plan.fmt == "planningarena" and not plan.errors, plan.errors
        assert [s.tool for s in plan.steps] == ["queryWeather", "bookFlight"]
        assert dict(plan.steps[0].args) == {"city": "Paris", "date": "2025-03-21"}
        assert plan.steps[1].refs == (StepRef(1),) and not plan.steps[1].declares_after
    single = read_tool_plan(_arena(one, 1))
    assert len(single.steps) == 1 and not single.errors
    keyed = read_tool_plan(_arena({"1": {"Action": "a()"}}))
    assert keyed.steps[0].id == 1
    positional = read_tool_plan(_arena([{"Action": "queryWeather('Paris', '2025-03-21')"}]))
    assert positional.steps[0].positional == ("Paris", "2025-03-21")
    app_action = read_tool_plan(_arena([{"Action": {"Tap": "Tap the 'Book' button"}}]))
    assert app_action.steps[0].tool == "Tap" and app_action.steps[0].positional == ("Tap the 'Book' button",)
    dict_action = read_tool_plan(_arena([{"Action": {"queryWeather": {"city": "Rome"}}}]))
    assert dict(dict_action.steps[0].args) == {"city": "Rome"}


def test_arena_total_steps_mismatch_and_garbled():
    plan = read_tool_plan(_arena([{"StepNumber": 1, "Action": "a()"},
                                  {"StepNumber": 2, "Action": "__import__('os').system('echo hi')"}], 3))
    assert codes(plan) == ["T002", "T008"] and plan.garbled
    assert plan.errors[0].index == 1 and plan.errors[0].category == "syntax"
    assert plan.steps[1].tool is None


@pytest.mark.parametrize("obj, code", [
    ({"nothing": 1}, "T003"), ({"steps": "x"}, "T003"), ({"steps": [1]}, "T004"), ({"steps": [{"args": {}}]}, "T004"),
    ({"steps": [{"tool": "a", "args": [1]}]}, "T004"), ({"steps": [{"tool": "a", "bogus": 1}]}, "T004"),
    ({"steps": [{"tool": "a", "id": "x"}]}, "T005"), ({"steps": [{"tool": "a", "id": True}]}, "T005"),
    ({"steps": [{"tool": "a", "id": 1}, {"tool": "b", "id": 1}]}, "T005"),
    ({"steps": [{"tool": "a", "after": "1"}]}, "T006"), ({"steps": [{"tool": "a", "after": [None]}]}, "T006"),
    ({"steps": [{"tool": "a", "args": {"x": float("nan")}}]}, "T009"),
    ({"steps": [{"tool": "a", "args": {"x": 10 ** 2000}}]}, "T009"),
    ({"OrderSteps": 5}, "T003"), ({"OrderSteps": {"StepDetail": {"one": {}}}}, "T003"),
    ({"OrderSteps": {"StepDetail": [{"Description": "no action"}]}}, "T004"),
    ({"OrderSteps": {"StepDetail": ["text"]}}, "T004"),
])
def test_shape_errors(obj, code):
    plan = read_tool_plan(obj)
    assert code in codes(plan)
    assert all(e.category in ("schema", "syntax") for e in plan.errors)


@pytest.mark.parametrize("text", ["", "not json", "{", "[1, 2", "NaN", '{"steps": [{"tool": "a", "args": {"x": NaN}}]}',
                                  '{"steps": Infinity}', b"\xff\xfe", "[" * 100_000 + "]" * 100_000,
                                  '{"a": 1' + "0" * 5000 + "}"])
def test_unreadable_text(text):
    plan = read_tool_plan(text)
    assert codes(plan) == ["T001"] and plan.garbled and plan.errors[0].category == "syntax"


def test_wrong_types_everywhere():
    for obj in (None, 3, "x", True, [], [1, 2], {"steps": None}, {"OrderSteps": []}, {"steps": [[]]}):
        plan = read_tool_plan(obj if not isinstance(obj, str) else json.dumps(obj))
        assert plan.errors or not plan.steps


def test_size_limits():
    big = {"steps": [{"id": i, "tool": "a"} for i in range(1, 100_001)]}
    plan = read_tool_plan(big)
    assert codes(plan) == ["T007"] and plan.steps == ()
    arena = [_arena({"StepNumber": i, "Action": "a()"}) for i in range(MAX_STEPS + 10)]
    assert codes(read_tool_plan(arena)) == ["T007"]
    keyed = _arena({str(i): {"Action": "a()"} for i in range(MAX_STEPS + 1)})
    assert codes(read_tool_plan(keyed)) == ["T007"]
    deep: object = 1
    for _ in range(5000):
        deep = [deep]
    plan = read_tool_plan({"steps": [{"tool": "a", "args": {"x": deep}}]})
    assert codes(plan) == ["T009"]
    assert "T001" in codes(read_tool_plan("x" * 6_000_000))


def test_detect_and_unknown_format():
    assert detect_format({"steps": []}) == "tools"
    assert detect_format({"GlobalThought": "x"}) == "planningarena"
    assert detect_format([{"OrderSteps": {}}]) == "planningarena"
    assert detect_format([{"tool": "a"}]) == "tools"
    assert detect_format(5) is None
    assert codes(read_tool_plan({"steps": []}, "schedule")) == ["T003"]
    assert read_tool_plan({"steps": []}, "auto").fmt == "tools"


def test_positions_are_kept_for_unreadable_steps():
    for obj in ({"steps": [None, {"tool": "a", "id": 1}, 3, {"tool": "b"}]},
                {"OrderSteps": {"StepDetail": [None, {"Action": "a()"}, "x", {"Action": "(("}]}}):
        plan = read_tool_plan(obj)
        assert [s.index for s in plan.steps] == [0, 1, 2, 3]
        assert plan.steps[0].tool is None and plan.steps[0].id < 0
        assert len({s.id for s in plan.steps}) == 4
