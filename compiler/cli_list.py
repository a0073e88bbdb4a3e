"""``chronoplan list FILE|DIR``: one scenario name per line.

Input: paths.  Output: scenario names on stdout; diagnostics on stderr and exit 2 when the files have errors.
"""
from __future__ import annotations

from chronoplan.compiler.cli_common import load_project


def configure(p) -> None:
    p.add_argument("paths", nargs="+", metavar="FILE")


def run(args) -> int:
    project = load_project(args.paths)
    if project is None:
        return 2
    for name in project.scenarios:
        print(name)
    return 0
