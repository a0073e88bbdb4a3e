"""``chronoplan import recipe2plan``: the real data (read from ../shared/data/recipe2plan) and hostile input."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest
import r2pdata

import chronoplan
from chronoplan.cli import main
from chronoplan.compiler import ir
from chronoplan.compiler.importers import ImportFormatError
from chronoplan.compiler.importers.common import Names, number, quote
from chronoplan.compiler.importers.recipe2plan import convert, quantity
from chronoplan.compiler.instantiate import procedure_problem

COOKING = r2pdata.DATA / "cooking.json"
needs_data = pytest.mark.skipif(not COOKING.exists(), reason="Recipe2Plan data not available")


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    out = tmp_path_factory.mktemp("r2p")
    assert main(["import", "recipe2plan", str(COOKING), "-o", str(out)]) == 0
    return out


@needs_data
def test_all_instances_import_and_check_clean(imported, capsys):
    assert sorted(p.relative_to(imported).as_posix() for p in imported.rglob("*.chrono")) == [
        "easy/instances.chrono", "easy/recipes.chrono", "instances.chrono", "recipes.chrono"]
    project, diags, _ = chronoplan.compile_paths(imported)
    assert [d for d in diags if d.is_error] == []
    assert main(["check", str(imported)]) == 0
    assert "0 errors" in capsys.readouterr().out
    keys = r2pdata.keys()
    assert len(keys) == 65
    assert set(project.scenarios) == set(keys) | {k + "_easy" for k in keys}
    assert len(project.procedures) == 24
    assert sum(len(p.steps) for p in project.procedures.values()) == 300


@needs_data
def test_imported_problems_equal_the_data(imported):
    """Every instantiated scenario equals the IR built directly from cooking.json (tests/r2pdata.py):
    texts, durations in seconds, occupancy, interruptibility, prerequisites, lags and oven properties."""
    project = chronoplan.load(imported)
    for key in r2pdata.keys():
        for constrained in (True, False):
            mine = procedure_problem(project, project.scenario(key if constrained else key + "_easy"))
            ref = r2pdata.problem(key, constrained)
            assert mine.time_unit is ir.TimeUnit.S and mine.agents == ("agent1",)
            assert mine.tasks == ref.tasks == tuple(key.split("_"))
            assert mine.steps == ref.steps, key
            assert mine.resources == ref.resources
            assert any(s.lags for s in mine.steps) == (constrained and any(s.lags for s in ref.steps))


@needs_data
def test_generated_text_shape_and_licence(imported):
    recipes = (imported / "recipes.chrono").read_text()
    easy = (imported / "easy" / "recipes.chrono").read_text()
    for path in imported.rglob("*.chrono"):
        head = path.read_text()[:2000]
        assert "MIT License" in head and "Copyright (c) 2025 Zirui Wu" in head
    assert "resource oven capacity 1 { temperature = 0 }" in recipes
    assert "resource microwave capacity 1" in recipes and "resource stove capacity 1" in recipes
    assert ('step 0 "Preheat the oven to 350 degrees." 10 min autonomous uses oven sets temperature = 350'
            in recipes)
    assert 'step 3 "Pour it in the pan." 1 min after 2 within 2 min of 2\n' in recipes
    assert 'step 3 "Pour it in the pan." 1 min after 2\n' in easy
    assert "within" not in easy
    assert '" 30 s ' in recipes and '" 1 h ' in recipes
    assert not any(f'" {n} {u}' in recipes for n in range(100) for u in ("sec", "hour", "minute"))
    inst = (imported / "instances.chrono").read_text()
    assert ("scenario Cobbler_Pancakes { unit s  agents agent1  occupancy exclusive  procedures Cobbler, Pancakes }"
            in inst)
    assert 'import "recipes.chrono"' in inst
    assert len(list(json.loads(COOKING.read_text()))) == inst.count("\nscenario ")


def _write(tmp_path, data, name="cooking.json"):
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data))
    return p


def _step(i, **kw):
    s = {"physical": {}, "step": i, "text": f"step {i}", "prequisites": [], "time_constraint": {},
         "interrupt": 0, "parallel": 0, "time": "1 min"}
    s.update(kw)
    return s


def test_awkward_names_and_texts_round_trip(tmp_path):
    texts = ['Say "hi" \\ and \\"', "two\nlines\tand tab", "crlf\r\nend", " lead\xa0space 350 \u2070C", ""]
    names = ["step", "min", "s", "procedures", "Chocolate-Egg", "Mac & Cheese", "3-Bean", "end-", "unit"]
    recipes = [{"recipe": n, "steps": [_step(0, text=t) for t in texts[:1]] +
                [_step(i + 1, text=t, prequisites=[i], time_constraint={str(i): "30 sec"})
                 for i, t in enumerate(texts[1:])]} for n in names]
    src = _write(tmp_path, [[recipes[i], recipes[(i + 1) % len(names)]] for i in range(len(names))])
    out = tmp_path / "out"
    assert main(["import", "recipe2plan", str(src), "-o", str(out)]) == 0
    project, diags, _ = chronoplan.compile_paths(out)
    assert [d.message for d in diags if d.is_error] == []
    procs = project.procedures
    for n in ["step", "min", "s", "procedures", "Chocolate-Egg", "unit"]:
        assert n in procs and procs[n].title is None
    assert procs["Mac_Cheese"].title == "Mac & Cheese"
    assert procs["recipe_3-Bean"].title == "3-Bean" and procs["end_"].title == "end-"
    got = [s.text for s in procs["step"].steps]
    assert got == ['Say "hi" \\ and \\"', "two\nlines\tand tab", "crlf\nend", " lead\xa0space 350 \u2070C", ""]
    assert len(project.scenarios) == 2 * len(names)
    assert "step_min" in project.scenarios and "step_min_easy" in project.scenarios
    assert procedure_problem(project, project.scenario("step_min")).step("step", 1).lags[0].max == 30


@pytest.mark.parametrize("data, message", [
    ("{not json", "invalid JSON"),
    ('{"a": 1}', "expected a list of instances"),
    ("[]", "no instances"),
    ("[[1]]", "expected a recipe object"),
    ('[[{"recipe": "A"}]]', "'steps' must be a non-empty list"),
    ('[[{"recipe": "A", "steps": [{"step": 0, "text": "x"}]}]]', "missing 'time'"),
    ('[[{"recipe": "A", "steps": [{"step": 0, "text": "x", "time": "5 parsecs"}]}]]', "cannot read the duration"),
    ('[[{"recipe": "A", "steps": [{"step": 0, "text": "x", "time": 5}]}]]', "expected a duration string"),
    ('[[{"recipe": "A", "steps": [{"step": 0, "text": "x", "time": "1 min", "prequisites": [4]}]}]]',
     "refers to step 4"),
    ('[[{"recipe": "A", "steps": [{"step": 0, "text": "x", "time": "1 min", "parallel": 2}]}]]',
     "'parallel' must be 0 or 1"),
    ('[[{"recipe": "A", "steps": [{"step": 0, "text": "x", "time": "1 min", '
     '"physical": {"oven": {"update": {"temperature": "hot"}}}}]}]]', "must be a number"),
    ('[[{"recipe": "A", "steps": [{"step": 0, "text": "x", "time": "1 min"}]}], '
     '[{"recipe": "A", "steps": [{"step": 0, "text": "y", "time": "1 min"}]}]]', "differs from its definition"),
    ('[[{"recipe": "A", "steps": [{"step": 0, "text": "x", "time": NaN}]}]]', "invalid JSON"),
])
def test_bad_input_exits_2_with_a_message(tmp_path, capsys, data, message):
    src = _write(tmp_path, data)
    assert main(["import", "recipe2plan", str(src), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.startswith("chronoplan import: error:")
    assert not (tmp_path / "out").exists()


def test_missing_file_unknown_format_and_output_clash(tmp_path, capsys):
    assert main(["import", "recipe2plan", str(tmp_path / "nope.json"), "-o", str(tmp_path / "o")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["import", "recipe2plan", str(tmp_path), "-o", str(tmp_path / "o")]) == 2
    assert "is a directory" in capsys.readouterr().err
    assert main(["import", "nosuchformat", "x.json", "-o", str(tmp_path / "o")]) == 2
    assert "unknown format 'nosuchformat'" in capsys.readouterr().err
    src = _write(tmp_path, [[{"recipe": "A", "steps": [_step(0)]}]])
    (tmp_path / "afile").write_text("")
    assert main(["import", "recipe2plan", str(src), "-o", str(tmp_path / "afile")]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert main(["import", "recipe2plan", str(src)]) == 2          # -o is required


def test_helpers(tmp_path):
    assert quantity("30 sec", "x") == "30 s"
    assert quantity("5 min", "x") == "5 min"
    assert quantity("1 hour", "x") == "1 h"
    assert quantity(" 2 hours ", "x") == "2 h"
    with pytest.raises(ImportFormatError):
        quantity("soon", "x")
    assert number(350.0) == "350" and number(Fraction(7, 4)) == "1.75" and number(-2) == "-2"
    assert number(0.1) == "0.1"
    with pytest.raises(ValueError):
        number(Fraction(1, 3))
    assert quote('a"b\\c\nd\te') == '"a\\"b\\\\c\\nd\\te"'
    n = Names()
    assert n.claim("A") == "A" and n.claim("A") == "A_2" and n.claim("a b") == "a_b"
    assert [Names.sanitize(x, "r") for x in ("a--b", "-x", "\xe9", "ok-Name")] == ["a_-b", "r_-x", "_", "ok-Name"]
    files = convert([_write(tmp_path, [[{"recipe": "A", "steps": [_step(0)]}]])])
    assert sorted(files) == ["easy/instances.chrono", "easy/recipes.chrono", "instances.chrono", "recipes.chrono"]
    assert files["instances.chrono"].count("\nscenario ") == 1


@needs_data
def test_reference_plans_are_valid_against_the_imported_scenarios(imported):
    """plan.json's heuristic plans name the original recipes; they replay cleanly against ``<key>`` (with
    time constraints) and ``<key>_easy`` (the same procedure names in the recipe2plan_easy domain)."""
    from chronoplan.validators.replay import validate_plan
    project = chronoplan.load(imported)
    checked = 0
    for key in r2pdata.keys():
        for constrained in (True, False):
            ref = r2pdata.reference(key, constrained)
            if ref is None:
                continue
            name = key if constrained else key + "_easy"
            report = validate_plan(procedure_problem(project, project.scenario(name)), dict(ref, scenario=name))
            assert report.valid, report.to_text()
            checked += 1
    assert checked == 129
