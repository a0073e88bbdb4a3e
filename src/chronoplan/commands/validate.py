"""``chronoplan validate FILE PLAN... [--scenario S] [--plan-format F] [--format text|json] [--first] [--jobs N]
[--compat NAME] [--seed N] [--summary-json FILE]``.

Input: a .chrono file or directory, plan files/directories/JSON Lines (``-`` = stdin; a file whose first line is
a household episode header is one episode log, graded by ``validators.household``).  Output: per plan
a report (text, or one JSON object per line with ``--format json``), a summary table in text mode and a
progress bar on stderr when it is a terminal; with ``--summary-json FILE`` the batch's counts in FILE
(``Tally``: one JSON object, written atomically at the end; stdout's JSON Lines stay one report per line, as
DESIGN.md's contract says).  Exit status: 0 every plan valid, 1 some plan invalid,
2 usage or compile error (including a plan that matches no scenario, an unknown or refused ``--compat``
mode, or one that no scenario of the project, or the ``--scenario`` given, belongs to, and a
``--plan-format`` that the family of the ``--scenario`` given, or of every scenario of the project, does
not read: ``validators.families.Family.formats``).
"""
from __future__ import annotations

import functools
import sys
from typing import Optional

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
    p.add_argument("--summary-json", metavar="FILE", default=None,
                   help="also write the batch's counts to FILE as one JSON object {plans, valid, invalid, "
                        "errors, categories, codes, exit_status} (stdout keeps one report per line)")
    p.add_argument("--jobs", "-j", type=_jobs, default=1, metavar="N",
                   help="grade on N worker processes (0: one per core); reports stay in input order")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="grade on a Ray cluster (ADDRESS, else RAY_ADDRESS, else a new local instance); "
                        "needs pip install 'chronoplan[ray]'")
    from chronoplan.validators.compat import help_text
    p.add_argument("--compat", type=_compat, default=None, metavar="NAME", help=help_text())
    p.add_argument("--seed", type=_seed, default=None, metavar="N",
                   help="household episode logs: the episodes were played with seed N (reset(seed=N)), not the "
                        "scenario's")


def _seed(text: str) -> int:
    import argparse
    if not (text.isascii() and text.isdigit() and len(text) <= 19):
        raise argparse.ArgumentTypeError(f"--seed takes a whole number from 0 to 10^19 - 1, not {text[:20]!r}")
    return int(text)


def _compat(text: str):
    import argparse

    from chronoplan.validators.compat import CompatError, parse_compat
    try:
        return parse_compat(text)
    except CompatError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _jobs(text: str) -> int:
    import argparse
    try:
        n = int(text) if text.isascii() else -1
    except ValueError:
        n = -1
    if not 0 <= n <= 1024:
        raise argparse.ArgumentTypeError(f"--jobs takes a whole number from 0 to 1024, not {text[:20]!r}")
    return n


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


def render(fmt: str, rep) -> tuple:
    """One report -> what the batch loop needs of it: (its output, text or a JSON line; valid; no scenario
    matched (E015, exit 2); grading crashed (E090); its summary row with --format text, else None).  In a
    parallel batch this runs in the worker (``validate_many(render=...)``), so only these few strings cross
    the process boundary, not the report; the last item, each error's (code, category), feeds ``Tally``."""
    from chronoplan.validators.report import INTERNAL_ERROR
    codes = {e.code for e in rep.errors}
    return (rep.to_json_line() if fmt == "json" else rep.to_text(), bool(rep.valid), "E015" in codes,
            INTERNAL_ERROR in codes, _row(rep) if fmt == "text" else None,
            tuple((e.code, e.category.value) for e in rep.errors))


def _row(r) -> tuple:
    """The summary row of one report (kept instead of the report, so a batch's memory stays small)."""
    m = r.to_json()["metrics"]
    graded = set(m) - {"makespan", "success", "warnings"}
    progress = m.get("progress")
    # an unreadable or unmatched plan has no metrics beyond makespan/success: it counts 0 in the mean
    mean_part = progress if isinstance(progress, (int, float)) else (None if graded else 0)
    return ((r.plan, r.scenario, _fmt(r.valid), str(len(r.errors)), _fmt(m.get("makespan")), _pct(progress),
             _fmt(m.get("relative_efficiency"))), bool(r.valid), mean_part, "progress" in m)


def summary(reports: list) -> str:
    """The text table after a batch: one row per plan, then counts and the mean progress (docs/errors.md)."""
    return _table([_row(r) for r in reports])


