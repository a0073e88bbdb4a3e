"""The drop-in for the released TimeArena environment (``chronoplan.arena_dropin.TimeArena``, issue 28 item 3b): the
released runner's loop (re-stated in tests/timearena_released.py), with a scripted model replaying the oracle
schedules, gives byte-identical transcripts and records with the drop-in and with the re-statement of the released
environment, on every bundled scenario."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

import chronoplan
from chronoplan.arena_dropin import TimeArena, scenario_name
from chronoplan.compiler.instantiate import procedure_problem
from chronoplan.runtime.procedure.arena_rules import ArenaRules

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from timearena_exact import solve  # noqa: E402
from timearena_released import Args, ReleasedArena, run_agent  # noqa: E402


@pytest.fixture(scope="module")
def project():
    return chronoplan.load(str(ROOT / "domains" / "timearena"))


def tasks_of(name: str) -> tuple[list, bool]:
    constrained = name.endswith("_constrained")
    base = name.removesuffix("_constrained")
    m = re.fullmatch(r"([a-z]+)(\d+(?:_\d+)*)", base)
    assert m, name
    return [f"{m.group(1)}{n}" for n in m.group(2).split("_")], constrained


class Script:
    """The model: the command planned for the minute the runner asks about ("In t=N"), else wait."""

    def __init__(self, plan: dict) -> None:
        self.plan = plan

    def __call__(self, messages: list) -> str:
        m = re.fullmatch(r"\nIn t=(\d+), your action is:", messages[-1][1])
        assert m, messages[-1]
        return self.plan.get(int(m.group(1)), "wait")


def oracle(problem, occupancy: bool = True) -> dict:
    sol = solve(problem, occupancy=occupancy)
    texts = ArenaRules.for_problem(problem).texts
    return {start: texts[key] for key, start in sol.starts.items()}


def both(project, name: str, plan: dict, total_time: int = 200):
    problem = procedure_problem(project, project.scenarios[name])
    tasks, constrained = tasks_of(name)
    ours = TimeArena(project, compat="timearena")
    got = run_agent(ours, Args(tasks, constrained), Script(plan), total_time)
    ref = run_agent(ReleasedArena(problem, ours.getInstruction()), Args(tasks, constrained), Script(plan), total_time)
    return got, ref


def dump(x) -> str:
    return json.dumps(x, ensure_ascii=False, indent=4)


def test_scenario_names():
    assert scenario_name(["cooking1"], False) == "cooking1"
    assert scenario_name(["cooking10", "cooking1"], True) == "cooking10_1_constrained"
    assert scenario_name(["household1"], True) == "household1_constrained"
    assert scenario_name(["lab9", "lab10", "lab1"], False) == "lab9_10_1"


SCENARIOS = [f"{c}{i}" for c in ("cooking", "household", "lab") for i in range(1, 11)]
SCENARIOS += [f"{c}{i}_{i % 10 + 1}" for c in ("cooking", "household", "lab") for i in range(1, 11)]
SCENARIOS += [f"cooking{i}_{i % 10 + 1}_constrained" for i in range(1, 11)]
SCENARIOS += [f"{c}{i}_{i % 10 + 1}_{(i + 1) % 10 + 1}" for c in ("cooking", "household", "lab") for i in range(1, 11)]


@pytest.mark.parametrize("name", SCENARIOS)
def test_oracle_transcripts_are_byte_identical(project, name):
    problem = procedure_problem(project, project.scenarios[name])
    plan = oracle(problem)
    (msgs, recs), (ref_msgs, ref_recs) = both(project, name, plan)
    assert dump(msgs[1:]) == dump(ref_msgs[1:])
    assert dump(recs[1:]) == dump(ref_recs[1:])
    assert recs[-1]["total_time"] == ref_recs[-1]["total_time"]


@pytest.mark.parametrize("name", ["household1", "household5", "cooking1_2", "cooking2_3_constrained", "lab4_5"])
def test_random_episodes_are_byte_identical(project, name):
    """Random commands (the steps, loose second objects, "V X P X", waits) for 60 minutes: refusals of every kind
    and their sentences.  Episodes where the released code fails (a repeated "V X P X" of an occupying verb, a
    TypeError there) are not compared."""
    import random

    problem = procedure_problem(project, project.scenarios[name])
    rules = ArenaRules.for_problem(problem)
    seconds = sorted({r.second for r in rules.roles if r.second})
    pool = [*rules.texts.values(), "wait", "wait", "wait"]
    for r in rules.roles:
        if r.second:
            verb, prep = r.verb.split(" ")
            pool += [f"{verb} {r.first} {prep} {o}" for o in seconds]
    tasks, constrained = tasks_of(name)
    compared = 0
    for seed in range(40):
        rnd = random.Random(seed)

        def model(messages, rnd=rnd):
            return rnd.choice(pool)

        try:
            ref = run_agent(ReleasedArena(problem), Args(tasks, constrained), model, 60)
        except TypeError:
            continue
        rnd.seed(seed)
        got = run_agent(TimeArena(project, compat="timearena"), Args(tasks, constrained), model, 60)
        assert dump(got[0][1:]) == dump(ref[0][1:]), seed
        assert dump(got[1][1:]) == dump(ref[1][1:]), seed
        compared += 1
    assert compared >= 30


def test_a_single_task_runs_to_completion_in_the_released_wording(project):
    problem = procedure_problem(project, project.scenarios["household1"])
    (msgs, recs), _ = both(project, "household1", oracle(problem))
    said = [m[1] for m in msgs[1:] if m[0] == "user" and not m[1].startswith("\nIn t=")]
    assert all(s.endswith("\n") for s in said)                    # every sentence ends with a newline
    assert recs[-1] == {"total_time": 13, "total_score": recs[-1]["total_score"], "isCompleted": True}


def test_one_minute_reads_1_minutes(project):
    env = TimeArena(project, compat="timearena")
    env.load(Args(["household1"]))
    one = next(k for k, s in ((s.key, s) for s in env.problem.steps) if s.duration == 1)
    text = env.arena.texts[one]
    for k in env.problem.step(*one).prerequisites:
        cmd = env.arena.texts[(one[0], k)]
        while True:
            obs, _, _, busy, wrong = env.step(cmd)
            assert not wrong
            if not busy:
                break
        while env.env.state.steps[(one[0], k)].done_at is None:
            env.step("wait")
    obs = env.step(text)[0]
    assert obs.startswith(f"You are doing ``{text}``, it will take 1 minutes.\n")


def test_a_background_completion_waits_for_the_busy_action(project):
    """household5: the weeding (background, 4 minutes) finishes while the agent hoes (4 minutes, started a minute
    later); the original tells it only when the hoeing ends, after the hoeing's own sentence."""
    env = TimeArena(project, compat="timearena")
    env.load(Args(["household5"]))
    by_text = {t: k for k, t in env.arena.texts.items()}
    bg = next(k for t, k in by_text.items() if t.startswith("weed_with "))
    hoe = by_text["hoe land"]
    for p in env.problem.step(*bg).prerequisites:
        while True:
            obs, _, _, busy, wrong = env.step(env.arena.texts[(bg[0], p)])
            assert not wrong
            if not busy:
                break
    first = env.step(env.arena.texts[bg])[0]
    assert first == f"You are doing ``{env.arena.texts[bg]}``, it will take 4 minutes.\n"
    outs = [env.step("hoe land")]
    while outs[-1][3]:
        outs.append(env.step("hoe land"))
    assert len(outs) == 4 and all(o[0] is None for o in outs[1:-1])      # nothing said while the agent is busy
    assert env.env.state.steps[bg].done_at < env.env.state.steps[hoe].done_at
    role = env.arena.by_key[bg]
    assert outs[-1][0] == env._state(hoe) + f"{role.first} is {env.verbs[role.verb].after}.\n"


