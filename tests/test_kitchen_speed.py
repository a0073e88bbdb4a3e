"""Speed-related guarantees of the kitchen grader: cyclic GC is paused during a grade and restored after,
which is only sound because a grade creates no reference cycles (garbage is freed by reference counting)."""
import gc
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import bench_kitchen as B  # noqa: E402

import chronoplan  # noqa: E402
from chronoplan.validators.kitchen.grade import grade_grid_plan  # noqa: E402


def _plans():
    project = chronoplan.load(B.GENERATED)
    work = B.small_workload(project)[:4]
    out = []
    for name, plan, _ in work:
        out.append((name, plan))
        out.append((name, {"plan": {a: list(reversed(v)) for a, v in plan["plan"].items()}}))   # many errors
    return project, out


def test_grades_leave_no_cyclic_garbage():
    project, plans = _plans()
    for name, plan in plans:                 # compile and warm the caches first
        grade_grid_plan(project, name, plan)
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        reports = [grade_grid_plan(project, name, plan) for name, plan in plans]
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()
    assert any(r.valid for r in reports) and any(not r.valid for r in reports)


def test_gc_state_is_restored():
    project, plans = _plans()
    name, plan = plans[0]
    was = gc.isenabled()
    try:
        gc.enable()
        assert grade_grid_plan(project, name, plan).valid and gc.isenabled()
        gc.disable()
        assert grade_grid_plan(project, name, plan).valid and not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
