"""Hostile plans (issue #17): every plan in, one report out, in input order; no crash, nothing dropped silently.

Each test reproduces one finding of the fuzzing review and pins the fixed behaviour (docs/errors.md, "Reading
plans" and "Batches")."""
import copy
import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

import chronoplan
from chronoplan.cli import main
from chronoplan.compiler.numparse import NumberProblem, exact, exact_int, parse_decimal, parse_int, plain_json
from chronoplan.validators.grade import Grader, validate_many
from chronoplan.validators.plan_text import decode
from chronoplan.validators.tools.literal import LiteralError, parse_call
from chronoplan.validators.tools.read import read_tool_plan

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ROOT / "domains" / "recipes"
SCEN = "Roast-Chicken_Garlic-Potatoes"
VALID = json.loads((RECIPES / "plans" / "valid.json").read_text())
STEP_TEXT = ("Step(0, Roast-Chicken, 00:10:00, 00:00:00), Step(1, Roast-Chicken, 00:03:00, 00:00:00)")


@pytest.fixture(scope="module")
def project():
    return chronoplan.load(RECIPES)


def codes(report):
    return [e.code for e in report.errors]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def with_step(value):
    plan = copy.deepcopy(VALID)
    plan["schedule"][0]["step"] = value
    return plan


# ------------------------------------------------------------------ numbers: one helper, ASCII digits only
@pytest.mark.parametrize("text", ["²", "１２", "1²", "٣", "", "1" * 60, "0x10", "1e3", " 12\n", "+7"])
def test_parse_int_accepts_ascii_digits_only(text):
    got = parse_int(text)
    if text.strip() in ("12", "+7"):
        assert got == int(text)
    else:
        assert isinstance(got, NumberProblem), text
    if text in ("²", "１２", "1²", "٣"):
        assert got is NumberProblem.NON_ASCII


def test_number_helper_on_python_types():
    np = pytest.importorskip("numpy")
    assert exact(np.int64(3)) == 3 and exact(np.float32(0.5)) == Fraction(1, 2) and exact(Decimal("0.1")) == \
        Fraction(1, 10)
    assert exact(True) is NumberProblem.NOT_A_NUMBER and exact("3") is NumberProblem.NOT_A_NUMBER
    assert exact(float("nan")) is NumberProblem.NOT_FINITE and exact(Decimal("Infinity")) is NumberProblem.NOT_FINITE
    assert exact(Decimal("1e999999999")) is NumberProblem.OUT_OF_RANGE
    assert exact(10 ** 400) is NumberProblem.OUT_OF_RANGE
    assert exact(complex(1, 0)) is NumberProblem.NOT_A_NUMBER and exact_int(2.5) is NumberProblem.NOT_INTEGER
    assert parse_decimal("1.25") == Fraction(5, 4) and parse_decimal("1.2.5") is NumberProblem.NOT_A_NUMBER
    assert plain_json({"a": (np.int64(1), Decimal("2.5"), Fraction(4, 2))}) == {"a": [1, Fraction(5, 2), 2]}


@pytest.mark.parametrize("value", ["²", "１", "1²", "³"])
def test_unicode_digit_step_number_in_a_schedule_is_a_schema_error(project, value):
    report = Grader(project).grade(SCEN, with_step(value))
    assert not report.valid and "E010" in codes(report) and "E090" not in codes(report)


@pytest.mark.parametrize("value", ["²", "１"])
def test_unicode_digit_in_step_text_is_refused_with_its_entry(project, value):
    report = Grader(project).grade(SCEN, STEP_TEXT.replace("Step(1,", f"Step({value},"))
    bad = [e for e in report.errors if e.code == "E010"]
    assert bad and bad[0].index == 1 and "non-ASCII" in bad[0].message


def test_unicode_digit_in_recipe2plan_list_and_times(project):
    report = Grader(project).grade(SCEN, [["²", "Roast-Chicken", 600, 0]])
    assert "E010" in codes(report) and not report.valid
    report = Grader(project).grade(SCEN, "Step(0, Roast-Chicken, 00:１0:00, 00:00:00)")
    assert "E010" in codes(report)


