"""The Cython-compiled kitchen modules (setup.py) behave exactly like their pure-Python source.

- When the install compiled them (``CHRONOPLAN_REQUIRE_COMPILED=1``, as in .ci/run), every module listed in
  src/chronoplan/build.py must be loaded from its extension.
- Differential: generated valid and faulty plans (and hostile JSON) are simulated and graded in this process
  (compiled) and in a subprocess that imports the repository's ``.py`` files only (``run_pure``); reports,
  runs, serves, errors and final states must be identical.
- The build hook: every ``.pxd`` belongs to a compiled module, and a module Cython cannot compile leaves the
  install working (the pure-Python module stays, a warning names it).
"""
import json
import os
import random
from pathlib import Path

import pytest

import chronoplan
from chronoplan import build as B
from chronoplan.runtime import compiled as C
from chronoplan.runtime.kitchen.engine import simulate
from chronoplan.runtime.kitchen.scripted import plan as scripted_plan
from chronoplan.runtime.kitchen.world import World
from chronoplan.validators.kitchen.grade import grade_grid_plan
from chronoplan.validators.kitchen.read import read_cook_plan

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
SCENARIOS = ["burger_s42_o2_a2", "burrito_s42_o2_a3", "pasta_s42_o2_a2", "sashimi_s42_o3_a3", "sushi_s42_o2_a2",
             "salad_s42_o2_a3"]
HOSTILE = [{"plan": {"agent1": [{"action": "MoveTo", "target": [float("nan"), 1]}]}},
           {"plan": {"agent1": [{"action": "Wait", "duration": 10 ** 40}, {"action": 7}, "Interact"]}},
           {"plan": {"agent1": [{"action": "MoveTo", "target": [True, 2]}, {"action": "Wait", "duration": -3}],
                     "ghost": [{"action": "Finish"}]}},
           {"plan": [1, 2]}, "not json {", {"agent1": [{"action": "Wait", "duration": 2.5}], "reasoning": "x"}]


def outcomes() -> list:
    """repr() of every simulation outcome and report for the differential test's plans (deterministic)."""
    from test_kitchen_fastpath import _mutate
    project = chronoplan.load(ROOT / "domains" / "paracook" / "generated")
    out = []
    for name in SCENARIOS:
        world = World(project, name)
        base = scripted_plan(world)
        stations = [s.name for s in world.map.stations]
        rng = random.Random(name)
        for plan in [base] + [_mutate(rng, base, stations) for _ in range(25)]:
            r = simulate(world, read_cook_plan({"plan": plan}).steps)
            out.append(repr((r.errors, r.runs, r.served, r.success, r.oct, r.end_time, r.finished,
                             sorted(r.state.otype.items()), {k: sorted(v.facts) for k, v in r.state.rels.items()},
                             {k: sorted(v.items()) for k, v in r.state.attrs.items()}, sorted(r.state.pos.items()))))
            out.append(repr(grade_grid_plan(project, name, {"plan": plan}).to_json()))
        for plan in HOSTILE:
            out.append(repr(grade_grid_plan(project, name, plan).to_json()))
    return out


def _any_compiled() -> bool:
    return any(B.compiled().values())


def test_compiled_modules_loaded_when_required():
    state = B.compiled()
    if os.environ.get("CHRONOPLAN_REQUIRE_COMPILED") != "1":
        pytest.skip(f"compiled: {sum(state.values())}/{len(state)} modules (set CHRONOPLAN_REQUIRE_COMPILED=1 to "
                    "require all)")
    assert all(state.values()), [m for m, ok in state.items() if not ok]


def test_module_list_matches_sources():
    for name, path in B.MODULES.items():
        assert (ROOT / path).is_file(), path
        assert name == "chronoplan." + path[:-3].replace("/", ".")
    listed = {str(Path(p).with_suffix(".pxd")) for p in B.MODULES.values()}
    for pxd in list(ROOT.glob("runtime/**/*.pxd")) + list(ROOT.glob("validators/**/*.pxd")):
        assert str(pxd.relative_to(ROOT)) in listed, f"{pxd.name} declares types for a module setup.py never compiles"


def test_pure_tree_imports_sources_only():
    code = "import json; from chronoplan.build import compiled; print(json.dumps(compiled()))"
    p = C.run_pure(ROOT, ["-c", code], timeout=120)
    assert p.returncode == 0, p.stderr
    state = json.loads(p.stdout)
    assert set(state) == set(B.MODULES) and not any(state.values())


@pytest.mark.skipif(not _any_compiled(), reason="the kitchen modules are not compiled in this install "
                    "(editable or CHRONOPLAN_PURE_PYTHON): nothing to compare")
