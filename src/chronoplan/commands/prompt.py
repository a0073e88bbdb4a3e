"""``chronoplan prompt FILE|DIR --scenario S [--format text|json]``: the instruction an agent reads first.

Input: paths and a step-level scenario (procedures).  Output: on stdout, the scenario's instruction in
TimeArena's layout (``runtime.procedure.instruction``: the protocol, each task's description and valid actions
with usages, all objects with "(Only for Task k)" labels, their initial states), or (json) ``{"scenario",
"instruction", "objects": [{"name", "state", "only_for"}]}``.  Exit 0; 2 on a compile error, an unknown
scenario or a scenario without procedures (the message names its family).
"""
from __future__ import annotations

import json
import sys

from chronoplan.commands.common import load_project, pick_scenario
from chronoplan.compiler.instantiate import InstantiationError, procedure_problem
from chronoplan.runtime.procedure.instruction import instruction, objects


def configure(p) -> None:
    p.add_argument("paths", nargs="+", metavar="FILE")
    p.add_argument("--scenario", help="the scenario (default: the only one)")
    p.add_argument("--format", choices=("text", "json"), default="text")


def run(args) -> int:
    project = load_project(args.paths)
    if project is None:
        return 2
    scenario = pick_scenario(project, args.scenario, "chronoplan prompt")
    if scenario is None:
        return 2
    try:
        problem = procedure_problem(project, scenario)
    except InstantiationError as exc:
        print(f"chronoplan prompt: error: {exc}; an instruction is written for step-level scenarios "
              "(TimeArena, Recipe2Plan)", file=sys.stderr)
        return 2
    text = instruction(problem)
    if args.format == "json":
        print(json.dumps({"scenario": scenario.name, "instruction": text,
                          "objects": [{"name": o.name, "state": o.state, "only_for": o.only_for}
                                      for o in objects(problem)]}))
    else:
        print(text)
    return 0
