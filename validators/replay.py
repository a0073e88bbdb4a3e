"""Semantic replay of timed plans on the step-level simulator.

Input: a ``ProcedureProblem`` and a plan (text, decoded JSON or ``plans.ReadPlan``), optionally a reference
plan (for Recipe2Plan's relative efficiency).  Output: a ``report.Report`` listing every violation (critic
mode) or only the first (``first=True``), with the metrics of ``runtime.metrics.plan_metrics``.
Never raises on bad plans.

Two engines give the same reports: the fast path (``runtime.procedure.fast``: a sweep that accepts valid plans;
``runtime.procedure.critic``: the integer replay that writes the violations and metrics of every other plan) takes
plans whose times are whole multiples of the scenario's compiled time scale (names the scenario lacks included:
the replay writes E101-E103), and every other plan (a reading error, a blank recipe name, an unhashable name in
hand-made chunks, times finer than the scale, a scenario listing a step twice) is replayed by the exact engine
(``procedure.sim.simulate``).  Step(...) text in its common form (``plans.step_fields``) goes to the fast path
without being turned into ``Chunk`` values; compiled, text in its canonical form (single spaces, two-digit clock
fields, as models and plan.json write it) is scanned into the sweep's columns in one pass
(``_canonical_columns``).  ``exact=True`` skips the fast path.  A reference plan is
read once per problem and reference object (by value for text, by identity for other values: a reference changed in
place after it was used is not read again) and its truncated efficiency is kept per action count.
"""
from __future__ import annotations

import gc
from typing import Any, Optional

from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime import metrics as M
from chronoplan.runtime.procedure import critic as proccritic
from chronoplan.runtime.procedure import fast as procfast
from chronoplan.runtime.procedure.sim import Chunk, simulate, simulate_whole
from chronoplan.validators import plans as P
from chronoplan.validators.assign import assign_agents
from chronoplan.validators.plan_text import Native, plan_value
from chronoplan.validators.plans import ReadPlan, read_plan
from chronoplan.validators.report import PlanError, Report, is_warning, new_report, with_notes

try:                                             # C types for the Step text scanner when compiled (setup.py)
    import cython
except ImportError:                              # pragma: no cover - plain Python without Cython installed
    from chronoplan.runtime import cython_shim as cython

MAX_ERRORS = 1000
MAX_REFERENCES = 64          # references remembered per problem
CACHE_SIZE = 1 << 16         # Step text fields remembered per problem (more while a longer plan needs them)


def chunks_of(read: ReadPlan) -> list[Chunk]:
    return list(read.actions)


def _empty_metrics(problem: ProcedureProblem) -> dict:
    return {"makespan": None, "success": False, "progress": 0, "steps_done": 0,
            "steps_total": len(problem.steps)}


# ------------------------------------------------------------------------------------------ references
def _read_reference(problem: ProcedureProblem, reference: Any) -> Optional[tuple[Chunk, ...]]:
    if isinstance(reference, (list, tuple)) and reference and all(isinstance(c, Chunk) for c in reference):
        return tuple(reference)
    read = reference if isinstance(reference, ReadPlan) else read_plan(reference, problem.time_unit)
    if read.errors or read.format not in ("schedule", "recipe2plan"):
        return None
    return tuple(read.actions)


def _new_cache(_problem: ProcedureProblem) -> dict:
    return {}


def _reference(problem: ProcedureProblem, reference: Any) -> tuple:
    """(reference, its chunks or None, {action count: truncated efficiency}), read once per problem."""
    cache = problem.memo("_references", _new_cache)
    key = reference if isinstance(reference, (str, bytes)) else id(reference)
    hit = cache.get(key)
    if hit is None or (hit[0] is not reference and not isinstance(reference, (str, bytes))):
        if len(cache) >= MAX_REFERENCES:
            cache.clear()
        hit = cache[key] = (reference, _read_reference(problem, reference), {})
    return hit


def reference_chunks(problem: ProcedureProblem, reference: Any) -> Optional[list[Chunk]]:
    """A reference plan (any timed format, or chunks) as chunks in listed order; None if unreadable."""
    if reference is None:
        return None
    chunks = _reference(problem, reference)[1]
    return None if chunks is None else list(chunks)


def _reference_efficiency(problem: ProcedureProblem, hit: tuple, n: int):
    effs = hit[2]
    if n not in effs:
        effs[n] = M.reference_efficiency(problem, hit[1], n)
    return effs[n]


