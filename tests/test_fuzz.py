"""Fuzzing at scale (issue #17): hostile domain text and hostile plans of every kind through the public API.

Properties: no exception escapes (``chronoplan.compile_paths`` returns diagnostics, ``chronoplan.load`` raises
only ``CompileError``, ``Grader.grade`` and ``validate_many`` return reports and never an internal error
``E090``), exactly one report per plan in input order, byte-identical output on a rerun, work linear in
the plan's length (function calls counted by cProfile, not wall-clock), and a CLI batch of mixed plans
prints one JSON line per plan and exits 1 without a traceback.

Budget: the ``chronoplan-ci`` hypothesis profile (100-400 derandomized examples per test; the file takes about
20 s on the pure-Python install); ``CHRONOPLAN_FUZZ_EXAMPLES=20000 pytest -q tests/test_fuzz.py`` runs the long,
random profile, each test a share of that many examples (about 3 minutes; README, "Fuzzing").  Generators:
tests/fuzz_strategies.py (shared with bench/soak_hostile.py).
"""
import cProfile
import json
import os
import pstats
import random
import re
import subprocess
import sys
from functools import cache

import fuzz_strategies as fz
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronoplan
from chronoplan.validators.grade import Grader, validate_many
from chronoplan.validators.report import Report
from chronoplan.validators.tools.export import reference_plan, reference_plan_arena

LONG = int(os.environ.get("CHRONOPLAN_FUZZ_EXAMPLES", "0") or 0)
_COMMON = dict(deadline=None, database=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                      HealthCheck.large_base_example, HealthCheck.filter_too_much])
settings.register_profile("chronoplan-ci", max_examples=40, derandomize=True, **_COMMON)
settings.register_profile("chronoplan-long", max_examples=max(LONG, 1), **_COMMON)
PROFILE = "chronoplan-long" if LONG else "chronoplan-ci"


def examples(ci: int, long_share: float = 1.0):
    """Settings for one test: ``ci`` examples in CI, a share of CHRONOPLAN_FUZZ_EXAMPLES in the long run."""
    base = settings.get_profile(PROFILE)
    return settings(base, max_examples=max(1, int(LONG * long_share)) if LONG else ci)


RANDOMS = st.randoms(use_true_random=False)
DOMAIN_FILES = sorted(p for p in (fz.ROOT / "domains").rglob("*.chrono"))
TOOLS = fz.ROOT / "domains" / "tools"
TOOL_SCENS = ("calendar_meeting_chain", "calendar_review_many_to_many")


@cache
def recipes():
    return chronoplan.load(fz.RECIPES)


@cache
def kitchen():
    return chronoplan.load(fz.ROOT / "domains" / "paracook" / "generated" / "burger_s42.chrono")


@cache
def tools():
    project = chronoplan.load(TOOLS)
    return project, {s: (reference_plan(project.scenario(s)), reference_plan_arena(project.scenario(s)))
                     for s in TOOL_SCENS}


def check_report(report, name=None):
    assert isinstance(report, Report)
    codes = [e.code for e in report.errors]
    assert "E090" not in codes, report.to_text()          # an internal error is a chronoplan bug
    line = report.to_json_line()
    assert len(line.splitlines()) == 1
    line.encode("utf-8")                                  # printable: no lone surrogates
    json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} in a report"))   # strict JSON, no NaN
    assert report.to_text().encode("utf-8")
    if name is not None:
        assert report.plan == name
    if not report.valid:
        assert report.errors or report.to_json()["metrics"].get("errors_omitted")
    return line


def grade_twice(project, scenario, plan):
    """Grade with two fresh graders: reports must be byte-identical."""
    first = check_report(Grader(project).grade(scenario, plan, name="p"), "p")
    again = check_report(Grader(project).grade(scenario, plan, name="p"), "p")
    assert first == again
    return first


# ------------------------------------------------------------------------------------ plans, one at a time
@examples(400, 0.3)
@given(rnd=RANDOMS, python=st.booleans())
def test_recipes_plans_of_every_format(rnd, python):
    plan = fz.recipes_plan(rnd, python)
    grade_twice(recipes(), fz.R2P_SCEN, plan)
    for fmt in ("schedule", "recipe2plan", "paracook", "tools"):
        check_report(Grader(recipes()).grade(fz.R2P_SCEN, plan, fmt=fmt))
    first = Grader(recipes()).grade(fz.R2P_SCEN, plan, first=True)
    check_report(first)
    assert len(first.errors) <= 1 or all(e.category in ("syntax", "schema") for e in first.errors)


@examples(400, 0.2)
@given(rnd=RANDOMS)
def test_step_text(rnd):
    text = fz.step_text(rnd)
    rep = json.loads(grade_twice(recipes(), fz.R2P_SCEN, text))
    if rep["valid"]:                                  # a valid reading graded every step of both tasks
        assert rep["metrics"]["steps_done"] == rep["metrics"]["steps_total"] == 11


