"""The interactive environment's fast engine (runtime/procedure/arena_fast.py, #15 item 4) against the exact engine
(``Env(..., engine="exact")``, ``ProcState``): random episodes -- step texts, waits, "wait N", unknown commands,
repeated and running steps, unmet prerequisites, occupied objects, commands naming several steps -- over every
bundled TimeArena scenario and random generated scenarios, under both steppings and both feedback styles
(status, TimeArena's sentences), with and without the refusal limit and the time limit; after every step the
feedback (every field), the observation (read at once or at the end of the episode), the metrics, done and
success, and every few steps ``observation()``, ``executable()``, ``match``, ``steps_done_by_now``,
``episode_score`` and the state's completion times must be equal."""
from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest

import chronoplan
from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import (
    ConcreteUse,
    ProcedureProblem,
    ResourceInstance,
    SchedStep,
    procedure_problem,
)
from chronoplan.runtime.procedure import env as E
from chronoplan.runtime.procedure.arena_fast import FastEnv, eligible
from chronoplan.runtime.procedure.arena_rules import ArenaRules, Rules
from chronoplan.runtime.procedure.env import Env
from chronoplan.runtime.procedure.feedback import FeedbackStyle, Stepping

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def arena():
    return chronoplan.load(ROOT / "domains" / "timearena")


def _pool(env: Env, rng: random.Random) -> list[str]:
    texts = list(env.texts.values())
    pool = texts * 3 + ["wait", "wait", "wait 2", "wait 7", "WAIT", "juggle the pans", texts[0] + ".",
                        "  " + texts[-1].upper() + "  ", "step 1 of " + env.problem.tasks[0], "cook pan"]
    if env.rules is Rules.TIMEARENA:                   # the original's commands: loose second objects, X P X, ...
        arena = ArenaRules.for_problem(env.problem)
        seconds = sorted({r.second for r in arena.roles if r.second is not None})
        for r in arena.roles:
            if r.second is not None:
                v, p = r.verb.split(" ")
                pool += [f"{v} {r.first} {p} {rng.choice(seconds)}", f"{v} {r.second} {p} {r.second}"]
            pool.append(f"{r.verb.split(' ')[0]} {rng.choice(arena.names)}")
        pool += ["fly " + arena.names[0], texts[0] + " now", texts[0].replace(" ", "  "), "wait now"]
    return pool


def _play(env: Env, seed: int, n: int, stepping: Stepping) -> list:
    rng = random.Random(seed)
    pool = _pool(env, rng)
    out, late = [], []
    for i in range(n):
        if stepping is Stepping.MINUTE and env.state.agent_free_at(env.problem.agents[0], env._now) > env._now \
                and rng.random() < 0.7:
            cmd = env.log[-1].message if rng.random() < 0.1 else "re-sent"
        else:
            cmd = rng.choice(pool)
        obs, fb = env.step(cmd)
        if i % 3 == 0:
            out.append(str(obs))
        else:
            late.append(obs)
        out.append((fb.ok, fb.message, fb.time, type(fb.time), fb.code, fb.category, fb.hint, fb.done, fb.success,
                    str(fb)))
        out.append(env.metrics())
        out.append((env.done, env.success, env.end_reason, env.n, env.refusals, env.refusals_in_row, env.time))
        if i % 5 == 0:
            out += [env.observation(), env.executable(), env.steps_done_by_now(), env.episode_score(),
                    env.match(rng.choice(pool)), env.completion_time(),
                    env.state.agent_free_at(env.problem.agents[0], env._now)]
        if i % 11 == 0:
            out.append({k: (s.done_at, s.running.end if s.running is not None else None)
                        for k, s in env.state.steps.items()})
    out += [str(o) for o in late[::2]] + [env.reset(), env.metrics()]
    return out + [str(o) for o in late[1::2]]           # read after the reset: still their episode's text


