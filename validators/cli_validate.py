"""``chronoplan validate FILE PLAN... [--scenario S] [--plan-format F] [--format text|json] [--first]``.

Input: a .chrono file or directory, plan files/directories/JSON Lines (``-`` = stdin).  Output: per plan
a report (text, or one JSON object per line with ``--format json``), a summary table in text mode and a
progress bar on stderr when it is a terminal.  Exit status: 0 every plan valid, 1 some plan invalid,
2 usage or compile error (including a plan that matches no scenario).
"""
from __future__ import annotations

import sys

from chronoplan.validators.plans import FORMATS


def configure(p) -> None:
    p.add_argument("file", metavar="FILE", help=".chrono file or directory")
    p.add_argument("plans", nargs="+", metavar="PLAN", help="plan files, directories or - for stdin")
    p.add_argument("--scenario", "-s", help="scenario to grade against (default: matched per plan)")
    p.add_argument("--plan-format", choices=FORMATS, help="plan format (default: detected)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    p.add_argument("--first", action="store_true", help="stop each plan at its first violation")
    p.add_argument("--reference", nargs="+", metavar="PLAN", default=(),
                   help="reference plans (matched to scenarios like plans) for relative efficiency")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.3f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))
    return str(v)


def _pct(v) -> str:
    return "-" if v is None else f"{100 * float(v):.1f}%"


def summary(reports: list) -> str:
    rows = [("plan", "scenario", "valid", "errors", "makespan", "progress", "rel.eff")]
    for r in reports:
        m = r.to_json()["metrics"]
        rows.append((r.plan, r.scenario, _fmt(r.valid), str(len(r.errors)), _fmt(m.get("makespan")),
                     _pct(m.get("progress")), _fmt(m.get("relative_efficiency"))))
    widths = [min(48, max(len(row[i]) for row in rows)) for i in range(len(rows[0]))]
    lines = ["  ".join(c[:w].ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    n = len(reports)
    valid = sum(r.valid for r in reports)
    progs = [r.to_json()["metrics"].get("progress") for r in reports]
    progs = [p for p in progs if isinstance(p, (int, float))]
    mean = f", mean progress {100 * sum(progs) / len(progs):.1f}%" if progs else ""
    lines.append(f"{n} plan{'s' * (n != 1)}: {valid} valid ({100 * valid / n:.1f}%){mean}" if n else "no plans")
    return "\n".join(lines)


def _references(project, paths, scenario) -> tuple[dict, list]:
    from chronoplan.validators.grade import iter_sources, match_scenario
    refs, problems = {}, []
    for src in iter_sources(paths):
        target = match_scenario(project, scenario, src.value, src.stem)
        if src.error is not None or target is None:
            problems.append(f"reference {src.name}: " + (src.error.message if src.error else "no scenario matches"))
        else:
            refs[target] = src.value
    return refs, problems


def run(args) -> int:
    from chronoplan.compiler.cli_common import load_project
    from chronoplan.validators.grade import Grader, iter_sources, validate_many

    project = load_project([args.file])
    if project is None:
        return 2
    if args.scenario is not None and args.scenario not in project.scenarios:
        print(f"chronoplan validate: error: no scenario named {args.scenario!r} (try `chronoplan list "
              f"{args.file}`)", file=sys.stderr)
        return 2
    refs, problems = _references(project, args.reference, args.scenario)
    for msg in problems:
        print(f"chronoplan validate: warning: {msg}", file=sys.stderr)
    srcs = list(iter_sources(args.plans))
    if not srcs:
        print("chronoplan validate: error: no plan files found", file=sys.stderr)
        return 2
    bar = sys.stderr.isatty() and not args.no_progress and len(srcs) > 1
    reports = []
    status = 0
    grader = Grader(project)
    for i, rep in enumerate(validate_many(project, srcs, scenario=args.scenario, fmt=args.plan_format,
                                          first=args.first, references=refs, grader=grader), 1):
        reports.append(rep)
        if args.format == "json":
            print(rep.to_json_line(), flush=bar)
        else:
            print(rep.to_text(), flush=bar)
        if any(e.code == "E015" for e in rep.errors):
            status = 2
        elif not rep.valid and status == 0:
            status = 1
        if bar:
            done = 30 * i // len(srcs)
            print(f"\r[{'#' * done}{'.' * (30 - done)}] {i}/{len(srcs)}", end="", file=sys.stderr, flush=True)
    if bar:
        print(file=sys.stderr)
    if args.format == "text" and len(reports) > 1:
        print()
        print(summary(reports))
    return status
