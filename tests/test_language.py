"""The language front end: parse -> check -> IR, on small texts and the bundled domains."""
from fractions import Fraction

import pytest
import sympy

import chronoplan
from chronoplan.compiler import ir
from chronoplan.compiler.driver import compile_text
from chronoplan.compiler.instantiate import constant_values, evaluate, procedure_problem


def compile_ok(text):
    project, diags, _ = compile_text(text)
    errors = [d for d in diags if d.is_error]
    assert not errors, errors
    return project


def codes(text):
    _, diags, _ = compile_text(text)
    return [d.code for d in diags]


def test_constants_are_exact_sympy_expressions_with_units():
    p = compile_ok("const A = 1.5 min; B = A * 2 + 30 s; C = 7 / 3\n"
                   'procedure P { step 0 "x" B step 1 "y" C min }\nscenario s { unit s procedures P }')
    assert p.constants["A"].dim is ir.Dim.TIME
    assert p.constants["C"].expr == sympy.Rational(7, 3)
    vals = constant_values(p)
    assert evaluate(sympy.Symbol("B"), vals, ir.TimeUnit.S) == 210
    assert evaluate(sympy.Symbol("B"), vals, ir.TimeUnit.MIN) == Fraction(7, 2)
    prob = procedure_problem(p, p.scenario("s"))
    assert [s.duration for s in prob.steps] == [210, 140]


def test_unit_mismatch_and_time_times_time():
    assert "C106" in codes("const A = 2 min + 3")
    assert "C106" in codes("const A = 2 min * 3 s")
    assert "C106" not in codes("const A = 2 min * 3; B = A / 2; C = A / (1 min)\n"
                               'procedure P { step 0 "x" A + B + C * 1 s }\nscenario s { procedures P }')


def test_procedure_ir():
    p = compile_ok('''
        resource oven capacity 1 { temperature = 0 }
        procedure Cobbler "Peach cobbler" {
          resource bowl
          step 0 "Preheat." 10 min autonomous uses oven sets temperature = 350
          step 1 "Mix." 2 min interruptible uses bowl
          step 2 "Pour." 1 min after 1 within 2 min of 1 gap 30 s after 0
          step 3 "Bake." 30 min autonomous for 1 min after 2, 0 uses oven needs temperature = 350
            release 1 min deadline 2 h
        }
        scenario c { unit min agents a, b procedures Cobbler }''')
    proc = p.procedures["Cobbler"]
    assert proc.title == "Peach cobbler"
    s0, s1, s2, s3 = proc.steps
    assert s0.occupancy is ir.Occupancy.START and s1.interruptible
    assert s2.prerequisites == (1, 0)
    assert {lg.other: (lg.min is not None, lg.max is not None) for lg in s2.lags} == {1: (False, True),
                                                                                      0: (True, False)}
    assert s3.occupancy is ir.Occupancy.PARTIAL
    prob = procedure_problem(p, p.scenario("c"))
    assert prob.agents == ("a", "b") and prob.time_unit is ir.TimeUnit.MIN
    st = prob.step("Cobbler", 3)
    assert (st.duration, st.occupy_for, st.release, st.deadline) == (30, 1, 1, 120)
    assert st.uses[0].needs == (("temperature", 350),)
    assert prob.step("Cobbler", 2).lags[1].min == Fraction(1, 2)
    assert {r.name for r in prob.resources} == {"oven", "bowl"}


def test_local_resources_get_suffixes_unless_shared():
    text = '''
        procedure T1 { resource pot, rice  step 0 "cook rice in pot" 4 autonomous for 1 uses rice, pot }
        procedure T2 { resource pot, beans step 0 "cook beans in pot" 5 autonomous for 1 uses beans, pot }
        scenario both { unit min procedures T1, T2 }
        scenario shared { unit min procedures T1, T2 share pot }'''
    p = compile_ok(text)
    both = procedure_problem(p, p.scenario("both"))
    assert sorted(r.name for r in both.resources) == ["beans", "pot_1", "pot_2", "rice"]
    assert both.step("T2", 0).uses[1].resource == "pot_2"
    shared = procedure_problem(p, p.scenario("shared"))
    assert sorted(r.name for r in shared.resources) == ["beans", "pot", "rice"]


def test_map_stations_are_named_in_reading_order():
    p = compile_ok('''
        type counter < station, dispenser < station, meat < item
        map m """
          C.D
          .#.
          D.C
        """ where C = counter, D = dispenser(meat)''')
    m = p.maps["m"]
    assert (m.width, m.height) == (3, 3)
    assert [(s.name, s.x, s.y, s.arg) for s in m.stations] == [
        ("counter1", 0, 0, None), ("dispenser1", 2, 0, "meat"), ("dispenser2", 0, 2, "meat"),
        ("counter2", 2, 2, None)]
    assert (1, 1) in m.walls and m.walkable(1, 0) and not m.walkable(0, 0)


def test_actions_processes_and_delayed_effects():
    p = chronoplan.load("domains/paracook/kitchen.chrono")
    chop = p.actions["chop"]
    assert chop.occupancy is ir.Occupancy.CONTINUOUS and chop.agents == ("a",) and chop.holds == ("b",)
    assert [c.when for c in chop.conditions] == [ir.When.START, ir.When.ALL]
    serve = p.actions["serve"]
    delayed = [e.effect for e in serve.effects if isinstance(e.effect, ir.Delayed)]
    assert delayed and delayed[0].delay == sympy.Symbol("RETURN") and len(delayed[0].effects) == 2
    fry = p.processes["fry"]
    assert isinstance(fry.condition, ir.And)
    move = p.actions["move_to"]
    assert move.duration.atoms(ir.Dist)
    assert p.recipes["burger_cheese"].items[1] == ir.Ingredient("meat", "cooked", 1)
    scen = p.scenario("burger_s1_a1_slowcut")
    assert dict(scen.overrides)["CUT"] == 6


