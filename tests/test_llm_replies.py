"""Plans inside real LLM replies (issue #14 item 3, #16 item 5): prose around a fenced or bare JSON plan,
``<think>`` drafts; every plan kind grades the same as the bare plan, with a W-code warning saying what was
skipped, and broken JSON inside prose is never graded as a fragment."""
import json
from pathlib import Path

import pytest

import chronoplan
from chronoplan.cli import main
from chronoplan.validators.grade import Grader, validate_many
from chronoplan.validators.plan_text import decode, drop_reasoning

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "domains" / "recipes"
VALID = json.loads((RECIPES / "plans" / "valid.json").read_text())
KITCHEN = ROOT / "domains" / "paracook" / "kitchen.chrono"
TOOLS = ROOT / "domains" / "tools"

STEP_TEXT = "Step(0, Roast-Chicken, 00:10:00, 00:00:00), Step(1, Roast-Chicken, 00:03:00, 00:00:00)"


def wrappers(plan: str) -> dict:
    return {
        "fenced after prose": f"Sure! Here is the plan:\n```json\n{plan}\n```\nLet me know if you need more.",
        "bare between prose": f"Here you go: {plan} Hope this helps.",
        "bare then prose on the next line": f"{plan}\nThat is the whole plan.",
        "think draft first": f"<think>First {{\"draft\": 1}} then step(9, X, 1, 2)</think>\n{plan}",
        "lone closing think tag": f"I should put the oven first. [ok]</think>\n```\n{plan}\n```",
        "brackets in the prose": f"[Answer] {{braces}} are not JSON; the plan: {plan}",
    }


def _without_warnings(report) -> dict:
    out = report.to_json()
    out["metrics"].pop("warnings", None)
    out["plan"] = None
    return out


CASES = [
    (RECIPES, "Roast-Chicken_Garlic-Potatoes", json.dumps(VALID)),
    (KITCHEN, "burger_s1_a2", json.dumps({"plan": {"agent1": [{"action": "Wait", "duration": 3},
                                                              {"action": "Interact", "target": "nowhere"}]}})),
    (TOOLS, "calendar_meeting_chain", json.dumps({"steps": [{"id": 1, "tool": "noSuchTool", "args": {},
                                                             "after": []}]})),
]


@pytest.mark.parametrize("path,scenario,plan", CASES, ids=["schedule", "kitchen", "tools"])
def test_every_plan_kind_reads_the_plan_inside_a_reply(path, scenario, plan):
    grader = Grader(chronoplan.load(path))
    bare = grader.grade(scenario, plan)
    assert not bare.warnings
    for what, reply in wrappers(plan).items():
        got = grader.grade(scenario, reply)
        assert _without_warnings(got) == _without_warnings(bare), what
        codes = {w.code for w in got.warnings}
        assert codes & {"W001", "W002"}, what
        assert not any(e.code.startswith("W") for e in got.errors)


def test_step_text_with_prose_and_a_draft():
    grader = Grader(chronoplan.load(RECIPES))
    scen = "Roast-Chicken_Garlic-Potatoes"
    bare = grader.grade(scen, STEP_TEXT)
    reply = grader.grade(scen, f"<think>maybe Step(3, Roast-Chicken, 00:01:00, 00:00:00)</think>The plan: {STEP_TEXT}.")
    assert _without_warnings(reply) == _without_warnings(bare)
    assert [w.code for w in reply.warnings] == ["W002"]


def test_warnings_do_not_change_validity_and_appear_in_json_and_text(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    reply = tmp_path / "reply.txt"
    reply.write_text("Sure! Here is the plan:\n```json\n" + json.dumps(VALID) + "\n```\n")
    assert main(["validate", str(RECIPES), str(reply), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["valid"] is True and out["errors"] == []
    assert set(out) == {"valid", "plan", "scenario", "errors", "metrics"}       # the contract's fields only
    assert [w["code"] for w in out["metrics"]["warnings"]] == ["W001"]
    assert "'Sure! Here is the plan:'" in out["metrics"]["warnings"][0]["message"]
    assert main(["validate", str(RECIPES), str(reply)]) == 0
    assert "warning W001" in capsys.readouterr().out


def test_plain_plans_have_no_warnings_key():
    report = Grader(chronoplan.load(RECIPES)).grade("Roast-Chicken_Garlic-Potatoes", json.dumps(VALID))
    assert "warnings" not in report.to_json()["metrics"]


def test_broken_json_inside_prose_is_never_graded_as_a_fragment():
    plan = json.dumps(VALID)
    truncated = plan[:len(plan) // 2]
    for text in (f"Here: {truncated}", f"```json\n{truncated}\n```", truncated + "\nsorry, cut off"):
        [entry] = decode(text)
        assert entry.value is None or isinstance(entry.value, str), text
    report = Grader(chronoplan.load(RECIPES)).grade("Roast-Chicken_Garlic-Potatoes", f"Here: {truncated}")
    assert not report.valid and report.errors[0].code == "E001"


def test_json_lines_are_still_json_lines():
    one = json.dumps(VALID)
    assert len(decode(f"{one}\n{one}\n")) == 2
    entries = decode(f"{one}\n{{broken\n")
    assert [e.error.code if e.error else None for e in entries] == [None, "E001"]


def test_only_a_draft_is_an_empty_reply():
    [entry] = decode("<think>I will write " + json.dumps(VALID))
    assert entry.error is not None and entry.error.code == "E002" and "reasoning" in entry.error.message


def test_reasoning_is_blanked_in_place():
    text, found = drop_reasoning("a<think>x\ny</think>b\nc")
    assert found and text.split("\n")[1:] == ["         b", "c"]          # lines keep their numbers
    assert drop_reasoning("no draft") == ("no draft", False)


def test_many_braces_in_prose_stay_cheap():
    # at most a bounded number of candidate positions are tried: linear in the text
    for text in ("{x} " * 200_000 + json.dumps(VALID), "Note: " + "{x} " * 200_000 + json.dumps(VALID)):
        [entry] = decode(text)
        assert entry.error is not None or isinstance(entry.value, str)      # not found past the candidate budget


def test_batches_keep_warnings_per_plan(tmp_path):
    project = chronoplan.load(RECIPES)
    a = tmp_path / "Roast-Chicken_Garlic-Potatoes.txt"
    a.write_text("Plan:\n" + json.dumps(VALID))
    b = tmp_path / "b.json"
    b.write_text(json.dumps(VALID))
    reports = list(validate_many(project, [a, b]))
    assert [bool(r.warnings) for r in reports] == [True, False]
    assert all(r.valid for r in reports)


def test_log_records_with_the_raw_reply_are_graded(tmp_path):
    project = chronoplan.load(ROOT / "domains" / "recipes")
    reply = "Sure! Here is my schedule:\n```json\n" + json.dumps({"schedule": VALID["schedule"]}) + "\n```"
    log = tmp_path / "run.jsonl"
    rows = [{"scenario": "Roast-Chicken_Garlic-Potatoes", "response": reply},
            {"scenario": "Roast-Chicken_Garlic-Potatoes", "completion": "<think>hmm</think>" + STEP_TEXT},
            {"scenario": "Roast-Chicken_Garlic-Potatoes", "response": "I cannot help with that."}]
    log.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    first, second, third = validate_many(project, [log])
    assert first.valid and [w.code for w in first.warnings] == ["W001"]
    assert [w.code for w in second.warnings] == ["W002"] and second.metrics["steps_done"] == 2
    assert not third.valid and third.errors[0].code == "E001"
