"""``chronoplan render``: pictures of graded plans (procedures, kitchens, tool plans) and its failure modes."""
import json
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from kitchen_util import GENERATED, generated

import chronoplan
from chronoplan.cli import main
from chronoplan.runtime.chart import Fill, pack_lanes, tick_marks
from chronoplan.runtime.kitchen.scripted import plan as scripted_plan
from chronoplan.runtime.kitchen.world import World
from chronoplan.validators.render_charts import picture
from chronoplan.validators.tools.export import reference_plan

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "domains" / "recipes"
VALID = RECIPES / "plans" / "valid.json"
FAULTY = RECIPES / "plans" / "faulty.json"
TOOLS = ROOT / "domains" / "tools"
KITCHEN = "burger_s42_o2_a2"
TOOL_SCENARIO = "calendar_review_many_to_many"
RED = (214, 39, 40)


@pytest.fixture(scope="module")
def recipes():
    return chronoplan.load(RECIPES)


@pytest.fixture(scope="module")
def tools():
    return chronoplan.load(TOOLS)


@pytest.fixture(scope="module")
def plans(tmp_path_factory, tools):
    """Plan files: a kitchen plan of the scripted planner and a broken copy, a tool reference plan and a
    broken copy."""
    d = tmp_path_factory.mktemp("plans")
    good = scripted_plan(World(generated(), KITCHEN))
    (d / "kitchen.json").write_text(json.dumps({"scenario": KITCHEN, "plan": good}))
    bad = {a: list(v) for a, v in good.items()}
    bad["agent1"].insert(3, {"action": "MoveTo", "target": [1, 2]})          # (1, 2) is a wall: E250
    (d / "kitchen_bad.json").write_text(json.dumps({"scenario": KITCHEN, "plan": bad}))
    ref = reference_plan(tools.scenario(TOOL_SCENARIO))
    (d / "tools.json").write_text(json.dumps(ref))
    ref["steps"][2]["tool"] = "scheduleMeting"                               # T101 at position 2
    (d / "tools_bad.json").write_text(json.dumps(ref))
    return d


