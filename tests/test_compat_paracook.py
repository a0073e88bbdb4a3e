"""``compat=PARACOOK``: the rules of ParaCook's own code, each quirk pinned by a plan whose verdict differs.

All plans run on the generated burger map (seed 42; legend and paths in test_kitchen_plans.py) with
MOVE = 1, INTERACT = 0, CUT = 4, PAN = 24, RETURN = 10.  BURGER_B (test_kitchen_plans.py): agent1 puts
meat1 into pan1 on stove1 at 22 (frying alone ends at 46) and finishes; agent2 puts bread1 on plate2 at 15,
waits at (4,2) [20, 46], plates pan1's meat at 46 and serves at 47.  Under ParaCook's code rules
(runtime/kitchen/rules.py) a cookware timer is brought up to date only at the instants where some agent
completes an action of non-zero duration ("agent instants"), and only while the cookware is on a stove;
it then credits all the time since its last update.  [a, b] is an action's start and end time.
"""
import enum
import json
import random
from fractions import Fraction
from pathlib import Path

import pytest
from kitchen_util import GENERATED, IN, F, M, P, W, generated, grade, inside, on, simulate
from test_kitchen_plans import BURGER_B

import chronoplan
from chronoplan import build as B
from chronoplan.cli import main
from chronoplan.runtime import compiled as C
from chronoplan.runtime.kitchen.engine import KitchenSim
from chronoplan.runtime.kitchen.rules import DEFAULT, PARACOOK, Completion, Cooking, Finish, KitchenRules, rules_for
from chronoplan.runtime.kitchen.scripted import plan as scripted_plan
from chronoplan.validators.kitchen.grade import grade_grid_plan, world_for
from chronoplan.validators.kitchen.read import read_cook_plan

try:                                     # the CLI's registry (validators/compat/__init__.py); a stand-in when absent
    from chronoplan.validators.compat import Compat
except ImportError:                      # pragma: no cover - only before validators/compat/__init__.py exists
    Compat = enum.Enum("Compat", ["RECIPE2PLAN", "PARACOOK", "TIMEARENA"])

PC = Compat.PARACOOK
A1, A2 = BURGER_B["agent1"], BURGER_B["agent2"]
OPENING = A1[:-1]                        # agent1: meat1 into pan1 on stove1 at 22
S1, S2 = "burger_s42_o1_a2", "burger_s42_o2_a2"


def verdict(rep):
    return rep.valid, rep.metrics["oct"], [(e.code, e.agent, e.index, e.time) for e in rep.errors]


def run(scenario, plan, rules, until=None):
    """The simulator after the plan (or at ``until``) under ``rules``."""
    sim = KitchenSim(world_for(generated(), scenario, rules)[0])
    for agent, steps in read_cook_plan({"plan": plan}).steps.items():
        sim.add(agent, steps)
    sim.run(until)
    return sim


def meat_state(scenario, plan, t, compat=None, obj="meat1"):
    return run(scenario, plan, rules_for(compat), t).st.get("state", obj)


# ------------------------------------------------------------------------------------------------ the timer
LIFT = {"agent1": OPENING + [W(10),          # [22, 32]
                             IN("stove1"),   # 32 lift pan1 (frying progress 10)
                             W(5),           # [32, 37] holding pan1
                             IN("stove1"),   # 37 put it back
                             F],
        "agent2": A2}


def test_lifting_the_pan_does_not_pause_cooking():
    # paper: progress 10 at 32, paused [32, 37], 19 at 46 -> agent2 plates chopped meat at 46, wrong dish at 47
    assert verdict(grade(S1, LIFT)) == (False, None, [("E750", "agent2", 9, 47), ("E751", None, None, 47)])
    assert meat_state(S1, LIFT, 46) == "chopped"                   # (served, wrong, and gone at 47)
    assert meat_state(S1, {"agent1": LIFT["agent1"]}, 50) == "chopped"
    assert meat_state(S1, {"agent1": LIFT["agent1"]}, 51) == "cooked"   # alone: 51 = 46 + 5 off the stove
    # ParaCook: updates at agent instants 32 (on the stove: 10 credited), 37 (lifted at the start of 37:
    # skipped), 46 (on the stove again: 10 + (46 - 32) = 24 >= 24, cooked) -> the plated meat is cooked
    assert verdict(grade(S1, LIFT, compat=PC)) == (True, 47, [])
    assert meat_state(S1, LIFT, 45, PC) == "chopped" and meat_state(S1, LIFT, 46, PC) == "cooked"


