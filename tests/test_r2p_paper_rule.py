"""Differential test: chronoplan's default grading of imported Recipe2Plan scenarios agrees with an
executable statement of the paper's rules (tests/r2p_paper.py) on every reference plan and on seeded
mutants of 12 kinds, with and without time constraints."""
from __future__ import annotations

import random
from collections import Counter

import pytest
import r2p_paper
import r2pdata

from chronoplan.validators.replay import validate_plan

needs_data = pytest.mark.skipif(not (r2pdata.DATA / "cooking.json").exists(), reason="no Recipe2Plan data")


def _steps(inst):
    return {(r["recipe"], s["step"]): s for r in inst for s in r["steps"]}


def _continuous(entries, steps):
    return [e for e in entries if not steps[(e[1], e[0])]["parallel"]]


def mutate(kind: str, entries: list, inst: list, rng: random.Random):  # noqa: C901
    """One mutant of a plan (a list of [step, recipe, duration, start]); None when the kind does not apply."""
    es = [list(e) for e in entries]
    steps = _steps(inst)
    pick = rng.randrange(len(es))
    if kind == "shift":
        es[pick][3] = max(0, es[pick][3] + rng.choice([-300, -120, -60, 60, 120, 300]))
    elif kind == "drop":
        del es[pick]
    elif kind == "duplicate":
        es.insert(pick, list(es[pick]))
    elif kind == "swap":
        other = rng.randrange(len(es))
        es[pick][3], es[other][3] = es[other][3], es[pick][3]
    elif kind == "inside":                     # an autonomous start moved into a continuous step's interior
        autos = [e for e in es if steps[(e[1], e[0])]["parallel"]]
        cont = [e for e in _continuous(es, steps) if e[2] >= 120]
        if not autos or not cont:
            return None
        a, c = rng.choice(autos), rng.choice(cont)
        a[3] = c[3] + 60 * rng.randrange(1, c[2] // 60)
    elif kind == "split":                      # an interruptible step in two chunks, the second delayed
        inter = [i for i, e in enumerate(es) if steps[(e[1], e[0])]["interrupt"] and e[2] >= 120]
        if not inter:
            return None
        i = rng.choice(inter)
        step, recipe, dur, start = es[i]
        cut = 60 * rng.randrange(1, dur // 60)
        es[i] = [step, recipe, cut, start]
        es.append([step, recipe, dur - cut, start + cut + rng.choice([0, 60, 600])])
    elif kind == "split-whole":                # a non-interruptible step in two chunks
        whole = [i for i, e in enumerate(es) if not steps[(e[1], e[0])]["interrupt"] and e[2] >= 120]
        if not whole:
            return None
        i = rng.choice(whole)
        step, recipe, dur, start = es[i]
        es[i] = [step, recipe, dur // 2, start]
        es.append([step, recipe, dur - dur // 2, start + dur // 2])
    elif kind == "duration":
        es[pick][2] = max(30, es[pick][2] + rng.choice([-60, 60]))
    elif kind == "delay-tail":                 # everything from some instant on starts later
        t = es[pick][3]
        d = rng.choice([60, 180, 600])
        for e in es:
            if e[3] >= t:
                e[3] += d
    elif kind == "wrong-step":
        es[pick][0] = es[pick][0] + rng.choice([1, 40])
    elif kind == "break-lag":
        lagged = [e for e in es if steps.get((e[1], e[0]), {}).get("time_constraint")]
        if not lagged:
            return None
        rng.choice(lagged)[3] += rng.choice([180, 900])
    elif kind == "pack":                       # start right after the previous continuous chunk ends
        cont = sorted(_continuous(es, steps), key=lambda e: e[3])
        if len(cont) < 2:
            return None
        i = rng.randrange(1, len(cont))
        cont[i][3] = cont[i - 1][3] + cont[i - 1][2] - rng.choice([0, 60])
    else:
        raise ValueError(kind)
    return es


KINDS = ("shift", "drop", "duplicate", "swap", "inside", "split", "split-whole", "duration", "delay-tail",
         "wrong-step", "break-lag", "pack")


def graded(key, constrained, entries):
    plan = {"schedule": [{"task": r, "step": s, "start": st, "duration": d} for s, r, d, st in entries]}
    return validate_plan(r2pdata.problem(key, constrained), plan).valid


@needs_data
@pytest.mark.parametrize("constrained", [True, False])
def test_default_grading_follows_the_papers_rules(constrained):
    rng = random.Random(1234 + constrained)
    inst_of = {k: inst for k, inst in zip(r2pdata.keys(), r2pdata.cooking())}
    seen: Counter = Counter()
    invalid: Counter = Counter()
    for key in r2pdata.keys():
        ref = r2pdata.plans()[key]["plan_w_restriction" if constrained else "plan_wo_restriction"]
        if ref is None:
            continue
        inst = inst_of[key]
        assert r2p_paper.check(inst, ref, constrained) == set(), key
        assert graded(key, constrained, ref), key
        for kind in KINDS:
            for _ in range(2):
                m = mutate(kind, ref, inst, rng)
                if m is None:
                    continue
                broken = r2p_paper.check(inst, m, constrained)
                assert graded(key, constrained, m) == (not broken), (key, kind, sorted(broken), m)
                seen[kind] += 1
                invalid[kind] += bool(broken)
    assert set(seen) == set(KINDS) and sum(seen.values()) > 1400
    # every kind produces invalid plans, and the occupancy rule is exercised
    valid_kinds = {"split"} | (set() if constrained else {"delay-tail"})   # may keep every rule
    assert all(invalid[k] > 0 for k in KINDS if k not in valid_kinds), invalid
    assert invalid["inside"] == seen["inside"]
