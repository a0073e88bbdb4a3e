"""The kitchen simulator's fast paths agree with its general ones on many generated plans, faulty ones
included: change logging restricted to what processes and 'when all' conditions read (``World.logged``)
versus logging every change, and process triggers resolved per change name and object types
(``World.fast_triggers``) versus the per-process trigger search and the neighbourhood search."""
import random
from pathlib import Path

import pytest

import chronoplan
from chronoplan.runtime.kitchen import world as kitchen_world
from chronoplan.runtime.kitchen.engine import simulate
from chronoplan.runtime.kitchen.scripted import plan as scripted_plan
from chronoplan.runtime.kitchen.world import World
from chronoplan.validators.kitchen.read import read_cook_plan

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ["burger_s42_o2_a2", "burrito_s42_o2_a3", "pasta_s42_o2_a2", "sashimi_s42_o3_a3", "sushi_s42_o2_a2",
             "salad_s42_o2_a3"]


def _mutate(rng: random.Random, plan: dict, stations: list) -> dict:
    """Delete, swap, repeat or retarget a few actions, insert waits: plans with and without errors."""
    p = {a: [dict(x) for x in v] for a, v in plan.items()}
    for _ in range(rng.randint(1, 4)):
        v = p[rng.choice(sorted(p))]
        if not v:
            continue
        k = rng.randrange(len(v))
        m = rng.randrange(6)
        if m == 0:
            del v[k]
        elif m == 1 and k + 1 < len(v):
            v[k], v[k + 1] = v[k + 1], v[k]
        elif m == 2:
            v.insert(k, dict(v[k]))
        elif m == 3 and v[k].get("action") in ("Interact", "Process"):
            v[k]["target"] = rng.choice(stations)
        elif m == 4:
            v.insert(k, {"action": "Wait", "duration": rng.choice([1, 3, 7])})
        elif m == 5:
            v[k]["action"] = rng.choice(["Interact", "Process"])
    return p


def _general_world(project, name: str, monkeypatch, neighbourhood: bool) -> World:
    with monkeypatch.context() as m:
        m.setattr(kitchen_world, "_logged_changes", lambda p: None)
        w = World(project, name)
    assert w.logged is None
    w.fast_triggers = None
    if neighbourhood:
        for proc in w.procs:
            proc.triggers = None
    return w


def _outcome(world: World, plan: dict) -> tuple:
    read = read_cook_plan({"plan": plan})
    r = simulate(world, read.steps)
    return (r.errors, r.runs, r.served, r.success, r.oct, r.end_time, r.finished,
            sorted(r.state.otype.items()), {k: sorted(v.facts) for k, v in r.state.rels.items()},
            {k: sorted(v.items()) for k, v in r.state.attrs.items()})


@pytest.mark.parametrize("name", SCENARIOS)
def test_fast_paths_agree_with_general_ones(name, monkeypatch):
    project = chronoplan.load(ROOT / "domains" / "paracook" / "generated")
    fast = World(project, name)
    assert fast.logged is not None and fast.fast_triggers is not None
    general = [_general_world(project, name, monkeypatch, nb) for nb in (False, True)]
    base = scripted_plan(fast)
    stations = [s.name for s in fast.map.stations]
    rng = random.Random(name)
    plans = [base] + [_mutate(rng, base, stations) for _ in range(40)]
    failed = 0
    for plan in plans:
        want = _outcome(fast, plan)
        failed += bool(want[0])
        for w in general:
            assert _outcome(w, plan) == want
    assert not _outcome(fast, base)[0] and failed >= 10      # both valid and faulty plans were compared
