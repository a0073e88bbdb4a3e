"""Batch grading: plan files -> plan values -> scenario matching -> the right grader -> reports.

Input: a compiled ``ir.Project``, plan sources (files, directories, JSON Lines, ``-`` for stdin, or
in-memory ``(name, value)`` pairs) and options.  Output: one ``report.Report`` per plan
(``validate_many``) or for one plan (``grade``).  The scenario's family (``validators.families``) names its
grader: ``grade_procedures`` (replayed by ``validators.replay``), ``grade_grid`` (the kitchen grader) and
``grade_tools`` (the tool grader), below.
``compat`` (``validators.compat.Compat``) grades like a benchmark's original evaluator instead: Recipe2Plan
plans by ``validators.compat.recipe2plan`` (reading text replies as written: ``raw_text`` sources), TimeArena
plans played by ``validators.compat.timearena``, grid kitchens with ``compat=`` passed to the kitchen grader;
a scenario of another family is an ``E012``.
Scenario matching (no ``--scenario``): the only scenario, else the plan's top-level "scenario" key, else
the plan file's stem.
"""
from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Optional

from chronoplan.compiler import ir
from chronoplan.compiler.diagnostics import raise_pending_interrupt
from chronoplan.compiler.instantiate import InstantiationError, procedure_problem
from chronoplan.validators.compat import Compat, family_error, usable
from chronoplan.validators.compat.recipe2plan import grade_plan, model_for
from chronoplan.validators.compat.timearena import grade_plan as arena_plan
from chronoplan.validators.families import family_of
from chronoplan.validators.household.read import EpisodeSource, sniff, sniff_text
from chronoplan.validators.lines import bounded_lines, max_line_bytes, read_line
from chronoplan.validators.plan_text import (
    BOM,
    MAX_TEXT,
    Decoded,
    Native,
    _first_line_is_json,
    decode,
    decode_line,
    plan_value,
    text_of,
    unwrap_reply,
)
from chronoplan.validators.replay import validate_plan
from chronoplan.validators.report import (
    PlanError,
    Report,
    error_report,
    internal_error,
    internal_error_report,
    with_notes,
)
from chronoplan.validators.tools.grade import grade_tool_plan

PLAN_SUFFIXES = (".json", ".jsonl", ".txt", ".plan")
MAX_FILE_BYTES = 4 * MAX_TEXT        # a plan file (not JSON Lines) larger than this is refused unread
INTERNAL = "E090"                    # grading crashed: a chronoplan bug (docs/errors.md)


@dataclass(frozen=True)
class PlanSource:
    name: str                         # display name: path, path:line for JSON Lines
    stem: str                         # file stem, for scenario matching
    value: Any = None                 # plan text or decoded JSON value
    error: Optional[PlanError] = None  # unreadable / unparsable
    notes: tuple[PlanError, ...] = ()  # reading problems that do not stop grading (repeated keys)
    decoded: bool = False             # value came from json.loads (no Python-only types to normalise)


@dataclass(frozen=True)
class RawLine:
    """A JSON Lines line read but not decoded: in a parallel batch the worker decodes it (``decode_line``),
    matches its scenario and grades it, so the parent only reads lines (``TaskGrader.grade``)."""

    name: str                         # path:line
    stem: str
    raw: bytes
    no: int

    def source(self) -> PlanSource:
        d = decode_line(self.raw, self.no)
        return PlanSource(self.name, self.stem, d.value, d.error, d.notes, True)


def _unreadable(name: str, stem: str, why: str) -> PlanSource:
    return PlanSource(name, stem, None, PlanError("E002", f"cannot read {name}: {why}", "check the path"))


def _sources(name: str, stem: str, entries: list[Decoded], raw: Any = None) -> Iterator[PlanSource]:
    """``raw``: the file's bytes, kept as the plan when it is text rather than JSON (a reply graded as written)."""
    if len(entries) == 1 and entries[0].line is None:
        d = entries[0]
        if raw is not None and d.error is None and isinstance(d.value, str):
            yield PlanSource(name, stem, text_of(raw), None, (), True)
            return
        yield PlanSource(name, stem, d.value, d.error, d.notes, True)
        return
    for d in entries:
        yield PlanSource(f"{name}:{d.line}", stem, d.value, d.error, d.notes, True)


