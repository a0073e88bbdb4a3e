"""The scenario-family registry (validators/families.py, #12 item 1): one entry per ``ir.ScenarioKind``, and the
entry agrees with what the commands, readers, graders, planners and environments really do.

Checked here: every kind has an entry; every ``module:function`` it names loads; its planners are
``chronoplan solve``'s, its protocols ``chronoplan play``'s and the Gymnasium environments', its compatibility
modes ``validators.compat``'s; its plan formats are exactly those its readers accept; every report its grader
writes carries its metric keys; ``lacks`` says what exists instead; and the commands ask it (``validate
--plan-format``, ``play --protocol``, ``list``, ``check --summary``, the PDDL export of any scenario).
"""
from __future__ import annotations

import json
import re
from dataclasses import fields, replace
from pathlib import Path

import pytest
from kitchen_util import generated
from test_kitchen_plans import BURGER_B

import chronoplan
from chronoplan.cli import main
from chronoplan.commands.play import PROTOCOLS
from chronoplan.commands.solve import PLANNERS
from chronoplan.compiler.household.problem import HouseholdProblem
from chronoplan.compiler.ir import ScenarioKind
from chronoplan.compiler.pddl.common import ExportError
from chronoplan.runtime.household.baseline import run_baseline
from chronoplan.validators.compat import Compat
from chronoplan.validators.families import (
    FAMILIES,
    PDDL_PLANNERS,
    Family,
    Ref,
    compat_family,
    export_scenario,
    family,
    family_of,
)
from chronoplan.validators.grade import Grader
from chronoplan.validators.plans import FORMATS
from chronoplan.validators.tools.export import reference_plan

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ROOT / "domains" / "recipes"
TOOLS = ROOT / "domains" / "tools"
ROAST = "Roast-Chicken_Garlic-Potatoes"
SHOP = "shop_checkout_chain"
BURGER = "burger_s42_o1_a2"
HOME = ROOT / "domains" / "household"
PLANNING = ROOT / "domains" / "planning"
TEA = "tea_1"
# a plan no reader accepts in another family's format: the reader says so instead of reading it
NOT_MY_FORMAT = re.compile(r"cannot be graded against|unknown tool-plan format")


@pytest.fixture(scope="module")
def samples() -> dict:
    """Family -> (project, scenario name, a valid plan), one bundled scenario per family."""
    recipes, tools, home = chronoplan.load(RECIPES), chronoplan.load(TOOLS), chronoplan.load(HOME)
    out = {ScenarioKind.PROCEDURES: (recipes, ROAST, json.loads((RECIPES / "plans" / "valid.json").read_text())),
           ScenarioKind.TOOLS: (tools, SHOP, reference_plan(tools.scenario(SHOP))),
           ScenarioKind.GRID: (generated(), BURGER, BURGER_B),
           ScenarioKind.HOUSEHOLD: (home, TEA, run_baseline(HouseholdProblem(home, TEA), log=True).log.text()),
           ScenarioKind.WORLD: (chronoplan.load(PLANNING), "sussman",
                                (PLANNING / "plans" / "sussman_valid.txt").read_text())}
    assert set(out) == set(ScenarioKind)
    return out


# ------------------------------------------------------------------------------------------- the table
def test_every_kind_has_one_entry():
    assert set(FAMILIES) == set(ScenarioKind)
    for kind, fam in FAMILIES.items():
        assert fam.kind is kind and family(kind) is fam and fam.name == kind.value
    for attr in ("label", "title"):
        assert len({getattr(f, attr) for f in FAMILIES.values()}) == len(FAMILIES), attr


@pytest.mark.parametrize("fam", FAMILIES.values(), ids=lambda f: f.name)
def test_every_ref_loads(fam):
    refs = [getattr(fam, f.name) for f in fields(Family) if isinstance(getattr(fam, f.name), Ref)]
    assert refs
    for ref in refs:
        assert callable(ref.load()), ref.target


def test_planners_are_the_solve_commands():
    named = {p for f in FAMILIES.values() for p in f.planners}
    assert named == set(PLANNERS)                          # every planner solves some family, and is known
    from chronoplan.runtime.planners.external import ENGINES
    assert set(PDDL_PLANNERS) == set(ENGINES) == {n for n, p in PLANNERS.items() if p.entry is None}
    for fam in FAMILIES.values():
        if set(fam.planners) & set(PDDL_PLANNERS):         # a PDDL planner runs on the family's own export
            assert fam.pddl is not None and fam.pddl_solve is not None, fam.name
        else:
            assert fam.pddl_solve is None, fam.name


def test_protocols_are_plays_and_the_environments():
    assert {p for f in FAMILIES.values() for p in f.protocols} == set(PROTOCOLS)
    pytest.importorskip("gymnasium")
    from chronoplan import envs
    assert {getattr(envs, cls).protocol for cls in envs.IDS.values()} | {envs.HOUSEHOLD_PROTOCOL} == set(PROTOCOLS)
    pytest.importorskip("pettingzoo")
    from chronoplan import env
    assert env.HouseholdGymEnv.protocol == env.HouseholdParallelEnv.protocol == envs.HOUSEHOLD_PROTOCOL
    assert set(envs.HOUSEHOLD_IDS) == {env.HOUSEHOLD_ID}


