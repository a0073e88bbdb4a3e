"""Grading throughput on Recipe2Plan Step(...) text plans, side by side with the original evaluator (#14 item 5).

Input: the Recipe2Plan data (--data DIR, default ../shared/data/recipe2plan), optionally --original DIR (a
checkout of the released code, WilliamZR/Recipe2Plan, or its evaluation/ folder: the released evaluator is
timed beside the re-statement; a DIR without evaluation/evaluator.py is an error, exit 2).  Output: a table on
stdout, every row measured in this one run on one core (the process and its children are pinned to --core):
(a) the original evaluator's execution check on each plan -- tests/r2p_original.py's ``evaluate`` (a
re-statement of it) and, with --original, the real ``Evaluator(instance).evaluate_execution``; (b) chronoplan's
``Grader.grade`` on the same text plans with reference metrics; (c) ``chronoplan validate`` on a JSON Lines file
of --cli-plans plans (default 100,000), the time of a run on one plan per scenario (start-up: imports, compiling
the project, instantiating the scenarios) subtracted; (d) plan-length scaling, 10 to 10^5 steps; (e) the exact
engine (``validate_plan(..., exact=True)``) on the same plans.  Plans: the 64 constrained reference plans as
Step text (valid), one faulty mutant of each (a start moved, an entry dropped or repeated, two starts swapped)
and an even mix; ratios are to (a), tests/r2p_original.py, on the same set ("x re-stated"), and with --original
also to the released ``Evaluator(instance).evaluate_execution`` ("x released"), which is the ratio to the
real thing (the re-statement gives the same verdicts, but its speed is its own).  --api-only: (a), (b) and (e)
only.  In-process cases are timed by the
process's CPU time (--wall: wall time), the fastest of --rounds runs, each run grading the plan set as many times in
a row as lasts --min-time seconds (default 0.2; 0: once), the cases of one plan set taking turns in each round
(so that the machine's load changes affect them alike); (c) gives wall and CPU time of the CLI run.
Usage: python bench/bench_recipe2plan.py [--rounds N] [--cli-plans N] [--core K] [--original DIR] [--quick] [--wall]
                                         [--min-time S] [--api-only]
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import io
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import chronoplan
import chronoplan.validators.grade as grade_module
from chronoplan.cli import main as cli_main
from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import ConcreteUse, ProcedureProblem, ResourceInstance, SchedStep
from chronoplan.validators.grade import Grader
from chronoplan.validators.replay import validate_plan

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "recipe2plan"


def hms(s: int) -> str:
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def text_of(entries) -> str:
    return ", ".join(f"Step({s}, {r}, {hms(d)}, {hms(st)})" for s, r, d, st in entries)


def mutant(entries, rng: random.Random) -> list:
    """One faulty variant of a plan (the original and chronoplan both reject it)."""
    es = [list(e) for e in entries]
    kind = rng.randrange(4)
    i = rng.randrange(len(es))
    if kind == 0:
        es[i][3] = max(0, es[i][3] + rng.choice([-600, -120, -60, 60, 120, 600]))
    elif kind == 1:
        del es[i]
    elif kind == 2:
        es.append(list(es[i]))
    else:
        j = rng.randrange(len(es))
        es[i][3], es[j][3] = es[j][3], es[i][3]
    return es


CLOCK = time.process_time        # --wall: time.perf_counter


def best_rates(works: dict, n: int, rounds: int, min_time: float = 0.2) -> dict:
    """Plans per second of each of ``works`` (name -> function grading n plans): the fastest of ``rounds`` runs,
    after one run not timed; the works take turns in each round, so that a change in the machine's load
    between rounds affects them all alike.  A timed run calls its work ``loops`` times in a row, ``loops``
    calibrated once per work (as ``timeit`` does) so that a run lasts at least ``min_time`` seconds: a run of a
    single batch (64 plans, a few milliseconds) would charge the work with refilling the CPU caches that the
    ``gc.collect()`` before each run (and the other works) emptied -- about 20 us per plan, a quarter of a
    faulty plan's grading -- which a batch of thousands of plans pays once."""
    best = dict.fromkeys(works, float("inf"))
    loops = {}
    for name, work in works.items():
        t0 = CLOCK()
        work()
        once = max(CLOCK() - t0, 1e-6)
        loops[name] = max(1, int(min_time / once) + 1) if min_time > 0 else 1
    for _ in range(rounds):
        for name, work in works.items():
            k = loops[name]
            gc.collect()
            t0 = CLOCK()
            for _ in range(k):
                work()
            best[name] = min(best[name], (CLOCK() - t0) / k)
    return {name: n / t for name, t in best.items()}


