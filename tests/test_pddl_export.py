"""PDDL export: golden files, lowering of every construct, diagnostics, determinism, the pddl CLI.

Golden files: tests/golden/pddl/cake.chrono -> cake/{temporal,classical}/{domain,problem}.pddl and
cake/diagnostics.txt.  Regenerate with ``UPDATE_GOLDEN=1 pytest tests/test_pddl_export.py``.
No external tool is needed here (tests/test_pddl_roundtrip.py and tests/test_planners.py use them).
"""
from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
from golden_util import check_golden as _golden

import chronoplan
from chronoplan.cli import main
from chronoplan.compiler import ir
from chronoplan.compiler.diagnostics import render
from chronoplan.compiler.instantiate import ConcreteLag, ProcedureProblem, ResourceInstance, SchedStep
from chronoplan.compiler.pddl.common import CODES, time_scale
from chronoplan.compiler.pddl.temporal import export_temporal
from chronoplan.compiler.pddl.write import num
from chronoplan.validators.families import export_scenario

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden" / "pddl"
NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


@pytest.fixture(scope="module")
def cake():
    return chronoplan.load(GOLDEN / "cake.chrono")


@pytest.mark.parametrize("kind", ["temporal", "classical"])
def test_golden_files(cake, kind):
    e = export_scenario(cake, "cake", classical=kind == "classical")
    _golden(GOLDEN / "cake" / kind / "domain.pddl", e.domain_text())
    _golden(GOLDEN / "cake" / kind / "problem.pddl", e.problem_text())


def test_golden_diagnostics(cake, monkeypatch):
    monkeypatch.chdir(GOLDEN)
    proj = chronoplan.load("cake.chrono")
    sources = {"cake.chrono": (GOLDEN / "cake.chrono").read_text()}
    text = ""
    for classical in (False, True):
        e = export_scenario(proj, "cake", classical=classical)
        text += "".join(render(d, sources) + "\n" for d in e.diagnostics)
    _golden(GOLDEN / "cake" / "diagnostics.txt", text)


def _action(e, name):
    return next(a for a in e.domain.actions if a.name == name)


def _texts(lits):
    return [lit.text() for lit in lits]


def test_lowering_of_every_construct(cake):
    e = export_scenario(cake, "cake")
    assert e.scale.factor == 10 and e.scale.grid == 10 and e.scale.slack == 5   # 1 PDDL unit = 6 s
    # preheat: no agent (autonomous), holds the oven lock, writes the property at its end
    pre = _action(e, "step-cake-0")
    assert pre.params == () and pre.duration == 100
    assert "(not (free-oven))" in _texts(pre.eff_start) and "(free-oven)" in _texts(pre.eff_end)
    assert "(prop-oven-temperature-180)" in _texts(pre.eff_end)
    assert "(not (prop-oven-temperature-0))" in _texts(pre.eff_end)
    # bake needs the value at its start, and its prerequisites, and the lag window
    bake = _action(e, "step-cake-2")
    conds = _texts(bake.cond_start)
    assert {"(prop-oven-temperature-180)", "(done-cake-0)", "(done-cake-1)", "(window-cake-2-1)"} <= set(conds)
    # the envelope: fixed duration (d_X + L) + slack, opened before the anchor (mix) starts
    clip = _action(e, "clip-cake-2-1")
    assert clip.duration == (5 + 5) * 10 + 5 and not clip.duration_le
    assert "(clip-open-cake-2-1)" in _texts(_action(e, "step-cake-1").cond_start)
    assert "(not (window-cake-2-1))" in _texts(clip.eff_end)
    # "autonomous for 2 min" of a 6 min step: an agent part and a running part, a slot of the fryer
    fry, run = _action(e, "step-cake-3"), _action(e, "run-cake-3")
    assert fry.duration == 20 and run.duration == 40
    assert fry.params == (("?a", "agent"), ("?s1", "slot-fryer")) and run.params == (("?s1", "slot-fryer"),)
    assert "(released-cake-3)" in _texts(fry.cond_start) and "(done-cake-3)" in _texts(run.eff_end)
    assert "(slot-free ?s1)" in _texts(run.eff_end) and "(free ?a)" in _texts(fry.eff_end)
    # minimum lag: a timer of d_X + L from the start of bake
    wait = _action(e, "wait-cake-4-2")
    assert wait.duration == (30 + 2) * 10 and "(started-cake-2)" in _texts(wait.cond_start)
    cool = _action(e, "step-cake-4")
    assert "(lag-ok-cake-4-2)" in _texts(cool.cond_start) and "(before-deadline-cake-4)" in _texts(cool.cond_end)
    # timed initial literals: release exactly, deadline and limit with the slack
    tils = {(t, lit.text()) for t, lit in e.problem.tils}
    assert tils == {(50, "(released-cake-3)"), (1205, "(not (before-deadline-cake-4))"),
                    (1805, "(not (in-limit))")}
    assert [o for o, t in e.problem.objects if t == "slot-fryer"] == ["slot-fryer-1", "slot-fryer-2"]
    assert ":timed-initial-literals" in e.domain.requirements
    assert [d.code for d in e.diagnostics] == ["P001"]


