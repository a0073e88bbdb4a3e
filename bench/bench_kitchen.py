"""Kitchen validation throughput: ParaCook plans per second after compilation, and one big map.

Input: none (uses the bundled generated seed-42 instances and the scripted planner).  Output: a report on
stdout (and JSON with --json): (1) 10x8 maps, 2-3 agents, plans of about 50 actions: plans/s for the full
grade (plan read + simulation + metrics + report, plan given as decoded JSON) and for the simulation
alone; (2) a 100x100 map with 10 agents and about 1,000 actions: seconds per validation.  Worlds are
compiled once per scenario (not timed).  Each figure is the best of many short repetitions on one core: the
machine is shared, and the best repetition is the one least disturbed by other load.

The installed engine is normally the Cython-compiled build of the kitchen modules (setup.py); the report says
which modules are compiled.  Unless --no-pure is given, the same workload is also run in a subprocess on
the repository's pure-Python sources (``runtime.compiled.run_pure``), so the speed-up of the compiled build
is a ratio measured in the same run.

Reference cost (not measured here): issue 4 states that ParaCook's own simulator validates about 130
plans/s on such plans, and sets the target of 3,000 plans/s for the full grade.  ParaCook's code cannot be
run in this environment, so ``PARACOOK_REFERENCE_PLANS_PER_S`` is that quoted figure, printed for
comparison only.  The load average at measurement time is printed too (pin to a core, e.g.
``taskset -c 1``).

    python bench/bench_kitchen.py [--json] [--quick] [--no-pure]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import chronoplan
from chronoplan.build import compiled
from chronoplan.runtime.compiled import run_pure
from chronoplan.runtime.kitchen.engine import KitchenSim
from chronoplan.runtime.kitchen.scripted import plan as scripted_plan
from chronoplan.runtime.kitchen.world import World
from chronoplan.validators.kitchen.grade import grade_grid_plan, world_for
from chronoplan.validators.kitchen.read import read_cook_plan

PARACOOK_REFERENCE_PLANS_PER_S = 130        # quoted in issue 4 (ParaCook's simulator); not measured here
TARGET_PLANS_PER_S = 3000                    # issue 4's target for the full grade on the small workload
ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "domains" / "paracook" / "generated"


def small_workload(project) -> list:
    """(scenario, plan) pairs on 10x8 maps with 2-3 agents, each plan about 40-60 actions."""
    out = []
    for name in project.scenarios:
        if not (name.endswith("_a2") or name.endswith("_a3")):
            continue
        p = scripted_plan(World(project, name))
        n = sum(len(v) for v in p.values())
        if 40 <= n <= 60:
            out.append((name, {"plan": p}, n))
    return out


def timings(fn, reps: int) -> list:
    """CPU seconds of ``reps`` runs of ``fn``, sorted."""
    out = []
    for _ in range(reps):
        t0 = time.process_time()
        fn()
        out.append(time.process_time() - t0)
    return sorted(out)


def best(fn, reps: int) -> float:
    return timings(fn, reps)[0]


def bench_small(project, reps: int, rounds: int) -> dict:
    work = small_workload(project)
    for name, plan, _ in work:
        world_for(project, name)                        # compile once (not timed)
        rep = grade_grid_plan(project, name, plan)
        assert rep.valid, rep.to_text()
    actions = sum(n for _, _, n in work)

    def grade_all():
        for _ in range(rounds):
            for name, plan, _ in work:
                grade_grid_plan(project, name, plan)
    reads = [(world_for(project, name)[0], read_cook_plan(plan)) for name, plan, _ in work]

    def sim_all():
        for _ in range(rounds):
            for world, read in reads:
                sim = KitchenSim(world)
                for agent, steps in read.steps.items():
                    sim.add(agent, steps)
                sim.run()
                sim.result()
    n = len(work) * rounds
    grades, sims = timings(grade_all, reps), timings(sim_all, reps)
    tg, ts = grades[0], sims[0]
    return {"plans": len(work), "mean_actions": round(actions / len(work), 1),
            "grade_plans_per_s": round(n / tg), "simulate_plans_per_s": round(n / ts),
            "grade_plans_per_s_median": round(n / grades[len(grades) // 2]),
            "grade_us_per_action": round(tg / (rounds * actions) * 1e6, 2)}


def big_instance():
    """A 100x100 pasta kitchen (stations x10), 10 agents, about 1,000 actions from the scripted planner."""
    from chronoplan.runtime.kitchen import generate as G
    physics = chronoplan.load(G.PHYSICS)
    lay = G.make_layout(physics, "pasta", 7, width=100, height=100, walls=400, agents=10, scale=10, name="big")
    dishes = G.make_orders(physics, "pasta", 7, 40)
    text = (f'domain paracook\nimport "{G.PHYSICS.as_posix()}"\n' + G.map_text(lay)
            + G.scenario_text("big_a10", lay, 10, dishes))
    import tempfile
    d = Path(tempfile.mkdtemp())
    (d / "big.chrono").write_text(text)
    project = chronoplan.load(d / "big.chrono")
    world = World(project, "big_a10")
    plan = scripted_plan(world)
    return project, plan


def bench_big(reps: int) -> dict:
    project, plan = big_instance()
    t0 = time.process_time()
    world_for(project, "big_a10")
    compile_s = time.process_time() - t0
    rep = grade_grid_plan(project, "big_a10", {"plan": plan})
    assert rep.valid, rep.to_text()[:2000]
    t = best(lambda: grade_grid_plan(project, "big_a10", {"plan": plan}), reps)
    return {"actions": sum(len(v) for v in plan.values()), "agents": len(plan), "compile_s": round(compile_s, 3),
            "validate_s": round(t, 4), "oct": rep.metrics["oct"]}


def pure_run(quick: bool) -> dict:
    """This benchmark's small workload on the repository's pure-Python modules, in a subprocess."""
    args = [str(Path(__file__).resolve()), "--json", "--no-pure", "--small-only"] + (["--quick"] if quick else [])
    p = run_pure(ROOT, args, timeout=3600)
    if p.returncode != 0:
        raise SystemExit(f"the pure-Python run failed: {p.stderr[-2000:]}")
    return json.loads(p.stdout)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    ap.add_argument("--no-pure", action="store_true", help="skip the pure-Python comparison run")
    ap.add_argument("--small-only", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    reps, rounds = (5, 1) if a.quick else (100, 1)
    state = compiled()
    project = chronoplan.load(GENERATED)
    small = bench_small(project, reps, rounds)
    out = {"small": small, "compiled_modules": sum(state.values()), "modules": len(state)}
    if not a.small_only:
        out["big"] = bench_big(max(3, reps // 10))
    if not a.no_pure and any(state.values()):
        pure = pure_run(a.quick)
        out["pure"] = {"small": pure["small"], "compiled_modules": pure["compiled_modules"],
                       "speedup_grade": round(small["grade_plans_per_s"] / pure["small"]["grade_plans_per_s"], 2),
                       "speedup_simulate": round(small["simulate_plans_per_s"]
                                                 / pure["small"]["simulate_plans_per_s"], 2)}
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    out["reference"] = {"paracook_plans_per_s": PARACOOK_REFERENCE_PLANS_PER_S, "source": "issue 4 (quoted, not "
                        "measured here)", "target_plans_per_s": TARGET_PLANS_PER_S}
    if a.json:
        print(json.dumps(out))
        return 0
    print(f"engine: {out['compiled_modules']}/{out['modules']} kitchen modules compiled (Cython)")
    print(f"10x8 maps, 2-3 agents: {small['plans']} plans of {small['mean_actions']} actions on average")
    print(f"  grade (read + simulate + metrics + report): {small['grade_plans_per_s']} plans/s "
          f"({small['grade_us_per_action']} us per action; median repetition {small['grade_plans_per_s_median']})")
    print(f"  simulate only:                              {small['simulate_plans_per_s']} plans/s")
    if "pure" in out:
        ps = out["pure"]["small"]
        print(f"  same workload, pure-Python modules (this run): grade {ps['grade_plans_per_s']} plans/s (median "
              f"{ps['grade_plans_per_s_median']}), simulate "
              f"{ps['simulate_plans_per_s']} plans/s; compiled/pure: {out['pure']['speedup_grade']}x grade, "
              f"{out['pure']['speedup_simulate']}x simulate")
    print(f"  reference: ParaCook's simulator about {PARACOOK_REFERENCE_PLANS_PER_S} plans/s (quoted in issue 4, not "
          f"measured here): {small['grade_plans_per_s'] / PARACOOK_REFERENCE_PLANS_PER_S:.1f}x; target "
          f"{TARGET_PLANS_PER_S} plans/s: {small['grade_plans_per_s'] / TARGET_PLANS_PER_S:.2f} of it")
    if "big" in out:
        big = out["big"]
        print(f"100x100 map, {big['agents']} agents, {big['actions']} actions: validate {big['validate_s']} s "
              f"(compile {big['compile_s']} s)")
    print(f"load average: {' '.join(str(x) for x in out['load_average'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