def original_module():
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import r2p_original
    except ImportError:
        return None
    finally:
        sys.path.pop(0)
    return r2p_original


class NoOriginal(Exception):
    """--original names no usable checkout of the released code."""


def real_original(folder: Path):
    """The released repository's ``Evaluator`` class from a checkout (``folder``/evaluation/evaluator.py) or its
    evaluation/ folder itself; NoOriginal with the reason when there is none or it does not import.  The
    folder goes first on sys.path (the released modules import each other by their bare names)."""
    folder = Path(folder)
    evaluation = folder / "evaluation" if (folder / "evaluation" / "evaluator.py").is_file() else folder
    if not (evaluation / "evaluator.py").is_file():
        raise NoOriginal(f"--original {folder}: no evaluation/evaluator.py there (expected a checkout of the "
                         "released Recipe2Plan code, https://github.com/WilliamZR/Recipe2Plan, or its "
                         "evaluation/ folder)")
    sys.path.insert(0, str(evaluation))
    sys.modules.pop("evaluator", None)
    try:
        from evaluator import Evaluator  # noqa: PLC0415 - the original's module layout
    except Exception as exc:                 # noqa: BLE001 - reported as the reason
        raise NoOriginal(f"--original {folder}: cannot import evaluator from {evaluation}: "
                         f"{type(exc).__name__}: {exc}") from None
    if not callable(getattr(Evaluator, "evaluate_execution", None)):
        raise NoOriginal(f"--original {folder}: {evaluation / 'evaluator.py'} has no Evaluator.evaluate_execution")
    return Evaluator


def cli_rate(project_dir: Path, tmp: Path, items: list, refs: Path, n: int) -> tuple[float, float, float]:
    """(plans/s by wall time, plans/s by CPU time, start-up seconds) of ``chronoplan validate`` on n plans."""
    def write(path: Path, count: int) -> None:
        with path.open("w") as f:
            for i in range(count):
                key, text = items[i % len(items)]
                f.write(json.dumps({"scenario": key, "plan": text}) + "\n")

    small, big = tmp / "startup.jsonl", tmp / "plans.jsonl"
    write(small, len(items))
    write(big, n)

    def run(path: Path) -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "chronoplan.cli", "validate", str(project_dir), str(path),
                        "--reference", str(refs), "--format", "json", "--no-progress"],
                       stdout=subprocess.DEVNULL, check=False)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    start = min(run(small) for _ in range(2))
    full = run(big)
    extra = n - len(items)
    return extra / (full[0] - start[0]), extra / (full[1] - start[1]), start[0]