def test_envelopes_can_be_left_out(cake):
    prob = export_scenario(cake, "cake").source
    e = export_temporal(prob, cake, envelopes=False)
    assert not any(a.name.startswith("clip-") for a in e.domain.actions)
    assert [d.code for d in e.diagnostics] == ["P001", "P005"]
    assert "(window-cake-2-1)" not in e.domain_text()


def test_classical_export(cake):
    e = export_scenario(cake, "cake", classical=True)
    text = e.domain_text()
    assert ":action-costs" in text and "(increase (total-cost) 300)" in text
    assert ":durative-action" not in text and e.problem.metric == "minimize (total-cost)"
    codes = [d.code for d in e.diagnostics]
    assert codes == ["P101", "P102", "P104", "P103", "P105", "P106"]


def test_every_name_is_a_pddl_name(cake):
    for classical in (False, True):
        e = export_scenario(cake, "cake", classical=classical)
        text = e.domain_text() + e.problem_text()
        body = "\n".join(line.split(";")[0] for line in text.splitlines())
        for word in re.findall(r"[A-Za-z_][A-Za-z0-9_.\-]*", body):
            assert word == word.lower(), word


def _bundled():
    proj, diags, _ = chronoplan.compile_paths(ROOT / "domains")
    assert proj is not None and not [d for d in diags if d.is_error]
    return proj, [s.name for s in proj.scenarios.values() if s.procedures]


def test_every_bundled_procedure_scenario_exports_deterministically():
    proj, names = _bundled()
    assert len(names) >= 100
    proj2, _ = _bundled()
    for name in names:
        for classical in (False, True):
            a = export_scenario(proj, name, classical=classical)
            b = export_scenario(proj2, name, classical=classical)
            assert a.domain_text() == b.domain_text() and a.problem_text() == b.problem_text(), name
            steps = [x for x in a.actions.values() if x.kind == "step"]
            assert len(steps) == len(a.source.steps)


def test_other_families_are_exported_by_their_own_exporter():
    proj, _ = _bundled()
    others = [s for s in proj.scenarios.values() if not s.procedures and not (s.map is not None and s.orders)
              and s.household is None and s.kind is not ir.ScenarioKind.WORLD]   # households: test_pddl_household.py,
    #                                                                                     worlds: test_pddl_world.py
    assert others                                   # tool-use tasks (tests/test_pddl_tools.py; kitchens: _kitchen.py)
    for s in others[:3]:
        e = export_scenario(proj, s.name)
        assert e.diagnostics[0].code == "P023" and s.name in e.diagnostics[0].message


def _problem(steps, resources=(), agents=("a1",), limit=None, unit=ir.TimeUnit.TICK):
    return ProcedureProblem("t", unit, agents, ("T",), tuple(steps), tuple(resources), limit)


def _step(i, d, *, occ=ir.Occupancy.CONTINUOUS, k=None, pre=(), lags=(), uses=(), release=None, deadline=None,
          interruptible=False):
    d = Fraction(d)
    occupy = d if occ is ir.Occupancy.CONTINUOUS else Fraction(0) if occ is ir.Occupancy.START else Fraction(k)
    return SchedStep("T", i, f"step {i}", d, occ, occupy, interruptible, tuple(pre), tuple(lags), tuple(uses),
                     release, deadline)


def test_lags_that_cannot_be_exported_are_reported():
    # min lag -5 after a 2-unit step that is not a prerequisite: Y may start before X starts (P002);
    # max lag -10 after a 2-unit step: the envelope would be negative (P003)
    p = _problem([_step(0, 2), _step(1, 3, lags=[ConcreteLag(0, Fraction(-5), None)]),
                  _step(2, 3, lags=[ConcreteLag(0, None, Fraction(-10))]), _step(3, 0)])
    e = export_temporal(p)
    assert [d.code for d in e.diagnostics] == ["P002", "P003", "P004"]
    assert not any(a.name.startswith(("wait-", "clip-")) for a in e.domain.actions)