@examples(250, 0.15)
@given(rnd=RANDOMS, python=st.booleans())
def test_kitchen_plans(rnd, python):
    plan = fz.kitchen_plan(rnd, python)
    grade_twice(kitchen(), fz.KITCHEN_SCEN, plan)
    first = Grader(kitchen()).grade(fz.KITCHEN_SCEN, plan, first=True)
    check_report(first)
    assert len(first.errors) <= 1


@examples(300, 0.15)
@given(rnd=RANDOMS, python=st.booleans(), scen=st.sampled_from(TOOL_SCENS))
def test_tool_plans(rnd, python, scen):
    project, refs = tools()
    plan = fz.tool_plan(rnd, *refs[scen], python=python)
    grade_twice(project, scen, plan)
    check_report(Grader(project).grade(scen, plan, fmt="planningarena"))


@cache
def worlds():
    return chronoplan.load(fz.WORLDS)


@examples(300, 0.15)
@given(rnd=RANDOMS, python=st.booleans())
def test_world_plans(rnd, python):
    plan = fz.world_plan(rnd, python)
    rep = json.loads(grade_twice(worlds(), fz.WORLD_SCEN, plan))
    m = rep["metrics"]
    if "prefix_length" in m:                      # (a plan no reader can decode is reported before the family)
        assert 0 <= m["prefix_length"] <= m["plan_length"] and 0 <= m["goal_fraction"] <= 1
    first = Grader(worlds()).grade(fz.WORLD_SCEN, plan, first=True)
    check_report(first)
    assert len(first.errors) <= 1


def test_the_unmutated_plans_are_valid():
    assert Grader(worlds()).grade(fz.WORLD_SCEN, fz.VALID_WORLD).valid
    assert Grader(recipes()).grade(fz.R2P_SCEN, fz.VALID_SCHEDULE).valid
    assert Grader(recipes()).grade(fz.R2P_SCEN, fz.VALID_R2P_TEXT).valid
    assert Grader(recipes()).grade(fz.R2P_SCEN, fz.VALID_R2P_LIST).valid
    assert Grader(kitchen()).grade(fz.KITCHEN_SCEN, fz.VALID_KITCHEN).valid
    project, refs = tools()
    for scen, (ref, arena) in refs.items():
        assert Grader(project).grade(scen, ref).valid and Grader(project).grade(scen, arena).valid


# ------------------------------------------------------------------------------------ batches
@examples(100, 0.05)
@given(rnd=RANDOMS, n=st.integers(1, 25))
def test_validate_many_one_report_per_plan_in_order(rnd, n):
    items, scen = [], fz.R2P_SCEN
    for i in range(n):
        items.append((f"p{i}.json", fz.recipes_plan(rnd, python=rnd.random() < 0.5)))
    junk = [None, 3, b"/nonexistent", ("a",)]                       # not plan sources: E002 reports
    pos = rnd.randrange(len(items) + 1)
    items[pos:pos] = junk[:rnd.randint(0, len(junk))]
    runs = [[check_report(r) for r in validate_many(recipes(), items, scenario=scen)] for _ in range(2)]
    assert runs[0] == runs[1]
    names = [json.loads(line)["plan"] for line in runs[0]]
    assert len(names) == len(items)
    want = [x[0] for x in items if isinstance(x, tuple) and len(x) == 2]
    assert [n for n in names if re.fullmatch(r"p\d+\.json", n)] == want


# ------------------------------------------------------------------------------------ domain text
def _compile_mutant(tmp_path, text):
    path = tmp_path / "mutant.chrono"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    project, diags, sources = chronoplan.compile_paths(path)
    for d in diags:
        assert d.code and d.message
    if project is None:
        assert any(d.is_error for d in diags)
    try:
        chronoplan.load(path)
    except chronoplan.CompileError as exc:
        assert str(exc)
    return project, diags


@examples(300, 0.15)
@given(rnd=RANDOMS, index=st.integers(0, len(DOMAIN_FILES) - 1))
def test_mutated_domains_give_diagnostics(tmp_path_factory, rnd, index):
    src = DOMAIN_FILES[index]
    text = src.read_text()
    text = re.sub(r'import "([^"]+)"', lambda m: f'import "{(src.parent / m.group(1)).resolve().as_posix()}"', text)
    mutant = fz.mutate_domain(rnd, text)
    tmp = tmp_path_factory.mktemp("dom")
    project, diags = _compile_mutant(tmp, mutant)
    again = _compile_mutant(tmp, mutant)[1]
    assert [(d.code, d.message) for d in diags] == [(d.code, d.message) for d in again]
    if project is not None and not any(d.is_error for d in diags):   # a domain that still compiles grades plans
        for name in list(project.scenarios)[:2]:
            check_report(Grader(project).grade(name, fz.VALID_SCHEDULE))
            check_report(Grader(project).grade(name, fz.VALID_KITCHEN))


# ------------------------------------------------------------------------------------ linear work
def _calls(fn) -> int:
    prof = cProfile.Profile()
    prof.enable()
    try:
        fn()
    finally:
        prof.disable()
    return pstats.Stats(prof).total_calls