def test_unicode_digits_in_tool_plans():
    plan = read_tool_plan({"steps": [{"id": "²", "tool": "a", "args": {}}, {"id": 2, "tool": "b", "args": {},
                                                                                "after": ["１"]}]})
    assert [e.code for e in plan.errors] == ["T005", "T006"]
    arena = read_tool_plan({"OrderSteps": {"TotalSteps": 1, "StepDetail": {"²": {"Action": "a({})"}}}},
                           "planningarena")
    assert [e.code for e in arena.errors] == ["T003"]
    for text in ["pick({'size': ²})", "pick({'size': １２})", "pick({'size': -²})"]:
        with pytest.raises(LiteralError):
            parse_call(text)


def test_total_steps_that_is_not_a_count_is_reported():
    arena = {"OrderSteps": {"TotalSteps": float("nan"), "StepDetail": [{"StepNumber": 1, "Action": "a({})"}]}}
    assert "T008" in [e.code for e in read_tool_plan(arena, "planningarena").errors]
    arena["OrderSteps"]["TotalSteps"] = "1"
    assert "T008" not in [e.code for e in read_tool_plan(arena, "planningarena").errors]


def test_enum_with_a_unicode_digit_value_gives_a_schema(tmp_path, capsys):
    src = tmp_path / "e.chrono"
    src.write_text('domain tools\napp store "Store" {\n  tool pick(size: enum(small, "²", "12", 3)) -> (ok: bool) '
                   '"Pick"\n}\nscenario s {\n  apps store\n  query "pick"\n  reference {\n    1: pick(size = small)\n'
                   '  }\n}\n')
    code, out, err = run(capsys, "schema", src)
    assert code == 0 and "Traceback" not in err
    enums = []

    def walk(x):
        if isinstance(x, dict):
            enums.extend([x["enum"]] if "enum" in x else [])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(json.loads(out))
    assert ["small", "²", "12", "3", 12, 3] in enums      # "²" stays a string, never int("²")


# ------------------------------------------------------------------ a batch with one hostile plan
def test_a_batch_with_one_unicode_digit_plan_grades_every_plan(project, tmp_path, capsys):
    for i in range(4):
        (tmp_path / f"p{i}.json").write_text(json.dumps(with_step("²") if i == 2 else VALID))
    code, out, err = run(capsys, "validate", RECIPES, tmp_path, "--format", "json")
    reps = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and len(reps) == 4 and [r["valid"] for r in reps] == [True, True, False, True]
    assert "Traceback" not in err
    api = list(validate_many(project, [(f"p{i}.json", with_step("²") if i == 2 else VALID) for i in range(4)]))
    assert [r.valid for r in api] == [True, True, False, True]


def test_json_lines_bad_line_loses_only_itself(tmp_path, capsys):
    good = json.dumps(VALID)
    path = tmp_path / "batch.jsonl"
    path.write_text("\n".join([good, "{bad", good, '{"schedule": [', good]) + "\n")
    code, out, _ = run(capsys, "validate", RECIPES, path, "--format", "json")
    reps = [json.loads(line) for line in out.splitlines()]
    assert [r["plan"].rsplit(":", 1)[1] for r in reps] == ["1", "2", "3", "4", "5"]
    assert [r["valid"] for r in reps] == [True, False, True, False, True] and code == 1
    assert reps[1]["errors"][0]["code"] == "E001" and "line 2, column 2" in reps[1]["errors"][0]["message"]
    # the same text auto-detected in a .json file
    other = tmp_path / "batch.json"
    other.write_text(path.read_text())
    code, out, _ = run(capsys, "validate", RECIPES, other, "--format", "json")
    assert [json.loads(line)["valid"] for line in out.splitlines()] == [True, False, True, False, True]


def test_json_lines_split_only_on_newline():
    line = json.dumps({"schedule": [], "note": "a\u2028b\x85c\x1ed"}, ensure_ascii=False)
    entries = decode(line + "\n" + line + "\n", json_lines=True)
    assert [d.line for d in entries] == [1, 2] and all(d.error is None for d in entries)


