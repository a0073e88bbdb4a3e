"""PDDL export of tool-use scenarios and planners' plans mapped back to tool plans (issue #15 item 7).

compiler/pddl/tools.py, runtime/planners/tools.py.  Golden files (tests/golden/pddl/tools/): the export of
calendar_meeting_chain (UPDATE_GOLDEN=1 regenerates them).  Without planners: every bundled tool-use scenario
exports deterministically with P023, its reference calls are the goal, results may be consumed only by calls
that wait for their producer, a hand-written PDDL plan maps back to a tool plan the tool grader accepts (and
broken ones are refused with the reason), a wildcard takes a stated value or an awaited result (never a none), a field
passed to another type is retyped (P024) or refused (P010), a scenario without a reference is refused (P010),
and ``chronoplan pddl`` writes the files.  With planners (pytest -m planners): Fast Downward and pyperplan
solve every bundled tool-use scenario and the tool grader accepts every returned plan; ``chronoplan solve
--planner fast-downward`` prints and writes a valid tool plan; VAL accepts an exported plan and rejects one
that breaks a dependency.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden_util import check_golden as _golden

import chronoplan
from chronoplan.cli import main
from chronoplan.compiler.ir import ScenarioKind
from chronoplan.compiler.pddl.common import ExportError
from chronoplan.compiler.pddl.plan import PlanAction
from chronoplan.compiler.pddl.tools import export_tools, to_tool_plan
from chronoplan.runtime.planners.external import missing, run_batch, run_val, validate_binary
from chronoplan.validators.families import export_scenario
from chronoplan.validators.grade import grade

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "domains" / "tools"
GOLDEN = Path(__file__).parent / "golden" / "pddl" / "tools"
CHAIN = "calendar_meeting_chain"

EDGES = """domain edges
app a "A" {
  tool find(city: str, when?: date) -> (id: str, price: number, code: str) "Find"
  tool book(id: str, note?: str, amount?: int) -> (ref: str) "Book"
  tool mail(to: email, body: str, cc?: str) -> (mid: str) "Mail"
}
scenario wild_optional {
  apps a
  query "Find something in Paris and book it with a note."
  reference {
    1: find(city = "Paris")
    2: book(id = $1.id, note = _) after 1
  }
}
scenario retyped {
  apps a
  query "Find something in Paris and book as many as it costs."
  reference {
    1: find(city = "Paris")
    2: book(id = $1.code, amount = $1.price) after 1
  }
}
scenario clash {
  apps a
  query "Find, book and mail the price."
  reference {
    1: find(city = "Paris")
    2: book(id = "x", amount = $1.price) after 1
    3: mail(to = "a@example.com", body = $1.price) after 1
  }
}
scenario no_reference {
  apps a
  query "Find something."
}
app k "Keywords" {
  tool and(known: str, c: time, value?: enum(1, 2, x)) -> (done: str, wait: number)
  tool known(x: str, y: list[list[str]]) -> (and: str)
}
scenario keywords {
  apps k
  query "Names that are PDDL keywords or the export's own, empty and non-ASCII text, a wildcard time."
  reference {
    1: and(known = "", c = _, value = 1)
    2: known(x = "日本 and more", y = [["a", "b"], []]) after 1
    3: and(known = $2.and, c = _) after 2
  }
}
"""


@pytest.fixture(scope="module")
def tools():
    return chronoplan.load(TOOLS)


@pytest.fixture(scope="module")
def edges(tmp_path_factory):
    path = tmp_path_factory.mktemp("edges") / "edges.chrono"
    path.write_text(EDGES, encoding="utf-8")
    return chronoplan.load(path)


def _tool_scenarios(project) -> list:
    return [n for n, s in project.scenarios.items() if s.kind is ScenarioKind.TOOLS]


def test_golden_export(tools):
    e = export_scenario(tools, CHAIN)
    _golden(GOLDEN / "domain.pddl", e.domain_text())
    _golden(GOLDEN / "problem.pddl", e.problem_text())


def test_every_tool_scenario_exports_deterministically_with_its_calls_as_the_goal(tools):
    names = _tool_scenarios(tools)
    assert len(names) >= 18
    for name in names:
        a, b = export_tools(tools, name), export_tools(tools, name)
        assert (a.domain_text(), a.problem_text()) == (b.domain_text(), b.problem_text()), name
        assert [d.code for d in a.diagnostics] == ["P023"], name
        goal = a.problem_text().split("(:goal", 1)[1]
        scen = tools.scenario(name)
        for c in scen.reference:
            assert f"(done c-{c.id})" in goal, (name, c.id)
            assert f"(:action {c.tool.lower()}\n" in a.domain_text(), (name, c.tool)
            for k, v in c.args:                     # every argument but a wildcard is part of the goal
                assert (f"(arg-{c.tool.lower()}-{k.lower()} c-{c.id} " in goal) == (v.kind != "name" or v.value != "_")


def test_results_are_usable_only_by_calls_that_wait_for_their_producer(tools):
    e = export_tools(tools, CHAIN)                  # 1 findFreeSlot, 2 scheduleMeeting after 1, 3 sendEmail after 2
    prob, dom = e.problem_text(), e.domain_text()
    assert "(arg-schedulemeeting-start c-2 r1-start)" in prob and "(arg-sendemail-body c-3 r2-join_url)" in prob
    assert "(can-schedulemeeting-start c-2 r1-start)" in prob and "(can-sendemail-body c-3 r2-join_url)" in prob
    # the wildcard subject: the stated text and the string results of the calls step 3 waits for, nothing else
    subject = sorted(line.split()[-1].rstrip(")") for line in prob.splitlines() if "(can-sendemail-subject" in line)
    assert subject == ["q3-roadmap", "r2-join_url", "r2-meeting_id"]
    assert "(can-sendemail-subject c-3 ana-example-com)" not in prob        # an e-mail address is not a text
    early = export_tools(tools, "calendar_review_many_to_many")   # 4 setReminder(text = _) after 1, 2: not 3's
    text = sorted(line.split()[-1].rstrip(")") for line in early.problem_text().splitlines()
                  if "(can-setreminder-text" in line)
    assert text == ["budget-review"]                # not step 3's meeting_id and join_url (strings too)
    assert "(ready c-1)" in prob and "(ready c-2)" not in prob
    assert "(:action wait-c-2\n   :parameters ()\n   :precondition (done c-1)" in dom
    assert "earliest" in dom and "location" not in dom      # optional parameters: only those a call gives
    assert "(:constants c-1 - call-findfreeslot" in dom


def _reference_actions() -> list:
    """calendar_meeting_chain's reference plan as PDDL actions of its export (names from the golden files)."""
    lines = ["findfreeslot c-1 n-2025-07-01 n-60 n-12-00 r1-start r1-end", "wait-c-2",
             "schedulemeeting c-2 q3-roadmap n-2025-07-01 r1-start n-60 l-ana-example-com teams r2-meeting_id "
             "r2-join_url", "wait-c-3", "sendemail c-3 ana-example-com q3-roadmap r2-join_url r3-message_id"]
    return [PlanAction(i, w.split()[0], tuple(w.split()[1:]), None) for i, w in enumerate(lines)]


