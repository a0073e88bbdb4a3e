"""Issue #12 item 3, the acceptance test: the kitchen physics is read from its declarations, not its spelling.

A copy of domains/paracook in which every operator and every station type is renamed consistently (word
boundaries, across all .chrono files, e.g. ``chop`` -> ``slice_up``, ``stove`` -> ``hob``) must behave like
the original: (a) the hand-computed plans of tests/test_kitchen_plans.py, the scripted planner's plans and
truncated (invalid) copies of them get the same verdicts, error codes and metrics; (b) ``chronoplan pddl``
exports every checked kitchen, and the export equals the original's up to the renaming; (c) with the planner
extras, kairos and Fast Downward still solve a one-order kitchen of the copy with a simulator-valid plan.
"""
from __future__ import annotations

import json
import re
import shutil
from functools import cache
from pathlib import Path

import pytest
import test_kitchen_plans as human

import chronoplan
from chronoplan.cli import main
from chronoplan.runtime.kitchen.scripted import plan as scripted_plan
from chronoplan.runtime.kitchen.world import World
from chronoplan.runtime.planners.external import missing
from chronoplan.validators.families import export_scenario
from chronoplan.validators.kitchen.grade import grade_grid_plan

ROOT = Path(__file__).resolve().parent.parent
PARACOOK = ROOT / "domains" / "paracook"

OPERATORS = {
    "move_to": "walk_to", "take_from_dispenser": "grab_fresh", "dispense_onto_plate": "fill_dish",
    "dispense_into_cookware": "fill_vessel", "pick_up": "lift", "add_to_plate": "drop_on_dish",
    "add_to_cookware": "drop_in_vessel", "scoop_onto_plate": "gather_on_dish",
    "scoop_into_cookware": "gather_in_vessel",
    "plate_from_cookware": "dish_out", "pour_onto_plate": "tip_out", "put_down": "set_aside",
    "put_on_stove": "set_on_heat", "put_in_sink": "soak", "serve": "hand_over", "throw_away": "discard",
    "empty_container": "tip_bin", "chop": "slice_up", "wash": "scrub", "wait": "linger",
}
STATIONS = {
    "counter": "worktop", "table": "bench", "dispenser": "crate", "plate_return": "dish_hatch", "stove": "hob",
    "serving_window": "pass_window", "trash": "bin", "chopping_board": "cutting_block", "sink": "basin",
}
RENAME = {**OPERATORS, **STATIONS}
# one-order kitchens of every category, the two hand-written ones and a two-order one
SCENARIOS = ("burger_s1_a1_slowcut", "burger_s1_a2", "burger_s42_o1_a1", "burrito_s42_o1_a1", "pasta_s42_o1_a1",
             "salad_s42_o1_a1", "sashimi_s42_o1_a1", "sushi_s42_o1_a1", "sashimi_s42_o3_a2")
HUMAN = (("burger_s42_o1_a2", human.BURGER_B), ("sashimi_s42_o3_a2", human.SASHIMI_C),
         ("sushi_s42_o1_a3", human.SUSHI_D), ("salad_s42_o1_a2", human.SALAD_E), ("pasta_s42_o1_a2", human.PASTA_F))


def rename_source(text: str) -> str:
    for old, new in RENAME.items():
        text = re.sub(rf"\b{old}\b", new, text)
    return text


def rename_objects(text: str) -> str:
    """Station names (``stove1``) and PDDL names (``put-on-stove``, ``slice-up``) after the renaming."""
    for old, new in STATIONS.items():
        text = re.sub(rf"\b{old}(?=\d+\b)", new, text)
    for old, new in RENAME.items():
        text = re.sub(rf"(?<![\w-]){old.replace('_', '-')}(?![\w])", new.replace("_", "-"), text)
        text = re.sub(rf"\b{old}\b", new, text)
    return text