def _too_long(name: str, stem: str, no: int, length: int, cap: int) -> PlanSource:
    return PlanSource(f"{name}:{no}", stem, None, PlanError(
        "E013", f"line {no} is {length} bytes long; at most {cap} (CHRONOPLAN_MAX_LINE_BYTES)", "split the plan"))


def _read_lines(lines: Iterable[tuple[int, Any, int]], name: str, stem: str, cap: int,
               lazy: bool = False) -> Iterator[Any]:
    """JSON Lines, streamed: one source per non-empty line, in order, whatever the other lines hold; ``lines``
    come from ``lines.bounded_lines``, so a line over the cap is an ``E013`` for that line alone, never read
    whole (``lazy``: a ``RawLine`` for each line within the cap, decoded later by a worker)."""
    any_line = False
    for no, raw, length in lines:
        if raw is None:
            yield _too_long(name, stem, no, length, cap)
            any_line = True
            continue
        if not raw.strip():
            continue
        any_line = True
        if lazy:
            yield RawLine(f"{name}:{no}", stem, raw, no)
            continue
        d = decode_line(raw, no)
        yield PlanSource(f"{name}:{no}", stem, d.value, d.error, d.notes, True)
    if not any_line:
        yield PlanSource(name, stem, None, PlanError("E002", "the plan file is empty", "write a plan"))


def _read_stdin(name: str, stem: str, raw_text: bool) -> Iterator[PlanSource]:
    """stdin: a household episode log (first non-empty line an episode header) is one plan, as for a file;
    JSON Lines are streamed like a .jsonl file, line by line, when its first non-empty line is a JSON value
    and the next one starts like one (what ``decode`` reads as JSON Lines), or when a line before any other
    kind of text is over the line cap; anything else is read whole, up to ``MAX_FILE_BYTES``, and decoded as a
    plan file is.  Every line is read bounded (``lines.read_line``)."""
    stream = getattr(sys.stdin, "buffer", sys.stdin)      # a text stream when replaced (tests, notebooks)
    cap = max_line_bytes()
    head: list = []                                       # (number, line or None, length) read to decide
    lines: list[str] = []                                 # their non-empty ones, stripped
    size = 0
    while len(lines) < 2 and size <= MAX_FILE_BYTES:
        raw, length = read_line(stream, cap)
        if raw is not None and not raw:
            break
        head.append((len(head) + 1, raw, length))
        size += length
        if raw is None:                                    # over the cap: a batch whose line is refused
            yield from _read_lines(itertools.chain(head, bounded_lines(stream, cap, len(head) + 1)), name,
                                   stem, cap)
            return
        line = text_of(raw).strip().lstrip(BOM).strip()
        if line:
            header = sniff_text(line) if not lines else None
            if header is not None:                         # a household episode log: one plan
                yield from _episode_stdin(name, stem, head, stream, size, header)
                return
            lines.append(line)
            if line[0] not in "[{":
                break
    if len(lines) == 2 and _first_line_is_json("\n".join(lines)):
        yield from _read_lines(itertools.chain(head, bounded_lines(stream, cap, len(head) + 1)), name, stem, cap)
        return
    data = _whole_stdin(head, stream, size)
    if len(data) > MAX_FILE_BYTES:
        yield _too_long_file(name, stem)
        return
    yield from _sources(name, stem, decode(data), data if raw_text else None)


def _whole_stdin(head: list, stream: Any, size: int) -> Any:
    """stdin read whole: the ``head`` lines already read (``size`` units) and the rest, at most one unit over
    ``MAX_FILE_BYTES`` (so that a longer input is seen as too long without being held)."""
    rest = stream.read(max(0, MAX_FILE_BYTES + 1 - size))
    return rest[:0].join(h[1] for h in head) + rest if head else rest


def _too_long_file(name: str, stem: str) -> PlanSource:
    return PlanSource(name, stem, None, PlanError("E013", f"{name} is longer than {MAX_FILE_BYTES} bytes",
                                                  "split the file"))


def _episode_stdin(name: str, stem: str, head: list, stream: Any, size: int, header: dict) -> Iterator[PlanSource]:
    """A household episode log on stdin: read whole up to ``MAX_FILE_BYTES`` (its lines are bounded by its
    reader, ``household.read``) and graded as the same file would be."""
    data = _whole_stdin(head, stream, size)
    if len(data) > MAX_FILE_BYTES:
        yield _too_long_file(name, stem)
        return
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    yield PlanSource(name, stem, EpisodeSource(data=data, scenario=_scenario_of(header)))


