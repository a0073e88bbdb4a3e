"""``chronoplan solve FILE [--scenario S] [--planner NAME] [--timeout SEC] [-o PLAN] [--format text|json]
[--compat NAME]``.

Input: a .chrono file or directory and a scenario.  Output: a reference plan from the chosen planner,
replayed through the validator (``validators.grade``); on stdout a summary (text) or one JSON object
{"planner", "status", "makespan", "bound", "valid", "seconds"} (--format json); with -o the plan as
schedule JSON (astar: the household optimum's JSON; a tool-use scenario: a tool plan in the tools format).
``PLANNERS`` names every planner: cpsat and astar
(``validators.household.solve``) have their own ``module:function`` entry point taking
``(project, scenario_name, timeout, workers)``; a PDDL planner runs on the export of the scenario's family,
through the family registry's ``Family.pddl_solve`` (``validators.families``: ``runtime.planners.external.
solve_procedures`` or ``runtime.kitchen.solve.solve_kitchen``, taking ``(project, scenario_name, planner,
timeout)``); both return a ``runtime.planners.cpsat.Result``-like object (status, makespan, bound, seconds, message,
``plan_json(scenario)``); modules load only when used.  Which planners solve a scenario is its family's
``planners``.
Exit status: 0 a valid plan was produced, 1 no plan (unsolvable, timeout, error) or an invalid plan,
2 usage or compile error (including --timeout outside 0.01..86400 s or not finite, and an -o path that is
an input, a directory, too long or in a missing directory: checked before solving), unknown planner, or
a planner whose optional dependency is missing; 130/143 after SIGINT/SIGTERM (``chronoplan.cli``), with
every planner process killed and every temporary directory removed (``runtime.planners.external``).  The plan is
written atomically (``commands.output.write_atomic``).
``--compat recipe2plan`` (cpsat only) adds the original Recipe2Plan evaluator's rules to the model
(``runtime.planners.cpsat``) and grades the plan with them (``validators.grade.Grader(project, compat)``: ``valid``
is that verdict); a mode refused, of another family than the scenario's (``commands.validate``'s checks),
with another planner, or for a scenario the original cannot hold (``validators.compat.recipe2plan.model_for``:
two agents, a time limit...) is a usage error (exit 2).
"""
from __future__ import annotations

import importlib
import json
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

MIN_TIMEOUT = 0.01               # seconds (a shorter limit cannot even start a solver)
MAX_TIMEOUT = 86400.0            # 24 h; runtime.planners.cpsat caps its own limit at the same value
MAX_WORKERS = 256


@dataclass(frozen=True)
class Planner:
    help: str
    extra: str                   # the pip extra that provides its dependencies ("": none, it always ships)
    entry: Optional[str] = None  # "module:function" (project, scenario, timeout, workers, **extra) -> Result;
    #                              None: a PDDL planner, run by the scenario family's ``pddl_solve``


PLANNERS = {
    "cpsat": Planner("makespan-optimal schedules of step-level scenarios with OR-tools CP-SAT", "optimal",
                     "chronoplan.runtime.planners.cpsat:solve_scenario"),
    # PDDL planners through unified-planning (runtime/planners/external.py ENGINES, docs/planners.md)
    "aries": Planner("temporal PDDL export, aries", "planners"),
    "kairos": Planner("temporal PDDL export, kairos", "planners"),
    "lpg": Planner("temporal PDDL export, LPG-td", "planners"),
    "fast-downward": Planner("classical PDDL export, Fast Downward, sequence rescheduled", "planners"),
    "pyperplan": Planner("classical PDDL export, pyperplan, sequence rescheduled", "planners"),
    # households (issue #13): the omniscient optimum by A* over joint decision states, proven when the search closes
    "astar": Planner("omniscient optimum of household episodes (A*, or trip decomposition for transport; proven)", "",
                     "chronoplan.validators.household.solve:solve_astar"),
}


def configure(p) -> None:
    p.add_argument("file", metavar="FILE", help=".chrono file or directory")
    p.add_argument("--scenario", "-s", help="scenario to solve (default: the only one)")
    p.add_argument("--planner", default=None, metavar="NAME",
                   help="default: the first of the scenario family's planners (cpsat for step-level scenarios, "
                        "kairos for kitchens, fast-downward for tool-use scenarios, astar for households); one of: "
                        + ", ".join(f"{k} ({v.help})" for k, v in PLANNERS.items()))
    p.add_argument("--timeout", type=float, default=60.0, metavar="SEC", help="time limit (default 60 s)")
    p.add_argument("--workers", type=int, default=2, help="solver threads (default 2)")
    p.add_argument("-o", "--output", metavar="PLAN", help="write the plan (schedule JSON) to this file")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    p.add_argument("--compat", type=_compat, default=None, metavar="NAME",
                   help="solve and grade under a benchmark's original evaluator's rules: recipe2plan (cpsat only; "
                        "docs/benchmarks/recipe2plan.md)")


