"""Benchmark: compile time of the bundled domains.

Input: domains/ (every bundled domain).  Output: a table of cold (first, grammar construction included) and
warm compile times, printed; run ``python bench/bench_compile.py [--repeat N]``.
Also the pytest-benchmark test tests/test_bench_compile.py measures the same thing under pytest.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()
    t0 = time.perf_counter()
    from chronoplan import compile_paths
    from chronoplan.compiler.driver import compile_paths as _warm  # noqa: F401  (imports sympy, networkx)
    from chronoplan.compiler.parse import parser
    t_import = time.perf_counter() - t0
    parser()
    t_grammar = time.perf_counter() - t0 - t_import
    rows = []
    for target in [ROOT / "domains"] + sorted(p for p in (ROOT / "domains").iterdir() if p.is_dir()):
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            project, diags, _ = compile_paths(target)
            times.append(time.perf_counter() - t)
        errors = sum(d.is_error for d in diags)
        rows.append((target.relative_to(ROOT), len(project.scenarios) if project else 0, errors,
                     statistics.median(times), min(times)))
    print(f"imports (once per process): {t_import * 1000:.0f} ms; "
          f"grammar tables (cached by lark): {t_grammar * 1000:.0f} ms")
    print(f"{'target':30} {'scenarios':>9} {'errors':>6} {'median ms':>10} {'min ms':>8}")
    for name, n, e, med, mn in rows:
        print(f"{str(name):30} {n:9d} {e:6d} {med * 1000:10.1f} {mn * 1000:8.1f}")


if __name__ == "__main__":
    main()
