"""``chronoplan play`` on grid kitchens (commands/play_kitchen.py): scripted episodes from stdin (no tty),
the line formats, errors, world waiting, the JSON summary and its agreement with the batch validator."""
import io
import json
import sys
from functools import cache

import pytest
from kitchen_util import KITCHEN, ROOT, kitchen

from chronoplan.cli import main
from chronoplan.commands.play_kitchen import LineError, LineReader
from chronoplan.runtime.kitchen import scripted
from chronoplan.runtime.kitchen.world import World
from chronoplan.validators.kitchen.grade import grade_grid_plan

PARACOOK = ROOT / "domains" / "paracook"
TOOLS = ROOT / "domains" / "tools"

# burger_s1_a1_slowcut by hand (one agent, CUT = 6): lettuce and meat chopped, meat fried (24) while the
# bread and lettuce go on the plate; text, JSON action, JSON list and batch lines, and both world waits
SLOWCUT = [
    "help",
    "MoveTo 7 0; Interact dispenser2",                                       # meat1, t = 6
    "moveto (8, 1); Interact chopping_board1; Process chopping_board1; Interact(chopping_board1)",
    '{"action": "MoveTo", "target": [1, 2]}',                                # t = 22
    '[{"action": "Interact", "target": "stove1"}]',                          # frying runs [22, 46]
    "MoveTo 3 0; Interact dispenser1",
    '{"agent1": [{"action": "MoveTo", "target": [8, 3]}, {"action": "Interact", "target": "table1"}]}',
    ("agent1: MoveTo 8 5; Interact dispenser3; MoveTo 8 2; Interact chopping_board2; "
     "Process chopping_board2; Interact chopping_board2"),
    "MoveTo 8 3; Interact table1; Interact table1; MoveTo [1, 2]",           # t = 54, meat cooked at 46
    "wait",                                                                  # nothing pending: said so
    "wait 3",                                                                # the world runs to t = 57
    "Interact stove1",
    "MoveTo 1 4; Interact serving_window1",                                  # served at t = 59
    "look",
    "MoveTo 1 3",                                                            # not read: the episode is over
]


def play(monkeypatch, capsys, lines, *args, path=KITCHEN):
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    status = main(["play", str(path), *args])
    return status, capsys.readouterr().out


@cache
def planned(name):
    return scripted.plan(World(kitchen(), name))


def test_scripted_episode_succeeds_from_stdin(monkeypatch, capsys):
    status, out = play(monkeypatch, capsys, SLOWCUT, "--scenario", "burger_s1_a1_slowcut", "--json",
                       path=PARACOOK)
    assert status == 0
    assert "> " not in out                                  # no prompt without a terminal
    assert out.count("Actions: MoveTo X Y; Interact <station>; Process <station>; Wait N; Finish") == 2
    assert "nothing is pending" in out and "OK (t = 57)" in out and "served 1/1" in out
    assert "Unreadable" not in out and " error(s):" not in out
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["success"] is True and summary["errors"] == [] and summary["unreadable_lines"] == 0
    assert summary["time"] == 59 and summary["batches"] == 10 and (summary["served"], summary["orders"]) == (1, 1)
    # the equivalent ParaCook plan (the world wait became a Wait) grades identically in the batch validator
    plan = summary["plan"]
    assert {"action": "Wait", "duration": 3} in plan["agent1"] and plan["agent1"][-1]["target"] == "serving_window1"
    rep = grade_grid_plan(kitchen(), "burger_s1_a1_slowcut", {"plan": plan})
    assert rep.valid, rep.to_text()
    assert summary["metrics"]["oct"] == rep.metrics["oct"] == 59 and summary["metrics"]["success"] is True
    assert summary["metrics"]["makespan"] == 59


def test_two_agents_text_line_and_plan_line(monkeypatch, capsys):
    plan = planned("burger_s1_a2")

    def text(actions):
        return "; ".join(a["action"] + (f" {a['target'][0]} {a['target'][1]}" if isinstance(a.get("target"), list)
                                        else f" {a['target']}" if "target" in a else f" {a['duration']}"
                                        if "duration" in a else "") for a in actions)

    line = "; ".join(f"{agent}: {text(actions)}" for agent, actions in plan.items())
    status, out = play(monkeypatch, capsys, [line], "--scenario", "burger_s1_a2", "--json")
    summary = json.loads(out.strip().splitlines()[-1])
    assert status == 0 and summary["errors"] == [] and summary["batches"] == 1
    assert summary["plan"] == plan                          # text read back into the very same actions
    status, out = play(monkeypatch, capsys, [json.dumps({"plan": plan})], "--scenario", "burger_s1_a2")
    assert status == 0 and out.strip().splitlines()[-1].startswith("success: 2/2 orders served, the last at t=")


