"""Start-up cost of the command line (#28 item 12): what a user waits for before any real work.

Input: none (uses domains/quickstart/lab.chrono, a small file).  Output: a table on stdout (JSON with --json):
for each case the best and the median wall time and CPU time (user + system of the child process) over --runs
fresh processes, and the ratio of its best CPU time to ``python -c pass``'s:
- ``python -c pass``: the interpreter alone (the floor);
- ``import chronoplan``: the package (it must not import sympy: tests/test_startup.py);
- ``chronoplan --version``;
- ``chronoplan check lab.chrono``: compiling one small file (imports the compiler: sympy, networkx, lark);
then the targets of issue 28 item 12 (``--version`` and ``check`` of one small file under 0.3 s) as reached /
NOT reached, by the best wall time and by the best CPU time (on a loaded machine the wall time waits for
the other processes; on an idle one the two agree), the load average (the machine is shared: the best run is the least
disturbed), and with --imports the heaviest top-level imports of ``check`` (``python -X importtime``).

    python bench/bench_startup.py [--runs N] [--quick] [--json] [--imports]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "domains" / "quickstart" / "lab.chrono"
TARGET_S = 0.3                      # issue 28 item 12: --version and check of one small file


def _cli() -> list:
    """The installed ``chronoplan`` script beside this interpreter (what a user runs), else ``-m``."""
    script = Path(sys.executable).with_name("chronoplan")
    if script.exists():
        return [str(script)]
    found = shutil.which("chronoplan")
    return [found] if found else [sys.executable, "-m", "chronoplan.cli"]


def cases() -> dict:
    cli = _cli()
    return {"python -c pass": [sys.executable, "-c", "pass"],
            "import chronoplan": [sys.executable, "-c", "import chronoplan"],
            "chronoplan --version": cli + ["--version"],
            "chronoplan check lab.chrono": cli + ["check", str(SMALL)]}


def run_once(argv: list) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one run; the run must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {p.returncode}: {p.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(runs: int) -> dict:
    """{case: {best_wall, median_wall, best_cpu, median_cpu}}; the cases take turns in each round, so that a
    change of the machine's load affects them alike."""
    samples: dict = {name: [] for name in cases()}
    argvs = cases()
    for argv in argvs.values():         # warm the file cache and the .pyc files (not counted)
        run_once(argv)
    for _ in range(runs):
        for name, argv in argvs.items():
            samples[name].append(run_once(argv))
    out = {}
    for name, xs in samples.items():
        walls, cpus = [w for w, _ in xs], [c for _, c in xs]
        out[name] = {"best_wall": min(walls), "median_wall": statistics.median(walls),
                     "best_cpu": min(cpus), "median_cpu": statistics.median(cpus)}
    return out


def heaviest_imports(n: int = 8) -> list:
    """[(package, cumulative microseconds)] of the heaviest packages (names without a dot) that ``check``
    imports, wherever in the import tree (python -X importtime)."""
    code = f"from chronoplan.cli import main; main(['check', {str(SMALL)!r}])"
    p = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, cwd=ROOT)
    rows = []
    for line in p.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|")
        if cumulative.strip().isdigit() and "." not in name.strip():
            rows.append((name.strip(), int(cumulative)))
    return sorted(rows, key=lambda r: -r[1])[:n]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--quick", action="store_true", help="5 runs")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--imports", action="store_true", help="also list check's heaviest imports")
    args = ap.parse_args(argv)
    runs = 5 if args.quick else max(1, args.runs)
    res = measure(runs)
    floor = res["python -c pass"]["best_cpu"] or 1e-9
    targets = {name: {"target_s": TARGET_S, "best_wall": res[name]["best_wall"], "best_cpu": res[name]["best_cpu"],
                      "reached_wall": res[name]["best_wall"] < TARGET_S,
                      "reached_cpu": res[name]["best_cpu"] < TARGET_S}
               for name in ("chronoplan --version", "chronoplan check lab.chrono")}
    report = {"runs": runs, "load_average": os.getloadavg(), "cases": res, "targets": targets}
    if args.imports:
        report["check_imports_us"] = heaviest_imports()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"start-up, {runs} runs per case (load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})")
    print(f"{'case':30} {'best wall':>10} {'median wall':>12} {'best CPU':>9} {'median CPU':>11} {'x pass':>7}")
    for name, r in res.items():
        print(f"{name:30} {r['best_wall']:9.3f}s {r['median_wall']:11.3f}s {r['best_cpu']:8.3f}s "
              f"{r['median_cpu']:10.3f}s {r['best_cpu'] / floor:6.1f}x")
    for name, t in targets.items():
        print(f"target: {name} under {TARGET_S} s: wall {'reached' if t['reached_wall'] else 'NOT reached'} "
              f"(best {t['best_wall']:.3f} s), CPU {'reached' if t['reached_cpu'] else 'NOT reached'} "
              f"(best {t['best_cpu']:.3f} s)")
    for mod, us in report.get("check_imports_us", []):
        print(f"  check imports {mod}: {us / 1e6:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