def _read_file(path: Path, name: str, raw_text: bool = False, lazy: bool = False) -> Iterator[Any]:
    stem = path.stem
    try:
        if name == "-":
            yield from _read_stdin(name, stem, raw_text)
            return
        elif path.suffix == ".jsonl":
            header = sniff(path)
            if header is not None:           # a household episode log: one plan, read by its grader
                yield PlanSource(name, stem, EpisodeSource(path=str(path), scenario=_scenario_of(header)))
                return
            with path.open("rb") as stream:
                cap = max_line_bytes()
                yield from _read_lines(bounded_lines(stream, cap), name, stem, cap, lazy)
            return
        elif path.stat().st_size > MAX_FILE_BYTES:
            yield PlanSource(name, stem, None, PlanError("E013", f"{name} is {path.stat().st_size} bytes "
                             f"long; at most {MAX_FILE_BYTES} (use JSON Lines for many plans)", "split the file"))
            return
        else:
            with path.open("rb") as stream:      # bounded: a named pipe or /dev/zero given as a plan never ends
                data = stream.read(MAX_FILE_BYTES + 1)
    except (OSError, ValueError) as exc:
        why = ("broken symbolic link" if path.is_symlink() and not path.exists()
               else (getattr(exc, 'strerror', None) or str(exc)))
        yield _unreadable(name, stem, why if isinstance(exc, OSError) else str(exc)[:200])
        return
    if len(data) > MAX_FILE_BYTES:
        yield _too_long_file(name, stem)
        return
    if isinstance(data, bytes) and data.lstrip()[:1] == b"{":
        header = sniff_text(data.lstrip()[:200_000].split(b"\n", 1)[0])
        if header is not None:               # a household episode log (stdin, another suffix)
            yield PlanSource(name, stem, EpisodeSource(data=data, scenario=_scenario_of(header)))
            return
    yield from _sources(name, stem, decode(data), data if raw_text else None)


def _scenario_of(header: dict) -> Optional[str]:
    got = header.get("scenario")
    return got if isinstance(got, str) else None


def plan_files(path: Path) -> list[Path]:
    """The plan files under a directory, sorted; broken links, unreadable entries and special files (FIFOs,
    sockets, devices) are kept, to be reported (E002)."""
    return sorted(p for p in path.rglob("*") if p.suffix in PLAN_SUFFIXES and (p.is_symlink() or not p.is_dir()))


def iter_sources(items: Iterable[Any], raw_text: bool = False, lazy: bool = False) -> Iterator[Any]:
    """Expand paths (files, directories, ``-``), ``(name, value)`` pairs and ``PlanSource`` values.
    ``raw_text``: a file of text (not JSON) is kept as written, for graders that read replies themselves.
    ``lazy``: the lines of a .jsonl file come as ``RawLine`` (undecoded), for a parallel batch's workers."""
    for item in items:
        if isinstance(item, PlanSource):
            yield item
        elif isinstance(item, tuple) and len(item) == 2:
            yield PlanSource(str(item[0]), Path(str(item[0])).stem, item[1])
        elif not isinstance(item, (str, os.PathLike)):
            yield PlanSource(_clip(repr(item)), "", None, PlanError(
                "E002", f"not a plan source: {_clip(repr(item))} (a {type(item).__name__})",
                "pass paths, '-' for stdin, or (name, plan) pairs"))
        else:
            path = Path(item)
            if str(item) == "-":
                yield from _read_file(path, "-", raw_text)
            elif path.is_dir():
                for f in plan_files(path):
                    if f.exists() and not f.is_file() and not f.is_dir():     # opening a FIFO would block
                        yield _unreadable(str(f), f.stem, "not a regular file (a named pipe, socket or device)")
                    else:
                        yield from _read_file(f, str(f), raw_text, lazy)
            else:
                yield from _read_file(path, str(item), raw_text, lazy)


def _clip(s: str, n: int = 80) -> str:
    return s if len(s) <= n else s[:n] + "..."


