"""``chronoplan render FILE PLAN [--scenario S] [--plan-format F] -o OUT.png|OUT.svg|OUT.html [--format text|json]``.

Input: a .chrono file or directory and one plan file (``-`` for stdin).  Output: a picture of the graded
plan (``validators.render_charts``): a Gantt chart of any schedule (procedure steps per agent and resource,
kitchen actions per agent plus the map with each agent's walk, tool-plan steps by dependency level), the
violations in red with their codes, the legend and the errors under the chart, a title with the scenario,
the verdict and the makespan.  PNG and SVG are drawn with matplotlib (optional: without it the command says
how to install it); HTML is one self-contained page (inline SVG, no script, no network) and needs nothing.
Exit status: 0 the picture was written, whether or not the plan is valid; 2 usage error (a missing or
unreadable file, a compile error, an unknown or unmatched scenario, several plans in PLAN, an output
suffix other than .png/.svg/.html, matplotlib missing for PNG/SVG, an output that cannot be written or is
not a regular file: a device, FIFO or symbolic link is refused, never replaced or written through).  The
output's folder is created when missing; the picture is written to a temporary file and renamed, so a
failed drawing leaves no partial file.
``--format json``: one object on stdout instead of the "wrote ..." line, ``{"ok", "file", "bytes", "width",
"height", "scenario", "plan", "valid", "codes", "error"}`` (``codes``: the plan's error codes in report order;
``width``/``height`` null for HTML), also on failure (``ok`` false, ``error`` the reason, ``file`` null;
``commands.output.failure``); messages and diagnostics stay on stderr.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

from chronoplan.validators.plans import FORMATS

PROG = "chronoplan render"
SUFFIXES = (".png", ".svg", ".html")


def configure(p) -> None:
    p.add_argument("file", metavar="FILE", help=".chrono file or directory")
    p.add_argument("plan", metavar="PLAN", help="one plan file (- for stdin)")
    p.add_argument("--scenario", "-s", help="scenario to grade against (default: matched as by validate)")
    p.add_argument("--plan-format", choices=FORMATS, help="plan format (default: detected)")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="the picture to write: OUT.png or OUT.svg (matplotlib) or OUT.html (self-contained)")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="json: one summary object on stdout {ok, file, bytes, width, height, scenario, plan, "
                        "valid, codes, error}")


def run(args) -> int:
    status, summary, line = _render(args)
    if getattr(args, "format", "text") == "json":
        print(json.dumps(summary))
    elif line:
        print(line)
    return status


def _render(args) -> tuple[int, dict, str]:
    """Grade and draw: (exit status, JSON summary, the text line for stdout or ""); messages and diagnostics
    go to stderr."""
    from chronoplan.commands.output import failure

    def _error(message: Optional[str], error: Optional[str] = None, scenario: Optional[str] = None):
        return (*failure(PROG, message, error=error, file=None, bytes=None, width=None, height=None,
                         scenario=scenario or args.scenario, plan=args.plan, valid=None, codes=[]), "")

    out = Path(args.output)
    suffix = out.suffix.lower()
    if suffix not in SUFFIXES:
        return _error(f"cannot write {args.output!r}: the output must end in .png, .svg or .html")
    from chronoplan.runtime.render import INSTALL_HINT, matplotlib_available
    if suffix != ".html" and not matplotlib_available():
        return _error(f"{INSTALL_HINT}; or write {out.with_suffix('.html').name}, which needs nothing")
    from chronoplan.commands.output import input_files, output_problem
    why = output_problem(out, input_files([args.file] + ([] if args.plan == "-" else [args.plan])),
                         create_parents=True)
    if why is not None:
        return _error(why)
    plan_path = Path(args.plan)
    if args.plan != "-" and not plan_path.is_file():
        why = ("is a directory: render takes one plan file" if plan_path.is_dir() else
               "not a regular file" if plan_path.exists() else "no such file")
        return _error(f"cannot read plan {args.plan}: {why}")
    from chronoplan.commands.common import load_project
    project = load_project([args.file])
    if project is None:
        return _error(None, f"{args.file} does not compile")
    if args.scenario is not None and args.scenario not in project.scenarios:
        return _error(f"no scenario named {args.scenario!r} (try `chronoplan list {args.file}`)")
    data = _read(args.plan)
    if isinstance(data, str):
        return _error(data)
    from chronoplan.validators.grade import match_scenario
    from chronoplan.validators.household.read import sniff_text
    from chronoplan.validators.plan_text import decode
    header = sniff_text(data.lstrip()[:200_000].split(b"\n", 1)[0]) if data.lstrip()[:1] == b"{" else None
    if header is not None:           # a household episode log: the family says what it has instead of a chart
        from chronoplan.validators.families import family_of
        name = header.get("scenario")
        scen = project.scenarios.get(args.scenario or (name if isinstance(name, str) else ""))
        if scen is not None and family_of(scen).chart is None:
            return _error(f"scenario {scen.name}: {family_of(scen).lacks('chart')}", scenario=scen.name)
    entries = decode(data, json_lines=plan_path.suffix == ".jsonl")
    if len(entries) != 1:
        return _error(f"{args.plan} holds {len(entries)} plans: render draws one (put it in a file of its own)")
    value = entries[0].value if entries[0].error is None else None
    stem = "" if args.plan == "-" else plan_path.stem
    scenario = match_scenario(project, args.scenario, value, stem)
    if scenario is None:
        known = ", ".join(list(project.scenarios)[:10])
        return _error(f"no scenario matches {args.plan} (neither a \"scenario\" key nor the file name); pass "
                      f"--scenario, one of: {known}")
    from chronoplan.runtime.render import RenderUnavailable
    from chronoplan.validators.render_charts import picture, verdict
    pic = picture(project, scenario, data, name=args.plan, fmt=args.plan_format)
    try:
        size = _write(pic.chart, out, suffix)
        written = out.stat().st_size
    except RenderUnavailable as exc:
        return _error(str(exc), scenario=scenario)
    except OSError as exc:
        return _error(f"cannot write {args.output}: {exc.strerror or exc}", scenario=scenario)
    shown = f" ({size[0]}x{size[1]} px)" if size else ""
    return 0, {"ok": True, "file": str(out), "bytes": written, "width": size[0] if size else None,
               "height": size[1] if size else None, "scenario": scenario, "plan": args.plan,
               "valid": bool(pic.report.valid), "codes": [e.code for e in pic.report.errors], "error": None}, \
        f"wrote {args.output}{shown}: {args.plan} is {verdict(pic.report)} against {scenario}"


def _read(name: str):
    """The plan's bytes, or why they cannot be read (a str)."""
    from chronoplan.validators.grade import MAX_FILE_BYTES
    try:
        if name == "-":
            data = getattr(sys.stdin, "buffer", sys.stdin).read(MAX_FILE_BYTES + 1)
        else:
            with open(name, "rb") as stream:
                data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return f"cannot read plan {name}: {exc.strerror or exc}"
    if len(data) > MAX_FILE_BYTES:
        return f"plan {name} is longer than {MAX_FILE_BYTES} bytes"
    return data


def _write(chart, out: Path, suffix: str):
    """Write the picture atomically (``commands.output.write_output``: a failed drawing leaves no partial
    file); (width, height) in pixels for PNG and SVG, None for HTML."""
    from chronoplan.commands.output import write_atomic, write_output
    if suffix == ".html":
        from chronoplan.runtime.render_html import html_page
        write_atomic(out, html_page(chart))
        return None
    from chronoplan.runtime.render import draw
    return write_output(out, lambda f: draw(chart, f, suffix[1:]))