def _compat(text: str):
    from chronoplan.commands.validate import _compat as parse  # the same names and messages as validate
    return parse(text)


def _compat_problem(project, mode, scenario: str, planner: str) -> Optional[str]:
    """Why ``--compat`` cannot be used to solve ``scenario`` with ``planner`` (None when it can)."""
    if mode is None:
        return None
    from chronoplan.commands.validate import _compat_problem as family_problem
    why = family_problem(project, mode, scenario)
    if why is not None:
        return why
    from chronoplan.runtime.planners.cpsat import COMPAT_RULES
    if mode.cli_name not in COMPAT_RULES:
        return (f"--compat {mode.cli_name}: no planner models that benchmark's original rules (cpsat models "
                f"--compat {', '.join(COMPAT_RULES)}); solve without --compat and grade the plan with "
                f"`chronoplan validate ... --compat {mode.cli_name}`")
    if planner != "cpsat":
        return (f"--compat {mode.cli_name}: only the cpsat planner models the original rules; grade another "
                f"planner's plan with `chronoplan validate ... --compat {mode.cli_name}`")
    return None


def _unrepresentable(grader, scenario: str) -> Optional[str]:
    """Why the original evaluator cannot hold ``scenario`` (2 agents, a time limit...), or None (also when
    it cannot be instantiated at all: the planner reports that, status "error")."""
    from chronoplan.compiler.instantiate import InstantiationError
    try:
        model = grader.model(scenario)
    except InstantiationError:
        return None
    return str(model) if isinstance(model, Exception) else None


def timeout_problem(x: float) -> Optional[str]:
    """Why ``--timeout x`` is refused (not a finite number of seconds in MIN_TIMEOUT..MAX_TIMEOUT), or None."""
    if not math.isfinite(x):
        return f"--timeout must be a finite number of seconds, not {x}"
    if not MIN_TIMEOUT <= x <= MAX_TIMEOUT:
        return (f"--timeout must be between {MIN_TIMEOUT:g} and {MAX_TIMEOUT:g} seconds (24 h), "
                f"not {x:g}")
    return None


def _error(msg: str) -> int:
    print(f"chronoplan solve: error: {msg}", file=sys.stderr)
    return 2


def _load_planner(name: str, fam) -> Callable:
    """Planner ``name`` on a scenario of family ``fam`` (which lists it): a callable ``(project, scenario,
    timeout, workers, **extra)``; RuntimeError when its optional dependencies are missing."""
    spec = PLANNERS[name]
    if spec.entry is not None:
        route = spec.entry
    else:
        assert fam.pddl_solve is not None, "a family listing a PDDL planner names its pddl_solve (test_families)"
        route = fam.pddl_solve.target
    module_name, _, function = route.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise RuntimeError(f"the {name} planner is not available ({exc})"
                           + (f"; pip install 'chronoplan[{spec.extra}]'" if spec.extra else "")) from None
    solve = getattr(module, function)
    if spec.entry is not None:
        return solve
    return lambda project, scenario, timeout, workers: solve(project, scenario, name, timeout)


