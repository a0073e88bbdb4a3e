"""Throughput of plan validation: plans per second on the Recipe2Plan reference plans.

Input: the Recipe2Plan data (default ../shared/data/recipe2plan, or --data DIR).  Output: a table on stdout
(plans/s and actions/s for valid JSON schedules, Step(...) text, plans with faults in critic and --first
mode, and the batch API with references).  Usage: python bench/bench_validate.py [--rounds N] [--data DIR]
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import chronoplan
from chronoplan.cli import main as cli_main
from chronoplan.compiler.instantiate import procedure_problem
from chronoplan.validators.grade import Grader, validate_many
from chronoplan.validators.replay import validate_plan

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "recipe2plan"


def hms(s: int) -> str:
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def faulty(plan: dict, rng: random.Random) -> dict:
    out = {"schedule": [dict(e) for e in plan["schedule"]]}
    s = out["schedule"]
    for _ in range(3):
        e = rng.choice(s)
        e["start"] = max(0, e["start"] + rng.choice([-600, -120, 120, 600]))
    del s[rng.randrange(len(s))]
    return out


def measure(label: str, work, n_plans: int, n_actions: int, rounds: int) -> None:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - t0)
    print(f"{label:<38} {n_plans / best:>10.0f} {n_actions / best:>12.0f} {1000 * best / n_plans:>9.3f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    if not (args.data / "cooking.json").exists():
        print(f"no Recipe2Plan data in {args.data}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        with contextlib.redirect_stdout(io.StringIO()):
            status = cli_main(["import", "recipe2plan", str(args.data / "cooking.json"), "-o", tmp])
        if status != 0:
            return 2
        project = chronoplan.load(tmp)
    plans = json.loads((args.data / "plan.json").read_text())
    t0 = time.perf_counter()
    items = []
    for key, p in plans.items():
        ref = p["plan_w_restriction"]
        if ref is None:
            continue
        problem = procedure_problem(project, project.scenario(key))
        sched = {"schedule": [{"task": r, "step": s, "start": st, "duration": d} for s, r, d, st in ref]}
        text = ", ".join(f"Step({s}, {r}, {hms(d)}, {hms(st)})" for s, r, d, st in ref)
        items.append((key, problem, sched, text))
    setup = time.perf_counter() - t0
    rng = random.Random(7)
    bad = [(k, p, faulty(s, rng), t) for k, p, s, t in items]
    n = len(items)
    acts = sum(len(s["schedule"]) for _, _, s, _ in items)
    print(f"{n} Recipe2Plan instances, {acts} actions; instantiation {1000 * setup / n:.1f} ms per scenario "
          f"(once per scenario, cached by the batch API)")
    print(f"{'case':<38} {'plans/s':>10} {'actions/s':>12} {'ms/plan':>9}")
    measure("valid JSON schedule", lambda: [validate_plan(p, s) for _, p, s, _ in items], n, acts, args.rounds)
    measure("valid Step(...) text", lambda: [validate_plan(p, t) for _, p, _, t in items], n, acts, args.rounds)
    measure("valid, with reference metrics", lambda: [validate_plan(p, s, reference=s) for _, p, s, _ in items],
            n, acts, args.rounds)
    measure("faulty plans, critic mode", lambda: [validate_plan(p, s) for _, p, s, _ in bad], n, acts, args.rounds)
    measure("faulty plans, --first", lambda: [validate_plan(p, s, first=True) for _, p, s, _ in bad], n, acts,
            args.rounds)
    grader = Grader(project)
    pairs = [(f"{k}.json", s) for k, _, s, _ in items]
    list(validate_many(project, pairs[:1], grader=grader))
    measure("validate_many (JSON, cached scenarios)", lambda: list(validate_many(project, pairs, grader=grader)),
            n, acts, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
