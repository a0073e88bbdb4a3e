"""``chronoplan schema FILE [--scenario S] [--strict]``: print the JSON Schema of a scenario's valid plans.

Input: .chrono files/directories, a scenario name and ``--strict``.  Output: the schema (draft 2020-12; with
``--strict`` its form for LLM structured output, docs/schemas.md) on stdout; diagnostics on stderr and exit 2
on compile errors, an unknown scenario or a scenario kind without a schema generator.
"""
from __future__ import annotations

import json
import sys


def configure(p) -> None:
    p.add_argument("paths", nargs="+", metavar="FILE", help=".chrono file or directory")
    p.add_argument("--scenario", "-s", help="scenario name (optional when there is only one)")
    p.add_argument("--strict", action="store_true",
                   help="the strict form for LLM structured output (OpenAI strict mode, grammar engines): every "
                        "field required (optional ones nullable), no oneOf/uniqueItems/prefixItems...; the "
                        "constraints it cannot state are listed in its description (docs/schemas.md)")
    p.add_argument("--compact", action="store_true", help="print on one line")


def run(args) -> int:
    from chronoplan.commands.common import load_project
    from chronoplan.validators.schema import SchemaUnavailable, schema_for

    project = load_project(args.paths)
    if project is None:
        return 2
    try:
        schema = schema_for(project, args.scenario, strict=args.strict)
    except KeyError as exc:
        why = exc.args[0] if exc.args else exc
        hint = "; pass --scenario NAME" if args.scenario is None else " (see `chronoplan list`)"
        print(f"chronoplan schema: error: {why}{hint}", file=sys.stderr)
        return 2
    except SchemaUnavailable as exc:
        print(f"chronoplan schema: error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(schema, indent=None if args.compact else 2, ensure_ascii=False))
    return 0
