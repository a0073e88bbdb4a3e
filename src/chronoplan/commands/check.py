"""``chronoplan check FILE|DIR... [--summary] [--format text|json]``: compile and print diagnostics.

Input: paths.  Output (text): diagnostics on stderr as ``FILE:LINE:COL: error[CODE]: message`` + source line +
caret, then a one-line summary per run (and with --summary, what the files contain) on stdout.  Output
(json): one JSON object on stdout: ``{"ok", "files", "errors", "warnings", "diagnostics": [{code, severity,
file, line, column, end_line, end_column, message, notes}], "summary"}`` (the first ``MAX_SHOWN``
diagnostics; ``omitted`` counts the rest).
Exit status: 0 no errors (warnings allowed), 1 errors, 2 usage error (a missing path, a directory without
``*.chrono`` files).
"""
from __future__ import annotations

import json
import sys

from chronoplan.compiler.diagnostics import MAX_SHOWN, plural, render_lines
from chronoplan.validators.families import family_of


def configure(p) -> None:
    p.add_argument("paths", nargs="+", metavar="FILE", help="*.chrono files or directories")
    p.add_argument("--summary", action="store_true", help="also print what the files declare")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print warnings")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text (diagnostics on stderr) or one JSON object on stdout")


def counts(project) -> dict:
    """Declaration kind (singular) -> how many the project has, in declaration-section order."""
    return {"type": len(project.types), "constant": len(project.constants), "resource": len(project.resources),
            "action": len(project.actions), "process": len(project.processes), "recipe": len(project.recipes),
            "procedure": len(project.procedures), "map": len(project.maps), "app": len(project.apps),
            "tool": len(project.tools), "household": len(project.households), "scenario": len(project.scenarios)}


def scenarios_by_kind(project) -> dict:
    """Family label (procedure, tool-use, kitchen, household: ``validators.families.Family.label``) -> scenario
    names."""
    out: dict = {}
    for s in project.scenarios.values():
        out.setdefault(family_of(s).label, []).append(s.name)
    return out


def summary(project) -> str:
    lines = ["  " + ", ".join(plural(n, k) for k, n in counts(project).items() if n)]
    if project.procedures:
        steps = sum(len(p.steps) for p in project.procedures.values())
        lines.append(f"  {plural(len(project.procedures), 'procedure')} with {plural(steps, 'step')}")
    for m in project.maps.values():
        lines.append(f"  map {m.name}: {m.width}x{m.height}, {plural(len(m.stations), 'station')}")
    for h in project.households.values():
        lines.append(f"  household {h.name}: {plural(len(h.rooms), 'room')}, {plural(len(h.places), 'place')}, "
                     f"{plural(len(h.things), 'thing')}")
    for kind, names in scenarios_by_kind(project).items():
        shown = ", ".join(names[:6]) + (f", ... ({len(names)} in all)" if len(names) > 6 else "")
        lines.append(f"  {kind} scenarios: {shown}")
    return "\n".join(lines)


def run(args) -> int:
    from chronoplan.compiler.driver import compile_paths, expand
    _, missing = expand(args.paths)
    as_json = getattr(args, "format", "text") == "json"
    if missing:                      # a usage error (exit 2), not a compile error
        if as_json:
            print(json.dumps({"ok": False, "files": 0, "errors": len(missing), "warnings": 0,
                              "diagnostics": [d.to_json() for d in missing]}))
        else:
            for text in render_lines(missing, {}):
                print(text, file=sys.stderr)
        return 2
    project, diags, sources = compile_paths(*args.paths)
    errors = [d for d in diags if d.is_error]
    warnings = [d for d in diags if not d.is_error]
    shown = [d for d in diags if d.is_error or not args.quiet]
    files = len(sources)
    status = 1 if errors or project is None else 0
    if as_json:
        out = {"ok": status == 0, "files": files, "errors": len(errors), "warnings": len(warnings),
               "diagnostics": [d.to_json() for d in shown[:MAX_SHOWN]]}
        if len(shown) > MAX_SHOWN:
            out["omitted"] = len(shown) - MAX_SHOWN
        if args.summary and project is not None:
            out["summary"] = {"declarations": counts(project), "scenarios": scenarios_by_kind(project)}
        print(json.dumps(out))
        return status
    for text in render_lines(shown, sources):
        print(text, file=sys.stderr)
    print(f"checked {plural(files, 'file')}: {plural(len(errors), 'error')}, {plural(len(warnings), 'warning')} "
          f"({'ok' if not errors else 'failed'})")
    if args.summary and project is not None:
        print(summary(project))
    return status