# ------------------------------------------------------------------------------------------ grading
def validate_plan(problem: ProcedureProblem, plan: Any, *, first: bool = False, name: str = "<plan>",
                  fmt: Optional[str] = None, reference: Any = None, exact: bool = False) -> Report:
    """Grade one timed plan against a step-level scenario (``exact``: with the exact engine only)."""
    # Reading, replaying and measuring a plan make no reference cycles, but a long plan allocates enough objects
    # for the cyclic garbage collector to run full collections over the whole heap several times (the cost per
    # step then grows with the plan's length): it is paused meanwhile, as procedure.sim.simulate does for its replay.
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        return _validate(problem, plan, first, name, fmt, reference, exact)
    except RecursionError:
        return Report(False, name, problem.scenario, (PlanError(
            "E001", "the plan is nested too deeply", "flatten it"),), _empty_metrics(problem))
    finally:
        if collecting:
            gc.enable()


def _validate(problem, plan, first, name, fmt, reference, exact) -> Report:  # noqa: C901
    fast = None if exact else procfast.compiled(problem)
    read = plan if isinstance(plan, ReadPlan) else None
    swept = False
    if read is None:
        if isinstance(plan, Native):
            value = plan.value
        else:
            got = plan_value(plan)
            value = got.value if got.error is None and all(is_warning(n) for n in got.notes) else _UNREAD
            if value is not _UNREAD:
                plan = Native(value)                    # what read_plan reads: decoded once
        if value is not _UNREAD:
            text = P.step_text(value, fmt)
            if text is not None and len(problem.agents) > 1:
                text = None                             # read whole: its entries get agents (validators.assign)
            # canonical Step text is scanned once (compiled); other text in the common form is matched into fields
            columns = None if text is None or fast is None or not _SCAN else _canonical_columns(fast, text)
            fields = None if text is None or columns is not None else P.step_fields(text)
            if fast is not None and fields is not None:
                columns = _text_columns(fast, fields)
            if text is not None and (columns is not None or fields is not None):
                result = None
                if fast is not None and columns is not None:
                    report = _fast_report(problem, fast, columns, name, reference, first, text)
                    if report is not None:
                        return report
                    swept = True
                    if min(columns[1], default=0) >= 0:
                        result = _replay_columns(problem, fast, columns, first)
                if fields is None:                              # scanned text: its fields, for the exact engine
                    fields = P.step_fields(text)
                    assert fields is not None, "canonical Step text is in the common form"
                if result is None:
                    result = _replay_fields(problem, fields, first)
                if result is not None:
                    return _exact_report(problem, result, [], name, reference)
                read = P.read_fields(text, fields, problem.time_unit)
    if read is None:
        read = read_plan(plan, problem.time_unit, fmt)
    read, assigned = assign_agents(problem, read)
    if assigned is not None:
        return with_notes(_validate(problem, read, first, name, fmt, reference, exact), (assigned,))
    if read.format is not None and read.format not in ("schedule", "recipe2plan") and not read.errors:
        read = ReadPlan(read.format, (), (PlanError(
            "E012", f"a {read.format} plan cannot be graded against the step-level scenario "
            f"{problem.scenario}", "write a timed schedule ({\"schedule\": [...]}) or Step(...) text"),))
    schema_errors = list(read.errors)
    if read.fatal or (first and schema_errors):
        return Report(False, name, problem.scenario, tuple(schema_errors[:1] if first else schema_errors),
                      _empty_metrics(problem))
    if fast is not None and not swept and not schema_errors and not read.skipped:
        chunked = _chunk_columns(fast, read.actions)
        report = None if chunked is None else _fast_report(problem, fast, chunked[0], name, reference, first, None,
                                                           *chunked[1:])
        if report is not None:
            return report
    return _exact_report(problem, _simulate(problem, read, first), schema_errors, name, reference)


