"""Kitchen physics: cooking pauses off the stove, cookware reuse, the same-instant rule, exact chaining.

All on the generated burger map (seed 42; legend in test_kitchen_plans.py).  The shared opening: agent1
(start (9,7)) fetches meat at (5,6) [0, 5], walks to chopping_board2's (8,1) [5, 13], chops [13, 17],
walks to (4,2) between stove1 (4,1) and stove2 (3,2) [17, 22] and puts the meat into pan1 on stove1 at 22,
so frying alone would end at 22 + PAN = 46.
"""
from kitchen_util import GENERATED, IN, F, M, P, W, generated, grade, inside, on, simulate

import chronoplan
from chronoplan.runtime.kitchen.engine import KitchenSim
from chronoplan.validators.kitchen.grade import world_for
from chronoplan.validators.kitchen.read import read_cook_plan

OPENING = [M(5, 6), IN("dispenser5"), M(8, 1), IN("chopping_board2"), P("chopping_board2"), IN("chopping_board2"),
           M(4, 2), IN("stove1")]


def state_at(scenario, plan, t, obj="meat1"):
    world, _ = world_for(generated(), scenario)
    sim = KitchenSim(world)
    for agent, steps in read_cook_plan({"plan": plan}).steps.items():
        sim.add(agent, steps)
    sim.run(until=t)
    return sim.st.get("state", obj), sim


def test_cooking_pauses_while_the_pan_is_lifted():
    # fry [22, 32] (progress 10), lift pan1 at 32, hold it [32, 37], put it back at 37: 14 units remain,
    # so the meat is cooked at 37 + 14 = 51 = 46 + 5, later by exactly the 5 units off the stove.
    plan = {"agent1": OPENING + [W(10), IN("stove1"), W(5), IN("stove1")]}
    assert state_at("burger_s42_o1_a1", plan, 50)[0] == "chopped"
    state, sim = state_at("burger_s42_o1_a1", plan, 51)
    assert state == "cooked" and on(sim, "stove1") == ["pan1"] and inside(sim, "pan1") == ["meat1"]
    # without the lift the meat is cooked at 46
    assert state_at("burger_s42_o1_a1", {"agent1": OPENING}, 45)[0] == "chopped"
    assert state_at("burger_s42_o1_a1", {"agent1": OPENING}, 46)[0] == "cooked"


def test_cooking_resumes_on_any_stove():
    # at 22 agent1 lifts pan2 off stove2 and parks it on table1 (2,0) via (4,2)->(4,3)->(3,3)->(2,3)->(2,2)
    # ->(2,1) [22, 27], walks back [27, 32], lifts pan1 (progress 10) at 32, waits 3 [32, 35] and puts it on
    # the now empty stove2 at 35: 14 remain -> cooked at 49 = 46 + 3.
    plan = {"agent1": OPENING + [IN("stove2"), M(2, 1), IN("table1"), M(4, 2), IN("stove1"), W(3), IN("stove2")]}
    assert state_at("burger_s42_o1_a1", plan, 48)[0] == "chopped"
    state, sim = state_at("burger_s42_o1_a1", plan, 49)
    assert state == "cooked" and on(sim, "stove2") == ["pan1"] and on(sim, "table1") == ["pan2"]


def test_emptied_cookware_starts_from_zero():
    # agent2 plates the first meat at 46 (plan B of test_kitchen_plans): pan1 is empty again.  agent1 prepares
    # a second meat: (4,2)->(5,2)->(6,2)->(6,3)->(6,4)->(6,5)->(6,6)->(5,6) [22, 29], meat2 at 29, to (8,1)
    # [29, 37], chop [37, 41], back to (4,2) [41, 46], waits 1 [46, 47] and adds meat2 to pan1 at 47.
    # The pan idled since 46, but meat2 needs the full PAN: cooked at 47 + 24 = 71, not earlier.
    from test_kitchen_plans import BURGER_B
    agent1 = OPENING + [M(5, 6), IN("dispenser5"), M(8, 1), IN("chopping_board2"), P("chopping_board2"),
                        IN("chopping_board2"), M(4, 2), W(1), IN("stove1"), F]
    plan = {"agent1": agent1, "agent2": BURGER_B["agent2"]}
    assert state_at("burger_s42_o2_a2", plan, 70, "meat2")[0] == "chopped"
    state, sim = state_at("burger_s42_o2_a2", plan, 71, "meat2")
    assert state == "cooked" and inside(sim, "pan1") == ["meat2"] and sim.served[0][:2] == ("burger_basic", 47)