def test_compat_modes_belong_to_one_family_each():
    listed = [m for f in FAMILIES.values() for m in f.compat]
    assert sorted(listed) == sorted(m.cli_name for m in Compat)
    for mode in Compat:
        assert mode.cli_name in mode.family.compat and compat_family(mode.cli_name) is mode.family
    with pytest.raises(KeyError):
        compat_family("nope")


def test_formats_are_the_readers():
    every = [f for fam in FAMILIES.values() for f in fam.formats]
    assert sorted(every) == sorted(FORMATS)                # each format is read by exactly one family


@pytest.mark.parametrize("kind", list(ScenarioKind), ids=lambda k: k.value)
def test_a_family_reads_its_formats_and_refuses_the_others(samples, kind):
    project, scen, _ = samples[kind]
    fam = family(kind)
    for fmt in FORMATS:
        for plan in ({}, [], "x"):
            rep = Grader(project).grade(scen, plan, fmt=fmt)
            refused = any(NOT_MY_FORMAT.search(e.message) for e in rep.errors)
            assert refused is (fmt not in fam.formats), (fam.name, fmt, plan, rep.to_text())


@pytest.mark.parametrize("kind", list(ScenarioKind), ids=lambda k: k.value)
def test_every_report_of_a_family_carries_its_metrics(samples, kind):
    """A valid plan, an invalid one, plans in every format and plans no reader can make sense of, graded by
    chronoplan's rules and by every usable compatibility mode of the family.  (A plan that cannot be read at
    all - an empty file, E002 - is reported before any family is asked: makespan and success only.)"""
    project, scen, good = samples[kind]
    fam = family(kind)
    bad = json.loads(json.dumps(good))
    if kind is ScenarioKind.PROCEDURES:
        bad["schedule"] = bad["schedule"][1:]
    elif kind is ScenarioKind.TOOLS:
        bad["steps"] = bad["steps"][:1]
    elif kind in (ScenarioKind.HOUSEHOLD, ScenarioKind.WORLD):   # the log / plan stops before the end
        bad = "".join(good.splitlines(keepends=True)[:3])
    else:
        bad = {agent: acts[:2] for agent, acts in bad.items()}
    plans = [good, bad, {}, [], "garbage", 42, None, {"schedule": []}, {"steps": []}, "Step(1, X, 00:00:00, 00:01:00)"]
    modes = [None] + [m for m in Compat if m.cli_name in fam.compat and m.refused is None]
    for mode in modes:
        grader = Grader(project, mode)
        seen, unheld = False, True
        for plan in plans:
            for fmt in (None,) + FORMATS:
                rep = grader.grade(scen, plan, fmt=fmt)
                assert set(fam.metrics) <= set(rep.metrics), (fam.name, mode, plan, fmt, sorted(rep.metrics))
                seen |= rep.valid is True
                unheld &= any(e.code == "E012" for e in rep.errors)
        # the valid plan was graded valid in every mode that can hold the scenario (--compat timearena holds
        # only TimeArena-shaped scenarios: tests/test_compat_timearena.py)
        assert seen or unheld, mode


def test_lacks_says_what_exists_instead():
    tools, grid, procs = (family(k) for k in (ScenarioKind.TOOLS, ScenarioKind.GRID, ScenarioKind.PROCEDURES))
    assert tools.lacks("planner kairos") == ("tool-use scenarios have no planner kairos; the tool-use export is "
                                             "classical (docs/pddl.md, Tool-use scenarios): --planner fast-downward "
                                             "or pyperplan")
    assert grid.lacks("planner cpsat") == ("kitchen scenarios have no planner cpsat; use a PDDL planner "
                                           "(--planner kairos or fast-downward, docs/planners.md)")
    assert procs.lacks("chart") == "procedure scenarios have no chart"
    for fam in FAMILIES.values():           # every capability a command may find missing has its "instead"
        missing = [c for c, has in (("PDDL export", fam.pddl), ("planner", fam.planners),
                                    ("interactive protocol", fam.protocols), ("chart", fam.chart)) if not has]
        missing += [f"planner {p}" for p in PLANNERS if fam.planners and p not in fam.planners]
        for capability in missing:
            assert fam.instead.get(capability), (fam.name, capability)
        assert set(fam.instead) <= set(missing), fam.name


# ------------------------------------------------------------------------------- the commands ask it
def test_export_of_any_scenario_asks_the_family(samples, monkeypatch):
    project, scen, _ = samples[ScenarioKind.TOOLS]              # the reference's calls as the goal (issue #15 item 7)
    export = export_scenario(project, scen)
    assert "(:goal" in export.problem_text() and export.diagnostics[0].code == "P023"
    fam = family_of(project.scenario(scen))                     # a family without an export says what instead
    monkeypatch.setitem(FAMILIES, ScenarioKind.TOOLS, replace(fam, pddl=None, instead={"PDDL export": "use X"}))
    with pytest.raises(ExportError) as exc:
        export_scenario(project, scen)
    assert [d.code for d in exc.value.diagnostics] == ["P010"]
    assert str(exc.value).count("tool-use scenarios have no PDDL export; use X") == 1
    project, scen, _ = samples[ScenarioKind.HOUSEHOLD]          # the omniscient relaxation (issue #13 item 5)
    export = export_scenario(project, scen)
    assert "(:action grab" in export.domain_text() and export.diagnostics[0].code == "P021"
    project, scen, _ = samples[ScenarioKind.PROCEDURES]
    assert "(define (domain" in export_scenario(project, scen).domain_text()


