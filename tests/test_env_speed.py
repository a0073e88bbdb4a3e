"""The interactive environment's short ways (runtime/procedure/env.py, #15 item 4) give the episodes of the long
ones: ``Env._clear_start`` (a start plainly free of violations, cleared without ``check_start``) against
``check_start`` alone, objects lines kept per problem against lines built each time; observations handed out
under ``Rules.TIMEARENA`` and read late (after pauses of the runner's refusals) against the text right after
their step; the done totals the clock keeps against ``metrics.progress_score`` and, in the Gymnasium wrapper,
against counting the steps done.  These are the exact engine's short ways (``engine="exact"``; the fast engine of
TimeArena-shaped episodes is checked against the exact one in tests/test_env_fast.py)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_runtime_env import DOMAIN
from test_runtime_sim import DOMAIN as SIM_DOMAIN

import chronoplan
from chronoplan.compiler.instantiate import procedure_problem
from chronoplan.runtime import metrics as M
from chronoplan.runtime.procedure.arena_rules import Rules
from chronoplan.runtime.procedure.env import Env
from chronoplan.runtime.procedure.feedback import FeedbackStyle, Stepping

ROOT = Path(__file__).resolve().parent.parent
ARENA = ["cooking1", "household3", "lab5", "household1_2", "lab9_10_1", "household4_5_6"]


@pytest.fixture(scope="module")
def arena():
    return chronoplan.load(ROOT / "domains" / "timearena")


def _pool(env: Env) -> list[str]:
    texts = list(env.texts.values())
    return texts + ["wait", "wait 2", "juggle the pans", texts[0] + ".", "cook pan", "wash water"]


def _play(env: Env, rng: random.Random, n: int) -> list:
    """A random episode: per command the feedback's fields, the observation read at once or at the end, the
    metrics; every seventh command the observation and executable commands now."""
    out, late = [], []
    pool = _pool(env)
    agents = env.problem.agents
    for i in range(n):
        cmd = rng.choice(pool) if len(agents) == 1 else {a: rng.choice(pool) for a in agents if rng.random() < 0.8}
        obs, fb = env.step(cmd)
        (out if i % 3 == 0 else late).append(str(obs) if i % 3 == 0 else obs)
        out.append((fb.ok, fb.message, fb.time, fb.code, fb.hint, fb.done, fb.success, str(fb)))
        out.append(env.metrics())
        if i % 7 == 0:
            out += [env.observation(), env.executable()]
    return out + [str(o) for o in late]


def _episodes(project, name: str, seed: int, **options) -> tuple[list, list]:
    """The same random episodes with the short start check and the kept objects lines, and without them."""
    p = procedure_problem(project, project.scenarios[name])
    runs = []
    for short in (True, False):
        rng = random.Random(seed)
        got = []
        for episode in range(8):
            env = Env(p, max_refusals=None if episode % 2 else 5, engine="exact", **options)
            if not short:
                env._simple = None
                env._lines = None
            got.append(_play(env, rng, 40))
        runs.append(got)
    return runs[0], runs[1]


@pytest.mark.parametrize("name", ARENA)
def test_cleared_starts_equal_check_start_timearena(arena, name):
    fast, slow = _episodes(arena, name, 3)
    assert fast == slow
    fast, slow = _episodes(arena, name, 4, feedback=FeedbackStyle.TIMEARENA, stepping=Stepping.MINUTE)
    assert fast == slow


@pytest.mark.parametrize("domain,name", [(DOMAIN, "tea_only"), (DOMAIN, "two_rice"), (DOMAIN, "lagged"),
                                         (SIM_DOMAIN, "solo")])
def test_cleared_starts_equal_check_start_with_lags_properties_and_ticks(tmp_path, domain, name):
    path = tmp_path / "d.chrono"
    path.write_text(domain)
    fast, slow = _episodes(chronoplan.load(path), name, 5)
    assert fast == slow


def test_the_short_check_clears_starts(arena):
    """The short way is taken (so the equality above is not vacuous): the first step of cooking1 is cleared."""
    env = Env(procedure_problem(arena, arena.scenarios["cooking1"]), engine="exact")
    first = env.problem.steps[0]
    assert env._clear_start(first.key, env.problem.agents[0], env._now) is not None
    env.step(env.texts[first.key])
    assert env._clear_start(first.key, env.problem.agents[0], env._now) is None      # running (or done)


@pytest.mark.parametrize("name", ARENA)
def test_timearena_rules_observations_read_late(arena, name):
    """Under the released code's rules a runner's refusal pauses running steps (their ends move): observations
    not read yet keep the text of their step."""
    p = procedure_problem(arena, arena.scenarios[name])
    rng = random.Random(9)
    pauses = 0
    for feedback in FeedbackStyle:
        for stepping in Stepping:
            env = Env(p, rules=Rules.TIMEARENA, feedback=feedback, stepping=stepping, max_refusals=None)
            pairs = []
            for _ in range(60):
                cmd = rng.choice(_pool(env))
                pauses += cmd in ("juggle the pans", "wait 2") or cmd.endswith(".")
                obs, _ = env.step(cmd)
                pairs.append((obs, env.observation()))
                done = [k for k, s in env.state.steps.items() if s.done_at is not None]
                assert f"(progress score {M.progress_score(env.problem, done)})" in env.observation()
            env.reset()
            assert all(str(obs) == now for obs, now in pairs)
    assert pauses > 0


def test_gym_progress_is_the_steps_done_by_now(arena):
    """``TimeArenaEnv``'s progress (``Env.steps_done_by_now``, the clock's count) is the share of steps whose end
    has passed, also after the time is set back by hand."""
    from fractions import Fraction

    from chronoplan.envs import TimeArenaEnv

    rng = random.Random(13)
    for name in ("cooking1", "household4_5_6"):
        for compat in (None, "timearena"):
            env = TimeArenaEnv(arena, name, compat=compat, max_refusals=None)
            env.reset(seed=0)
            inner = env.inner
            for _ in range(50):
                _, _, term, trunc, info = env.step(rng.choice(_pool(inner)))
                done = sum(1 for s in inner.state.steps.values() if s.done_at is not None and s.done_at <= inner.time)
                assert info["progress"] == float(Fraction(done, len(inner.state.steps)))
                if term or trunc:
                    break
            assert inner.steps_done_by_now() > 0
            inner.time = Fraction(0)
            assert inner.steps_done_by_now() == 0
