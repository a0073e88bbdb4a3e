"""The command line's input and output under hostile conditions (issue 28 items 4, 5, 9, 10, 11, 11b, 16, 17):
stdout that closes early or cannot be written, lines too long to read, output paths that are not regular
files, text from plans that a renderer could take for markup, signals while workers start."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ROOT / "domains" / "recipes"
FAULTY = RECIPES / "plans" / "faulty.json"
VALID = RECIPES / "plans" / "valid.json"


def cli(*argv, **kw) -> subprocess.CompletedProcess:
    kw.setdefault("capture_output", True)
    kw.setdefault("timeout", 300)
    return subprocess.run([sys.executable, "-m", "chronoplan.cli", *map(str, argv)], text=True, **kw)


def batch(tmp_path: Path, n: int, plan: Path = FAULTY) -> Path:
    """A JSON Lines batch of ``n`` copies of ``plan``."""
    line = json.dumps(json.loads(plan.read_text()))
    out = tmp_path / "batch.jsonl"
    out.write_text((line + "\n") * n)
    return out


# item 4: a broken pipe or a full disk is an I/O error (exit 74), never "every plan valid" nor "a bug"

@pytest.mark.parametrize("fmt", ["text", "json"])
def test_broken_pipe_is_an_io_error_not_success(tmp_path, fmt):
    jl = batch(tmp_path, 300)
    proc = subprocess.Popen([sys.executable, "-m", "chronoplan.cli", "validate", str(RECIPES), str(jl),
                             "--format", fmt], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()                   # `| head -1`
    proc.stdout.close()
    err = proc.stderr.read()
    status = proc.wait(timeout=300)
    assert first.strip(), err
    assert status == 74, (status, err)
    assert "closed the pipe" in err and "I/O error" in err
    assert "Traceback" not in err and "bug" not in err and "Exception ignored" not in err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("argv", [["validate", RECIPES, FAULTY, "--format", "json"],
                                  ["validate", RECIPES, VALID],            # valid plans: still not exit 0
                                  ["list", RECIPES]])
def test_full_disk_on_stdout_is_an_io_error(argv):
    with open("/dev/full", "w") as full:
        proc = cli(*argv, stdout=full, stderr=subprocess.PIPE, capture_output=False)
    assert proc.returncode == 74, proc.stderr
    assert "No space left on device" in proc.stderr and "I/O error" in proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr


class _Failing:
    """A stdout whose writes fail like a closed pipe or a full disk."""

    def __init__(self, error: OSError) -> None:
        self.error = error

    def write(self, text):
        raise self.error

    def flush(self):
        raise self.error


@pytest.mark.parametrize("error", [BrokenPipeError(32, "Broken pipe"), OSError(28, "No space left on device")])
@pytest.mark.parametrize("command", ["check", "list", "schema", "validate", "solve", "prompt", "pddl", "import"])
def test_every_command_exits_74_when_stdout_fails(monkeypatch, capsys, command, error):
    """A command's output failure (even one its own ``except OSError`` would catch) is exit 74, one line."""
    from chronoplan import cli

    def run(args):
        try:
            print("a result")
        except OSError:                     # a command's handler for its input files must not swallow it
            return 0
        return 0
    monkeypatch.setattr(cli._load(command), "run", run)
    argv = {"validate": ["x", "y"], "import": ["recipe2plan", "x", "-o", "y"], "pddl": ["x", "-o", "y"]}.get(
        command, ["x"])
    monkeypatch.setattr(sys, "stdout", _Failing(error))
    assert cli.main([command, *argv]) == cli.IO_ERROR_EXIT
    err = capsys.readouterr().err
    assert f"chronoplan {command}: error:" in err and "I/O error" in err and "bug" not in err


# item 5: every line is read bounded; a line over the cap is its own E013, the other plans keep their reports

def _long_line_batch(tmp_path: Path, cap: int) -> tuple[Path, str]:
    good = json.dumps(json.loads(VALID.read_text()))
    long = json.dumps({"scenario": "x", "pad": "y" * (3 * cap)})      # longer than the cap, a plan otherwise
    text = f"{good}\n{long}\n{good}\n"
    path = tmp_path / "long.jsonl"
    path.write_text(text)
    return path, text


