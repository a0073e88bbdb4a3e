"""`chronoplan solve` without --planner uses the first planner of the scenario's family (validators.families)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from chronoplan.cli import main
from chronoplan.runtime.planners.external import missing
from chronoplan.validators.families import FAMILIES

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("path,scenario,planner", [
    ("domains/recipes", "Roast-Chicken_Garlic-Potatoes", "cpsat"),
    ("domains/household", "tea_1", "astar"),
])
def test_the_family_default_planner_is_used(path, scenario, planner, capsys):
    if planner == "cpsat":
        pytest.importorskip("ortools")
    code = main(["solve", str(ROOT / path), "--scenario", scenario, "--format", "json", "--timeout", "60"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["planner"] == planner and out["status"] in ("optimal", "feasible"), out


@pytest.mark.planners
@pytest.mark.skipif(missing("fast-downward") is not None, reason=missing("fast-downward") or "")
def test_tool_scenarios_default_to_fast_downward(capsys):
    code = main(["solve", str(ROOT / "domains/tools"), "--scenario", "calendar_meeting_chain",
                 "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["planner"] == "fast-downward", out


def test_every_family_names_a_default():
    assert all(fam.planners for fam in FAMILIES.values())
    assert [fam.planners[0] for fam in FAMILIES.values()] == ["cpsat", "kairos", "fast-downward", "astar",
                                                              "fast-downward"]
