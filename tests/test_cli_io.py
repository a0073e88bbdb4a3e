"""The command line's input and output under hostile conditions (issue 28 items 4, 5, 9, 10, 11, 11b, 16, 17):
stdout that closes early or cannot be written, lines too long to read, output paths that are not regular
files, text from plans that a renderer could take for markup, signals while workers start."""
from __future__ import annotations

import json
import os
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
    return subprocess.run([sys.executable, "-m", "chronoplan.cli", *map(str, argv)], text=True, timeout=300,
                          **kw)


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
