"""`chronoplan validate`, `chronoplan schema`, `chronoplan play`: contract flags, JSON Lines, exit codes."""
from __future__ import annotations

import io
import json

import pytest

from chronoplan.cli import main

DOMAIN = """
domain clitest
resource stove capacity 1
procedure Eggs { step 0 "boil water" 5 min autonomous uses stove  step 1 "crack eggs" 1 min
                 step 2 "poach eggs" 3 min autonomous after 0, 1 uses stove within 2 min of 0 }
procedure Toast { step 0 "slice bread" 1 min  step 1 "toast bread" 2 min after 0 }
scenario Eggs_Toast { unit s  agents cook  procedures Eggs, Toast }
scenario Eggs_only { unit min  agents cook  procedures Eggs }
"""
GOOD = {"schedule": [{"task": "Eggs", "step": 0, "start": 0}, {"task": "Eggs", "step": 1, "start": 0},
                     {"task": "Toast", "step": 0, "start": 60}, {"task": "Toast", "step": 1, "start": 120},
                     {"task": "Eggs", "step": 2, "start": 300}]}
BAD = {"schedule": [{"task": "Eggs", "step": 0, "start": 0}, {"task": "Eggs", "step": 1, "start": 0},
                    {"task": "Toast", "step": 1, "start": 60}, {"task": "Eggs", "step": 2, "start": 500}]}
CONTRACT_ERROR_KEYS = {"code", "category", "agent", "index", "time", "message", "hint"}


@pytest.fixture()
def files(tmp_path):
    src = tmp_path / "breakfast.chrono"
    src.write_text(DOMAIN)
    plans = tmp_path / "results"
    plans.mkdir()
    (plans / "Eggs_Toast.json").write_text(json.dumps(GOOD))                       # matched by file stem
    (plans / "bad.json").write_text(json.dumps(dict(BAD, scenario="Eggs_Toast")))  # matched by key
    return src, plans


def run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_lines_contract(files, capsys):
    src, plans = files
    code, out, err = run(capsys, "validate", str(src), str(plans), "--format", "json")
    assert code == 1
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(r["plan"].split("/")[-1], r["valid"]) for r in lines] == [("Eggs_Toast.json", True), ("bad.json", False)]
    for r in lines:
        assert set(r) == {"valid", "plan", "scenario", "errors", "metrics"}
        assert r["scenario"] == "Eggs_Toast"
        assert {"makespan", "success"} <= set(r["metrics"])
        for e in r["errors"]:
            assert set(e) == CONTRACT_ERROR_KEYS
    bad = lines[1]
    got = [(e["code"], e["category"], e["index"], e["time"]) for e in bad["errors"]]
    assert got == [("E301", "dependency", 2, 60), ("E601", "time-window", 3, 500), ("E701", "goal", None, 680)]
    assert bad["errors"][1]["hint"] == "start step 2 of Eggs no later than 00:07:00"
    assert err == ""                                     # no progress bar when stderr is not a terminal


def test_first_and_exit_zero(files, capsys):
    src, plans = files
    code, out, _ = run(capsys, "validate", str(src), str(plans / "bad.json"), "--first", "--format", "json")
    assert code == 1 and len(json.loads(out)["errors"]) == 1
    code, out, _ = run(capsys, "validate", str(src), str(plans / "Eggs_Toast.json"))
    assert code == 0 and "valid against Eggs_Toast" in out


def test_text_summary_and_plan_format(files, capsys, tmp_path):
    src, plans = files
    text = tmp_path / "plan.txt"
    text.write_text("Step(0, Eggs, 5 min, 00:00:00), Step(1, Eggs, 1 min, 00:00:00), "
                    "Step(0, Toast, 1 min, 00:01:00), Step(1, Toast, 2 min, 00:02:00), Step(2, Eggs, 3 min, 00:05:00)")
    code, out, _ = run(capsys, "validate", str(src), str(text), str(plans), "--scenario", "Eggs_Toast",
                       "--plan-format", "recipe2plan")
    assert code == 1
    assert "plan.txt: valid against Eggs_Toast" in out
    assert "E010 schema" in out and "expected Step(...) text" in out   # JSON read as the text format
    assert "3 plans: 1 valid (33.3%)" in out
    assert out.count("\n---") == 1 or "  -----" in out


