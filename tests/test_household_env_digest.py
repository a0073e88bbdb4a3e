"""Differential test of the household environments (issue #13): what they hand out stays byte-identical.

Input: the bundled household and transport domains, played through ``chronoplan.env`` (the PettingZoo
``parallel_env`` and the Gymnasium ``HouseholdGymEnv``) by fixed policies with fixed seeds.  Output: one
sha256 digest per episode over every observation text, action mask (dtype and bytes), reward, termination,
truncation, info and the episode log, compared with tests/golden/household_env_digests.json.

The golden file was written by the engine and env of commit 0580c90 (before the speed work of #13's
benchmark target); a change that alters any byte of any observation, mask, reward, info or log line of these
episodes fails here.  After an intended change of the texts, rewrite it with
``python tests/test_household_env_digest.py --write`` and say so in the commit.

Policies (``MODES``): the scripted baseline as catalogue indices; uniform among the unmasked actions; any
catalogue index or None half of the time (many refusals); unmasked actions and a fixed message text; texts
with characters outside the observation charset (replaced by ``?``); the baseline as ``Action`` records or
indices while the caller overwrites every returned mask (masks are the caller's copies).
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import chronoplan
from chronoplan.env import HouseholdGymEnv, parallel_env
from chronoplan.runtime.household.actions import ActKind
from chronoplan.runtime.household.baseline import Baseline

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden" / "household_env_digests.json"
DOMAINS = ("household", "transport")
SYNTAXES = (None, "tdw", "cwah")
MODES = ("baseline", "random", "any", "message", "foreign", "objects")
ODD = ["[send_message] caf\u00e9 \u2713 apple1 in fridge\x07", "[gograb] <k\u00e4se>",
       "send a message: \u00fcber \ttab", None]


def _enc(x) -> bytes:
    return json.dumps(x, sort_keys=True, default=repr).encode()


def _actions(env, obs, mode: str, policy: Baseline, rng: np.random.Generator) -> dict:
    e = env.engine
    if mode == "baseline":
        return {a: e.send_index if act.kind == ActKind.SEND else e.index.get(act, e.wait_index)
                for a, act in policy.actions().items()}
    if mode == "random":
        return {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
    if mode == "any":
        return {a: (int(rng.integers(len(e.catalogue))) if rng.random() < 0.5 else None) for a in env.agents}
    if mode == "message":
        return {a: (int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) if rng.random() < 0.7
                    else "[send_message] fridge in kitchen, cupcake1 on sofa, apple1 in the basket1")
                for a in env.agents}
    if mode == "foreign":
        return {a: (ODD[int(rng.integers(len(ODD)))] if rng.random() < 0.3
                    else int(rng.choice(np.flatnonzero(obs[a]["action_mask"])))) for a in env.agents}
    for a in obs:                                   # "objects": the caller writes to the masks it got
        obs[a]["action_mask"][:] = 1
    return {a: (act if rng.random() < 0.5 or act not in e.index else e.index[act])
            for a, act in policy.actions().items()}


def parallel_digest(project, scenario: str, syntax, mode: str, seed) -> tuple[str, int]:
    """(digest, observations hashed) of one episode of ``parallel_env`` played to its end."""
    env = parallel_env(project, scenario, syntax=syntax, log=True)
    h = hashlib.sha256()
    count = 0
    rng = np.random.default_rng(len(scenario) * 31 + MODES.index(mode) * 7 + (seed or 0))

    def feed(obs: dict) -> None:
        nonlocal count
        for a in sorted(obs):
            mask = obs[a]["action_mask"]
            h.update(a.encode() + obs[a]["observation"].encode() + mask.dtype.str.encode() + mask.tobytes())
            count += 1

    obs, infos = env.reset(seed=seed)
    feed(obs)
    h.update(_enc(infos))
    policy = Baseline(env.engine)
    while env.agents:
        obs, rewards, terminated, truncated, infos = env.step(_actions(env, obs, mode, policy, rng))
        feed(obs)
        h.update(_enc([rewards, terminated, truncated, infos]))
    h.update(_enc(env.log.lines()))
    return h.hexdigest(), count


def gym_digest(project, scenario: str, syntax, seed: int) -> tuple[str, int]:
    """(digest, observations hashed) of ``HouseholdGymEnv`` with random unmasked actions (400 steps at most)."""
    env = HouseholdGymEnv(project, scenario, syntax=syntax, log=True)
    h = hashlib.sha256()
    rng = np.random.default_rng(len(scenario) + seed)
    obs, info = env.reset(seed=seed)
    h.update(obs["observation"].encode() + obs["action_mask"].tobytes() + _enc(info))
    count = 1
    for _ in range(400):
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        h.update(obs["observation"].encode() + obs["action_mask"].tobytes()
                 + _enc([reward, terminated, truncated, info]))
        count += 1
        if terminated or truncated:
            break
    h.update(_enc(env.engine.log.lines()))
    return h.hexdigest(), count


def _projects() -> dict:
    return {d: chronoplan.load(ROOT / "domains" / d) for d in DOMAINS}


def _scenarios(project) -> list[str]:
    return [n for n, s in project.scenarios.items() if s.household]


def _runs(domain: str, project, syntax) -> tuple[dict[str, str], int]:
    """The digests of one domain and syntax: every scenario, every mode (the baseline and random ones with
    the scenario's seed and seed 7), and the Gym env; with the number of observations hashed."""
    out, count = {}, 0
    for name in _scenarios(project):
        for mode in MODES:
            for seed in ((None, 7) if mode in ("baseline", "random") else (None,)):
                out[f"{domain}|{name}|{syntax}|{mode}|{seed}"], n = parallel_digest(project, name, syntax, mode, seed)
                count += n
        out[f"{domain}|{name}|{syntax}|gym"], n = gym_digest(project, name, syntax, 3)
        count += n
    return out, count


def digests() -> dict[str, str]:
    """Every episode's digest, keyed ``domain|scenario|syntax|mode|seed`` (``...|gym`` for the Gym env)."""
    out: dict[str, str] = {}
    for domain, project in _projects().items():
        for syntax in SYNTAXES:
            out.update(_runs(domain, project, syntax)[0])
    return out


@pytest.fixture(scope="module")
def golden() -> dict[str, str]:
    return json.loads(GOLDEN.read_text())


@pytest.fixture(scope="module")
def projects() -> dict:
    return _projects()


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("syntax", SYNTAXES)
def test_env_outputs_are_byte_identical_to_the_golden_digests(domain, syntax, golden, projects):
    assert _scenarios(projects[domain])
    got, observations = _runs(domain, projects[domain], syntax)
    want = {k: v for k, v in golden.items() if k.startswith(f"{domain}|") and k.split("|")[2] == str(syntax)}
    assert set(got) == set(want)
    differ = sorted(k for k in got if got[k] != want[k])
    assert not differ, f"{len(differ)} of {len(got)} episodes differ ({observations} observations), e.g. {differ[:5]}"


def test_the_digest_sees_a_one_character_change(projects, monkeypatch):
    """The digest is not blind: one character more in one observation of one step changes it."""
    from chronoplan.env import HouseholdParallelEnv

    project = projects["household"]
    name = _scenarios(project)[0]
    before = parallel_digest(project, name, None, "baseline", None)[0]
    original = HouseholdParallelEnv._text

    def text(self, agent):
        out = original(self, agent)
        return out + "!" if self.engine.t == 5 and agent == self.possible_agents[-1] else out
    monkeypatch.setattr(HouseholdParallelEnv, "_text", text)
    assert parallel_digest(project, name, None, "baseline", None)[0] != before


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_household_env_digest.py --write   (rewrites the golden digests)")
    GOLDEN.write_text(json.dumps(digests(), indent=0, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