def _hostile_schedule(n, rnd):
    out = []
    for i in range(n):
        e = dict(fz.VALID_SCHEDULE["schedule"][i % 11])
        e["start"] = e["start"] + 5000 * (i // 11)
        if i % 3 == 0:
            e[rnd.choice(["start", "step", "duration", "task"])] = fz.hostile_value(rnd, False)
        out.append(e)
    return {"schedule": out}


def _hostile_text(n, rnd):
    return ", ".join(f"Step({rnd.choice(['0', '²', '5', '-1'])}, {rnd.choice(['Roast-Chicken', 'Nope'])}, "
                     f"{rnd.choice(['00:10:00', 'NaN', '00:１0:00'])}, {_hms(60 * i)})" for i in range(n))


def _hms(s):
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _hostile_kitchen(n, rnd):
    acts = [{"action": "Interact", "target": "table2"}, {"action": "MoveTo", "target": [1, 2]},
            {"action": "Wait", "duration": float("nan")}, {"action": "Process", "target": "nowhere"},
            {"action": "MoveTo", "target": [8, 7]}, {"action": "Wait", "duration": 1}]
    return {"plan": {"agent1": [rnd.choice(acts) for _ in range(n)], "agent2": [rnd.choice(acts) for _ in range(n)]}}


def _hostile_tools(n, rnd):
    steps = []
    for i in range(1, n + 1):
        steps.append({"id": i, "tool": rnd.choice(["findFreeSlot", "nope", "sendEmail"]),
                      "args": rnd.choice([{}, {"date": "2025-13-45"}, {"to": "x"}]),
                      "after": rnd.choice([[], [i - 1], [i + 1], ["²"]])})
    return {"steps": steps}


def _hostile_world(n, rnd):
    acts = ["(pick-up a)", "(put-down a)", "(unstack c a)", "(stack a b)", "(fly a)", "(pick-up zz)", "(stack a)",
            "0.000: (PUT-DOWN C) [1]", "not an action", "(pick-up b)", "(put-down b)"]
    return "\n".join(rnd.choice(acts) for _ in range(n))


@pytest.mark.parametrize("kind", ["schedule", "text", "kitchen", "tools", "world"])
def test_work_is_linear_in_the_plan_length(kind):
    """Grading a hostile plan of 4n actions costs about 4x the function calls of one of n (not 16x)."""
    make, project, scen, n = {
        "schedule": (_hostile_schedule, recipes, fz.R2P_SCEN, 150),
        "text": (_hostile_text, recipes, fz.R2P_SCEN, 150),
        "kitchen": (_hostile_kitchen, kitchen, fz.KITCHEN_SCEN, 60),
        "tools": (lambda k, r: _hostile_tools(k, r), lambda: tools()[0], TOOL_SCENS[0], 60),
        "world": (_hostile_world, worlds, fz.WORLD_SCEN, 150),
    }[kind]
    grader = Grader(project())
    grader.grade(scen, make(5, random.Random(0)))                  # warm caches (compiled world, schemas)
    small = _calls(lambda: check_report(grader.grade(scen, make(n, random.Random(1)))))
    big = _calls(lambda: check_report(grader.grade(scen, make(4 * n, random.Random(1)))))
    assert big < 6 * small, (kind, small, big)          # measured: 3.6-4.1x


# ------------------------------------------------------------------------------------ the CLI
def _cli_batch(tmp_path, seed, n):
    rnd = random.Random(seed)
    lines = []
    for _ in range(n):
        r = rnd.random()
        plan = fz.VALID_SCHEDULE if r < 0.3 else fz.recipes_plan(rnd)
        lines.append(fz.jsonl_line(rnd, plan))
    path = tmp_path / "batch.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    proc = subprocess.run([sys.executable, "-m", "chronoplan.cli", "validate", str(fz.RECIPES), str(path),
                           "--scenario", fz.R2P_SCEN, "--format", "json"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)    # cwd: a scratch directory, as a user's
    assert "Traceback" not in proc.stderr and proc.returncode == 1, proc.stderr[-2000:]
    reps = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["plan"] for r in reps] == [f"{path}:{i}" for i in range(1, n + 1)]
    assert not any(e["code"] == "E090" for r in reps for e in r["errors"])
    valid = [r["valid"] for r in reps]
    assert all(valid[i] for i, line in enumerate(lines) if line == json.dumps(fz.VALID_SCHEDULE).encode())
    return reps


@pytest.mark.parametrize("seed", range(max(1, LONG // 2000)) if LONG else [17])
def test_cli_batch_of_mixed_hostile_and_valid_plans(tmp_path, seed):
    _cli_batch(tmp_path, seed, 300)


def test_soak_script_small(tmp_path):
    """bench/soak_hostile.py end to end at a small size (the full run is 100,000 plans), so it cannot rot."""
    proc = subprocess.run([sys.executable, str(fz.ROOT / "bench" / "soak_hostile.py"), "--plans", "2000", "--kitchen",
                           "100", "--json", "--keep", str(tmp_path / "plans")], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert out["problems"] == []
    for name, n in (("recipes", 2000), ("kitchen", 100)):
        res = out["batches"][name]
        assert res["plans"] == res["reports"] == res["in_order"] == n and res["status"] == 1
        assert 0 < res["valid"] < n and not res["codes"].get("E090") and 0 < res["peak_rss_mb"] < 1024