def test_non_adjacent_interact_is_reported(monkeypatch, capsys):
    lines = ["agent1: Interact stove1",                      # agent1 starts at (2, 1); stove1 is at (0, 2)
             "MoveTo 1 2",                                   # two agents: which one? unreadable, skipped
             "agent2: MoveTo 1 9; agent1: Interact stove9",  # off the map; unknown station (agent1 first)
             "agent3: Wait 1",
             "agent1: MoveTo 1 2; Interact stove1"]          # now adjacent: picks up pan1
    status, out = play(monkeypatch, capsys, lines, "--scenario", "burger_s1_a2", "--json")
    assert status == 1
    first = out[out.index("1 error(s):"):]
    assert first.splitlines()[1].startswith("  E251 precondition (agent1 #0, t=0): Interact stove1:")
    assert "not next to stove1" in first and "MoveTo a floor tile next to stove1" in first
    assert 'Unreadable: "MoveTo 1 2" needs an agent: the scenario has 2 (agent1, agent2)' in out
    summary = json.loads(out.strip().splitlines()[-1])
    assert [(e["code"], e["agent"], e["index"]) for e in summary["errors"]] == \
        [("E251", "agent1", 0), ("E152", "agent1", 1), ("E250", "agent2", 0), ("E151", "agent3", None)]
    assert summary["unreadable_lines"] == 1 and summary["success"] is False
    assert "pan1" in out.split("agent1 at (1, 2) holding")[-1].splitlines()[0]
    assert summary["metrics"]["success"] is False and summary["metrics"]["served"] == 0
    # the summary line without --json
    status, out = play(monkeypatch, capsys, lines[:1], "--scenario", "burger_s1_a2")
    assert status == 1 and out.strip().splitlines()[-1] == \
        "not finished: 0/2 orders served, t=0, 1 error(s) in 1 batch(es)"


def test_max_refusals_ends_the_episode_and_waiting_for_events(monkeypatch, capsys):
    bad = ["Interact stove1", "Interact sink1", "MoveTo 7 0"]
    status, out = play(monkeypatch, capsys, bad, "--scenario", "burger_s1_a1_slowcut", "--max-refusals", "2",
                       "--json")
    summary = json.loads(out.strip().splitlines()[-1])
    assert status == 1 and summary["batches"] == 2 and [e["code"] for e in summary["errors"]] == ["E251", "E251"]
    # "wait" runs the world to the next pending event: the meat put in the pan at 22 is cooked at 46
    status, out = play(monkeypatch, capsys, SLOWCUT[1:5] + ["wait", "state", "plan"],
                       "--scenario", "burger_s1_a1_slowcut")
    assert "OK (t = 46)" in out and "stove1: pan1 (with meat1 (cooked))" in out
    state = json.loads(next(ln for ln in out.splitlines() if ln.startswith('{"time"')))
    assert state["time"] == 46 and state["cooking"] == [] and state["pending_orders"] == ["burger_lettuce"]
    plan = json.loads(next(ln for ln in out.splitlines() if ln.startswith('{"plan"')))
    assert plan["plan"]["agent1"][:2] == [{"action": "MoveTo", "target": [7, 0]},
                                          {"action": "Interact", "target": "dispenser2"}]
    # world waits are bounded: the clock stays within the numbers a plan may hold
    status, out = play(monkeypatch, capsys, ["wait 0", "wait soon", "wait 1000000000001", "wait 999999999999.5"],
                       "--scenario", "burger_s1_a1_slowcut", "--json")
    assert out.count("Unreadable: wait") == 3 and "OK (t = 999999999999.5)" in out
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["unreadable_lines"] == 3 and summary["time"] == 999999999999.5


def test_line_reader_forms_and_errors():
    world = World(kitchen(), "burger_s1_a1_slowcut")
    one = LineReader(world.agents, world.surfaces)
    assert one.batch("MoveTo 3 4") == {"agent1": [{"action": "MoveTo", "target": [3, 4]}]}
    assert one.batch("moveTO [3,4]; wait 2.5; INTERACT(stove1); finish") == {"agent1": [
        {"action": "MoveTo", "target": [3, 4]}, {"action": "Wait", "duration": 2.5},
        {"action": "Interact", "target": "stove1"}, {"action": "Finish"}]}
    assert one.batch("Teleport 1 2") == {"agent1": [{"action": "Teleport"}]}    # left to the env (E150)
    assert one.batch('{"plan": {"agent1": []}}') == {"agent1": []}
    assert one.batch('{"agent9": {"action": "Finish"}}') == {"agent9": {"action": "Finish"}}
    for bad, msg in [("MoveTo 3", "needs a cell"), ("MoveTo 3.5 4", "needs a cell"), ("Wait soon", "needs a number"),
                     ("Interact", "needs a station name"), ("Finish now", "unexpected 'now'"),
                     ("Wait 1e999", "needs a number"), ('{"action": "Wait", "duration": NaN}', "not a number"),
                     ('{"plan": 3}', '"plan" must be an object'), ("[1, 2", "not JSON"),
                     ("[" * 100_000, "nested too deeply"), ("MoveTo " + "9" * 20 + " 1", "needs a cell"),
                     ("x" * 1_000_001, "characters"), ("()", "no action in"), ("agent1: ,", "no action in")]:
        with pytest.raises(LineError, match=msg):
            one.batch(bad)
    two = LineReader(("agent1", "agent2"), world.surfaces)
    assert two.batch("agent2: Wait 1; Finish; agent1: MoveTo 1 1") == {
        "agent2": [{"action": "Wait", "duration": 1}, {"action": "Finish"}],
        "agent1": [{"action": "MoveTo", "target": [1, 1]}]}
    for bad in ("Wait 1", '{"action": "Finish"}', "[]"):
        with pytest.raises(LineError, match="needs an agent"):
            two.batch(bad)


def test_non_kitchen_scenarios_still_refused(monkeypatch, capsys):
    import chronoplan
    tools = chronoplan.load(TOOLS)
    name = next(n for n, s in tools.scenarios.items() if s.kind.value == "tools")
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", str(TOOLS), "--scenario", name]) == 2
    assert "tool-use scenarios have no interactive protocol; grade whole tool plans with `chronoplan validate`" \
        in capsys.readouterr().err