def _table(rows: list) -> str:
    head = ("plan", "scenario", "valid", "errors", "makespan", "progress", "rel.eff")
    cells = [head] + [row[0] for row in rows]
    widths = [min(48, max(len(c[i]) for c in cells)) for i in range(len(head))]
    lines = ["  ".join(c[:w].ljust(w) for c, w in zip(cell, widths)).rstrip() for cell in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    n = len(rows)
    valid = sum(row[1] for row in rows)
    progs = [row[2] for row in rows if row[2] is not None]
    mean = (f", mean progress {100 * sum(progs) / len(progs):.1f}%"
            if progs and any(row[3] for row in rows) else "")
    lines.append(f"{n} plan{'s' * (n != 1)}: {valid} valid ({100 * valid / n:.1f}%){mean}" if n else "no plans")
    from chronoplan.validators.report import printable
    return printable("\n".join(lines))         # a file name that is not UTF-8 holds lone surrogates


def _references(project, paths, scenario, raw_text: bool = False) -> tuple[dict, list]:
    from chronoplan.validators.grade import iter_sources, match_scenario
    refs, problems = {}, []
    for src in iter_sources(paths, raw_text):
        target = match_scenario(project, scenario, src.value, src.stem)
        if src.error is not None or target is None:
            problems.append(f"reference {src.name}: " + (src.error.message if src.error else "no scenario matches"))
        else:
            refs[target] = src.value
    return refs, problems


def run(args) -> int:  # noqa: C901
    from chronoplan.commands.common import load_project
    from chronoplan.validators.grade import Grader, validate_many
    from chronoplan.validators.report import INTERNAL_ERROR

    project = load_project([args.file])
    if project is None:
        return 2
    if args.scenario is not None and args.scenario not in project.scenarios:
        print(f"chronoplan validate: error: no scenario named {args.scenario!r} (try `chronoplan list "
              f"{args.file}`)", file=sys.stderr)
        return 2
    why = _compat_problem(project, args.compat, args.scenario) or _format_problem(project, args.plan_format,
                                                                                 args.scenario, args.file) \
        or _seed_problem(project, args.seed, args.scenario)
    if why is not None:
        print(f"chronoplan validate: error: {why}", file=sys.stderr)
        return 2
    if args.summary_json is not None:
        from chronoplan.commands.output import input_files, output_problem
        why = output_problem(args.summary_json, input_files([args.file, *args.plans]), create_parents=True)
        if why is not None:
            print(f"chronoplan validate: error: --summary-json: {why}", file=sys.stderr)
            return 2
    from chronoplan.validators.compat import Compat
    refs, problems = _references(project, args.reference, args.scenario, args.compat is Compat.RECIPE2PLAN)
    for msg in problems:
        print(f"chronoplan validate: warning: {msg}", file=sys.stderr)
    status = 0
    rows: list = []
    internal = n = 0
    bar = progress_bar(args.plans) if sys.stderr.isatty() and not args.no_progress else None
    grader = Grader(project, args.compat, seed=args.seed)
    options = dict(scenario=args.scenario, fmt=args.plan_format, first=args.first, references=refs,
                   compat=args.compat, seed=args.seed)
    if args.ray is not None:
        if args.jobs != 1:
            print("chronoplan validate: error: --ray and --jobs exclude each other (Ray sizes its own pool)",
                  file=sys.stderr)
            return 2
        from chronoplan.validators.ray_grade import RayMissing, RayUnreachable, ray_reports
        try:
            reports = _started(ray_reports(project, args.plans, address=args.ray or None,
                                           render=functools.partial(render, args.format), **options))
        except (RayMissing, RayUnreachable) as exc:
            print(f"chronoplan validate: error: {exc}", file=sys.stderr)
            return 2
    else:
        reports = validate_many(project, args.plans, grader=grader, jobs=args.jobs,
                                render=functools.partial(render, args.format), **options)
    tally = Tally()
    for text, valid, unmatched, crashed, row, errors in reports:
        n += 1
        tally.add(valid, errors)
        if bar is not None:
            bar.clear()
        print(text, flush=bar is not None)
        if row is not None:
            rows.append(row)
        internal += crashed
        status = max(status, 2 if unmatched else 0 if valid else 1)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    if args.format == "text" and len(rows) > 1:
        print()
        print(_table(rows))
    if not n:
        print("chronoplan validate: error: no plan files found", file=sys.stderr)
        status = 2
    elif internal:
        print(f"chronoplan validate: internal error while grading {internal} plan{'s' * (internal != 1)} (code "
              f"{INTERNAL_ERROR} in {'their reports' if internal > 1 else 'its report'}); every other plan was "
              "graded. This is a bug in chronoplan: please report it with the plan and the command.",
              file=sys.stderr)
        status = 3
    return tally.write(args.summary_json, status)


class Tally:
    """The counts of a batch for ``--summary-json``: plans, valid, invalid, errors, errors per category and per
    code (a plan's every error counts; an unreadable or unmatched plan is invalid with its read error)."""

    def __init__(self) -> None:
        self.plans = self.valid = self.errors = 0
        self.categories: dict = {}
        self.codes: dict = {}

    def add(self, valid: bool, errors: tuple) -> None:
        """Count one plan: ``valid`` and its errors' (code, category) pairs (``render``'s last item)."""
        self.plans += 1
        self.valid += bool(valid)
        for code, category in errors:
            self.errors += 1
            self.categories[category] = self.categories.get(category, 0) + 1
            self.codes[code] = self.codes.get(code, 0) + 1

    def to_json(self, status: int) -> dict:
        return {"plans": self.plans, "valid": self.valid, "invalid": self.plans - self.valid, "errors": self.errors,
                "categories": dict(sorted(self.categories.items())), "codes": dict(sorted(self.codes.items())),
                "exit_status": status}

    def write(self, path: Optional[str], status: int) -> int:
        """Write the summary to ``path`` (when given; atomically) and return the exit status: ``status``, or 2
        when the file cannot be written."""
        if path is None:
            return status
        import json

        from chronoplan.commands.output import write_atomic
        try:
            write_atomic(path, json.dumps(self.to_json(status)) + "\n")
        except OSError as exc:
            print(f"chronoplan validate: error: cannot write --summary-json {path}: {exc.strerror or exc}",
                  file=sys.stderr)
            return max(status, 2)
        return status


def _seed_problem(project, seed: Optional[int], scenario: Optional[str]) -> Optional[str]:
    """Why ``--seed`` cannot be used here (None when it can or is not given): it concerns household episode
    logs (a family whose plans are episodes)."""
    if seed is None:
        return None
    from chronoplan.validators.families import family_of
    scenarios = [project.scenario(scenario)] if scenario else list(project.scenarios.values())
    if not any("episode" in family_of(s).formats for s in scenarios):
        where = f"scenario {scenario} is not a household" if scenario else "the project has no household"
        return f"--seed concerns household episode logs, and {where}"
    return None


def _compat_problem(project, mode, scenario) -> Optional[str]:
    """Why ``--compat`` cannot be used with this project (None when it can): a refused mode, a ``--scenario``
    of another family, or a project without any scenario of the mode's family."""
    from chronoplan.validators.compat import refusal
    if mode is None:
        return None
    why = refusal(mode)
    if why is not None:
        return f"--compat {mode.cli_name} is not available: {why}"
    if scenario is not None:
        if not mode.applies_to(project.scenarios[scenario]):
            return f"--compat {mode.cli_name} grades {mode.family.title}; scenario {scenario} is not one"
        return None
    if not any(mode.applies_to(s) for s in project.scenarios.values()):
        return f"--compat {mode.cli_name} grades {mode.family.title}, and the project has none"
    return None


def _format_problem(project, fmt: Optional[str], scenario: Optional[str], file: str) -> Optional[str]:
    """Why ``--plan-format`` cannot be used (None when it can): the family of the ``--scenario`` given, or of
    every scenario of the project, does not read it (``Family.formats``); the message names the formats that
    exist."""
    from chronoplan.validators.families import family_of
    if fmt is None:
        return None
    chosen = [project.scenarios[scenario]] if scenario is not None else list(project.scenarios.values())
    fams = list({id(f): f for f in map(family_of, chosen)}.values())
    if not fams or any(fmt in f.formats for f in fams):
        return None
    if scenario is not None:
        return (f"--plan-format {fmt}: scenario {scenario}: {fams[0].lacks(f'plan format {fmt}')} (plan formats "
                f"of {fams[0].label} scenarios: {', '.join(fams[0].formats)})")
    return (f"--plan-format {fmt} fits no scenario of {file} (plan formats of "
            + "; of ".join(f"{f.label} scenarios: {', '.join(f.formats)}" for f in fams) + ")")


def _started(reports):
    """Run a report generator up to its first report, so that start-up errors (Ray missing) surface here."""
    import itertools
    head = next(reports, None)
    return reports if head is None else itertools.chain([head], reports)


def count_plans(items) -> Optional[int]:
    """How many plans the inputs hold (JSON Lines lines, plan files), for the progress bar's ETA; None when
    unknown (stdin) or too costly to count (over 2 GB)."""
    from pathlib import Path

    from chronoplan.validators.grade import plan_files
    files: list = []
    for item in items:
        path = Path(item)
        if str(item) == "-":
            return None
        files.extend(plan_files(path) if path.is_dir() else [path])
    total = 0
    try:
        if sum(f.stat().st_size for f in files if f.suffix == ".jsonl") > 2 * 1024 ** 3:
            return None
        for f in files:
            if f.suffix != ".jsonl" or not f.is_file():      # a FIFO is one (unreadable) plan; never opened
                total += 1
                continue
            with f.open("rb") as stream:
                for block in iter(lambda: stream.read(1 << 20), b""):
                    total += block.count(b"\n")
    except OSError:
        return None
    return total


def progress_bar(items):
    """A tqdm bar on stderr (rate and, when the plans can be counted, ETA); reports are printed between a
    ``clear()`` and the next ``update()``, so the bar never runs into them."""
    import os

    from tqdm import tqdm
    try:
        sized = os.get_terminal_size(sys.stderr.fileno()).columns > 0
    except (OSError, ValueError, AttributeError):
        sized = False
    # a terminal that reports no size (a fresh pseudo-terminal) gets 80x24: tqdm would print nothing
    return tqdm(total=count_plans(items), unit=" plans", file=sys.stderr, dynamic_ncols=sized,
                ncols=None if sized else 80, nrows=None if sized else 24, leave=False, mininterval=0.2)
