"""``--first`` stops reporting at the first violation but still lets the steps started before it finish
(issue #14 item 4): its ``progress`` and ``makespan`` equal critic mode's on every mutant, and its one error is
critic mode's first."""
from __future__ import annotations

import copy
import random
import sys
from pathlib import Path

import pytest

from chronoplan.runtime.metrics import plan_metrics
from chronoplan.runtime.procedure.sim import simulate
from chronoplan.validators.plans import read_plan

sys.path.insert(0, str(Path(__file__).resolve().parent))
import r2pdata  # noqa: E402

pytestmark = pytest.mark.skipif(not (r2pdata.DATA / "cooking.json").exists(), reason="no Recipe2Plan data")


def mutants(plan: dict, rng: random.Random, n: int) -> list:
    out = []
    sched = plan["schedule"]
    for _ in range(n):
        m = copy.deepcopy(plan)
        s = m["schedule"]
        i = rng.randrange(len(s))
        kind = rng.randrange(6)
        if kind == 0:
            s[i]["start"] = max(0, s[i]["start"] - rng.choice((60, 300, 900)))
        elif kind == 1:
            s[i]["start"] += rng.choice((60, 600, 3600))
        elif kind == 2:
            del s[i]
        elif kind == 3:
            s.append(copy.deepcopy(s[i]))
        elif kind == 4:
            s[i]["duration"] = max(1, s[i].get("duration", 60) // 2)
        else:
            j = rng.randrange(len(sched))
            s[i]["start"], s[j]["start"] = s[j]["start"], s[i]["start"]
        out.append(m)
    return out


def test_first_mode_progress_and_makespan_equal_critic_mode():
    rng = random.Random(7)
    compared = invalid = 0
    for key in [k for k in r2pdata.keys() if r2pdata.reference(k) is not None][:40]:
        problem = r2pdata.problem(key)
        for m in mutants(r2pdata.reference(key), rng, 25):
            read = read_plan(m, problem.time_unit)
            critic = simulate(problem, [a for a in read.actions], suppress=read.skipped)
            first = simulate(problem, [a for a in read.actions], first=True, suppress=read.skipped)
            compared += 1
            if not critic.violations:
                continue
            invalid += 1
            assert first.violations == critic.violations[:1]
            a, b = plan_metrics(critic), plan_metrics(first)
            assert (a["progress"], a["steps_done"], a["makespan"]) == (b["progress"], b["steps_done"],
                                                                        b["makespan"]), key
    assert compared == 1000 and invalid > 500