@pytest.mark.parametrize("via", ["file", "stdin"])
def test_a_line_over_the_cap_is_its_own_error_and_the_next_plan_is_graded(tmp_path, via):
    cap = 4000
    path, text = _long_line_batch(tmp_path, cap)
    env = {**os.environ, "CHRONOPLAN_MAX_LINE_BYTES": str(cap)}
    if via == "file":
        proc = cli("validate", RECIPES, path, "--format", "json", env=env)
        name = str(path)
    else:
        proc = cli("validate", RECIPES, "-", "--format", "json", input=text, env=env)
        name = "-"
    reps = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["plan"] for r in reps] == [f"{name}:1", f"{name}:2", f"{name}:3"], proc.stderr
    assert [r["valid"] for r in reps] == [True, False, True]
    err = reps[1]["errors"][0]
    assert err["code"] == "E013" and f"at most {cap}" in err["message"] and "line 2" in err["message"]
    assert proc.returncode == 1 and "internal error" not in proc.stderr


def test_an_over_long_first_line_on_stdin_is_a_batch_line(tmp_path):
    """The first line is the one stdin sniffs: over the cap, it is refused alone and the batch goes on."""
    cap = 4000
    _, text = _long_line_batch(tmp_path, cap)
    text = "\n".join(text.splitlines()[1:] + text.splitlines()[:1]) + "\n"      # long, good, good
    proc = cli("validate", RECIPES, "-", "--format", "json", input=text,
               env={**os.environ, "CHRONOPLAN_MAX_LINE_BYTES": str(cap)})
    reps = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(r["plan"], r["valid"]) for r in reps] == [("-:1", False), ("-:2", True), ("-:3", True)]
    assert reps[0]["errors"][0]["code"] == "E013"


def test_read_line_never_holds_more_than_the_cap():
    """The reader asks the stream for at most cap + 2 units, then 1 MiB pieces, whatever the line's length."""
    import io

    from chronoplan.validators.lines import bounded_lines

    class Counting(io.BytesIO):
        biggest = 0

        def readline(self, size=-1):
            assert size > 0, "an unbounded readline"
            got = super().readline(size)
            Counting.biggest = max(Counting.biggest, len(got))
            return got

    data = b"a\n" + b"x" * 5_000_000 + b"\nb\r\n\nc"
    got = list(bounded_lines(Counting(data), 10))
    assert got == [(1, b"a\n", 2), (2, None, 5_000_001), (3, b"b\r\n", 3), (4, b"\n", 1), (5, b"c", 1)]
    assert Counting.biggest <= 1 << 20


def test_the_cap_comes_from_the_environment(monkeypatch):
    from chronoplan.validators import lines
    monkeypatch.setenv("CHRONOPLAN_MAX_LINE_BYTES", "123")
    assert lines.max_line_bytes() == 123
    for bad in ("0", "-5", "x", "1e9", "٣"):
        monkeypatch.setenv("CHRONOPLAN_MAX_LINE_BYTES", bad)
        assert lines.max_line_bytes() == lines.DEFAULT_MAX_LINE


def test_household_log_sniff_reads_a_bounded_first_line(tmp_path, monkeypatch):
    from chronoplan.validators.household import read
    monkeypatch.setattr(read, "MAX_LINE", 100)
    path = tmp_path / "big.jsonl"
    path.write_bytes(b'{"scenario": "a", "seed": 1, "agents": ["x"], "pad": "' + b"y" * 10_000 + b'"}\n')
    sizes = []
    real_open = Path.open

    def opening(self, *a, **kw):
        f = real_open(self, *a, **kw)
        real = f.readline

        def readline(size=-1):
            sizes.append(size)
            return real(size)
        f.readline = readline
        return f
    monkeypatch.setattr(Path, "open", opening)
    assert read.sniff(path) is None
    assert sizes and all(0 < s <= 102 for s in sizes)


# item 11: a household episode log on stdin is one episode, as the same file is

def test_household_log_on_stdin_is_graded_like_the_file(tmp_path):
    import chronoplan
    from chronoplan.compiler.household.problem import HouseholdProblem
    from chronoplan.runtime.household.baseline import run_baseline
    home = ROOT / "domains" / "household"
    text = run_baseline(HouseholdProblem(chronoplan.load(home), "tea_2"), log=True).log.text()
    path = tmp_path / "episode.jsonl"
    path.write_text(text)
    from_file = cli("validate", home, path, "--format", "json")
    from_stdin = cli("validate", home, "-", "--format", "json", input=text)
    assert from_file.returncode == 0 and from_stdin.returncode == 0, from_stdin.stdout[:500]
    a, b = json.loads(from_file.stdout), json.loads(from_stdin.stdout)
    assert b["plan"] == "-" and dict(a, plan="-") == b