def test_cooking_is_seen_only_at_agent_instants():
    # agent1 alone waits [22, 52]: no agent instant between 22 and 52, so ParaCook's timer completes at 52
    plan = {"agent1": OPENING + [W(30)]}
    assert meat_state("burger_s42_o1_a1", plan, 46) == "cooked"
    assert meat_state("burger_s42_o1_a1", plan, 51, PC) == "chopped"
    assert meat_state("burger_s42_o1_a1", plan, 52, PC) == "cooked"


def test_a_pan_off_the_stove_is_not_credited():
    # pan1 lifted at 32 and held to the end: neither rule cooks it (ParaCook updates cookware on stoves only)
    plan = {"agent1": OPENING + [W(10), IN("stove1"), W(40)]}
    for compat in (None, PC):
        assert meat_state("burger_s42_o1_a1", plan, 72, compat) == "chopped"


# agent1 after OPENING: (4,2)->(5,2)->(6,2)->(6,3)->(6,4)->(6,5)->(6,6)->(5,6) [22, 29], meat2 at 29, to (8,1)
# [29, 37], chops [37, 41], back to (4,2) [41, 46], waits [46, 77], puts meat2 into pan1 (empty since agent2
# plated meat1 at 46) at 77, waits [77, 78].  agent2 serves dish 1 at 47 (BURGER_B), then (4,3)->(3,3)->
# (3,4)->(2,4) [47, 50] bread2, (2,4)->(3,4)->(3,3)->(4,3)->(4,2)->(5,2)->(5,1)->(6,1)->(7,1) [50, 58], bread2
# onto plate1 on table2 and plate1 in hand at 58, (7,1)->(6,1)->(5,1)->(5,2)->(4,2) [58, 62], waits [62, 78],
# plates pan1's meat2 at 78, (4,3) [78, 79] and serves dish 2 at 79.
REUSE = {"agent1": OPENING + [M(5, 6), IN("dispenser5"), M(8, 1), IN("chopping_board2"), P("chopping_board2"),
                              IN("chopping_board2"), M(4, 2), W(31), IN("stove1"), W(1), F],
         "agent2": A2[:-1] + [M(2, 4), IN("dispenser4"), M(7, 1), IN("table2"), IN("table2"), M(4, 2), W(16),
                              IN("stove1"), M(4, 3), IN("serving_window1"), F]}


def test_a_reused_pan_counts_its_idle_time():
    # paper: meat2 needs the full PAN from 77 -> cooked at 101; dish 2 at 79 holds chopped meat
    assert verdict(grade(S2, REUSE)) == (False, None, [("E750", "agent2", 19, 79), ("E751", None, None, 79)])
    assert meat_state(S2, REUSE, 78, obj="meat2") == "chopped"
    # ParaCook: pan1's timer completed at the agent instant 46 (credited 7, 15, 19, 24 at 29, 37, 41, 46) and
    # kept 46 as its last update; meat2 raises the required total to 48 at 77; the update at 78 credits
    # 24 + (78 - 46) = 56 >= 48: cooked one unit after it went in
    assert verdict(grade(S2, REUSE, compat=PC)) == (True, 79, [])
    assert meat_state(S2, REUSE, 77, PC, "meat2") == "chopped" and meat_state(S2, REUSE, 78, PC, "meat2") == \
        "cooked"


