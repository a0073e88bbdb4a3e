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