def test_mean_progress_counts_unreadable_plans_as_zero(tmp_path, capsys):
    d = tmp_path / "plans"
    d.mkdir()
    (d / "a.json").write_text(json.dumps(VALID))
    (d / "b.json").write_text("")
    (d / "c.json").write_text('{"schedule": [')
    (d / "d.json").write_text(json.dumps(VALID))
    (d / "e.json").write_text("\x00\x01")
    code, out, _ = run(capsys, "validate", RECIPES, d, "--scenario", SCEN)
    assert code == 1
    assert out.rstrip().splitlines()[-1] == "5 plans: 2 valid (40.0%), mean progress 40.0%"


# ------------------------------------------------------------------ values built in Python
def test_numpy_and_decimal_times_are_graded_not_dropped(project):
    np = pytest.importorskip("numpy")
    base = Grader(project).grade(SCEN, VALID)
    for conv in (np.int64, np.float64, np.int32, Decimal, lambda x: Fraction(x)):
        plan = copy.deepcopy(VALID)
        for e in plan["schedule"]:
            e["start"], e["duration"] = conv(e["start"]), conv(e["duration"])
            e["step"] = np.int64(e["step"]) if conv is not Decimal else e["step"]
        report = Grader(project).grade(SCEN, plan)
        assert report.valid and report.to_json()["metrics"] == base.to_json()["metrics"], conv
    plan = copy.deepcopy(VALID)
    plan["schedule"][0]["start"] = Decimal("NaN")
    plan["schedule"][1]["start"] = complex(1, 0)
    plan["schedule"] = tuple(plan["schedule"])
    report = Grader(project).grade(SCEN, plan)
    assert {"E010", "E011"} <= set(codes(report)) and not report.valid


def test_odd_python_values_get_a_report(project):
    odd = [None, 3, 2.5, {1, 2}, object(), b"\xff\xfe", bytearray(b"{}"), {"schedule": {1: 2}},
           {"schedule": [{"task": object(), "step": 0, "start": 0}]}, [[[]]], {"schedule": [float("inf")]}]
    for value in odd:
        report = Grader(project).grade(SCEN, value)
        assert not report.valid and "E090" not in codes(report), value


# ------------------------------------------------------------------ text: BOM, bytes, keys, links
def test_bom_is_skipped_in_every_reader(project, tmp_path, capsys):
    path = tmp_path / "bom.json"
    path.write_text("\ufeff" + json.dumps(VALID), encoding="utf-8")
    code, out, _ = run(capsys, "validate", RECIPES, path, "--format", "json")    # scenario key found
    assert code == 0 and json.loads(out)["valid"]
    assert Grader(project).grade(SCEN, "\ufeff" + STEP_TEXT).errors[0].code != "E001"
    assert not read_tool_plan('\ufeff{"steps": [{"id": 1, "tool": "a", "args": {}}]}').errors
    jl = tmp_path / "bom.jsonl"
    jl.write_text("\ufeff" + json.dumps(VALID) + "\n\ufeff" + json.dumps(VALID) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "validate", RECIPES, jl, "--format", "json")
    assert code == 0 and len(out.splitlines()) == 2


def test_bytes_that_are_not_utf8_are_located(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"schedule": [\n  {"task": "\xff"}]}')
    code, out, _ = run(capsys, "validate", RECIPES, path, "--scenario", SCEN, "--format", "json")
    err = json.loads(out)["errors"][0]
    assert code == 1 and err["code"] == "E002" and "byte 0xff at line 2, column 13" in err["message"]
    jl = tmp_path / "bad.jsonl"
    jl.write_bytes(json.dumps(VALID).encode() + b"\n\xc3\x28\n" + json.dumps(VALID).encode() + b"\n")
    code, out, _ = run(capsys, "validate", RECIPES, jl, "--format", "json")
    assert [json.loads(x)["valid"] for x in out.splitlines()] == [True, False, True]


def test_repeated_keys_are_reported(project):
    text = json.dumps(VALID).replace('"start": 0,', '"start": 99, "start": 0,', 1)
    report = Grader(project).grade(SCEN, text)
    assert codes(report)[0] == "E010" and "'start' appears more than once" in report.errors[0].message
    assert not report.valid