def run(args) -> int:  # noqa: C901
    from chronoplan.commands.common import load_project
    if args.planner is not None and args.planner not in PLANNERS:
        return _error(f"unknown planner {args.planner!r} (choose from {', '.join(PLANNERS)})")
    why = timeout_problem(args.timeout)
    if why is not None:
        return _error(why)
    if not 1 <= args.workers <= MAX_WORKERS:
        return _error(f"--workers must be between 1 and {MAX_WORKERS}")
    if args.output is not None:
        from chronoplan.commands.output import input_files, output_problem
        why = output_problem(args.output, input_files([args.file]), create_parents=True)
        if why is not None:
            return _error(f"-o: {why}")
    project = load_project([args.file])
    if project is None:
        return _error(f"{args.file} does not compile")
    if args.scenario is None and len(project.scenarios) != 1:
        names = list(project.scenarios)
        shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
        return _error(f"{args.file} has {len(names)} scenarios; choose one with --scenario ({shown})")
    if args.scenario is not None and args.scenario not in project.scenarios:
        return _error(f"no scenario named {args.scenario!r} in {args.file}")
    scen = project.scenario(args.scenario)
    scenario = scen.name
    from chronoplan.validators.families import family_of
    fam = family_of(scen)
    if args.planner is None:
        if not fam.planners:
            return _error(f"scenario {scenario}: {fam.lacks('planner')}")
        args.planner = fam.planners[0]
    compat = getattr(args, "compat", None)
    why = _compat_problem(project, compat, scenario, args.planner)
    if why is not None:
        return _error(why)
    grader = None
    if compat is not None:
        from chronoplan.validators.grade import Grader
        grader = Grader(project, compat)
        why = _unrepresentable(grader, scenario)
        if why is not None:
            return _error(f"--compat {compat.cli_name} cannot grade scenario {scenario}: {why}")
    if args.planner not in fam.planners:
        what = f"planner {args.planner}" if fam.planners else "planner"
        if args.format == "json":          # the report object of the CLI contract, status "error"
            print(json.dumps({"planner": args.planner, "status": "error", "makespan": None, "bound": None,
                              "valid": None, "seconds": 0.0}))
        return _error(f"scenario {scenario}: {fam.lacks(what)}"
                      + (f" (planners for {fam.label} scenarios: {', '.join(fam.planners)})" if fam.planners else ""))
    try:
        solve = _load_planner(args.planner, fam)
    except RuntimeError as exc:
        return _error(str(exc))
    from chronoplan.runtime.planners.cpsat import SolverUnavailable
    from chronoplan.runtime.planners.external import PlannerUnavailable
    extra = {} if compat is None else {"compat": compat}
    try:
        result = solve(project, scenario, args.timeout, args.workers, **extra)
    except (SolverUnavailable, PlannerUnavailable) as exc:
        return _error(str(exc))
    plan = result.plan_json(scenario) if result.status in ("optimal", "feasible") else None
    valid, report = None, None
    if plan is not None:
        if getattr(result, "report", None) is not None:      # a planner that checks its own plan (astar)
            report = result.report
        elif grader is None:
            from chronoplan.validators.grade import grade
            report = grade(project, scenario, plan, name=args.output or "<solution>")
        else:
            report = grader.grade(scenario, plan, name=args.output or "<solution>")
        valid = bool(report.valid)
        if args.output:
            from chronoplan.commands.output import write_atomic
            try:
                write_atomic(args.output, json.dumps(plan, indent=1) + "\n")
            except OSError as exc:
                return _error(f"cannot write {args.output}: {exc.strerror or exc}")
    from chronoplan.validators.report import json_number
    out = {"planner": args.planner, "status": result.status, "makespan": json_number(result.makespan),
           "bound": json_number(result.bound), "valid": valid, "seconds": round(result.seconds, 3)}
    static = None if report is None else report.metrics.get("lower_bound")
    if static is not None:             # the static bound the report (and ``validate``) gives: step-level scenarios
        out["lower_bound"] = json_number(static)
    if args.format == "json":
        print(json.dumps(out))
    else:
        _print_text(scenario, out, result, plan, report, compat)
    if result.message and args.format == "json":
        print(f"chronoplan solve: note: {result.message}", file=sys.stderr)
    return 0 if valid else 1


def _print_text(scenario: str, out: dict, result, plan, report, compat=None) -> None:
    head = f"{scenario}: {out['status']}" + (f" under --compat {compat.cli_name}" if compat is not None else "")
    if out["makespan"] is not None:
        head += f", makespan {out['makespan']}"
    if out["bound"] is not None:
        static = out.get("lower_bound")
        head += f" (lower bound {out['bound']}" + ("" if static is None or static == out["bound"] else
                                                   f"; static bound {static}, the report's lower_bound") + ")"
    if out["valid"] is not None:
        head += ", valid" if out["valid"] else ", INVALID"
    print(f"{head} [{out['planner']}, {out['seconds']:.2f} s]")
    if result.message:
        print(f"  note: {result.message}")
    if plan is not None:
        for line in _plan_lines(plan):
            print(line)
    if report is not None and not report.valid:
        print(report.to_text())


def _plan_lines(plan: dict) -> list[str]:
    """The lines ``solve`` prints for a found plan, in its family's shape."""
    out = []
    if "actions" in plan:                                       # a household: per-agent (start step, action)
        out.append(f"  {'proven optimal' if plan['proven'] else 'not proven optimal'}: {plan['steps']} steps, "
                   "every placement known (omniscient)")
        for agent, acts in plan["actions"].items():
            out.append(f"  {agent}: " + ", ".join(f"{t}: {text}" for t, text in acts))
    elif isinstance(plan.get("plan"), list):                    # a world: one action per step
        out += [f"  {i}. {step}" for i, step in enumerate(plan["plan"], 1)]
    elif "plan" in plan:                                        # a kitchen: per-agent ParaCook actions
        for agent, acts in plan["plan"].items():
            out.append(f"  {agent}: " + ", ".join(_kitchen_action(a) for a in acts))
    elif "steps" in plan:                                       # a tool plan: one call per step
        for st in plan["steps"]:
            args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in st["args"].items())
            after = f" after {', '.join(map(str, st['after']))}" if st["after"] else ""
            out.append(f"  {st['id']}: {st['tool']}({args}){after}")
    else:
        for e in plan["schedule"]:
            who = f"  {e['agent']}" if e.get("agent") else ""
            out.append(f"  {e['start']:>8}  {e['task']} step {e['step']} for {e['duration']}{who}")
    return out


def _kitchen_action(a: dict) -> str:
    args = [str(v) for k, v in a.items() if k != "action"]
    return f"{a['action']}({', '.join(args)})" if args else a["action"]
