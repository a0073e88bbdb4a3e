"""``chronoplan play`` for household scenarios (issue #13): several agents in a terminal, or the baseline.

Input: a compiled project, a household scenario, the play options (``--syntax cwah|tdw``, ``--seed N``,
``--baseline``, ``--log OUT.jsonl``, ``--json``) and lines from a terminal or a pipe.  A line is one step:
``agent: action`` (the action in either syntax, as listed in the agent's "available actions"), several
agents' actions separated by ``;`` before the next ``agent:`` (``alice: [goexplore] <kitchen> (2); bob:
[gocheck] <fridge> (5)``); an agent not named gives no new action (its running action goes on, or it
waits).  Commands: ``look`` (every agent's observation again), ``help``, ``quit``.
Output: each agent's observation (its status, what it sees and knows, its "available actions" with the
agent's cost in the chosen syntax), after each step what happened to each agent's action; at the end a
summary line (or ``--json``: the episode's metrics).  ``--baseline`` plays the scripted explore-then-deliver
baseline to the end instead, prints its actions step by step and its steps next to the omniscient optimum.
``--log`` writes the episode log (JSON Lines; ``chronoplan validate`` grades it).
Exit status: 0 when every goal was met, 1 otherwise, 2 on usage errors (a scenario that cannot be played,
an unwritable log path).
"""
from __future__ import annotations

import dataclasses
import json
import re
import sys
from typing import Any

from chronoplan.commands.common import command_lines

_PREFIX = re.compile(r"(?:^|;)\s*([A-Za-z_][\w\-]*)\s*:")


def parse_step(line: str, agents: tuple[str, ...]) -> dict[str, str]:
    """A line -> agent -> action text; ``;`` separates agents only before another ``agent:`` (a message may
    hold ``;``).  A line without a prefix is the only agent's (or the first agent's) action."""
    starts = [m for m in _PREFIX.finditer(line) if m.group(1) in agents]
    if not starts:
        return {agents[0]: line.strip()}
    out: dict[str, str] = {}
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(line)
        out[m.group(1)] = line[m.end():end].strip()
    return out


def _observations(engine, out) -> None:
    for a in engine.problem.agents:
        print(f"=== {a}", file=out)
        print(engine.observation(a), file=out)


def _baseline(problem, args, out) -> tuple[int, Any]:
    from chronoplan.validators.household.reference import compare, summary

    c = compare(problem, log=bool(args.log))
    engine = c.baseline
    if not args.json:
        for t, rec in enumerate(engine.log.records[1:] if engine.log else ()):
            acts = {a: x for a, x in rec["actions"].items() if x and x.lower() not in ("[wait]", "wait")}
            if acts:
                print(f"step {t:>3}  " + "; ".join(f"{a}: {x}" for a, x in acts.items()), file=out)
        print(summary(c), file=out)
    return (0 if engine.success else 1), c


def run_household(project, scen, args) -> int:
    from chronoplan.compiler.household.problem import HouseholdError, HouseholdProblem
    from chronoplan.compiler.ir import ActionSyntax
    from chronoplan.runtime.household.engine import HouseholdEngine, Status

    out = sys.stdout
    try:
        if args.syntax is not None:
            scen = dataclasses.replace(scen, syntax=ActionSyntax(args.syntax))
        problem = HouseholdProblem(project, scen, args.seed)
    except (HouseholdError, ValueError) as exc:
        print(f"chronoplan play: error: {exc}", file=sys.stderr)
        return 2
    if args.log:
        from chronoplan.commands.output import input_files, output_problem
        why = output_problem(args.log, input_files(args.paths))
        if why is not None:
            print(f"chronoplan play: error: --log: {why}", file=sys.stderr)
            return 2
    if args.baseline:
        status, c = _baseline(problem, args, out)
        engine = c.baseline
        extra = {"baseline_steps": c.baseline_steps, "optimum_steps": c.optimum_steps, "optimum_proven": c.proven,
                 "ratio": c.ratio}
    else:
        engine = HouseholdEngine(problem, log=bool(args.log))
        _observations(engine, out)
        for line in command_lines(sys.stdin, out, lambda: engine.done):
            low = line.lower()
            if low == "look":
                _observations(engine, out)
                continue
            if low == "help":
                print("One line per step: `agent: action` (as in the agent's available actions), several agents "
                      "separated by `;`, e.g. `alice: [goexplore] <kitchen> (2); bob: [wait]`; an agent not named "
                      "waits (its running action goes on). Commands: look, help, quit.", file=out)
                continue
            given = parse_step(line, problem.agents)
            results = engine.step(given)
            for a, r in results.items():
                if r.status not in (Status.RUNNING, Status.WAITED) or a in given:
                    print(f"{a}: {r.text or '(no action)'}: {r.status.value}. {r.message}", file=out)
            _observations(engine, out)
        status = 0 if engine.success else 1
        extra = {}
    if args.log and engine.log is not None:
        from chronoplan.commands.output import write_atomic
        try:
            write_atomic(args.log, engine.log.text())
        except OSError as exc:
            print(f"chronoplan play: error: cannot write {args.log}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    m = engine.metrics()
    if args.json:
        print(json.dumps({**m, **extra}))
    elif not args.baseline:
        print(f"{'success' if engine.success else 'not finished'}: {m['steps']} steps, transport rate "
              f"{m['transport_rate']['total']:.2f}, {m['messages']} messages ({m['characters']} characters), "
              f"{m['refusals']} refused", file=out)
    return status