def match_scenario(project: ir.Project, explicit: Optional[str], value: Any, stem: str) -> Optional[str]:
    if explicit is not None:
        return explicit if isinstance(explicit, str) and explicit in project.scenarios else None
    if len(project.scenarios) == 1:
        return next(iter(project.scenarios))
    if isinstance(value, EpisodeSource) and value.scenario in project.scenarios:
        return value.scenario
    if isinstance(value, dict) and isinstance(value.get("scenario"), str) and value["scenario"] in project.scenarios:
        return value["scenario"]
    return stem if stem in project.scenarios else None


class Grader:
    """Grades plans against one project, caching instantiated scenarios.  ``compat`` (a ``Compat`` or its
    name) grades like that benchmark's original evaluator; a refused mode raises ``CompatError``.  ``seed``:
    household episode logs are of episodes played with that seed (``reset(seed=N)``), not the scenario's."""

    def __init__(self, project: ir.Project, compat: Optional[Compat] = None, seed: Optional[int] = None) -> None:
        self.project = project
        self.compat = usable(compat)
        self.seed = seed
        self._problems: dict = {}
        self._models: dict = {}

    def problem(self, scenario: str):
        if scenario not in self._problems:
            scen = self.project.scenario(scenario)
            self._problems[scenario] = procedure_problem(self.project, scen)
        return self._problems[scenario]

    def model(self, scenario: str):
        """The scenario as the original Recipe2Plan evaluator holds it (or why it cannot)."""
        if scenario not in self._models:
            self._models[scenario] = model_for(self.problem(scenario))
        return self._models[scenario]

    def grade(self, scenario: str, plan: Any, *, fmt: Optional[str] = None, first: bool = False,
              name: str = "<plan>", reference: Any = None, decoded: bool = False) -> Report:
        """Grade one plan (text, bytes, or a value; ``decoded``: it came from ``json.loads``).  Never raises:
        a crash inside chronoplan becomes an ``E090`` report (docs/errors.md, "Internal errors")."""
        name = name if isinstance(name, str) else str(name)
        if not isinstance(scenario, str):
            return error_report(name, "", "E015", f"the scenario must be named by a string, not "
                                f"{type(scenario).__name__}", "pass the scenario's name")
        try:
            if self.compat is Compat.RECIPE2PLAN:
                return self._grade_original(scenario, plan, fmt, name, reference)
            if self.compat is Compat.TIMEARENA:
                return self._grade_arena(scenario, plan, fmt, first, name, decoded)
            episode = self._episode(scenario, plan, fmt, first, name)
            if episode is not None:
                return episode
            got = plan_value(plan, decoded=decoded)
            inner = unwrap_reply(got.value) if got.error is None else None
            if inner is not None:
                got = replace(inner, notes=got.notes + inner.notes)
            if got.error is not None:
                return Report(False, name, str(scenario), (got.error,), {"makespan": None, "success": False})
            report = self._grade(scenario, Native(got.value), fmt, first, name, reference)
            return with_notes(report, got.notes)
        except Exception as exc:   # noqa: BLE001 - one plan's crash must not stop the batch
            return internal_error_report(name, str(scenario), exc)

    def _episode(self, scenario: str, plan: Any, fmt: Optional[str], first: bool, name: str) -> Optional[Report]:
        """The report of an episode log (a household scenario's plan, read by its own grader), or None for any
        other plan: an episode log given for another family's scenario is an ``E012``."""
        scen = self.project.scenarios.get(scenario)
        household = scen is not None and "episode" in family_of(scen).formats   # its family reads episode logs
        if isinstance(plan, EpisodeSource) and scen is not None and not household:
            return error_report(name, scenario, "E012", f"{name} is a household episode log; scenario {scenario} "
                                f"is a {family_of(scen).label} scenario", "grade it against its household scenario")
        if not household:
            return None
        scen, refused = self._scenario(scenario, name)
        if scen is None:
            return refused
        return family_of(scen).grade(self, scen, plan, fmt, first, name, None)

    def _scenario(self, scenario: str, name: str) -> tuple[Optional[ir.Scenario], Optional[Report]]:
        """The scenario to grade against, or the report of why there is none (unknown name; a compat mode
        for another family)."""
        try:
            scen = self.project.scenario(scenario)
        except KeyError as exc:
            return None, error_report(name, str(scenario), "E015", str(exc.args[0] if exc.args else exc),
                                      "name a scenario with --scenario or a top-level \"scenario\" key")
        if self.compat is not None and not self.compat.applies_to(scen):
            return None, Report(False, name, scen.name, (family_error(self.compat, scen),),
                                {"makespan": None, "success": False})
        return scen, None

    def _grade(self, scenario: str, plan: Any, fmt: Optional[str], first: bool, name: str,
               reference: Any) -> Report:
        scen, refused = self._scenario(scenario, name)
        if scen is None:
            assert refused is not None, "_scenario gives a scenario or the report of why there is none"
            return refused
        return family_of(scen).grade(self, scen, plan, fmt, first, name, reference)

    def procedure_or_report(self, scen: ir.Scenario, name: str) -> tuple[Any, Optional[Report]]:
        """The scenario's cached ``ProcedureProblem`` and None, or None and the E012 report of why it cannot be
        instantiated."""
        try:
            return self.problem(scen.name), None
        except InstantiationError as exc:
            return None, error_report(name, scen.name, "E012", f"scenario {scen.name} cannot be instantiated: "
                                      f"{exc}", "fix the scenario")

    def _procedure(self, scenario: str, name: str) -> tuple[Any, Optional[Report]]:
        """``_scenario`` then ``procedure_or_report``: (problem, None) or (None, the report)."""
        scen, refused = self._scenario(scenario, name)
        if scen is None:
            return None, refused
        return self.procedure_or_report(scen, name)

    def _grade_original(self, scenario: str, plan: Any, fmt: Optional[str], name: str, reference: Any) -> Report:
        """``--compat recipe2plan``: the plan as given (a reply is read as written) by the original's rules."""
        problem, refused = self._procedure(scenario, name)
        if problem is None:
            assert refused is not None, "_procedure gives a problem or the report of why there is none"
            return refused
        return grade_plan(problem, plan, name=name, fmt=fmt, reference=reference, model=self.model(problem.scenario))


    def _grade_arena(self, scenario: str, plan: Any, fmt: Optional[str], first: bool, name: str,
                     decoded: bool) -> Report:
        """``--compat timearena``: the plan played in TimeArena's released code (``validators.compat.timearena``)."""
        problem, refused = self._procedure(scenario, name)
        if problem is None:
            assert refused is not None, "_procedure gives a problem or the report of why there is none"
            return refused
        return arena_plan(problem, plan, name=name, fmt=fmt, first=first, decoded=decoded)


