"""``chronoplan import FORMAT SOURCE... -o OUT [--format text|json]``: convert benchmark data into .chrono files.

Input: a format name (``FORMATS``: each entry names its converter module, imported only when used, whether
OUT is a directory or a file, and a one-line description), source files, an output path (a directory or a
file, depending on the format).  Output: the files written, one line each on stdout (``--format json``: one
object ``{"ok", "format", "files", "error"}``, also on failure).
Exit status: 0 written, 2 usage error or unreadable/ill-shaped input (a one-line message, no traceback), or
an output path that would overwrite a source, is too long, or is a file where a directory is meant (checked
before converting).  Inputs are read by ``compiler.importers.common`` (regular files only, bounded).  The
converted files are compiled before anything is written (``compiles``): text that does not compile is an
error (exit 2, the first diagnostic), never a file written.  Each file is written atomically
(``commands.output.write_atomic``).
"""
from __future__ import annotations

import importlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from chronoplan.compiler.importers import ImportFormatError


@dataclass(frozen=True)
class Format:
    name: str
    module: str          # the converter module (``convert(sources, **options) -> {name: text}``)
    output: str          # "dir" (OUT is a directory) | "file" (OUT is one file)
    help: str


FORMATS = {
    "recipe2plan": Format("recipe2plan", "chronoplan.compiler.importers.recipe2plan", "dir",
                          "Recipe2Plan cooking.json -> OUT/{,easy/}{recipes,instances}.chrono"),
    "paracook": Format("paracook", "chronoplan.compiler.importers.paracook", "file",
                       "ParaCook map JSON (with --orders) -> OUT.chrono: physics, map and one scenario"),
    "pddl": Format("pddl", "chronoplan.compiler.importers.pddl", "file",
                   "PDDL DOMAIN PROBLEM -> OUT.chrono: one procedure scenario (docs/pddl.md, Importing PDDL)"),
    "planningarena": Format("planningarena", "chronoplan.validators.tools.importer", "dir",
                            "PlanningArena tool_list.json [--tasks data.json] [--profiles DIR] -> "
                            "OUT/tools.chrono, OUT/tasks.chrono"),
    "tdw-mat": Format("tdw-mat", "chronoplan.compiler.importers.tdw_mat", "file",
                      "TDW-MAT EPISODE.json --metadata EPISODE_metadata.json --task food|stuff "
                      "[--room-types room_types.json] [--bed-room ROOM] -> OUT.chrono: one household scenario "
                      "(docs/benchmarks/pce.md)"),
}


def load_format(name: str):
    """The converter module of format ``name`` (KeyError for an unknown format); it ships with chronoplan."""
    return importlib.import_module(FORMATS[name].module)


def configure(p) -> None:
    p.add_argument("format", metavar="FORMAT",
                   help="one of: " + "; ".join(f"{f.name} ({f.help})" for f in FORMATS.values()))
    p.add_argument("sources", nargs="+", metavar="SOURCE", help="input data files")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="output directory or file (as the format requires)")
    p.add_argument("--orders", metavar="DISH,...", help="paracook: the dishes to serve, in order "
                   "(names with or without category/)")
    p.add_argument("--tasks", metavar="FILE", help="planningarena: the tasks (data_example.json) to import "
                   "as scenarios")
    p.add_argument("--profiles", metavar="DIR", help="planningarena: the user profiles (user_N.json) for the tasks")
    p.add_argument("--metadata", metavar="FILE", help="tdw-mat: the episode's <scene>_<layout>_metadata.json")
    p.add_argument("--task", choices=("food", "stuff"), help="tdw-mat: the task to import")
    p.add_argument("--room-types", metavar="FILE", help="tdw-mat: the dataset's room_types.json (every room of "
                   "each floorplan layout; the bed is in its Bedroom)")
    p.add_argument("--bed-room", metavar="ROOM", help="tdw-mat: the bed's room (default: the room of type Bedroom "
                   "in --room-types, else a room named Bedroom)")
    p.add_argument("--format", choices=("text", "json"), default="text", dest="report",
                   help="json: one summary object on stdout {ok, format, files, error, warnings}")