def test_refusals_are_wrong_messages(project):
    env = TimeArena(project, compat="timearena")
    env.load(Args(["household1"]))
    texts = env.arena.texts
    needy = next(k for k in texts if env.problem.step(*k).prerequisites)
    obs, inc, done, busy, wrong = env.step(texts[needy])
    assert wrong and not busy and not done and inc == 0
    assert obs.startswith(f"You cannot perform action ``{env.arena.by_key[needy].verb}`` on object ``")
    assert "\nBecause " in obs


def test_the_paper_rules_run_the_same_loop(project):
    """The default (the paper's rules): the runner's loop completes every single task at the oracle's time with the
    released sentences; under the paper's rules the transcripts of oracle schedules are the same too."""
    for name in ("household1", "cooking2", "lab7"):
        problem = procedure_problem(project, project.scenarios[name])
        plan = oracle(problem)
        msgs, recs = run_agent(TimeArena(project), Args([name]), Script(plan), 200)
        ref_msgs, ref_recs = run_agent(ReleasedArena(problem), Args([name]), Script(plan), 200)
        assert recs[-1]["isCompleted"] and recs[-1]["total_time"] == solve(problem).makespan
        assert dump(msgs[1:]) == dump(ref_msgs[1:]) and dump(recs[1:]) == dump(ref_recs[1:])


def test_load_under_the_constraint(project):
    """The constraint keeps one pot, fryer and oven: a combination without one of them twice plays its plain
    scenario; one that would merge containers (cooking2 alone has two fryers) and has no constrained scenario
    is a ValueError, as is a combination the domain lacks."""
    env = TimeArena(project, compat="timearena")
    env.load(Args(["household1", "household2"], True))
    assert env.problem.scenario == "household1_2"
    env.load(Args(["cooking1"], True))
    assert env.problem.scenario == "cooking1"
    env.load(Args(["cooking1", "cooking2"], True))
    assert env.problem.scenario == "cooking1_2_constrained"
    with pytest.raises(ValueError, match="no scenario 'cooking2_constrained'.*resource constraint"):
        env.load(Args(["cooking2"], True))
    with pytest.raises(ValueError, match="no scenario 'cooking1_3'"):
        env.load(Args(["cooking1", "cooking3"], False))
    with pytest.raises(RuntimeError, match="load"):
        TimeArena(project).step("wait")
