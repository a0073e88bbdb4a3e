"""Gymnasium conventions for the three interactive environments (src/chronoplan/envs.py, issue #15 item 2):
check_env, registered ids, scripted episodes to success with the inner environments' final metrics, refusals
as steps (never exceptions) and the refusal limit as truncation, seeding and reset determinism, the reward."""
from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path

import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import chronoplan  # noqa: E402
import chronoplan.envs as envs  # noqa: E402
from chronoplan.compiler.instantiate import procedure_problem  # noqa: E402
from chronoplan.runtime.procedure.env import Env  # noqa: E402
from chronoplan.runtime.timefmt import clock  # noqa: E402
from chronoplan.validators.kitchen.grade import grade_grid_plan  # noqa: E402
from chronoplan.validators.react_env import ReactEnv  # noqa: E402
from chronoplan.validators.replay import validate_plan  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TIMEARENA = ROOT / "domains" / "timearena"
RECIPES = ROOT / "domains" / "recipes"
KITCHEN = ROOT / "domains" / "paracook" / "kitchen.chrono"
ROAST = "Roast-Chicken_Garlic-Potatoes"
SLOWCUT = "burger_s1_a1_slowcut"

CASES = {
    "chronoplan/TimeArena-v0": {"path": TIMEARENA, "scenario": "cooking1"},
    "chronoplan/Recipe2Plan-v0": {"path": RECIPES, "scenario": ROAST},
    "chronoplan/Kitchen-v0": {"path": KITCHEN, "scenario": SLOWCUT},
}

# burger_s1_a1_slowcut by hand (tests/test_kitchen_play.py's episode): text, JSON action, JSON list, batch lines
# and a world wait; the order is served at t = 59
SLOWCUT_LINES = [
    "MoveTo 7 0; Interact dispenser2",
    "moveto (8, 1); Interact chopping_board1; Process chopping_board1; Interact(chopping_board1)",
    '{"action": "MoveTo", "target": [1, 2]}',
    '[{"action": "Interact", "target": "stove1"}]',
    "MoveTo 3 0; Interact dispenser1",
    '{"agent1": [{"action": "MoveTo", "target": [8, 3]}, {"action": "Interact", "target": "table1"}]}',
    ("agent1: MoveTo 8 5; Interact dispenser3; MoveTo 8 2; Interact chopping_board2; "
     "Process chopping_board2; Interact chopping_board2"),
    "MoveTo 8 3; Interact table1; Interact table1; MoveTo [1, 2]",
    "wait 3",
    "Interact stove1",
    "MoveTo 1 4; Interact serving_window1",
]


@pytest.fixture(scope="module")
def projects():
    return {"timearena": chronoplan.load(TIMEARENA), "recipes": chronoplan.load(RECIPES),
            "kitchen": chronoplan.load(KITCHEN)}


def make(env_id, projects, **kw):
    key = {"chronoplan/TimeArena-v0": "timearena", "chronoplan/Recipe2Plan-v0": "recipes"}.get(env_id, "kitchen")
    return gymnasium.make(env_id, **{**CASES[env_id], "path": projects[key], **kw})


def entry_text(e, unit):
    return f"Step({e['step']}, {e['task']}, {clock(e['duration'], unit)}, {clock(e['start'], unit)})"


@pytest.mark.parametrize("env_id", list(CASES))
def test_check_env_passes_without_warnings(env_id, projects):
    env = make(env_id, projects, render_mode="ansi")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []
    assert isinstance(env.observation_space, gymnasium.spaces.Text)
    assert isinstance(env.action_space, gymnasium.spaces.Text)
    obs, info = env.reset(seed=0)
    assert obs in env.observation_space and info["progress"] == 0.0 and info["success"] is False
    assert env.render() == env.unwrapped.status()
    env.close()
    env.close()


def test_ids_are_registered_with_entry_points():
    for env_id, cls in envs.IDS.items():
        assert gymnasium.spec(env_id).entry_point == f"chronoplan.envs:{cls}"
    envs.register()                               # again: nothing changes, no warning about overriding
    env = gymnasium.make("chronoplan/TimeArena-v0", path=str(TIMEARENA), scenario="cooking2")
    env.reset()
    assert env.unwrapped.scenario.name == "cooking2" and env.render() is None


