"""Step text on a scenario with several agents (issue 28 item 13): an entry may name its agent as a fifth field;
entries without one are given agents deterministically (validators/assign.py, W004) instead of one E014 each,
so the plan's real violations are reported."""
from pathlib import Path

import pytest

import chronoplan
from chronoplan.validators.grade import Grader

ROOT = Path(__file__).resolve().parent.parent
TWO = "Roast-Chicken_two_cooks"
# `chronoplan solve domains/recipes --scenario Roast-Chicken_two_cooks` (makespan 74) as Step text, no agents
ENTRIES = [(0, "Roast-Chicken", 10, 0), (1, "Roast-Chicken", 3, 0), (0, "Garlic-Potatoes", 6, 0),
           (2, "Roast-Chicken", 2, 3), (1, "Garlic-Potatoes", 20, 6), (3, "Roast-Chicken", 50, 10),
           (2, "Garlic-Potatoes", 1, 26), (3, "Garlic-Potatoes", 1, 26), (4, "Garlic-Potatoes", 1, 27),
           (4, "Roast-Chicken", 10, 60), (5, "Roast-Chicken", 4, 70)]


def clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}:00"


def text(entries, agents=None) -> str:
    return ", ".join(f"Step({n}, {r}, {clock(d)}, {clock(s)}" + (f", {agents[i]})" if agents else ")")
                     for i, (n, r, d, s) in enumerate(entries))


@pytest.fixture(scope="module")
def grader():
    return Grader(chronoplan.load(ROOT / "domains" / "recipes"))


def test_entries_without_agents_are_assigned_once_not_an_error_each(grader):
    rep = grader.grade(TWO, text(ENTRIES))
    assert rep.valid and rep.errors == () and rep.metrics["makespan"] == 74
    assert [w.code for w in rep.warnings] == ["W004"]
    assert "cook1, cook2" in rep.warnings[0].message and "fifth field" in rep.warnings[0].hint
    assert rep.to_json()["metrics"]["warnings"][0]["code"] == "W004"
    again = grader.grade(TWO, text(ENTRIES))
    assert again.warnings == rep.warnings                      # deterministic


def test_the_real_violations_are_reported(grader):
    late = list(ENTRIES)
    late[3] = (2, "Roast-Chicken", 2, 1)                       # before step 1 (3 min, from 0) has finished
    rep = grader.grade(TWO, text(late))
    assert not rep.valid
    codes = [e.code for e in rep.errors]
    assert "E014" not in codes and codes[0] == "E301", codes
    crowded = [(0, "Garlic-Potatoes", 6, 0), (1, "Roast-Chicken", 3, 0), (2, "Roast-Chicken", 2, 3)]
    crowded += [(0, "Roast-Chicken", 10, 1)]                  # autonomous: needs no free cook (overlap rule)
    rep = grader.grade(TWO, text(crowded + [(4, "Roast-Chicken", 1, 2)]))
    assert "E014" not in [e.code for e in rep.errors]


def test_a_fifth_field_names_the_agent(grader):
    agents = ["cook1", "cook1", "cook2", "cook1", "cook1", "cook1", "cook1", "cook2", "cook2", "cook1", "cook2"]
    rep = grader.grade(TWO, text(ENTRIES, agents))
    assert rep.valid and rep.warnings == ()
    busy = ["cook1"] * len(ENTRIES)                           # one cook for everything: busy
    rep = grader.grade(TWO, text(ENTRIES, busy))
    assert "E401" in [e.code for e in rep.errors] and rep.warnings == ()
    rep = grader.grade(TWO, text(ENTRIES, ["chef"] * len(ENTRIES)))
    assert [e.code for e in rep.errors][0] == "E103"
    quoted = grader.grade(TWO, text(ENTRIES, [f"'{a}'" for a in agents]))
    assert quoted.valid


def test_one_agent_scenarios_are_unchanged(grader):
    one = "Roast-Chicken_Garlic-Potatoes"
    plan = "Step(0, Roast-Chicken, 00:10:00, 00:00:00), Step(1, Roast-Chicken, 00:03:00, 00:10:00, agent1)"
    rep = grader.grade(one, plan)
    assert rep.warnings == () and "E014" not in [e.code for e in rep.errors]
    assert grader.grade(one, plan.replace("agent1)", "agent7)")).errors[0].code == "E103"
