"""``validate --jobs N`` / ``validate_many(jobs=N)``: same reports in the same order as one process, lazy input,
a dying worker costs only its own plan, and signals leave no worker behind (issue #14 item 6, #17)."""
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from proc_util import alive, descendants, table

import chronoplan
from chronoplan.cli import main
from chronoplan.validators.grade import validate_many
from chronoplan.validators.parallel import ordered_map

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "domains" / "recipes"
VALID = (RECIPES / "plans" / "valid.json").read_text()
FAULTY = (RECIPES / "plans" / "faulty.json").read_text()


def _mixed(n):
    kinds = [json.loads(VALID), json.loads(FAULTY), "{bad", "Sure: " + " ".join(VALID.split()), "",
             {"scenario": "nope", "schedule": []}, {"schedule": [{"task": "x", "step": "²", "start": 0}]}]
    return [(f"p{i}.json", kinds[i % len(kinds)]) for i in range(n)]


def test_jobs_give_the_same_reports_in_the_same_order():
    project = chronoplan.load(RECIPES)
    plans = _mixed(150)
    one = [r.to_json_line() for r in validate_many(project, plans)]
    two = [r.to_json_line() for r in validate_many(project, plans, jobs=2, chunk=7)]
    assert one == two and len(one) == 150


def test_cli_jobs_output_is_identical(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "many.jsonl"
    path.write_text("".join(json.dumps(v if isinstance(v, (dict, list)) else v) + "\n" for _, v in _mixed(70)))
    assert main(["validate", str(RECIPES), str(path), "--format", "json"]) == 2   # 'nope' matches no scenario
    one = capsys.readouterr().out
    assert main(["validate", str(RECIPES), str(path), "--format", "json", "--jobs", "2"]) == 2
    assert capsys.readouterr().out == one and one.count("\n") == 70


@pytest.mark.parametrize("bad", ["-1", "two", "²", "100000"])
def test_bad_jobs_values_are_usage_errors(bad, capsys):
    assert main(["validate", str(RECIPES), str(RECIPES / "plans" / "valid.json"), "--jobs", bad]) == 2
    assert "--jobs" in capsys.readouterr().err


def _noop() -> None:
    pass


def _die_on_13(chunk):
    if 13 in chunk:
        os._exit(9)                     # a worker killed mid-chunk (segfault, OOM killer)
    return [x * 10 for x in chunk]


def test_a_dying_worker_costs_only_its_own_item():
    chunks = [list(range(i, i + 4)) for i in range(0, 24, 4)]
    out = list(ordered_map(_die_on_13, chunks, jobs=2, initializer=_noop, on_crash=lambda item, exc: ("crash", item)))
    flat = [x for chunk in out for x in chunk]
    assert flat == [x * 10 if x != 13 else ("crash", 13) for x in range(24)]


def _double(chunk):
    return [x * 2 for x in chunk]


def test_input_is_read_lazily_with_a_bounded_window():
    consumed = []

    def endless():
        for i in itertools.count():
            consumed.append(i)
            yield [i]

    results = ordered_map(_double, endless(), jobs=2, initializer=_noop, on_crash=None, window=5)
    assert [next(results)[0] for _ in range(10)] == [2 * i for i in range(10)]
    results.close()
    assert len(consumed) <= 10 + 5 + 1


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to read the process table")
@pytest.mark.parametrize("sig,status", [("SIGTERM", 143), ("SIGINT", 130)])
def test_signals_kill_every_worker(tmp_path, sig, status):
    path = tmp_path / "many.jsonl"
    path.write_text((" ".join(VALID.split()) + "\n") * 20000)
    proc = subprocess.Popen([sys.executable, "-u", "-m", "chronoplan.cli", "validate", str(RECIPES), str(path),
                             "--format", "json", "--jobs", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp_path)
    assert proc.stdout.readline().startswith('{"valid": true')      # the workers are grading
    descendants_before = descendants(proc.pid, table())       # the workers (and the forkserver's)
    assert descendants_before, "no worker processes found"
    sent = time.monotonic()
    proc.send_signal(getattr(signal, sig))
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 2 and proc.returncode == status
    assert "Traceback" not in err
    deadline = time.monotonic() + 2
    while alive(descendants_before) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert alive(descendants_before) == []


def test_ray_missing_is_a_usage_error(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)          # import ray raises ImportError
    assert main(["validate", str(RECIPES), str(RECIPES / "plans" / "valid.json"), "--ray"]) == 2
    assert "pip install 'chronoplan[ray]'" in capsys.readouterr().err


# ---------------------------------------------------------------- issue 28 item 22: what the parent does
def _line_batch(tmp_path, n):
    path = tmp_path / "batch.jsonl"
    lines = []
    for i, (_, v) in enumerate(_mixed(n)):
        lines.append("{not json" if i % 11 == 5 else json.dumps(v))
    path.write_text("\n".join(lines) + "\n")
    return path


def _summary(rep):
    """A module-level (picklable) render function: what a caller keeps of a report."""
    return (rep.plan, rep.valid, tuple(e.code for e in rep.errors))


def test_parallel_workers_decode_the_lines_and_render_the_reports(tmp_path, monkeypatch):
    """The parent of a parallel batch only reads lines: decoding each JSON Lines line and rendering each report
    (``render``) happen in the workers (counted in the parent, which forked them: its own counters stay 0);
    the results equal one process's, bad lines included."""
    import functools

    import chronoplan.validators.grade as G
    project = chronoplan.load(RECIPES)
    path = _line_batch(tmp_path, 90)
    one = [_summary(r) for r in validate_many(project, [str(path)])]
    calls = {"decode": 0, "render": 0}
    decode = G.decode_line

    def counting_decode(*a, **k):
        calls["decode"] += 1
        return decode(*a, **k)

    monkeypatch.setattr(G, "decode_line", counting_decode)
    two = list(validate_many(project, [str(path)], jobs=2, chunk=8, render=functools.partial(_summary)))
    assert two == one and len(one) == 90
    assert any(code == "E012" or code.startswith("E0") for _, _, codes in one for code in codes)
    assert calls["decode"] == 0, calls
    in_parent = list(validate_many(project, [str(path)], render=_summary))
    assert in_parent == one and calls["decode"] == 90


def test_workers_are_forked_when_no_other_thread_runs(monkeypatch):
    """A forked worker inherits the compiled project (no import and unpickling per worker); with another
    thread running, fork is unsafe and forkserver is used."""
    import threading

    from chronoplan.validators import parallel
    assert parallel._context().get_start_method() == "fork"
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert parallel._context().get_start_method() in ("forkserver", "spawn")


def test_cli_text_and_json_are_identical_with_jobs(tmp_path, capsys, monkeypatch):
    """The CLI renders reports in the workers (``commands.validate.render``): text (with the summary table) and
    JSON outputs and the exit status are those of one process, on a batch with bad lines."""
    monkeypatch.chdir(tmp_path)
    path = _line_batch(tmp_path, 60)
    for fmt in ("text", "json"):
        assert main(["validate", str(RECIPES), str(path), "--format", fmt]) == 2
        one = capsys.readouterr().out
        assert main(["validate", str(RECIPES), str(path), "--format", fmt, "--jobs", "2"]) == 2
        assert capsys.readouterr().out == one


def test_chunks_grow_to_their_bound_and_a_dead_worker_names_its_raw_line():
    """Chunks double from the first size to the bound (few handovers on large batches, every worker busy on
    small ones); a plan still undecoded (``RawLine``) whose worker died gets an E090 report naming its line."""
    from chronoplan.validators.grade import RawLine, chunks, crashed
    sizes = [len(c) for c in chunks(iter(range(5000)), 64, 1024)]
    assert sizes[:6] == [64, 128, 256, 512, 1024, 1024] and sum(sizes) == 5000
    assert [len(c) for c in chunks(iter(range(100)), 32)] == [32, 32, 32, 4]
    rep = crashed(RawLine("b.jsonl:7", "b", b'{"plan": 1}\n', 7), RuntimeError("killed"))
    assert rep.plan == "b.jsonl:7" and [e.code for e in rep.errors] == ["E090"] and "died" in rep.errors[0].message