@pytest.mark.parametrize("argv, words", [
    (["--plan-format", "paracook"], "--plan-format paracook fits no scenario of {path} (plan formats of "
                                    "procedure scenarios: schedule, recipe2plan)"),
    (["--plan-format", "tools", "--scenario", ROAST], f"--plan-format tools: scenario {ROAST}: procedure "
     "scenarios have no plan format tools (plan formats of procedure scenarios: schedule, recipe2plan)"),
])
def test_validate_refuses_a_plan_format_the_family_does_not_read(capsys, argv, words):
    plan = RECIPES / "plans" / "valid.json"
    assert main(["validate", str(RECIPES), str(plan), *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and words.format(path=RECIPES) in captured.err
    assert main(["validate", str(RECIPES), str(plan), "--plan-format", "schedule"]) == 0


def test_validate_plan_format_in_a_mixed_project_is_checked_per_plan(capsys, tmp_path):
    """With scenarios of several families and no --scenario, a format some family reads is not refused up
    front: each plan is graded against its own scenario (E012 when that family does not read it)."""
    both = tmp_path / "both"
    both.mkdir()
    for src in [RECIPES / "roast_dinner.chrono", *TOOLS.glob("*.chrono")]:
        (both / src.name).write_text(src.read_text())
    plan = tmp_path / f"{ROAST}.json"
    plan.write_text((RECIPES / "plans" / "valid.json").read_text())
    assert main(["validate", str(both), str(plan), "--plan-format", "tools", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [e["code"] for e in report["errors"]] == ["E012"]


def test_play_offers_the_family_protocols(capsys, samples):
    assert main(["play", str(RECIPES), "--scenario", ROAST, "--protocol", "kitchen"]) == 2
    err = capsys.readouterr().err
    assert (f"scenario {ROAST}: procedure scenarios have no kitchen protocol (protocols of procedure scenarios: "
            "timearena, recipe2plan)") in err
    assert main(["play", str(TOOLS), "--scenario", SHOP]) == 2
    assert "tool-use scenarios have no interactive protocol; grade whole tool plans" in capsys.readouterr().err
    assert main(["play", str(HOME), "--scenario", TEA, "--protocol", "timearena"]) == 2
    assert ("household scenarios have no timearena protocol (protocols of household scenarios: household)"
            in capsys.readouterr().err)


@pytest.mark.parametrize("option", [["--baseline"], ["--log", "x.jsonl"], ["--syntax", "tdw"], ["--seed", "3"]])
def test_play_refuses_household_options_for_other_families(capsys, option):
    assert main(["play", str(RECIPES), "--scenario", ROAST, *option]) == 2
    assert "--baseline, --log, --syntax and --seed are for household scenarios" in capsys.readouterr().err


def test_play_defaults_to_the_family_protocol(capsys, monkeypatch):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", str(HOME), "--scenario", TEA]) == 1                  # household, not timearena
    assert "=== alice" in capsys.readouterr().out


def test_solve_routes_astar_by_its_entry_point(capsys):
    assert PLANNERS["astar"].entry == "chronoplan.validators.household.solve:solve_astar"
    assert Ref(PLANNERS["astar"].entry).load().__name__ == "solve_astar"
    assert main(["solve", str(HOME), "--scenario", TEA, "--planner", "astar", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "optimal"
    assert main(["solve", str(RECIPES), "--scenario", ROAST, "--planner", "astar"]) == 2
    assert ("procedure scenarios have no planner astar; astar solves partially observable households"
            in capsys.readouterr().err)


def test_list_and_check_name_families_from_the_registry(capsys):
    assert main(["list", str(ROOT / "domains"), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["kind"] for r in rows} == {f.name for f in FAMILIES.values()}
    assert main(["check", str(ROOT / "domains"), "--summary", "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]["scenarios"]
    assert set(summary) == {f.label for f in FAMILIES.values()}
    by_name = {r["name"]: r["kind"] for r in rows}
    labels = {f.name: f.label for f in FAMILIES.values()}
    assert all(labels[by_name[s]] == label for label, names in summary.items() for s in names)


def test_environments_name_the_family_environments(samples):
    envs = pytest.importorskip("chronoplan.envs")
    project, scen, _ = samples[ScenarioKind.TOOLS]
    with pytest.raises(ValueError, match=r"\(tools\) has no timearena protocol; its environment: none \(tool-use "
                                         r"scenarios have no interactive protocol"):
        envs.TimeArenaEnv(project, scen)
