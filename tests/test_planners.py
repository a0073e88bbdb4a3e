"""``chronoplan solve --planner aries|kairos|lpg|fast-downward|pyperplan``: plans, validity, process hygiene.

Every plan a planner returns is mapped back to a schedule that the simulator accepts (``valid`` true in the
solve report, and ``chronoplan validate`` on the written plan); VAL accepts the planner's own PDDL plan on
the export it was given, and the final schedule on the full temporal export.  No planner process outlives
a run (aries starts a ``serve`` process): the process table is compared before and after, including runs
killed at their time limit.  Tests skip (with the reason) only when an engine is not installed.
"""
from __future__ import annotations

import json
import os
import time
from fractions import Fraction
from pathlib import Path

import pytest
from proc_util import descendants, table

import chronoplan
from chronoplan.cli import main
from chronoplan.compiler.pddl.plan import to_pddl_plan
from chronoplan.compiler.pddl.temporal import export_temporal
from chronoplan.runtime.planners.external import (
    ENGINES,
    missing,
    run_val,
    run_worker,
    solve_many,
    solve_problem,
    validate_binary,
)
from chronoplan.validators.families import export_scenario

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden" / "pddl"
TEMPORAL = ["aries", "kairos", "lpg"]
CLASSICAL = ["fast-downward", "pyperplan"]
SCENARIOS = [(ROOT / "domains" / "recipes", "Roast-Chicken_Garlic-Potatoes"),
             (ROOT / "domains" / "recipes", "Roast-Chicken_two_cooks"),
             (ROOT / "domains" / "timearena" / "cooking.chrono", "cooking3_4_constrained"),
             (GOLDEN / "cake.chrono", "cake")]


def needs(name):
    why = missing(name)
    return pytest.mark.skipif(why is not None, reason=why or "")


needs_val = pytest.mark.skipif(validate_binary() is None,
                               reason="VAL is not installed: pip install 'chronoplan[planners]'")


def alive_in_group(group: int) -> list:
    """Living (non-zombie) processes of a process group or session; zombies are dead, only unreaped."""
    deadline = time.monotonic() + 3
    while True:
        left = [pid for pid, row in table().items() if group in (row.pgid, row.sid) and row.state != "Z"]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


@pytest.fixture(scope="module")
def projects():
    return {path: chronoplan.load(path) for path, _ in SCENARIOS}


def _solve_cli(tmp_path, capsys, path, scen, planner, timeout=60):
    out = tmp_path / f"{planner}-{scen}.json"
    status = main(["solve", str(path), "--scenario", scen, "--planner", planner, "--timeout", str(timeout),
                   "--format", "json", "-o", str(out)])
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    return status, report, out


@pytest.mark.planners
@pytest.mark.parametrize("planner", TEMPORAL)
@pytest.mark.parametrize("path,scen", SCENARIOS, ids=[s for _, s in SCENARIOS])
def test_temporal_planner_plans_are_valid(planner, path, scen, tmp_path, capsys, projects):
    if missing(planner):
        pytest.skip(missing(planner))
    before = set(descendants(os.getpid(), table()))
    status, report, out = _solve_cli(tmp_path, capsys, path, scen, planner)
    assert set(report) == {"planner", "status", "makespan", "bound", "valid", "seconds", "lower_bound"}
    assert report["planner"] == planner and report["status"] == "feasible", report
    assert report["valid"] is True and status == 0 and report["seconds"] < 60
    plan = json.loads(out.read_text())
    assert plan["scenario"] == scen and len(plan["schedule"]) == len(export_scenario(projects[path], scen).source.steps)
    assert main(["validate", str(path), str(out), "--scenario", scen, "--format", "json"]) == 0
    capsys.readouterr()
    assert set(descendants(os.getpid(), table())) <= before


@pytest.mark.planners
@needs_val
@pytest.mark.parametrize("planner", TEMPORAL)
def test_val_accepts_planner_plans(planner, projects):
    if missing(planner):
        pytest.skip(missing(planner))
    path, scen = SCENARIOS[3]
    proj = projects[path]
    full = export_scenario(proj, scen)
    r = solve_problem(full.source, planner, 60, proj)
    assert r.status == "feasible" and r.stats["times"] == "retimed"
    given = export_temporal(full.source, proj, envelopes=ENGINES[planner].envelopes)
    raw = run_val(given.domain_text(), given.problem_text(), r.stats["pddl_plan"], Fraction(1, 1000))
    assert raw.valid, raw.output[-1000:]
    text, tol = to_pddl_plan(full, r.schedule)
    final = run_val(full.domain_text(), full.problem_text(), text, tol)
    assert final.valid, final.output[-1000:]
    assert r.makespan <= r.stats["pddl_makespan"]         # retiming only removes epsilons and idle time


