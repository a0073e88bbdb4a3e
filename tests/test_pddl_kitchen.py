"""PDDL export of grid kitchens (compiler/pddl/kitchen.py) and planners' plans mapped back (runtime/kitchen/solve.py).

Golden files (tests/golden/pddl/kitchen/): the temporal and classical export of the bundled scenario
burger_s1_a1_slowcut and a plan from kairos and from Fast Downward for them; regenerate the exports with
``UPDATE_GOLDEN=1 pytest tests/test_pddl_kitchen.py`` (the plans must then be re-made with ``chronoplan solve``
if the export changed).  Without planners: every kitchen exports, deterministically, names map back, the
scenario's constants and recipes reach the PDDL, operators of no known shape are reported, and the golden plans map
back to simulator-valid ParaCook plans while broken copies are refused.  With the planner extras: PDDLReader
reads the temporal export of every kitchen (and a sample of classical ones), VAL parses both exports of
every kitchen, VAL agrees with the simulator on the golden plans and their broken copies,
and kairos / Fast Downward solve 1-2 order, 1-2 agent kitchens within 60 s with simulator-valid plans.
"""
from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from pathlib import Path

import pytest
from golden_util import check_golden as _golden

import chronoplan
from chronoplan.cli import main
from chronoplan.compiler.pddl.common import ExportError
from chronoplan.compiler.pddl.plan import parse_plan
from chronoplan.runtime.kitchen.solve import retime, to_steps
from chronoplan.runtime.kitchen.world import World
from chronoplan.runtime.planners.external import missing, run_val, validate_binary
from chronoplan.validators.families import export_scenario
from chronoplan.validators.kitchen.grade import grade_grid_plan

ROOT = Path(__file__).resolve().parent.parent
PARACOOK = ROOT / "domains" / "paracook"
GOLDEN = Path(__file__).parent / "golden" / "pddl" / "kitchen"
SCEN = "burger_s1_a1_slowcut"
needs_val = pytest.mark.skipif(validate_binary() is None,
                               reason="VAL is not installed: pip install 'chronoplan[planners]'")


@pytest.fixture(scope="module")
def paracook():
    return chronoplan.load(PARACOOK)


def _kitchens(project) -> list:
    return [n for n, s in project.scenarios.items() if s.map is not None and s.orders]


@pytest.mark.parametrize("kind", ["temporal", "classical"])
def test_golden_export(paracook, kind):
    e = export_scenario(paracook, SCEN, classical=kind == "classical")
    _golden(GOLDEN / kind / "domain.pddl", e.domain_text())
    _golden(GOLDEN / kind / "problem.pddl", e.problem_text())


def test_every_kitchen_exports_deterministically_and_names_map_back(paracook):
    again = chronoplan.load(PARACOOK)
    names = _kitchens(paracook)
    assert len(names) >= 70
    for name in names:
        for classical in (False, True):
            a = export_scenario(paracook, name, classical=classical)
            b = export_scenario(again, name, classical=classical)
            assert a.domain_text() == b.domain_text() and a.problem_text() == b.problem_text(), name
            for obj, _ in a.problem.objects:
                assert a.names.get(a.names.lookup(obj)) == obj
            assert {"P011", "P012", "P014"} <= {d.code for d in a.diagnostics}
            assert all(d.severity.name == "WARNING" for d in a.diagnostics)


def test_the_scenario_reaches_the_pddl(paracook):
    slow = export_scenario(paracook, SCEN)            # const CUT = 6 in this scenario
    fast = export_scenario(paracook, "burger_s1_a2")  # CUT = 4
    dur = {n: next(a.duration for a in e.domain.actions if a.name == "chop") for n, e in
           (("slow", slow), ("fast", fast))}
    assert dur == {"slow": 60, "fast": 40}
    serves = [a for a in fast.domain.actions if a.name.startswith("serve-")]
    assert [a.comment for a in serves] == ["order 1: burger_cheese", "order 2: burger_basic"]
    assert [t for _, t in serves[0].params if t in ("bread", "meat", "cheese")] == ["bread", "meat", "cheese"]
    pools = sorted(o for o, t in fast.problem.objects if t in ("bread", "meat", "cheese"))
    assert pools == ["bread_1", "bread_2", "cheese_1", "meat_1", "meat_2"]
    goal = [lit.text() for lit in fast.problem.goal]
    assert goal == ["(all-served)"]
    cook = next(a for a in fast.domain.actions if a.name == "cook-fry")
    assert cook.duration == 240 and [lit.text() for lit in cook.cond_all] == ["(on ?p ?s)", "(in ?i ?p)"]


def _with_extra(tmp_path: Path, physics: str, kitchen: str = "") -> Path:
    d = tmp_path / "k"
    d.mkdir()
    (d / "physics.chrono").write_text((PARACOOK / "physics.chrono").read_text() + physics)
    (d / "kitchen.chrono").write_text((PARACOOK / "kitchen.chrono").read_text() + kitchen)
    return d


