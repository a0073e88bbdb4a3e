"""Grading household episode logs (validators/household, issue #13): crafted logs for every error, logs from
the env and the baseline, the CLI (validate, play --baseline, solve --planner astar, schema), hostile logs."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import chronoplan
from chronoplan.cli import main
from chronoplan.compiler.codes import Scope, codes_in
from chronoplan.compiler.household.problem import HouseholdProblem
from chronoplan.runtime.household.baseline import run_baseline
from chronoplan.validators.grade import validate_many
from chronoplan.validators.household.grade import grade_log

ROOT = Path(__file__).resolve().parents[1]
HOME = ROOT / "domains" / "household"
HEADER = {"scenario": "tea_1", "seed": 1, "agents": ["alice", "bob"]}


@pytest.fixture(scope="module")
def project():
    return chronoplan.load(HOME)


def log_text(*records, header=HEADER) -> str:
    lines = ([json.dumps(header)] if header is not None else []) + \
        [r if isinstance(r, str) else json.dumps(r) for r in records]
    return "\n".join(lines) + "\n"


def step(t, **actions):
    return {"step": t, "actions": actions}


def codes(report) -> list:
    return [e.code for e in report.errors]


# ---------------------------------------------------------------- crafted logs, one per error
def test_knowledge_hallucination_reports_when_it_became_known(project):
    # alice (livingroom) grabs cupcake1, which lies in the kitchen where bob is; bob names it in a message at
    # step 0, delivered at step 1: the hallucination at step 0 says "first became known to alice at step 1"
    r = grade_log(project, "tea_1", log_text(
        step(0, alice="[gograb] <cupcake1> (18)", bob="[send_message] <cupcake1 on kitchencounter>")))
    e = next(e for e in r.errors if e.code == "E133")
    assert e.agent == "alice" and e.time == 0 and e.index == 2
    assert "at step 1" in e.message and "known from step 1" in e.hint
    assert r.metrics["hallucinations"] == 1


def test_knowledge_hallucination_never_known(project):
    r = grade_log(project, "tea_1", log_text(step(0, alice="[gograb] <wine1> (26)")))
    e = next(e for e in r.errors if e.code == "E133")
    assert "never learned of it" in e.message and e.category == "unknown-name"


def test_a_hallucinated_object_and_an_unreadable_action(project):
    r = grade_log(project, "tea_1", log_text(step(0, alice="[gograb] <unicorn>", bob="dance wildly")))
    assert sorted(codes(r))[:2] == ["E031", "E132"]


def test_message_over_the_limit(project):
    long = "x" * 501
    r = grade_log(project, "tea_1", log_text({"step": 0, "actions": {"alice": f"[send_message] <{long}>"}}))
    e = next(e for e in r.errors if e.code == "E231")
    assert e.agent == "alice" and "501 characters" in e.message and "500" in e.message
    # in the record's messages only (the action was not a send): E231 and a W031 mismatch
    r = grade_log(project, "tea_1", log_text({"step": 0, "actions": {}, "messages": {"bob": long}}))
    assert "E231" in codes(r) and [w.code for w in r.warnings] == ["W031"]
    # exactly 500 characters is allowed
    ok = grade_log(project, "tea_1", log_text({"step": 0, "actions": {"alice": "[send_message] <" + "y" * 500 + ">"},
                                               "messages": {"alice": "y" * 500}}))
    assert "E231" not in codes(ok) and not ok.warnings and ok.metrics["characters"] == 500


def test_step_after_the_horizon(project):
    r = grade_log(project, "tea_1", log_text(step(0), step(300, alice="[wait]"), step(301), step(302)))
    e = next(e for e in r.errors if e.code == "E630")
    assert e.time == 300 and e.index == 3 and "2 more records" in e.message
    assert "E730" in codes(r) and r.metrics["steps"] == 250


def test_step_after_success(project):
    text = run_baseline(HouseholdProblem(project, "tea_1"), log=True).log.text()
    r = grade_log(project, "tea_1", text + json.dumps(step(66)) + "\n")
    assert codes(r) == ["E631"] and r.metrics["success"] is True


def test_forbidden_and_busy_actions(project):
    r = grade_log(project, "tea_1", log_text(
        step(0, alice="[goexplore] <kitchen> (2)", bob="[goput] <coffeetable> (11)"),
        step(1, alice="[gocheck] <fridge> (5)")))
    by = {e.code: e for e in r.errors}
    assert by["E230"].agent == "bob" and "holds nothing" in by["E230"].message and by["E230"].time == 0
    assert by["E430"].agent == "alice" and by["E430"].time == 1
    assert by["E731"].time == 2                       # the log stops before the episode ends


def test_another_episode(project):
    r = grade_log(project, "tea_1", log_text(step(0), header={**HEADER, "seed": 7}))
    assert codes(r) == ["E130"] and "seed 7" in r.errors[0].message
    r = grade_log(project, "tea_1", log_text(step(0), header={**HEADER, "scenario": "tea_2"}))
    assert codes(r) == ["E130"]
    r = grade_log(project, "tea_1", log_text(step(0), header={**HEADER, "agents": ["alice", "carol"]}))
    assert codes(r) == ["E130"]


def test_malformed_records_are_located(project):
    r = grade_log(project, "tea_1", log_text(step(0), "{not json", '{"step": 1, "actions": {"alice": 5}}',
                                             '{"step": 2, "actions": {"zed": "[wait]"}}', "[1, 2]",
                                             '{"step": 1, "actions": {}}', '{"actions": {}}'))
    got = [(e.code, e.index) for e in r.errors if e.code != "E731"]
    assert got == [("E030", 3), ("E032", 4), ("E131", 5), ("E032", 6), ("E033", 7), ("E032", 8)]


def test_no_header_and_strict_nulls(project):
    r = grade_log(project, "tea_1", log_text(step(0), header=None))
    assert codes(r)[0] == "E032" and r.errors[0].index == 1
    nulls = {"step": 0, "actions": {"alice": None, "bob": "[wait]"}, "messages": None, "observations": None}
    r = grade_log(project, "tea_1", log_text(nulls))
    assert codes(r) == ["E731"]


# ---------------------------------------------------------------- real episodes
def test_env_episode_log_validates_with_the_env_metrics(project, tmp_path):
    pytest.importorskip("pettingzoo")
    import numpy as np

    from chronoplan.env import parallel_env
    env = parallel_env(project, "tea_1", log=True)
    env.reset(seed=1)
    rng = np.random.default_rng(3)
    texts = ["[send_message] <I am heading to the kitchen; cupcake1 is on the kitchencounter>", "[gograb] <unicorn>"]
    t = 0
    while env.agents:
        acts = {}
        for a in env.agents:
            if t < 2 and a == "alice":
                acts[a] = texts[t]
                continue
            avail = env.engine.available(a)
            acts[a] = int(avail[rng.integers(len(avail))])
        env.step(acts)
        t += 1
    m = env.engine.metrics()
    path = tmp_path / "episode.jsonl"
    env.log.write(path)
    r = grade_log(project, "tea_1", path)
    for key in ("success", "steps", "transport_rate", "messages", "characters", "refusals"):
        assert r.metrics[key] == m[key], key
    assert not r.warnings
    assert codes(r).count("E132") == 1                 # the unicorn
    assert set(codes(r)) <= {"E132", "E730"}


def test_baseline_logs_are_valid_and_match_play(project, tmp_path, capsys):
    for scen in project.scenarios:
        text = run_baseline(HouseholdProblem(project, scen), log=True).log.text()
        r = grade_log(project, scen, text)
        assert r.valid and not r.warnings, (scen, r.to_text())
    out = tmp_path / "base.jsonl"
    assert main(["play", str(HOME), "-s", "dishes_1", "--baseline", "--log", str(out), "--json"]) == 0
    played = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert played["optimum_proven"] and played["optimum_steps"] <= played["baseline_steps"]
    assert main(["validate", str(HOME), str(out), "--format", "json"]) == 0
    graded = json.loads(capsys.readouterr().out)
    assert graded["valid"] and graded["metrics"]["steps"] == played["baseline_steps"] == played["steps"]


def test_logs_are_the_same_in_every_process(project, tmp_path):
    """The observation digests do not depend on PYTHONHASHSEED (a set's order once leaked into them)."""
    out = tmp_path / "other.jsonl"
    code = ("import chronoplan, sys; from chronoplan.compiler.household.problem import HouseholdProblem; "
            "from chronoplan.runtime.household.baseline import run_baseline; "
            f"p = chronoplan.load({str(HOME)!r}); "
            "run_baseline(HouseholdProblem(p, 'meal_1'), log=True).log.write(sys.argv[1])")
    subprocess.run([sys.executable, "-c", code, str(out)], check=True, env={**os.environ, "PYTHONHASHSEED": "12345"})
    r = grade_log(project, "meal_1", out)
    assert r.valid and not r.warnings


# ---------------------------------------------------------------- CLI
def test_validate_exit_codes(project, tmp_path, capsys):
    good = tmp_path / "good.jsonl"
    good.write_text(run_baseline(HouseholdProblem(project, "tea_2"), log=True).log.text())
    bad = tmp_path / "bad.jsonl"
    bad.write_text(log_text(step(0, alice="[gograb] <wine1> (26)")))
    assert main(["validate", str(HOME), str(good)]) == 0
    assert "valid against tea_2" in capsys.readouterr().out
    assert main(["validate", str(HOME), str(bad)]) == 1
    assert "E133" in capsys.readouterr().out
    assert main(["validate", str(HOME), str(good), "--scenario", "nope"]) == 2
    capsys.readouterr()
    # a batch: the bad log does not stop the good one
    assert main(["validate", str(HOME), str(bad), str(good), "--format", "json"]) == 1
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["valid"] for x in lines] == [False, True]