def _exact_report(problem: ProcedureProblem, result, schema_errors: list, name: str, reference: Any) -> Report:
    """The report of the exact engine's result (``simulate``'s, or ``simulate_whole``'s with int times)."""
    errors = schema_errors + list(result.violations)
    metrics = M.plan_metrics(result, problem=None if result.problem is problem else problem)
    hit = None if reference is None else _reference(problem, reference)
    if hit is not None and hit[1] is not None:
        e_ref = _reference_efficiency(problem, hit, len(result.clean_runs))
        metrics.update(M.reference_metrics(metrics["efficiency"], e_ref, metrics["progress"]))
    if schema_errors:
        metrics["success"] = False
    if len(errors) > MAX_ERRORS:
        metrics["errors_omitted"] = len(errors) - MAX_ERRORS
        errors = errors[:MAX_ERRORS]
    return Report(not errors, name, problem.scenario, tuple(errors), metrics)


_UNREAD = object()          # a plan whose decoding gave an error or an error note: read_plan reports it


def _simulate(problem: ProcedureProblem, read: ReadPlan, first: bool):
    chunks = chunks_of(read)
    result = simulate_whole(problem, chunks, first=first, suppress=read.skipped)
    return result if result is not None else simulate(problem, chunks, first=first, suppress=read.skipped)


