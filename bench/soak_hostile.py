"""Soak test (issue #17): one `chronoplan validate` batch of 100,000 mixed hostile and valid plans.

Generates a JSON Lines file of plans for the Recipe2Plan-style domain (domains/recipes: schedules, plan.json
lists and Step(...) text, valid or damaged by the generators of tests/fuzz_strategies.py: NaN, huge and
unicode digits, wrong types, BOMs, truncation, broken UTF-8, deep nesting), runs ONE
``chronoplan validate domains/recipes PLANS.jsonl --format json`` in a subprocess and checks that it printed
exactly one report per plan, in order, with no internal error (E090) and exit status 0 or 1.  Prints plans,
reports, seconds, plans/s and the child's peak resident memory; exits 1 when reports != plans, an internal
error or a traceback appears, or the peak RSS reaches --max-rss-mb (default 1024).

``--kitchen N`` adds a second batch of N ParaCook plans (domains/paracook/generated/burger_s42.chrono),
reported on its own line: kitchen plans run a grid simulator, about 100x the cost of a timed plan.

    python bench/soak_hostile.py                       # 100,000 recipe plans
    python bench/soak_hostile.py --plans 2000 --kitchen 200
"""
from __future__ import annotations

import argparse
import collections
import json
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
import fuzz_strategies as fz  # noqa: E402


def generate(path: Path, n: int, seed: int, kind: str) -> collections.Counter:
    """Write n plans, one per line; return how many of each sort were written."""
    rnd = random.Random(seed)
    sorts: collections.Counter = collections.Counter()
    valid_line = json.dumps(fz.VALID_SCHEDULE if kind == "recipes" else fz.VALID_KITCHEN).encode()
    with path.open("wb") as out:
        for _ in range(n):
            r = rnd.random()
            if r < 0.25:
                line, sort = valid_line, "valid"
            elif r < 0.252 and kind == "recipes":      # a long hostile plan now and then (5,000 actions)
                plan = {"schedule": [dict(e, start=e["start"] + 5000 * k) for k in range(455)
                                     for e in fz.VALID_SCHEDULE["schedule"]]}
                plan["schedule"][rnd.randrange(5000)]["start"] = float("nan")
                line, sort = fz.jsonl_line(rnd, plan), "long"
            else:
                plan = fz.recipes_plan(rnd) if kind == "recipes" else fz.kitchen_plan(rnd)
                line, sort = fz.jsonl_line(rnd, plan), "hostile"
            sorts[sort] += 1
            out.write(line + b"\n")
    return sorts


def _poll_rss(pid: int, peak: list, done: threading.Event) -> None:
    """Peak VmHWM of the child from /proc (a check on ru_maxrss; Linux only)."""
    status = Path(f"/proc/{pid}/status")
    while not done.wait(0.2):
        try:
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak[0] = max(peak[0], int(line.split()[1]))
        except OSError:
            return


def run_batch(domain: Path, plans: Path, n: int, scenario: str) -> dict:
    cmd = [sys.executable, "-m", "chronoplan.cli", "validate", str(domain), str(plans), "--scenario", scenario,
           "--format", "json", "--no-progress"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=plans.parent)
    peak, done = [0], threading.Event()
    poller = threading.Thread(target=_poll_rss, args=(proc.pid, peak, done), daemon=True)
    poller.start()
    err_chunks: list = []
    drain = threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()), daemon=True)
    drain.start()
    reports = in_order = valid = 0
    codes: collections.Counter = collections.Counter()
    bad_lines = 0
    for raw in proc.stdout:
        reports += 1
        try:
            rep = json.loads(raw)
        except ValueError:
            bad_lines += 1
            continue
        in_order += rep.get("plan") == f"{plans}:{reports}"
        valid += bool(rep.get("valid"))
        codes.update({e["code"] for e in rep.get("errors", [])})
    status = proc.wait()
    seconds = time.perf_counter() - start
    done.set()
    drain.join()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss     # KiB on Linux
    stderr = b"".join(err_chunks).decode("utf-8", "replace")
    return {"plans": n, "reports": reports, "in_order": in_order, "valid": valid, "status": status,
            "seconds": seconds, "plans_per_s": n / seconds if seconds else 0.0,
            "peak_rss_mb": max(usage if usage > before else 0, peak[0]) / 1024, "codes": codes,
            "bad_lines": bad_lines, "traceback": "Traceback" in stderr, "stderr": stderr[-2000:],
            "command": " ".join(cmd)}


def check(name: str, res: dict, max_rss_mb: float) -> list[str]:
    problems = []
    if res["reports"] != res["plans"] or res["in_order"] != res["plans"] or res["bad_lines"]:
        problems.append(f"{res['reports']} reports ({res['in_order']} in order, {res['bad_lines']} not JSON) for "
                        f"{res['plans']} plans")
    if res["status"] not in (0, 1):
        problems.append(f"exit status {res['status']} (expected 0 or 1)")
    if res["codes"].get("E090") or res["traceback"]:
        problems.append(f"internal errors: {res['codes'].get('E090', 0)} E090 reports, traceback: {res['traceback']}")
    if res["peak_rss_mb"] >= max_rss_mb:
        problems.append(f"peak RSS {res['peak_rss_mb']:.0f} MB >= {max_rss_mb:.0f} MB")
    return [f"{name}: {p}" for p in problems]


def summary(name: str, res: dict, sorts: collections.Counter) -> str:
    top = ", ".join(f"{c} {k}" for c, k in sorted(((v, k) for k, v in res["codes"].items()), reverse=True)[:8])
    return (f"{name}: {res['plans']} plans ({', '.join(f'{v} {k}' for k, v in sorted(sorts.items()))}), "
            f"{res['reports']} reports ({res['in_order']} in order), {res['valid']} valid, exit {res['status']}, "
            f"{res['seconds']:.1f} s, {res['plans_per_s']:.0f} plans/s, peak RSS {res['peak_rss_mb']:.0f} MB\n"
            f"  errors by code (plans): {top}\n  command: {res['command']}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plans", type=int, default=100_000, help="recipe plans in the batch (default 100,000)")
    ap.add_argument("--kitchen", type=int, default=0, help="also a batch of this many kitchen plans")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--max-rss-mb", type=float, default=1024.0)
    ap.add_argument("--keep", metavar="DIR", help="write the plan files here and keep them")
    ap.add_argument("--json", action="store_true", help="print the results as one JSON object")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="soak-") as tmp:
        work = Path(args.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        batches = [("recipes", fz.RECIPES, fz.R2P_SCEN, args.plans)]
        if args.kitchen:
            batches.append(("kitchen", ROOT / "domains" / "paracook" / "generated" / "burger_s42.chrono",
                            fz.KITCHEN_SCEN, args.kitchen))
        problems, out = [], {}
        for name, domain, scenario, n in batches:
            path = work / f"{name}.jsonl"
            t0 = time.perf_counter()
            sorts = generate(path, n, args.seed, name)
            gen_s = time.perf_counter() - t0
            res = run_batch(domain, path, n, scenario)
            problems += check(name, res, args.max_rss_mb)
            if args.json:
                out[name] = {k: (dict(v) if isinstance(v, collections.Counter) else v) for k, v in res.items()}
            else:
                print(f"generated {path.stat().st_size / 1e6:.1f} MB in {gen_s:.1f} s")
                print(summary(name, res, sorts))
    if args.json:
        print(json.dumps({"batches": out, "problems": problems}))
    for p in problems:
        print(f"FAIL {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
