"""Subprocess side of ``runtime.planners.external``: run one unified-planning engine on PDDL files.

Usage: ``python -m chronoplan.runtime.planners.worker ENGINE DOMAIN PROBLEM --timeout SEC --out JSON
[--params JSON]``, or
``... ENGINE --batch JOBS --timeout SEC`` (JOBS: a JSON list of {"domain", "problem", "out"}; each job gets
SEC seconds and its answer is written as soon as it is known).
Input: PDDL domain and problem files (read with unified-planning's PDDLReader) and an engine name
(``aries``, ``kairos``, ``lpg``, ``fast-downward``, ``pyperplan``).  Output: one JSON object written to
``--out``: {"status": solved|unsolvable|timeout|error, "engine", "actions": [[start, name, [args],
duration|null], ...] (times as exact "p/q" strings), "message", "read_seconds", "solve_seconds"}.
This process is started in its own session by ``runtime.planners.external``, which kills the whole process group
afterwards (engines start helper processes, e.g. aries' ``serve``).

Engine quirks handled here: kairos must be registered (``up_kairos.register()``) and runs anytime unless
``anytime`` is False; up-lpg's plan reader rejects LPG's ``[d])`` lines, so LPG plans are read with a
tolerant parser, and its seed is fixed (1) for reproducible runs; pyperplan supports no action costs, so the
cost metric is dropped for it.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from typing import Any, Optional

from chronoplan.compiler.pddl.plan import parse_plan

# engine options a caller may set (runtime.planners.external.run_worker(params=...)); anything else is ignored
OPTIONS = {"kairos": ("search",), "fast-downward": ("fast_downward_search_config",)}
UP_NAMES = {"aries": "aries", "kairos": "kairos", "lpg": "lpg", "fast-downward": "fast-downward",
            "pyperplan": "pyperplan"}


def _frac(x) -> str:
    """An engine's exact time (a unified-planning ``Fraction`` or int) as "p/q" text for the JSON answer.  Not
    ``numparse.exact`` on purpose: it encodes a trusted exact value for the wire (``runtime.planners.external`` reads it
    back with ``Fraction``); it reads no untrusted input, and the worker imports as little as it can."""
    f = Fraction(x)
    return f"{f.numerator}/{f.denominator}"


def _lpg_engine():
    """up-lpg's engine with a plan reader that accepts ``t: (a x) [d])`` lines."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from up_lpg.lpg_planner import LPGEngine
    import unified_planning as up


    class TolerantLPG(LPGEngine):
        def _plan_from_file(self, problem, plan_filename, get_item_named):
            with open(plan_filename, encoding="utf-8", errors="replace") as f:
                text = f.read()
            if "no solution" in text.lower():
                return None
            em = problem.environment.expression_manager
            acts = []
            for a in parse_plan(text):
                action = get_item_named(a.name)
                params = tuple(em.ObjectExp(get_item_named(x)) for x in a.args)
                inst = up.plans.ActionInstance(action, params)
                acts.append((a.start, inst, a.duration))
            if "CONTINUOUS_TIME" in problem.kind.features:
                return up.plans.TimeTriggeredPlan(acts)
            return up.plans.SequentialPlan([x[1] for x in acts])

    return TolerantLPG(**{"-seed": "1"})      # LPG draws a random seed otherwise


def _actions(plan) -> list:
    from unified_planning.plans import SequentialPlan, TimeTriggeredPlan
    out = []
    if isinstance(plan, TimeTriggeredPlan):
        for start, ai, dur in plan.timed_actions:
            out.append([_frac(start), ai.action.name, [str(p) for p in ai.actual_parameters],
                        None if dur is None else _frac(dur)])
    elif isinstance(plan, SequentialPlan):
        for i, ai in enumerate(plan.actions):
            out.append([_frac(i), ai.action.name, [str(p) for p in ai.actual_parameters], None])
    else:
        raise TypeError(f"unexpected plan kind {type(plan).__name__}")
    return out


def solve(engine: str, domain: str, problem: str, timeout: float, options: Optional[dict] = None) -> dict:
    t0 = time.perf_counter()
    import warnings
    warnings.simplefilter("ignore")
    import unified_planning.shortcuts as up
    from unified_planning.engines import PlanGenerationResultStatus as S
    from unified_planning.io import PDDLReader
    env = up.get_environment()
    env.credits_stream = None
    prob = PDDLReader(env).parse_problem(domain, problem)
    read = time.perf_counter() - t0
    params: dict = {k: v for k, v in (options or {}).items() if k in OPTIONS.get(engine, ())}
    if engine == "kairos":
        import up_kairos
        up_kairos.register(env)
        params = {"anytime": False, **params}
    if engine == "pyperplan":
        prob.clear_quality_metrics()
    left = timeout - (time.perf_counter() - t0)
    if left <= 0:                        # the limit covers reading the problem too: no engine run after it
        return {"status": "timeout", "engine": engine, "actions": [], "read_seconds": round(read, 3),
                "solve_seconds": 0.0, "message": f"{engine}: the time limit passed while reading the problem"}
    t1 = time.perf_counter()
    if engine == "lpg":
        planner = _lpg_engine()
        planner.skip_checks = True       # LPG-td reads timed initial literals; up-lpg does not declare them
    else:
        planner = up.OneshotPlanner(name=UP_NAMES[engine], params=params) if params else \
            up.OneshotPlanner(name=UP_NAMES[engine])
    with planner:
        res = planner.solve(prob, timeout=left)
    solved = time.perf_counter() - t1
    status = {S.SOLVED_SATISFICING: "solved", S.SOLVED_OPTIMALLY: "solved",
              S.UNSOLVABLE_PROVEN: "unsolvable", S.UNSOLVABLE_INCOMPLETELY: "unsolvable",
              S.TIMEOUT: "timeout"}.get(res.status, "error")
    out: dict[str, Any] = {"status": status, "engine": engine, "actions": [], "message": "" if status != "error" else
           f"{engine}: {res.status.name}", "read_seconds": round(read, 3), "solve_seconds": round(solved, 3)}
    if res.plan is not None and status == "solved":
        out["actions"] = _actions(res.plan)
    elif status == "solved":
        out["status"], out["message"] = "error", f"{engine} reported success without a plan"
    logs = [str(m.message) for m in (res.log_messages or [])][-3:]
    if status == "error" and logs:
        out["message"] += ": " + " | ".join(x.strip()[:300] for x in logs)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="planners.worker")
    ap.add_argument("engine", choices=sorted(UP_NAMES))
    ap.add_argument("domain", nargs="?")
    ap.add_argument("problem", nargs="?")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--out")
    ap.add_argument("--batch")
    ap.add_argument("--params", help="engine options as a JSON object (see OPTIONS)")
    args = ap.parse_args(argv)
    if args.batch:
        with open(args.batch, encoding="utf-8") as f:
            jobs = json.load(f)
    elif args.domain and args.problem and args.out:
        jobs = [{"domain": args.domain, "problem": args.problem, "out": args.out}]
    else:
        ap.error("give DOMAIN PROBLEM --out JSON, or --batch JOBS")
    for job in jobs:
        try:
            out = solve(args.engine, job["domain"], job["problem"], args.timeout,
                        json.loads(args.params) if args.params else None)
        except Exception as exc:            # report, never hang: the parent reads this file
            out = {"status": "error", "engine": args.engine, "actions": [],
                   "message": f"{type(exc).__name__}: {str(exc)[:500]}"}
        with open(job["out"], "w", encoding="utf-8") as f:
            json.dump(out, f)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
