"""``chronoplan list FILE|DIR [--format text|json]``: the scenarios of a project.

Input: paths.  Output: one scenario name per line, or (json) a JSON array of ``{"name", "kind", "unit"}``
objects (kind: the name of the scenario's family in the registry ``validators.families``: procedures | tools |
grid | household) on stdout; diagnostics on stderr and exit 2 when the files have errors.
"""
from __future__ import annotations

import json

from chronoplan.commands.common import load_project
from chronoplan.validators.families import family_of


def configure(p) -> None:
    p.add_argument("paths", nargs="+", metavar="FILE")
    p.add_argument("--format", choices=("text", "json"), default="text")


def run(args) -> int:
    project = load_project(args.paths)
    if project is None:
        return 2
    if args.format == "json":
        print(json.dumps([{"name": s.name, "kind": family_of(s).name, "unit": s.time_unit.label}
                          for s in project.scenarios.values()]))
        return 0
    for name in project.scenarios:
        print(name)
    return 0