def scaling_problem(n_steps: int) -> tuple[ProcedureProblem, list]:
    """A chain scenario of n_steps steps (tasks of 10: continuous 1 s, autonomous 2 s on one of 4 ovens) and a
    valid serial plan for it (plan.json entries)."""
    tasks, steps, entries = [], [], []
    t = 0
    for k in range((n_steps + 9) // 10):
        name = f"T{k}"
        tasks.append(name)
        for i in range(min(10, n_steps - 10 * k)):
            auto = i % 2 == 1
            dur = Fraction(2 if auto else 1)
            uses = (ConcreteUse(f"oven{k % 4}", (), ()),) if auto else ()
            steps.append(SchedStep(name, i, f"step {i}", dur, ir.Occupancy.START if auto else ir.Occupancy.CONTINUOUS,
                                   Fraction(0) if auto else dur, False, (i - 1,) if i else (), (), uses, None, None))
            entries.append((i, name, int(dur), t))
            t += int(dur)
    resources = tuple(ResourceInstance(f"oven{j}", 1, (), f"oven{j}") for j in range(4))
    problem = ProcedureProblem(f"chain{n_steps}", ir.TimeUnit.S, ("agent1",), tuple(tasks), tuple(steps), resources,
                               None, ir.OccupancyRule.EXCLUSIVE)
    return problem, entries


def main(argv=None) -> int:  # noqa: C901
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--rounds", type=int, default=10, help="runs of each case; the fastest counts")
    ap.add_argument("--cli-plans", type=int, default=100_000)
    ap.add_argument("--core", type=int, default=None, help="the core to run on (default: the first one allowed)")
    ap.add_argument("--original", type=Path, default=None, metavar="DIR",
                    help="a checkout of the released Recipe2Plan code (or its evaluation/ folder): time it too")
    ap.add_argument("--api-only", action="store_true", help="only the in-process cases (a), (b), (e)")
    ap.add_argument("--quick", action="store_true", help="scaling up to 10^4 steps, 20,000 CLI plans")
    ap.add_argument("--wall", action="store_true", help="time in-process cases by wall time, not CPU time")
    ap.add_argument("--min-time", type=float, default=0.2,
                    help="seconds a timed run of an in-process case lasts at least (the plan set graded that many "
                         "times in a row); 0: one pass per run, as before")
    args = ap.parse_args(argv)
    global CLOCK
    CLOCK = time.perf_counter if args.wall else time.process_time
    if not (args.data / "cooking.json").exists():
        print(f"no Recipe2Plan data in {args.data}", file=sys.stderr)
        return 2
    if hasattr(os, "sched_setaffinity"):
        core = args.core if args.core is not None else min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
    cli_plans = min(args.cli_plans, 20_000) if args.quick else args.cli_plans
    rounds = args.rounds
    original = original_module()
    if original is None:
        print("tests/r2p_original.py not found: no baseline", file=sys.stderr)
        return 2
    try:
        real = real_original(args.original) if args.original else None
    except NoOriginal as exc:
        print(f"bench_recipe2plan: error: {exc}", file=sys.stderr)
        return 2

    cooking = json.loads((args.data / "cooking.json").read_text())
    plans = json.loads((args.data / "plan.json").read_text())
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        project_dir = tmp / "r2p"
        with contextlib.redirect_stdout(io.StringIO()):
            status = cli_main(["import", "recipe2plan", str(args.data / "cooking.json"), "-o", str(project_dir)])
        if status != 0:
            return 2
        project = chronoplan.load(project_dir)
        rng = random.Random(14)
        valid, faulty = [], []
        for inst in cooking:
            key = "_".join(r["recipe"] for r in inst)
            ref = plans[key]["plan_w_restriction"]
            if ref is None:
                continue
            text = text_of(ref)
            valid.append((key, inst, text, text))
            faulty.append((key, inst, text_of(mutant(ref, rng)), text))
        mixed = [x for pair in zip(valid, faulty) for x in pair]
        grader = Grader(project)
        for key, _, text, ref in valid + faulty:         # instantiate, compile and read the references once
            grader.grade(key, text, reference=ref)
        n_actions = sum(t.count("Step(") for _, _, t, _ in valid)
        print(f"{len(valid)} Recipe2Plan scenarios, {n_actions / len(valid):.1f} actions per plan; "
              f"core {core if hasattr(os, 'sched_setaffinity') else '?'}, best of {rounds} rounds")

        exact_grade = functools.partial(validate_plan, exact=True)

        def orig(batch):
            return lambda: [original.evaluate(inst, text) for _, inst, text, _ in batch]

        def real_orig(batch):
            return lambda: [real(inst).evaluate_execution(text) for _, inst, text, _ in batch]

        def ours(batch):
            return lambda: [grader.grade(key, text, reference=ref) for key, _, text, ref in batch]

        def exact(batch):
            def work():
                saved = grade_module.validate_plan
                grade_module.validate_plan = exact_grade
                try:
                    for key, _, text, ref in batch:
                        grader.grade(key, text, reference=ref)
                finally:
                    grade_module.validate_plan = saved
            return work

        verdicts = sum(grader.grade(k, t, reference=r).valid == original.evaluate(i, t).ok for k, i, t, r in mixed)
        print(f"verdicts agreeing with tests/r2p_original.py on the mixed set: {verdicts}/{len(mixed)}")
        print()
        released_label = "(a) released evaluation/ Evaluator.evaluate_execution"
        print(f"{'case':<58} {'plans/s':>9} {'us/plan':>8} {'x re-stated':>11}"
              + (f" {'x released':>10}" if real is not None else ""))
        released_rates: dict = {}
        for label, batch in (("valid plans", valid), ("faulty mutants", faulty), ("mix, half faulty", mixed)):
            works = {f"(a) original execution check (r2p_original), {label}": orig(batch)}
            if real is not None:
                works[f"{released_label}, {label}"] = real_orig(batch)
            works[f"(b) Grader.grade + reference metrics, {label}"] = ours(batch)
            works[f"(e) exact engine only, {label}"] = exact(batch)
            rates = best_rates(works, len(batch), rounds, args.min_time)
            base = rates[f"(a) original execution check (r2p_original), {label}"]
            released = rates.get(f"{released_label}, {label}")
            released_rates[label] = released
            for name, rate in rates.items():
                print(f"{name:<58} {rate:>9.0f} {1e6 / rate:>8.1f} {rate / base:>10.1f}x"
                      + (f" {rate / released:>9.1f}x" if released else ""))
        if args.api_only:
            return 0

        refs = tmp / "refs.jsonl"
        refs.write_text("".join(json.dumps({"scenario": k, "plan": t}) + "\n" for k, _, t, _ in valid))
        base = best_rates({"original": orig(valid)}, len(valid), rounds, args.min_time)["original"]
        wall, cpu, start = cli_rate(project_dir, tmp, [(k, t) for k, _, t, _ in valid], refs, cli_plans)
        rel = released_rates.get("valid plans")
        print(f"{'(c) chronoplan validate, ' + format(cli_plans, ',') + ' valid plans, wall':<58} {wall:>9.0f} "
              f"{1e6 / wall:>8.1f} {wall / base:>10.1f}x" + (f" {wall / rel:>9.1f}x" if rel else ""))
        print(f"{'(c) the same, CPU time':<58} {cpu:>9.0f} {1e6 / cpu:>8.1f} {cpu / base:>10.1f}x"
              + (f" {cpu / rel:>9.1f}x" if rel else ""))
        print(f"    (start-up, subtracted: {start:.2f} s)")

    print()
    print("(d) plan-length scaling: one plan, Step text; each run grades a new plan (the valid plan started k "
          "seconds later, k = 1, 2, ...); faulty: the same with steps 2 and 3 of every task swapped (an E301 per "
          "task), fast path = sweep then the integer replay")
    print(f"{'steps':>8} {'fast s':>9} {'us/step':>8} {'exact s':>9} {'us/step':>8} {'exact/fast':>10} "
          f"{'faulty fast us/step':>19} {'exact us/step':>13}")
    sizes = [10, 100, 1_000, 10_000] + ([] if args.quick else [100_000])
    shift = iter(range(1, 10 ** 9))
    for n in sizes:
        problem, entries = scaling_problem(n)
        validate_plan(problem, "Step(0, T0, 00:00:01, 00:00:00)")           # compile the scenario once

        def plans(count: int, entries=entries) -> list:
            out = []
            for _ in range(count):
                k = next(shift)
                out.append(text_of([(s, r, d, st + k) for s, r, d, st in entries]))
            return out

        swapped = [list(e) for e in entries]
        for b in range(0, len(swapped) - 3, 10):
            swapped[b + 2][3], swapped[b + 3][3] = swapped[b + 3][3], swapped[b + 2][3]

        reps = max(1, 2000 // n)
        fast_texts, exact_texts = plans(reps * rounds), plans(max(1, reps // 10) * rounds)
        assert all(validate_plan(problem, t).valid for t in fast_texts[:1] + exact_texts[:1])
        fast = _per_plan(lambda t, p=problem: validate_plan(p, t), fast_texts, rounds)
        slow = _per_plan(lambda t, p=problem: validate_plan(p, t, exact=True), exact_texts,
                         1 if n >= 10_000 else rounds)
        bad_fast, bad_exact = plans(reps * rounds, swapped), plans(max(1, reps // 10) * rounds, swapped)
        assert not validate_plan(problem, bad_fast[0]).valid
        faulty = _per_plan(lambda t, p=problem: validate_plan(p, t), bad_fast, rounds)
        faulty_exact = _per_plan(lambda t, p=problem: validate_plan(p, t, exact=True), bad_exact,
                                 1 if n >= 10_000 else rounds)
        print(f"{n:>8} {fast:>9.4f} {1e6 * fast / n:>8.2f} {slow:>9.4f} {1e6 * slow / n:>8.2f} {slow / fast:>9.1f}x "
              f"{1e6 * faulty / n:>19.2f} {1e6 * faulty_exact / n:>13.2f}")
    return 0


def _per_plan(grade, texts: list, rounds: int) -> float:
    """Seconds per plan: the fastest of ``rounds`` runs, each grading its own share of ``texts`` once."""
    share = max(1, len(texts) // rounds)
    best = float("inf")
    for r in range(rounds):
        batch = texts[r * share:(r + 1) * share] or texts[-share:]
        gc.collect()
        t0 = CLOCK()
        for t in batch:
            grade(t)
        best = min(best, (CLOCK() - t0) / len(batch))
    return best


if __name__ == "__main__":
    sys.exit(main())
