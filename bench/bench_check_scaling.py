"""Benchmark: how `check` (compile) time grows with the input (issue 28 items 8 and 11b).

Input: generated sources, written to a temporary folder.  Output: a table on stdout (``--json``: one JSON
object) of the CPU seconds of ``compile_paths`` (what ``chronoplan check`` runs) for

- ``procedure-1000`` / ``procedure-10000``: one procedure of N steps (a chain, every step ``after`` the one
  before, each fifth with a ``within`` lag) in one scenario - the ratio of the two is the growth for 10x
  the steps (linear: about 10);
- ``map-200x200``: a 200 x 200 kitchen map with 10,000 stations (a table on every other cell of every other
  row) and a scenario with one agent on it (the reachability of every station is checked);
- ``scenarios-SxPxN``: S scenarios each naming P procedures of N steps (``--scenarios``, default 200 x 50 x
  1,000 as in the issue): each procedure is evaluated once however many scenarios name it, so this is
  mostly the time to read the 50,000 steps;
- ``observe-3-deep`` / ``observe-3-deep-joined``: grading (``grade_log``) the baseline's episode log of the
  first bundled household scenario when the home has one more observe rule with ``exists`` nested 3 deep and
  every conjunct in the innermost body (issue 28 item 11b), each conjunct reading at most two variables /
  the body joining all four; compiling is not timed.  The same shape 4 deep is refused by ``check`` (C111: over
  the observe rules' bound of relation calls per step, compiler/household/observe_rules.py).

Usage: python bench/bench_check_scaling.py [--rounds N] [--only NAME] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path


def procedure_source(n: int, procedures: int = 1, scenarios: int = 1) -> str:
    """``procedures`` procedures P0.. of ``n`` chained steps; ``scenarios`` scenarios naming all of them."""
    out = []
    for p in range(procedures):
        out.append(f"procedure P{p} {{")
        for i in range(n):
            opts = f" after {i - 1}" if i else ""
            if i % 5 == 4:
                opts += f" within 5 min of {i - 1}"
            out.append(f'  step {i} "Do thing {i}." {1 + i % 7} min{opts}')
        out.append("}")
    names = ", ".join(f"P{p}" for p in range(procedures))
    out += [f"scenario s{k} {{ unit min procedures {names} }}" for k in range(scenarios)]
    return "\n".join(out) + "\n"


def map_source(size: int = 200) -> str:
    """A ``size`` x ``size`` kitchen map with a table on every other cell of every other row (size^2 / 4
    stations: 10,000 for 200) and one agent on the floor."""
    rows = []
    for y in range(size):
        rows.append("  " + ("t." * (size // 2) if y % 2 == 0 else "." * size))
    return ('domain paracook\nimport "paracook/physics.chrono"\nmap big """\n' + "\n".join(rows)
            + '\n""" where t = table\n'
            + "scenario big_s { map big  agents a1 at (1, 1)  orders burger_basic }\n")


DEEP_RULES = {
    # every conjunct in the innermost body; each reads at most two of the variables (issue 28 item 11b)
    "observe-3-deep": "on(z, p) and not closed(p) and same_room(y, z) and same_room(x, y) and same_room(self, x)",
    # the innermost body joins all four variables: moving conjuncts out and remembering cannot help
    "observe-3-deep-joined": "on(z, p) and on(y, p) and on(x, p) and not is(x, y) and not is(y, z) and not is(x, z)",
}


def deep_rule(body: str) -> str:
    return f"    see x: thing when exists(y: thing where exists(z: thing where exists(p: place where {body})))\n"


def observe_deep(tmp: Path, rounds: int, rule: str) -> tuple[float, int]:
    """(best CPU seconds to grade one baseline log with ``rule`` added to the bundled home, its steps)."""
    import chronoplan
    from chronoplan.compiler.household.problem import HouseholdProblem
    from chronoplan.runtime.household.baseline import Baseline
    from chronoplan.runtime.household.engine import HouseholdEngine
    from chronoplan.validators.household.grade import grade_log
    src = Path(__file__).resolve().parent.parent / "domains" / "household"
    home = (src / "home.chrono").read_text(encoding="utf-8")
    assert "  observe {\n" in home
    (tmp / "home.chrono").write_text(home.replace("  observe {\n", "  observe {\n" + rule), encoding="utf-8")
    (tmp / "episodes.chrono").write_text((src / "episodes.chrono").read_text(encoding="utf-8"), encoding="utf-8")
    project = chronoplan.load(tmp)
    name = next(n for n, sc in project.scenarios.items() if sc.household)
    engine = HouseholdEngine(HouseholdProblem(project, name), log=True)
    policy = Baseline(engine)
    while not engine.done:
        engine.step(policy.actions())
    assert engine.log is not None
    text, steps = engine.log.text(), len(engine.log.records) - 1
    best = float("inf")
    for _ in range(rounds):
        t = time.process_time()
        report = grade_log(project, name, text)
        best = min(best, time.process_time() - t)
        assert report.valid, report.errors[:1]
    return best, steps


def _time(path: Path, rounds: int) -> tuple[float, int]:
    from chronoplan.compiler.driver import compile_paths
    best, errors = float("inf"), 0
    for _ in range(rounds):
        t = time.process_time()
        _project, diags, _ = compile_paths(path)
        best = min(best, time.process_time() - t)
        errors = sum(d.is_error for d in diags)
    return best, errors


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", help="run only the cases whose name starts with this")
    ap.add_argument("--scenarios", default="200x50x1000", help="SxPxN for the scenario-instantiation case")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    s, p, n = (int(x) for x in args.scenarios.split("x"))
    cases = {"procedure-1000": lambda: procedure_source(1000),
             "procedure-10000": lambda: procedure_source(10000),
             "map-200x200": lambda: map_source(200),
             f"scenarios-{s}x{p}x{n}": lambda: procedure_source(n, p, s)}
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in cases.items():
            if args.only and not name.startswith(args.only):
                continue
            path = Path(tmp) / f"{name}.chrono"
            path.write_text(make(), encoding="utf-8")
            secs, errors = _time(path, args.rounds)
            results[name] = {"cpu_s": round(secs, 3), "errors": errors}
        for name, body in DEEP_RULES.items():
            if args.only and not name.startswith(args.only):
                continue
            deep = Path(tmp) / name
            deep.mkdir()
            secs, steps = observe_deep(deep, args.rounds, deep_rule(body))
            results[name] = {"cpu_s": round(secs, 3), "errors": 0, "log_steps": steps}
    if "procedure-1000" in results and "procedure-10000" in results:
        results["ratio_10x_steps"] = round(results["procedure-10000"]["cpu_s"] / results["procedure-1000"]["cpu_s"], 2)
    if args.json:
        json.dump(results, sys.stdout)
        print()
        return 0
    print(f"{'case':28} {'cpu s (best)':>12} {'errors':>6}")
    for name, r in results.items():
        if isinstance(r, dict):
            print(f"{name:28} {r['cpu_s']:12.3f} {r['errors']:6d}")
    if "ratio_10x_steps" in results:
        print(f"10,000 / 1,000 steps: {results['ratio_10x_steps']}x (linear: about 10x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