def test_unknown_operators_are_reported_with_their_location(tmp_path):
    d = _with_extra(tmp_path, "\naction juggle(a: agent, i: ingredient) {\n  duration 2\n  busy a\n"
                    "  when start: holding(a, i)\n  at end: i.state = cooked\n}\n")
    project = chronoplan.load(d)
    with pytest.raises(ExportError) as exc:
        export_scenario(project, "burger_s1_a2")
    [diag] = exc.value.diagnostics
    assert diag.code == "P010" and "operator juggle does not have a shape the kitchen export lowers" in diag.message
    assert diag.span is not None and diag.span.line > 240
    assert main(["pddl", str(d), "-s", "burger_s1_a2", "-o", str(tmp_path / "out")]) == 2


def test_recipes_with_a_repeated_kind_are_reported(tmp_path):
    d = _with_extra(tmp_path, "\nrecipe double_bread in burger = plate[2 * bread]\n",
                    "\nscenario dbl {\n  map small\n  agents agent1 at (2, 1)\n  orders double_bread\n}\n")
    with pytest.raises(ExportError) as exc:
        export_scenario(chronoplan.load(d), "dbl")
    assert [x.code for x in exc.value.diagnostics] == ["P010"] and "double_bread" in str(exc.value)


def _golden_plan(project, kind: str):
    export = export_scenario(project, SCEN, classical=kind == "classical")
    actions = parse_plan((GOLDEN / f"{kind}-plan.txt").read_text())
    return export, actions


@pytest.mark.parametrize("kind", ["temporal", "classical"])
def test_golden_plans_map_back_to_valid_paracook_plans(paracook, kind):
    export, actions = _golden_plan(paracook, kind)
    steps, problems = to_steps(export, paracook, actions)
    assert problems == [] and len(steps) == len(actions)
    cooking = [s for s in steps if s.agent is None]
    assert cooking and all(s.what == "fry" for s in cooking)      # the cook action has no agent
    plan, why = retime(World(paracook, SCEN), steps, export.classical)
    assert why is None
    acts = plan["agent1"]
    assert {a["action"] for a in acts} <= {"MoveTo", "Interact", "Process", "Wait"}
    assert sum(a["action"] == "Process" for a in acts) == 2       # chop meat, chop lettuce
    report = grade_grid_plan(paracook, SCEN, {"plan": plan})
    assert report.valid, report.to_text()
    pddl_end = max(a.start + (a.duration or 0) for a in actions) / export.scale.factor
    if kind == "temporal":                   # retiming removes the interaction ticks and idle time
        assert report.metrics["oct"] <= pddl_end


def _broken(actions, name: str):
    drop = next(i for i, a in enumerate(actions) if a.name == name)
    return actions[:drop] + actions[drop + 1:]


@pytest.mark.parametrize("name", ["chop", "cook-fry", "add-to-cookware-chopped"])
def test_broken_plans_are_refused_with_a_reason(paracook, name):
    export, actions = _golden_plan(paracook, "temporal")
    steps, problems = to_steps(export, paracook, _broken(list(actions), name))
    assert problems == []
    plan, why = retime(World(paracook, SCEN), steps, False)
    if why is None:                           # the simulator cooks by itself: only the missing chop or add fail
        assert name == "cook-fry"
        assert grade_grid_plan(paracook, SCEN, {"plan": plan}).valid
    else:
        assert "agent1" in why and ("wrong dish" in why or "the planner meant" in why
                                    or "no operator applies" in why), why


def test_unknown_actions_and_objects_are_reported(paracook):
    export = export_scenario(paracook, SCEN)
    steps, problems = to_steps(export, paracook, parse_plan("0: (juggle agent1) [10]\n"
                                                            "1: (move-d2 agent9 c2_1 c4_1) [20]"))
    assert problems == ["unknown PDDL action juggle", "unknown PDDL object agent9 in move-d2",
                        "move-d2: no agent or target among ('agent9', 'c2_1', 'c4_1')"]


# ------------------------------------------------------------------ external tools
def _read_one(args):
    import warnings
    warnings.simplefilter("ignore")
    from unified_planning.io import PDDLReader
    dom, prob = args
    p = PDDLReader().parse_problem(str(dom), str(prob))
    return len(p.actions), len(p.all_objects)


