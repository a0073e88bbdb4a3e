"""``chronoplan import FORMAT SOURCE... -o OUT``: convert benchmark data into chronoplan files.

Input: a format name (see ``compiler.importers.FORMATS``), source files, an output path (a directory or a
file, depending on the format).  Output: the files written, one line each on stdout.
Exit status: 0 written, 2 usage error or unreadable/ill-shaped input (a one-line message, no traceback), or
an output path that would overwrite a source, is too long, or is a file where a directory is meant (checked
before converting).  Each file is written atomically (``commands.output.write_atomic``).
"""
from __future__ import annotations

import sys
from pathlib import Path

from chronoplan.compiler.importers import FORMATS, ImportFormatError, load_format


def configure(p) -> None:
    p.add_argument("format", metavar="FORMAT",
                   help="one of: " + "; ".join(f"{f.name} ({f.help})" for f in FORMATS.values()))
    p.add_argument("sources", nargs="+", metavar="SOURCE", help="input data files")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="output directory or file (as the format requires)")
    p.add_argument("--orders", metavar="DISH,...", help="paracook: the dishes to serve, in order "
                   "(names with or without category/)")


def _error(msg: str) -> int:
    print(f"chronoplan import: error: {msg}", file=sys.stderr)
    return 2


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
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
        written.append(path)
    return written


def run(args) -> int:
    from chronoplan.commands.output import output_problem
    fmt = FORMATS.get(args.format)
    if fmt is None:
        return _error(f"unknown format {args.format!r} (choose from {', '.join(FORMATS)})")
    try:
        options = {"orders": args.orders} if getattr(args, "orders", None) is not None else {}
        if options and fmt.name != "paracook":
            return _error("--orders is only used by the paracook format")
        sources = [Path(s) for s in args.sources]
        why = output_problem(args.output, sources, directory=fmt.output == "dir", create_parents=True)
        if why is not None:                      # before converting: a clear error, nothing overwritten
            return _error(f"-o: {why}")
        files = load_format(fmt.name).convert(sources, **options)
        written = write_output(files, Path(args.output), fmt.output, sources)
    except ImportFormatError as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(f"cannot write {exc.filename or args.output}: {exc.strerror or exc}")
    for path in written:
        print(f"wrote {path}")
    return 0