def test_jsonl_and_stdin(files, capsys, monkeypatch, tmp_path):
    src, _ = files
    jl = tmp_path / "many.jsonl"
    jl.write_text("\n".join(json.dumps(dict(p, scenario="Eggs_Toast")) for p in (GOOD, BAD, GOOD)) + "\n")
    code, out, _ = run(capsys, "validate", str(src), str(jl), "--format", "json")
    reps = [json.loads(line) for line in out.splitlines()]
    assert [r["plan"].rsplit(":", 1)[1] for r in reps] == ["1", "2", "3"]
    assert [r["valid"] for r in reps] == [True, False, True] and code == 1
    code, out, _ = run(capsys, "validate", str(src), "-", "--scenario", "Eggs_Toast", "--format", "json",
                       stdin=json.dumps(GOOD), monkeypatch=monkeypatch)
    assert code == 0 and json.loads(out)["plan"] == "-"


class _Lines(io.StringIO):
    """stdin that counts the lines handed out."""

    taken = 0

    def readline(self, *args):
        line = super().readline(*args)
        self.taken += bool(line)
        return line

    def __next__(self):
        line = super().__next__()
        self.taken += 1
        return line

    def read(self, *args):
        text = super().read(*args)
        self.taken += text.count("\n")
        return text


def test_json_lines_on_stdin_are_streamed(files, capsys, monkeypatch, tmp_path):
    """``validate ... -`` reads JSON Lines from a pipe line by line, as it reads a .jsonl file: one report per plan
    line, in order, named ``-:LINE``, however long the input (the whole-stdin limit does not apply)."""
    import subprocess
    import sys

    import chronoplan.validators.grade as grade_mod

    src, _ = files
    lines = []
    for i in range(60):
        plan = GOOD if i % 3 else BAD
        lines.append(json.dumps(plan) if i % 7 else "")             # blank lines are skipped
    lines[10] = '{"schedule": [}'                                     # an unreadable line gets its own report
    stdin = "\n".join(lines) + "\n"
    want = [(f"-:{n}", line) for n, line in enumerate(lines, 1) if line]
    proc = subprocess.run([sys.executable, "-m", "chronoplan.cli", "validate", str(src), "-", "--scenario",
                           "Eggs_Toast", "--format", "json"], input=stdin, capture_output=True, text=True,
                          timeout=300)
    reps = [json.loads(line) for line in proc.stdout.splitlines()]
    assert proc.returncode == 1 and proc.stderr == ""
    assert [r["plan"] for r in reps] == [name for name, _ in want]
    assert [r["valid"] for r in reps] == [line == json.dumps(GOOD) for _, line in want]
    assert reps[[name for name, _ in want].index("-:11")]["errors"][0]["code"] == "E001"
    jl = tmp_path / "same.jsonl"                                      # the same reports as from a .jsonl file
    jl.write_text(stdin)
    code, out, _ = run(capsys, "validate", str(src), str(jl), "--scenario", "Eggs_Toast", "--format", "json")
    from_file = [json.loads(line) for line in out.splitlines()]
    assert [dict(r, plan=r["plan"].replace(str(jl), "-")) for r in from_file] == reps
    # read lazily: the first plan is there after its line and the next, before the rest of the input is read
    monkeypatch.setattr("sys.stdin", _Lines(stdin))
    first = next(grade_mod.iter_sources(["-"]))
    assert first.name == "-:2" and first.value == GOOD and sys.stdin.taken <= 3     # line 1 is blank
    # longer than a whole stdin may be: JSON Lines are still graded, one line at a time
    monkeypatch.setattr(grade_mod, "MAX_FILE_BYTES", 2000)
    long = "\n".join(json.dumps(GOOD) for _ in range(50)) + "\n"
    assert len(long) > 2000
    code, out, _ = run(capsys, "validate", str(src), "-", "--scenario", "Eggs_Toast", "--format", "json",
                       stdin=long, monkeypatch=monkeypatch)
    assert code == 0 and [json.loads(line)["plan"] for line in out.splitlines()] == [f"-:{n}" for n in range(1, 51)]
    # anything else on stdin is still one plan, read whole within the limit
    code, out, _ = run(capsys, "validate", str(src), "-", "--scenario", "Eggs_Toast", "--format", "json",
                       stdin=json.dumps(GOOD, indent=2) + "\n", monkeypatch=monkeypatch)
    assert code == 0 and json.loads(out)["plan"] == "-"
    code, out, _ = run(capsys, "validate", str(src), "-", "--scenario", "Eggs_Toast", "--format", "json",
                       stdin=json.dumps(GOOD, indent=2) + " " * 2000, monkeypatch=monkeypatch)
    assert code == 1 and json.loads(out)["errors"][0]["code"] == "E013"