def test_broken_symlink_in_a_plan_directory_is_reported(tmp_path, capsys):
    d = tmp_path / "plans"
    d.mkdir()
    (d / "a.json").write_text(json.dumps(VALID))
    (d / "gone.json").symlink_to(tmp_path / "missing.json")
    code, out, _ = run(capsys, "validate", RECIPES, d, "--format", "json")
    reps = [json.loads(x) for x in out.splitlines()]
    assert len(reps) == 2 and reps[1]["errors"][0]["code"] == "E002"
    assert "broken symbolic link" in reps[1]["errors"][0]["message"] and code == 1


# ------------------------------------------------------------------ internal errors: exit 3, the batch goes on
def test_a_crash_while_grading_one_plan_is_an_E090_report_and_exit_3(tmp_path, capsys, monkeypatch):
    import chronoplan.validators.grade as grade_mod
    real = grade_mod.validate_plan

    def flaky(problem, plan, **kw):
        if kw.get("name", "").endswith("p1.json"):
            raise ZeroDivisionError("simulated bug")
        return real(problem, plan, **kw)

    monkeypatch.setattr(grade_mod, "validate_plan", flaky)
    for i in range(3):
        (tmp_path / f"p{i}.json").write_text(json.dumps(VALID))
    code, out, err = run(capsys, "validate", RECIPES, tmp_path, "--format", "json")
    reps = [json.loads(x) for x in out.splitlines()]
    assert code == 3 and [r["valid"] for r in reps] == [True, False, True]
    assert reps[1]["errors"][0]["code"] == "E090" and "Traceback" not in err and "bug" in err


def test_a_crashing_command_exits_3_with_a_message(capsys, monkeypatch):
    import chronoplan.commands.listing as cli_list

    def boom(args):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(cli_list, "run", boom)
    code, _, err = run(capsys, "list", RECIPES)
    assert code == 3 and "internal error: RuntimeError: simulated bug" in err and "Traceback" not in err


def test_odd_api_arguments_get_reports_not_crashes(project):
    items = [None, 3, ("a",), ("a", VALID, 3), 3.5, b"/tmp", ["x", VALID], (3, VALID)]
    reps = list(validate_many(project, items, scenario=SCEN))
    assert len(reps) == len(items)
    assert [codes(r) for r in reps[:-1]] == [["E002"]] * (len(items) - 1) and reps[-1].valid
    for scen in (3, "", ["a"], b"x"):
        assert [codes(r) for r in validate_many(project, [("a.json", VALID)], scenario=scen)] == [["E015"]]
        assert codes(Grader(project).grade(scen, VALID)) == ["E015"]
    assert Grader(project).grade(SCEN, VALID, name=b"x").to_json_line()      # the name is shown as text
    with pytest.raises(TypeError, match="references must map"):
        list(validate_many(project, [("a.json", VALID)], references=["x"]))


def test_kitchen_numbers_of_any_type():
    kitchen = chronoplan.load(ROOT / "domains" / "paracook" / "kitchen.chrono")
    scen = next(iter(kitchen.scenarios))
    grader = Grader(kitchen)

    def wait(d):
        return grader.grade(scen, {"plan": {"agent1": [{"action": "Wait", "duration": d}]}}).to_json()

    assert wait(Decimal("2.5")) == wait(Fraction(5, 2)) == wait(2.5)
    for bad in ("²", "10", float("nan"), 10 ** 400, Decimal("Infinity")):
        assert {e["code"] for e in wait(bad)["errors"]} & {"E010", "E011"}, bad
    # read by numparse.exact, as the step readers read numbers: a rational of more than MAX_BITS bits is refused
    # (the kitchen's own reader used to accept it), an integral Fraction is the int
    assert "E011" in {e["code"] for e in wait(Fraction(1, 3 ** 200))["errors"]}
    assert wait(Fraction(6, 2)) == wait(3)