def test_compiled_and_pure_give_identical_results():
    code = (f"import json, sys; sys.path.insert(0, {str(TESTS)!r}); "
            "from chronoplan.build import compiled; assert not any(compiled().values()); "
            "from test_compiled import outcomes; print(json.dumps(outcomes()))")
    p = C.run_pure(ROOT, ["-c", code], timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    pure = json.loads(p.stdout)
    mine = outcomes()
    assert len(mine) == len(pure) > 300
    for a, b in zip(mine, pure):
        assert a == b
    assert any("'valid': False" in x for x in mine) and any("'valid': True" in x for x in mine)


def test_build_hook_survives_a_module_cython_cannot_compile(tmp_path, capfd):
    pytest.importorskip("Cython")
    import importlib.util

    from setuptools import Distribution, Extension
    spec = importlib.util.spec_from_file_location("chronoplan_setup_hook", ROOT / "setup.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)                  # defines the hook; setup() runs only as __main__
    bad = tmp_path / "broken.py"
    bad.write_text("def f(:\n    pass\n")
    dist = Distribution({"name": "probe", "ext_modules": [Extension("broken", [str(bad)])]})
    cmd = hook.OptionalBuildExt(dist)
    cmd.build_temp, cmd.build_lib = str(tmp_path / "tmp"), str(tmp_path / "lib")
    cmd.ensure_finalized()
    cmd.run()                                      # must not raise
    assert not list((tmp_path / "lib").rglob("broken*.so"))
    assert "WARNING: chronoplan: not compiling" in capfd.readouterr().err
    marker = tmp_path / "lib" / "chronoplan" / "runtime" / C.FALLBACK_MARKER      # installed with the package
    assert "broken" in marker.read_text() and "broken" in C.fallback_reason(marker.parent)
    cmd.run()                                      # a rebuild starts without the old marker
    assert len(marker.read_text().splitlines()) == 1


def test_a_failed_compile_is_noted_at_the_first_use_only(tmp_path, monkeypatch, capsys):
    import io
    monkeypatch.delenv("CHRONOPLAN_PURE_PYTHON", raising=False)
    monkeypatch.setattr(C, "_noted", False)
    assert C.fallback_reason(tmp_path) is None and not C.note_fallback(folder=tmp_path)    # compiled or editable
    monkeypatch.setattr(C, "_noted", False)
    (tmp_path / C.FALLBACK_MARKER).write_text("gcc: not found\nother: not found\n")
    out = io.StringIO()
    assert C.note_fallback(out, tmp_path) and not C.note_fallback(out, tmp_path)          # once per process
    assert out.getvalue().count("\n") == 1 and "pure Python" in out.getvalue()
    assert "(gcc: not found; and 1 more)" in out.getvalue()
    monkeypatch.setattr(C, "_noted", False)
    monkeypatch.setenv("CHRONOPLAN_PURE_PYTHON", "1")                                   # by choice: no note
    assert not C.note_fallback(out, tmp_path)


def _setup_hook():
    import importlib.util
    spec = importlib.util.spec_from_file_location("chronoplan_setup_hook_opt", ROOT / "setup.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)                  # defines the hook; setup() runs only as __main__
    return hook


def test_extensions_compile_at_O1_unless_chronoplan_opt_says_otherwise(monkeypatch):
    """#28 item 12: -O1 halves gcc's time against Python's -O3 (README.md, Compiled engines); the flag follows
    Python's CFLAGS on the command line, so it wins; the Recipe2Plan fast path stays at -O3; CHRONOPLAN_OPT
    picks one level for all, a bad one is refused."""
    hook = _setup_hook()
    monkeypatch.delenv("CHRONOPLAN_OPT", raising=False)
    assert set(hook.FULL_OPT) < set(B.MODULES)
    assert hook.compile_args("chronoplan.runtime.kitchen.engine") == ["-g0", "-O1"]
    assert hook.compile_args("chronoplan.runtime.procedure.fast") == ["-g0", "-O3"]
    monkeypatch.setenv("CHRONOPLAN_OPT", "2")
    assert hook.compile_args("chronoplan.runtime.kitchen.engine") == ["-g0", "-O2"]
    assert hook.compile_args("chronoplan.runtime.procedure.fast") == ["-g0", "-O2"]
    monkeypatch.setenv("CHRONOPLAN_OPT", "-O3; rm -rf /")
    with pytest.raises(SystemExit, match="CHRONOPLAN_OPT must be one of"):
        hook.compile_args()


def test_build_ext_runs_one_compiler_per_core():
    pytest.importorskip("Cython")
    from setuptools import Distribution
    hook = _setup_hook()
    cmd = hook.OptionalBuildExt(Distribution({"name": "probe", "ext_modules": []}))
    cmd.ensure_finalized()
    assert cmd.parallel == (os.cpu_count() or 1)
