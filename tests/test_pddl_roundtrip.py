"""External acceptance of every bundled procedure scenario's PDDL.

- unified-planning's PDDLReader reads the classical export of every scenario (the temporal exports are
  read by the planner worker in tests/test_planners.py::test_kairos_solves_every_bundled_scenario) and
  both exports of the golden scenario, with the expected actions, objects and goals;
- VAL accepts, on the temporal export, the PDDL plan of the scenario's CP-SAT schedule (one chunk per
  step), which the simulator accepts too; on the classical export, the sequence of that schedule.
"""
from __future__ import annotations

import warnings
from fractions import Fraction
from pathlib import Path

import pytest

import chronoplan
from chronoplan.compiler.pddl.plan import PlanAction, plan_text, to_pddl_plan
from chronoplan.runtime.planners.external import run_val, validate_binary
from chronoplan.validators.families import export_scenario

pytestmark = pytest.mark.planners
ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden" / "pddl"


@pytest.fixture(scope="module")
def bundled():
    proj, diags, _ = chronoplan.compile_paths(ROOT / "domains")
    assert proj is not None and not [d for d in diags if d.is_error]
    names = [s.name for s in proj.scenarios.values() if s.procedures]
    assert len(names) >= 100
    return proj, names


@pytest.fixture(scope="module")
def reader():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from unified_planning.io import PDDLReader
    return PDDLReader()


def _check_read(reader, e):
    up = reader.parse_problem_string(e.domain_text(), e.problem_text())
    names = {a.name for a in up.actions}
    assert names == set(e.actions), e.scenario
    objs = {o.name for o in up.all_objects}
    assert objs == {o for o, _ in e.problem.objects}, e.scenario
    assert len(up.goals) >= 1
    if not e.classical:
        assert len(up.timed_effects) == len(e.problem.tils)
    else:
        assert up.quality_metrics                       # minimize total-cost


def test_pddlreader_reads_the_golden_exports(reader):
    proj = chronoplan.load(GOLDEN / "cake.chrono")
    for classical in (False, True):
        _check_read(reader, export_scenario(proj, "cake", classical=classical))


def test_pddlreader_reads_every_bundled_classical_export(bundled, reader):
    proj, names = bundled
    for name in names:
        _check_read(reader, export_scenario(proj, name, classical=True))
    for name in names[:3]:
        _check_read(reader, export_scenario(proj, name))


@pytest.mark.skipif(validate_binary() is None, reason="VAL is not installed: pip install 'chronoplan[planners]'")
def test_val_accepts_every_bundled_scenario(bundled):
    pytest.importorskip("ortools", reason="the plans come from CP-SAT: pip install 'chronoplan[optimal]'")
    from chronoplan.runtime.planners.cpsat import solve_cpsat
    from chronoplan.runtime.procedure.sim import Chunk, simulate
    proj, names = bundled
    for name in names:
        e = export_scenario(proj, name)
        r = solve_cpsat(e.source, 20, 1, max_pieces=1)
        assert r.status in ("optimal", "feasible"), name
        res = simulate(e.source, [Chunk(i, x.task, x.step, x.start, x.duration, x.agent)
                                  for i, x in enumerate(r.schedule)])
        assert not res.violations, name
        text, tol = to_pddl_plan(e, r.schedule)
        v = run_val(e.domain_text(), e.problem_text(), text, tol)
        assert v.valid, (name, v.output[-800:])
        c = export_scenario(proj, name, classical=True)
        order = sorted(r.schedule, key=lambda x: (x.start, x.start + x.duration, x.task, x.step))
        seq = [PlanAction(Fraction(i), c.names.get(("step", (x.task, x.step))), (), None)
               for i, x in enumerate(order)]
        v = run_val(c.domain_text(), c.problem_text(), plan_text(seq))
        assert v.valid, (name, v.output[-800:])