def test_a_pddl_plan_maps_back_to_a_tool_plan_the_grader_accepts(tools):
    e = export_tools(tools, CHAIN)
    back = to_tool_plan(e, _reference_actions())
    assert back.problems == () and back.calls == 3
    steps = back.plan["steps"]
    assert steps[1] == {"id": 2, "tool": "scheduleMeeting", "args": {
        "topic": "Q3 roadmap", "date": "2025-07-01", "start": "$1.start", "duration_min": 60,
        "participants": ["ana@example.com"], "platform": "teams"}, "after": [1]}
    assert steps[2]["args"] == {"to": "ana@example.com", "subject": "Q3 roadmap", "body": "$2.join_url"}
    report = grade(tools, CHAIN, back.plan)
    assert report.valid, report.to_text()


def test_broken_pddl_plans_are_refused_with_the_reason(tools):
    e = export_tools(tools, CHAIN)
    acts = _reference_actions()
    assert "no call for reference step(s) 3" in to_tool_plan(e, acts[:-1]).problems[0]
    assert to_tool_plan(e, acts[:-1]).plan is None
    assert "unknown PDDL action nope" in to_tool_plan(e, acts + [PlanAction(9, "nope", (), None)]).problems
    early = [PlanAction(i, a.name, a.args, None) for i, a in enumerate((acts[2], acts[0]))]   # a result used
    assert any("before the call that returns it" in p for p in to_tool_plan(e, early).problems)   # too early