def test_reference_gives_relative_efficiency(files, capsys):
    src, plans = files
    code, out, _ = run(capsys, "validate", str(src), str(plans / "Eggs_Toast.json"), "--format", "json",
                       "--reference", str(plans / "Eggs_Toast.json"))
    m = json.loads(out)["metrics"]
    assert code == 0 and m["relative_efficiency"] == 1 and m["multitask_score"] == 1


def test_usage_errors_exit_2(files, capsys, tmp_path):
    src, plans = files
    orphan = tmp_path / "orphan.json"
    orphan.write_text(json.dumps(GOOD))
    code, out, _ = run(capsys, "validate", str(src), str(orphan), "--format", "json")
    assert code == 2 and json.loads(out)["errors"][0]["code"] == "E015"
    code, _, err = run(capsys, "validate", str(src), str(orphan), "--scenario", "nope")
    assert code == 2 and "no scenario named" in err
    broken = tmp_path / "broken.chrono"
    broken.write_text("procedure {")
    code, _, err = run(capsys, "validate", str(broken), str(orphan))
    assert code == 2 and "error" in err
    code, _, err = run(capsys, "validate", str(src), str(tmp_path / "missing.json"), "--scenario", "Eggs_Toast")
    assert code == 1
    code, _, _ = run(capsys, "validate", str(src))
    assert code == 2


def test_unreadable_plan_text_is_a_report(files, capsys, tmp_path):
    src, _ = files
    junk = tmp_path / "Eggs_Toast.json"
    junk.write_bytes(b"\xff\xfe{{{ not json")
    code, out, _ = run(capsys, "validate", str(src), str(junk), "--format", "json")
    rep = json.loads(out)
    assert code == 1 and rep["errors"][0]["category"] == "syntax"


def test_schema_command(files, capsys):
    src, _ = files
    code, out, _ = run(capsys, "schema", str(src), "--scenario", "Eggs_only")
    schema = json.loads(out)
    assert code == 0 and schema["$defs"]["action"]["properties"]["task"]["enum"] == ["Eggs"]
    code, _, err = run(capsys, "schema", str(src))
    assert code == 2 and "2 scenarios" in err


def test_tool_scenarios_are_dispatched(capsys, tmp_path):
    src = tmp_path / "wx.chrono"
    src.write_text('domain wx\napp weather "Weather" { tool queryWeather(date: date, city: str) }\n'
                   'scenario trip { apps weather  query "Weather in Paris on 2025-03-21?"\n'
                   '  reference { 1: queryWeather(date = 2025-03-21, city = "Paris") } }\n')
    plan = tmp_path / "trip.json"
    plan.write_text(json.dumps({"steps": [{"id": 1, "tool": "queryWeather",
                                           "args": {"date": "2025-03-21", "city": "Paris"}}]}))
    code, out, _ = run(capsys, "validate", str(src), str(plan), "--format", "json")
    assert code == 0 and json.loads(out)["valid"] is True
    code, out, _ = run(capsys, "schema", str(src))
    assert code == 0 and json.loads(out)["$schema"].endswith("2020-12/schema")