def test_tools_ir():
    p = compile_ok('''
        app weather "Weather" {
          tool forecast(city: str, date: date, unit?: enum(C, F) = C, days?: list[int]) -> (temp: number) "Doc"
        }
        scenario q { apps weather query "Weather in Paris?" profile { today = 2025-03-12 }
                     structure single reference { 1: forecast(city = "Paris", date = 2025-03-14) } }''')
    t = p.tools["forecast"]
    assert t.app == "weather" and t.doc == "Doc"
    assert [(x.name, str(x.type), x.required) for x in t.params] == [
        ("city", "str", True), ("date", "date", True), ("unit", "enum(C, F)", False),
        ("days", "list[int]", False)]
    s = p.scenario("q")
    assert s.reference[0].args == (("city", ir.Value("str", "Paris")), ("date", ir.Value("date", "2025-03-14")))
    assert dict(s.profile)["today"] == ir.Value("date", "2025-03-12")


CHAIN = '''
tool search(q: str) -> (url: str)
tool fetch(url: str) -> (body: str)
scenario s {
  tools search, fetch
  profile { today = 2025-03-12 }
  reference {
    1: search(q = "chronoplan")
    2: search(q = "other")
    3: fetch(url = $2.url) after 2
    4: fetch(url = $1.url) after %s
    5: fetch(url = $1.url) after 4
  }
}
'''


def test_reference_may_read_a_transitive_prerequisite():
    """issue 28 item 14: step 5 reads $1 and waits for it through 4 (after 1): check accepts it, as the grader
    does (no T302 for the same plan); a step that does not wait for 1 at all is still C404."""
    from chronoplan.validators.tools.export import reference_plan
    from chronoplan.validators.tools.grade import grade_tool_plan
    p = compile_ok(CHAIN % "1")
    scen = p.scenario("s")
    assert [c.after for c in scen.reference][3:] == [(1,), (4,)]
    report = grade_tool_plan(p, scen, reference_plan(scen))
    assert "T302" not in {e.code for e in report.errors} and report.valid
    _, diags, _ = compile_text(CHAIN % "3")           # 4 waits for 3 and 2 only: neither reaches 1
    errs = [d for d in diags if d.code == "C404"]
    assert [d.message for d in errs] == [
        "step 4 uses the output of step 1 without waiting for it ('after 1', directly or through a step it "
        "comes after)",
        "step 5 uses the output of step 1 without waiting for it ('after 1', directly or through a step it "
        "comes after)"]


def test_load_raises_compile_error_with_all_diagnostics(tmp_path):
    f = tmp_path / "bad.chrono"
    f.write_text('procedure P { step 0 "x" 1 after 3 }\nscenario s { procedures P, Q }')
    with pytest.raises(chronoplan.CompileError) as exc:
        chronoplan.load(f)
    assert {d.code for d in exc.value.diagnostics} >= {"C203", "C401"}


def test_scenario_lookup_by_name():
    p = chronoplan.load("domains/recipes")
    assert p.scenario("Roast-Chicken_Garlic-Potatoes").procedures == ("Roast-Chicken", "Garlic-Potatoes")
    with pytest.raises(KeyError):
        p.scenario("nope")


def test_imports_and_domains(tmp_path):
    (tmp_path / "lib.chrono").write_text("domain d\nconst A = 3\nresource oven capacity 1")
    (tmp_path / "main.chrono").write_text('domain d\nimport "lib.chrono"\n'
                                          'procedure P { step 0 "x" A uses oven }\nscenario s { procedures P }')
    (tmp_path / "other.chrono").write_text('domain e\nconst A = 5\nprocedure P { step 0 "y" A }\n'
                                           'scenario t { procedures P }')
    project, diags, _ = chronoplan.compile_paths(tmp_path)
    assert not [d for d in diags if d.is_error], diags
    assert procedure_problem(project, project.scenario("s")).steps[0].duration == 3
    assert procedure_problem(project, project.scenario("t")).steps[0].duration == 5


def test_duplicate_scenarios_across_domains_are_errors(tmp_path):
    (tmp_path / "a.chrono").write_text('domain a\nprocedure P { step 0 "x" 1 }\nscenario s { procedures P }')
    (tmp_path / "b.chrono").write_text('domain b\nprocedure P { step 0 "x" 1 }\nscenario s { procedures P }')
    _, diags, _ = chronoplan.compile_paths(tmp_path)
    assert [d.code for d in diags if d.is_error] == ["C102"]


def test_keywords_are_names_where_no_keyword_fits():
    p = compile_ok('tool book(type: str, from: iata, step?: int)\nscenario s { tools book }')
    assert [x.name for x in p.tools["book"].params] == ["type", "from", "step"]


def test_string_escapes_and_hyphenated_names():
    p = compile_ok('procedure Chocolate-Egg { step 0 "Say \\"hi\\"\\\\now" 1 }\n'
                   'scenario Pizza_Chocolate-Egg { procedures Chocolate-Egg }')
    assert p.procedures["Chocolate-Egg"].steps[0].text == 'Say "hi"\\now'