def _replay_fields(problem: ProcedureProblem, fields: list, first: bool):
    """The exact engine's result for Step text in its common form (``plans.step_fields``), read straight into
    int times (what ``plans.read_fields`` reads, without a ``Fraction`` per time): ``simulate_whole``'s, or None
    when the scenario is unitless, a recipe name is blank or a time is not whole (then the text is read)."""
    per = problem.time_unit.seconds
    if per is None:
        return None
    secs: dict = {"": None}                      # clock text -> seconds, for this plan
    rows = []
    for i, (key, dur, start) in enumerate(fields):
        task, step = P.step_key(key)
        if not task:
            return None
        t = secs.get(start)
        if t is None:
            t = secs[start] = P.clock_seconds(start)
        d = secs.get(dur, -1)
        if d == -1:
            d = secs[dur] = P.clock_seconds(dur)
        if t % per or (d is not None and d % per):
            return None
        rows.append((i, task, step, t // per, None if d is None else d // per))
    return simulate_whole(problem, rows, first=first, rows=True)


def _replay_columns(problem: ProcedureProblem, fast: procfast.Compiled, columns: tuple, first: bool):
    """The exact engine's result for Step text read into sweep columns (``_text_columns``), without reading it
    again into ``Chunk`` records: ``simulate_whole``'s, or None when a time is not whole (then the text is read)."""
    starts, sids, durations = columns
    keys = fast.memo.get("keys")                  # step id -> (task, step)
    if keys is None:
        keys = fast.memo["keys"] = list(fast.ids)
    scale = fast.scale
    if scale != 1:
        if any(t % scale for t in starts) or any(d % scale for d in durations if d is not None):
            return None
        starts = [t // scale for t in starts]
        durations = [None if d is None else d // scale for d in durations]
    rows = [(i, *keys[sid], t, d) for i, (t, sid, d) in enumerate(zip(starts, sids, durations))]
    return simulate_whole(problem, rows, first=first, rows=True)


# ------------------------------------------------------------------------------------------ fast path
def _fast_report(problem: ProcedureProblem, fast: procfast.Compiled, columns: tuple, name: str,
                 reference: Any, first: bool, text: Optional[str] = None, unknown: Optional[dict] = None,
                 strangers: Optional[dict] = None) -> Optional[Report]:
    """The report of a plan given as sweep columns: the sweep's for a valid plan, else the integer replay's
    (``runtime.procedure.critic``); None when the exact engine must grade it.  Names the scenario lacks, which only
    the replay takes: step ids -1 (``unknown``: position -> (task, step); for Step ``text`` in its common form,
    read from its entries, ``plans.step_fields``) and agent ids -2 (``strangers``: position -> the agent as
    written)."""
    if unknown or strangers:
        return _critic_report(problem, fast, columns, name, reference, first, unknown, strangers)
    if text is not None and min(columns[1], default=0) < 0:
        fields = P.step_fields(text)
        assert fields is not None, "columns of Step text come from text in its common form"
        unknown = {}
        for j, sid in enumerate(columns[1]):
            if sid < 0:
                task, step = P.step_key(fields[j][0])
                if not task:
                    return None          # a blank recipe name: the general reader writes what it finds
                unknown[j] = (task, step)
        return _critic_report(problem, fast, columns, name, reference, first, unknown)
    out = fast.sweep(*columns)
    if out is None:
        return _critic_report(problem, fast, columns, name, reference, first)
    if reference is None:
        metrics = fast.metrics(out)
    else:
        hit = _reference(problem, reference)
        metrics = fast.metrics(out, hit[1], None if hit[1] is None else _reference_efficiency(problem, hit, out.runs))
    return new_report(True, name, problem.scenario, (), metrics)


def _critic_report(problem: ProcedureProblem, fast: procfast.Compiled, columns: tuple, name: str,
                   reference: Any, first: bool, unknown: Optional[dict] = None,
                   strangers: Optional[dict] = None) -> Optional[Report]:
    """What ``_exact_report`` gives for the exact engine's result, from the integer replay of a (faulty) plan."""
    got = proccritic.replay(fast, problem, *columns, first=first, unknown=unknown, strangers=strangers)
    if got is None:
        return None
    errors = list(got.violations)
    hit = None if reference is None else _reference(problem, reference)
    if hit is not None and hit[1] is not None:
        metrics = got.metrics(fast, hit[1], _reference_efficiency(problem, hit, got.runs))
    else:
        metrics = got.metrics(fast)
    if len(errors) > MAX_ERRORS:
        metrics["errors_omitted"] = len(errors) - MAX_ERRORS
        errors = errors[:MAX_ERRORS]
    return new_report(not errors, name, problem.scenario, tuple(errors), metrics)


def _step_memo(fast: procfast.Compiled, n: int) -> tuple[dict[str, int], dict[str, Optional[int]]]:
    """The scenario's memo of Step text: "step, recipe" text -> step id (-1: none), HH:MM:SS text -> scaled units
    ("" -> None: no duration); bounded, but a plan of n entries keeps its own."""
    memo: Optional[tuple[dict[str, int], dict[str, Optional[int]]]] = fast.memo.get("step text")
    if memo is None or len(memo[0]) + len(memo[1]) > max(CACHE_SIZE, 4 * n):
        memo = ({}, {"": None})
        fast.memo["step text"] = memo
    return memo


def _step_id(fast: procfast.Compiled, ids: dict, key: str) -> int:
    """The step id of a "step, recipe" text (-1: a step the scenario lacks), remembered in ``ids``."""
    sid = ids.get(key)
    if sid is None:
        sid = ids[key] = fast.ids.get(P.step_key(key), -1)
    return sid


_SCAN = cython.declare(cython.bint, cython.compiled)   # compiled, canonical text is scanned, not matched
_PER_MAX = 1 << 32           # a scale per second the scanner takes (its times stay far inside C's int64)


@cython.boundscheck(False)                       # every index is checked against the text's length first
@cython.wraparound(False)
@cython.locals(n=cython.Py_ssize_t, i=cython.Py_ssize_t, j=cython.Py_ssize_t, k=cython.Py_ssize_t,
               c=cython.Py_UCS4, per=cython.longlong, t=cython.longlong, d=cython.longlong, text=str, ids=dict,
               starts=list, sids=list, durations=list)
def _canonical_columns(fast: procfast.Compiled, text: str) -> Optional[tuple[list, list, list]]:
    """Step text in its canonical form -- every "(" opens ``Step(N, recipe, HH:MM:SS, HH:MM:SS)`` with single
    spaces after the commas, what ``plans.step_fields`` matches first (``plans._CANONICAL``) -- scanned once into
    the sweep's columns: exactly ``_text_columns(fast, plans.step_fields(text))``.  None for any other text, a
    unitless scenario or a scale finer than 2^-32 s (then those two read it).  Compiled only: in plain Python the
    regular expression is faster (``_SCAN``)."""
    if fast.per_second is None or not 0 < fast.per_second < _PER_MAX:
        return None
    per = fast.per_second
    n = len(text)
    ids = _step_memo(fast, n // 21)[0]               # an entry takes at least 21 characters
    starts = []
    sids = []
    durations = []
    i = 0
    while True:
        while i < n and text[i] != "(":
            i += 1
        if i == n:
            break
        if i < 4 or text[i - 4] != "S" or text[i - 3] != "t" or text[i - 2] != "e" or text[i - 1] != "p":
            return None
        j = i + 1                                     # N: 1 to 9 ASCII digits, then ", "
        while j < n and j - i <= 9 and "0" <= text[j] <= "9":
            j += 1
        if j == i + 1 or j + 1 >= n or text[j] != "," or text[j + 1] != " ":
            return None
        k = j + 2                                     # the recipe: 1 to 64 characters up to the next ","
        while k < n and k - j - 2 <= 64:
            c = text[k]
            if c == "," or c == "(" or c == ")" or c == "'" or c == '"':
                break
            k += 1
        if k == j + 2 or k - j - 2 > 64 or k + 21 > n or text[k] != "," or text[k + 1] != " ":
            return None
        d = _clock(text, k + 2)                       # ", HH:MM:SS, HH:MM:SS)": the duration, then the start
        t = _clock(text, k + 12)
        if d < 0 or t < 0 or text[k + 10] != "," or text[k + 11] != " " or text[k + 20] != ")":
            return None
        key = text[i + 1:k]
        sid = ids.get(key)
        sids.append(_step_id(fast, ids, key) if sid is None else sid)
        starts.append(t * per)
        durations.append(d * per)
        i = k + 21
    if not sids or len(sids) > P.MAX_ACTIONS:
        return None
    return starts, sids, durations


@cython.cfunc
@cython.inline
@cython.boundscheck(False)
@cython.wraparound(False)
@cython.returns(cython.longlong)
@cython.exceptval(check=False)
@cython.locals(at=cython.Py_ssize_t, r=cython.Py_ssize_t, c=cython.Py_UCS4, x=cython.longlong, v=cython.longlong,
               text=str)
def _clock(text: str, at: int) -> int:
    """Seconds of the HH:MM:SS (two ASCII digits each) at ``at`` -- the caller checked that 8 characters are
    there -- or -1 for any other text."""
    x = v = 0
    for r in range(8):
        c = text[at + r]
        if r == 2 or r == 5:
            if c != ":":
                return -1
            x = (x + v) * 60
            v = 0
        elif "0" <= c <= "9":
            v = v * 10 + (ord(c) - 48)
        else:
            return -1
    return x + v


def _text_columns(fast: procfast.Compiled, fields: list) -> Optional[tuple[list, list, list]]:
    """Common Step text fields -> (starts, step ids, durations) for the sweep (step id -1: a name the scenario
    lacks), or None for a unitless scenario."""
    per = fast.per_second
    if per is None:
        return None
    ids, times = _step_memo(fast, len(fields))
    keys, durs, starts = zip(*fields)
    try:
        sids = list(map(ids.__getitem__, keys))
    except KeyError:
        sids = [_step_id(fast, ids, key) for key in keys]
    try:
        ts = list(map(times.__getitem__, starts))
        ds = list(map(times.__getitem__, durs))
    except KeyError:
        for x in starts + durs:
            if x not in times:
                times[x] = P.clock_seconds(x) * per
        ts = list(map(times.__getitem__, starts))
        ds = list(map(times.__getitem__, durs))
    return ts, sids, ds


def _chunk_columns(fast: procfast.Compiled, actions) -> Optional[tuple]:
    """Chunks -> ((starts, step ids, durations, agent ids, plan indexes), unknown, strangers) for the sweep and
    the replay: step id -1 for a step the scenario lacks (``unknown``: position -> (task, step), or None), agent id
    -2 for an agent it lacks (``strangers``: position -> the agent, or None).  None: a time finer than the
    compiled scale, plan indexes that are not distinct integers, or an unhashable name."""
    scale = fast.scale
    starts, sids, durs, agents, indexes = [], [], [], [], []
    unknown: dict = {}
    strangers: dict = {}
    try:
        for j, c in enumerate(actions):
            sid = fast.ids.get((c.task, c.step))
            t = procfast.scaled(c.start, scale)
            d = None if c.duration is None else procfast.scaled(c.duration, scale)
            a = -1 if c.agent is None else fast.agent_id.get(c.agent)
            if t is None or (d is None and c.duration is not None) or type(c.index) is not int:
                return None
            if sid is None:
                sid = -1
                unknown[j] = (c.task, c.step)
            if a is None:
                a = -2
                strangers[j] = c.agent
            starts.append(t)
            sids.append(sid)
            durs.append(d)
            agents.append(a)
            indexes.append(c.index)
    except TypeError:            # an unhashable name in hand-made chunks
        return None
    if len(set(indexes)) != len(indexes):
        return None              # hand-made chunks with repeated indexes: the exact engine orders them
    return ((starts, sids, durs, agents if strangers or max(agents, default=-1) >= 0 else None, indexes),
            unknown or None, strangers or None)