def _compare(problem: ProcedureProblem, seeds: range, n: int = 60, **options) -> int:
    """Play the same random episodes on both engines; the number of episodes the fast engine played."""
    played = 0
    for seed in seeds:
        stepping = Stepping.MINUTE if seed % 3 == 0 else Stepping.COMMAND
        opts = dict(options, stepping=stepping, max_refusals=None if seed % 4 == 1 else 5)
        if seed % 2 == 1 and "feedback" not in options:
            opts["feedback"] = FeedbackStyle.TIMEARENA
        if seed % 5 == 2:
            opts["limit"] = Fraction(random.Random(seed).randint(3, 40))
        fast, exact = Env(problem, engine="fast", **opts), Env(problem, engine="exact", **opts)
        assert type(exact) is Env
        played += type(fast) is FastEnv
        assert _play(fast, seed, n, stepping) == _play(exact, seed, n, stepping), (problem.scenario, seed, opts)
    return played


def test_every_bundled_timearena_scenario(arena):
    played = 0
    for k, name in enumerate(arena.scenarios):
        p = procedure_problem(arena, arena.scenarios[name])
        assert eligible(p) is not False, name            # the fast engine takes every TimeArena scenario
        played += _compare(p, range(3 * k, 3 * k + 3))
    assert played == 3 * len(arena.scenarios)


def test_timearena_rules_on_every_bundled_scenario(arena):
    """``Rules.TIMEARENA`` (the released code's reading, pauses, loose second objects, ownership table, refusal
    order, no run-on), with its sentences and per-minute stepping in most episodes."""
    played = 0
    for k, name in enumerate(arena.scenarios):
        p = procedure_problem(arena, arena.scenarios[name])
        played += _compare(p, range(3 * k + 1, 3 * k + 4), rules=Rules.TIMEARENA)
    assert played == 3 * len(arena.scenarios)


def random_problem(rng: random.Random, n: int) -> ProcedureProblem:
    """A random one-agent scenario of TimeArena's shape (whole durations, objects of capacity 1 and 2 without
    properties, prerequisites, the three occupancy kinds, step texts repeated across tasks), sometimes with
    something the fast engine does not model (then both are the exact engine)."""
    unit = rng.choice([ir.TimeUnit.TICK, ir.TimeUnit.MIN, ir.TimeUnit.S])
    odd = rng.random() < 0.15
    resources = (ResourceInstance("oven", 1, (), "oven"), ResourceInstance("pan", 2, (), "pan"),
                 ResourceInstance("board", 1, (("clean", True),) if odd else (), "board"))
    tasks = tuple(f"T{k}" for k in range(rng.randint(1, 3)))
    steps = []
    for task in tasks:
        for i in range(rng.randint(1, 5)):
            dur = Fraction(rng.randint(1, 6) * (60 if unit is ir.TimeUnit.S and rng.random() < 0.7 else 1))
            kind = rng.choice([ir.Occupancy.CONTINUOUS, ir.Occupancy.START, ir.Occupancy.PARTIAL])
            occ = dur if kind is ir.Occupancy.CONTINUOUS else Fraction(0) if kind is ir.Occupancy.START else \
                min(dur, Fraction(rng.randint(1, 3)))
            prereq = tuple(p for p in range(i) if rng.random() < 0.4)
            uses = [ConcreteUse(r, (), ()) for r in ("oven", "pan", "board") if rng.random() < 0.3]
            steps.append(SchedStep(task, i, f"step {i}" if rng.random() < 0.7 else f"do {task} {i}", dur, kind, occ,
                                   False, prereq, (), tuple(uses), None, None))
    limit = Fraction(rng.randint(5, 60)) if rng.random() < 0.3 else None
    return ProcedureProblem(f"random{n}", unit, ("cook",), tasks, tuple(steps), resources, limit,
                            rng.choice([ir.OccupancyRule.OVERLAP, ir.OccupancyRule.EXCLUSIVE]))


def test_random_scenarios():
    rng = random.Random(15)
    played = 0
    for n in range(120):
        played += _compare(random_problem(rng, n), range(4 * n, 4 * n + 4))
    assert played >= 300                                # most are of the fast engine's shape