@pytest.mark.planners
@pytest.mark.skipif(missing("kairos") is not None, reason=missing("kairos") or "")
def test_kairos_solves_every_bundled_scenario():
    """Every bundled step-level scenario: unified-planning reads the temporal export, kairos finds a plan,
    the simulator accepts the mapped schedule, and VAL accepts both kairos' plan and the schedule's plan.
    One worker process for all of them (solve_many), so unified-planning starts once."""
    from chronoplan.compiler.instantiate import procedure_problem
    proj, diags, _ = chronoplan.compile_paths(ROOT / "domains")
    scens = [s for s in proj.scenarios.values() if s.procedures]
    problems = [procedure_problem(proj, s) for s in scens]
    before = set(descendants(os.getpid(), table()))
    results = solve_many(problems, "kairos", 30, proj)
    assert set(descendants(os.getpid(), table())) <= before
    assert alive_in_group(results[0].stats["pgid"]) == []
    for scen, _prob, r in zip(scens, problems, results):
        assert r.status == "feasible" and r.stats["times"] == "retimed", (scen.name, r.message)
        from chronoplan.validators.grade import grade
        assert grade(proj, scen.name, r.plan_json(scen.name)).valid, scen.name
        if validate_binary() is not None:
            e = export_scenario(proj, scen.name)
            assert run_val(e.domain_text(), e.problem_text(), r.stats["pddl_plan"]).valid, scen.name
            text, tol = to_pddl_plan(e, r.schedule)
            assert run_val(e.domain_text(), e.problem_text(), text, tol).valid, scen.name


@pytest.mark.planners
@pytest.mark.parametrize("planner", CLASSICAL)
@pytest.mark.parametrize("path,scen", [SCENARIOS[1], SCENARIOS[3]], ids=[SCENARIOS[1][1], SCENARIOS[3][1]])
def test_classical_planners_solve_the_classical_export(planner, path, scen, tmp_path, capsys):
    if missing(planner):
        pytest.skip(missing(planner))
    status, report, out = _solve_cli(tmp_path, capsys, path, scen, planner)
    assert report["status"] == "feasible" and report["valid"] is True and status == 0, report


@pytest.mark.planners
@pytest.mark.parametrize("planner", ["aries", "kairos"])
def test_no_engine_process_outlives_a_run(planner, tmp_path):
    if missing(planner):
        pytest.skip(missing(planner))
    e = export_scenario(chronoplan.load(GOLDEN / "cake.chrono"), "cake")
    dom, prob = e.write(tmp_path)
    before = set(descendants(os.getpid(), table()))
    out = run_worker(planner, dom, prob, 30, tmp_path)
    assert out.status == "solved" and out.actions
    assert alive_in_group(out.info["pgid"]) == []
    assert set(descendants(os.getpid(), table())) <= before


def engine_processes() -> set:
    """(pid, start time) of every living process running a planner engine or worker, in any session
    (unified-planning starts Fast Downward's driver and LPG in sessions of their own)."""
    out = set()
    for pid, row in table().items():
        if row.state == "Z":
            continue
        cmd, start = row.cmd, str(row.start)
        if "site-packages/up_" in cmd or "planners.worker" in cmd:
            out.add((pid, start))
    return out


@pytest.mark.planners
@pytest.mark.parametrize("planner", ["fast-downward", "lpg"])
def test_engines_in_sessions_of_their_own_are_killed_at_the_limit(planner, tmp_path):
    # a two-order kitchen that neither finishes in 20 s; Fast Downward's driver and LPG run in new sessions,
    # which the worker's process-group kill alone does not reach
    if missing(planner):
        pytest.skip(missing(planner))
    proj = chronoplan.load(ROOT / "domains" / "paracook" / "generated" / "burrito_s42.chrono")
    dom, prob = export_scenario(proj, "burrito_s42_o2_a2", classical=planner == "fast-downward").write(tmp_path)
    before = engine_processes()
    out = run_worker(planner, dom, prob, 20.0, tmp_path)
    assert out.status in ("timeout", "unsolvable", "solved"), out
    assert len(out.info["groups"]) >= 2 or out.status != "timeout"     # the engine's own group was seen
    deadline = time.monotonic() + 3
    while engine_processes() - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert engine_processes() - before == set()