def test_a_wildcard_on_an_optional_parameter_takes_a_known_value_not_its_none(edges):
    e = export_tools(edges, "wild_optional")
    prob = e.problem_text()
    note = sorted(line.split()[-1].rstrip(")") for line in prob.splitlines() if "(can-book-note" in line)
    assert note == ["paris", "r1-code", "r1-id"] and "none-str" not in prob
    assert "arg-book-note" not in prob.split("(:goal", 1)[1] and "(:requirements :strips :typing)" in e.domain_text()
    back = to_tool_plan(e, [PlanAction(0, "find", ("c-1", "paris", "r1-id", "r1-price", "r1-code"), None),
                            PlanAction(1, "wait-c-2", (), None),
                            PlanAction(2, "book", ("c-2", "r1-id", "r1-code", "r2-ref"), None)])
    assert back.plan["steps"][1] == {"id": 2, "tool": "book", "args": {"id": "$1.id", "note": "$1.code"},
                                     "after": [1]}
    assert grade(edges, "wild_optional", back.plan).valid


def test_a_field_passed_to_another_type_is_retyped_or_refused(edges):
    e = export_tools(edges, "retyped")                # price (number) -> amount (int): the object becomes an int
    assert [d.code for d in e.diagnostics] == ["P023", "P024"]
    assert "r1-price - t-int" in e.problem_text() and "(arg-book-amount c-2 r1-price)" in e.problem_text()
    with pytest.raises(ExportError) as exc:           # price to an int and to a str: no single type
        export_tools(edges, "clash")
    assert [d.code for d in exc.value.diagnostics] == ["P010"] and "incompatible types" in str(exc.value)
    assert exc.value.diagnostics[0].span is not None


def test_a_scenario_without_a_reference_is_refused(edges):
    with pytest.raises(ExportError) as exc:
        export_scenario(edges, "no_reference")
    d = exc.value.diagnostics[0]
    assert d.code == "P010" and "no reference plan" in d.message and d.span is not None


def test_a_call_grounds_into_the_candidates_of_its_wildcards_only(tmp_path):
    lines = ['domain s', 'app m "M" {', '  tool send(to: email, subject: str, body: str, note?: str) -> (mid: str)',
             '}', 'scenario big {', '  apps m', '  query "send many"', '  reference {']
    lines += [f'    {i}: send(to = "u{i}@example.com", subject = "subject {i}", body = "body {i}", note = _)'
              + (f" after {i - 1}" if i > 1 else "") for i in range(1, 31)]
    path = tmp_path / "big.chrono"
    path.write_text("\n".join(lines + ["  }", "}"]) + "\n", encoding="utf-8")
    prob = export_tools(chronoplan.load(path), "big").problem_text()
    for k in (1, 30):                               # to, subject, body: the given value; note: 60 texts + results
        assert [prob.count(f"(can-send-{p} c-{k} ") for p in ("to", "subject", "body")] == [1, 1, 1]
        assert prob.count(f"(can-send-note c-{k} ") == 60 + (k - 1)
    assert prob.count("(can-send-") == 30 * 3 + sum(60 + k for k in range(30))


def test_keywords_empty_and_non_ascii_values_and_a_wildcard_without_a_stated_value(edges):
    e = export_tools(edges, "keywords")
    dom, prob = e.domain_text(), e.problem_text()
    assert "(:action n-and\n" in dom and "(:action known-2\n" in dom          # not PDDL's and, not (known ?v)
    assert "(:objects r1-done r2-and r3-done empty and-more - t-str" in prob and "l-a-b - t-list-list-str" in prob
    assert "(known n-09-00)" in prob                # c = _ and no time stated: the stand-in 09:00
    acts = [PlanAction(0, "n-and", ("c-1", "empty", "n-09-00", "n-1", "r1-done", "r1-wait"), None),
            PlanAction(1, "wait-c-2", (), None),
            PlanAction(2, "known-2", ("c-2", "and-more", "l-a-b", "r2-and"), None),
            PlanAction(3, "wait-c-3", (), None),
            PlanAction(4, "n-and", ("c-3", "r2-and", "n-09-00", "none-enum-1-2-x", "r3-done", "r3-wait"), None)]
    back = to_tool_plan(e, acts)
    assert back.problems == (), back.problems
    assert [s["args"] for s in back.plan["steps"]] == [
        {"known": "", "c": "09:00", "value": 1}, {"x": "日本 and more", "y": [["a", "b"], []]},
        {"known": "$2.and", "c": "09:00"}]
    assert grade(edges, "keywords", back.plan).valid


