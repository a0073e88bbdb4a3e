"""Speed of the household environments (issue #13): agent-steps per second for two agents on the bundled home.

Input: the bundled household domain (domains/household: ten two-agent episodes).  Output: a table on stdout
(``--json``: one JSON object): agent-steps per second (one env step of two agents = two agent-steps), CPU
time, best of ``--rounds`` rounds, single process, for

- ``engine+baseline``: ``HouseholdEngine.step`` with both agents on the scripted baseline (the policy's
  decisions included; no observation text read);
- ``parallel_env+baseline``: ``chronoplan.env`` ``HouseholdParallelEnv.step`` with the baseline's actions as
  catalogue indices: every step returns both agents' observation texts and action masks (rebuilt per agent
  only when what they show changed), as PettingZoo users
  get them;
- ``parallel_env+random``: the same with uniformly random actions among the unmasked ones (numpy, seeded):
  more refusals-free short actions, so more observation rebuilds;
- ``engine+log``: as the first, writing the episode log (one sha256 digest of each observation per step);
- grading throughput (``--logs N``, default 200): the baseline's episode logs of the bundled episodes
  (written once, outside the clock, as JSON Lines text) graded by ``validators.household.grade.grade_log``
  (read, replay through the engine, compare the observation digests, report), cycling over the episodes
  until N logs are graded: logs per second and step records per second (CPU time, best of ``--rounds``).

Episodes are played to their end and restarted (``reset``, next scenario; the episodes are instantiated
once, outside the clock) until ``--steps`` env steps are done.  The
issue's target is 20,000 agent-steps per second; the table says what this machine measures.
Usage: python bench/bench_household.py [--steps N] [--rounds N] [--logs N] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import chronoplan
from chronoplan.compiler.household.problem import HouseholdProblem
from chronoplan.env import parallel_env
from chronoplan.runtime.household.baseline import Baseline
from chronoplan.runtime.household.engine import HouseholdEngine
from chronoplan.validators.household.grade import grade_log

ROOT = Path(__file__).resolve().parent.parent
DOMAIN = ROOT / "domains" / "household"
TARGET = 20_000


def engine_baseline(project, names, steps: int, log: bool = False) -> int:
    engines = [HouseholdEngine(HouseholdProblem(project, n), log=log) for n in names]
    done = 0
    i = 0
    while done < steps:
        e = engines[i % len(engines)]
        e.reset()
        policy = Baseline(e)
        while not e.done and done < steps:
            e.step(policy.actions())
            done += 1
        i += 1
    return done * 2


def env_baseline(project, names, steps: int) -> int:
    envs = [parallel_env(project, n) for n in names]
    done = 0
    i = 0
    while done < steps:
        env = envs[i % len(envs)]
        env.reset()
        policy = Baseline(env.engine)
        index = env.engine.index
        while env.agents and done < steps:
            acts = {a: index.get(act, env.engine.wait_index) if act.kind.value != "send" else env.engine.send_index
                    for a, act in policy.actions().items()}
            env.step(acts)
            done += 1
        i += 1
    return done * 2


def env_random(project, names, steps: int) -> int:
    rng = np.random.default_rng(0)
    envs = [parallel_env(project, n) for n in names]
    done = 0
    i = 0
    while done < steps:
        env = envs[i % len(envs)]
        obs, _ = env.reset()
        while env.agents and done < steps:
            acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
            obs, *_ = env.step(acts)
            done += 1
        i += 1
    return done * 2


def baseline_logs(project, names) -> list[tuple[str, str, int]]:
    """(scenario, log text, step records) of the baseline's episode of each bundled scenario."""
    out = []
    for n in names:
        e = HouseholdEngine(HouseholdProblem(project, n), log=True)
        policy = Baseline(e)
        while not e.done:
            e.step(policy.actions())
        assert e.log is not None
        out.append((n, e.log.text(), len(e.log.records) - 1))
    return out


def grade_logs(project, logs, count: int) -> tuple[int, int]:
    """Grade ``count`` logs cycling over ``logs``: (logs graded, step records read)."""
    records = 0
    for i in range(count):
        name, text, n = logs[i % len(logs)]
        report = grade_log(project, name, text)
        if not report.valid:
            raise SystemExit(f"baseline log of {name} graded invalid: {report.errors[:1]}")
        records += n
    return count, records


def measure(fn, rounds: int) -> tuple[float, int]:
    best = float("inf")
    agent_steps = 0
    for _ in range(rounds):
        t0 = time.process_time()
        agent_steps = fn()
        best = min(best, time.process_time() - t0)
    return best, agent_steps


def main(argv: list) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=20_000, help="env steps per measurement (default 20000)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--logs", type=int, default=200, help="episode logs graded per measurement (default 200)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    project = chronoplan.load(DOMAIN)
    names = [n for n, s in project.scenarios.items() if s.household]
    cases = {
        "engine+baseline": lambda: engine_baseline(project, names, args.steps),
        "parallel_env+baseline": lambda: env_baseline(project, names, args.steps),
        "parallel_env+random": lambda: env_random(project, names, args.steps),
        "engine+log": lambda: engine_baseline(project, names, args.steps, log=True),
    }
    rows = {}
    for name, fn in cases.items():
        seconds, agent_steps = measure(fn, args.rounds)
        rows[name] = {"agent_steps": agent_steps, "cpu_seconds": round(seconds, 4),
                      "agent_steps_per_second": round(agent_steps / seconds) if seconds else None}
    logs = baseline_logs(project, names)
    best = float("inf")
    graded = records = 0
    for _ in range(args.rounds):
        t0 = time.process_time()
        graded, records = grade_logs(project, logs, args.logs)
        best = min(best, time.process_time() - t0)
    grading = {"logs": graded, "records": records, "cpu_seconds": round(best, 4),
               "logs_per_second": round(graded / best, 1) if best else None,
               "records_per_second": round(records / best) if best else None}
    if args.json:
        print(json.dumps({"target": TARGET, "episodes": len(names), "rows": rows, "grading": grading}))
        return 0
    print(f"household bench: {len(names)} bundled episodes, two agents, best of {args.rounds} rounds (CPU time)")
    print(f"{'case':<24} {'agent-steps':>12} {'cpu s':>8} {'agent-steps/s':>14}  vs target {TARGET}")
    for name, r in rows.items():
        rate = r["agent_steps_per_second"] or 0
        print(f"{name:<24} {r['agent_steps']:>12} {r['cpu_seconds']:>8.3f} {rate:>14,}  {rate / TARGET:.2f}x")
    print(f"grading baseline logs: {graded} logs ({records} step records) in {best:.3f} s CPU: "
          f"{grading['logs_per_second']} logs/s, {grading['records_per_second']:,} records/s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
