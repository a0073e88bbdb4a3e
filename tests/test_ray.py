"""Grading on Ray (issue #14 item 6): a local Ray instance started by the test; the same reports as one process,
in order, through the Python API (iterables and Datasets) and ``chronoplan validate --ray``."""
import json
from pathlib import Path

import pytest

import chronoplan
from chronoplan.cli import main
from chronoplan.validators.grade import validate_many

ray = pytest.importorskip("ray", reason="needs pip install 'chronoplan[ray]'")
pytestmark = pytest.mark.ray

from chronoplan.validators.ray_grade import connect, grade_dataset, ray_grade, ray_reports  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "domains" / "recipes"
SCEN = "Roast-Chicken_Garlic-Potatoes"
VALID = json.loads((RECIPES / "plans" / "valid.json").read_text())
FAULTY = (RECIPES / "plans" / "faulty.json").read_text()


def _plans(n):
    kinds = [VALID, FAULTY, "{bad", "Sure: " + json.dumps(VALID), {"scenario": "nope", "schedule": []}]
    return [(f"p{i}.json", kinds[i % len(kinds)]) for i in range(n)]


@pytest.fixture(scope="module")
def local_ray():
    started = connect(num_cpus=2)
    yield
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def project():
    return chronoplan.load(RECIPES)


def test_ray_reports_equal_one_process(local_ray, project):
    plans = _plans(120)
    one = [r.to_json_line() for r in validate_many(project, plans)]
    assert [r.to_json_line() for r in ray_reports(project, plans, chunk=9)] == one
    assert [r.to_json_line() for r in ray_grade(project, plans, chunk=50)] == one


def test_a_dataset_gets_valid_and_report_columns(local_ray, project):
    rows = [{"plan": p if isinstance(p, str) else json.dumps(p), "scenario": SCEN, "id": f"r{i}"}
            for i, (_, p) in enumerate(_plans(12))]
    out = ray_grade(project, ray.data.from_items(rows), name_column="id", actors=1).take_all()
    expected = [r.valid for r in validate_many(project, [(f"r{i}", row["plan"]) for i, row in enumerate(rows)],
                                               scenario=SCEN)]
    assert [bool(r["valid"]) for r in out] == expected
    assert [json.loads(r["report"])["plan"] for r in out] == [f"r{i}" for i in range(12)]
    fixed = grade_dataset(ray.data.from_items([{"plan": json.dumps(VALID)}]), project, scenario=SCEN).take_all()
    assert bool(fixed[0]["valid"]) is True


def test_cli_ray_prints_the_same_reports(local_ray, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "many.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for _, p in _plans(30)))
    assert main(["validate", str(RECIPES), str(path), "--format", "json"]) == 2
    one = capsys.readouterr().out
    assert main(["validate", str(RECIPES), str(path), "--format", "json", "--ray"]) == 2
    assert capsys.readouterr().out == one
    assert main(["validate", str(RECIPES), str(path), "--ray", "--jobs", "2"]) == 2
    assert "exclude each other" in capsys.readouterr().err


def test_household_logs_with_another_seed_on_ray(local_ray, tmp_path, capsys):
    """``--seed`` reaches the Ray actors: a log played with seed 5 grades valid with --seed 5, E130 without."""
    home = ROOT / "domains" / "household"
    log = tmp_path / "seed5.jsonl"
    assert main(["play", str(home), "-s", "tea_1", "--baseline", "--seed", "5", "--log", str(log)]) == 0
    capsys.readouterr()
    assert main(["validate", str(home), str(log), "--ray", "--seed", "5", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["valid"]
    household = chronoplan.load(home)
    reports = list(ray_reports(household, [log], actors=1))
    assert [e.code for e in reports[0].errors] == ["E130"]


def test_jobs_and_ray_print_identical_reports(local_ray, tmp_path, capsys, monkeypatch):
    """Issue 28 item 22: --jobs 1, --jobs 2 and --ray print the same reports (text with its table, and JSON)
    with the same exit status, on a batch with lines that are not JSON and plans of no scenario; the actors
    return rendered output (``ray_reports(render=...)``), equal to rendering one process's reports."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "batch.jsonl"
    path.write_text("".join(("{not json" if i % 7 == 3 else json.dumps(p)) + "\n" for i, (_, p) in
                            enumerate(_plans(60))))
    for fmt in ("text", "json"):
        outs = []
        for mode in ([], ["--jobs", "2"], ["--ray"]):
            assert main(["validate", str(RECIPES), str(path), "--format", fmt, *mode]) == 2
            outs.append(capsys.readouterr().out)
        assert outs[0] == outs[1] == outs[2]
    import functools

    from chronoplan.commands.validate import render  # importable by the actors' processes
    project = chronoplan.load(RECIPES)
    one = [render("json", r) for r in validate_many(project, [str(path)])]
    assert list(ray_reports(project, [str(path)], chunk=8, render=functools.partial(render, "json"))) == one
