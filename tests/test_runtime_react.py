"""Recipe2Plan's ReAct protocol (validators/react_env.py): timed actions one at a time on the shared engine."""
from __future__ import annotations

import io
import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import chronoplan
from chronoplan.cli import main
from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import procedure_problem
from chronoplan.runtime.timefmt import clock
from chronoplan.runtime.violations import CODES
from chronoplan.validators.react_env import LABELS, ReactEnv
from chronoplan.validators.replay import validate_plan

sys.path.insert(0, str(Path(__file__).resolve().parent))
import r2pdata  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "domains" / "recipes"
needs_data = pytest.mark.skipif(not (r2pdata.DATA / "cooking.json").exists(), reason="no Recipe2Plan data")

DOMAIN = """
domain react
resource oven capacity 1 { temperature = 0 }
resource stove capacity 1
procedure Soup {
  step 0 "Preheat the oven." 10 min autonomous uses oven sets temperature = 400
  step 1 "Chop onions." 3 min interruptible
  step 2 "Boil water." 5 min autonomous uses stove
  step 3 "Bake bread." 20 min autonomous after 0 uses oven needs temperature = 400
  step 4 "Serve soup." 1 min after 2 within 2 min of 2
}
procedure Tea {
  step 0 "Heat the kettle on the stove." 4 min autonomous uses stove
  step 1 "Warm the pot in the oven." 2 min autonomous uses oven needs temperature = 400
  step 2 "Stir." 2 min
}
scenario dinner { unit s  agents cook  procedures Soup, Tea  limit 2 h }
scenario duo { unit s  agents a, b  procedures Soup }
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    p = tmp_path_factory.mktemp("react") / "react.chrono"
    p.write_text(DOMAIN)
    return chronoplan.load(p)


@pytest.fixture(scope="module")
def dinner(project):
    return procedure_problem(project, project.scenario("dinner"))


@pytest.fixture(scope="module")
def roast():
    proj = chronoplan.load(RECIPES)
    return procedure_problem(proj, proj.scenario("Roast-Chicken_Garlic-Potatoes"))


def lenient(problem, **kw):
    return ReactEnv(problem, max_refusals=None, max_revisions=None, fatal=(), **kw)


def snapshot(env):
    st = env.state
    return (env.time, env.observation(), len(env.accepted), tuple(st.runs), tuple(st.violations),
            len(st.queue), {k: (s.progress, s.first_start, s.running, s.done_at) for k, s in st.steps.items()},
            {r: dict(p) for r, p in st.props.items()}, {a: list(rs) for a, rs in st.agent_runs.items()})


def entry_text(e, unit, form=4):
    start = clock(e["start"], unit)
    if form == 3:
        return f"Step({e['step']}, {e['task']}, {start})"
    d = Fraction(e["duration"])
    dur = (f"{d / 60} min" if d % 60 == 0 else f"{d} sec") if form == "min" else clock(d, unit)
    return f"Step({e['step']}, {e['task']}, {dur}, {start})"


# ------------------------------------------------------------------ reference plans, action by action
def _replay_reference(problem, schedule, form=4):
    env = ReactEnv(problem)
    rows = sorted(schedule, key=lambda e: e["start"])
    for i, e in enumerate(rows):
        obs, fb = env.step(entry_text(e, problem.time_unit, form))
        assert fb.ok, (problem.scenario, e, str(fb))
        assert fb.done == (i == len(rows) - 1)
    return env


@needs_data
@pytest.mark.parametrize("constrained", [True, False])
def test_recipe2plan_reference_plans_action_by_action(constrained):
    n = 0
    for i, key in enumerate(r2pdata.keys()):
        if not constrained and i % 3:          # every instance with time constraints, a third without
            continue
        ref = r2pdata.reference(key, constrained)
        if ref is None:
            continue
        problem = r2pdata.problem(key, constrained)
        env = _replay_reference(problem, ref["schedule"], form=(4, 3, "min")[n % 3])
        batch = validate_plan(problem, ref)
        assert batch.valid and env.done and env.success
        assert env.completion_time() == batch.metrics["makespan"] == env.time
        m = env.metrics(reference=ref)
        assert m["makespan"] == batch.metrics["makespan"] and m["progress"] == 1
        assert m["efficiency"] == batch.metrics["efficiency"] and m["relative_efficiency"] == 1
        assert m["refusals"] == 0 and m["actions"] == len(ref["schedule"])
        n += 1
    assert n == (64 if constrained else 22)


@needs_data
def test_whole_reference_plan_in_one_call_and_plan_text_round_trip():
    key = r2pdata.keys()[5]
    problem = r2pdata.problem(key, True)
    ref = r2pdata.reference(key, True)
    rows = sorted(ref["schedule"], key=lambda e: e["start"])
    env = ReactEnv(problem)
    obs, fb = env.step("Thought: I follow the plan.\nAction: " + ", ".join(entry_text(e, problem.time_unit)
                                                                          for e in rows))
    assert fb.ok and env.success and len(fb.results) == len(rows)
    again = env.critique(env.plan_text())
    assert again.valid and again.metrics["makespan"] == env.completion_time()
    env2 = ReactEnv(problem)                 # plan.json rows ([step, recipe, duration_s, start_s]) work too
    obs, fb = env2.step(json.dumps([[e["step"], e["task"], e["duration"], e["start"]] for e in rows]))
    assert fb.ok and env2.success and env2.completion_time() == env.completion_time()


def test_domains_recipes_valid_and_faulty_plans(roast):
    valid = json.loads((RECIPES / "plans" / "valid.json").read_text())
    env = _replay_reference(roast, valid["schedule"])
    batch = validate_plan(roast, valid)
    assert env.success and env.completion_time() == batch.metrics["makespan"] == 4440
    assert "All steps are done: completed at 01:14:00." in env.observation()
    faulty = json.loads((RECIPES / "plans" / "faulty.json").read_text())
    env = ReactEnv(roast)
    for e in sorted(faulty["schedule"], key=lambda e: e["start"]):
        obs, fb = env.step(entry_text(e, roast.time_unit))
        if not fb.ok:
            break
    # Garlic-Potatoes 0 at 00:04:00 while the cook stuffs the chicken until 00:05:00
    assert fb.code == "E401" and fb.label == "Infeasible Multitask" and env.time == 180
    assert "at or after 00:05:00" in fb.hint


def test_dependency_is_not_masked_by_object_errors(roast):
    env = ReactEnv(roast)
    env.step("Step(0, Roast-Chicken, 00:10:00, 00:00:00), Step(1, Roast-Chicken, 3 min, 00:00:00), "
             "Step(2, Roast-Chicken, 00:02:00, 00:03:00)")
    obs, fb = env.step("Step(3, Roast-Chicken, 00:50:00, 00:05:00)")    # the oven is still preheating
    codes = [v.code for v in fb.results[-1].violations]
    assert codes == ["E301", "E411", "E201"] and fb.code == "E301" and fb.category == "dependency"
    assert "at or after 00:10:00, when step 0 of Roast-Chicken finishes" in fb.hint
    obs, fb = env.step("Step(3, Roast-Chicken, 00:50:00, 00:10:00)")
    assert fb.ok and env.time == 600


# ------------------------------------------------------------------ each refusal category
CASES = [
    # (setup actions, action, expected code, Table 14 label)
    ([], "Step(0, Pizza, 00:01:00, 00:00:00)", "E101", "Wrong Recipe"),
    ([], "Step(7, Soup, 00:01:00, 00:00:00)", "E102", "Wrong Action"),
    (["Step(2, Soup, 00:05:00, 00:04:00)"], "Step(0, Soup, 00:10:00, 00:03:00)", "E613", "Time Error"),
    (["Step(1, Soup, 00:03:00, 00:00:00)"], "Step(2, Tea, 00:02:00, 00:01:00)", "E401", "Infeasible Multitask"),
    (["Step(2, Soup, 00:05:00, 00:00:00)"], "Step(0, Tea, 00:04:00, 00:01:00)", "E411", "Object Occupancy"),
    ([], "Step(1, Tea, 00:02:00, 00:00:00)", "E201", "Object Temperature"),
    ([], "Step(4, Soup, 00:01:00, 00:00:00)", "E301", "Dependency"),
    (["Step(2, Soup, 00:05:00, 00:00:00)"], "Step(2, Soup, 00:05:00, 00:01:00)", "E802", "Repeated Action"),
    (["Step(2, Soup, 00:05:00, 00:00:00)"], "Step(2, Soup, 00:05:00, 00:06:00)", "E801", "Repeated Action"),
    (["Step(2, Soup, 00:05:00, 00:00:00)"], "Step(4, Soup, 00:01:00, 00:08:00)", "E601", "Time Constraint"),
    (["Step(2, Soup, 00:05:00, 00:00:00)"], "Step(2, Tea, 00:02:00, 00:08:00)", "E603", "Time Constraint"),
    ([], "Step(2, Soup, 00:06:00, 00:00:00)", "E501", "Action Duration"),
    ([], "Step(1, Soup, 4 min, 00:00:00)", "E501", "Action Duration"),
    ([], "Step(2, Soup, 00:00:00, 00:00:00)", "E502", "Action Duration"),
    ([], "Step(2, Soup, 00:03:00, 00:00:00)", "E511", "Execution Interruptibility"),
    ([], "Step(2, Tea, 00:02:00, 01:59:00)", "E614", "Time Limit"),
    ([], "Step(x, Soup, 00:01:00, 00:00:00)", "E010", "Unreadable Action"),
    ([], "Step(1, Soup, soon, 00:00:00)", "E010", "Unreadable Action"),
    ([], "make soup", "E104", "Unreadable Action"),
]


@pytest.mark.parametrize("setup,action,code,label", CASES, ids=[f"{c[2]}-{i}" for i, c in enumerate(CASES)])
def test_each_refusal_category(dinner, setup, action, code, label):
    env = lenient(dinner)
    for a in setup:
        assert env.step(a)[1].ok
    state, before = env.state, snapshot(env)
    obs, fb = env.step(action)
    assert not fb.ok and fb.code == code and fb.label == label == LABELS[code]
    assert fb.category == CODES[code][0] and fb.hint
    assert len(fb.results[-1].violations) == 1            # crafted to break exactly one rule
    assert env.state is state and snapshot(env) == before  # a refusal changes neither state nor clock
    assert not env.done and env.refusals == 1


def test_time_constraints_are_fatal_by_default(dinner):
    env = ReactEnv(dinner)
    env.step("Step(2, Soup, 00:05:00, 00:00:00)")
    before = snapshot(env)
    obs, fb = env.step("Step(4, Soup, 00:01:00, 00:08:00)")      # 3 min after boiling; at most 2
    assert fb.code == "E601" and fb.fatal and env.done and not env.success and fb.done
    assert snapshot(env)[0] == before[0] and len(env.state.runs) == 1
    assert "at most 2 min is allowed" in obs and env.step("Step(4, Soup, 1 min, 00:06:00)")[1].ok is False
    env = ReactEnv(dinner)
    env.step("Step(2, Soup, 00:05:00, 00:00:00)")
    obs, fb = env.step("wait until 00:07:30")                     # letting the window lapse is E603
    assert fb.code == "E603" and env.done and env.time == 0
    env = ReactEnv(dinner)                                        # in time: fine
    obs, fb = env.step("Step(2, Soup, 00:05:00, 00:00:00), Step(4, Soup, 00:01:00, 00:07:00)")
    assert fb.ok and env.time == 420 and not env.done


def test_consecutive_refusals_and_revision_budget(dinner):
    env = ReactEnv(dinner)                                        # 3 in a row
    for i in range(3):
        obs, fb = env.step("Step(9, Soup, 00:01:00, 00:00:00)")
        assert env.done == (i == 2)
    assert "3 refused actions in a row" in obs and env.step("finish")[1].message == "The episode is over."
    env = ReactEnv(dinner, max_refusals=None, max_revisions=4)    # 4 in all, accepted actions between
    for _i, ok in enumerate(["Step(1, Soup, 00:01:00, 00:00:00)", "Step(1, Soup, 00:01:00, 00:01:00)",
                            "Step(1, Soup, 00:01:00, 00:02:00)"]):
        assert not env.step("nonsense")[1].ok and not env.done
        assert env.step(ok)[1].ok and env.refusals_in_row == 0
    obs, fb = env.step("nonsense")
    assert env.done and "4 refused actions (the revision budget)" in obs
    unlimited = lenient(dinner)
    for _ in range(20):
        unlimited.step("Step(9, Soup, 00:01:00, 00:00:00)")
    assert not unlimited.done and unlimited.refusals == 20


def test_several_actions_stop_at_the_first_refusal(dinner):
    env = lenient(dinner)
    obs, fb = env.step("Step(0, Soup, 00:10:00, 00:00:00), Step(3, Soup, 00:20:00, 00:05:00), "
                       "Step(2, Soup, 00:05:00, 00:06:00)")
    assert not fb.ok and [r.ok for r in fb.results] == [True, False]
    assert fb.code == "E301" and "The 1 later action was not tried." in fb.message
    assert env.time == 0 and len(env.accepted) == 1 and "Running: step 0 of Soup (autonomous" in obs


def test_interrupted_chunks_wait_and_finish(dinner):
    env = lenient(dinner, show_executable=True)
    obs = env.reset()
    assert "ready to be executed after 00:00:00: step 0 of Soup, step 1 of Soup, step 2 of Soup" in obs
    assert "step 1 of Tea" not in obs.split("Hint:")[1].split("after 00:10:00")[0]
    obs, fb = env.step("Step(0, Soup, 00:10:00, 00:00:00), Step(1, Soup, 00:01:00, 00:00:00)")
    assert fb.ok and "You are busy with step 1 of Soup until 00:01:00." in obs
    assert "after 00:10:00: step 3 of Soup, step 1 of Tea" in obs
    obs, fb = env.step("Step(1, Soup, 00:01:00, 00:00:30)")
    assert fb.code == "E802"
    obs, fb = env.step("wait")                                    # to the next completion
    assert fb.ok and env.time == 60 and "Completed: nothing yet." in obs
    obs, fb = env.step("Step(1, Soup, 2 min, 00:02:00)")         # the rest of the interruptible step
    assert fb.ok and env.time == 120
    obs, fb = env.step("wait 5 min")
    assert fb.ok and env.time == 420 and "step 1 of Soup (at 00:04:00)" in obs
    obs, fb = env.step("wait until 00:06:00")
    assert fb.code == "E613" and env.time == 420
    obs, fb = env.step("Action: Finish")
    assert env.done and not env.success and fb.code == "E702" and "7 of 8 steps not done" in obs
    assert env.metrics()["steps_done"] == 1


def test_success_runs_the_clock_to_the_last_completion_and_checks_at_the_end(dinner):
    env = ReactEnv(dinner)
    plan = ("Step(0, Soup, 00:10:00, 00:00:00), Step(2, Soup, 00:05:00, 00:00:00), Step(1, Soup, 3 min, 00:00:00), "
            "Step(2, Tea, 00:02:00, 00:03:00), Step(4, Soup, 00:01:00, 00:06:00), Step(0, Tea, 4 min, 00:07:00), "
            "Step(3, Soup, 00:20:00, 00:10:00)")
    obs, fb = env.step(plan)                                 # Tea 1 is missing: the episode goes on
    assert fb.ok and not env.done and env.time == 600 and env.completion_time() is None
    env = ReactEnv(dinner)
    obs, fb = env.step(plan.replace("Step(3, Soup, 00:20:00, 00:10:00)",
                                    "Step(1, Tea, 00:02:00, 00:10:00), Step(3, Soup, 00:20:00, 00:12:00)"))
    assert fb.ok and env.done and env.success and env.time == env.completion_time() == 1920
    assert env.critique(env.plan_text()).valid


def test_critique_is_validate(roast):
    env = ReactEnv(roast)
    faulty = (RECIPES / "plans" / "faulty.json").read_text()
    rep = env.critique(faulty)
    assert rep.to_json()["errors"] == validate_plan(roast, faulty).to_json()["errors"]
    assert not rep.valid and {e.code for e in rep.errors} >= {"E401", "E102"}
    assert env.time == 0 and not env.state.runs                  # critic mode executes nothing


def test_construction_and_hostile_input(project, dinner):
    with pytest.raises(ValueError, match="one agent"):
        ReactEnv(procedure_problem(project, project.scenario("duo")))
    env = lenient(dinner)
    for junk in ("", None, "Step(" * 1000, "Step(1, Soup, 99999999999999:00:00, 00:00:00)", "x" * 200_001,
                 "[[1, 2, 3]]", "{\"schedule\": 3}", "wait until tomorrow"):
        obs, fb = env.step(junk)
        assert not fb.ok and fb.code and env.time == 0
    assert not env.state.runs


def test_cli_play_recipe2plan_from_stdin(monkeypatch, capsys):
    valid = json.loads((RECIPES / "plans" / "valid.json").read_text())
    lines = ["help", "Step(9, Roast-Chicken, 00:01:00, 00:00:00)",
             "critique Step(0, Roast-Chicken, 00:10:00, 00:00:00)"]
    lines += [f"Step({e['step']}, {e['task']}, {e['duration']} sec, {clock(e['start'], ir.TimeUnit.S)})"
              for e in valid["schedule"]]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    status = main(["play", str(RECIPES), "--scenario", "Roast-Chicken_Garlic-Potatoes", "--protocol",
                   "recipe2plan", "--json"])
    out = capsys.readouterr().out
    assert status == 0
    assert "Actions: Step(step, recipe, duration, start)" in out and "Refused: Step 9 of Roast-Chicken" in out
    assert "<critique>: INVALID" in out and "E701" in out
    metrics = json.loads(out.strip().splitlines()[-1])
    assert metrics["success"] is True and metrics["completion_time"] == 4440 and metrics["refusals"] == 1
    monkeypatch.setattr(sys, "stdin", io.StringIO("cook\n"))
    assert main(["play", str(RECIPES), "--scenario", "Roast-Chicken_two_cooks", "--protocol", "recipe2plan"]) == 2