def test_validate_seed(project, tmp_path, capsys):
    """An episode played with another seed (``play --seed``, ``reset(seed=N)``) is graded with ``--seed N``, in
    this process or on worker processes; without it, or with another seed, it is E130; ``--seed`` is refused
    where it cannot apply (tests/test_ray.py: on Ray)."""
    log = tmp_path / "seed5.jsonl"
    assert main(["play", str(HOME), "-s", "tea_1", "--baseline", "--seed", "5", "--log", str(log), "--json"]) == 0
    played = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert main(["validate", str(HOME), str(log), "--format", "json"]) == 1
    assert [e["code"] for e in json.loads(capsys.readouterr().out)["errors"]] == ["E130"]
    assert main(["validate", str(HOME), str(log), "--seed", "5", "--format", "json"]) == 0
    graded = json.loads(capsys.readouterr().out)
    assert graded["valid"] and graded["metrics"]["steps"] == played["baseline_steps"]
    assert main(["validate", str(HOME), str(log), "--seed", "6"]) == 1
    assert "seed 5 (the one asked for is 6)" in capsys.readouterr().out
    assert main(["validate", str(HOME), str(log), str(log), "--seed", "5", "--jobs", "2", "--format", "json"]) == 0
    assert [json.loads(x)["metrics"]["steps"] for x in capsys.readouterr().out.splitlines()] == [played["steps"]] * 2
    for argv, says in ((["--seed", "-1"], "whole number"), (["--seed", "1e3"], "whole number")):
        assert main(["validate", str(HOME), str(log), *argv]) == 2
        assert says in capsys.readouterr().err
    recipes = HOME.parent / "recipes"
    assert main(["validate", str(recipes), str(log), "--seed", "5"]) == 2
    assert "the project has no household" in capsys.readouterr().err