def test_timearena_scripted_episode_to_success(projects):
    env = make("chronoplan/TimeArena-v0", projects)
    obs, info = env.reset(seed=1)
    assert obs.startswith("Commands: \"pick rice\";") and "Time 00:00:00." in obs
    inner = env.unwrapped.inner
    plain = Env(procedure_problem(projects["timearena"], projects["timearena"].scenario("cooking1")))
    rewards, commands = [], []
    while True:
        ready = inner.executable()
        command = ready[0] if ready else "wait"
        commands.append(command)
        obs, reward, terminated, truncated, info = env.step(command)
        plain.step(command)
        rewards.append(reward)
        if terminated or truncated:
            break
    assert terminated and not truncated and info["success"] and plain.success
    assert obs.startswith("OK: ") and "All steps are done." in obs
    # reward: each of the 8 steps is 1/8 of the goal when it completes, plus 1.0 on the successful last step
    assert sum(rewards) == pytest.approx(2.0) and rewards[-1] == pytest.approx(1.0 + 1 / 8)
    assert info["metrics"] == envs.jsonable(plain.metrics()) == envs.jsonable(env.unwrapped.metrics())
    assert info["metrics"]["completion_time"] == 16 and info["metrics"]["progress_score"] == 100
    # after the end: the same flags, no reward, no exception
    obs, reward, terminated, truncated, info = env.step("wait")
    assert (reward, terminated, truncated, info["ok"]) == (0.0, True, False, False)


def test_recipe2plan_scripted_episode_matches_the_validator(projects):
    valid = json.loads((RECIPES / "plans" / "valid.json").read_text())
    env = make("chronoplan/Recipe2Plan-v0", projects)
    env.reset(seed=0)
    problem = env.unwrapped.problem
    plain = ReactEnv(problem)
    rows = sorted(valid["schedule"], key=lambda e: e["start"])
    total = 0.0
    for i, e in enumerate(rows):
        action = "Thought: next.\nAction: " + entry_text(e, problem.time_unit)
        obs, reward, terminated, truncated, info = env.step(action)
        plain.step(action)
        total += reward
        assert info["ok"] and info["results"][0]["ok"], obs
        assert terminated == (i == len(rows) - 1) and not truncated
    assert total == pytest.approx(2.0) and info["success"]
    batch = validate_plan(problem, valid)
    m = env.unwrapped.metrics()
    assert m == envs.jsonable(plain.metrics()) and m["makespan"] == batch.metrics["makespan"] == 4440
    assert info["metrics"] == envs.jsonable(m) and info["time"] == 4440
    assert "All steps are done: completed at 01:14:00." in obs


def test_recipe2plan_critique_is_informational(projects):
    env = make("chronoplan/Recipe2Plan-v0", projects)
    env.reset()
    obs, reward, terminated, truncated, info = env.step("critique Step(0, Roast-Chicken, 00:10:00, 00:00:00)")
    assert info["informational"] and reward == 0.0 and not (terminated or truncated)
    assert env.unwrapped.inner.commands == 0 and env.unwrapped.inner.accepted == []
    assert obs == env.unwrapped.inner.critique("Step(0, Roast-Chicken, 00:10:00, 00:00:00)").to_text()


def test_kitchen_scripted_episode_matches_the_batch_validator(projects):
    env = make("chronoplan/Kitchen-v0", projects)
    obs, info = env.reset(seed=0)
    assert obs.startswith(f"scenario {SLOWCUT}: orders burger_lettuce") and "Actions: MoveTo X Y" in obs
    rewards = []
    for i, line in enumerate(SLOWCUT_LINES):
        obs, reward, terminated, truncated, info = env.step(line)
        rewards.append(reward)
        assert info["ok"] and info["errors"] == [], obs
        assert terminated == (i == len(SLOWCUT_LINES) - 1) and not truncated
    assert rewards[-1] == 2.0 and sum(rewards) == 2.0 and info["success"] and info["time"] == 59
    assert info["state"]["served"] == [{"dish": "burger_lettuce", "time": 59}]
    plan = env.unwrapped.inner.plan()["plan"]
    assert {"action": "Wait", "duration": 3} in plan["agent1"]
    rep = grade_grid_plan(projects["kitchen"], SLOWCUT, {"plan": plan})
    assert rep.valid, rep.to_text()
    assert info["metrics"] == envs.jsonable(rep.metrics) and info["metrics"]["oct"] == 59