def test_time_scale_makes_every_number_an_integer():
    p = _problem([_step(0, Fraction(5, 2)), _step(1, Fraction(3, 4), deadline=Fraction(7, 3))])
    sc = time_scale(p)
    assert sc.factor == 120 and sc.grid == 10 and sc.slack == 5       # lcm(2,4,3) = 12; odd grid -> x10
    e = export_temporal(p)
    for a in e.domain.actions:
        assert a.duration.denominator == 1
    assert {t for t, _ in e.problem.tils} == {Fraction(7, 3) * 120 + 5}
    assert time_scale(_problem([_step(0, 60), _step(1, 120)])).factor == 1     # grid 60: slack 30


def test_num_writes_exact_decimals():
    assert num(Fraction(5, 2)) == "2.5" and num(-3) == "-3" and num(Fraction(1, 8)) == "0.125"
    with pytest.raises(ValueError):
        num(Fraction(1, 3))


def test_name_collisions_get_suffixes():
    p = ProcedureProblem("s", ir.TimeUnit.TICK, ("Cook", "cook", "and"), ("Rice", "rice"),
                         (SchedStep("Rice", 1, "x", Fraction(1), ir.Occupancy.CONTINUOUS, Fraction(1), False, (),
                                    (), (), None, None),
                          SchedStep("rice", 1, "y", Fraction(1), ir.Occupancy.CONTINUOUS, Fraction(1), False, (),
                                    (), (), None, None)), (), None)
    e = export_temporal(p)
    objs = [o for o, _ in e.problem.objects]
    assert objs == ["cook", "cook-2", "n-and"]
    assert [e.agent_of(o) for o in objs] == ["Cook", "cook", "and"]
    steps = sorted(n for n, i in e.actions.items() if i.kind == "step")
    assert steps == ["step-rice-1", "step-rice-1-2"]
    assert {e.actions[n].key for n in steps} == {("Rice", 1), ("rice", 1)}


def test_capacity_resources_and_properties_without_project():
    res = (ResourceInstance("pot", 3, (("temp", Fraction(0)),), "pot"),)
    from chronoplan.compiler.instantiate import ConcreteUse
    p = _problem([_step(0, 4, uses=[ConcreteUse("pot", (), (("temp", Fraction(1, 2)),))]),
                  _step(1, 4, uses=[ConcreteUse("pot", (("temp", Fraction(1, 2)),), ())])], res)
    e = export_temporal(p)
    assert [o for o, t in e.problem.objects if t == "slot-pot"] == ["slot-pot-1", "slot-pot-2", "slot-pot-3"]
    assert "(prop-pot-temp-1-2)" in e.domain_text()          # 1/2 folded to 1-2, kept apart by the name map
    assert e.names.lookup("prop-pot-temp-1-2") == ("prop", "pot", "temp", Fraction(1, 2))


# ---------------------------------------------------------------------------------------------- CLI
def test_cli_writes_files_and_reports(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["pddl", str(GOLDEN / "cake.chrono"), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "warning[P001]" in err and "step 1 of Cake is interruptible" in err
    assert (out / "domain.pddl").read_text().startswith("; Generated by chronoplan")
    assert "(:objects cook1 cook2 - agent" in (out / "problem.pddl").read_text()
    assert main(["pddl", str(GOLDEN / "cake.chrono"), "-o", str(tmp_path / "c"), "--classical"]) == 0
    assert "warning[P106]" in capsys.readouterr().err
    assert ":action-costs" in (tmp_path / "c" / "domain.pddl").read_text()


def test_cli_errors(tmp_path, capsys):
    unplanned = tmp_path / "unplanned.chrono"       # a tool-use scenario without a reference has no goal
    unplanned.write_text('domain u\ntool t(x: str)\nscenario s { tools t\n query "q" }\n', encoding="utf-8")
    assert main(["pddl", str(unplanned), "-o", str(tmp_path / "u")]) == 2
    assert "error[P010]" in capsys.readouterr().err
    assert main(["pddl", str(ROOT / "domains" / "recipes"), "-o", str(tmp_path)]) == 2
    assert "name one of" in capsys.readouterr().err
    bad = tmp_path / "bad.chrono"
    bad.write_text("domain x\nprocedure P { step 0 \"a\" 1 after 9 }\n")
    assert main(["pddl", str(bad), "-o", str(tmp_path)]) == 2


def test_codes_are_documented():
    doc = (ROOT / "docs" / "pddl.md").read_text()
    for code in CODES:
        assert code in doc, code