def test_timer_state_after_the_run():
    sim = run(S2, REUSE, PARACOOK)
    (key, timer), = sim.compat.timers.items()
    assert key == ("fry", ("pan1",))
    assert (timer.anchor, timer.processed, timer.required, timer.cooking) == (78, 48, 48, False)
    assert not sim.instances and not sim.pending_events()          # the paper's process machinery is unused


# ------------------------------------------------------------------------------------------------ Finish, OCT
def test_actions_after_finish_run():
    plan = {"agent1": A1, "agent2": A2[:8] + [F] + A2[8:]}          # Finish before walking to the window
    assert verdict(grade(S1, plan)) == (False, None, [("E256", "agent2", 9, 46), ("E751", None, None, 46)])
    assert verdict(grade(S1, plan, compat=PC)) == (True, 47, [])


def test_completion_time_is_the_last_event():
    plan = {"agent1": A1, "agent2": A2[:-1] + [W(5), F]}            # a trailing wait [47, 52]
    default, compat = grade(S1, plan), grade(S1, plan, compat=PC)
    assert (default.metrics["oct"], default.metrics["makespan"], default.metrics["poct"]) == (47, 47, 47)
    assert (compat.metrics["oct"], compat.metrics["makespan"], compat.metrics["poct"]) == (52, 52, 52)
    assert compat.metrics["noct"] == Fraction(52, 150) and compat.metrics["T_max"] == 150   # see below
    assert compat.metrics["time_budget"]["agent2"]["wait"] == 26 + 5


def test_bounds_by_paracooks_formula():
    # burger_basic: bread (raw) 2 x 18; meat (cooked) 4 x 18 + PAN (ParaCook does not count the chopping);
    # serve 18 -> 36 + 96 + 18 = 150 (the map's chain gives 36 + (18 + 22 + 42 + 18) + 18 = 154)
    assert (grade(S1, BURGER_B).metrics["T_max"], grade(S1, BURGER_B, compat=PC).metrics["T_max"]) == (154, 150)
    assert grade(S1, BURGER_B, compat=PC).metrics["D_max"] == 126
    # burrito_meat x 2 + burrito_chicken: per dish tortilla 36 + meat 96 + rice (pot) 4 x 18 + POT = 88 + serve
    # 18 = 238 (the chain counts rice as 3 moves + POT = 70); one dish beyond two plates adds 2 x 18 + RETURN
    # + WASH = 52 -> 3 x 238 + 52 = 766; D_max 3 x (36 + 72 + 72 + 18) + 36 = 630
    world, b = world_for(generated(), "burrito_s42_o3_a2", PARACOOK)
    assert [d.name for d in world.orders] == ["burrito_meat", "burrito_meat", "burrito_chicken"]
    assert b == {"T_max": 766, "D_max": 630} and world_for(generated(), "burrito_s42_o3_a2")[1] == \
        {"T_max": 724, "D_max": 576}


# ------------------------------------------------------------------------------------------------ operators
def test_a_held_plate_at_an_empty_dispenser_is_put_down():
    # agent2: (7,7)->...->(3,4)->(3,5)->(4,5) [0, 13], plate2 in hand, (2,4) [13, 16], Interact dispenser4:
    # paper: bread1 dispensed onto the held plate; ParaCook: plate2 put down on the dispenser, so agent2
    # takes pan1 (empty hand) at 46 and cannot serve at 47
    plan = {"agent1": A1, "agent2": [M(4, 5), IN("table4"), M(2, 4), IN("dispenser4"), M(4, 2), W(26), IN("stove1"),
                                     M(4, 3), IN("serving_window1"), F]}
    assert verdict(grade(S1, plan)) == (True, 47, [])
    rep = grade(S1, plan, compat=PC)
    assert verdict(rep) == (False, None, [("E254", "agent2", 8, 47), ("E751", None, None, 47)])
    assert on(simulate(S1, plan), "dispenser4") == []
    sim = run(S1, plan, PARACOOK)
    assert on(sim, "dispenser4") == ["plate2"] and inside(sim, "plate2") == []
    assert [t[1] for t in sim.st.rels["holding"].by(0, "agent2")] == ["pan1"] and inside(sim, "pan1") == ["meat1"]