def test_kitchen_informational_actions_and_waits(projects):
    env = make("chronoplan/Kitchen-v0", projects)
    env.reset()
    for action in ("look", "help", "state", "plan"):
        obs, reward, terminated, truncated, info = env.step(action)
        assert info["informational"] and reward == 0.0 and not (terminated or truncated)
    assert json.loads(env.step("state")[0])["time"] == 0
    obs, reward, terminated, truncated, info = env.step("wait")       # nothing pending: a refusal
    assert not info["ok"] and obs.startswith("Refused: Unreadable: nothing is pending") and info["refusals"] == 1
    assert (info["code"], info["category"]) == ("E001", "syntax")
    obs, reward, terminated, truncated, info = env.step("wait 2.5")
    assert info["ok"] and info["time"] == 2.5
    for bad in ("wait -1", "wait x", "wait 1e99"):
        assert not env.step(bad)[4]["ok"]
    obs, reward, terminated, truncated, info = env.step("quit")
    assert terminated and not truncated and reward == 0.0 and not info["success"]


HOSTILE = ["", " ", "\n", "()", "agent1: ()", ";;;", ":", "{", "[", "[]", "{}", '{"plan": 3}', '{"agent9": []}',
           '{"agent1": [5, null, {"action": 7}]}', '{"action": "MoveTo", "target": "x"}', "MoveTo", "MoveTo 1",
           "Interact nowhere", "Step(", "Step(99, Nope, 00:01:00, 00:00:00)", "Step(0, Roast-Chicken, 99:99:99, x)",
           "wait until yesterday", "wait 5 min", "finish now?", "look around", "[[1, 2]]", "x" * 5000,
           "Step(0, Roast-Chicken, 00:10:00, 00:00:00)" * 50, "\x00\x01", "é ü 中文", "NaN", '{"a": NaN}',
           "[" * 5000 + "]" * 5000, "agent1: wait 3; agent2: wait"]


@pytest.mark.parametrize("env_id", list(CASES))
def test_refusals_are_steps_not_exceptions(env_id, projects):
    env = make(env_id, projects)
    env.reset(seed=0)
    refused = 0
    for action in HOSTILE:
        obs, reward, terminated, truncated, info = env.step(action)
        assert isinstance(obs, str) and obs in env.observation_space and isinstance(info, dict)
        refused += not info["ok"]
        if terminated or truncated:
            env.reset()
    assert refused > 10
    env.action_space.seed(7)
    env.reset(seed=7)
    for _ in range(30):                                   # random text from the action space
        *_, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()


def test_timearena_refusal_limit_truncates(projects):
    env = make("chronoplan/TimeArena-v0", projects, max_refusals=3)
    env.reset()
    for _ in range(3):
        obs, reward, terminated, truncated, info = env.step("juggle the pans")
        assert obs.startswith("Refused: unknown command") and info["code"] == "E104" and reward == 0.0
    assert truncated and not terminated and info["refusals"] == 3 and info["metrics"]["refusals"] == 3


def test_recipe2plan_refusal_limit_truncates_and_fatal_terminates(projects):
    env = make("chronoplan/Recipe2Plan-v0", projects)                 # 3 refusals in a row
    env.reset()
    for _ in range(3):
        obs, reward, terminated, truncated, info = env.step("Step(9, Roast-Chicken, 00:01:00, 00:00:00)")
        assert info["code"] is not None and info["label"]
    assert truncated and not terminated
    env = make("chronoplan/Recipe2Plan-v0", projects)
    env.reset()
    obs, reward, terminated, truncated, info = env.step("finish")     # E702: the protocol's own end
    assert terminated and not truncated and info["code"] == "E702" and reward == 0.0


def test_kitchen_refusal_limit_truncates(projects):
    env = make("chronoplan/Kitchen-v0", projects, max_refusals=2)
    env.reset()
    obs, reward, terminated, truncated, info = env.step("Interact nowhere")       # a simulator error
    assert info["code"] is not None and info["errors"] and not truncated
    obs, reward, terminated, truncated, info = env.step("not an action line (")   # unreadable
    assert truncated and not terminated and info["refusals"] == 2