def render(capsys, *args):
    """Run the command; (exit status, stdout, stderr), and never a traceback."""
    status = main(["render", *map(str, args)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


# ------------------------------------------------------------------------------------------ helpers
def png_stats(path):
    """(width, height, distinct colours, fraction of non-white pixels, red pixels)."""
    image = pytest.importorskip("matplotlib.image").imread(str(path))
    np = pytest.importorskip("numpy")
    rgb = (image[:, :, :3] * 255).round().astype(int)
    h, w = rgb.shape[:2]
    colours = len(np.unique(rgb.reshape(-1, 3) // 8, axis=0))
    non_white = float((rgb.sum(axis=2) < 740).mean())
    red = int((np.abs(rgb - np.array(RED)).max(axis=2) < 24).sum())
    return w, h, colours, non_white, red


def svg_text(path):
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    return " ".join(t for el in root.iter() for t in (el.text or "",) if t.strip())


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text, self.open = [], [], []
        self.srcs = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.srcs += [v for k, v in attrs if k in ("src", "href") and v]

    def handle_data(self, data):
        if data.strip():
            self.text.append(data.strip())


def html_page(path):
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def expected_size(project, scenario, plan_path):
    from chronoplan.runtime.render import WIDTH_PX, layout
    pic = picture(project, scenario, plan_path.read_bytes())
    return WIDTH_PX, layout(pic.chart)["height"]


# ------------------------------------------------------------------------------------------ procedures
def test_procedure_png_valid_and_faulty(tmp_path, capsys, recipes):
    pytest.importorskip("matplotlib")
    for plan, valid in ((VALID, True), (FAULTY, False)):
        out = tmp_path / f"{plan.stem}.png"
        status, stdout, _ = render(capsys, RECIPES, plan, "-o", out)
        assert status == 0 and ("is valid" in stdout) == valid
        w, h, colours, non_white, red = png_stats(out)
        assert (w, h) == expected_size(recipes, "Roast-Chicken_Garlic-Potatoes", plan)
        assert f"({w}x{h} px)" in stdout
        assert colours >= 12 and non_white > 0.08
        # red is for violations only: none on the valid plan's picture, plenty on the faulty one's
        assert (red == 0) if valid else (red > 500), red


def test_procedure_svg_and_html_name_steps_and_codes(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    svg, html = tmp_path / "f.svg", tmp_path / "f.html"
    assert render(capsys, RECIPES, FAULTY, "-o", svg)[0] == 0
    assert render(capsys, RECIPES, FAULTY, "-o", html)[0] == 0
    text = svg_text(svg)
    page = html_page(html)
    for words in (text, " ".join(page.text)):
        for label in ("RC0", "RC3", "GP1", "agent1", "oven", "RC = Roast-Chicken", "INVALID (10 errors)"):
            assert label in words, label
        for code in ("E401", "E301", "E411", "E201", "E511", "E601", "E102"):
            assert code in words, code
    assert "svg" in page.tags and "script" not in page.tags and not page.srcs    # self-contained
    assert "Roast the chicken." in " ".join(page.text)                          # step text in the tooltips


def test_procedure_chart_model(recipes):
    chart = picture(recipes, "Roast-Chicken_Garlic-Potatoes", VALID.read_bytes()).chart
    names = [r.name for r in chart.rows]
    assert names == ["agent1", "oven", "stove", "microwave"]
    bars = {b.label: b for b in chart.bars if b.row == 0}
    assert bars["RC0"].fill is Fill.OPEN and bars["RC0"].busy_end == bars["RC0"].start    # autonomous
    assert bars["RC1"].fill is Fill.SOLID                                                   # continuous
    assert {"GP0 1/2", "GP0 2/2"} <= set(bars)                                             # two chunks
    assert chart.rows[0].lanes == 3 and not any(b.codes for b in chart.bars) and not chart.notes
    assert sorted(b.label for b in chart.bars if b.row == 1) == ["RC0", "RC3"]             # the oven
    assert "valid" in chart.title and "01:14:00" in chart.title
    faulty = picture(recipes, "Roast-Chicken_Garlic-Potatoes", FAULTY.read_bytes()).chart
    rc3 = next(b for b in faulty.bars if b.row == 0 and b.label == "RC3")
    assert rc3.codes == ("E301", "E401", "E411", "E201") and rc3.code_text == "E301 E401 E411 +1"
    # step 9 does not exist: nothing ran, so its error is drawn at its time across the chart
    assert [(m.row, m.time, m.label) for m in faulty.marks] == [(None, 3400.0, "E102")]
    assert len(faulty.notes) == 10 and faulty.notes[0].startswith("E401 [#3 agent1 t=00:04:00]")


def test_two_cooks_in_minutes(recipes, tmp_path, capsys):
    plan = tmp_path / "cooks.json"
    plan.write_text(json.dumps({"schedule": [
        {"task": "Roast-Chicken", "step": 0, "start": 0, "agent": "cook1"},
        {"task": "Garlic-Potatoes", "step": 0, "start": 0, "agent": "cook2"}]}))
    out = tmp_path / "cooks.html"
    status, stdout, _ = render(capsys, RECIPES, plan, "-s", "Roast-Chicken_two_cooks", "-o", out)
    assert status == 0 and "INVALID" in stdout                  # incomplete: still drawn
    page = " ".join(html_page(out).text)
    assert "cook1" in page and "cook2" in page and "RC0" in page and "GP0" in page
    assert "E701" in page and "is never executed" in page                 # the missing steps, listed


# ------------------------------------------------------------------------------------------ kitchens
def test_kitchen_png_has_gantt_and_map(tmp_path, capsys, plans):
    pytest.importorskip("matplotlib")
    out = tmp_path / "k.png"
    status, stdout, _ = render(capsys, GENERATED, plans / "kitchen.json", "-o", out)
    assert status == 0 and "is valid" in stdout
    w, h, colours, non_white, red = png_stats(out)
    assert (w, h) == expected_size(generated(), KITCHEN, plans / "kitchen.json")
    assert h > 500 and colours >= 12 and non_white > 0.1 and red == 0


def test_kitchen_faulty_svg_and_html(tmp_path, capsys, plans):
    pytest.importorskip("matplotlib")
    svg, html = tmp_path / "k.svg", tmp_path / "k.html"
    for out in (svg, html):
        assert render(capsys, GENERATED, plans / "kitchen_bad.json", "-o", out)[0] == 0
    page = html_page(html)
    assert page.tags.count("svg") == 2                                        # the Gantt chart and the map
    for words in (svg_text(svg), " ".join(page.text)):
        for label in ("agent1", "agent2", "MoveTo", "Interact", "E250", "1 = agent1", "burger_basic"):
            assert label in words, label


def test_kitchen_walks_follow_the_floor(plans):
    pic = picture(generated(), KITCHEN, (plans / "kitchen.json").read_bytes())
    view = pic.chart.kitchen
    world = World(generated(), KITCHEN)
    assert [p.agent for p in view.paths] == list(world.agents)
    for p in view.paths:
        assert p.cells[0] == tuple(world.start_pos[p.agent]) and len(p.cells) > 5
        for (x0, y0), (x1, y1) in zip(p.cells, p.cells[1:]):
            assert abs(x0 - x1) + abs(y0 - y1) == 1 and world.grid.walkable((x1, y1))
    served = [m for m in pic.chart.marks if not m.violation]
    assert len(served) == 2 and pic.chart.vlines[0].label.startswith("OCT")
    bad = picture(generated(), KITCHEN, (plans / "kitchen_bad.json").read_bytes()).chart
    # the walk is recorded by running the plan in steps: the same runs as one run of the simulator
    from kitchen_util import simulate

    from chronoplan.runtime.chart_build import kitchen_walk
    from chronoplan.validators.kitchen.read import read_cook_plan
    for name in ("kitchen.json", "kitchen_bad.json"):
        value = json.loads((plans / name).read_text())
        walked, _ = kitchen_walk(world, read_cook_plan(value).steps)
        once = simulate(KITCHEN, value["plan"]).result()
        assert walked.runs == once.runs and walked.errors == once.errors and walked.served == once.served
    assert [m.label for m in bad.marks if m.violation] == ["E250"]           # the MoveTo never ran
    assert [code for p in bad.kitchen.paths for _, code in p.marks] == ["E250"]


# ------------------------------------------------------------------------------------------ tool plans
def test_tool_plan_levels_png_svg_html(tmp_path, capsys, plans, tools):
    pytest.importorskip("matplotlib")
    out = tmp_path / "t.png"
    assert render(capsys, TOOLS, plans / "tools.json", "-o", out)[0] == 0
    w, h, colours, non_white, red = png_stats(out)
    assert (w, h) == expected_size(tools, TOOL_SCENARIO, plans / "tools.json") and colours >= 8
    assert non_white > 0.05 and red == 0
    chart = picture(tools, TOOL_SCENARIO, (plans / "tools.json").read_bytes()).chart
    assert [(b.label, int(b.start)) for b in chart.bars] == [("findFreeSlot", 0), ("searchEmails", 0),
                                                            ("scheduleMeeting", 1), ("setReminder", 1)]
    assert sorted(chart.links) == [(0, 2), (0, 3), (1, 2), (1, 3)] and "4 steps in 2 levels" in chart.title
    svg, html = tmp_path / "t.svg", tmp_path / "t.html"
    for out in (svg, html):
        assert render(capsys, TOOLS, plans / "tools_bad.json", "-o", out)[0] == 0
    for words in (svg_text(svg), " ".join(html_page(html).text)):
        assert "scheduleMeting" in words and "findFreeSlot" in words and "T101" in words and "T401" in words


# ------------------------------------------------------------------------------------------ failures
def test_failure_modes(tmp_path, capsys, plans):
    out = tmp_path / "x.html"
    status, _, err = render(capsys, tmp_path / "missing.chrono", VALID, "-o", out)
    assert status == 2 and "no such file" in err
    status, _, err = render(capsys, RECIPES, tmp_path / "missing.json", "-o", out)
    assert status == 2 and "cannot read plan" in err and "no such file" in err
    status, _, err = render(capsys, RECIPES, RECIPES / "plans", "-o", out)
    assert status == 2 and "directory" in err
    status, _, err = render(capsys, RECIPES, VALID, "-s", "nope", "-o", out)
    assert status == 2 and "no scenario named 'nope'" in err
    status, _, err = render(capsys, RECIPES, VALID, "-o", tmp_path / "x.jpg")
    assert status == 2 and ".png, .svg or .html" in err
    (tmp_path / "afile").write_text("")          # a missing folder is created (issue 28 item 17); not under a file
    status, _, err = render(capsys, RECIPES, VALID, "-o", tmp_path / "afile" / "dir" / "x.html")
    assert status == 2 and "cannot write" in err
    lines = tmp_path / "two.jsonl"
    lines.write_text(VALID.read_text().replace("\n", "") + "\n" + VALID.read_text().replace("\n", "") + "\n")
    status, _, err = render(capsys, RECIPES, lines, "-o", out)
    assert status == 2 and "holds 2 plans" in err
    anonymous = tmp_path / "anonymous.json"
    anonymous.write_text(json.dumps({"schedule": []}))
    status, _, err = render(capsys, RECIPES, anonymous, "-o", out)
    assert status == 2 and "no scenario matches" in err
    assert not out.exists()
    status, _, err = render(capsys, RECIPES, VALID)
    assert status == 2                                                      # -o is required


SUMMARY_KEYS = ["ok", "file", "bytes", "width", "height", "scenario", "plan", "valid", "codes", "error"]


def test_json_summary(tmp_path, capsys, recipes):
    """``--format json``: one summary object on stdout instead of the "wrote" line, also on failure (as
    ``pddl`` and ``import`` do: ``commands.output.failure``), with the exit status of the text mode."""
    from chronoplan.validators.grade import Grader
    out = tmp_path / "f.html"
    status, stdout, err = render(capsys, RECIPES, FAULTY, "-o", out, "--format", "json")
    summary = json.loads(stdout)
    assert status == 0 and list(summary) == SUMMARY_KEYS and err == ""
    report = Grader(recipes).grade("Roast-Chicken_Garlic-Potatoes", FAULTY.read_bytes(), name=str(FAULTY))
    assert summary == {"ok": True, "file": str(out), "bytes": out.stat().st_size, "width": None, "height": None,
                       "scenario": "Roast-Chicken_Garlic-Potatoes", "plan": str(FAULTY), "valid": False,
                       "codes": [e.code for e in report.errors], "error": None}
    assert len(summary["codes"]) == 10 and "E511" in summary["codes"] and summary["bytes"] > 5000
    status, stdout, _ = render(capsys, RECIPES, VALID, "-o", tmp_path / "v.html", "--format", "json")
    summary = json.loads(stdout)
    assert status == 0 and summary["ok"] and summary["valid"] is True and summary["codes"] == []
    pytest.importorskip("matplotlib")
    png = tmp_path / "v.png"
    status, stdout, _ = render(capsys, RECIPES, VALID, "-o", png, "--format", "json")
    summary = json.loads(stdout)
    assert status == 0 and (summary["width"], summary["height"]) == png_stats(png)[:2]
    assert summary["bytes"] == png.stat().st_size


def test_json_summary_on_failure(tmp_path, capsys):
    bad = tmp_path / "bad.chrono"
    bad.write_text("domain x {\n  bogus\n}\n")
    out = tmp_path / "x.html"
    for args, error in [((RECIPES, tmp_path / "missing.json", "-o", out), "no such file"),
                        ((bad, VALID, "-o", out), f"{bad} does not compile"),
                        ((RECIPES, VALID, "-s", "nope", "-o", out), "no scenario named 'nope'"),
                        ((RECIPES, VALID, "-o", tmp_path / "x.jpg"), ".png, .svg or .html")]:
        status, stdout, err = render(capsys, *args, "--format", "json")
        summary = json.loads(stdout)
        assert status == 2 and list(summary) == SUMMARY_KEYS, args
        assert summary["ok"] is False and error in summary["error"] and summary["file"] is None
        assert summary["valid"] is None and summary["codes"] == [] and summary["plan"] == str(args[1])
        assert err.strip()                          # the message or the diagnostics stay on stderr
    assert not out.exists()


def test_cli_doc_lists_the_render_json_summary():
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `render "))
    assert all(key in row.split("|")[3] for key in SUMMARY_KEYS), row
    assert "`render`" in text.split("\n\n")[1]            # among the commands that take --format


def test_unreadable_plan_still_renders(tmp_path, capsys):
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    out = tmp_path / "g.html"
    status, stdout, _ = render(capsys, RECIPES, garbage, "-s", "Roast-Chicken_Garlic-Potatoes", "-o", out)
    assert status == 0 and "INVALID" in stdout
    assert "E001" in " ".join(html_page(out).text)


def test_without_matplotlib(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)            # import matplotlib raises ImportError
    status, _, err = render(capsys, RECIPES, VALID, "-o", tmp_path / "x.png")
    assert status == 2 and "pip install matplotlib" in err and not (tmp_path / "x.png").exists()
    status, _, err = render(capsys, RECIPES, VALID, "-o", tmp_path / "x.svg")
    assert status == 2 and "pip install matplotlib" in err
    status, stdout, _ = render(capsys, RECIPES, VALID, "-o", tmp_path / "x.html")        # HTML needs nothing
    assert status == 0 and (tmp_path / "x.html").stat().st_size > 5000


def test_stdin_plan(tmp_path, capsys, monkeypatch):
    import io
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(FAULTY.read_bytes())))
    out = tmp_path / "s.html"
    status, stdout, _ = render(capsys, RECIPES, "-", "-o", out)
    assert status == 0 and "INVALID (10 errors)" in stdout and "E511" in out.read_text()


# ------------------------------------------------------------------------------------------ units
def test_pack_lanes():
    assert pack_lanes([]) == ([], 1)
    # start order, shorter first
    assert pack_lanes([(0, 10), (0, 3), (3, 5), (5, 12), (10, 11)]) == ([1, 0, 0, 0, 1], 2)
    assert pack_lanes([(0, 5), (1, 2), (2, 3), (1, 4)]) == ([0, 1, 1, 2], 3)


def test_clock_ticks(recipes):
    chart = picture(recipes, "Roast-Chicken_Garlic-Potatoes", VALID.read_bytes()).chart
    ticks = tick_marks(chart)
    assert ticks[0] == (0.0, "0:00:00") and ticks[1] == (600.0, "0:10:00") and ticks[-1] == (4200.0, "1:10:00")


def test_readme_shows_the_command_and_its_picture(recipes):
    readme = (ROOT / "README.md").read_text()
    image = ROOT / "docs" / "images" / "recipes_gantt.png"
    assert "chronoplan render FILE PLAN" in readme and "](docs/images/recipes_gantt.png)" in readme
    assert "chronoplan render domains/recipes domains/recipes/plans/faulty.json -o docs/images/recipes_gantt.png" \
        in readme.replace("\n", " ")
    assert image.stat().st_size < 150_000
    pytest.importorskip("matplotlib")
    w, h, colours, _, red = png_stats(image)
    assert (w, h) == expected_size(recipes, "Roast-Chicken_Garlic-Potatoes", FAULTY) and red > 500


def test_long_plans_are_clipped_not_huge(tmp_path, capsys, tools):
    from chronoplan.runtime.chart import MAX_LANES
    steps = [{"id": k + 1, "tool": "findFreeSlot", "args": {"date": "2025-10-03", "duration_min": 30},
              "after": [k] if k else []} for k in range(MAX_LANES + 30)]
    plan = tmp_path / "long.json"
    plan.write_text(json.dumps({"scenario": TOOL_SCENARIO, "steps": steps}))
    out = tmp_path / "long.html"
    assert render(capsys, TOOLS, plan, "-o", out)[0] == 0
    page = " ".join(html_page(out).text)
    assert f"30 more rows not drawn (a picture shows at most {MAX_LANES} lanes)" in page
    assert f"step {MAX_LANES}" in page and f"step {MAX_LANES + 1}" not in page
    pytest.importorskip("matplotlib")
    from chronoplan.runtime.render import LANE_PX
    png = tmp_path / "long.png"
    assert render(capsys, TOOLS, plan, "-o", png)[0] == 0
    h = png_stats(png)[1]
    assert MAX_LANES * LANE_PX < h < (MAX_LANES + 20) * LANE_PX


def test_dispensers_say_what_they_give_and_violation_labels_do_not_overlap(tmp_path, capsys, plans):
    """Issue 28 item 18: every dispenser was drawn as a bare "D", and violation labels at one cell (the map) or
    at close times (the Gantt chart) were written over each other."""
    from chronoplan.runtime.chart import MapView, Mark, Path, map_mark_labels, mark_levels
    pic = picture(generated(), KITCHEN, (plans / "kitchen.json").read_bytes())
    dispensers = [s for s in pic.chart.kitchen.stations if s.letter == "D"]
    assert dispensers and all(s.detail for s in dispensers)
    assert {s.detail for s in dispensers} >= {"bread", "meat"}
    view = MapView(4, 4, (), (), (Path("a1", "#000", ((0, 0), (1, 1)), (((1, 1), "E250"), ((1, 1), "E251"))),
                                  Path("a2", "#111", ((1, 1),), (((1, 1), "E252"),))))
    spots = [(x, y) for x, y, _, _ in map_mark_labels(view)]
    assert len(set(spots)) == 3 and len({x for x, _ in spots}) == 1          # stacked under each other
    chart = pic.chart
    close = tuple(Mark(0, 10.0 + k / 1000, f"E25{k}", "", True) for k in range(4)) + (Mark(0, 500.0, "E1", "", True),)
    from dataclasses import replace
    levels = mark_levels(replace(chart, marks=close), px_per_unit=1.0, char_px=7.0)
    assert [levels[k] for k in range(3)] == [0, 1, 2] and levels[4] == 0
    pytest.importorskip("matplotlib")
    svg = tmp_path / "k.svg"
    assert render(capsys, GENERATED, plans / "kitchen.json", "-o", svg)[0] == 0
    assert "bread" in svg_text(svg).split() and "meat" in svg_text(svg).split()
