"""Grading on a Ray cluster (``pip install 'chronoplan[ray]'``; ``chronoplan validate --ray [ADDRESS]``).

Input: a checked project and either plan sources (paths, ``(name, plan)`` pairs: anything ``validate_many``
takes) or a ``ray.data.Dataset`` whose rows hold a plan (text or JSON value) and a scenario name.
Output: ``ray_reports`` yields one ``Report`` per plan in input order (the same reports as ``validate_many``);
``grade_dataset`` returns a Dataset with two more columns, ``valid`` (bool) and ``report`` (the JSON line).
``ray_grade`` picks one of the two by the input's type.  ``compat`` (``validators.compat.Compat``) grades like
a benchmark's original evaluator, as in ``validate_many``.

Work is done by Ray actors that each hold one ``Grader`` (the project is put in the object store once).
The driver reads plans lazily and keeps at most ``4 x actors`` chunks in flight, so memory stays bounded.  An
actor that dies costs only its chunk's plans (``E090`` reports) and is replaced.  The driver connects to
``address`` (or ``RAY_ADDRESS``; one where no TCP connection opens within ``CONNECT_TIMEOUT`` seconds is a
clear ``RayUnreachable`` error at once), else starts a local Ray instance that it shuts down at the end; Ray's
messages (a dead actor, worker logs) go to stderr, never between the reports on stdout; on Ctrl-C or
SIGTERM it kills its actors (and the local instance) before the exception goes on.  Cluster nodes need
chronoplan installed (or a Ray ``runtime_env`` that installs it).
"""
from __future__ import annotations

import contextlib
import sys
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any, Optional

from chronoplan.compiler import ir
from chronoplan.validators.compat import Compat, usable
from chronoplan.validators.grade import Grader, TaskGrader, chunks, crashed, tasks


class RayMissing(RuntimeError):
    """Ray is not installed: ``pip install 'chronoplan[ray]'``."""


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise RayMissing("grading on Ray needs the ray package: pip install 'chronoplan[ray]'") from exc
    return ray


class RayUnreachable(RuntimeError):
    """Nothing answers at the Ray address given (``connect``): a clear error instead of ``ray.init`` waiting for
    minutes."""


CONNECT_TIMEOUT = 10.0          # seconds to open a TCP connection to a Ray address (CHRONOPLAN_RAY_TIMEOUT)


def _host_port(address: str) -> Optional[tuple[str, int]]:
    """``host:port`` of a Ray address (``ray://`` too, IPv6 in brackets); None for ``auto``, ``local`` and
    anything without a port (left to Ray)."""
    text = address.strip()
    if "://" in text:
        text = text.split("://", 1)[1]
    host, sep, port = text.rpartition(":")
    if not sep or not port.isascii() or not port.isdigit() or not host:
        return None
    return host.strip("[]"), int(port)


def _timeout() -> float:
    import os
    try:
        value = float(os.environ.get("CHRONOPLAN_RAY_TIMEOUT", CONNECT_TIMEOUT))
    except ValueError:
        return CONNECT_TIMEOUT
    return value if 0 < value < 3600 else CONNECT_TIMEOUT


def probe(address: str, timeout: Optional[float] = None) -> None:
    """Raise ``RayUnreachable`` when no TCP connection to ``address`` opens within ``timeout`` seconds
    (``CHRONOPLAN_RAY_TIMEOUT``, default ``CONNECT_TIMEOUT``); ``ray.init`` itself would retry for minutes."""
    import socket
    where = _host_port(address)
    if where is None:
        return
    timeout = _timeout() if timeout is None else timeout
    try:
        with socket.create_connection(where, timeout=timeout):
            pass
    except (OSError, ValueError) as exc:
        why = "no answer" if isinstance(exc, TimeoutError) else (getattr(exc, "strerror", None) or str(exc))
        raise RayUnreachable(f"cannot reach a Ray cluster at {address}: {why} (within {timeout:g} s); start one "
                             "with `ray start --head`, or check the address and port") from None


def connect(address: Optional[str] = None, num_cpus: Optional[int] = None) -> bool:
    """Connect to Ray (``address``, else ``RAY_ADDRESS``, else a new local instance); True if this call started
    it (the caller then shuts it down).  An address where nothing answers is ``RayUnreachable`` (``probe``)."""
    import os
    ray = _ray()
    if ray.is_initialized():
        return False
    given = address or os.environ.get("RAY_ADDRESS")
    if given:
        probe(given)
    ray.init(address=address or None, num_cpus=num_cpus if not address else None, include_dashboard=False,
             log_to_driver=False, configure_logging=False)
    return True


RAY_CHUNK = 256        # plans per actor call (``chunk`` 0); an actor that dies costs its chunk's plans (E090)


class _GradeActor:
    """A Ray actor holding one grader for the project and the batch's options."""

    def __init__(self, project: ir.Project, fmt: Optional[str], first: bool, compat: Optional[Compat] = None,
                 seed: Optional[int] = None, scenario: Optional[str] = None, references: Optional[dict] = None,
                 render: Any = None) -> None:
        self.grader = TaskGrader(Grader(project, compat, seed), fmt, first, scenario, references, render)

    def grade(self, chunk: list) -> list:
        return self.grader.grade_chunk(chunk)


