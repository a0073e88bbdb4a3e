"""bench/bench_recipe2plan.py's ``--original DIR`` (issue 28 item 3): the released Recipe2Plan evaluator is
timed beside the re-statement, and a folder without it is a clear error.  A tiny fake checkout
(evaluation/evaluator.py with the released ``Evaluator`` interface, counting its calls) proves the flag is
wired: its rows appear with the ratio column "x released", and it was called on the plans."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import r2pdata

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bench_recipe2plan.py"
needs_data = pytest.mark.skipif(not (r2pdata.DATA / "cooking.json").exists(), reason="no Recipe2Plan data")

FAKE = '''
CALLS = []


class Evaluator:
    def __init__(self, goals, domain="cooking", heuristic_correction=False, ignore_time_constraints=False):
        self.goals = goals

    def evaluate_execution(self, actions_str):
        CALLS.append(("_".join(g["recipe"] for g in self.goals), actions_str.count("Step(")))
        return True, "Actions executed successfully."
'''


def bench():
    spec = importlib.util.spec_from_file_location("bench_recipe2plan_under_test", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def clean_modules():
    saved = list(sys.path)
    yield
    sys.path[:] = saved
    sys.modules.pop("evaluator", None)


@needs_data
def test_original_checkout_is_timed_beside_the_restatement(tmp_path, capsys, clean_modules):
    checkout = tmp_path / "Recipe2Plan"
    (checkout / "evaluation").mkdir(parents=True)
    (checkout / "evaluation" / "evaluator.py").write_text(FAKE)
    argv = ["--data", str(r2pdata.DATA), "--original", str(checkout), "--api-only", "--rounds", "1",
            "--min-time", "0"]
    assert bench().main(argv) == 0
    out = capsys.readouterr().out
    assert "x released" in out
    rows = [line for line in out.splitlines() if line.startswith("(a) released evaluation/ Evaluator")]
    assert len(rows) == 3 and all(line.rstrip().endswith("1.0x") for line in rows), out
    calls = sys.modules["evaluator"].CALLS
    assert len({key for key, _ in calls}) == 64 and all(n > 0 for _, n in calls)


@needs_data
@pytest.mark.parametrize("layout", ["empty", "no_class"])
def test_a_folder_without_the_released_evaluator_is_an_error(tmp_path, capsys, clean_modules, layout):
    folder = tmp_path / "not-a-checkout"
    (folder / "evaluation").mkdir(parents=True)
    if layout == "no_class":
        (folder / "evaluation" / "evaluator.py").write_text("x = 1\n")
    assert bench().main(["--data", str(r2pdata.DATA), "--original", str(folder), "--api-only"]) == 2
    err = capsys.readouterr().err
    assert f"--original {folder}" in err
    assert ("no evaluation/evaluator.py there" if layout == "empty" else "cannot import evaluator") in err
