"""Benchmark the PDDL planners on ParaCook-style kitchens of 1-2 orders with 1-2 agents.

Input: the bundled generated kitchens (domains/paracook/generated, seed 42: six recipe categories), planner
names, a time limit per run.  Output: one line per run on stdout, a JSON file of every run (``--json``)
and a Markdown table (``--markdown FILE`` prints it into FILE between the markers
``<!-- kitchen-planners -->`` and ``<!-- /kitchen-planners -->``): per planner, solved (a plan the
simulator accepts) / runs, median wall time, and the simulator's OCT of its plan against the OCT of the
scripted reference planner (``runtime/kitchen/scripted.py``, measured in the same run) -- kitchens have no
CP-SAT model, so there is no proven optimum to compare with.

    python bench/bench_kitchen_planners.py --timeout 60 --json bench/kitchen-planners.json \\
        --markdown docs/planners.md [--planners kairos,fast-downward] [--sizes o1_a1,o2_a2]

Runs are sequential (one planner process at a time).
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLANNERS = ["kairos", "aries", "lpg", "fast-downward", "pyperplan"]
SIZES = ["o1_a1", "o1_a2", "o2_a1", "o2_a2"]
CATEGORIES = ["burger", "burrito", "pasta", "salad", "sashimi", "sushi"]


def run(args) -> list:
    import chronoplan
    from chronoplan.runtime.kitchen.scripted import plan as scripted
    from chronoplan.runtime.kitchen.solve import solve_kitchen
    from chronoplan.runtime.kitchen.world import World
    from chronoplan.runtime.planners.external import missing
    from chronoplan.validators.kitchen.grade import grade_grid_plan
    project = chronoplan.load(ROOT / "domains" / "paracook" / "generated")
    rows = []
    for planner in args.planners:
        if missing(planner):
            print(f"{planner}: not installed ({missing(planner)})", file=sys.stderr)
            continue
        for cat in CATEGORIES:
            for size in args.sizes:
                scen = f"{cat}_s42_{size}"
                ref = grade_grid_plan(project, scen, {"plan": scripted(World(project, scen))}).metrics["oct"]
                r = solve_kitchen(project, scen, planner, args.timeout)
                ok = r.status == "feasible"
                row = {"planner": planner, "scenario": scen, "orders": int(size[1]), "agents": int(size[-1]),
                       "status": r.status, "solved": ok, "seconds": round(r.seconds, 2),
                       "oct": None if r.makespan is None else float(r.makespan), "reference_oct": float(ref),
                       "message": r.message[:200]}
                rows.append(row)
                print(json.dumps(row), flush=True)
    return rows


def table(rows: list) -> str:
    out = ["| planner | kitchens | solved | median wall s | OCT / scripted OCT (median, worst) |",
           "|---|---|---|---|---|"]
    for planner in dict.fromkeys(r["planner"] for r in rows):
        for label, pick in (("1 order", lambda r: r["orders"] == 1), ("2 orders", lambda r: r["orders"] == 2)):
            rs = [r for r in rows if r["planner"] == planner and pick(r)]
            if not rs:
                continue
            ok = [r for r in rs if r["solved"]]
            ratios = [r["oct"] / r["reference_oct"] for r in ok if r["reference_oct"]]
            wall = statistics.median(r["seconds"] for r in ok) if ok else None
            ratio = f"{statistics.median(ratios):.2f}, {max(ratios):.2f}" if ratios else "-"
            out.append(f"| {planner} | {label}, 1-2 agents | {len(ok)}/{len(rs)} | "
                       f"{'-' if wall is None else f'{wall:.1f}'} | {ratio} |")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--planners", default=",".join(PLANNERS))
    ap.add_argument("--sizes", default=",".join(SIZES))
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--resume", action="store_true", help="keep the runs already in --json, add the others")
    args = ap.parse_args()
    args.planners = [p for p in args.planners.split(",") if p]
    args.sizes = [s for s in args.sizes.split(",") if s]
    old = json.loads(args.json.read_text()) if args.resume and args.json and args.json.exists() else []
    done = {r["planner"] for r in old}
    args.planners = [p for p in args.planners if p not in done]
    rows = old + run(args)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    text = table(rows)
    print(text)
    if args.markdown:
        doc = args.markdown.read_text()
        new = re.sub(r"<!-- kitchen-planners -->.*<!-- /kitchen-planners -->",
                     lambda m: f"<!-- kitchen-planners -->\n{text}\n<!-- /kitchen-planners -->", doc, flags=re.S)
        if new == doc and "<!-- kitchen-planners -->" not in doc:
            print(f"no <!-- kitchen-planners --> markers in {args.markdown}", file=sys.stderr)
            return 1
        args.markdown.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