def test_solve_astar_and_schema(capsys):
    assert main(["solve", str(HOME), "-s", "tea_1", "--planner", "astar"]) == 0
    out = capsys.readouterr().out
    assert "proven optimal: 24 steps" in out and re.search(r"alice: 0: \[gograb\]", out)
    assert main(["solve", str(HOME), "-s", "tea_1", "--planner", "cpsat"]) == 2
    assert "planners for household scenarios: astar" in capsys.readouterr().err
    assert main(["schema", str(HOME), "-s", "tea_1", "--strict"]) == 0
    from chronoplan.validators.strict_schema import violations
    assert violations(json.loads(capsys.readouterr().out)) == []
    assert main(["schema", str(HOME), "-s", "tea_1"]) == 0
    schema = json.loads(capsys.readouterr().out)
    jsonschema = pytest.importorskip("jsonschema")
    project = chronoplan.load(HOME)
    for line in run_baseline(HouseholdProblem(project, "tea_1"), log=True).log.lines():
        jsonschema.validate(json.loads(line), schema)


def test_play_household_lines(capsys, monkeypatch):
    import io
    monkeypatch.setattr(sys, "stdin", io.StringIO("alice: go to <kitchen>; bob: [gograb] <cupcake1> (18)\nlook\n"
                                                  "quit\n"))
    assert main(["play", str(HOME), "-s", "tea_1", "--syntax", "tdw"]) == 1
    out = capsys.readouterr().out
    assert "=== alice" in out and "go grasp target object <cupcake1> (18) - my cost:" in out
    assert "alice: go to <kitchen>: started" in out and "bob: [gograb] <cupcake1> (18): started" in out
    assert main(["play", str(HOME), "-s", "tea_1", "--protocol", "recipe2plan"]) == 2


