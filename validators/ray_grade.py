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
``address`` (or ``RAY_ADDRESS``), else starts a local Ray instance that it shuts down at the end; on Ctrl-C or
SIGTERM it kills its actors (and the local instance) before the exception goes on.  Cluster nodes need
chronoplan installed (or a Ray ``runtime_env`` that installs it).
"""
from __future__ import annotations

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


def connect(address: Optional[str] = None, num_cpus: Optional[int] = None) -> bool:
    """Connect to Ray (``address``, else ``RAY_ADDRESS``, else a new local instance); True if this call started
    it (the caller then shuts it down)."""
    ray = _ray()
    if ray.is_initialized():
        return False
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
            ray.shutdown()


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