def test_tick_and_limit_options(arena):
    p = procedure_problem(arena, arena.scenarios["household1_2"])
    for seed, opts in enumerate([{"tick": Fraction(2)}, {"tick": Fraction(1, 2)}, {"limit": Fraction(9)},
                                 {"show_executable": True}, {"feedback": FeedbackStyle.TIMEARENA},
                                 {"rules": Rules.TIMEARENA}]):
        _compare(p, range(seed, seed + 2), **opts)


def test_what_it_does_not_model_goes_to_the_exact_engine(arena):
    p = procedure_problem(arena, arena.scenarios["cooking1"])
    assert type(Env(p, engine="fast")) is FastEnv
    assert type(Env(p, engine="fast", feedback=FeedbackStyle.TIMEARENA, stepping=Stepping.MINUTE)) is FastEnv
    assert type(Env(p, engine="fast", rules=Rules.TIMEARENA)) is FastEnv
    for opts in ({"show_executable": True},
                 {"tick": Fraction(1, 2)}):
        assert type(Env(p, engine="fast", **opts)) is Env
    q = random_problem(random.Random(1), 0)
    lagged = ProcedureProblem(q.scenario, q.time_unit, q.agents, q.tasks, tuple(
        SchedStep(s.task, s.index, s.text, s.duration, s.occupancy, s.occupy_for, True, s.prerequisites, s.lags,
                  s.uses, s.release, s.deadline) for s in q.steps), q.resources, q.limit, q.occupancy)
    assert eligible(lagged) is False and type(Env(lagged, engine="fast")) is Env
    assert type(Env(p, engine="exact")) is Env
    with pytest.raises(ValueError):
        Env(p, engine="quick")
    before = E.FAST_ENGINE
    try:
        E.FAST_ENGINE = False
        assert type(Env(p)) is Env
        E.FAST_ENGINE = True
        assert type(Env(p)) is FastEnv
    finally:
        E.FAST_ENGINE = before


def test_time_setter_and_agent_dicts_continue_on_the_exact_engine(arena):
    p = procedure_problem(arena, arena.scenarios["household3"])
    for change in ("time", "dict"):
        fast, exact = Env(p, engine="fast"), Env(p, engine="exact")
        texts = list(exact.texts.values())
        got = []
        for env in (fast, exact):
            out = [env.step(texts[0])[1], env.step("wait")[1]]
            if change == "time":
                env.time = env.time + 3
            else:
                out.append(env.step({p.agents[0]: texts[1], "ghost": "wait"})[1])
            for c in texts + ["wait 3"]:
                obs, fb = env.step(c)
                out += [str(obs), fb, env.metrics(), env.steps_done_by_now()]
            got.append(out)
        assert type(fast) is Env
        assert got[0] == got[1]


@pytest.mark.parametrize("engine", ["auto", "exact"])
@pytest.mark.parametrize("compat", [False, True])
def test_an_environment_leaves_no_reference_cycles(arena, engine, compat):
    """An Env and its episode are freed by reference counting: a cycle (the state view held from __init__ was
    one) leaves every discarded environment to the cyclic collector, whose passes were most of the cost of
    building environments in bench/bench_env.py (about 35 us of 40 per environment)."""
    import gc

    p = procedure_problem(arena, arena.scenarios["cooking6_7_8"])
    opts = {"rules": Rules.TIMEARENA, "feedback": FeedbackStyle.TIMEARENA, "stepping": Stepping.MINUTE} \
        if compat else {}
    gc.collect()
    gc.disable()
    try:
        env = Env(p, engine=engine, **opts)
        assert isinstance(env, FastEnv) == (engine == "auto")
        for text in list(env.texts.values())[:5] + ["wait", "juggle the pans"]:
            obs, _ = env.step(text)
            str(obs)
        env.state.agent_free_at(p.agents[0], 0)
        assert env.state.__dict__                      # the exact state, replayed and kept
        del env, obs
        assert gc.collect() == 0
    finally:
        gc.enable()