@cache
def _copy_dir() -> Path:
    import tempfile
    d = Path(tempfile.mkdtemp(prefix="chronoplan-rename-")) / "paracook"
    shutil.copytree(PARACOOK, d)
    for f in d.rglob("*.chrono"):
        f.write_text(rename_source(f.read_text(encoding="utf-8")), encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def copy_dir():
    d = _copy_dir()
    yield d
    shutil.rmtree(d.parent, ignore_errors=True)
    _copy_dir.cache_clear()


@pytest.fixture(scope="module")
def projects(copy_dir):
    return chronoplan.load(PARACOOK), chronoplan.load(copy_dir)


def test_the_copy_is_renamed_and_checks(copy_dir, capsys):
    text = (copy_dir / "physics.chrono").read_text()
    assert "action slice_up(" in text and "chop" not in re.sub(r"chop(ped|ping)", "", text)
    assert "type hob < station" in text and "stove" not in text
    assert main(["check", str(copy_dir)]) == 0


def _verdict(report) -> tuple:
    return report.valid, [(e.code, e.agent, e.index) for e in report.errors], json.dumps(report.metrics,
                                                                                         sort_keys=True, default=str)


def _plans(original) -> list:
    out = list(HUMAN)
    for name in ("burger_s1_a2", "burger_s42_o1_a1", "pasta_s42_o1_a1", "sushi_s42_o1_a1", "sashimi_s42_o3_a2"):
        out.append((name, scripted_plan(World(original, name))))
    broken = []
    for name, plan in out:          # invalid copies: each agent's plan cut in half, or its first action dropped
        broken.append((name, {a: acts[: len(acts) // 2] for a, acts in plan.items()}))
        broken.append((name, {a: acts[1:] for a, acts in plan.items()}))
    return out + broken


def test_plans_get_the_same_verdicts_and_metrics(projects):
    original, renamed = projects
    verdicts = []
    for name, plan in _plans(original):
        a = grade_grid_plan(original, name, {"plan": plan})
        b = grade_grid_plan(renamed, name, {"plan": json.loads(rename_objects(json.dumps(plan)))})
        va, vb = _verdict(a), _verdict(b)
        assert vb == va, (name, a.to_text(), b.to_text())
        verdicts.append(va[0])
    assert True in verdicts and False in verdicts


@pytest.mark.parametrize("classical", [False, True], ids=["temporal", "classical"])
def test_the_export_is_the_same_up_to_the_renaming(projects, classical):
    original, renamed = projects
    for name in SCENARIOS:
        a = export_scenario(original, name, classical=classical)
        b = export_scenario(renamed, name, classical=classical)
        assert b.domain_text() == rename_objects(a.domain_text()), name
        assert b.problem_text() == rename_objects(a.problem_text()), name
        assert [d.code for d in b.diagnostics] == [d.code for d in a.diagnostics], name


def test_chronoplan_pddl_exports_the_copy(copy_dir, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["pddl", str(copy_dir / "kitchen.chrono"), "--scenario", "burger_s1_a1_slowcut", "-o", str(out)]) == 0
    assert {p.name for p in out.rglob("*.pddl")} >= {"domain.pddl", "problem.pddl"}


@pytest.mark.planners
@pytest.mark.parametrize("planner, scen", [("kairos", "burger_s1_a1_slowcut"), ("fast-downward", "burger_s1_a2")])
def test_planners_solve_a_one_order_kitchen_of_the_copy(copy_dir, tmp_path, capsys, planner, scen):
    """kairos (temporal export) and Fast Downward (classical export, rescheduled) as on the original kitchen."""
    if missing(planner) is not None:
        pytest.skip(missing(planner) or "")
    path = copy_dir / "kitchen.chrono"
    out = tmp_path / "plan.json"
    status = main(["solve", str(path), "--scenario", scen, "--planner", planner, "--timeout", "120",
                   "--format", "json", "-o", str(out)])
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert status == 0 and report["status"] == "feasible" and report["valid"] is True, report
    acts = {a["action"] for acts in json.loads(out.read_text())["plan"].values() for a in acts}
    assert acts <= {"MoveTo", "Interact", "Process", "Wait", "Finish"}
    assert main(["validate", str(path), str(out), "--scenario", scen]) == 0