def test_two_items_in_one_pan_add_their_cook_times():
    # (a) a second meat added when the first batch has just finished: agent1 goes (4,2)->(5,2)->(6,2)->(6,3)
    # ->(6,4)->(6,5)->(6,6)->(5,6) [22, 29], meat2, to (8,1) [29, 37], chops [37, 41], back [41, 46] and adds
    # it at 46, when meat1's batch completes (completions run before starts): a new batch of 24 -> 70.
    plan = {"agent1": OPENING + [M(5, 6), IN("dispenser5"), M(8, 1), IN("chopping_board2"), P("chopping_board2"),
                                 IN("chopping_board2"), M(4, 2), IN("stove1")]}
    assert state_at("burger_s42_o1_a1", plan, 69, "meat2")[0] == "chopped"
    assert state_at("burger_s42_o1_a1", plan, 70, "meat2")[0] == "cooked"
    # (b) a second meat added while the first cooks: agent2 (7,7)->(6,7)->(5,7)->(5,6) [0, 3] takes meat2,
    # walks to (8,1) [3, 11], waits [11, 17] for agent1 to take meat1 off the board at 17 (agent1 acts first),
    # chops [17, 21], walks to (4,2) [21, 26] and adds meat2 to pan1 at 26.  The pan then needs 2 x 24 = 48
    # of which 26 - 22 = 4 are done: both meats are cooked at 26 + 44 = 70 (not meat1 at 46).
    helper = [M(5, 6), IN("dispenser5"), M(8, 1), W(6), IN("chopping_board2"), P("chopping_board2"),
              IN("chopping_board2"), M(4, 2), IN("stove1")]
    plan2 = {"agent1": OPENING, "agent2": helper}
    rep = grade("burger_s42_o1_a2", plan2)
    assert [e.code for e in rep.errors] == ["E751"], rep.to_text()
    assert state_at("burger_s42_o1_a2", plan2, 69)[0] == "chopped"
    assert state_at("burger_s42_o1_a2", plan2, 70)[0] == "cooked"
    assert state_at("burger_s42_o1_a2", plan2, 70, "meat2")[0] == "cooked"


TIE = {"agent1": [M(7, 1), IN("table2"), F],  # (9,7)->(9,6)->...->(9,1)->(8,1)->(7,1): 8
       "agent2": [M(7, 1), IN("table2"), F]}  # (7,7)->(7,6)->(7,5)->(8,5)->(8,4)->(8,3)->(8,2)->(8,1)->(7,1): 8


def test_same_instant_grab_goes_to_the_first_listed_agent():
    rep = grade("burger_s42_o1_a2", TIE)
    errs = [e for e in rep.errors if e.code != "E751"]
    assert [(e.code, e.agent, e.index, e.time) for e in errs] == [("E254", "agent2", 1, 8)]
    assert "on(i, table2) is false" in errs[0].message
    sim = simulate("burger_s42_o1_a2", TIE)
    assert sim.st.rels["holding"].by(0, "agent1") and not sim.st.rels["holding"].by(0, "agent2")