def test_check_summary_and_list_ask_the_registry(capsys):
    assert main(["check", "--summary", str(HOME)]) == 0
    assert "household scenarios: tea_1" in capsys.readouterr().out
    assert main(["list", "--format", "json", str(HOME)]) == 0
    assert {x["kind"] for x in json.loads(capsys.readouterr().out)} == {"household"}


# ---------------------------------------------------------------- hostile logs
@pytest.mark.parametrize("line, code", [
    ('{"step": 0, "actions": {"alice": NaN}}', "E030"),
    ('{"step": 1e400, "actions": {}}', "E032"),
    ('{"step": 123456789012345678901234567890, "actions": {}}', "E032"),
    ('{"step": true, "actions": {}}', "E032"),
    ('{"step": -1, "actions": {}}', "E032"),
    ('{"step": 0, "actions": [1]}', "E032"),
    ('{"step": 0, "actions": {"alice": {"x": 1}}}', "E032"),
    ('{"step": 0, "step": 1, "actions": {}}', "E032"),
    ("[" * 5000 + "]" * 5000, "E030"),
    ('{"step": 0, "actions": {"alice": "' + "z" * 20000 + '"}}', "E031"),
    ("\udcff\udcfe", "E030"),
    ('"just a string"', "E032"),
])
def test_hostile_lines_give_errors(project, line, code):
    r = grade_log(project, "tea_1", log_text(line))
    assert code in codes(r), r.to_text()


def test_hostile_whole_logs(project, tmp_path):
    assert codes(grade_log(project, "tea_1", "")) == ["E002"]
    assert codes(grade_log(project, "tea_1", {"step": 0})) == ["E012"]
    assert codes(grade_log(project, "tea_1", log_text(header={"scenario": 5, "seed": "x", "agents": 3}))) == ["E130"]
    big = tmp_path / "million.jsonl"
    with big.open("w") as f:
        f.write(json.dumps(HEADER) + "\n")
        for t in range(1_000_000):
            f.write(f'{{"step": {t}, "actions": {{}}}}\n')
    r = grade_log(project, "tea_1", big)
    assert codes(r) == ["E630", "E730"] and "999749 more records" in r.errors[0].message
    long_line = tmp_path / "long.jsonl"
    long_line.write_text(json.dumps(HEADER) + "\n" + "{" + " " * 2_000_000 + "}\n")
    assert "E030" in codes(grade_log(project, "tea_1", long_line))
    reports = list(validate_many(project, [str(big), str(tmp_path / "missing.jsonl"), str(long_line)]))
    assert len(reports) == 3 and not any("E090" in codes(r) for r in reports)


def test_the_docs_list_exactly_the_household_codes():
    text = (ROOT / "docs" / "benchmarks" / "pce.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([EW]\d{3})` \| (error|warning) \| `([a-z-]+)` \| (.+?) \|$", text, re.M)
    assert {c: (sev, cat, title) for c, sev, cat, title in rows} == {
        c: (v.severity.value, v.category.value, v.title) for c, v in codes_in(Scope.HOUSEHOLD).items()}


def test_the_baseline_optimum_table_is_up_to_date():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_household_table
    finally:
        sys.path.pop(0)
    text = (ROOT / "docs" / "benchmarks" / "pce.md").read_text(encoding="utf-8")
    assert gen_household_table.with_block(text) == text, "regenerate it: python tools/gen_household_table.py"
    assert "| tea_1 | 1 | 4 | 66 | 24 | yes | 2.75 |" in text


def test_pddl_and_render_say_what_exists_instead(project, tmp_path, capsys):
    log = tmp_path / "tea_1.jsonl"
    log.write_text(run_baseline(HouseholdProblem(project, "tea_1"), log=True).log.text())
    assert main(["pddl", str(HOME), "-s", "tea_1", "-o", str(tmp_path / "pddl")]) == 0   # the omniscient relaxation
    err = capsys.readouterr().err
    assert "warning[P021]" in err and "--planner astar" in err
    assert main(["render", str(HOME), str(log), "-o", str(tmp_path / "x.html")]) == 2
    assert "household scenarios have no chart; `chronoplan validate`" in capsys.readouterr().err
