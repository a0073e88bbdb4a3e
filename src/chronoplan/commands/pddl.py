"""``chronoplan pddl FILE [--scenario S] -o DIR [--classical]``: write domain.pddl and problem.pddl.

Input: a .chrono file or directory and a step-level scenario.  Output: ``DIR/domain.pddl`` and
``DIR/problem.pddl`` (PDDL 2.1 temporal, or with ``--classical`` the sequential STRIPS approximation with
action costs); the export's diagnostics (P001...: constructs the target cannot express and the lowering
used) on stderr.  Exit status: 0 written (warnings allowed), 2 usage or compile error, or a scenario the
export does not support, or an -o that is not a directory, is too long, or would overwrite an input
(checked before exporting).  Files are written atomically (``commands.output.write_atomic``).
"""
from __future__ import annotations

import sys
from pathlib import Path

from chronoplan.compiler.diagnostics import render


def configure(p) -> None:
    p.add_argument("file", metavar="FILE", help=".chrono file or directory")
    p.add_argument("--scenario", "-s", help="scenario to export (default: the only one)")
    p.add_argument("-o", "--output", metavar="DIR", required=True, help="directory for domain.pddl and problem.pddl")
    p.add_argument("--classical", action="store_true",
                   help="write the sequential STRIPS approximation (action costs = durations)")


def run(args) -> int:
    from chronoplan.commands.common import load_project, pick_scenario
    from chronoplan.commands.output import input_files, output_problem
    from chronoplan.compiler.pddl_common import ExportError, error
    from chronoplan.validators.families import family_of
    inputs = input_files([args.file])
    why = output_problem(args.output, inputs, directory=True) or \
        output_problem(Path(args.output) / "domain.pddl", inputs, create_parents=True) or \
        output_problem(Path(args.output) / "problem.pddl", inputs, create_parents=True)
    if why is not None:
        print(f"chronoplan pddl: error: -o: {why}", file=sys.stderr)
        return 2
    project = load_project([args.file])
    if project is None:
        print(f"chronoplan pddl: error: {args.file} does not compile", file=sys.stderr)
        return 2
    scen = pick_scenario(project, args.scenario, "chronoplan pddl")
    if scen is None:
        return 2
    fam = family_of(scen)
    if fam.pddl is None:
        print(render(error("P010", f"scenario {scen.name}: {fam.lacks('PDDL export')}", scen.span), {}),
              file=sys.stderr)
        return 2
    try:
        export = fam.pddl(project, scen.name, classical=args.classical)
    except ExportError as exc:
        for d in exc.diagnostics:
            print(render(d, {}), file=sys.stderr)
        return 2
    sources = _sources(project)
    for d in export.diagnostics:
        print(render(d, sources), file=sys.stderr)
    try:
        dom, prob = _write(export, Path(args.output))
    except OSError as exc:
        print(f"chronoplan pddl: error: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"wrote {dom} and {prob}")
    return 0


def _write(export, out: Path) -> tuple:
    """DIR/domain.pddl and DIR/problem.pddl, each written atomically (``commands.output``)."""
    from chronoplan.commands.output import write_atomic
    out.mkdir(parents=True, exist_ok=True)
    dom, prob = out / "domain.pddl", out / "problem.pddl"
    texts = (export.domain_text(), export.problem_text())      # both built before either is written
    write_atomic(dom, texts[0])
    write_atomic(prob, texts[1])
    return dom, prob


def _sources(project) -> dict:
    out = {}
    for f in getattr(project, "files", ()):
        try:
            with open(f, encoding="utf-8") as fh:
                out[f] = fh.read()
        except OSError:
            pass
    return out
