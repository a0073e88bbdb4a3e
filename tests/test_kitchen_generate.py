"""Instance generator (ParaCook's 360 configurations), the scripted planner, rendering and batch metrics."""
import re
from fractions import Fraction

import pytest
from kitchen_util import GENERATED, M, generated, grade
from test_kitchen_plans import BURGER_B

import chronoplan
from chronoplan.runtime.kitchen import generate as G
from chronoplan.runtime.kitchen.metrics import batch_metrics
from chronoplan.runtime.kitchen.scripted import plan as scripted_plan
from chronoplan.runtime.kitchen.world import World
from chronoplan.runtime.render import ascii_map
from chronoplan.validators.kitchen.grade import grade_grid_plan

DISPENSERS = {"salad": 3, "sashimi": 2, "sushi": 4, "burger": 5, "burrito": 5, "pasta": 6}
STOVES = {"sushi": (0, 2), "burger": (2, 0), "pasta": (2, 2), "burrito": (2, 2), "salad": (0, 0), "sashimi": (0, 0)}


@pytest.fixture(scope="module")
def instances(tmp_path_factory):
    out = tmp_path_factory.mktemp("gen")
    files = G.generate()
    for name, text in files.items():
        (out / name).write_text(text)
    return files, chronoplan.load(out)


def test_the_360_configurations(instances):
    files, project = instances
    assert len(files) == 31 and len(project.scenarios) == 6 * 4 * 3 * 5 == 360
    assert G.generate() == files                                  # deterministic
    for cat in G.CATEGORIES:
        for seed in G.SEEDS:
            m = project.maps[f"{cat}_s{seed}"]
            kinds = [s.kind for s in m.stations]
            assert (m.width, m.height, len(m.walls)) == (10, 8, 2)
            assert kinds.count("chopping_board") == 2 and kinds.count("table") == 4
            assert sum(1 for s in m.stations if s.kind == "table" and s.item == "plate") == 2
            assert [kinds.count(k) for k in ("serving_window", "sink", "plate_return", "trash")] == [1, 1, 1, 0]
            stoves = [s.item for s in m.stations if s.kind == "stove"]
            assert (stoves.count("pan"), stoves.count("pot")) == STOVES[cat]
            assert kinds.count("dispenser") == DISPENSERS[cat]
            # all walls inside the map, no border walls by construction; every order is of the category
            orders = [project.scenarios[f"{cat}_s{seed}_o{k}_a1"].orders for k in (1, 2, 3, 4)]
            assert all(orders[k][: k] == orders[k - 1] for k in (1, 2, 3))          # prefixes
            assert all(project.recipes[d].category == cat for d in orders[3])
            # agent k starts on the same cell for every agent count
            starts = [project.scenarios[f"{cat}_s{seed}_o1_a{n}"].agents for n in (1, 2, 3)]
            assert starts[2][:1] == starts[0] and starts[2][:2] == starts[1]


def test_bundled_instances_match_the_generator():
    physics = chronoplan.load(G.PHYSICS)
    for f in sorted(GENERATED.glob("*.chrono")):
        cat, seed = re.match(r"(\w+)_s(\d+)", f.stem).groups()
        assert f.read_text() == G.instance_file(physics, cat, int(seed), physics="../physics.chrono")


@pytest.mark.parametrize("cat", G.CATEGORIES)
def test_scripted_plans_serve_every_order(instances, cat):
    _, project = instances
    for seed in G.SEEDS:
        name = f"{cat}_s{seed}_o4_a2"
        plan = scripted_plan(World(project, name))
        rep = grade_grid_plan(project, name, {"plan": plan})
        assert rep.valid and rep.metrics["served"] == 4, rep.to_text()[:500]
        assert rep.metrics["oct"] <= rep.metrics["T_max"]


def test_cli_writes_files(tmp_path, capsys):
    assert G.main([str(tmp_path), "--categories", "salad", "--seeds", "1,2", "--orders", "1,2", "--agents", "2"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["physics.chrono", "salad_s1.chrono", "salad_s2.chrono"]
    assert "4 scenarios" in capsys.readouterr().out
    assert sorted(chronoplan.load(tmp_path).scenarios) == ["salad_s1_o1_a2", "salad_s1_o2_a2", "salad_s2_o1_a2",
                                                           "salad_s2_o2_a2"]


def test_ascii_map():
    w = World(generated(), "burger_s42_o1_a2")
    assert ascii_map(w, legend=False).splitlines() == [
        "C.T...DTCD", "....O.....", ".#.O......", ".....W....", "DD..#..T..", "K....T....", "....D.....",
        "....R..2.1"]
    assert "  T table2 (7,0) with plate" in ascii_map(w)


def test_png_map_and_gantt(tmp_path):
    pytest.importorskip("matplotlib")
    from kitchen_util import simulate

    from chronoplan.cli import main
    from chronoplan.runtime.render import gantt_png, map_png
    sim = simulate("burger_s42_o1_a2", BURGER_B)
    gantt_png(sim.result(), tmp_path / "g.png")
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    map_png(sim.w, tmp_path / "m.png", sim.st)
    plan = tmp_path / "p.json"
    import json
    plan.write_text(json.dumps({"plan": BURGER_B}))
    assert main(["render", str(GENERATED / "burger_s42.chrono"), str(plan), "-s", "burger_s42_o1_a2",
                 "-o", str(tmp_path / "g2.png")]) == 0
    assert (tmp_path / "m.png").stat().st_size > 1000 and (tmp_path / "g2.png").stat().st_size > 1000


def test_batch_metrics():
    ok = grade("burger_s42_o1_a2", BURGER_B).metrics                    # OCT 47, T_max 154, MD 39/2
    bad = grade("burger_s42_o1_a2", {"agent1": [M(4, 1)]}).metrics     # fails: counts T_max and D_max
    b = batch_metrics([ok, bad])
    assert (b["runs"], b["successes"], b["SR"]) == (2, 1, Fraction(1, 2))
    assert b["pOCT"] == Fraction(47 + 154, 2) and b["nOCT"] == Fraction(47, 154) and b["OCT"] == 47
    assert b["pMD"] == (Fraction(39, 2) + 126) / 2 and b["AU"] == Fraction(34, 47)
    # time budget: mean over successful runs of the per-agent mean (agent1 move 18, agent2 move 21)
    assert b["time_budget"]["move"] == Fraction(39, 2) and b["time_budget"]["wait"] == 13