# item 11b: one atomic output writer for every -o; targets that are not regular files are refused

def _tool_plan(tool_name: str) -> dict:
    import chronoplan
    from chronoplan.validators.tools.export import reference_plan
    ref = reference_plan(chronoplan.load(ROOT / "domains" / "tools").scenario("calendar_review_many_to_many"))
    ref["steps"][1]["tool"] = tool_name
    return ref


@pytest.mark.parametrize("kind", ["fifo", "symlink", "device"])
@pytest.mark.parametrize("command", ["render", "solve"])
def test_output_that_is_not_a_regular_file_is_refused(tmp_path, kind, command):
    secret = tmp_path / "secret.txt"
    secret.write_text("keep me\n")
    target = tmp_path / ("out.html" if command == "render" else "plan.json")
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "symlink":
        target.symlink_to(secret)
    elif command == "solve":
        target = Path("/dev/null")          # as root, the old code replaced it with a regular file
    else:
        try:
            os.mknod(target, 0o666 | stat.S_IFCHR, os.makedev(1, 3))          # a /dev/null named out.html
        except PermissionError:
            pytest.skip("making a device node needs root")
    before = os.lstat(target)
    if command == "render":
        proc = cli("render", RECIPES, FAULTY, "-o", target)
    else:
        tiny = tmp_path / "tiny.chrono"
        tiny.write_text('procedure P {\n  step 0 "Stir." 1 min\n}\nscenario one { unit min  agents cook  '
                        'procedures P }\n')
        proc = cli("solve", tiny, "--planner", "cpsat", "-o", target)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "regular file" in proc.stderr and "Traceback" not in proc.stderr
    after = os.lstat(target)
    assert (after.st_mode, after.st_ino, after.st_rdev) == (before.st_mode, before.st_ino, before.st_rdev)
    assert secret.read_text() == "keep me\n"


def test_write_output_refuses_and_leaves_nothing(tmp_path):
    from chronoplan.commands.output import OutputRefused, write_atomic, write_output
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(OutputRefused):
        write_atomic(tmp_path / "pipe", "x")
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OutputRefused):
        write_atomic(tmp_path / "link", "x")
    assert not (tmp_path / "elsewhere").exists()
    target = tmp_path / "new" / "deeper" / "out.txt"             # missing folders are created
    assert write_output(target, lambda f: f.write(b"abc")) == 3 and target.read_bytes() == b"abc"
    old = tmp_path / "old.txt"
    old.write_text("old")

    def half(f):
        f.write(b"half of it")
        raise RuntimeError("the drawing failed")
    with pytest.raises(RuntimeError):
        write_output(old, half)
    assert old.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "new", "old.txt", "pipe"]


# item 17: render -o and solve -o create the output's folder

