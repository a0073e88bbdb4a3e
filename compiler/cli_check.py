"""``chronoplan check FILE|DIR...``: compile and print diagnostics.

Input: paths.  Output: diagnostics on stderr as ``FILE:LINE:COL: error[CODE]: message`` + source line +
caret, then a one-line summary per run (and with --summary, what the files contain) on stdout.
Exit status: 0 no errors (warnings allowed), 1 errors, 2 usage error (a missing path, a directory without
``*.chrono`` files).
"""
from __future__ import annotations

import sys

from chronoplan.compiler.diagnostics import render_lines


def configure(p) -> None:
    p.add_argument("paths", nargs="+", metavar="FILE", help="*.chrono files or directories")
    p.add_argument("--summary", action="store_true", help="also print what the files declare")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print warnings")


def summary(project) -> str:
    lines = []
    kinds = [("types", project.types), ("constants", project.constants), ("resources", project.resources),
             ("actions", project.actions), ("processes", project.processes), ("recipes", project.recipes),
             ("procedures", project.procedures), ("maps", project.maps), ("apps", project.apps),
             ("tools", project.tools), ("scenarios", project.scenarios)]
    lines.append("  " + ", ".join(f"{len(v)} {k}" for k, v in kinds if v))
    steps = sum(len(p.steps) for p in project.procedures.values())
    if project.procedures:
        lines.append(f"  procedures: {len(project.procedures)} with {steps} steps")
    for m in project.maps.values():
        lines.append(f"  map {m.name}: {m.width}x{m.height}, {len(m.stations)} stations")
    by_kind: dict = {}
    for s in project.scenarios.values():
        kind = "tool-use" if (s.apps or s.tools) else "kitchen" if s.orders else "procedure"
        by_kind.setdefault(kind, []).append(s.name)
    for kind, names in by_kind.items():
        shown = ", ".join(names[:6]) + (f", ... ({len(names)} in all)" if len(names) > 6 else "")
        lines.append(f"  {kind} scenarios: {shown}")
    return "\n".join(lines)


def run(args) -> int:
    from chronoplan.compiler.driver import compile_paths, expand
    _, missing = expand(args.paths)
    if missing:                      # a usage error (exit 2), not a compile error
        for text in render_lines(missing, {}):
            print(text, file=sys.stderr)
        return 2
    project, diags, sources = compile_paths(*args.paths)
    errors = [d for d in diags if d.is_error]
    warnings = [d for d in diags if not d.is_error]
    for text in render_lines([d for d in diags if d.is_error or not args.quiet], sources):
        print(text, file=sys.stderr)
    files = len(sources)
    status = "ok" if not errors else "failed"
    print(f"checked {files} file{'s' * (files != 1)}: {len(errors)} error{'s' * (len(errors) != 1)}, "
          f"{len(warnings)} warning{'s' * (len(warnings) != 1)} ({status})")
    if args.summary and project is not None:
        print(summary(project))
    return 1 if errors or project is None else 0
