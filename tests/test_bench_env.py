"""bench/bench_env.py: its sequences complete in chronoplan's Env and in its re-statement of the original's
stepping (so both sides of the comparison do the same work), and ``--quick`` prints the table."""
from __future__ import annotations

import io
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import bench_env  # noqa: E402

needs_data = pytest.mark.skipif(not bench_env.DATA.is_file(), reason="TimeArena facts not available")


@needs_data
def test_the_original_restatement_completes_every_sequence():
    verbs = bench_env.verb_patterns()
    assert len(verbs) == 44
    for name, p, texts, cmds in bench_env.sequences(quick=True):
        env = bench_env.OriginalArena(p, texts, verbs)
        assert all(env.parse(a["text"]) is not None for a in env.actions), name
        for c in cmds:
            env.step(c)
            while env.time < env.busy_until:
                env.step(c)
        while env.running:
            env.step("wait")
        assert len(env.complete) == len(p.steps), name
        assert env.progress() == 100


@needs_data
def test_quick_run_prints_the_ratios():
    out = io.StringIO()
    with redirect_stdout(out):
        assert bench_env.main(["--quick"]) == 0
    text = out.getvalue()
    assert "original (re-stated)" in text and "observation not read" in text and "x original" in text


FAKE_ENV = '''
CALLS = []


class TimeArena:
    """A stand-in for the released class: records what the bench calls."""

    def load(self, args):
        CALLS.append(("load", list(args.taskName), args.constraint))
        self.busy = 0

    def step(self, action):
        CALLS.append(("step", action))
        if self.busy:
            self.busy -= 1
        elif action.startswith("wash "):
            self.busy = 1
        return "ok\\n", 0, False, self.busy > 0, False
'''


def fake_checkout(tmp_path, init: str) -> str:
    pkg = tmp_path / "TimeArena"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(init, encoding="utf-8")
    (pkg / "environment.py").write_text(FAKE_ENV, encoding="utf-8")
    return str(tmp_path)


@needs_data
@pytest.mark.parametrize("init", ["from .environment import *\n",
                                  "from .environment import *\nimport a_model_client_that_is_not_installed\n"])
def test_original_times_the_released_class_from_a_checkout(tmp_path, init):
    """``--original DIR`` imports DIR's TimeArena package (its __init__, or, when a model client it imports is
    missing, the environment module alone), loads each sequence's tasks and steps it, re-sending an occupying
    action; the table gains the rows against the released code."""
    directory = fake_checkout(tmp_path, init)
    out = io.StringIO()
    with redirect_stdout(out):
        assert bench_env.main(["--quick", "--original", directory]) == 0
    text = out.getvalue()
    assert "Against the released TimeArena code" in text and "x released" in text
    assert "original (re-stated): the stand-in of the rows above" in text
    calls = sys.modules["TimeArena.environment"].CALLS
    loads = [c for c in calls if c[0] == "load"]
    names = [name.split(" ")[0] for name, *_ in bench_env.sequences(quick=True)]
    assert len(loads) == 3 * len(names)                      # every sequence, in each of the 3 quick rounds
    assert loads[0][1] == [names[0]] and loads[0][2] is False
    assert any(len(c[1]) > 1 for c in loads)                 # a combination: its task list
    steps = [c[1] for c in calls if c[0] == "step"]
    assert bench_env.JUNK not in steps                       # the runner refuses it itself
    washes = [i for i, c in enumerate(steps) if c.startswith("wash ")]
    assert washes and all(steps[i + 1] == steps[i] for i in washes[::2])   # re-sent while occupied


def test_original_without_the_package_is_a_clear_error(tmp_path, capsys):
    assert bench_env.main(["--quick", "--original", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no TimeArena/environment.py" in err and str(tmp_path) in err
