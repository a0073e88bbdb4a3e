"""Benchmark the PDDL planners against the CP-SAT optimum on every bundled step-level scenario.

Input: the bundled domains (or ``--path``), planner names, a time limit per run.  Output: a JSON file of
every run (``--json``) and the results section of docs/planners.md (``--markdown``): per planner and
scenario group, solved (a plan the simulator accepts) / total, median wall time, median engine time,
mean and worst gap to the CP-SAT optimum, plus one table per planner with every scenario.

    python bench/bench_planners.py --timeout 60 --json bench/planners.json --markdown docs/planners.md

Runs are sequential (one planner process at a time) so that times are comparable; ``--resume`` reuses
the runs already in the JSON file.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLANNERS = ["aries", "kairos", "lpg", "fast-downward", "pyperplan"]


def group_of(project, scen) -> str:
    dom = project.part(scen.name).domain or "?"
    n = len(scen.procedures)
    if dom == "timearena":
        first = scen.procedures[0].rstrip("0123456789")
        size = {1: "single", 2: "pair", 3: "triple"}.get(n, f"{n} tasks")
        return f"timearena {first} {size}" + (" constrained" if "constrained" in scen.name else "")
    return f"{dom} ({n} task{'s' * (n > 1)}, {len(scen.agents) or 1} agent{'s' * (len(scen.agents) > 1)})"


def run(args) -> dict:
    import chronoplan
    from chronoplan.compiler.instantiate import procedure_problem
    from chronoplan.compiler.pddl.plan import to_pddl_plan
    from chronoplan.compiler.pddl.temporal import export_temporal
    from chronoplan.runtime.planners.cpsat import solve_cpsat
    from chronoplan.runtime.planners.external import ENGINES, missing, run_val, solve_problem, validate_binary
    from chronoplan.runtime.procedure.sim import Chunk, simulate
    from chronoplan.validators.families import export_scenario
    proj, diags, _ = chronoplan.compile_paths(*args.path)
    if proj is None:
        sys.exit("the domains do not compile")
    scens = [s for s in proj.scenarios.values() if s.procedures and re.search(args.filter, s.name)]
    data = {"timeout": args.timeout, "runs": {}, "optimum": {}, "groups": {}}
    if args.resume and Path(args.json).exists():
        data.update(json.loads(Path(args.json).read_text()))
    planners = [p for p in args.planners.split(",") if p]
    for p in planners:
        if missing(p):
            sys.exit(missing(p))
    for k, scen in enumerate(scens):
        problem = procedure_problem(proj.part(scen.name), scen)
        data["groups"][scen.name] = group_of(proj, scen)
        if scen.name not in data["optimum"]:
            r = solve_cpsat(problem, 60, 2)
            data["optimum"][scen.name] = {"status": r.status, "makespan": _num(r.makespan),
                                          "seconds": round(r.seconds, 3)}
        for p in planners:
            key = f"{p}|{scen.name}"
            if key in data["runs"]:
                continue
            t0 = time.perf_counter()
            r = solve_problem(problem, p, args.timeout, proj.part(scen.name))
            wall = time.perf_counter() - t0
            valid = val_raw = val_final = None
            if r.schedule:
                res = simulate(problem, [Chunk(i, e.task, e.step, e.start, e.duration, e.agent)
                                         for i, e in enumerate(r.schedule)])
                valid = not res.violations
                if validate_binary() is not None:
                    full = export_scenario(proj, scen.name)
                    if ENGINES[p].temporal:      # the planner's own plan, on the export it was given
                        given = export_temporal(problem, proj.part(scen.name), envelopes=ENGINES[p].envelopes)
                        val_raw = run_val(given.domain_text(), given.problem_text(), r.stats["pddl_plan"],
                                          Fraction(1, 1000)).valid
                    text, tol = to_pddl_plan(full, r.schedule)      # the final schedule, full export
                    val_final = run_val(full.domain_text(), full.problem_text(), text, tol).valid
            data["runs"][key] = {"status": r.status, "valid": valid, "val_raw": val_raw, "val_final": val_final,
                                 "makespan": _num(r.makespan),
                                 "pddl_makespan": _num(r.stats.get("pddl_makespan")),
                                 "seconds": round(wall, 3), "engine_seconds": r.stats.get("solve_seconds"),
                                 "times": r.stats.get("times"), "message": r.message[:200]}
            print(f"[{k + 1}/{len(scens)}] {scen.name} {p}: {r.status} {valid} {_num(r.makespan)} "
                  f"(opt {data['optimum'][scen.name]['makespan']}) {wall:.1f}s", flush=True)
            if args.json:
                Path(args.json).write_text(json.dumps(data, indent=1, sort_keys=True))
    return data


def _num(x):
    if x is None:
        return None
    x = Fraction(x)
    return x.numerator if x.denominator == 1 else float(x)


def _gap(ms, opt):
    if ms is None or not opt:
        return None
    return (ms - opt) / opt


def markdown(data: dict, planners: list) -> str:
    runs, opt, groups = data["runs"], data["optimum"], data["groups"]
    scens = sorted(groups, key=lambda s: (groups[s], s))
    order = []
    for s in scens:
        if groups[s] not in order:
            order.append(groups[s])
    out = [f"Time limit {data['timeout']:g} s per run; 2 cores shared; wall time includes starting the "
           "worker process and reading the PDDL (about 2-3 s); engine time is the planner alone.  Solved = a "
           "plan that the simulator accepts.  VAL accepts = VAL accepts the planner's own PDDL plan (on the "
           "export it was given; temporal planners) and the final schedule's PDDL plan on the full temporal "
           "export.  Gap = (makespan - CP-SAT optimum) / optimum, over solved scenarios.", ""]
    out += ["| planner | group | solved | VAL accepts | median wall s | median engine s | mean gap | worst gap |",
            "|---|---|---|---|---|---|---|---|"]
    for p in planners:
        for g in order + ["all"]:
            ss = [s for s in scens if (g == "all" or groups[s] == g) and f"{p}|{s}" in runs]
            if not ss:
                continue
            rs = [runs[f"{p}|{s}"] for s in ss]
            ok = [(s, r) for s, r in zip(ss, rs) if r["valid"]]
            gaps = [_gap(r["makespan"], opt[s]["makespan"]) for s, r in ok]
            gaps = [x for x in gaps if x is not None]
            wall = statistics.median(r["seconds"] for r in rs)
            eng = [r["engine_seconds"] for r in rs if r["engine_seconds"] is not None]
            name = f"**{g}**" if g == "all" else g
            vals = [r for r in rs if r.get("val_final") is not None]
            vok = sum(1 for r in vals if r["val_final"] and r.get("val_raw") in (None, True))
            out.append(f"| {p} | {name} | {len(ok)}/{len(rs)} | {vok}/{len(vals)} | {wall:.1f} | "
                       f"{statistics.median(eng) if eng else float('nan'):.2f} | "
                       f"{_pct(statistics.mean(gaps)) if gaps else '-'} | {_pct(max(gaps)) if gaps else '-'} |")
    for p in planners:
        rows = [s for s in scens if f"{p}|{s}" in runs]
        if not rows:
            continue
        out += ["", f"<details><summary>{p}: every scenario</summary>", "",
                "| scenario | status | valid | makespan | optimum | gap | wall s |", "|---|---|---|---|---|---|---|"]
        for s in rows:
            r = runs[f"{p}|{s}"]
            g = _gap(r["makespan"], opt[s]["makespan"]) if r["valid"] else None
            out.append(f"| {s} | {r['status']} | {'yes' if r['valid'] else 'no' if r['valid'] is False else '-'} "
                       f"| {r['makespan'] if r['makespan'] is not None else '-'} | {opt[s]['makespan']} | "
                       f"{_pct(g) if g is not None else '-'} | {r['seconds']:.1f} |")
        out += ["", "</details>"]
    return "\n".join(out)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", nargs="*", default=[str(ROOT / "domains")])
    ap.add_argument("--planners", default=",".join(PLANNERS))
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--filter", default="", help="regular expression on scenario names")
    ap.add_argument("--json", default="", help="write every run here (and resume from it with --resume)")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--only-report", action="store_true", help="with --resume: write the report, run nothing")
    ap.add_argument("--markdown", default="", help="replace the results section of this file")
    ap.add_argument("--section", default="bench", help="the section: <!-- SECTION:begin --> ... :end -->")
    args = ap.parse_args(argv)
    data = run(args) if not (args.resume and args.only_report) else json.loads(Path(args.json).read_text())
    text = markdown(data, [p for p in args.planners.split(",") if p])
    if args.markdown:
        BEGIN, END = f"<!-- {args.section}:begin -->", f"<!-- {args.section}:end -->"
        path = Path(args.markdown)
        doc = path.read_text() if path.exists() else f"{BEGIN}\n{END}\n"
        if BEGIN not in doc:
            doc += f"\n{BEGIN}\n{END}\n"
        head, rest = doc.split(BEGIN, 1)
        tail = rest.split(END, 1)[1] if END in rest else "\n"
        path.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