def test_play_from_a_pipe(files, capsys, monkeypatch):
    src, _ = files
    script = "\n".join(["boil water", "crack eggs", "look", "slice bread", "help"]) + "\n"
    code, out, _ = run(capsys, "play", str(src), "--scenario", "Eggs_only", stdin=script, monkeypatch=monkeypatch)
    assert code == 1                                     # input ends before the eggs are poached
    assert "Refused: unknown command \"slice bread\"" in out     # Toast is not part of Eggs_only
    assert "Commands: \"boil water\"; \"crack eggs\"; \"poach eggs\"" in out
    assert "not finished: 1/3 steps" in out        # the water is still boiling at 00:03:00
    script = "boil water\ncrack eggs\nwait\nwait\nwait\npoach eggs\n"
    code, out, _ = run(capsys, "play", str(src), "--scenario", "Eggs_only", "--json", stdin=script,
                       monkeypatch=monkeypatch)
    final = json.loads(out.strip().splitlines()[-1])
    assert code == 0 and final["success"] is True and final["completion_time"] == 8


def test_progress_bar_on_a_terminal(files, capsys, monkeypatch):
    src, plans = files

    class Tty(io.StringIO):
        def isatty(self):
            return True

    fake = Tty()
    monkeypatch.setattr("sys.stderr", fake)
    code = main(["validate", str(src), str(plans), "--format", "json"])
    shown = fake.getvalue()
    # the bar (tqdm) counts graded plans out of the total and erases itself at the end
    assert code == 1 and "0/2 [" in shown and "plans/s" in shown and shown.endswith("\r")
    fake2 = Tty()
    monkeypatch.setattr("sys.stderr", fake2)
    main(["validate", str(src), str(plans), "--no-progress"])
    assert fake2.getvalue() == ""


def test_python_api(files):
    import chronoplan
    from chronoplan.validators import grade_plan, validate_many
    src, plans = files
    project = chronoplan.load(src)
    reps = list(validate_many(project, [plans / "Eggs_Toast.json", ("x.json", dict(GOOD, scenario="Eggs_Toast"))]))
    assert [r.valid for r in reps] == [True, True] and reps[1].plan == "x.json"
    assert not grade_plan(project, "Eggs_Toast", BAD).valid
    assert grade_plan(project, "nope", GOOD).errors[0].code == "E015"


def test_progress_bar_has_rate_and_eta_and_never_runs_into_reports(tmp_path):
    """stdout and stderr on one terminal: what the terminal shows on each line is a whole report or the bar."""
    import os
    import pty
    import re
    import subprocess
    import sys
    from pathlib import Path
    recipes = Path(__file__).resolve().parent.parent / "domains" / "recipes"
    plans = tmp_path / "many.jsonl"
    plans.write_text((" ".join((recipes / "plans" / "valid.json").read_text().split()) + "\n") * 300)
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "chronoplan.cli", "validate", str(recipes), str(plans), "--format",
                             "json"], stdout=follower, stderr=follower, cwd=tmp_path)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(timeout=60) == 0
    text = b"".join(chunks).decode()
    shown = [line.split("\r")[-1] for line in text.replace("\r\n", "\n").split("\n")]
    reports = [line for line in shown if line.startswith("{")]
    assert len(reports) == 300 and all(json.loads(line)["valid"] for line in reports)
    assert not [line for line in shown if line.strip() and not line.startswith("{")]   # the bar is cleared at the end
    assert re.search(r"/300 \[", text) and "plans/s" in text                          # total (ETA) and rate
