"""Interactive kitchen environment: batches of actions per agent, feedback, and replay as one plan."""
import json

from kitchen_util import IN, M, W, grade, world
from test_kitchen_plans import BURGER_B

from chronoplan.runtime.kitchen.env import KitchenEnv


def env(scenario="burger_s42_o1_a2", **kw):
    return KitchenEnv(world(scenario), **kw)


def test_batches_give_state_and_continue():
    e = env()
    obs = e.reset()
    assert obs["time"] == 0 and obs["agents"]["agent1"]["cell"] == [9, 7] and obs["pending_orders"] == ["burger_basic"]
    assert obs["stations"]["table4"]["items"] == ["plate2 (clean=true)"]
    # batch 1: agent1 fetches and chops the meat [0, 17]; agent2 fetches bread and plates it [0, 15]
    fb = e.step({"agent1": BURGER_B["agent1"][:6], "agent2": BURGER_B["agent2"][:5]})
    assert fb.errors == () and fb.time == 17 and not fb.done
    assert fb.observation["agents"]["agent1"]["holding"] == ["meat1 (chopped)"]
    assert fb.observation["agents"]["agent2"]["holding"] == ["plate2 (clean=true, with bread1 (raw))"]
    # batch 2 starts at 17: agent1 puts the meat in the pan at 17 + 5 = 22; agent2 (idle since 15) walks
    # [17, 22] and names a station that does not exist: reported, skipped, the episode goes on
    fb = e.step({"agent1": BURGER_B["agent1"][6:8], "agent2": [M(4, 2), IN("stove9")]})
    assert fb.time == 22 and [er.code for er in fb.errors] == ["E152"]
    assert fb.observation["cooking"] == [{"process": "fry", "objects": ["pan1"], "progress": 0, "running": True}]
    # batch 3: wait for the meat (cooked at 46) and serve
    fb = e.step({"agent2": [W(24), IN("stove1"), M(4, 3), IN("serving_window1")]})
    assert fb.done and fb.success and fb.time == 47 and fb.errors == ()
    json.dumps(fb.to_json(), allow_nan=False)
    # the episode as one ParaCook plan: the idle gaps became Waits; the batch validator agrees exactly
    plan = e.plan()
    assert plan["plan"]["agent2"][5] == {"action": "Wait", "duration": 2}       # idle [15, 17]
    rep = grade("burger_s42_o1_a2", plan["plan"])
    assert [(er.code, er.index, er.time) for er in rep.errors] == [("E152", 7, 22)]
    m = e.metrics()                      # the error makes the run unsuccessful, as in the batch validator
    assert m == rep.metrics and m["makespan"] == 47 and m["success"] is False
    assert "2" in e.text() and "served 1/1" in e.text()


def test_unknown_agents_and_bad_batches_are_reported():
    e = env()
    fb = e.step({"agent9": [W(1)], "agent1": ["oops"]})
    assert [er.code for er in fb.errors] == ["E151", "E010"]
    fb = e.step("not a batch")
    assert [er.code for er in fb.errors] == ["E010"]


def test_time_limit_and_world_waiting():
    e = env(max_time=30)
    e.step({"agent1": BURGER_B["agent1"][:8]})                 # pan filled at 22
    fb = e.wait(5)
    assert fb.time == 27 and fb.observation["cooking"][0]["progress"] == 5
    fb = e.step({"agent1": [W(10)]})
    assert fb.done and not fb.success and fb.time == 30