@pytest.mark.parametrize("suffix", [".html", ".svg"])
def test_render_creates_the_output_folder(tmp_path, suffix):
    out = tmp_path / "a" / "b" / f"chart{suffix}"
    proc = cli("render", RECIPES, FAULTY, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert out.is_file() and out.stat().st_size > 1000


def test_solve_creates_the_output_folder(tmp_path):
    pytest.importorskip("ortools")
    tiny = tmp_path / "tiny.chrono"
    tiny.write_text('procedure P {\n  step 0 "Stir." 1 min\n}\nscenario one { unit min  agents cook  procedures P }\n')
    out = tmp_path / "x" / "y" / "plan.json"
    proc = cli("solve", tiny, "--planner", "cpsat", "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())


# item 9: text from plans is never markup; a failed render leaves no partial file

@pytest.mark.parametrize("suffix", [".svg", ".png", ".html"])
def test_a_tool_name_that_looks_like_mathtext_is_drawn_as_written(tmp_path, suffix):
    name = r"$\undefinedmacro$<b>&"
    plan = tmp_path / "hallucinated.json"
    plan.write_text(json.dumps(_tool_plan(name)))
    out = tmp_path / f"chart{suffix}"
    proc = cli("render", ROOT / "domains" / "tools", plan, "-o", out, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["ok"] and not summary["valid"] and out.stat().st_size == summary["bytes"]
    if suffix == ".svg":                      # svg.fonttype none: the text is in the file, as written
        from xml.sax.saxutils import escape
        assert escape(r"$\undefinedmacro$<b>&") in out.read_text()
    if suffix == ".html":
        assert "$\\undefinedmacro$&lt;b&gt;&amp;" in out.read_text() and "<b>&" not in out.read_text()


def test_a_failed_drawing_leaves_no_partial_file(tmp_path, monkeypatch, capsys):
    """matplotlib failing half-way through writing (as mathtext did) leaves no half-written output, nor a
    temporary file."""
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from chronoplan.cli import main

    def failing(self, target, **kw):
        if isinstance(target, (str, os.PathLike)):
            with open(target, "wb") as f:
                f.write(b"<svg half")
        else:
            target.write(b"<svg half")
        raise ValueError("Unknown symbol: \\undefinedmacro")
    monkeypatch.setattr(Figure, "savefig", failing)
    out = tmp_path / "chart.svg"
    assert main(["render", str(RECIPES), str(FAULTY), "-o", str(out)]) == 3
    assert list(tmp_path.iterdir()) == []


# item 11b: play lines are read bounded; reward_function checks optima when it is built

def test_play_lines_are_read_bounded(monkeypatch):
    import io

    from chronoplan.commands.common import MAX_COMMAND, command_lines

    class Counting(io.StringIO):
        sizes: list = []

        def readline(self, size=-1):
            Counting.sizes.append(size)
            return super().readline(size)
    stdin = Counting("look\n" + "x" * (3 * MAX_COMMAND) + "\nwait\n")
    err = io.StringIO()
    got = list(command_lines(stdin, io.StringIO(), lambda: False, err=err))
    assert got == ["look", "wait"]
    assert "line 2 is" in err.getvalue() and "skipped" in err.getvalue()
    assert all(0 < s <= max(MAX_COMMAND + 2, 1 << 20) for s in Counting.sizes)


@pytest.mark.parametrize("optima", [{"Roast-Chicken_Garlic-Potatoes": "abc"}, {"x": 0}, {"x": -3},
                                    {"x": float("nan")}, {"x": float("inf")}, {"x": True}, {1: 10}, [("x", 1)]])
def test_reward_function_checks_optima_when_built(optima):
    from chronoplan.validators.reward import reward_function
    with pytest.raises(ValueError, match="optima"):
        reward_function(str(RECIPES), shaping="makespan", optima=optima)


def test_reward_function_accepts_good_optima():
    from fractions import Fraction

    from chronoplan.validators.reward import reward_function
    fn = reward_function(str(RECIPES), shaping="makespan",
                         optima={"Roast-Chicken_Garlic-Potatoes": Fraction(5000), "other": 2.5})
    assert fn([VALID.read_text()], scenario=["Roast-Chicken_Garlic-Potatoes"])[0] > 0


# item 16: --summary-json FILE: the batch's counts beside stdout's JSON Lines (which stay one report per line)

def test_summary_json_counts_the_batch(tmp_path, capsys):
    from chronoplan.cli import main
    summary = tmp_path / "out" / "summary.json"                   # its folder is created
    missing = tmp_path / "missing.json"
    status = main(["validate", str(RECIPES), str(VALID), str(FAULTY), str(FAULTY), str(missing), "--format", "json",
                   "--summary-json", str(summary)])
    reports = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 1 and len(reports) == 4 and all("plan" in r for r in reports)   # no summary record on stdout
    got = json.loads(summary.read_text())
    cats: dict = {}
    codes: dict = {}
    for r in reports:
        for e in r["errors"]:
            cats[e["category"]] = cats.get(e["category"], 0) + 1
            codes[e["code"]] = codes.get(e["code"], 0) + 1
    assert got == {"plans": 4, "valid": 1, "invalid": 3, "errors": sum(cats.values()), "categories": cats,
                   "codes": codes, "exit_status": 1}
    assert got["categories"]["agent-busy"] >= 2 and "E002" in got["codes"]


def test_summary_json_path_is_checked_before_grading(tmp_path, capsys):
    from chronoplan.cli import main
    os.mkfifo(tmp_path / "pipe.json")
    assert main(["validate", str(RECIPES), str(VALID), "--summary-json", str(tmp_path / "pipe.json")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "--summary-json" in err
    assert main(["validate", str(RECIPES), str(VALID), "--summary-json", str(VALID)]) == 2
    assert "input of this command" in capsys.readouterr().err


# item 10: a worker whose parent was terminated while the pool started prints no traceback after "terminated"

ORPHAN = """
import multiprocessing as mp, os, sys, time
from chronoplan.validators.parallel import _quiet_worker

def nothing():
    pass

def target(conn):
    _quiet_worker(nothing, ())
    conn.recv()                 # the parent is gone: EOFError, as on the pool's closed call queue

if __name__ == "__main__":
    ctx = mp.get_context("forkserver")
    mine, theirs = ctx.Pipe()
    worker = ctx.Process(target=target, args=(theirs,))
    worker.start()
    theirs.close()
    time.sleep(2)
    print("chronoplan validate: terminated", file=sys.stderr, flush=True)
    os._exit(143)
"""


def test_a_worker_outliving_its_terminated_parent_prints_no_traceback(tmp_path):
    script = tmp_path / "orphan.py"
    script.write_text(ORPHAN)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 143
    assert proc.stderr.strip().splitlines() == ["chronoplan validate: terminated"], proc.stderr


# item 11: validate_many(jobs=N) with plans that cannot be pickled reports each of them, as jobs=1 does

def test_unpicklable_plans_are_reported_per_plan_with_jobs():
    import chronoplan
    from chronoplan.validators.grade import validate_many
    project = chronoplan.load(RECIPES)
    plan = json.loads(VALID.read_text())
    items = [("a.json", plan), ("b.json", dict(plan, extra=lambda: 1)), ("c.json", plan),
             ("d.json", {"schedule": [{"task": (x for x in ()), "step": 0}]}), ("e.json", plan)]
    one = [r.to_json_line() for r in validate_many(project, items, jobs=1)]
    for chunk in (1, 2, 32):
        two = [r.to_json_line() for r in validate_many(project, items, jobs=2, chunk=chunk)]
        assert two == one
    assert [json.loads(line)["plan"] for line in one] == ["a.json", "b.json", "c.json", "d.json", "e.json"]


# item 11b: --ray at an address where nothing answers is a clear error at once; Ray's messages go to stderr

def test_ray_at_an_unreachable_address_is_a_clear_error():
    pytest.importorskip("ray")
    proc = cli("validate", RECIPES, VALID, "--ray", "127.0.0.1:1", "--format", "json", timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "cannot reach a Ray cluster at 127.0.0.1:1" in proc.stderr and "Traceback" not in proc.stderr


def test_ray_probe_gives_up_after_its_timeout(monkeypatch):
    import socket

    from chronoplan.validators import ray_grade
    asked = []

    def silent(where, timeout):                  # a host that never answers (this sandbox's network may)
        asked.append((where, timeout))
        raise TimeoutError("timed out")
    monkeypatch.setattr(socket, "create_connection", silent)
    with pytest.raises(ray_grade.RayUnreachable, match=r"no answer \(within 0.3 s\)"):
        ray_grade.probe("ray://10.255.255.1:6379", timeout=0.3)
    assert asked == [(("10.255.255.1", 6379), 0.3)]
    assert ray_grade._host_port("[::1]:6379") == ("::1", 6379) and ray_grade._host_port("auto") is None
    monkeypatch.setenv("CHRONOPLAN_RAY_TIMEOUT", "2.5")
    assert ray_grade._timeout() == 2.5


def test_ray_threads_print_to_stderr_not_between_the_reports(capsys):
    import threading

    from chronoplan.validators.ray_grade import _ThreadsToStderr
    logs = _ThreadsToStderr.install()
    try:
        print('{"valid": true}')
        t = threading.Thread(target=lambda: print("(raylet) A worker died or was killed while executing a task"))
        t.start()
        t.join()
        print('{"valid": false}')
    finally:
        logs.remove()
    out, err = capsys.readouterr()
    assert out.splitlines() == ['{"valid": true}', '{"valid": false}'] and "worker died" in err
    assert not isinstance(sys.stdout, _ThreadsToStderr)


def test_pddl_refuses_a_symlinked_output_file(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("keep me\n")
    out = tmp_path / "pddl"
    out.mkdir()
    (out / "domain.pddl").symlink_to(secret)
    proc = cli("pddl", RECIPES, "--scenario", "Roast-Chicken_Garlic-Potatoes", "-o", out)
    assert proc.returncode == 2 and "symbolic link" in proc.stderr, proc.stderr
    assert secret.read_text() == "keep me\n" and (out / "domain.pddl").is_symlink()
    assert not (out / "problem.pddl").exists()