# ---------------------------------------------------------------- family graders (validators.families)
def grade_procedures(grader: Grader, scen: ir.Scenario, plan: Any, fmt: Optional[str], first: bool, name: str,
                     reference: Any) -> Report:
    """A timed schedule against a step-level scenario, on the grader's cached ``ProcedureProblem``."""
    problem, refused = grader.procedure_or_report(scen, name)
    if problem is None:
        assert refused is not None, "procedure_or_report gives a problem or the report of why there is none"
        return refused
    return validate_plan(problem, plan, first=first, name=name, fmt=fmt, reference=reference)


def grade_grid(grader: Grader, scen: ir.Scenario, plan: Any, fmt: Optional[str], first: bool, name: str,
               reference: Any) -> Report:
    """A ParaCook plan against a grid kitchen (``compat`` passed on when the grader has one)."""
    from chronoplan.validators.kitchen.grade import grade_grid_plan  # lazy: the kitchen simulator, for kitchens only
    extra = {} if grader.compat is None else {"compat": grader.compat}
    return grade_grid_plan(grader.project, scen.name, plan, fmt, plan_name=name, first=first, **extra)


def grade_tools(grader: Grader, scen: ir.Scenario, plan: Any, fmt: Optional[str], first: bool, name: str,
                reference: Any) -> Report:
    """A tool plan against a tool-use scenario."""
    return grade_tool_plan(grader.project, scen.name, plan, fmt, plan_name=name, first=first)


def grade(project: ir.Project, scenario: str, plan: Any, *, compat: Optional[Compat] = None, **kw) -> Report:
    """Grade one plan against a scenario of a project (any kind); ``compat`` as for ``Grader``."""
    return Grader(project, compat).grade(scenario, plan, **kw)