def test_nothing_can_be_put_on_the_plate_return():
    # agent2 parks bread1 on plate_return1 (4,7) from (3,7) at 16 and takes it back, then BURGER_B's dish
    plan = {"agent1": A1, "agent2": [M(2, 4), IN("dispenser4"), M(3, 7), IN("plate_return1"), IN("plate_return1"),
                                     M(4, 5), IN("table4"), IN("table4"), M(4, 2), W(22), IN("stove1"), M(4, 3),
                                     IN("serving_window1"), F]}
    assert verdict(grade(S1, plan)) == (True, 47, [])
    assert verdict(grade(S1, plan, compat=PC)) == (False, None, [("E254", "agent2", 3, 16), ("E254", "agent2", 4, 16)])


# after serving at 47 agent2 walks (4,3)->(3,3)->(3,4)->(3,5)->(3,6)->(3,7) [47, 52], waits [52, 57], takes the
# dirty plate2 (back at 47 + RETURN = 57), walks (3,7)->(2,7)->(2,6)->(2,5)->(1,5) [57, 61] and puts it into
# sink1 (0,5) at 61.
TO_SINK = A2[:-1] + [M(3, 7), W(5), IN("plate_return1"), M(1, 5), IN("sink1")]


def test_a_dirty_plate_stays_in_the_sink():
    plan = {"agent1": A1, "agent2": TO_SINK + [IN("sink1"), F]}    # take the dirty plate back at 61
    assert verdict(grade(S1, plan)) == (True, 47, [])
    rep = grade(S1, plan, compat=PC)
    assert verdict(rep) == (False, None, [("E254", "agent2", 15, 61)])
    assert "plate2.clean == true is false" in rep.errors[0].message


def test_the_sink_is_not_a_work_surface():
    # wash [61, 67], (1,5)->(2,5)->(2,4) [67, 69] bread2, back [69, 71], bread2 onto the washed plate2 in the sink
    plan = {"agent1": A1, "agent2": TO_SINK + [P("sink1"), M(2, 4), IN("dispenser4"), M(1, 5), IN("sink1"), F]}
    assert verdict(grade(S1, plan)) == (True, 47, [])
    assert verdict(grade(S1, plan, compat=PC)) == (False, None, [("E252", "agent2", 19, 71)])
    # taking the washed plate out of the sink stays allowed
    ok = {"agent1": A1, "agent2": TO_SINK + [P("sink1"), IN("sink1"), F]}
    assert verdict(grade(S1, ok, compat=PC)) == (True, 67, [])


# ------------------------------------------------------------------------------------------------ the API
def test_compat_values():
    assert rules_for(None) is DEFAULT and rules_for(PC) is PARACOOK and rules_for(PARACOOK) is PARACOOK
    assert rules_for(Compat.RECIPE2PLAN) is DEFAULT and rules_for(Compat.TIMEARENA) is DEFAULT
    assert rules_for("paracook") is DEFAULT                         # members, not strings
    assert (PARACOOK.cooking, PARACOOK.finish, PARACOOK.completion) == (Cooking.PARACOOK_CODE, Finish.MARKER,
                                                                        Completion.LAST_EVENT)
    assert DEFAULT.quirks() == () and set(PARACOOK.quirks()) == {
        "cooking-timer", "after-finish", "completion-time", "upper-bounds", "dispense-into-held",
        "plate-return-counter", "sink-dirty-pickup", "sink-work-surface"}
    # worlds are cached per rule set: the default grade is not affected by an earlier compat grade
    assert world_for(generated(), S1)[0] is not world_for(generated(), S1, PARACOOK)[0]
    assert world_for(generated(), S1, PARACOOK)[0] is world_for(generated(), S1, rules_for(PC))[0]
    assert verdict(grade(S1, LIFT))[0] is False


def test_first_error_mode_under_compat():
    plan = {"agent1": A1, "agent2": TO_SINK + [IN("sink1"), IN("sink1"), F]}
    rep = grade(S1, plan, compat=PC, first=True)
    assert verdict(rep) == (False, None, [("E254", "agent2", 15, 61)])


