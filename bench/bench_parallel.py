"""Parallel grading throughput: ``chronoplan validate --jobs 1 / --jobs N / --ray`` on one Recipe2Plan batch
(issue 28 item 22).

Input: the Recipe2Plan data (--data DIR, default ../shared/data/recipe2plan), --plans N (default 100,000) plans as
JSON Lines: the 64 constrained reference plans as Step text and one faulty mutant of each, in turn, with a
line that is not JSON and a plan of an unknown scenario every 1,000 plans.  Output: per mode the best wall
time of --rounds runs, plans per second, the speed-up over --jobs 1, the load average before each run, and
whether every mode wrote byte-identical reports (stdout of ``--format json``).  Wall time includes start-up
(imports, compiling the project); a run on --plans 64 measures it.  The machine's other jobs count, so the
load average is printed beside every figure.
Usage: python bench/bench_parallel.py [--plans N] [--rounds R] [--jobs 2] [--ray] [--profile]
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "recipe2plan"
sys.path.insert(0, str(ROOT / "bench"))
from bench_recipe2plan import mutant, text_of  # noqa: E402


def write_batch(path: Path, data: Path, n: int) -> None:
    """n plans as JSON Lines (see the module docstring)."""
    cooking = json.loads((data / "cooking.json").read_text())
    plans = json.loads((data / "plan.json").read_text())
    rng = random.Random(22)
    items = []
    for inst in cooking:
        key = "_".join(r["recipe"] for r in inst)
        ref = plans[key]["plan_w_restriction"]
        if ref is not None:
            items.append(json.dumps({"scenario": key, "plan": text_of(ref)}))
            items.append(json.dumps({"scenario": key, "plan": text_of(mutant(ref, rng))}))
    with path.open("w") as f:
        for i in range(n):
            if i % 1000 == 500:
                f.write("{not json\n")
            elif i % 1000 == 501:
                f.write(json.dumps({"scenario": "No_Such-Scenario", "plan": "Step(0, X, 00:01:00, 00:00:00)"}) + "\n")
            else:
                f.write(items[i % len(items)] + "\n")


# runs ``chronoplan`` and prints, on its last stderr line, its own CPU seconds and its reaped workers'
WRAPPER = """import json, resource, sys
from chronoplan.cli import main
if __name__ == "__main__":
    try:
        status = main(sys.argv[1:])
    finally:
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        sys.stderr.write("\\n" + json.dumps([me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime]) + "\\n")
    sys.exit(status)
"""


def run(cmd: list) -> tuple[float, tuple, str]:
    """(wall seconds, (CPU seconds of the parent, of the worker processes it forked and reaped), digest of
    stdout)."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, check=False)
    wall = time.perf_counter() - t0
    cpu = tuple(json.loads(proc.stderr.decode().strip().splitlines()[-1]))
    if proc.returncode not in (0, 1, 2):
        raise SystemExit(f"{' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr.decode()[-2000:]}")
    return wall, cpu, hashlib.sha256(proc.stdout).hexdigest()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--plans", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--ray", action="store_true", help="also time --ray (a local Ray instance)")
    args = ap.parse_args(argv)
    if not (args.data / "cooking.json").exists():
        print(f"no Recipe2Plan data in {args.data}", file=sys.stderr)
        return 2
    from chronoplan.cli import main as cli_main
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        project = tmp / "r2p"
        with contextlib.redirect_stdout(io.StringIO()):
            if cli_main(["import", "recipe2plan", str(args.data / "cooking.json"), "-o", str(project)]) != 0:
                return 2
        batch = tmp / "plans.jsonl"
        write_batch(batch, args.data, args.plans)
        wrapper = tmp / "run_chronoplan.py"
        wrapper.write_text(WRAPPER)
        base = [sys.executable, str(wrapper), "validate", str(project), str(batch), "--format", "json",
                "--no-progress"]
        modes = {"--jobs 1": ["--jobs", "1"], f"--jobs {args.jobs}": ["--jobs", str(args.jobs)]}
        if args.ray:
            modes["--ray (local)"] = ["--ray"]
        best: dict = {}
        cpus: dict = {}
        digests: dict = {}
        loads: dict = {}
        for _ in range(args.rounds):
            for name, extra in modes.items():
                loads.setdefault(name, []).append(os.getloadavg()[0])
                wall, cpu, digest = run(base + extra)
                best[name] = min(best.get(name, float("inf")), wall)
                cpus[name] = min(cpus.get(name, (float("inf"), 0.0)), cpu, key=sum)
                digests.setdefault(name, set()).add(digest)
        print(f"{args.plans:,} plans, best of {args.rounds} rounds, {os.cpu_count()} cores")
        print(f"{'mode':<16} {'wall s':>8} {'plans/s':>9} {'x jobs 1':>9} {'parent CPU':>10} {'workers CPU':>11} "
              f"{'idle est. s':>11} {'x jobs 1':>8}  load average (1 min) before each run")
        one = best["--jobs 1"]
        one_est = sum(cpus["--jobs 1"])
        for name in modes:
            parent, workers = cpus[name]
            n = 1 if name == "--jobs 1" else args.jobs
            est = parent + workers / n
            cols = (f"{parent:>10.2f} {workers:>11.2f} {est:>11.2f} {one_est / est:>7.2f}x" if "ray" not in name
                    else f"{parent:>10.2f} {'n/a':>11} {'n/a':>11} {'n/a':>8}")
            print(f"{name:<16} {best[name]:>8.2f} {args.plans / best[name]:>9.0f} {one / best[name]:>8.2f}x "
                  f"{cols}  " + ", ".join(f"{x:.2f}" for x in loads[name]))
        print("(CPU: of the parent process, and of the worker processes it forked and reaped; Ray's own "
              "processes are not counted.  idle est.: parent CPU + workers CPU / workers, the wall time on idle "
              "cores if the parent never overlapped its workers, a pessimistic estimate for a loaded machine)")
        same = len(set().union(*digests.values())) == 1
        print("reports identical in every mode and run:", "yes" if same else "NO")
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
