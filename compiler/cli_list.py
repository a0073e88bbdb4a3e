"""``chronoplan list FILE|DIR``: one scenario name per line.

Input: paths.  Output: scenario names on stdout; diagnostics on stderr and exit 2 when the files have errors.
"""
from __future__ import annotations

import sys

from chronoplan.compiler.diagnostics import render


def configure(p) -> None:
    p.add_argument("paths", nargs="+", metavar="FILE")


def run(args) -> int:
    from chronoplan.compiler.driver import compile_paths
    project, diags, sources = compile_paths(*args.paths)
    errors = [d for d in diags if d.is_error]
    for d in errors:
        print(render(d, sources), file=sys.stderr)
    if project is None or errors:
        return 2
    for name in project.scenarios:
        print(name)
    return 0