@pytest.mark.parametrize("sig,status,word", [("SIGTERM", 143, "terminated"), ("SIGINT", 130, "interrupted")])
def test_signals_stop_a_batch_promptly_with_a_message(tmp_path, sig, status, word):
    import signal
    import subprocess
    import sys
    path = tmp_path / "many.jsonl"
    path.write_text((json.dumps(VALID) + "\n") * 20000)
    proc = subprocess.Popen([sys.executable, "-u", "-m", "chronoplan.cli", "validate", str(RECIPES), str(path),
                             "--format", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path)   # a scratch directory, as a user's
    assert proc.stdout.readline().startswith('{"valid": true')        # grading has started
    proc.send_signal(getattr(signal, sig))
    out, err = proc.communicate(timeout=30)                            # a hang guard, not a timing
    # stopped: the batch did not grade on to its end (no wall-clock bound: a loaded machine made one flaky)
    assert proc.returncode == status and out.count("\n") < 20000 - 1, err[-2000:]
    assert f"chronoplan validate: {word}" in err and "Traceback" not in err


def _wrapped_interrupt(interrupt: BaseException) -> SystemError:
    """What CPython raises when a signal handler fires inside ``isinstance`` against an ABC called from
    Cython-compiled code (report.json_number on ``Fraction``): a SystemError caused by the interrupt."""
    try:
        try:
            raise interrupt
        except BaseException as inner:
            raise SystemError("<function ABCMeta.__instancecheck__> returned a result with an exception set") \
                from inner
    except SystemError as exc:
        return exc


@pytest.mark.parametrize("make,status,word", [(lambda: __import__("chronoplan.cli").cli.Terminated(), 143,
                                               "terminated"), (KeyboardInterrupt, 130, "interrupted")])
def test_a_signal_wrapped_in_a_system_error_still_stops_the_command(monkeypatch, capsys, make, status, word):
    """CI saw exit 3 ("internal error: SystemError") instead of 143 when SIGTERM landed in compiled code."""
    import types

    from chronoplan import cli
    boom = _wrapped_interrupt(make())
    fake = types.SimpleNamespace(configure=lambda parser: None, run=lambda args: (_ for _ in ()).throw(boom))
    monkeypatch.setattr(cli, "_load", lambda name: fake)
    assert cli.main(["validate"]) == status
    err = capsys.readouterr().err
    assert f"chronoplan validate: {word}" in err and "internal error" not in err


def test_a_signal_wrapped_in_a_system_error_is_not_graded_as_a_crash():
    """Grader.grade turns crashes into E090 reports; an interrupt hidden in one must stop the batch instead."""
    from chronoplan.validators.report import internal_error
    with pytest.raises(KeyboardInterrupt):
        internal_error(_wrapped_interrupt(KeyboardInterrupt()))
    plain = internal_error(SystemError("a real bug"))
    assert plain.code == "E090" and "SystemError: a real bug" in plain.message


def test_a_signal_whose_exception_c_code_lost_still_stops_the_command(monkeypatch, capsys):
    """A handler's exception raised inside C code can be replaced by another error (or swallowed, as in
    ``__del__``); the interrupt the handler noted decides the exit status, not the error that surfaced."""
    import types

    from chronoplan import cli

    def run(args):
        try:
            cli._raise_terminated(15, None)
        except KeyboardInterrupt:
            pass                                   # what a C callback that swallows exceptions does
        raise RuntimeError("unrelated error after the lost signal")

    monkeypatch.setattr(cli, "_load", lambda name: types.SimpleNamespace(configure=lambda parser: None, run=run))
    assert cli.main(["validate"]) == 143
    assert "chronoplan validate: terminated" in capsys.readouterr().err
    from chronoplan.compiler.diagnostics import interrupt_in
    assert interrupt_in(RuntimeError("later")) is None           # the command forgot it when it ended


def test_a_batch_stops_between_plans_on_a_swallowed_signal():
    from chronoplan.compiler.diagnostics import clear_interrupt, note_interrupt
    project = chronoplan.load(RECIPES)
    reports = validate_many(project, [(f"p{i}.json", VALID) for i in range(5)])
    assert next(reports).valid
    note_interrupt(KeyboardInterrupt())            # the handler ran, its exception was swallowed
    try:
        with pytest.raises(KeyboardInterrupt):
            next(reports)
    finally:
        clear_interrupt()


# ------------------------------------------------------------------ kitchen: failing actions keep bounded memory
def _failing_interacts(n):
    return {"plan": {"agent1": [{"action": "Interact", "target": "table2"}] * n}}     # never next to table2


def test_failing_kitchen_interacts_leave_no_reference_cycles():
    """Each failing Interact's explanation built a self-referencing closure (kitchen.logic.explain); grading runs
    with the cyclic collector paused, so 100k of them kept ~9 KB each (909 MB)."""
    import gc

    from kitchen_util import generated

    from chronoplan.validators.kitchen.grade import grade_grid_plan
    project = generated()
    grade_grid_plan(project, "burger_s42_o1_a1", _failing_interacts(5))          # warm the world cache
    gc.collect()
    rep = grade_grid_plan(project, "burger_s42_o1_a1", _failing_interacts(300))
    assert rep.errors[0].code == "E251" and len(rep.errors) == 301
    assert gc.collect() < 300                   # was 72 cyclic objects per failing Interact


def test_failing_kitchen_interacts_keep_only_the_listed_errors():
    import tracemalloc

    from kitchen_util import generated

    from chronoplan.runtime.kitchen.engine import KitchenSim
    from chronoplan.validators.kitchen.grade import MAX_ERRORS, grade_grid_plan, world_for
    from chronoplan.validators.kitchen.read import read_cook_plan
    project, scen = generated(), "burger_s42_o1_a1"
    grade_grid_plan(project, scen, _failing_interacts(5))

    def peak(n):
        plan = _failing_interacts(n)
        tracemalloc.start()
        try:
            rep = grade_grid_plan(project, scen, plan)
            return rep, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    (small, p1), (big, p4) = peak(1200), peak(4800)
    assert len(big.errors) == MAX_ERRORS and big.to_json()["metrics"]["errors_omitted"] == 4800 + 1 - MAX_ERRORS
    assert small.to_json()["metrics"]["errors_omitted"] == 1200 + 1 - MAX_ERRORS
    assert (p4 - p1) / 3600 < 1500, (p1, p4)      # bytes per extra failing action (was ~7,600)
    # the listed errors are the ones an uncapped simulation finds first
    world, _ = world_for(project, scen)
    sim = KitchenSim(world)
    for agent, steps in read_cook_plan(_failing_interacts(1200)).steps.items():
        sim.add(agent, steps)
    sim.run()
    assert [(e.code, e.index, e.message) for e in sim.errors[:MAX_ERRORS]] == \
        [(e.code, e.index, e.message) for e in small.errors]


def test_total_steps_nan_through_the_cli_is_reported(tmp_path, capsys):
    from chronoplan.validators.tools.export import reference_plan_arena
    tools = ROOT / "domains" / "tools"
    scen = "calendar_meeting_chain"
    arena = json.dumps(reference_plan_arena(chronoplan.load(tools).scenario(scen)))
    # null = not given
    for i, value in enumerate(("NaN", "Infinity", "-1", "1e400", "10" + "0" * 50, '"３"', "[3]", "2.5")):
        path = tmp_path / f"p{i}.json"
        path.write_text(arena.replace('"TotalSteps": 3', f'"TotalSteps": {value}'))
        assert f'"TotalSteps": {value}' in path.read_text()
        code, out, err = run(capsys, "validate", tools, path, "--scenario", scen, "--format", "json")
        rep = json.loads(out)
        assert code == 1 and not rep["valid"] and "T008" in [e["code"] for e in rep["errors"]], (value, rep)
        assert "Traceback" not in err


def test_json_reports_stay_one_line_for_every_line_splitter(tmp_path):
    """A start time holding U+2028 was echoed raw in the JSON report: str.splitlines() saw two lines."""
    import subprocess
    import sys
    plan = copy.deepcopy(VALID)
    plan["schedule"][0]["start"] = "a\u2028b\u2029c\x85d"
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps(plan, ensure_ascii=False) + "\n" + json.dumps(VALID) + "\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "chronoplan.cli", "validate", str(RECIPES), str(path), "--format",
                           "json"], capture_output=True, text=True, encoding="utf-8", cwd=tmp_path)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1 and len(lines) == 2 and [json.loads(x)["valid"] for x in lines] == [False, True]
    assert "a\u2028b\u2029c\x85d" in json.loads(lines[0])["errors"][0]["message"]     # the text is kept


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_lone_surrogates_do_not_stop_the_batch(tmp_path, fmt):
    """A plan's "\\ud800" escape (echoed in an error message) or a file name that is not UTF-8 could not be
    printed: UnicodeEncodeError, exit 3, and the rest of the batch was lost (found by bench/soak_hostile.py)."""
    import os
    import subprocess
    import sys
    d = tmp_path / "plans"
    d.mkdir()
    text = json.dumps(VALID)
    (d / "a.json").write_text(text.replace('"start": 0,', '"start": "\\ud800",', 1))
    (d / "c.json").write_text(text)
    try:
        (Path(os.fsdecode(bytes(d) + b"/b\xff.json"))).write_text(text)
        names = 3
    except (OSError, UnicodeError):      # a file system that refuses such names
        names = 2
    env = dict(os.environ, PYTHONIOENCODING="utf-8:strict")
    proc = subprocess.run([sys.executable, "-m", "chronoplan.cli", "validate", str(RECIPES), str(d), "--format", fmt],
                          capture_output=True, env=env, cwd=tmp_path)
    out = proc.stdout.decode("utf-8")                       # strict: the output is valid UTF-8
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr and b"internal error" not in proc.stderr
    if fmt == "json":
        reps = [json.loads(x) for x in out.splitlines()]
        assert (len(reps) == names and reps[0]["errors"][0]["code"] == "E010"
                and "\ud800" in reps[0]["errors"][0]["message"])
    else:
        assert out.rstrip().splitlines()[-1].startswith(f"{names} plans: {names - 1} valid")


