"""The scenario occupancy rule (``occupancy exclusive|overlap``): language, simulator, CP-SAT, PDDL.

Recipe2Plan's paper rule is "you can not start another action while executing a continuous action";
chronoplan's relaxation (``overlap``, the default) lets an autonomous step start inside a continuous one.
"""
from __future__ import annotations

import pytest

import chronoplan
import chronoplan.cli
from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import procedure_problem
from chronoplan.compiler.pddl.plan import TimedEntry, retime, schedule_sequence
from chronoplan.validators.replay import validate_plan

# One cook.  "Switch on" may only start at minute 5 (release 5, deadline 6 on a 1-minute step); "prep"
# takes 10 continuous minutes.  overlap: prep [0, 10) with the switch at 5 -> makespan 10.  exclusive: 5
# may not lie inside prep, so prep starts at 5 at the earliest (same instant is allowed) -> 15.
TEXT = """
procedure Oven { step 0 "Switch the oven on." 1 min autonomous release 5 min deadline 6 min }
procedure Prep { step 0 "Prepare the vegetables." 10 min }
scenario relaxed { unit min  agents cook  procedures Oven, Prep }
scenario paper { unit min  agents cook  occupancy exclusive  procedures Oven, Prep }
scenario named { unit min  agents cook  occupancy overlap  procedures Oven, Prep }
scenario two { unit min  agents cook1, cook2  occupancy exclusive  procedures Oven, Prep }
scenario two_relaxed { unit min  agents cook1, cook2  procedures Oven, Prep }
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    path = tmp_path_factory.mktemp("occ") / "o.chrono"
    path.write_text(TEXT)
    return chronoplan.load(path)


def problem(project, name):
    return procedure_problem(project, project.scenario(name))


def plan(*entries):
    return {"schedule": [dict(zip(("task", "step", "start", "duration", "agent"), e)) for e in entries]}


def codes(report):
    return [e.code for e in report.errors]


def test_the_rule_is_set_per_scenario(project):
    assert project.scenario("relaxed").occupancy is ir.OccupancyRule.OVERLAP
    assert project.scenario("named").occupancy is ir.OccupancyRule.OVERLAP
    assert project.scenario("paper").occupancy is ir.OccupancyRule.EXCLUSIVE
    assert problem(project, "paper").occupancy is ir.OccupancyRule.EXCLUSIVE


@pytest.mark.parametrize("line, message", [
    ("occupancy strict", "unknown occupancy rule 'strict' (one of overlap, exclusive)"),
    ("occupancy exclusive  occupancy overlap", "'occupancy' given twice"),
])
def test_bad_rules_are_located_errors(tmp_path, capsys, line, message):
    path = tmp_path / "bad.chrono"
    path.write_text(f'procedure P {{ step 0 "x" 1 min }}\nscenario s {{ unit min  {line}  procedures P }}\n')
    assert chronoplan.cli.main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert message in err and "bad.chrono:2:" in err


def test_a_kitchen_scenario_cannot_take_the_rule(tmp_path, capsys):
    path = tmp_path / "bad.chrono"
    path.write_text('import "paracook/physics.chrono"\nmap m """\n..\n"""\n'
                    'scenario s { map m  orders burger_basic  occupancy exclusive }\n')
    chronoplan.cli.main(["check", str(path)])
    assert "'occupancy' applies to scenarios with procedures" in capsys.readouterr().err


def test_autonomous_start_inside_a_continuous_step(project):
    inside = plan(("Prep", 0, 0, 10, "cook"), ("Oven", 0, 5, 1, "cook"))
    assert validate_plan(problem(project, "relaxed"), inside).valid
    assert validate_plan(problem(project, "named"), inside).valid
    report = validate_plan(problem(project, "paper"), inside)
    assert codes(report) == ["E401"]
    err = report.errors[0]
    assert err.index == 1 and "busy with step 0 of Prep until 00:10" in err.message
    assert "occupancy exclusive" in err.message and "at or after 00:10" in err.hint


@pytest.mark.parametrize("order", [0, 1])
def test_starting_with_a_continuous_step_is_allowed_in_any_listing_order(project, order):
    same = [("Prep", 0, 5, 10, "cook"), ("Oven", 0, 5, 1, "cook")]
    assert validate_plan(problem(project, "paper"), plan(*(same if order else same[::-1]))).valid


def test_starting_when_a_continuous_step_ends_is_allowed(tmp_path):
    path = tmp_path / "late.chrono"
    path.write_text(TEXT.replace("release 5 min deadline 6 min", "release 10 min deadline 11 min"))
    late = chronoplan.load(path)
    p = procedure_problem(late, late.scenario("paper"))
    assert validate_plan(p, plan(("Prep", 0, 0, 10, "cook"), ("Oven", 0, 10, 1, "cook"))).valid
    assert codes(validate_plan(p, plan(("Prep", 0, 1, 10, "cook"), ("Oven", 0, 10, 1, "cook")))) == ["E401"]


def test_with_several_agents_an_autonomous_start_names_its_agent(project):
    p = problem(project, "two")
    anonymous = {"schedule": [{"task": "Prep", "step": 0, "start": 0, "duration": 10, "agent": "cook1"},
                              {"task": "Oven", "step": 0, "start": 5, "duration": 1}]}
    assert codes(validate_plan(p, anonymous)) == ["E014"]
    assert validate_plan(problem(project, "two_relaxed"), anonymous).valid
    assert codes(validate_plan(p, plan(("Prep", 0, 0, 10, "cook1"), ("Oven", 0, 5, 1, "cook1")))) == ["E401"]
    assert validate_plan(p, plan(("Prep", 0, 0, 10, "cook1"), ("Oven", 0, 5, 1, "cook2"))).valid


@pytest.mark.optimal
@pytest.mark.parametrize("scenario, makespan", [("relaxed", 10), ("paper", 15), ("two", 10)])
def test_cpsat_models_the_rule(project, scenario, makespan):
    pytest.importorskip("ortools")
    from chronoplan.runtime.planners.cpsat import solve_cpsat
    p = problem(project, scenario)
    res = solve_cpsat(p, timeout=10, workers=2)
    assert res.status == "optimal" and res.makespan == makespan
    report = validate_plan(p, res.plan_json(scenario))
    assert report.valid, report.to_text()


@pytest.mark.optimal
def test_cpsat_splits_an_interruptible_step_around_an_autonomous_start(tmp_path):
    """The knead is split at minutes 5 and 6 so that the switch (5) and the bake (6, within 0 min of the
    switch) may start there: the chunks are written apart (merging them would put a start inside the knead)
    and the switch is listed first at minute 5."""
    pytest.importorskip("ortools")
    from chronoplan.runtime.planners.cpsat import solve_cpsat
    path = tmp_path / "k.chrono"
    path.write_text(TEXT.replace('"Prepare the vegetables." 10 min', '"Knead." 10 min interruptible')
                    .replace("deadline 6 min", "deadline 6 min\n  step 1 \"Bake.\" 30 min autonomous after 0 "
                             "within 0 min of 0"))
    project = chronoplan.load(path)
    p = procedure_problem(project, project.scenario("paper"))
    res = solve_cpsat(p, timeout=10, workers=2)
    assert res.status == "optimal" and res.makespan == 36
    assert validate_plan(p, res.plan_json("paper")).valid
    at5 = [(e.task, e.step) for e in res.schedule if e.start == 5]
    assert at5[0] == ("Oven", 0) and ("Prep", 0) in at5
    assert [(e.start, e.duration) for e in res.schedule if e.task == "Prep"] == [(0, 5), (5, 1), (6, 4)]


def test_pddl_temporal_export_gives_the_autonomous_start_an_agent(project):
    from chronoplan.validators.families import export_scenario
    relaxed = export_scenario(project, "relaxed").domain_text()
    paper = export_scenario(project, "paper").domain_text()
    oven = lambda text: text[text.index("step-oven-0"):].split("(:durative-action")[0]   # noqa: E731
    assert "?a - agent" not in oven(relaxed)
    assert "?a - agent" in oven(paper) and "(at start (free ?a))" in oven(paper)
    assert "(at start (not (free ?a)))" not in oven(paper)


def test_schedules_from_planner_sequences_keep_the_rule(project):
    p = problem(project, "paper")
    entries = schedule_sequence(p, [("Oven", 0), ("Prep", 0)])
    assert validate_plan(p, {"schedule": [e.to_json() for e in entries]}).valid
    assert {(e.task, e.start) for e in entries} == {("Prep", 5), ("Oven", 5)}
    keep = retime(p, [TimedEntry("Prep", 0, 5, 10, "cook"), TimedEntry("Oven", 0, 5, 1, "cook")], 1)
    assert keep is not None
    assert validate_plan(p, {"schedule": [e.to_json() for e in keep]}).valid
