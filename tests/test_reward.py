"""chronoplan.reward: TRL-style reward functions over both completion shapes (issue #14 item 7)."""
import json
import warnings
from pathlib import Path

import pytest

import chronoplan
from chronoplan.reward import Shaping, completion_text, reward_function

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "domains" / "recipes"
SCEN = "Roast-Chicken_Garlic-Potatoes"
VALID = (RECIPES / "plans" / "valid.json").read_text()
FAULTY = (RECIPES / "plans" / "faulty.json").read_text()
KITCHEN = ROOT / "domains" / "paracook" / "kitchen.chrono"


@pytest.fixture(scope="module")
def project():
    return chronoplan.load(RECIPES)


def chat(text):
    return [{"role": "assistant", "content": text}]


def test_both_completion_shapes_score_alike(project):
    fn = reward_function(project, shaping="valid")
    replies = [VALID, FAULTY, "Sure! Here it is:\n```json\n" + VALID + "\n```", "no plan"]
    as_text = fn(replies, scenario=[SCEN] * 4)
    as_chat = fn([chat(r) for r in replies], scenario=[SCEN] * 4)
    assert as_text == as_chat == [1.0, 0.0, 1.0, 0.0]
    assert [r.valid for r in fn.last_reports] == [True, False, True, False]


def test_shapings(project):
    replies = [VALID, FAULTY, "{broken"]
    kw = {"scenario": [SCEN] * 3}
    progress = reward_function(project, shaping=Shaping.PROGRESS)(replies, **kw)
    assert progress[0] == 1.0 and 0 < progress[1] < 1 and progress[2] == 0.0
    assert progress[1] == pytest.approx(3 / 11)
    makespan = reward_function(project, shaping="makespan")(replies, **kw)
    assert makespan == [1.0, 0.0, 0.0]            # the valid plan reaches its lower bound
    slower = reward_function(project, shaping="makespan", optima={SCEN: 2220})([VALID], **kw)
    assert slower == [0.5]
    schema = reward_function(project, shaping="schema")(replies, **kw)
    assert schema == [1.0, 1.0, 0.0]              # the faulty plan is well formed; the broken one is not
    assert reward_function(project, shaping="valid", invalid=-1.0)([FAULTY], **kw) == [-1.0]


def test_scenario_column_fixed_scenario_and_bad_inputs(project):
    fn = reward_function(project, shaping="valid", scenario_column="task_name")
    assert fn([VALID, VALID], task_name=[SCEN, "no-such-scenario"]) == [1.0, 0.0]
    nameless = json.dumps({"schedule": json.loads(VALID)["schedule"]})
    with pytest.warns(UserWarning, match="task_name"):
        assert fn([nameless]) == [0.0]                                 # no column, no name: scored, not raised
    assert fn.last_reports[0].errors[0].code == "E015"
    fixed = reward_function(RECIPES.as_posix(), shaping="valid", scenario=SCEN)
    odd = [VALID, None, 42, [{"role": "user", "content": VALID}], [{"role": "assistant", "content": None}],
           {"role": "assistant", "content": [{"type": "text", "text": VALID}]}, b"\xff"]
    assert fixed(odd) == [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    assert len(fixed.last_reports) == len(odd)
    with pytest.raises(ValueError):
        reward_function(project, shaping="fastest")
    with pytest.raises(ValueError):
        reward_function(project, scenario="nope")


def test_missing_column_uses_the_scenario_a_completion_names(project, recwarn):
    """Issue 28 item 15: without the scenario column every completion scored 0.0, silently, although it named
    its scenario (which ``validate`` uses): it is graded against that scenario, with one warning per function."""
    fn = reward_function(project, shaping="valid")
    assert len(project.scenarios) > 1
    wrapped = json.dumps({"response": VALID})
    assert fn([VALID, chat(VALID), FAULTY, wrapped]) == [1.0, 1.0, 0.0, 1.0]
    assert [r.scenario for r in fn.last_reports] == [SCEN] * 4
    assert fn([VALID]) == [1.0]
    warned = [w for w in recwarn.list if issubclass(w.category, UserWarning)]
    assert len(warned) == 1 and "'scenario' column" in str(warned[0].message)
    other = next(s for s in project.scenarios if s != SCEN)
    assert fn([VALID], scenario=[other]) == [0.0]                      # the column, when given, decides
    assert fn.last_reports[0].scenario == other


def test_one_scenario_needs_no_column():
    fn = reward_function((ROOT / "domains" / "quickstart" / "lab.chrono").as_posix(), shaping="schema")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn(["{}"])
    assert fn.last_reports[0].errors[0].code != "E015"


def test_completion_text():
    assert completion_text("x") == "x"
    assert completion_text([{"role": "assistant", "content": "a"}, {"role": "user", "content": "b"}]) == "a"
    assert completion_text([{"role": "assistant", "content": [{"type": "text", "text": "a"},
                                                              {"type": "text", "text": "b"}]}]) == "ab"
    assert completion_text(3) is None


def test_kitchen_progress_counts_orders():
    fn = reward_function(str(KITCHEN), shaping="progress", scenario="burger_s1_a2")
    assert fn([json.dumps({"plan": {"agent1": [{"action": "Wait", "duration": 2}]}})]) == [0.0]
    assert fn.last_reports[0].metrics["orders"] == 2