def ray_reports(project: ir.Project, plans: Iterable[Any], *, scenario: Optional[str] = None,
                fmt: Optional[str] = None, first: bool = False, references: Optional[dict] = None,
                address: Optional[str] = None, actors: int = 0, chunk: int = 0,
                compat: Optional[Compat] = None, seed: Optional[int] = None, render: Any = None) -> Iterator[Any]:
    """``validate_many`` on Ray actors: one report per plan, in input order.  As there, the driver only reads
    JSON Lines lines (the actors decode, match and grade them) and ``render`` (a picklable function of a
    report) makes the actors return ``render(report)`` instead of the report."""
    compat = usable(compat)
    ray = _ray()
    from ray.exceptions import RayActorError, WorkerCrashedError

    started = connect(address)
    Actor = ray.remote(num_cpus=1)(_GradeActor)
    pool: list = []
    logs = _ThreadsToStderr.install()
    try:
        n = actors or max(1, int(ray.cluster_resources().get("CPU", 1)))
        shared = ray.put(project)
        refs = dict(references or {})
        options = (fmt, first, compat, seed, scenario, refs, render)
        pool = [Actor.remote(shared, *options) for _ in range(n)]
        pending: deque = deque()
        todo = tasks(project, plans, scenario, refs, raw_text=compat is Compat.RECIPE2PLAN, lazy=True)
        source = chunks(todo, chunk or RAY_CHUNK)
        turn = 0
        while True:
            while len(pending) < 4 * n:
                work = next(source, None)
                if work is None:
                    break
                slot = turn % n
                pending.append((work, slot, pool[slot].grade.remote(work)))
                turn += 1
            if not pending:
                return
            work, slot, ref = pending.popleft()
            try:
                done = ray.get(ref)
            except (RayActorError, WorkerCrashedError) as exc:
                done = [crashed(item, exc) for item in work]
                if render is not None:
                    done = [render(r) for r in done]
                ray.kill(pool[slot])
                pool[slot] = Actor.remote(shared, *options)
                pending = deque((w, s, pool[s].grade.remote(w)) if s == slot else (w, s, r) for w, s, r in pending)
            yield from done
    finally:
        for actor in pool:
            ray.kill(actor)
        if started:
            with contextlib.redirect_stdout(sys.stderr):      # Ray flushes its held log lines to stdout
                ray.shutdown()
        logs.remove()


class _ThreadsToStderr:
    """``sys.stdout`` while Ray grades: the main thread's writes (the reports) go to stdout, every other
    thread's (Ray prints "a worker died" and actor logs to stdout from its listener threads) to stderr, so
    that ``--format json`` stays one report per line."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    @classmethod
    def install(cls) -> _ThreadsToStderr:
        proxy = cls(sys.stdout)
        sys.stdout = proxy
        return proxy

    def remove(self) -> None:
        if sys.stdout is self:
            sys.stdout = self._stream

    def write(self, text: str) -> int:
        if threading.current_thread() is threading.main_thread():
            return self._stream.write(text)
        return sys.stderr.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _BatchGrader:
    """``map_batches`` callable: grades each row of a batch (numpy format) and adds ``valid`` and ``report``."""

    def __init__(self, project: ir.Project, plan_column: str, scenario_column: str, scenario: Optional[str],
                 fmt: Optional[str], first: bool, name_column: Optional[str], compat: Optional[Compat] = None,
                 seed: Optional[int] = None) -> None:
        self.grader = Grader(project, compat, seed)
        self.plan_column, self.scenario_column, self.scenario = plan_column, scenario_column, scenario
        self.name_column = name_column
        self.fmt, self.first = fmt, first

    def __call__(self, batch: dict) -> dict:
        import numpy as np

        plans = batch[self.plan_column]
        names = batch.get(self.scenario_column) if self.scenario is None else None
        names_col = batch.get(self.name_column) if self.name_column else None
        valid, lines = [], []
        for i in range(len(plans)):
            plan = _native(plans[i])
            target: Any = self.scenario if names is None else _native(names[i])     # Grader reports non-strings
            name = str(_native(names_col[i])) if names_col is not None else "<row>"
            report = self.grader.grade(target, plan, fmt=self.fmt, first=self.first, name=name)
            valid.append(bool(report.valid))
            lines.append(report.to_json_line())
        out = dict(batch)
        out["valid"] = np.array(valid, dtype=bool)
        out["report"] = np.array(lines, dtype=object)
        return out


def _native(value: Any) -> Any:
    """numpy scalars and arrays from a Ray batch -> plain Python values (``str``, lists, dicts)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def grade_dataset(dataset: Any, project: ir.Project, *, plan_column: str = "plan", scenario_column: str = "scenario",
                  scenario: Optional[str] = None, name_column: Optional[str] = None, fmt: Optional[str] = None,
                  first: bool = False, actors: int = 2, batch_size: int = 64, compat: Optional[Compat] = None,
                  seed: Optional[int] = None) -> Any:
    """A Ray Dataset of plans -> the same Dataset with ``valid`` and ``report`` columns (lazy, as Ray Data is).
    ``scenario`` fixes the scenario of every row, else ``scenario_column`` names it; ``name_column`` names the
    plan in its report."""
    compat = usable(compat)
    ray = _ray()
    return dataset.map_batches(_BatchGrader, fn_constructor_args=(project, plan_column, scenario_column, scenario,
                                                                  fmt, first, name_column, compat, seed),
                               compute=ray.data.ActorPoolStrategy(size=actors), batch_size=batch_size,
                               batch_format="numpy")


def ray_grade(project: ir.Project, plans: Any, **kw: Any) -> Any:
    """A Ray Dataset -> ``grade_dataset``; anything else -> ``ray_reports``."""
    ray = _ray()
    if isinstance(plans, ray.data.Dataset):
        return grade_dataset(plans, project, **kw)
    return ray_reports(project, plans, **kw)