@pytest.mark.planners
@pytest.mark.skipif(missing("kairos") is not None, reason=missing("kairos") or "")
def test_pddlreader_reads_every_kitchen_export(paracook, tmp_path):
    # the temporal export of every kitchen; the classical one (same actions, instantaneous) of one kitchen
    # per map file and of the two hand-written ones (each parse takes seconds: pyparsing)
    jobs = []
    for i, name in enumerate(_kitchens(paracook)):
        for classical in (False, True) if name.endswith("_o2_a2") or name.startswith("burger_s1") else (False,):
            e = export_scenario(paracook, name, classical=classical)
            jobs.append((e, e.write(tmp_path / f"{i}-{int(classical)}")))
    with ProcessPoolExecutor(max_workers=2) as pool:
        counts = list(pool.map(_read_one, [paths for _, paths in jobs]))
    for (e, _), (n_actions, n_objects) in zip(jobs, counts):
        assert n_actions == len(e.domain.actions) and n_objects == len(e.problem.objects), e.scenario


@pytest.mark.planners
@needs_val
def test_val_reads_every_kitchen_export(paracook):
    for name in _kitchens(paracook):
        for classical in (False, True):
            e = export_scenario(paracook, name, classical=classical)
            r = run_val(e.domain_text(), e.problem_text(), "")
            assert "Goal not satisfied" in r.output and "rror" not in r.output, (name, r.output[-500:])


@pytest.mark.planners
@needs_val
@pytest.mark.parametrize("kind", ["temporal", "classical"])
def test_val_agrees_with_the_simulator_on_golden_plans_and_every_one_action_deletion(paracook, kind):
    """Differential test: the golden plan and each copy with one action deleted, judged by VAL on the
    export and by chronoplan (mapped back, retimed, graded).  The one intended disagreement: deleting a
    move that the agent's next move makes up for (MoveTo names only the target cell, so the simulator
    does not notice; PDDL's move needs the agent at its source cell)."""
    from chronoplan.compiler.pddl.plan import plan_text
    export, actions = _golden_plan(paracook, kind)
    actions = sorted(actions, key=lambda a: a.start)

    def verdicts(plan):
        val = run_val(export.domain_text(), export.problem_text(), plan_text(plan), Fraction(1, 1000)).valid
        steps, problems = to_steps(export, paracook, plan)
        out, why = retime(World(paracook, SCEN), steps, export.classical)
        ours = not problems and why is None and grade_grid_plan(paracook, SCEN, {"plan": out}).valid
        return val, ours

    assert verdicts(actions) == (True, True)
    disagree = []
    for i, a in enumerate(actions):
        val, ours = verdicts(actions[:i] + actions[i + 1:])
        assert not val, f"VAL accepts the plan without {a.name}"
        if ours:
            disagree.append(i)
    for i in disagree:
        nxt = next(b for b in actions[i + 1:] if b.args[:1] == actions[i].args[:1])
        assert actions[i].name.startswith("move-") and nxt.name.startswith("move-"), actions[i]
    assert len(disagree) <= 2


def _solve(tmp_path, capsys, path, scen, planner):
    out = tmp_path / f"{planner}-{scen}.json"
    status = main(["solve", str(path), "--scenario", scen, "--planner", planner, "--timeout", "60",
                   "--format", "json", "-o", str(out)])
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    return status, report, out


@pytest.mark.planners
@pytest.mark.parametrize("planner,path,scen", [
    ("kairos", PARACOOK / "kitchen.chrono", SCEN),
    ("kairos", PARACOOK / "generated" / "burger_s42.chrono", "burger_s42_o2_a2"),
    ("fast-downward", PARACOOK / "kitchen.chrono", "burger_s1_a2"),
])
def test_planners_solve_kitchens_with_simulator_valid_plans(planner, path, scen, tmp_path, capsys):
    if missing(planner):
        pytest.skip(missing(planner))
    status, report, out = _solve(tmp_path, capsys, path, scen, planner)
    assert report["status"] == "feasible" and report["valid"] is True and status == 0, report
    assert report["seconds"] < 60 and report["makespan"] > 0
    plan = json.loads(out.read_text())
    assert plan["scenario"] == scen
    assert set(plan["plan"]) == {a.name for a in chronoplan.load(path).scenario(scen).agents}
    assert main(["validate", str(path), str(out), "--scenario", scen, "--format", "json"]) == 0
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert line["metrics"]["oct"] == report["makespan"]


def test_a_physics_without_wash_is_a_located_error_not_a_traceback(tmp_path, capsys):
    """#16 finding 2: ``chronoplan pddl`` on a kitchen with its own physics ended in ``KeyError: 'wash'``."""
    import shutil
    copy = tmp_path / "paracook"
    shutil.copytree(PARACOOK, copy)
    physics = copy / "physics.chrono"
    text = physics.read_text()
    start = text.index("action wash(")
    text = text[:start] + text[text.index("\n}\n", start) + 3:]
    physics.write_text(text.replace("= chop | wash", "= chop"))
    assert main(["check", str(copy)]) == 0
    capsys.readouterr()
    assert main(["pddl", str(copy), "--scenario", "burger_s42_o1_a1", "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "error[P010]: scenario burger_s42_o1_a1: the kitchen export needs an operator that makes a served " \
        "plate usable again" in err
    assert "internal error" not in err and "Traceback" not in err