@pytest.mark.planners
@pytest.mark.skipif(missing("aries") is not None, reason=missing("aries") or "")
def test_a_run_killed_at_its_time_limit_leaves_nothing(tmp_path):
    # one agent, three tasks and a limit one minute under the optimum (45): the planner searches until it
    # is killed; and a limit too short for the worker to even load its engine
    text = (ROOT / "domains" / "timearena" / "cooking.chrono").read_text()
    text += "\nscenario too_tight { unit min  agents agent1  procedures cooking8, cooking9, cooking10  limit 44 }\n"
    (tmp_path / "c.chrono").write_text(text)
    proj = chronoplan.load(tmp_path / "c.chrono")
    dom, prob = export_scenario(proj, "too_tight").write(tmp_path)
    for limit in (6.0, 0.3):
        before = set(descendants(os.getpid(), table()))
        t0 = time.monotonic()
        out = run_worker("aries", dom, prob, limit, tmp_path)
        took = time.monotonic() - t0
        assert out.status in ("timeout", "unsolvable"), out
        assert took < limit + 3
        assert alive_in_group(out.info["pgid"]) == []
        assert set(descendants(os.getpid(), table())) <= before


@pytest.mark.planners
@pytest.mark.skipif(missing("kairos") is not None, reason=missing("kairos") or "")
def test_a_killed_batch_reports_its_unanswered_jobs(tmp_path, monkeypatch):
    from chronoplan.runtime.planners import external
    e = export_scenario(chronoplan.load(GOLDEN / "cake.chrono"), "cake")
    jobs = [e.write(tmp_path / "a"), e.write(tmp_path / "b")]
    before = set(descendants(os.getpid(), table()))
    # killed after 2 x 0.01 s without grace: far less than the worker needs to import unified-planning,
    # so neither job can be answered whatever the machine's speed
    monkeypatch.setattr(external, "GRACE", 0.0)
    outs = external.run_batch("kairos", jobs, 0.01, tmp_path)
    assert [o.status for o in outs] == ["timeout", "timeout"]
    assert alive_in_group(outs[0].info["pgid"]) == []
    assert set(descendants(os.getpid(), table())) <= before


@pytest.mark.planners
@pytest.mark.skipif(missing("kairos") is not None, reason=missing("kairos") or "")
def test_cli_time_limit(tmp_path, capsys):
    t0 = time.monotonic()
    status, report, out = _solve_cli(tmp_path, capsys, GOLDEN / "cake.chrono", "cake", "kairos", timeout=0.2)
    assert status == 1 and report["status"] == "timeout" and report["valid"] is None and not out.exists()
    assert time.monotonic() - t0 < 0.2 + 3


@pytest.mark.planners
@pytest.mark.skipif(missing("kairos") is not None, reason=missing("kairos") or "")
def test_solve_reports_scenarios_it_cannot_export(capsys):
    status = main(["solve", str(ROOT / "domains" / "tools"), "--scenario",
                   "calendar_meeting_chain", "--planner", "kairos", "--format", "json"])
    # unsupported is a usage error, as in `chronoplan pddl` (exit 2), saying what exists instead; the JSON
    # report of the CLI contract still says status "error"
    assert status == 2
    cap = capsys.readouterr()
    report = json.loads(cap.out.strip().splitlines()[-1])
    assert report["status"] == "error" and report["valid"] is None
    assert "tool-use scenarios have no planner kairos" in cap.err and "fast-downward or pyperplan" in cap.err


def test_missing_engine_is_a_usage_error(monkeypatch, capsys):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "up_aries" else real(name, *a))
    assert missing("aries") and "chronoplan[planners]" in missing("aries")
    status = main(["solve", str(GOLDEN / "cake.chrono"), "--planner", "aries"])
    assert status == 2 and "chronoplan[planners]" in capsys.readouterr().err
    assert missing("nope") == "unknown planner 'nope'"
