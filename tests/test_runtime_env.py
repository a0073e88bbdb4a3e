"""Interactive environment: TimeArena's closed-loop protocol over step-level scenarios."""
from __future__ import annotations

from fractions import Fraction

import pytest
from test_runtime_sim import DOMAIN as SIM_DOMAIN

import chronoplan
from chronoplan.compiler.instantiate import procedure_problem
from chronoplan.runtime import metrics as M
from chronoplan.runtime.procedure.env import Env

DOMAIN = """
domain arena
procedure tea {
  resource kettle, cup
  step 0 "fill kettle with water" 2 uses kettle
  step 1 "boil kettle" 5 autonomous for 1 after 0 uses kettle
  step 2 "pour kettle into cup" 1 after 1 uses kettle, cup
}
procedure rice {
  resource rice, pot
  step 0 "wash rice" 3 uses rice
  step 1 "cook rice in pot" 4 autonomous for 1 after 0 uses rice, pot
}
procedure rice2 {
  resource rice, pot
  step 0 "wash rice" 1 uses rice
  step 1 "cook rice in pot" 2 autonomous for 1 after 0 uses rice, pot
}
procedure lag {
  step 0 "whisk eggs" 1
  step 1 "fry eggs" 2 after 0 within 1 of 0
}
scenario tea_only { unit min  agents me  procedures tea }
scenario two_rice { unit min  agents me  procedures rice, rice2 }
scenario tea_rice { unit min  agents me  procedures tea, rice  limit 8 min }
scenario duo { unit min  agents a, b  procedures tea, rice }
scenario lagged { unit min  agents me  procedures lag }
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    p = tmp_path_factory.mktemp("env") / "arena.chrono"
    p.write_text(DOMAIN)
    return chronoplan.load(p)


def env_for(project, name, **kw):
    return Env(procedure_problem(project, project.scenario(name)), **kw)


def test_occupying_and_background_actions(project):
    env = env_for(project, "tea_only")
    assert env.reset().startswith("Time 00:00:00.")
    obs, fb = env.step("fill kettle with water")           # occupying: minutes 0..1
    assert fb.ok and env.time == 2 and "until 00:02:00" in fb.message
    obs, fb = env.step("Boil   Kettle")                      # background: costs minute 2, done at 7
    assert fb.ok and env.time == 3 and "runs on its own until 00:07:00" in fb.message
    assert "Running: \"boil kettle\"" in obs and "kettle in use until 00:07:00" in obs
    for t in (3, 4, 5, 6):                                  # refused, minute still charged, boiling goes on
        obs, fb = env.step("pour kettle into cup")
        assert not fb.ok and env.time == t + 1
    assert fb.code == "E301" and fb.category == "dependency"
    obs, fb = env.step("pour kettle into cup.")
    assert fb.ok and env.done and env.success
    assert env.completion_time() == 8
    m = env.metrics()
    assert m["progress_score"] == 100 and m["refusals"] == 4 and m["commands"] == 7


def test_object_occupancy_and_unknown_commands(project):
    env = env_for(project, "two_rice")
    assert set(env.texts.values()) == {"wash rice_1", "cook rice_1 in pot_1", "wash rice_2",
                                       "cook rice_2 in pot_2"}
    env.step("wash rice_2")
    obs, fb = env.step("cook rice_2 in pot_2")               # rice_2 and pot_2 busy on [1, 3)
    assert fb.ok and env.time == 2
    obs, fb = env.step("cook rice in pot")                   # the original text: rice_1 is not washed yet
    assert not fb.ok and fb.code == "E301"
    obs, fb = env.step("wash rice")                          # unsuffixed text resolves to the free step
    assert fb.ok and env.time == 6
    obs, fb = env.step("boil the pasta")
    assert not fb.ok and fb.code == "E104" and fb.category == "unknown-name"
    obs, fb = env.step("cook rice in pot_1")
    assert not fb.ok and fb.code == "E104" and "cook rice_1 in pot_1" in fb.hint
    obs, fb = env.step("cook rice_1 in pot_1")
    assert fb.ok and env.done and env.success and env.completion_time() == 12


def test_resource_busy_refusal(project):
    env = env_for(project, "tea_only")
    env.step("fill kettle with water")
    env.step("boil kettle")
    obs, fb = env.step("fill kettle with water")
    assert fb.code == "E801"                                 # already done
    env2 = env_for(project, "two_rice")
    env2.step("wash rice_1")
    obs, fb = env2.step("cook rice_1 in pot_1")              # rice_1 and pot_1 held on [3, 7)
    assert fb.ok and env2.time == 4 and "pot_1 in use until 00:07:00" in obs


def test_five_refusals_end_the_episode(project):
    env = env_for(project, "tea_only")
    for _ in range(4):
        obs, fb = env.step("dance")
        assert not env.done
    obs, fb = env.step("dance")
    assert env.done and not env.success and fb.done and "5 refused commands in a row" in obs
    obs, fb = env.step("fill kettle with water")
    assert not fb.ok and fb.message == "The episode is over."
    unlimited = env_for(project, "tea_only", max_refusals=None)
    for _ in range(20):
        unlimited.step("dance")
    assert not unlimited.done and unlimited.time == 20


def test_wait_and_limit(project):
    env = env_for(project, "tea_rice")
    obs, fb = env.step("wait 3")
    assert fb.ok and env.time == 3
    obs, fb = env.step("wash rice")
    assert env.time == 6
    obs, fb = env.step("wait 5")
    assert env.done and not env.success and env.time == 8 and "time limit 00:08:00" in obs
    assert env.episode_score() == M.EpisodeScore(100 * 3 // 15, Fraction(6), False)


def test_fast_forward_when_nothing_is_left_to_start(project):
    env = env_for(project, "two_rice")
    env.step("wash rice_1")
    env.step("wash rice_2")
    env.step("cook rice_1 in pot_1")
    obs, fb = env.step("cook rice_2 in pot_2")
    assert env.done and env.success and env.time == 8 and env.completion_time() == 8


def test_missed_max_lag_ends_the_episode(project):
    env = env_for(project, "lagged")
    env.step("whisk eggs")                                   # ends at 1; fry must start by 2
    obs, fb = env.step("wait 3")
    assert env.done and not env.success and fb.done
    assert env.time == 2 and "must start within 1 min" in obs


def test_two_agents(project):
    env = env_for(project, "duo", show_executable=True)
    obs = env.reset()
    assert "a is free; b is free" in obs and "You can do now:" in obs
    obs, fb = env.step({"a": "fill kettle with water", "b": "wash rice"})
    assert fb.ok and env.time == 2                           # minute 1 is skipped: both agents are busy
    assert "a is free; b is busy with \"wash rice\" until 00:03:00" in obs
    obs, fb = env.step({"b": "boil kettle"})                 # b is still busy: refused; a waits
    assert not fb.ok and fb.code == "E401" and env.time == 3
    obs, fb = env.step({"a": "boil kettle", "c": "wait"})
    assert fb.ok is False and fb.code == "E103" and "Running: \"boil kettle\"" in obs
    assert env.time == 4


def test_arena_summary_over_episodes(project):
    scores = []
    for script in (["fill kettle with water", "boil kettle", "wait 4", "pour kettle into cup"],
                   ["fill kettle with water"]):
        env = env_for(project, "tea_only")
        for cmd in script:
            env.step(cmd)
        scores.append(env.episode_score())
    assert scores[0] == M.EpisodeScore(100, Fraction(8), True)
    assert scores[1] == M.EpisodeScore(25, Fraction(2), False)
    s = M.arena_summary(scores)
    assert s["AS"] == Fraction(125, 2) and s["CR"] == 50 and s["CT"] == 8 and s["CS"] == Fraction(125, 10)


def _random_commands(env, rng, n):
    texts = list(env.texts.values())
    pool = texts + ["wait", "wait 2", "juggle the pans"]
    agents = env.problem.agents
    if len(agents) == 1:
        return [rng.choice(pool) for _ in range(n)]
    return [{a: rng.choice(pool) for a in agents if rng.random() < 0.8} for _ in range(n)]


@pytest.mark.parametrize("name", ["tea_only", "two_rice", "tea_rice", "duo", "lagged"])
def test_lazy_observation_is_the_observation_of_its_step(project, name):
    """``step`` returns an Observation built on first read: read late (after more steps, after the episode,
    after a reset) it is still what ``observation()`` said right after its step."""
    import random

    from chronoplan.runtime.procedure.env import Observation
    rng = random.Random(7)
    for episode in range(40):
        env = env_for(project, name, max_refusals=None if episode % 2 else 5)
        pairs = []
        for cmd in _random_commands(env, rng, 25):
            obs, _ = env.step(cmd)
            pairs.append((obs, env.observation()))
            done = [k for k, s in env.state.steps.items() if s.done_at is not None]
            assert f"(progress score {M.progress_score(env.problem, done)})" in obs
        env.reset()
        for obs, now in pairs:
            assert isinstance(obs, Observation) and str(obs) == now and obs == now
    obs, _ = env_for(project, "tea_only").step("fill kettle with water")
    assert obs.startswith("Time 00:02:00.") and "You are free." in obs and f"{obs}" == obs.data


PROPS = SIM_DOMAIN      # test_runtime_sim's domain: properties, shared capacity, ticks; scenarios solo, duo


@pytest.mark.parametrize("name", ["solo", "duo"])
def test_lazy_observation_with_properties_capacity_and_ticks(tmp_path, name):
    import random
    p = tmp_path / "props.chrono"
    p.write_text(PROPS)
    project = chronoplan.load(p)
    rng = random.Random(11)
    for _ in range(60):
        env = env_for(project, name, max_refusals=None)
        pairs = []
        for cmd in _random_commands(env, rng, 40):
            obs, _ = env.step(cmd)
            pairs.append((obs, env.observation()))
        for obs, now in pairs:
            assert str(obs) == now
