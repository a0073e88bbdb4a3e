"""Recipe2Plan: every reference plan of plan.json replays without violation and scores relative
efficiency 1.0 against itself; the paper's average efficiencies are reproduced; text and list formats."""
from __future__ import annotations

from fractions import Fraction

import pytest
import r2pdata

from chronoplan.runtime import metrics as M
from chronoplan.validators.replay import validate_plan

KEYS = r2pdata.keys()
CONSTRAINED = [k for k in KEYS if r2pdata.reference(k, True) is not None]


def test_data_shape():
    assert len(KEYS) == 65 and len(CONSTRAINED) == 64
    assert "Pizza_Chocolate-Egg" not in CONSTRAINED


@pytest.mark.parametrize("constrained", [False, True])
def test_every_reference_plan_is_valid_and_scores_one(constrained):
    keys = CONSTRAINED if constrained else KEYS
    effs = []
    for key in keys:
        problem = r2pdata.problem(key, constrained)
        ref = r2pdata.reference(key, constrained)
        rep = validate_plan(problem, ref, reference=ref, name=key)
        assert rep.valid, (key, [e.message for e in rep.errors])
        m = rep.metrics
        assert m["success"] and m["progress"] == 1
        assert m["relative_efficiency"] == 1 and m["multitask_score"] == 1
        assert m["makespan"] == max(e["start"] + e["duration"] for e in ref["schedule"])
        assert m["lower_bound"] <= m["makespan"]
        effs.append(m["efficiency"])
    # the paper's Table 2: average efficiency 86.1% without and 73.7% with time constraints
    avg = float(sum(effs) / len(effs)) * 100
    assert round(avg, 1) == (73.7 if constrained else 86.1)


def test_unconstrained_plans_break_time_constraints():
    broken = 0
    for key in KEYS:
        rep = validate_plan(r2pdata.problem(key, True), r2pdata.reference(key, False))
        if not rep.valid:
            broken += 1
            assert {e.category for e in rep.errors} == {"time-window"}
            assert all(e.hint.startswith("start step ") and "no later than" in e.hint for e in rep.errors)
    assert broken == 60


def _hms(secs: int) -> str:
    return f"{secs // 3600:02d}:{secs % 3600 // 60:02d}:{secs % 60:02d}"


@pytest.mark.parametrize("key", KEYS[:65:8])
def test_text_and_list_forms(key):
    problem = r2pdata.problem(key, False)
    entries = r2pdata.plans()[key]["plan_wo_restriction"]
    text = ", ".join(f"Step({s}, {r}, {_hms(d)}, {_hms(st)})" for s, r, d, st in entries)
    assert validate_plan(problem, text).valid
    loose = ",".join(f"Step({s},{r},{d // 60} min,{_hms(st)})" if d % 60 == 0 else
                     f"Step({s},{r},{d} sec,{_hms(st)})" for s, r, d, st in entries)
    assert validate_plan(problem, loose).valid
    three = ", ".join(f"Step({s}, {r}, {_hms(st)})" for s, r, d, st in entries)
    assert validate_plan(problem, three).valid
    assert validate_plan(problem, entries).valid          # plan.json's own [[step, recipe, dur, start]] lists


def _serial(problem):
    """Every step alone, one after another, in listed order (prerequisites point backwards in the data)."""
    t, out = 0, []
    for s in problem.steps:
        out.append({"task": s.task, "step": s.index, "start": int(t), "duration": int(s.duration)})
        t += s.duration
    return {"schedule": out}


@pytest.mark.parametrize("key", KEYS[::13])
def test_serial_plan_has_zero_efficiency(key):
    problem = r2pdata.problem(key, False)
    ref = r2pdata.reference(key, False)
    rep = validate_plan(problem, _serial(problem), reference=ref)
    assert rep.valid
    assert rep.metrics["efficiency"] == 0 and rep.metrics["relative_efficiency"] == 0
    assert rep.metrics["multitask_score"] == 0


def test_relative_efficiency_truncates_the_reference():
    key = "Cobbler_Pancakes"
    problem = r2pdata.problem(key, True)
    ref = r2pdata.reference(key, True)
    n = 9
    prefix = {"schedule": ref["schedule"][:n]}
    rep = validate_plan(problem, prefix, reference=ref)
    m = rep.metrics
    assert not rep.valid and {e.category for e in rep.errors} == {"goal"}
    assert m["progress"] == Fraction(n, 24) and m["multitask_score"] == 0
    # hand computation of E on the prefix, denominators: completed autonomous steps / autonomous entries
    entries = ref["schedule"][:n]
    finish = max(e["start"] + e["duration"] for e in entries)
    saved = sum(e["duration"] for e in entries) - finish
    auto = sum(e["duration"] for e in entries if problem.step(e["task"], e["step"]).occupancy.value != "continuous")
    assert m["efficiency"] == Fraction(saved, auto) == m["reference_efficiency"]
    assert m["relative_efficiency"] == 1


def test_relative_efficiency_of_a_slower_plan():
    key = "Cobbler_Pancakes"
    problem = r2pdata.problem(key, False)
    ref = r2pdata.reference(key, False)
    slow = {"schedule": [dict(e) for e in ref["schedule"]]}
    slow["schedule"][-1]["start"] += 600                 # the last step (Pancakes 15) ten minutes later
    rep = validate_plan(problem, slow, reference=ref)
    assert rep.valid
    total = sum(e["duration"] for e in ref["schedule"])
    auto = sum(e["duration"] for e in ref["schedule"]
               if problem.step(e["task"], e["step"]).occupancy.value != "continuous")
    finish = max(e["start"] + e["duration"] for e in ref["schedule"])
    e_ref = Fraction(total - finish, auto)
    e = Fraction(total - finish - 600, auto)
    assert rep.metrics["makespan"] == finish + 600
    assert rep.metrics["relative_efficiency"] == e / e_ref
    assert M.multitask_score(e / e_ref, Fraction(1)) == e / e_ref


def test_end_to_end_through_the_importer(tmp_path, capsys):
    """`chronoplan import recipe2plan` then `chronoplan validate` on every reference plan (matched by file
    stem), with the plans themselves as references: all valid, relative efficiency 1."""
    import json

    from chronoplan.cli import main
    out = tmp_path / "r2p"
    assert main(["import", "recipe2plan", str(r2pdata.DATA / "cooking.json"), "-o", str(out)]) == 0
    plans = tmp_path / "plans"
    plans.mkdir()
    for key in KEYS:
        (plans / f"{key}_easy.json").write_text(json.dumps(r2pdata.reference(key, False)["schedule"]))
        if key in CONSTRAINED:
            (plans / f"{key}.json").write_text(json.dumps(r2pdata.plans()[key]["plan_w_restriction"]))
    capsys.readouterr()
    status = main(["validate", str(out), str(plans), "--format", "json", "--reference", str(plans)])
    reports = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 0 and len(reports) == 65 + 64
    assert all(r["valid"] and r["metrics"]["relative_efficiency"] == 1 for r in reports)
    assert {r["scenario"] for r in reports} == set(CONSTRAINED) | {k + "_easy" for k in KEYS}