def test_python_ints_too_long_to_print_are_reported_not_crashes(project):
    """An int over 4,300 digits built in Python crashed every message that named it (ValueError from int->str,
    an E090 internal error); found by tests/test_fuzz.py's long run."""
    from kitchen_util import generated

    from chronoplan.validators.tools.export import reference_plan
    huge = 10 ** 5000
    for plan in (huge, {"schedule": huge}, {"schedule": [{"task": huge, "step": huge, "start": huge}]},
                 [[huge, "Roast-Chicken", huge, huge]], {huge: 1}, {"schedule": [{"task": "Roast-Chicken", "step": 0,
                                                                                   "start": {huge}}]}):
        report = Grader(project).grade(SCEN, plan)
        assert not report.valid and "E090" not in codes(report) and report.to_json_line(), plan
    kitchen = Grader(generated())
    for plan in ({"plan": huge}, {"plan": {"agent1": [{"action": "Wait", "duration": huge}, {"action": huge},
                                                      {"action": "MoveTo", "target": [huge, 1]}]}}):
        report = kitchen.grade("burger_s42_o1_a1", plan)
        assert not report.valid and "E090" not in codes(report)
    tools = chronoplan.load(ROOT / "domains" / "tools")
    ref = reference_plan(tools.scenario("calendar_meeting_chain"))
    for plan in ({"steps": [{"id": huge, "tool": huge, "args": {"date": huge}, "after": [huge]}]},
                 {"OrderSteps": {"TotalSteps": huge, "StepDetail": [{"StepNumber": huge, "Action": huge}]}},
                 dict(ref, steps=[dict(s, args={k: huge for k in s["args"]}) for s in ref["steps"]])):
        report = Grader(tools).grade("calendar_meeting_chain", plan)
        assert not report.valid and "E090" not in codes(report)


def test_special_files_are_reported_not_read_forever(tmp_path, capsys, monkeypatch):
    """A FIFO in a plan directory was skipped silently; a link to /dev/zero (or /dev/zero given as a plan) was
    read until memory ran out."""
    import os

    import chronoplan.validators.grade as grade_mod
    d = tmp_path / "plans"
    d.mkdir()
    (d / "a.json").write_text(json.dumps(VALID))
    os.mkfifo(d / "fifo.json")
    (d / "zero.json").symlink_to("/dev/zero")
    code, out, _ = run(capsys, "validate", RECIPES, d, "--format", "json")
    reps = [json.loads(x) for x in out.splitlines()]
    assert [r["plan"].rsplit("/", 1)[1] for r in reps] == ["a.json", "fifo.json", "zero.json"] and code == 1
    assert all(r["errors"][0]["code"] == "E002" and "not a regular file" in r["errors"][0]["message"] for r in reps[1:])
    monkeypatch.setattr(grade_mod, "MAX_FILE_BYTES", 10_000)
    code, out, _ = run(capsys, "validate", RECIPES, "/dev/zero", "--scenario", SCEN, "--format", "json")
    assert code == 1 and json.loads(out)["errors"][0]["code"] == "E013"