def validate_many(project: ir.Project, plans: Iterable[Any], *, scenario: Optional[str] = None,
                  fmt: Optional[str] = None, first: bool = False, references: Optional[dict] = None,
                  grader: Optional[Grader] = None, jobs: int = 1, chunk: int = 0,
                  compat: Optional[Compat] = None, seed: Optional[int] = None,
                  render: Optional[Callable[[Report], Any]] = None) -> Iterator[Any]:
    """Grade many plans; ``references`` maps scenario names to reference plans (Recipe2Plan metrics).
    Yields one report per plan, in input order, and never raises on plans (docs/errors.md, "Batches").
    ``jobs`` > 1 grades on that many worker processes (0: one per core), ``chunk`` plans at a time (default
    ``PARALLEL_CHUNK``: growing chunks), reading the input lazily with a bounded number of chunks in flight
    (validators.parallel): the parent only reads JSON Lines lines, each worker decodes, matches and grades
    them.  ``render`` (a picklable function of a report, e.g. ``functools.partial`` of a module-level function):
    yield ``render(report)`` instead of the report, computed in the worker, so that only its compact result
    crosses the process boundary (issue 28 item 22: pickled reports and rendering in the parent made
    ``--jobs 2`` slower than ``--jobs 1``).  ``compat`` and ``seed`` as for ``Grader`` (a given ``grader``
    must have the same mode and seed)."""
    if references is not None and not isinstance(references, Mapping):
        raise TypeError(f"references must map scenario names to plans, not {type(references).__name__}")
    compat = usable(compat)
    if grader is not None and grader.compat is not compat:
        raise ValueError(f"the grader's compat mode ({grader.compat}) is not the batch's ({compat})")
    if grader is not None and grader.seed != seed:
        raise ValueError(f"the grader's seed ({grader.seed}) is not the batch's ({seed})")
    refs = dict(references or {})
    raw_text = compat is Compat.RECIPE2PLAN
    if jobs == 1:
        todo = tasks(project, plans, scenario, refs, raw_text=raw_text)
        one = TaskGrader(grader or Grader(project, compat, seed), fmt, first)
        for task in todo:
            raise_pending_interrupt()        # a signal whose exception C code swallowed still stops the batch
            report = one.grade(task)
            yield report if render is None else render(report)
        return
    from chronoplan.validators.parallel import default_jobs, ordered_map  # lazy: multiprocessing, only for jobs > 1
    todo = tasks(project, plans, scenario, refs, raw_text=raw_text, lazy=True)
    local: list = []

    def on_crash(task: Any, exc: BaseException) -> Any:
        report = crashed(task, exc)
        return report if render is None else render(report)

    def unsent(task: Any, exc: BaseException) -> Any:
        """A plan that cannot be pickled to a worker (or its report back): graded here, as with jobs=1."""
        if not local:
            local.append(TaskGrader(grader or Grader(project, compat, seed), fmt, first))
        report = local[0].grade(task)
        return report if render is None else render(report)

    work = chunks(todo, chunk) if chunk else chunks(todo, PARALLEL_CHUNK[0], PARALLEL_CHUNK[1])
    for done in ordered_map(grade_chunk, work, jobs=default_jobs(jobs),
                            initializer=_start_worker, initargs=(project, fmt, first, compat, seed,
                                                                 scenario, refs, render),
                            on_crash=on_crash, on_error=unsent):
        yield from done


# plans per unit of work of a worker process: the first chunk, doubling up to the last size.  Large chunks
# keep workers busy while a loaded machine leaves the parent waiting for a core (bench/bench_parallel.py); the
# last size is bounded as a chunk whose worker dies twice is regraded plan by plan, one fresh pool each
PARALLEL_CHUNK = (64, 1024)


@dataclass(frozen=True)
class _Task:
    """One readable plan matched to its scenario, waiting for its grader."""

    target: str
    src: PlanSource
    reference: Any = None


def tasks(project: ir.Project, plans: Iterable[Any], scenario: Optional[str],
          references: dict, raw_text: bool = False, lazy: bool = False) -> Iterator[Any]:
    """Plan sources -> a ``Report`` for each plan that cannot be graded, a ``_Task`` for each other plan
    (``raw_text``: text files are kept as written, see ``iter_sources``; ``lazy``: a ``RawLine`` for each
    JSON Lines line, which ``TaskGrader.grade`` turns into one of those)."""
    for src in _safe_sources(plans, raw_text, lazy):
        yield src if isinstance(src, RawLine) else task_of(project, src, scenario, references)