def test_same_instant_rule_follows_the_scenario_agent_order(tmp_path):
    src = tmp_path / "tie.chrono"
    src.write_text(f'domain paracook\nimport "{(GENERATED / "burger_s42.chrono").as_posix()}"\n'
                   "scenario tie_swapped { map burger_s42 agents agent2 at (7, 7), agent1 at (9, 7) "
                   "orders burger_basic }\n")
    p = chronoplan.load(src)
    sim = simulate("tie_swapped", TIE, project=p)
    assert sim.st.rels["holding"].by(0, "agent2") and not sim.st.rels["holding"].by(0, "agent1")
    assert [(e.code, e.agent) for e in sim.errors] == [("E254", "agent1")]


def test_zero_time_chain_at_one_instant():
    # Interact costs 0 and zero-time actions chain at one instant: dispenser4 gives bread1, a second Interact
    # puts it down on the (counter) dispenser, a third picks it up again -- all at the arrival time 14.
    plan = {"agent1": [M(2, 4), IN("dispenser4"), IN("dispenser4"), IN("dispenser4")]}
    sim = simulate("burger_s42_o1_a1", plan)
    runs = sim.runs["agent1"]
    # (9,7)->(9,6)->(8,6)->(7,6)->(6,6)->(6,5)->(6,4)->(6,3)->(6,2)->(5,2)->(4,2)->(4,3)->(3,3)->(3,4)->(2,4): 14
    assert [(r.operator, r.start, r.end) for r in runs] == [
        ("move_to", 0, 14), ("take_from_dispenser", 14, 14), ("put_down", 14, 14), ("pick_up", 14, 14)]


GENERIC = """
type ingredient < item, pan < item, meat < ingredient, counter < station, stove < station, dispenser < counter
attr state(ingredient): raw | chopped | cooked = raw
relation holding(agent, item) as holding capacity 1 per agent
relation on(item, station) as placement capacity 1 per station
relation inside(ingredient, pan) as containment
action take(a: agent, d: dispenser, new i: ingredient from d) { when start: adjacent(a, d) at end: holding(a, i) }
action drop(a: agent, s: stove, i: ingredient, p: pan) {
  when start: adjacent(a, s) and holding(a, i) and on(p, s)
  at end: inside(i, p), not holding(a, i), i.state = chopped
}
action lift(a: agent, s: stove, p: pan) { when start: adjacent(a, s) and on(p, s) at end: holding(a, p), not on(p, s) }
action place(a: agent, s: stove, p: pan) { when start: adjacent(a, s) and holding(a, p) \
at end: on(p, s), not holding(a, p) }
action wait(a: agent, t: number) { duration t busy a }
# the old per-item style: one instance per (ingredient, pan, stove), no scope
process fry(i: ingredient, p: pan, s: stove) {
  while inside(i, p) and on(p, s) and i.state == chopped
  duration 10
  at end: i.state = cooked
}
surface Interact(a: agent, target: station) = take | drop | lift | place
surface Wait(a: agent, duration: number) = wait
map m \"\"\"
  D.S
\"\"\" where D = dispenser(meat), S = stove with pan
scenario g { map m agents agent1 at (1, 0) orders }
"""


def test_generic_process_tracking_multi_parameter(tmp_path):

    from chronoplan.compiler.driver import compile_text
    text = GENERIC.replace("orders }", "orders r }") + "recipe r = pan[meat@cooked]\ncontainer pan accepts meat\n"
    p, diags, _ = compile_text(text, "g.chrono")
    assert not [d for d in diags if d.is_error], diags
    # meat in the pan at 0; lifted at 4 (progress 4) for 3 units, back at 7 -> this instance (same stove)
    # resumes: cooked at 7 + 6 = 13
    plan = {"agent1": [IN("dispenser1"), IN("stove1"), W(4), IN("stove1"), W(3), IN("stove1"), W(20)]}
    world, _ = world_for(p, "g")
    assert world.fast_triggers is None
    for t, state in ((12, "chopped"), (13, "cooked")):
        sim = KitchenSim(world)
        sim.add("agent1", read_cook_plan({"plan": plan}).steps["agent1"])
        sim.run(until=t)
        assert sim.st.get("state", "meat1") == state, (t, sim.errors)
