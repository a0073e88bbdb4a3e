"""``chronoplan pddl FILE [--scenario S] -o DIR [--classical] [--format text|json]``: write the PDDL files.

Input: a .chrono file or directory and a step-level scenario.  Output: ``DIR/domain.pddl`` and
``DIR/problem.pddl`` (PDDL 2.1 temporal, or with ``--classical`` the sequential STRIPS approximation with
action costs); the export's diagnostics (P001...: constructs the target cannot express and the lowering
used) on stderr.  Exit status: 0 written (warnings allowed), 2 usage or compile error, or a scenario the
export does not support, or an -o that is not a directory, is too long, or would overwrite an input
(checked before exporting).  ``--format json``: one object on stdout, ``{"ok", "scenario", "classical",
"files", "error", "diagnostics": [{code, severity, file, line, column, ...}]}``, also when the export is
refused.  Files are written atomically (``commands.output.write_atomic``).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

from chronoplan.compiler.diagnostics import render


def configure(p) -> None:
    p.add_argument("file", metavar="FILE", help=".chrono file or directory")
    p.add_argument("--scenario", "-s", help="scenario to export (default: the only one)")
    p.add_argument("-o", "--output", metavar="DIR", required=True, help="directory for domain.pddl and problem.pddl")
    p.add_argument("--classical", action="store_true",
                   help="write the sequential STRIPS approximation (action costs = durations)")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="json: one summary object on stdout {ok, scenario, classical, files, error, diagnostics}")


def run(args) -> int:
    status, summary = _export(args)
    if args.format == "json":
        print(json.dumps(summary))
    elif status == 0:
        print(f"wrote {summary['files'][0]} and {summary['files'][1]}")
    return status


def _failed(message: Optional[str], diagnostics=(), scenario: Optional[str] = None) -> tuple[int, dict]:
    """Exit status 2 and the JSON summary of a refused export (``commands.output.failure``); ``message`` is
    printed on stderr."""
    from chronoplan.commands.output import failure
    status, summary = failure("chronoplan pddl", message, error=diagnostics[0].message if diagnostics else None,
                              scenario=scenario, files=[])
    summary["diagnostics"] = [d.to_json() for d in diagnostics]
    return status, summary


def _export(args) -> tuple[int, dict]:
    """Export the scenario: (exit status, JSON summary); messages and diagnostics go to stderr."""
    from chronoplan.commands.common import load_project
    from chronoplan.commands.output import input_files, output_problem
    from chronoplan.compiler.pddl.common import ExportError, error
    from chronoplan.validators.families import family_of
    inputs = input_files([args.file])
    why = output_problem(args.output, inputs, directory=True) or \
        output_problem(Path(args.output) / "domain.pddl", inputs, create_parents=True) or \
        output_problem(Path(args.output) / "problem.pddl", inputs, create_parents=True)
    if why is not None:
        return _failed(f"-o: {why}")
    project = load_project([args.file])
    if project is None:
        return _failed(f"{args.file} does not compile")
    try:
        scen = project.scenario(args.scenario)
    except KeyError as exc:                         # none of that name, or several and no --scenario
        return _failed(str(exc.args[0] if exc.args else exc), (), args.scenario)
    fam = family_of(scen)
    if fam.pddl is None:
        refused = error("P010", f"scenario {scen.name}: {fam.lacks('PDDL export')}", scen.span)
        print(render(refused, {}), file=sys.stderr)
        return _failed(None, (refused,), scen.name)
    try:
        export = fam.pddl(project, scen.name, classical=args.classical)
    except ExportError as exc:
        for d in exc.diagnostics:
            print(render(d, {}), file=sys.stderr)
        return _failed(None, tuple(exc.diagnostics), scen.name)
    sources = _sources(project)
    shown, folded = fold_bundled(export.diagnostics, inputs)
    for d in shown:
        print(render(d, sources), file=sys.stderr)
    if folded:
        print(folded, file=sys.stderr)
    try:
        dom, prob = _write(export, Path(args.output))
    except OSError as exc:
        return _failed(f"cannot write {args.output}: {exc.strerror or exc}", tuple(export.diagnostics), scen.name)
    return 0, {"ok": True, "scenario": scen.name, "classical": bool(args.classical), "files": [str(dom), str(prob)],
               "error": None, "diagnostics": [d.to_json() for d in export.diagnostics]}


def fold_bundled(diagnostics, inputs: list) -> tuple[list, Optional[str]]:
    """(the diagnostics to print, a one-line note for the rest or None): those located in the bundled domains
    (``compiler.sources.bundled_root``, e.g. the installed ``paracook/physics.chrono`` a user's kitchen imports)
    are folded into one note unless an input is itself bundled; ``--format json`` still lists every one."""
    from chronoplan.compiler.sources import bundled_root
    root = bundled_root()
    if root is None or any(_inside(p, root) for p in inputs):
        return list(diagnostics), None
    shown: list = []
    hidden: list = []
    for d in diagnostics:
        where = getattr(getattr(d, "span", None), "file", None)
        (hidden if where and _inside(Path(where), root) else shown).append(d)
    if not hidden:
        return shown, None
    codes: dict = {}
    for d in hidden:
        codes[d.code] = codes.get(d.code, 0) + 1
    listed = ", ".join(c + (f" x{n}" if n > 1 else "") for c, n in sorted(codes.items()))
    return shown, (f"note: {len(hidden)} more {'warning' if len(hidden) == 1 else 'warnings'} ({listed}) about how "
                   "the export approximates the bundled domain files this one imports are not shown "
                   "(docs/pddl.md; --format json lists them)")


def _inside(path: Path, root: Path) -> bool:
    try:
        return Path(path).resolve().is_relative_to(root)
    except (OSError, ValueError, RuntimeError):
        return False


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
