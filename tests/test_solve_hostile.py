"""Hostile use of ``chronoplan solve``, ``pddl`` and ``import`` (issue #17): signals during a planner run,
absurd time limits and durations, output paths that would overwrite an input or cannot be written.

Every case must end with a clear message and the documented exit status (0 ok, 1 problems found, 2 usage or
compile error, 3 internal error, 130 SIGINT, 143 SIGTERM), never a traceback; a signal must stop every
planner process and remove every temporary directory of the run within 2 s (docs/planners.md, "Signals").
Subprocesses run with cwd=tmp_path, as a user's would.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from proc_util import descendants, table

from chronoplan.cli import main

ROOT = Path(__file__).resolve().parent.parent
KITCHEN = ROOT / "domains" / "paracook" / "generated" / "burger_s42.chrono"
KITCHEN_SCEN = "burger_s42_o4_a3"        # four orders, three agents: no engine answers within seconds
RECIPES = ROOT / "domains" / "recipes"
RECIPE_SCEN = "Roast-Chicken_Garlic-Potatoes"
PLANNERS = ["fast-downward", "lpg", "aries", "kairos", "pyperplan"]
SIGNALS = [("SIGTERM", 143, "terminated"), ("SIGINT", 130, "interrupted")]


# ----------------------------------------------------------------------------------- process table
def _alive(seen: dict) -> list:
    """The processes of ``seen`` ((pid, start) -> row) that still run (zombies count as gone)."""
    now = table()
    return [row.cmd for (pid, start), row in seen.items()
            if pid in now and now[pid].start == start and now[pid].state != "Z"]


def _leftovers(tmpdir: Path) -> list:
    """What a run left in its TMPDIR (nothing: the parser cache lives in a private per-user directory)."""
    return sorted(p.name for p in tmpdir.iterdir())


def _spawn(tmp_path: Path, args: list) -> tuple:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    proc = subprocess.Popen([sys.executable, "-u", "-m", "chronoplan.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env, start_new_session=True)
    return proc, tmpdir


def _signal_and_wait(proc, sig: str) -> tuple:
    """Send ``sig`` to a run started by ``_spawn``; (seconds until it exited, its stderr).  A run that outlives
    30 s is killed with its whole session."""
    sent = time.monotonic()
    proc.send_signal(getattr(signal, sig))
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return time.monotonic() - sent, err


def _interrupt_and_check(proc, tmpdir: Path, sig: str, status: int, word: str, ready) -> float:
    """Poll the process table until ``ready(worker rows, engine rows, seconds)``, send ``sig`` and check
    the exit; returns the seconds from the signal to the exit."""
    seen: dict = {}
    t0 = time.monotonic()
    first_worker = None
    while True:
        assert proc.poll() is None, f"solve ended before the signal: {proc.communicate()}"
        assert time.monotonic() - t0 < 60, "the planner processes never appeared"
        desc = descendants(proc.pid, table())
        for pid, row in desc.items():
            seen[(pid, row.start)] = row
        workers = [r for r in desc.values() if "planners.worker" in r.cmd]
        engines = [r for r in desc.values() if "planners.worker" not in r.cmd]
        if workers and first_worker is None:
            first_worker = time.monotonic()
        if workers and ready(workers, engines, time.monotonic() - first_worker):
            break
        time.sleep(0.1)
    for pid, row in descendants(proc.pid, table()).items():
        seen[(pid, row.start)] = row
    took, err = _signal_and_wait(proc, sig)
    time.sleep(0.1)
    assert proc.returncode == status, (proc.returncode, err)
    assert took < 2, f"exit {took:.2f} s after {sig}"
    assert f"chronoplan solve: {word}" in err and "Traceback" not in err, err
    assert _alive(seen) == [], "planner processes survived"
    assert [pid for pid, row in table().items() if row.sid == proc.pid and row.state != "Z"] == []
    assert _leftovers(tmpdir) == [], "temporary files or directories remain"
    return took


def _many_procedures(n: int) -> str:
    """A step-level scenario with ``n`` six-step procedures sharing an oven and a stove among 3 agents."""
    lines = ["domain big", "resource oven capacity 1 { temperature = 0 }", "resource stove capacity 1"]
    for p in range(n):
        t = 100 + 10 * (p % 3)
        lines += [f'procedure P{p} "p{p}" {{',
                  f'  step 0 "a" {3 + p % 4} min interruptible uses stove',
                  f'  step 1 "b" {2 + p % 3} min autonomous after 0 uses oven sets temperature = {t}',
                  f'  step 2 "c" {1 + p % 5} min after 1 uses oven needs temperature = {t}',
                  f'  step 3 "d" {2 + p % 2} min interruptible after 2 within 3 min of 2',
                  '  step 4 "e" 4 min autonomous after 3 uses stove',
                  '  step 5 "f" 1 min after 4, 0', "}"]
    lines += ["scenario S {", "  unit min", "  agents a1, a2, a3",
              "  procedures " + ", ".join(f"P{p}" for p in range(n)), "}"]
    return "\n".join(lines) + "\n"


def _engine_running(workers, engines, seconds) -> bool:
    # engines with a binary or server (FD, LPG, aries' serve, kairos) show up as the worker's children;
    # pyperplan searches inside the worker: give it time to import unified-planning and start
    return (bool(engines) and seconds > 0.5) or seconds > 5


@pytest.mark.planners
@pytest.mark.parametrize("planner", PLANNERS)
@pytest.mark.parametrize("sig,status,word", SIGNALS)
def test_signal_kills_every_planner_process_and_temp_dir(tmp_path, planner, sig, status, word):
    from chronoplan.runtime.planners.external import missing
    why = missing(planner)
    if why is not None:
        pytest.skip(why)
    proc, tmpdir = _spawn(tmp_path, ["solve", str(KITCHEN), "-s", KITCHEN_SCEN, "--planner", planner,
                                     "--timeout", "60"])
    _interrupt_and_check(proc, tmpdir, sig, status, word, _engine_running)


@pytest.mark.planners
@pytest.mark.parametrize("sig,status,word", SIGNALS)
def test_signal_during_a_step_level_planner_run(tmp_path, sig, status, word):
    """The step-level path runs its worker in the main thread (kitchens use one thread per variant)."""
    from chronoplan.runtime.planners.external import missing
    if missing("pyperplan"):
        pytest.skip(missing("pyperplan"))
    big = tmp_path / "big.chrono"
    big.write_text(_many_procedures(50), encoding="utf-8")          # pyperplan needs 10 s or more
    proc, tmpdir = _spawn(tmp_path, ["solve", str(big), "--planner", "pyperplan", "--timeout", "60"])
    _interrupt_and_check(proc, tmpdir, sig, status, word, lambda w, e, s: s > 3.0)


@pytest.mark.optimal
@pytest.mark.parametrize("sig,status,word", SIGNALS)
def test_signal_stops_cpsat_at_once(tmp_path, sig, status, word):
    """CP-SAT runs in-process: OR-tools used to catch SIGINT and report a 'timeout' (exit 1), and SIGTERM
    waited for the end of the search (the time limit)."""
    pytest.importorskip("ortools")
    big = tmp_path / "big.chrono"
    big.write_text(_many_procedures(50), encoding="utf-8")          # CP-SAT does not prove it in 60 s
    proc, tmpdir = _spawn(tmp_path, ["solve", str(big), "--timeout", "60"])
    time.sleep(4)                                                    # compiled, searching
    assert proc.poll() is None
    took, err = _signal_and_wait(proc, sig)
    assert took < 2 and proc.returncode == status, (proc.returncode, err)
    assert f"chronoplan solve: {word}" in err and "Traceback" not in err and "terminate called" not in err


# ----------------------------------------------------------------------------------- time limits
@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "-1", "0", "1e-100", "0.001", "1e300", "86401"])
def test_absurd_timeouts_are_usage_errors(value, capsys):
    assert main(["solve", str(RECIPES), "-s", RECIPE_SCEN, f"--timeout={value}"]) == 2
    err = capsys.readouterr().err
    assert "chronoplan solve: error: --timeout must be" in err


def test_timeout_bounds_are_accepted(capsys):
    pytest.importorskip("ortools")
    for value in ("0.01", "86400"):
        assert main(["solve", str(RECIPES), "-s", RECIPE_SCEN, "--timeout", value, "--format", "json"]) in (0, 1)
        assert "--timeout must be" not in capsys.readouterr().err


def _scenario(tmp_path, name, step_minutes="3", limit=None) -> Path:
    path = tmp_path / f"{name}.chrono"
    path.write_text(f'''domain {name}
procedure P "p" {{
  step 0 "a" {step_minutes} min interruptible
  step 1 "b" 2 min after 0
}}
scenario S {{
  unit min
  agents agent1
  procedures P
{f"  limit {limit} h" if limit else ""}
}}
''', encoding="utf-8")
    return path


@pytest.mark.optimal
@pytest.mark.parametrize("kind", ["tiny limit", "huge step", "huge limit"])
def test_cpsat_numbers_beyond_its_integers_give_status_error(tmp_path, capsys, kind):
    """A limit of 10^-35 h next to minutes makes the common time grid 10^-35 min wide, so a 3 min step is
    10^35 grid units (OR-tools raised RuntimeError: exit 3); a step of 10^30 min is too long outright."""
    pytest.importorskip("ortools")
    path = {"tiny limit": lambda: _scenario(tmp_path, "tiny", limit="0." + "0" * 34 + "1"),
            "huge step": lambda: _scenario(tmp_path, "huge", step_minutes="1" + "0" * 30),
            "huge limit": lambda: _scenario(tmp_path, "far", limit="1" + "0" * 30)}[kind]()
    assert main(["solve", str(path), "--format", "json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["status"] == "error", out
    assert "too large or too fine for CP-SAT" in err or "too large for CP-SAT" in err, err
    assert "internal error" not in err


@pytest.mark.planners
def test_pddl_planners_report_export_limits_as_status_error(tmp_path, capsys):
    """A capacity over the export's limit of 1,000 units (P020) is status "error", not an internal error."""
    pytest.importorskip("up_lpg")
    path = tmp_path / "cap.chrono"
    path.write_text('domain d\nresource bowl capacity 5000\nprocedure P { step 0 "mix" 1 min uses bowl }\n'
                    "scenario S { unit min agents cook procedures P }\n")
    assert main(["solve", str(path), "--planner", "lpg", "--timeout", "5", "--format", "json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["status"] == "error" and "at most 1000" in err and "internal error" not in err


# ----------------------------------------------------------------------------------- output paths
def _run_cli(tmp_path, args):
    proc = subprocess.run([sys.executable, "-m", "chronoplan.cli", *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    return proc


def test_solve_refuses_to_overwrite_its_input(tmp_path):
    src = tmp_path / "d.chrono"
    src.write_text((RECIPES / "roast_dinner.chrono").read_text(encoding="utf-8"), encoding="utf-8")
    before = src.read_bytes()
    for args in (["solve", "d.chrono", "-s", RECIPE_SCEN, "-o", "d.chrono"],
                 ["solve", ".", "-s", RECIPE_SCEN, "-o", "d.chrono"],              # a file of an input directory
                 ["solve", "d.chrono", "-s", RECIPE_SCEN, "-o", "./sub/../d.chrono"]):
        (tmp_path / "sub").mkdir(exist_ok=True)
        proc = _run_cli(tmp_path, args)
        assert proc.returncode == 2 and "is an input of this command" in proc.stderr, (args, proc.stderr)
        assert src.read_bytes() == before
    (tmp_path / "link.json").symlink_to(src)
    proc = _run_cli(tmp_path, ["solve", "d.chrono", "-s", RECIPE_SCEN, "-o", "link.json"])
    assert proc.returncode == 2 and src.read_bytes() == before


@pytest.mark.parametrize("output,message", [("x" * 5000, "too long"), ("afile/dir/plan.json", "ot a directory"),
                                            (".", "is a directory"), ("", "empty")])
def test_solve_bad_output_paths_fail_before_solving(tmp_path, output, message):
    (tmp_path / "afile").write_text("")             # a missing folder is created (issue 28 item 17), not a file's
    proc = _run_cli(tmp_path, ["solve", str(RECIPES), "-s", RECIPE_SCEN, "-o", output])
    assert proc.returncode == 2 and message in proc.stderr and proc.stdout == "", proc.stderr


@pytest.mark.optimal
def test_solve_replaces_an_existing_output_atomically(tmp_path):
    pytest.importorskip("ortools")
    out = tmp_path / "plan.json"
    out.write_text("old", encoding="utf-8")
    proc = _run_cli(tmp_path, ["solve", str(RECIPES), "-s", RECIPE_SCEN, "-o", "plan.json"])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["schedule"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.json"]          # no temporary file left


def test_write_atomic_keeps_the_old_file_when_interrupted(tmp_path, monkeypatch):
    from chronoplan.commands import output as cli_output
    target = tmp_path / "plan.json"
    target.write_text("old", encoding="utf-8")

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_output.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cli_output.write_atomic(target, "new" * 100000)
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.json"]
    monkeypatch.undo()
    cli_output.write_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "new" and oct(target.stat().st_mode & 0o777) != "0o600"


def test_pddl_refuses_to_overwrite_its_input(tmp_path):
    src = tmp_path / "domain.pddl"                     # a .chrono source under any name
    src.write_text((RECIPES / "roast_dinner.chrono").read_text(encoding="utf-8"), encoding="utf-8")
    before = src.read_bytes()
    for out, message in ((".", "is an input of this command"), ("domain.pddl", "is not a directory"),
                         ("y" * 5000, "too long")):
        proc = _run_cli(tmp_path, ["pddl", "domain.pddl", "-s", RECIPE_SCEN, "-o", out])
        assert proc.returncode == 2 and message in proc.stderr, (out, proc.stderr)
        assert src.read_bytes() == before
    proc = _run_cli(tmp_path, ["pddl", "domain.pddl", "-s", RECIPE_SCEN, "-o", "out"])
    assert proc.returncode == 0 and sorted(p.name for p in (tmp_path / "out").iterdir()) == \
        ["domain.pddl", "problem.pddl"]


def test_import_refuses_to_overwrite_its_source(tmp_path):
    from test_paracook_import import BURGER_MAP
    src = tmp_path / "map.json"
    src.write_text(json.dumps(BURGER_MAP), encoding="utf-8")
    before = src.read_bytes()
    for out, message in (("map.json", "is an input of this command"), ("./map.json", "is an input"),
                         ("z" * 5000, "too long"), (".", "is a directory")):
        proc = _run_cli(tmp_path, ["import", "paracook", "map.json", "--orders", "burger/burger_basic",
                                   "-o", out])
        assert proc.returncode == 2 and message in proc.stderr, (out, proc.stderr)
        assert src.read_bytes() == before
    proc = _run_cli(tmp_path, ["import", "recipe2plan", "map.json", "-o", "map.json"])
    assert proc.returncode == 2 and "not a directory" in proc.stderr and src.read_bytes() == before
    proc = _run_cli(tmp_path, ["import", "paracook", "map.json", "--orders", "burger/burger_basic", "-o",
                               "new/kitchen.chrono"])
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == ["kitchen.chrono"]


@pytest.mark.planners
@pytest.mark.parametrize("planner", ["fast-downward", "lpg", "aries"])
@pytest.mark.parametrize("kind", ["tiny limit", "huge step"])
def test_pddl_planners_refuse_numbers_no_engine_reads(tmp_path, capsys, planner, kind):
    """Fast Downward failed with a page of translator output, aries with 'Value out of range', and LPG
    returned a plan of makespan 0 (graded invalid) or 'unsolvable': now a status error before any engine runs."""
    from chronoplan.runtime.planners.external import missing
    if missing(planner):
        pytest.skip(missing(planner))
    path = (_scenario(tmp_path, "tiny", limit="0." + "0" * 34 + "1") if kind == "tiny limit"
            else _scenario(tmp_path, "huge", step_minutes="1" + "0" * 30))
    t0 = time.monotonic()
    assert main(["solve", str(path), "--planner", planner, "--format", "json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["status"] == "error"
    assert "too large or too fine for the PDDL planners" in err and "internal error" not in err, err
    assert time.monotonic() - t0 < 2                                  # refused before starting an engine


@pytest.mark.parametrize("value", ["0", "-3", "100000"])
def test_absurd_worker_counts_are_usage_errors(value, capsys):
    assert main(["solve", str(RECIPES), "-s", RECIPE_SCEN, f"--workers={value}"]) == 2
    assert "--workers must be between 1 and 256" in capsys.readouterr().err