def write_output(files: dict, out: Path, kind: str, inputs=()) -> list[Path]:
    """Write ``{name: text}`` under directory ``out`` (kind "dir") or as the single file ``out``, each file
    atomically; refuses (ImportFormatError, nothing written) a target that is one of ``inputs``, too long,
    or in the way of a directory."""
    from chronoplan.commands.output import output_problem, write_atomic
    written = []
    why = output_problem(out, inputs, directory=kind == "dir", create_parents=True)
    if why is not None:
        raise ImportFormatError(f"-o: {why}")
    if kind == "dir":
        for name in files:
            why = output_problem(out / name, inputs, create_parents=True)
            if why is not None:
                raise ImportFormatError(f"-o: {why}")
    if kind == "dir":
        if out.exists() and not out.is_dir():
            raise ImportFormatError(f"{out}: exists and is not a directory")
        out.mkdir(parents=True, exist_ok=True)
        targets = [(out / name, text) for name, text in files.items()]
    else:
        if out.is_dir():
            raise ImportFormatError(f"{out}: is a directory; this format writes one file")
        if out.parent and not out.parent.exists():
            out.parent.mkdir(parents=True, exist_ok=True)
        targets = [(out, next(iter(files.values())))]
    for path, text in targets:
        write_atomic(path, text)                 # creates the folders a file name holds (write_output)
        written.append(path)
    return written


def compiles(files: dict, out: Path, kind: str) -> None:
    """Compile ``{name: text}`` as it will be written (in a private temporary directory, so that the files'
    imports resolve); ImportFormatError with the first error, shown under the output's name, when it does not
    compile.  The importers check what they read; this is the guarantee that nothing they write is broken."""
    import tempfile

    from chronoplan.compiler.driver import compile_paths
    with tempfile.TemporaryDirectory(prefix="chronoplan-import-") as tmp:
        root = Path(tmp)
        names = {}
        for name, text in files.items():
            path = root / (name if kind == "dir" else "out.chrono")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            names[str(path.resolve())] = out / name if kind == "dir" else out
        _project, diags, _sources = compile_paths(root)
    errors = [d for d in diags if d.is_error]
    if errors:
        d = errors[0]
        where = ""
        if d.span is not None:
            where = f"{names.get(str(Path(d.span.file).resolve()), d.span.file)}:{d.span.line}:{d.span.col}: "
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ImportFormatError(f"the converted text does not compile, nothing was written: {where}"
                                f"error[{d.code}]: {d.message}{more}")


def one_line(message: str) -> str:
    """``message`` on one line: characters that are not printable (a newline in a file name) become ``?``."""
    return "".join(ch if ch.isprintable() else "?" for ch in message)


def run(args) -> int:
    warnings: list = []
    status, written, error = _convert(args, warnings)
    if error is not None:
        warnings.clear()                         # nothing was written: only the error matters
        error = one_line(error)
    warnings = [one_line(w) for w in warnings]
    for w in warnings:
        print(f"chronoplan import: warning: {w}", file=sys.stderr)
    if error is not None:
        print(f"chronoplan import: error: {error}", file=sys.stderr)
    if getattr(args, "report", "text") == "json":
        print(json.dumps({"ok": status == 0, "format": args.format, "files": [str(p) for p in written],
                          "error": error, "warnings": warnings}))
    else:
        for path in written:
            print(f"wrote {path}")
    return status


def _convert(args, warnings: list) -> tuple[int, list[Path], Optional[str]]:
    """Convert and write: (exit status, files written, the error message or None); warnings about what the
    source lacks (formats that report them) are appended to ``warnings`` as "FILE: item: message"."""
    from chronoplan.commands.output import output_problem
    fmt = FORMATS.get(args.format)
    if fmt is None:
        return 2, [], f"unknown format {args.format!r} (choose from {', '.join(FORMATS)})"
    try:
        options: dict = {"orders": args.orders} if getattr(args, "orders", None) is not None else {}
        if options and fmt.name != "paracook":
            return 2, [], "--orders is only used by the paracook format"
        for opt in ("tasks", "profiles"):
            if getattr(args, opt, None) is not None:
                if fmt.name != "planningarena":
                    return 2, [], f"--{opt} is only used by the planningarena format"
                options[opt] = getattr(args, opt)
        for opt in ("metadata", "task", "room_types", "bed_room"):
            if getattr(args, opt, None) is not None:
                if fmt.name != "tdw-mat":
                    return 2, [], f"--{opt.replace('_', '-')} is only used by the tdw-mat format"
                options[opt] = getattr(args, opt)
        if fmt.name in ("planningarena", "tdw-mat", "recipe2plan"):
            options["warn"] = lambda f, item, msg: warnings.append(f"{f}: {item}: {msg}")
        sources = [Path(s) for s in args.sources]
        inputs = sources + [Path(options[k]) for k in ("tasks", "metadata", "room_types") if k in options]
        why = output_problem(args.output, inputs, directory=fmt.output == "dir", create_parents=True)
        if why is not None:                      # before converting: a clear error, nothing overwritten
            return 2, [], f"-o: {why}"
        files = load_format(fmt.name).convert(sources, **options)
        compiles(files, Path(args.output), fmt.output)
        return 0, write_output(files, Path(args.output), fmt.output, inputs), None
    except ImportFormatError as exc:
        return 2, [], str(exc)
    except OSError as exc:
        return 2, [], f"cannot write {exc.filename or args.output}: {exc.strerror or exc}"