def test_the_command_writes_domain_and_problem(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["pddl", str(TOOLS), "--scenario", CHAIN, "-o", str(out), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["ok"] and [d["code"] for d in summary["diagnostics"]] == ["P023"]
    assert (out / "domain.pddl").read_text(encoding="utf-8") == (GOLDEN / "domain.pddl").read_text(encoding="utf-8")
    assert (out / "problem.pddl").read_text(encoding="utf-8") == (GOLDEN / "problem.pddl").read_text(encoding="utf-8")


def test_solve_refuses_a_temporal_planner_saying_which_solve_tool_scenarios(capsys):
    assert main(["solve", str(TOOLS), "--scenario", CHAIN, "--planner", "kairos"]) == 2
    err = capsys.readouterr().err
    assert "tool-use scenarios have no planner kairos" in err and "fast-downward or pyperplan" in err


# ------------------------------------------------------------------------------------------ planners
def _solve_all(planner: str, project, names: list, tmp_path: Path) -> list:
    exports = [export_tools(project, n) for n in names]
    jobs = [e.write(tmp_path / f"p{i}") for i, e in enumerate(exports)]
    outcomes = run_batch(planner, jobs, 60, tmp_path)
    return list(zip(names, exports, outcomes))


@pytest.mark.planners
@pytest.mark.parametrize("planner", ["fast-downward", "pyperplan"])
def test_every_bundled_tool_scenario_is_solved_and_the_grader_accepts_the_plan(planner, tools, edges, tmp_path):
    if missing(planner) is not None:
        pytest.skip(missing(planner) or "")
    runs = _solve_all(planner, tools, _tool_scenarios(tools), tmp_path / "bundled")
    runs += _solve_all(planner, edges, ["wild_optional", "retyped", "keywords"], tmp_path / "edges")
    assert len(runs) >= 21
    for name, export, outcome in runs:
        assert outcome.status == "solved", (name, outcome.message)
        back = to_tool_plan(export, outcome.actions)
        assert back.problems == (), (name, back.problems)
        project = edges if name in ("wild_optional", "retyped", "keywords") else tools
        scen = project.scenario(name)
        assert back.calls == len(scen.reference), name
        report = grade(project, name, back.plan)
        assert report.valid, report.to_text()
        assert report.metrics["SER"] == 1 and report.metrics["DA"] == 1, name
    note = next(o for n, _, o in runs if n == "wild_optional")
    assert note.actions                               # the wildcard on an optional parameter was given a value


@pytest.mark.planners
@pytest.mark.skipif(missing("fast-downward") is not None, reason=missing("fast-downward") or "")
def test_solve_command_prints_and_writes_a_valid_tool_plan(tmp_path, capsys):
    out = tmp_path / "plan.json"
    assert main(["solve", str(TOOLS), "--scenario", "shop_gift_many_to_many", "--planner", "fast-downward",
                 "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "shop_gift_many_to_many: feasible, valid [fast-downward" in text
    assert 'applyCoupon(cart_id="$' in text
    plan = json.loads(out.read_text(encoding="utf-8"))
    assert [s["tool"] for s in plan["steps"]].count("sendEmail") == 1 and len(plan["steps"]) == 6
    assert main(["validate", str(TOOLS), str(out), "--scenario", "shop_gift_many_to_many"]) == 0


@pytest.mark.planners
@pytest.mark.skipif(validate_binary() is None, reason="VAL is not installed: pip install 'chronoplan[planners]'")
def test_val_accepts_the_reference_plan_and_rejects_one_that_breaks_a_dependency(tools):
    e = export_tools(tools, CHAIN)
    acts = _reference_actions()

    def text(actions):
        return "".join("(" + " ".join((a.name,) + a.args) + ")\n" for a in actions)

    val = run_val(e.domain_text(), e.problem_text(), text(acts))
    assert val.valid, val.output
    early = [acts[0], acts[2], acts[1]] + acts[3:]            # scheduleMeeting before its wait action
    assert not run_val(e.domain_text(), e.problem_text(), text(early)).valid
    assert not run_val(e.domain_text(), e.problem_text(), text(acts[:-1])).valid       # a goal call missing


@pytest.mark.planners
@pytest.mark.skipif(missing("fast-downward") is not None, reason=missing("fast-downward") or "")
@pytest.mark.skipif(validate_binary() is None, reason="VAL is not installed: pip install 'chronoplan[planners]'")
def test_val_accepts_fast_downwards_plan(tools, tmp_path):
    (name, e, outcome), = _solve_all("fast-downward", tools, ["travel_paris_many_to_many"], tmp_path)
    assert outcome.status == "solved", outcome.message
    plan = "".join("(" + " ".join((a.name,) + a.args) + ")\n" for a in outcome.actions)
    val = run_val(e.domain_text(), e.problem_text(), plan)
    assert val.valid, val.output