@pytest.mark.parametrize("env_id", list(CASES))
def test_seeding_and_reset_are_deterministic(env_id, projects):
    env = make(env_id, projects)
    runs = []
    for _ in range(2):
        env.action_space.seed(11)
        trace = [env.reset(seed=5)]
        for _ in range(6):
            trace.append(env.step(env.action_space.sample()))
        trace.append(env.step("look"))
        runs.append(trace)
    assert runs[0] == runs[1]
    other = make(env_id, projects)
    assert other.reset(seed=99) == env.reset(seed=5)           # the dynamics do not depend on the seed


def test_wrong_family_and_render_mode_are_refused(projects):
    with pytest.raises(ValueError, match="chronoplan/Kitchen-v0"):
        envs.TimeArenaEnv(projects["kitchen"], SLOWCUT)
    with pytest.raises(ValueError, match="chronoplan/TimeArena-v0 or chronoplan/Recipe2Plan-v0"):
        envs.KitchenGymEnv(projects["recipes"], ROAST)
    with pytest.raises(ValueError, match="render_mode"):
        envs.TimeArenaEnv(projects["timearena"], "cooking1", render_mode="human")
    with pytest.raises(KeyError):
        envs.TimeArenaEnv(projects["timearena"], "no_such_scenario")


def test_importing_without_gymnasium_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "gymnasium", None)
    monkeypatch.delitem(sys.modules, "chronoplan.envs")
    with pytest.raises(ImportError, match=r"pip install 'chronoplan\[gym\]'"):
        importlib.import_module("chronoplan.envs")
    import chronoplan.cli  # noqa: F401  - the rest of the package imports without it


DUO = """
domain duo
procedure tea {
  resource kettle
  step 0 "fill kettle" 2 uses kettle
  step 1 "boil kettle" 3 after 0 uses kettle
}
procedure rice {
  step 0 "wash rice" 2
}
scenario duo { unit min  agents a, b  procedures tea, rice }
"""


def test_timearena_several_agents_use_play_lines(tmp_path):
    path = tmp_path / "duo.chrono"
    path.write_text(DUO)
    env = gymnasium.make("chronoplan/TimeArena-v0", path=path)
    obs, info = env.reset()
    assert "several agents: \"agent: command; agent: command\" (agents: a, b)" in obs
    obs, reward, terminated, truncated, info = env.step("a: fill kettle; b: wash rice")
    assert info["ok"] and reward == pytest.approx(2 / 3) and info["time"] == 2
    obs, reward, terminated, truncated, info = env.step("a: boil kettle")
    assert terminated and info["success"] and reward == pytest.approx(1 / 3 + 1.0)
    assert info["metrics"]["completion_time"] == 5
    obs, info = env.reset()
    obs, reward, terminated, truncated, info = env.step("c: wash rice")       # no agent c: refused, no raise
    assert not info["ok"] and info["code"] == "E103"


def _fractions(value) -> list:
    from fractions import Fraction
    if isinstance(value, dict):
        return [f for v in value.values() for f in _fractions(v)]
    if isinstance(value, (list, tuple)):
        return [f for v in value for f in _fractions(v)]
    return [value] if isinstance(value, Fraction) else []


@pytest.mark.parametrize("env_id, actions", [
    ("chronoplan/TimeArena-v0", ["pick rice", "wait", "look"]),
    ("chronoplan/Recipe2Plan-v0", ["Action: Step(1, Roast-Chicken, 00:01:40, 00:00:00)", "wait 1 min"]),
    ("chronoplan/Kitchen-v0", ["MoveTo 7 0", "wait 1"]),
])
def test_metrics_are_json_at_every_step(projects, env_id, actions):
    """Issue 28 item 20: ``env.unwrapped.metrics()`` held Fractions (progress 1/8, times of a min-unit scenario)
    that ``json.dumps`` refuses; it is JSON-safe, before, during and after an episode."""
    env = make(env_id, projects)
    env.reset(seed=0)
    seen = [env.unwrapped.metrics()]
    for action in actions:
        env.step(action)
        seen.append(env.unwrapped.metrics())
    for m in seen:
        assert _fractions(m) == [] and json.loads(json.dumps(m)) == m
