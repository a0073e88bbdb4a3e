"""`chronoplan import tdw-mat`: small files written here in TDW-MAT's episode format (scene commands with
add_object entries, metadata with object_room_list, task counts and agent starts; three rooms, a few objects of
each task) -> a household scenario that checks clean and plays with --baseline, its IR (rooms, doors, baskets,
things, agents, goal), each estimate named as a warning, located errors with exit 2 for missing, malformed and
hostile input."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import chronoplan
from chronoplan.compiler.importers import ImportFormatError
from chronoplan.compiler.importers.tdw_mat import convert, object_name

OBJECTS = [   # model name, room, (x, z), category
    ("b04_bowl_smooth", "Kitchen", (5.0, 1.0), "bowl"),
    ("plate06", "Kitchen", (6.0, 2.0), "plate"),
    ("b04_orange_00", "Kitchen", (4.0, 0.5), "orange"),
    ("b04_orange_01", "Kitchen", (4.5, 0.0), "orange"),
    ("apple", "Livingroom", (0.5, 0.0), "apple"),
    ("b03_burger", "Livingroom", (-1.0, 1.0), "burger"),
    ("teatray", "Livingroom", (0.0, -1.0), "tea tray"),
    ("basket_18inx18inx12iin_wicker", "Bedroom", (0.0, 8.0), "basket"),
    ("f10_apple_iphone_4", "Bedroom", (1.0, 9.0), "phone"),
    ("b05_calculator", "Livingroom", (1.0, 1.0), "calculator"),
    ("cgaxis_models_50_24_vray", "Kitchen", (5.0, 0.0), "computer mouse"),
    ("sofa_xyz", "Livingroom", (0.0, 2.0), "sofa"),
]
SOFA = ("sofa_xyz", "Bedroom", (0.0, 2.0), "sofa")
WARNINGS = {"rooms", "bed", "agents", "doors", "places", "horizon", "add_object"}


def episode(objects=OBJECTS):
    cmds: list = [{"$type": "create_avatar", "id": "a"}]
    for i, (name, _room, (x, z), cat) in enumerate(objects):
        cmds.append({"$type": "add_object", "name": name, "position": {"x": x, "y": 0.0, "z": z},
                     "category": cat, "id": 100 + i})
        cmds.append({"$type": "set_mass", "id": 100 + i, "mass": 1.0})
    return cmds


def metadata(objects=OBJECTS, **over):
    meta = {"floorplan_scene_name": "2a", "floorplan_layout": 0, "scene_id": 2,
            "object_room_list": [[n, r] for n, r, _, _ in objects],
            "food": {"target": 4, "container": 3}, "stuff": {"target": 3, "container": 1},
            "0": {"x": 0.1, "y": 0.0, "z": 0.2}, "1": {"x": 5.0, "y": 0.0, "z": 1.0}}
    meta.update(over)
    return meta


def write(tmp_path, cmds=None, meta=None, raw_cmds=None, raw_meta=None):
    ep, md = tmp_path / "2a_0_0.json", tmp_path / "2a_0_0_metadata.json"
    ep.write_text(raw_cmds if raw_cmds is not None else json.dumps(episode() if cmds is None else cmds))
    md.write_text(raw_meta if raw_meta is not None else json.dumps(metadata() if meta is None else meta))
    return ep, md


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "chronoplan.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd)


def warning_items(stderr: str) -> set:
    items = set()
    for line in stderr.splitlines():
        assert line.startswith("chronoplan import: warning: "), line
        file_, item, _msg = line[len("chronoplan import: warning: "):].split(": ", 2)
        assert file_.endswith(".json")
        items.add(item)
    return items


@pytest.mark.parametrize("task", ["food", "stuff"])
def test_import_checks_clean_and_plays(tmp_path, task):
    ep, md = write(tmp_path)
    out = tmp_path / f"{task}.chrono"
    r = run("import", "tdw-mat", ep, "--metadata", md, "--task", task, "-o", out)
    assert r.returncode == 0, r.stderr
    assert warning_items(r.stderr) == WARNINGS
    c = run("check", out)
    assert c.returncode == 0 and "0 errors, 0 warnings" in c.stdout, c.stdout + c.stderr
    p = run("play", out, "--baseline")
    assert p.returncode == 0 and "(success)" in p.stdout, p.stdout + p.stderr


def test_ir_rooms_baskets_things_goal(tmp_path):
    ep, md = write(tmp_path)
    out = tmp_path / "food.chrono"
    assert run("import", "tdw-mat", ep, "--metadata", md, "--task", "food", "-o", out).returncode == 0
    project = chronoplan.load(out)
    (house,) = project.households.values()
    assert house.rooms == ("kitchen", "livingroom", "bedroom")
    assert {frozenset((d.a, d.b)) for d in house.doors} == {frozenset(p) for p in [
        ("kitchen", "livingroom"), ("kitchen", "bedroom"), ("livingroom", "bedroom")]}
    assert all(d.metres >= 1 for d in house.doors)
    baskets = {p.name: (p.room, p.capacity) for p in house.places if p.kind.name == "BASKET"}
    assert baskets == {"bowl1": ("kitchen", 3), "plate1": ("kitchen", 3), "tea_tray1": ("livingroom", 3)}
    bed = house.place("bed")
    assert bed is not None and bed.kind.name == "SURFACE" and bed.room == "bedroom"
    things = {t.name: (t.type, t.options) for t in house.things}
    assert things == {"orange1": ("orange", ("kitchen",)), "orange2": ("orange", ("kitchen",)),
                      "apple1": ("apple", ("livingroom",)), "burger1": ("burger", ("livingroom",))}
    assert house.hands == 2 and len(house.observe) == 5
    scen = project.scenario("episode_2a_0_0_food")
    text = out.read_text()
    assert "agents alice at livingroom, bob at kitchen" in text
    assert "goal 2 on(orange, bed), 1 on(apple, bed), 1 on(burger, bed)" in text
    assert "horizon 3000" in text and "syntax tdw" in text and "explored(self)" in text
    assert scen is not None


def test_stuff_things_and_name_mapping(tmp_path):
    ep, md = write(tmp_path)
    out = tmp_path / "stuff.chrono"
    r = run("import", "tdw-mat", ep, "--metadata", md, "--task", "stuff", "-o", out, "--format", "json")
    summary = json.loads(r.stdout)
    assert r.returncode == 0 and summary["ok"] and summary["files"] == [str(out)]
    assert {w.split(": ")[1] for w in summary["warnings"]} == WARNINGS
    (house,) = chronoplan.load(out).households.values()
    assert {t.name: t.type for t in house.things} == {"iphone1": "iphone", "calculator1": "calculator",
                                                      "mouse1": "mouse"}
    assert [p.name for p in house.places if p.kind.name == "BASKET"] == ["wicker_basket1"]
    assert object_name("b04_bowl_smooth", "x") == "bowl"                  # the table
    assert object_name("whatever", "computer mouse") == "mouse"           # the category
    assert object_name("b05_loaf_bread_2", "food") == "loaf_bread"        # a name inside the model name
    assert object_name("basket_wood_1", "basket") == "wood_basket"
    assert object_name("chair_1", "chair") is None


def test_metadata_count_mismatch_is_a_warning(tmp_path):
    ep, md = write(tmp_path, meta=metadata(food={"target": 10, "container": 5}))
    r = run("import", "tdw-mat", ep, "--metadata", md, "--task", "food", "-o", tmp_path / "o.chrono")
    assert r.returncode == 0
    assert {"food.target", "food.container"} <= warning_items(r.stderr)
    assert "the metadata says 10, the episode has 4" in r.stderr


def test_bed_room_option_and_missing_bedroom(tmp_path):
    objs = [(n, "Office" if r == "Bedroom" else r, p, c) for n, r, p, c in OBJECTS]
    ep, md = write(tmp_path, cmds=episode(objs), meta=metadata(objs))
    r = run("import", "tdw-mat", ep, "--metadata", md, "--task", "food", "-o", tmp_path / "o.chrono")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "no room is named Bedroom" in r.stderr and "--bed-room" in r.stderr and str(md) in r.stderr
    r = run("import", "tdw-mat", ep, "--metadata", md, "--task", "food", "--bed-room", "office",
            "-o", tmp_path / "o.chrono")
    assert r.returncode == 0, r.stderr
    assert "surface bed in office" in (tmp_path / "o.chrono").read_text()
    r = run("import", "tdw-mat", ep, "--metadata", md, "--task", "food", "--bed-room", "Garage",
            "-o", tmp_path / "o2.chrono")
    assert r.returncode == 2 and "--bed-room: no room 'Garage'" in r.stderr


def bad(tmp_path, *extra, **files):
    ep, md = write(tmp_path, **files)
    r = run("import", "tdw-mat", ep, "--metadata", md, "--task", "food", *extra, "-o", tmp_path / "o.chrono")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and r.stderr.startswith("chronoplan import: error: "), r.stderr
    assert not (tmp_path / "o.chrono").exists()
    return r.stderr


def with_position(i, pos):
    cmds = episode()
    [c for c in cmds if c["$type"] == "add_object"][i]["position"] = pos
    return cmds


@pytest.mark.parametrize("files, message", [
    ({"raw_cmds": "[{"}, "2a_0_0.json:1:"),
    ({"raw_meta": "{\"0\": NaN}"}, "NaN is not a JSON number"),
    ({"raw_cmds": json.dumps(episode()).replace("5.0", "NaN", 1)}, "NaN is not a JSON number"),
    ({"raw_cmds": json.dumps(episode()).replace("5.0", "1e999", 1)}, "2a_0_0.json:1:110: invalid JSON: the number "
                                                                      "1e999 is beyond a float's range"),
    ({"raw_cmds": json.dumps(episode()).replace("5.0", "1" + "0" * 400, 1)}, "is not a coordinate in metres"),
    ({"cmds": with_position(2, {"x": 1e9, "y": 0, "z": 0})}, "b04_orange_00: position.x"),
    ({"cmds": with_position(0, {"x": "1", "z": 0})}, "expected a number, got '1'"),
    ({"cmds": with_position(0, [1, 2, 3])}, "expected a position"),
    ({"cmds": {"a": 1}}, "expected a list of scene commands"),
    ({"cmds": [{"$type": "create_avatar"}]}, "no add_object entries"),
    ({"cmds": [{"$type": "add_object", "name": 5}]}, "\"name\" must be a model name"),
    ({"meta": []}, "expected a JSON object"),
    ({"meta": metadata(object_room_list="x")}, "\"object_room_list\" must be a list"),
    ({"meta": metadata(object_room_list=[["apple", "Kitchen"]])}, "object_room_list has 1 entries"),
    ({"meta": metadata(object_room_list=[["x", "Kitchen"]] * len(OBJECTS))}, "object_room_list[0]: model 'x'"),
    ({"meta": metadata(object_room_list=[[n, None] for n, *_ in OBJECTS])}, "expected [model_name, room]"),
    ({"meta": {k: v for k, v in metadata().items() if k not in ("0", "1")}}, "no agent start positions"),
    ({"meta": metadata(**{"0": {"x": 1e300, "z": 0}})}, "\"0\".x"),
    ({"cmds": episode([SOFA]), "meta": metadata([SOFA])}, "no food targets"),
])
def test_bad_input_is_a_located_error(tmp_path, files, message):
    assert message in bad(tmp_path, **files)


def test_missing_files_and_options(tmp_path):
    ep, md = write(tmp_path)
    out = tmp_path / "o.chrono"
    for args, message in [
        ((ep, "--task", "food"), "needs --metadata"),
        ((ep, "--metadata", md), "needs --task"),
        ((ep, "--metadata", tmp_path / "nope.json", "--task", "food"), "nope.json: no such file"),
        ((tmp_path / "nope.json", "--metadata", md, "--task", "food"), "nope.json: no such file"),
        ((ep, ep, "--metadata", md, "--task", "food"), "takes one episode file"),
        ((ep, "--metadata", md, "--task", "food", "--orders", "x"), "--orders is only used by"),
    ]:
        r = run("import", "tdw-mat", *args, "-o", out)
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
    r = run("import", "paracook", ep, "--metadata", md, "-o", out)
    assert r.returncode == 2 and "--metadata is only used by the tdw-mat format" in r.stderr
    r = run("import", "tdw-mat", ep, "--metadata", md, "--task", "cooking", "-o", out)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    r = run("import", "tdw-mat", ep, "--metadata", md, "--task", "food", "-o", md)
    assert r.returncode == 2 and "-o:" in r.stderr                         # never overwrites the metadata
    assert not out.exists()


def test_hostile_names_and_unknown_categories(tmp_path):
    objs = [(n, r if r != "Livingroom" else "Living Room #1", p, c) for n, r, p, c in OBJECTS]
    objs += [("weird\nmodel\x00", "Kitchen", (1.0, 1.0), None), ("x" * 500, "Kitchen", (1.0, 1.0), 7)]
    ep, md = write(tmp_path, cmds=episode(objs), meta=metadata(objs))
    out = tmp_path / "o.chrono"
    r = run("import", "tdw-mat", ep, "--metadata", md, "--task", "food", "-o", out)
    assert r.returncode == 0, r.stderr
    assert "3 object(s) whose model name and category match no TDW-MAT object" in r.stderr
    assert run("check", out).returncode == 0
    (house,) = chronoplan.load(out).households.values()
    assert house.rooms == ("kitchen", "living_room_1", "bedroom")


def test_convert_api_warns_through_callback(tmp_path):
    ep, md = write(tmp_path)
    seen: list = []
    files = convert([ep], metadata=str(md), task="stuff", warn=lambda f, item, msg: seen.append(item))
    assert list(files) == ["episode_2a_0_0_stuff.chrono"] and set(seen) == WARNINGS
    with pytest.raises(ImportFormatError, match="--task: expected food or stuff"):
        convert([ep], metadata=str(md), task="drinks")


BENCHMARK_SIZE = [   # 10 food targets, 5 food containers, 4 rooms: the size of a TDW-MAT test episode
    ("b04_bowl_smooth", "Kitchen", (5.0, 1.0), "bowl"), ("plate06", "Kitchen", (6.0, 2.0), "plate"),
    ("teatray", "Livingroom", (0.0, -1.0), "tea tray"), ("plate06", "Office", (12.0, 3.0), "plate"),
    ("b04_bowl_smooth", "Bedroom", (1.0, 8.5), "bowl"),
    ("b04_orange_00", "Kitchen", (4.0, 0.5), "orange"), ("b04_orange_01", "Kitchen", (4.5, 0.0), "orange"),
    ("apple", "Livingroom", (0.5, 0.0), "apple"), ("apple", "Office", (11.0, 2.0), "apple"),
    ("b03_burger", "Livingroom", (-1.0, 1.0), "burger"), ("b03_burger", "Office", (12.0, 1.0), "burger"),
    ("b04_orange_00", "Bedroom", (0.5, 9.0), "orange"), ("apple", "Kitchen", (6.0, 0.5), "apple"),
    ("b03_burger", "Bedroom", (2.0, 8.0), "burger"), ("apple", "Bedroom", (-1.0, 9.0), "apple"),
    ("sofa_xyz", "Livingroom", (0.0, 2.0), "sofa")]


def test_a_benchmark_size_episode_has_a_proven_optimum(tmp_path):
    # ten targets and five containers: beyond the A*, solved by the trip decomposition (runtime/household/trips.py)
    ep, md = write(tmp_path, cmds=episode(BENCHMARK_SIZE),
                   meta=metadata(BENCHMARK_SIZE, food={"target": 10, "container": 5}))
    out = tmp_path / "food.chrono"
    assert run("import", "tdw-mat", ep, "--metadata", md, "--task", "food", "-o", out).returncode == 0
    p = run("play", out, "--baseline")
    assert p.returncode == 0, p.stderr
    assert "baseline 160 steps (success), omniscient optimum 37 steps (proven)" in p.stdout, p.stdout


# ------------------------------------------------------------------ room_types.json (issue 28 item 2)
NO_BEDROOM = [(n, "Office" if r == "Bedroom" else r, p, c) for n, r, p, c in OBJECTS]
ROOM_TYPES = {"1": [["Kitchen", "Bedroom"]],                      # the dataset's layout: scene number -> layouts
              "2": [["Kitchen", "Livingroom", "Office", "Livingroom", "Bedroom", "Porch"],
                    ["Office", "Kitchen"]]}


def write_room_types(tmp_path, data=ROOM_TYPES, raw=None):
    path = tmp_path / "room_types.json"
    path.write_text(raw if raw is not None else json.dumps(data))
    return path


def test_room_types_name_the_bed_room_and_the_rooms_without_objects(tmp_path):
    """The bed's room is read from room_types.json (scene 2a, layout 0: its Bedroom holds no object), no
    --bed-room needed; every room of the layout is a room, those without objects joined by doors of the
    mean length; the scenario checks clean and plays."""
    ep, md = write(tmp_path, cmds=episode(NO_BEDROOM), meta=metadata(NO_BEDROOM))
    rt = write_room_types(tmp_path)
    out = tmp_path / "food.chrono"
    r = run("import", "tdw-mat", ep, "--metadata", md, "--task", "food", "--room-types", rt, "-o", out)
    assert r.returncode == 0, r.stderr
    assert "several rooms of type Livingroom" in r.stderr and "rooms without objects (bedroom, porch)" in r.stderr
    (house,) = chronoplan.load(out).households.values()
    assert house.rooms == ("kitchen", "livingroom", "office", "bedroom", "porch")
    assert house.place("bed").room == "bedroom"
    doors = {frozenset((d.a, d.b)): d.metres for d in house.doors}
    assert len(doors) == 10                                         # every two of the five rooms
    located = [m for pair, m in doors.items() if not pair & {"bedroom", "porch"}]
    mean = round(sum(located) / len(located), 1)
    assert doors[frozenset(("bedroom", "kitchen"))] == doors[frozenset(("porch", "bedroom"))] == \
        pytest.approx(mean, abs=0.051)
    assert "bed" in r.stderr and "(the room of type Bedroom)" in r.stderr
    p = run("play", out, "--baseline")
    assert p.returncode == 0 and "(success)" in p.stdout, p.stdout + p.stderr


def test_bed_room_overrides_room_types(tmp_path):
    ep, md = write(tmp_path, cmds=episode(NO_BEDROOM), meta=metadata(NO_BEDROOM))
    rt = write_room_types(tmp_path)
    out = tmp_path / "o.chrono"
    r = run("import", "tdw-mat", ep, "--metadata", md, "--task", "food", "--room-types", rt, "--bed-room", "Porch",
            "-o", out)
    assert r.returncode == 0, r.stderr
    assert "surface bed in porch" in out.read_text()
    r = run("import", "tdw-mat", ep, "--metadata", md, "--task", "food", "--room-types", rt, "--bed-room",
            "Garage", "-o", tmp_path / "o2.chrono")
    assert r.returncode == 2 and "--bed-room: no room 'Garage'" in r.stderr and "Porch" in r.stderr


def test_without_room_types_the_missing_bedroom_names_the_option(tmp_path):
    ep, md = write(tmp_path, cmds=episode(NO_BEDROOM), meta=metadata(NO_BEDROOM))
    r = run("import", "tdw-mat", ep, "--metadata", md, "--task", "food", "-o", tmp_path / "o.chrono")
    assert r.returncode == 2 and "--room-types room_types.json" in r.stderr


@pytest.mark.parametrize("rooms, meta, message", [
    ({"1": [["Kitchen"]]}, {}, 'room_types.json: no scene "2" (for 2a; scenes: 1)'),
    ({"2": [["Kitchen"]]}, {"floorplan_layout": 3}, "scene \"2\" has 1 layouts, the metadata's floorplan_layout is 3"),
    ({"2": [["Kitchen", "Livingroom", "Office"]]}, {}, "room 'Bedroom' is not a room of the layout"),
    ({"2": [["Kitchen", "Livingroom", "Bedroom", 7]]}, {}, "expected a non-empty list of room names"),
    ({"2": [["Kitchen", "Livingroom", "Bedroom"]]}, {"floorplan_scene_name": None, "floorplan_layout": True},
     "floorplan_layout must be a layout number"),
    ({"2": [["Kitchen", "Livingroom", "Bedroom"]]}, {"floorplan_scene_name": "x"},
     "floorplan_scene_name must name a floorplan scene"),
    ([1, 2], {}, "expected a JSON object {scene number"),
    ({"2": [["Kitchen"] * 51]}, {}, "51 rooms, more than 50"),
])
def test_bad_room_types_are_located_errors(tmp_path, rooms, meta, message):
    rt = write_room_types(tmp_path, rooms)
    stderr = bad(tmp_path, "--room-types", rt, meta=metadata(**meta))
    assert message in stderr, stderr


def test_no_bedroom_in_the_layout_is_an_error_naming_bed_room(tmp_path):
    rt = write_room_types(tmp_path, {"2": [["Kitchen", "Livingroom", "Office"]]})
    stderr = bad(tmp_path, "--room-types", rt, cmds=episode(NO_BEDROOM), meta=metadata(NO_BEDROOM))
    assert "the episode's layout has no Bedroom" in stderr and "--bed-room ROOM" in stderr


def test_room_types_fall_back_to_the_file_name_for_scene_and_layout(tmp_path):
    meta = {k: v for k, v in metadata(NO_BEDROOM).items() if k not in ("floorplan_scene_name", "floorplan_layout")}
    ep, md = write(tmp_path, cmds=episode(NO_BEDROOM), meta=meta)             # 2a_0_0.json: scene 2, layout 0
    files = convert([ep], metadata=str(md), task="food", room_types=str(write_room_types(tmp_path)))
    assert "surface bed in bedroom" in next(iter(files.values()))


# ------------------------------------------------------------------ doors stay bounded (issue 28 item 8)
def many_rooms(n):
    return [("apple", f"Room{i}", (float(i), 0.0), "apple") for i in range(n)] + \
        [("sofa_xyz", "Bedroom", (0.0, 9.0), "sofa")]


def test_more_rooms_than_the_bound_is_an_error_not_a_quadratic_file(tmp_path):
    """1,000 rooms: the old importer wrote 499,500 doors (12.6 MB); the rooms are bounded (50) so the doors
    are too, and more is a located error."""
    objs = many_rooms(1000)
    stderr = bad(tmp_path, cmds=episode(objs), meta=metadata(objs))
    assert "more than 50 rooms" in stderr


def test_doors_of_the_largest_episode_are_bounded(tmp_path):
    objs = many_rooms(49)                                                  # 49 + the Bedroom = 50 rooms
    ep, md = write(tmp_path, cmds=episode(objs), meta=metadata(objs))
    text = next(iter(convert([ep], metadata=str(md), task="food").values()))
    assert text.count("\n  door ") == 50 * 49 // 2
