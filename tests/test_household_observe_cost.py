"""issue 28 item 11b: ``check`` bounds the cost per step of a household's observe rules (C111).

Input: the bundled home (domains/household) with one more observe rule, and small generated homes.  Output:
the diagnostics of ``compile_paths`` and, for a rule within the bound, a graded episode log.  A rule whose
innermost body relates all of its variables costs |type| to the power of their number per step (a 66-step log
of a 3-deep rule took over 300 s to grade before the engine's shortcuts); past the limit it is refused at the
rule, once, with the scenario that crosses it.
"""
from __future__ import annotations

from pathlib import Path

from chronoplan.compiler.driver import compile_paths
from chronoplan.compiler.household.observe_rules import MAX_OBSERVE_COST, rule_cost, type_sizes

HOME = Path(__file__).resolve().parent.parent / "domains" / "household"
JOINED = "on(z, p) and on(y, p) and on(x, p) and not is(x, y) and not is(y, z) and not is(x, z)"
RULE_3 = f"    see x: thing when exists(y: thing where exists(z: thing where exists(p: place where {JOINED})))\n"
RULE_4 = ("    see x: thing when exists(w: thing where exists(y: thing where exists(z: thing where exists(p: place "
          f"where on(w, p) and not is(w, x) and {JOINED}))))\n")


def bundled_with(tmp_path: Path, rule: str) -> Path:
    home = (HOME / "home.chrono").read_text(encoding="utf-8")
    assert "  observe {\n" in home
    (tmp_path / "home.chrono").write_text(home.replace("  observe {\n", "  observe {\n" + rule), encoding="utf-8")
    (tmp_path / "episodes.chrono").write_text((HOME / "episodes.chrono").read_text(encoding="utf-8"),
                                              encoding="utf-8")
    return tmp_path


def errors(diags) -> list:
    return [d for d in diags if d.is_error]


def test_a_rule_relating_five_variables_is_refused_at_the_rule_once(tmp_path):
    """4 nested exists whose innermost body relates all five variables: 21^4 bindings of the innermost one
    per step in the bundled home.  One C111 at the rule (not one per scenario naming the home), naming the
    first scenario, the cost, the limit and the type sizes; no household scenario is built."""
    project, diags, _ = compile_paths(bundled_with(tmp_path, RULE_4))
    errs = errors(diags)
    assert [d.code for d in errs] == ["C111"], [str(d) for d in errs]
    d = errs[0]
    assert d.span.file.endswith("home.chrono") and d.span.line == 50 and d.span.col == 5
    assert "observe rule 'see x: thing' of household 'home' may cost" in d.message
    assert f"beyond the limit of {MAX_OBSERVE_COST:,}" in d.message
    assert "in scenario 'tea_1' (2 agents)" in d.message
    assert "thing: 21, place: 13" in d.notes[0]
    assert project is None or not any(s.household for s in project.scenarios.values())


def test_a_rule_one_level_shallower_is_within_the_bound_and_grades(tmp_path):
    """The same shape 3 deep (bench_check_scaling.py observe-3-deep-joined: a thing is seen when two other
    things share its surface) compiles, and the baseline's episode with it is graded valid."""
    from chronoplan.compiler.household.problem import HouseholdProblem
    from chronoplan.runtime.household.baseline import Baseline
    from chronoplan.runtime.household.engine import HouseholdEngine
    from chronoplan.validators.household.grade import grade_log

    project, diags, _ = compile_paths(bundled_with(tmp_path, RULE_3))
    assert errors(diags) == [] and project is not None
    name = "tea_1"
    home = project.households["home"]
    assert rule_cost(home.observe[0], type_sizes(home, 2)) < MAX_OBSERVE_COST
    engine = HouseholdEngine(HouseholdProblem(project, name), log=True)
    policy = Baseline(engine)
    while not engine.done:
        engine.step(policy.actions())
    assert engine.log is not None
    report = grade_log(project, name, engine.log.text())
    assert report.valid, report.errors[:1]


def small_home(agents: int) -> str:
    """30 spoons and a rule whose innermost exists reads ``self`` and three more variables: its cost grows
    with the agents of the scenario (about 170,000 relation calls per step per agent)."""
    spoons = ", ".join(f"spoon{i}" for i in range(30))
    starts = ", ".join(f"a{i} at kitchen" for i in range(agents))
    return ("household home {\n  room kitchen, hall\n  door kitchen - hall 2 m\n  surface table in kitchen 1 m\n"
            f"  thing {spoons}: spoon in one of (kitchen, hall)\n"
            "  observe {\n    see x: spoon when exists(y: spoon where exists(z: spoon where\n"
            "      same_room(self, z) and same_room(x, z) and same_room(y, z)))\n  }\n}\n"
            f"scenario few {{ household home  agents a0 at kitchen  goal 1 on(spoon, table)  horizon 50 }}\n"
            f"scenario many {{ household home  agents {starts}  goal 1 on(spoon, table)  horizon 50 }}\n")


def test_the_bound_counts_the_scenarios_agents(tmp_path):
    """A rule that reads ``self`` in its innermost body costs per agent: with 1 agent the scenario is built,
    with 8 it is refused at the rule, naming that scenario."""
    path = tmp_path / "home.chrono"
    path.write_text(small_home(8), encoding="utf-8")
    project, diags, _ = compile_paths(path)
    errs = errors(diags)
    assert [d.code for d in errs] == ["C111"], [str(d) for d in errs]
    assert "in scenario 'many' (8 agents)" in errs[0].message and errs[0].span.line == 7
    path.write_text(small_home(2), encoding="utf-8")
    project, diags, _ = compile_paths(path)
    assert errors(diags) == [] and project is not None and {"few", "many"} <= set(project.scenarios)
