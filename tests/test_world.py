"""World scenarios (issue 24, first step): objects, init facts, a goal formula and map-free actions, graded by
``chronoplan validate`` on sequential plans (docs/language.md, Worlds; docs/worlds-design.md).

Checked here: the language (scenario objects, init, goal with forall/implies/exists, the family decided once),
the engine's semantics (negative conditions, equality, effects grounded in the old state, deletes before adds),
the grader's reports (every hallucinated action/object with the nearest name, arity, types, each failed
precondition conjunct with the step that made it false, unmet goal conjuncts, the executable prefix, metrics),
the plan formats (PDDL plan text as planners and VAL write it, JSON), the CLI, the schema, and that the bundled
kitchens and the other families are unaffected.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import chronoplan
from chronoplan.cli import main
from chronoplan.compiler import ir
from chronoplan.compiler.codes import Scope, codes_in
from chronoplan.compiler.world.problem import WorldError, WorldProblem
from chronoplan.runtime.world.engine import WorldEngine
from chronoplan.validators.families import family_of
from chronoplan.validators.grade import Grader
from chronoplan.validators.strict_schema import violations
from chronoplan.validators.world.grade import engine_for, grade_world_plan
from chronoplan.validators.world.read import MAX_STEPS, read_world_plan
from chronoplan.validators.world.schema import NotAWorld, strict_world_plan_schema, world_plan_schema

ROOT = Path(__file__).resolve().parents[1]
PLANNING = ROOT / "domains" / "planning"
SUSSMAN = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]

# a second world: two types, a negative precondition, equality, a fact deleted and added by one action
ROOMS = """
domain rooms
type room, robot
relation at(robot, room)
relation door(room, room)
relation visited(room)
relation locked(room)
object hall: room
action go(r: robot, from: room, to: room) {
  when start: at(r, from) and door(from, to) and not locked(to) and from != to
  at end: not at(r, from), at(r, to), visited(to)
}
action stay(r: robot, x: room) {
  when start: at(r, x)
  at end: not at(r, x), at(r, x)
}
action swap(x: room, y: room) {
  when start: locked(x)
  at end: not locked(x), locked(y), not locked(y)
}
scenario tour {
  object kitchen, attic: room
  object bot: robot
  init: at(bot, hall), door(hall, kitchen), door(kitchen, hall), door(hall, attic), locked(attic)
  goal: visited(kitchen) and exists(x: room where visited(x) and x != kitchen) and not locked(attic)
}
"""


@pytest.fixture(scope="module")
def blocks():
    return chronoplan.load(PLANNING)


@pytest.fixture(scope="module")
def rooms(tmp_path_factory):
    path = tmp_path_factory.mktemp("rooms") / "rooms.chrono"
    path.write_text(ROOMS)
    return chronoplan.load(path)


def grade(project, scenario, plan, **kw):
    return Grader(project).grade(scenario, plan, **kw)


def codes(report) -> list[str]:
    return [e.code for e in report.errors]


# ------------------------------------------------------------------------------------------- the language
def test_a_world_scenario_has_objects_init_and_a_goal(blocks):
    s = blocks.scenario("sussman")
    assert s.kind is ir.ScenarioKind.WORLD and family_of(s).name == "world"
    assert [(o.name, o.type) for o in s.objects] == [("a", "block"), ("b", "block"), ("c", "block")]
    assert [(a.relation, a.args) for a in s.init][:2] == [("on", ("c", "a")), ("ontable", ("a",))]
    assert ("handempty", ()) in [(a.relation, a.args) for a in s.init]
    assert s.goal == ir.And((ir.Atom("on", ("a", "b")), ir.Atom("on", ("b", "c"))))
    assert s.map is None and not s.orders and not s.procedures


def test_forall_and_implies_are_read_as_one_quantifier(blocks, tmp_path):
    g = blocks.scenario("flatten3").goal
    body = ir.And((ir.Atom("ontable", ("x",)), ir.Atom("clear", ("x",))))
    assert g == ir.And((ir.Not(ir.Exists("x", "block", ir.Not(body))), ir.Atom("handempty", ())))
    path = tmp_path / "implies.chrono"
    path.write_text(ROOMS.replace("and not locked(attic)\n", "and (locked(attic) implies visited(attic))\n"))
    p = chronoplan.load(path)
    assert p.scenario("tour").goal.args[-1] == ir.Or((ir.Not(ir.Atom("locked", ("attic",))),
                                                     ir.Atom("visited", ("attic",))))


def test_domain_objects_belong_to_every_world(rooms):
    problem = WorldProblem.of(rooms, "tour")
    assert problem.objects == {"hall": "room", "kitchen": "room", "attic": "room", "bot": "robot"}
    assert problem.relations == {"at": 2, "door": 2, "visited": 1, "locked": 1}


def test_the_bundled_kitchens_and_other_families_are_unaffected():
    """Every bundled scenario outside domains/planning keeps its family and has no world items."""
    kinds = {}
    for d in sorted(p for p in (ROOT / "domains").iterdir() if p.is_dir() and p.name != "planning"):
        project = chronoplan.load(d)
        for s in project.scenarios.values():
            assert s.kind is not ir.ScenarioKind.WORLD and s.goal is None and not s.init and not s.objects, s.name
            kinds.setdefault(s.kind, 0)
            kinds[s.kind] += 1
    assert {ir.ScenarioKind.GRID, ir.ScenarioKind.PROCEDURES, ir.ScenarioKind.TOOLS,
            ir.ScenarioKind.HOUSEHOLD} <= set(kinds)


def test_a_kitchen_plan_still_grades_as_before():
    from kitchen_util import generated
    from test_kitchen_plans import BURGER_B
    report = Grader(generated()).grade("burger_s42_o1_a2", BURGER_B)
    assert report.valid, report.to_text()
    assert "oct" in report.metrics and "goal_reached" not in report.metrics


def test_world_items_elsewhere_and_other_items_in_a_world(tmp_path, capsys):
    """C701 both ways, located; the world with a map is not built (no follow-on errors about the map)."""
    home = (ROOT / "domains" / "household" / "home.chrono").read_text()
    path = tmp_path / "mixed.chrono"
    path.write_text(home + '\nscenario odd {\n  household home\n  horizon 10\n  init: \n}\n')
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert "error[C701]: 'init' belongs in a world scenario; scenario 'odd' is a household scenario" in err
    world = tmp_path / "w.chrono"
    world.write_text(ROOMS.replace("  object bot: robot\n", "  object bot: robot\n  agents cook\n  limit 5\n"))
    # (an item given with an empty value is still given: 'limit 5' and an empty 'init:' count)
    assert main(["check", str(world)]) == 1
    err = capsys.readouterr().err
    assert err.count("error[C701]") == 2 and "'agents' does not belong in world scenario 'tour'" in err


def test_world_problem_refuses_other_families():
    recipes = chronoplan.load(ROOT / "domains" / "recipes")
    with pytest.raises(WorldError, match="not a world"):
        WorldProblem.of(recipes, "Roast-Chicken_Garlic-Potatoes")
    with pytest.raises(NotAWorld):
        world_plan_schema(recipes, "Roast-Chicken_Garlic-Potatoes")


# ------------------------------------------------------------------------------------------- the engine
def test_engine_runs_the_actions_with_pddl_semantics(rooms):
    eng = WorldEngine(WorldProblem.of(rooms, "tour"))
    st = eng.initial()
    go = eng.action("GO")                                       # case-insensitive, as PDDL names are
    assert go is not None and go.name == "go"
    assert [f.text for f in eng.failures(st, go, ("bot", "hall", "attic"))] == ["not locked(attic)"]
    assert [f.text for f in eng.failures(st, go, ("bot", "hall", "hall"))] == ["door(hall, hall)", "hall != hall"]
    eng.apply(st, eng.action("stay"), ("bot", "hall"))          # deleted and added by one step: it holds after
    assert st.holds("at", ("bot", "hall"))
    eng.apply(st, eng.action("swap"), ("attic", "kitchen"))     # add and delete of locked(kitchen): deleted first
    assert st.holds("locked", ("kitchen",)) and not st.holds("locked", ("attic",))
    changed = eng.apply(st, go, ("bot", "hall", "attic"))
    assert (("at", ("bot", "attic")), True) in changed and (("at", ("bot", "hall")), False) in changed
    assert eng.goal_holds(st) == [False, True, True]


# ------------------------------------------------------------------------------------------- grading
def test_a_valid_plan_in_every_format(blocks):
    texts = {
        "lines": "\n".join(SUSSMAN),
        "val": "; found by a planner\n" + "\n".join(f"{i}.000: {s.upper()} [1.000]" for i, s in enumerate(SUSSMAN)),
        "numbered": "\n".join(f"{i}. {s}" for i, s in enumerate(SUSSMAN, 1)) + "\n; cost = 6 (unit cost)\n",
    }
    plans = [*texts.values(), SUSSMAN, {"plan": SUSSMAN}, json.dumps({"scenario": "sussman", "plan": SUSSMAN}),
             [s.strip("()") for s in SUSSMAN],
             [{"action": s.strip("()").split()[0], "args": s.strip("()").split()[1:]} for s in SUSSMAN]]
    for plan in plans:
        r = grade(blocks, "sussman", plan)
        assert r.valid, (plan, r.to_text())
        assert r.metrics == {"makespan": 6, "success": True, "goal_reached": True, "plan_length": 6,
                             "prefix_length": 6, "goal_fraction": 1.0, "goal_conjuncts": 2}


def test_forall_goal_and_plan_format_option(blocks):
    plan = "(unstack a b)\n(put-down a)\n(unstack b c)\n(put-down b)"
    assert grade(blocks, "flatten3", plan, fmt="world").valid
    r = grade(blocks, "flatten3", plan.rsplit("\n", 1)[0])       # b is held: not on the table, hand not empty
    assert codes(r) == ["E710", "E710"] and r.metrics["goal_fraction"] == 0.0
    assert codes(grade(blocks, "flatten3", plan, fmt="paracook")) == ["E012"]


def test_every_hallucination_is_reported_with_the_nearest_name(blocks):
    plan = ["(unstak c a)", "(unstack c x)", "(put-down c a)", "(unstack c a)", "(put-down c)", "(pick-up b)",
            "(stack b c)", "(pick-up a)", "(stack a b)"]
    r = grade(blocks, "sussman", plan)
    assert codes(r) == ["E110", "E111", "E112", "E710", "E710"]   # the goal: after the (empty) executable prefix
    e110, e111, e112 = r.errors[:3]
    assert e110.index == 1 and "no action 'unstak'" in e110.message and e110.hint == "did you mean 'unstack'?"
    assert e111.index == 2 and "no object 'x'" in e111.message and e111.hint.startswith("known: a, b, c")
    assert e112.index == 3 and "takes 1 argument, got 2" in e112.message and e112.hint == "(put-down ?x)"
    assert r.metrics["prefix_length"] == 0 and r.metrics["goal_reached"] is False   # VAL stops at step 1
    assert r.metrics["plan_length"] == 9


def test_each_failed_conjunct_and_the_step_that_made_it_false(blocks):
    plan = ["(unstack c a)", "(put-down c)", "(pick-up a)", "(stack a b)", "(pick-up b)", "(stack b c)"]
    r = grade(blocks, "sussman", plan)
    assert codes(r) == ["E210", "E210", "E710"]
    clear, hand, goal = r.errors
    assert clear.index == 5 and "step 5 (pick-up b): precondition clear(b) does not hold" in clear.message
    assert clear.hint == "step 4 (stack a b) made it false"
    assert hand.index == 6 and "precondition holding(b) does not hold" in hand.message
    assert hand.hint == "it was false from the start and no earlier step made it true"
    assert "on(b, c) does not hold after the executable prefix (4 steps)" in goal.message
    assert r.metrics["prefix_length"] == 4 and r.metrics["goal_fraction"] == 0.5 and not r.metrics["goal_reached"]


def test_negative_conditions_types_and_equality_in_reports(rooms):
    r = grade(rooms, "tour", ["(go bot hall attic)", "(go hall hall kitchen)", "(go bot hall hall)"])
    assert codes(r) == ["E210", "E211", "E210", "E210", "E710", "E710", "E710"]
    assert "not locked(attic)" in r.errors[0].message
    assert r.errors[0].hint == "it was true from the start and no earlier step made it false"
    assert "'hall' is a room, parameter r of 'go' takes a robot" in r.errors[1].message
    assert [e.message.split("precondition ")[1] for e in r.errors[2:4]] == ["door(hall, hall) does not hold",
                                                                           "hall != hall does not hold"]
    ok = grade(rooms, "tour", ["(go bot hall kitchen)", "(go bot kitchen hall)", "(swap attic kitchen)"])
    assert ok.valid, ok.to_text()


def test_unreadable_lines_are_located_and_the_rest_is_graded(blocks):
    text = "\n".join(SUSSMAN[:3] + ["then I stack b on c", ""] + SUSSMAN[3:])
    r = grade(blocks, "sussman", text)
    assert codes(r) == ["E001", "E710", "E710"]
    assert r.errors[0].index == 4 and "line 4 is not an action" in r.errors[0].message
    assert r.metrics["prefix_length"] == 3 and r.metrics["plan_length"] == 6
    r = grade(blocks, "sussman", SUSSMAN[:2] + [42, {"action": "pick-up", "args": ["b"], "extra": 1}] + SUSSMAN[2:])
    assert codes(r)[:2] == ["E010", "E010"] and [e.index for e in r.errors[:2]] == [3, 4]
    assert codes(grade(blocks, "sussman", {"actions": SUSSMAN})) == ["E010"]
    assert codes(grade(blocks, "sussman", 7)) == ["E010"]


def test_first_reports_only_the_first_error(blocks):
    r = grade(blocks, "sussman", ["(fly a)", "(pick-up zz)"], first=True)
    assert codes(r) == ["E110"] and not r.valid


def test_too_large_plans_are_refused_without_grading():
    plan = read_world_plan(["(pick-up a)"] * (MAX_STEPS + 1))
    assert plan.too_large and [e.code for e in plan.errors] == ["E013"]


def test_grading_is_one_pass_and_linear(blocks):
    """Long plans: one state, no copy per step (a snapshot only when a step first fails)."""
    eng = engine_for(blocks, "sussman")
    loop = ["(pick-up b)", "(put-down b)"] * 5000
    r = grade_world_plan(eng, loop + SUSSMAN)
    assert r.valid and r.metrics["plan_length"] == 10_006


# ------------------------------------------------------------------------------------------- CLI and schema
def test_validate_command(capsys):
    valid = str(PLANNING / "plans" / "sussman_valid.txt")
    assert main(["validate", str(PLANNING), "--scenario", "sussman", valid]) == 0
    assert "valid against sussman" in capsys.readouterr().out
    assert main(["validate", str(PLANNING), str(PLANNING / "plans" / "sussman_invalid.json"), "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out.splitlines()[0])
    assert out["scenario"] == "sussman" and [e["code"] for e in out["errors"]] == ["E210", "E210", "E710", "E710"]
    assert out["errors"][0]["category"] == "precondition" and out["errors"][2]["category"] == "goal"


def test_schemas(blocks):
    strict = strict_world_plan_schema(blocks, "sussman")
    assert violations(strict.schema) == []
    step = strict.schema["properties"]["plan"]["items"]
    assert step["properties"]["action"]["enum"] == ["pick-up", "put-down", "stack", "unstack"]
    assert step["properties"]["args"]["items"]["enum"] == ["a", "b", "c"]
    plain = world_plan_schema(blocks, "sussman")
    assert plain["anyOf"][0]["type"] == "array"


def test_language_doc_lists_the_world_plan_codes():
    text = (ROOT / "docs" / "language.md").read_text()
    section = text.split("### World plan errors", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"^\| (E\d{3}) \|", section, re.M) == list(codes_in(Scope.WORLD))