def test_custom_rules_one_quirk_at_a_time():
    only_timer = KitchenRules(name="timer-only", cooking=Cooking.PARACOOK_CODE)
    assert only_timer.quirks() == ("cooking-timer",)
    assert verdict(grade(S1, LIFT, compat=only_timer)) == (True, 47, [])
    finish = {"agent1": A1, "agent2": A2[:8] + [F] + A2[8:]}
    assert verdict(grade(S1, finish, compat=only_timer))[0] is False          # Finish still ends the plan


def test_scripted_plans_stay_valid_and_end_at_their_last_action():
    """ParaCook's timer never credits less than the paper's rule (idle and off-stove time only add, and
    every Interact starts at an agent instant), and the scripted planner uses no other quirk: its plans for
    every bundled kitchen scenario are valid under compat, with OCT = the end of the last action."""
    project = generated()
    for name in project.scenarios:
        world, _ = world_for(project, name)
        plan = {"plan": scripted_plan(world)}
        rep = grade_grid_plan(project, name, plan, compat=PC)
        assert rep.valid, (name, rep.to_text())
        sim = run(name, plan["plan"], PARACOOK)
        last = max(r.end for rs in sim.runs.values() for r in rs)
        assert rep.metrics["oct"] == rep.metrics["makespan"] == last, name
        assert rep.metrics["oct"] >= grade_grid_plan(project, name, plan).metrics["oct"], name


@pytest.mark.skipif(not any(B.compiled().values()), reason="the kitchen modules are not compiled in this "
                    "install (editable or CHRONOPLAN_PURE_PYTHON): nothing to compare")
def test_compiled_and_pure_agree_under_compat():
    tests = Path(__file__).resolve().parent
    code = (f"import json, sys; sys.path.insert(0, {str(tests)!r}); "
            "from chronoplan.build import compiled; assert not any(compiled().values()); "
            "from test_compat_paracook import compat_outcomes; print(json.dumps(compat_outcomes()))")
    p = C.run_pure(tests.parent, ["-c", code], timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    pure, mine = json.loads(p.stdout), compat_outcomes()
    assert len(mine) == len(pure) > 100 and mine == pure


def compat_outcomes() -> list:
    """Reports under compat of the quirk plans above and of mutated scripted plans (deterministic)."""
    from test_kitchen_fastpath import _mutate
    project = chronoplan.load(GENERATED)
    out = [repr(grade_grid_plan(project, s, {"plan": p}, compat=PC).to_json())
           for s, p in ((S1, LIFT), (S2, REUSE))]
    for name in ("burger_s42_o2_a2", "pasta_s42_o2_a2", "sushi_s42_o3_a2", "sashimi_s42_o3_a3"):
        world, _ = world_for(project, name)
        base = scripted_plan(world)
        stations = [s.name for s in world.map.stations]
        rng = random.Random(name)
        for plan in [base] + [_mutate(rng, base, stations) for _ in range(30)]:
            out.append(repr(grade_grid_plan(project, name, {"plan": plan}, compat=PC).to_json()))
    return out


def test_chronoplan_validate_compat_paracook(tmp_path, capsys):
    """End to end: ``chronoplan validate ... --compat paracook`` reaches these rules (JSON Lines report)."""
    plan = tmp_path / "lift.json"
    plan.write_text(json.dumps({"plan": LIFT}))
    rows = {}
    for extra in ([], ["--compat", "paracook"]):
        code = main(["validate", str(GENERATED), str(plan), "--scenario", S1, "--format", "json", *extra])
        row = json.loads(capsys.readouterr().out.splitlines()[0])
        rows[bool(extra)] = (code, row["valid"], row["metrics"]["oct"], row["metrics"]["T_max"],
                             [e["code"] for e in row["errors"]])
    assert rows[False] == (1, False, None, 154, ["E750", "E751"])
    assert rows[True] == (0, True, 47, 150, [])