def task_of(project: ir.Project, src: PlanSource, scenario: Optional[str], references: dict) -> Any:
    """One plan source -> a ``Report`` when it cannot be graded (unreadable, no scenario), else a ``_Task``."""
    try:
        target = match_scenario(project, scenario, src.value, src.stem)
    except Exception as exc:    # noqa: BLE001 - one plan's crash must not stop the batch
        return internal_error_report(src.name, "", exc)
    if src.error is not None:
        return Report(False, src.name, target or "", (src.error,), {"makespan": None, "success": False})
    if target is None:
        known = ", ".join(list(project.scenarios)[:10])
        what = f"no scenario named {_clip(repr(scenario))}" if scenario is not None else \
            f"no scenario matches {src.name} (neither a \"scenario\" key nor the file name {src.stem!r})"
        return error_report(src.name, scenario if isinstance(scenario, str) else "", "E015", what,
                            f"pass --scenario, one of: {known}")
    return _Task(target, src, references.get(target))


@dataclass(frozen=True)
class TaskGrader:
    """Grades tasks with one grader and the batch's options (in the parent, a worker process or a Ray actor);
    a ``Report`` made while reading passes through."""

    grader: Grader
    fmt: Optional[str] = None
    first: bool = False
    scenario: Optional[str] = None                    # for a ``RawLine``: the batch's --scenario
    references: Optional[dict] = None                 # and its reference plans
    render: Optional[Callable[[Report], Any]] = None  # grade_chunk's results: render(report)

    @property
    def compat(self) -> Optional[Compat]:
        """The grader's compatibility mode (None: chronoplan's rules)."""
        return self.grader.compat

    def grade(self, task: Any) -> Report:
        if isinstance(task, RawLine):
            try:
                task = task_of(self.grader.project, task.source(), self.scenario, self.references or {})
            except Exception as exc:    # noqa: BLE001 - one plan's crash must not stop the batch
                return internal_error_report(task.name, "", exc)
        if isinstance(task, Report):
            return task
        src = task.src
        report = self.grader.grade(task.target, src.value, fmt=self.fmt, first=self.first, name=src.name,
                                   reference=task.reference, decoded=src.decoded)
        return with_notes(report, src.notes)

    def grade_chunk(self, chunk: list) -> list:
        if self.render is None:
            return [self.grade(task) for task in chunk]
        return [self.render(self.grade(task)) for task in chunk]


def chunks(todo: Iterator[Any], size: int, grow_to: int = 0) -> Iterator[list]:
    """Tasks -> lists of ``size`` tasks, the unit of work of a worker; with ``grow_to``, each chunk twice the
    size of the one before, up to ``grow_to`` (small batches still spread over every worker, large ones are
    handed over in few, large pieces)."""
    chunk: list = []
    for task in todo:
        chunk.append(task)
        if len(chunk) >= size:
            yield chunk
            chunk = []
            size = min(2 * size, grow_to) if grow_to > size else size
    if chunk:
        yield chunk


_WORKER: dict = {}


def _start_worker(project: ir.Project, fmt: Optional[str], first: bool, compat: Optional[Compat] = None,
                  seed: Optional[int] = None, scenario: Optional[str] = None, references: Optional[dict] = None,
                  render: Optional[Callable[[Report], Any]] = None) -> None:
    _WORKER["grader"] = TaskGrader(Grader(project, compat, seed), fmt, first, scenario, references, render)


def grade_chunk(chunk: list) -> list:
    """In a worker process: grade each task of a chunk."""
    return _WORKER["grader"].grade_chunk(chunk)


def crashed(task: Any, exc: BaseException) -> Report:
    """The report of a task whose grading killed its worker."""
    if isinstance(task, Report):
        return task
    if isinstance(task, RawLine):
        return internal_error_report(task.name, "", RuntimeError(
            f"the worker process grading this plan died ({type(exc).__name__}: {exc})"))
    return internal_error_report(task.src.name, task.target, RuntimeError(
        f"the worker process grading this plan died ({type(exc).__name__}: {exc})"))


def _safe_sources(plans: Iterable[Any], raw_text: bool = False, lazy: bool = False) -> Iterator[Any]:
    """``iter_sources`` that turns a crash while reading one input into a report for it, then goes on."""
    for item in plans:
        try:
            yield from iter_sources([item], raw_text, lazy)
        except Exception as exc:    # noqa: BLE001 - one input's crash must not stop the batch
            yield PlanSource(str(item)[:200], "", None, internal_error(exc))
