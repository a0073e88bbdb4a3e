"""``chronoplan pddl FILE [--scenario S] -o DIR [--classical]``: write domain.pddl and problem.pddl.

Input: a .chrono file or directory and a step-level scenario.  Output: ``DIR/domain.pddl`` and
``DIR/problem.pddl`` (PDDL 2.1 temporal, or with ``--classical`` the sequential STRIPS approximation with
action costs); the export's diagnostics (P001...: constructs the target cannot express and the lowering
used) on stderr.  Exit status: 0 written (warnings allowed), 2 usage or compile error, or a scenario the
export does not support.
"""
from __future__ import annotations

import sys

from chronoplan.compiler.diagnostics import render


def configure(p) -> None:
    p.add_argument("file", metavar="FILE", help=".chrono file or directory")
    p.add_argument("--scenario", "-s", help="scenario to export (default: the only one)")
    p.add_argument("-o", "--output", metavar="DIR", required=True, help="directory for domain.pddl and problem.pddl")
    p.add_argument("--classical", action="store_true",
                   help="write the sequential STRIPS approximation (action costs = durations)")


def run(args) -> int:
    from chronoplan.compiler.cli_common import load_project, pick_scenario
    from chronoplan.compiler.pddl_common import ExportError
    from chronoplan.compiler.pddl_export import export_scenario
    project = load_project([args.file])
    if project is None:
        print(f"chronoplan pddl: error: {args.file} does not compile", file=sys.stderr)
        return 2
    scen = pick_scenario(project, args.scenario, "chronoplan pddl")
    if scen is None:
        return 2
    try:
        export = export_scenario(project, scen.name, classical=args.classical)
    except ExportError as exc:
        for d in exc.diagnostics:
            print(render(d, {}), file=sys.stderr)
        return 2
    sources = _sources(project)
    for d in export.diagnostics:
        print(render(d, sources), file=sys.stderr)
    try:
        dom, prob = export.write(args.output)
    except OSError as exc:
        print(f"chronoplan pddl: error: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"wrote {dom} and {prob}")
    return 0


def _sources(project) -> dict:
    out = {}
    for f in getattr(project, "files", ()):
        try:
            with open(f, encoding="utf-8") as fh:
                out[f] = fh.read()
        except OSError:
            pass
    return out
