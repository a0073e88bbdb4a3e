"""Fuzzing the importers (issue 28 item 7): hostile files and values for every ``chronoplan import`` format.

Property: for every generated input - the valid sample of the format with its values mutated
(tests/fuzz_strategies.py: hostile numbers such as 1e400, "٣", "²", 100 digits, deep nesting, wrong types),
its text damaged, truncated, nested 5,000 deep, given a BOM or broken UTF-8, or the file replaced by a FIFO,
/dev/zero, a directory, a missing path or a sparse file over the size cap - ``chronoplan import`` exits 0 with
files that compile (checked again here with ``chronoplan.compile_paths``), or exits 2 with one located
``chronoplan import: error:`` line.  Never exit 3, never a traceback, never a block (a watchdog alarm turns a
hang into a failure).  Recipe2Plan's LICENSE beside the source is made a link to /etc/passwd, a FIFO, a
directory, a huge file or broken UTF-8: none is read, and nothing of /etc/passwd reaches the output.

Budget: the ``chronoplan-ci`` profile of tests/test_fuzz.py (derandomized, 20-40 examples per format, about
a minute in all); ``CHRONOPLAN_FUZZ_EXAMPLES=N`` runs a share of N random examples per format.
"""
from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import random
import signal
import tempfile
from pathlib import Path

import fuzz_strategies as fz
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz import examples
from test_import_hostile_files import SPECIAL_FILES, make

import chronoplan
from chronoplan.cli import main

RANDOMS = st.randoms(use_true_random=False)
WATCHDOG_S = int(os.environ.get("CHRONOPLAN_FUZZ_WATCHDOG", "300"))   # a blocked read fails instead of hanging

COOKING = [
    [{"recipe": "Toast", "steps": [
        {"step": 1, "text": "Slice the bread.", "time": "2 min", "prequisites": []},
        {"step": 2, "text": "Toast it.", "time": "3 min", "parallel": 1, "prequisites": [1],
         "physical": {"toaster": {"require": {"power": 1}, "update": {"power": 0}}}},
        {"step": 3, "text": "Butter it.", "time": "30 sec", "prequisites": ["2"],
         "time_constraint": {"2": "1 min"}}]},
     {"recipe": "Tea", "steps": [
         {"step": 1, "text": "Boil water.", "time": "4 min", "parallel": 1,
          "physical": {"oven": {"require": {"temperature": 0}, "update": {"temperature": 180.5}}}},
         {"step": 2, "text": "Steep.", "time": "5 mins", "prequisites": [1], "interrupt": 1}]}],
    [{"recipe": "Eggs", "steps": [
        {"step": 1, "text": "Boil eggs.", "time": "8 min", "parallel": 1, "physical": {"stove": {}}},
        {"step": 2, "text": "Peel.", "time": "1 hour", "prequisites": [1]}]}],
]
DURATIONS = ["1e400 min", "٣ min", "1" + "0" * 99 + " sec", "１ min", "² h", "0.5 hours", "-1 min", "1e3 s",
             "9" * 41 + " s", "", "5 parsecs", "3.14159265358979323846264338327950288419716939 min",
             "1 hour", " 45 secs ", "2.5 min", "10 m", "9" * 40 + " s", "0 s"]
KITCHEN = {"name": "k", "width": 5, "height": 4,
           "agents": [{"name": "alice", "x": 1, "y": 1}, {"name": "bob", "x": 3, "y": 2}],
           "tiles": [{"x": 0, "y": 0, "type": "station", "name": "dispenser_bread", "provides": "bread"},
                     {"x": 1, "y": 0, "type": "station", "name": "dispenser_meat", "provides": "meat"},
                     {"x": 2, "y": 0, "type": "station", "name": "chopping_board1"},
                     {"x": 3, "y": 0, "type": "station", "name": "stove1", "item": "pan"},
                     {"x": 4, "y": 0, "type": "station", "name": "table1", "item": "plate"},
                     {"x": 0, "y": 3, "type": "station", "name": "serving_window"},
                     {"x": 4, "y": 3, "type": "obstacle"}],
           "orders": ["burger/burger_basic"]}
PDDL_DOMAIN = """(define (domain house)
  (:requirements :strips :typing :durative-actions)
  (:types house)
  (:predicates (planned ?h - house) (built ?h - house) (crew-free))
  (:durative-action build
    :parameters (?h - house)
    :duration (= ?duration 2.5)
    :condition (and (at start (planned ?h)) (at start (crew-free)))
    :effect (and (at start (not (planned ?h))) (at start (not (crew-free)))
                 (at end (crew-free)) (at end (built ?h)))))
"""
PDDL_PROBLEM = """(define (problem two) (:domain house)
  (:objects h1 h2 - house)
  (:init (planned h1) (planned h2) (crew-free))
  (:goal (and (built h1) (built h2))))
"""
NAMES = ["in", "Tea", "Toast", "oven", "a b", "a_b", "step", "recipe2plan", "", " ", "\n", "x\u2028y", "\"", "\\",
         "Ünï-cøde", "1x", "-", "x" * 300, "\x00", "temperature", "Toast_Tea", "agent1", "min"]
PDDL_NUMBERS = ["1e400", "1" + "0" * 99, "0.000000000000000000000000000000000000000000001", "٣", "1/3", "-2",
                "(/ 1 3)", "2.5", "0"]
EPISODE_OBJECTS = [("b04_bowl_smooth", "Kitchen", 5.0, 1.0, "bowl"), ("b04_orange_00", "Kitchen", 4.0, 0.5, "orange"),
                   ("apple", "Livingroom", 0.5, 0.0, "apple"), ("b03_burger", "Livingroom", -1.0, 1.0, "burger"),
                   ("f10_apple_iphone_4", "Bedroom", 1.0, 9.0, "phone"),
                   ("basket_18inx18inx12iin_wicker", "Office", 0.0, 8.0, "basket")]
EPISODE = [{"$type": "add_object", "name": n, "position": {"x": x, "y": 0.0, "z": z}, "category": c, "id": i}
           for i, (n, _r, x, z, c) in enumerate(EPISODE_OBJECTS)]
METADATA = {"floorplan_scene_name": "2a", "floorplan_layout": 0,
            "object_room_list": [[n, r] for n, r, *_ in EPISODE_OBJECTS],
            "food": {"target": 3, "container": 1}, "stuff": {"target": 1, "container": 1},
            "0": {"x": 0.0, "y": 0.0, "z": 0.0}, "1": {"x": 5.0, "y": 0.0, "z": 1.0}}
ROOM_TYPES = {"2": [["Kitchen", "Livingroom", "Office", "Livingroom", "Bedroom", "Porch"]]}
CATALOGUE = {"app_tools": {"Shopping Scenarios": ["Taobao"]},
             "travel_tools": {"queryFlights": {"requiredParams": {"date": {"type": "date"},
                                                                  "origin": {"type": "str"}},
                                               "optionalParams": {"seats": {"type": "int"}}}}}
PA_TASKS = [{"Operational Scenario": "API", "Scenario": "1_travel", "Task ID": 1, "Query-en": "Find a flight.",
             "User_ID": "User1", "GroundTruth": json.dumps([
                 {"MessageNumber": "1", "Query": "q"},
                 {"OrderSteps": {"TotalSteps": 1, "StepDetail": [
                     {"StepNumber": 1, "Action": "queryFlights({'date': '2025-03-21', 'origin': 'Boston'})"}]}}])}]
PROFILE = {"name": "Li", "age": 31, "home": {"city": "Boston"}, "today": "2025-03-12"}


# ------------------------------------------------------------------------------------ hostile files
def hostile_file(rnd: random.Random, path: Path, value, text=None, mutated=None) -> None:
    """Write ``value`` (or ``text``) to ``path`` in one of many hostile shapes: as JSON with a few values
    mutated (or the text with a few characters damaged), rendered damaged, truncated, deeply nested, with a
    BOM or broken UTF-8, or replace the file by a FIFO, a link to /dev/zero, a directory, nothing, or a
    sparse file over the size cap.  ``mutated``: the value to write as JSON instead of a mutation of ``value``."""
    kind = rnd.choice(["mutated"] * 8 + ["rendered"] * 3 + ["fifo", "zero", "dir", "missing", "huge", "link"])
    if kind in SPECIAL_FILES:
        make(kind, path)
    elif kind == "link":
        real = path.with_name(path.name + ".real")
        real.write_text(text if text is not None else json.dumps(value))
        path.symlink_to(real.name)
    elif text is not None:
        data = fz.mutate_text(rnd, text) if kind == "rendered" or rnd.random() < 0.3 else text
        path.write_text(data, encoding="utf-8", errors="surrogatepass")
    elif kind == "mutated":
        data = fz.mutate_value(rnd, value, max_ops=2) if mutated is None else mutated
        path.write_text(json.dumps(data), encoding="utf-8", errors="surrogatepass")
    else:
        data = fz.render(rnd, fz.mutate_value(rnd, value), python_ok=False)
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))


@contextlib.contextmanager
def watchdog(seconds: int = WATCHDOG_S):
    def expire(signum, frame):
        raise TimeoutError(f"the import blocked for {seconds} s")
    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def run_import(argv: list, out: Path) -> tuple[int, str]:
    """Run ``chronoplan import`` in this process; check the property; (exit status, stderr)."""
    err, stdout = io.StringIO(), io.StringIO()
    with watchdog(), contextlib.redirect_stderr(err), contextlib.redirect_stdout(stdout):
        code = main(["import", *map(str, argv), "-o", str(out)])
    text = err.getvalue()
    assert code in (0, 2), text
    assert "Traceback" not in text and "internal error" not in text, text
    if code == 2:
        lines = text.splitlines()
        assert len(lines) == 1 and lines[0].startswith("chronoplan import: error: "), text
    else:
        _project, diags, _ = chronoplan.compile_paths(out)
        errors = [d for d in diags if d.is_error]
        assert errors == [], (text, [f"{d.span}: {d.message}" for d in errors])
    return code, text


def _mutated_cooking(rnd: random.Random):
    """COOKING with a few structural mutations (sometimes) and a few targeted ones: durations and step
    numbers of the issue's reproducers, names and texts that are keywords, clash or hold line breaks."""
    data = fz.mutate_value(rnd, COOKING, max_ops=1) if rnd.random() < 0.3 else copy.deepcopy(COOKING)
    for _ in range(rnd.randint(1, 3)):
        try:
            recipe = rnd.choice(rnd.choice(data))
            step = rnd.choice(recipe["steps"])
            key = rnd.choice(["time", "step", "text", "recipe", "physical", "lag"])
            if key == "time":
                step["time"] = rnd.choice(DURATIONS)
            elif key == "step":
                step["step"] = rnd.choice(fz.JSON_HOSTILE + ["²", "٣", " 7 ", "1" * 30])
            elif key == "text":
                step["text"] = rnd.choice(NAMES)
            elif key == "recipe":
                recipe["recipe"] = rnd.choice(NAMES)
            elif key == "physical":
                step["physical"] = {rnd.choice(NAMES): {"require": {rnd.choice(NAMES): rnd.choice(fz.JSON_HOSTILE)},
                                                        "update": {rnd.choice(NAMES): 1}}}
            else:
                step["time_constraint"] = {str(rnd.choice([1, 2, 3])): rnd.choice(DURATIONS)}
        except (TypeError, KeyError, IndexError, AttributeError, ValueError):   # nothing to pick
            break
    return data


# ------------------------------------------------------------------------------------ the formats
@examples(40, 0.3)
@given(rnd=RANDOMS)
def test_recipe2plan(rnd):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        src = d / "cooking.json"
        hostile_file(rnd, src, COOKING, mutated=_mutated_cooking(rnd))
        lic = d / "LICENSE"
        kind = rnd.choice(["none", "text", "passwd", "fifo", "dir", "huge", "latin1", "inside", "loop"])
        if kind == "text":
            lic.write_text("Some licence\r\nline two\u2028three\x00")
        elif kind == "passwd":
            lic.symlink_to("/etc/passwd")
        elif kind == "fifo":
            os.mkfifo(lic)
        elif kind == "dir":
            lic.mkdir()
        elif kind == "huge":
            lic.write_text("x" * 70_000)
        elif kind == "latin1":
            lic.write_bytes(b"Licence \xe9")
        elif kind == "inside":
            (d / "COPYING").write_text("Inside licence")
            lic.symlink_to("COPYING")
        elif kind == "loop":
            lic.symlink_to("LICENSE")
        code, _ = run_import(["recipe2plan", src], d / "out")
        if code == 0:
            written = "".join(p.read_text() for p in (d / "out").rglob("*.chrono"))
            assert "root:" not in written
            assert ("Inside licence" in written) == (kind == "inside")


@examples(40, 0.2)
@given(rnd=RANDOMS)
def test_paracook(rnd):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        src = d / rnd.choice(["kitchen.json", "burger.json", "k\nitchen.json", "2x.json", "step.json"])
        hostile_file(rnd, src, KITCHEN)
        run_import(["paracook", src], d / "out.chrono")


@examples(25, 0.15)
@given(rnd=RANDOMS)
def test_pddl(rnd):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        domain = PDDL_DOMAIN.replace("2.5", rnd.choice(PDDL_NUMBERS)) if rnd.random() < 0.5 else PDDL_DOMAIN
        if rnd.random() < 0.2:
            domain = domain.replace(":durative-actions)", ":durative-actions " + "(:requirements :strips " * 2000 +
                                    ")")
        which = rnd.random() < 0.7
        for path, text in ((d / "domain.pddl", domain), (d / "problem.pddl", PDDL_PROBLEM)):
            if which == (path.name == "domain.pddl"):
                hostile_file(rnd, path, None, text)
            else:
                path.write_text(text)
        run_import(["pddl", d / "domain.pddl", d / "problem.pddl"], d / "out.chrono")


@examples(40, 0.2)
@given(rnd=RANDOMS, room_types=st.booleans())
def test_tdw_mat(rnd, room_types):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        ep, md, rt = d / "2a_0_0.json", d / "2a_0_0_metadata.json", d / "room_types.json"
        which = rnd.randrange(3)
        for i, (path, value) in enumerate([(ep, EPISODE), (md, METADATA), (rt, ROOM_TYPES)]):
            if i == which:
                hostile_file(rnd, path, value)
            else:
                path.write_text(json.dumps(value))
        extra = ["--room-types", rt] if room_types else []
        if rnd.random() < 0.2:
            extra += ["--bed-room", rnd.choice(["Porch", "office", "Garage", "", "\n"])]
        run_import(["tdw-mat", ep, "--metadata", md, "--task", rnd.choice(["food", "stuff"]), *extra],
                   d / "out.chrono")


@examples(30, 0.15)
@given(rnd=RANDOMS)
def test_planningarena_files(rnd):
    """The PlanningArena importer's files through the shared reader: each file hostile in shape (FIFO,
    /dev/zero, directory, missing, over the cap, damaged, truncated, deep, BOM, broken UTF-8)."""
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "users").mkdir()
        files = [(d / "tool_list.json", CATALOGUE), (d / "data.json", PA_TASKS), (d / "users" / "user_1.json", PROFILE)]
        which = rnd.randrange(3)
        for i, (path, value) in enumerate(files):
            if i == which:
                hostile_file(rnd, path, value)
            else:
                path.write_text(json.dumps(value))
        run_import(["planningarena", d / "tool_list.json", "--tasks", d / "data.json", "--profiles", d / "users"],
                   d / "out")


def test_the_unmutated_samples_import():
    """The samples the fuzzing starts from are valid: each imports (exit 0) and compiles."""
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "cooking.json").write_text(json.dumps(COOKING))
        (d / "k.json").write_text(json.dumps(KITCHEN))
        (d / "domain.pddl").write_text(PDDL_DOMAIN)
        (d / "problem.pddl").write_text(PDDL_PROBLEM)
        for path, value in [(d / "2a_0_0.json", EPISODE), (d / "2a_0_0_metadata.json", METADATA),
                            (d / "room_types.json", ROOM_TYPES), (d / "tool_list.json", CATALOGUE),
                            (d / "data.json", PA_TASKS)]:
            path.write_text(json.dumps(value))
        (d / "users").mkdir()
        (d / "users" / "user_1.json").write_text(json.dumps(PROFILE))
        for argv, out in [(["recipe2plan", d / "cooking.json"], d / "r2p"),
                          (["paracook", d / "k.json"], d / "k.chrono"),
                          (["pddl", d / "domain.pddl", d / "problem.pddl"], d / "p.chrono"),
                          (["tdw-mat", d / "2a_0_0.json", "--metadata", d / "2a_0_0_metadata.json", "--task", "food",
                            "--room-types", d / "room_types.json"], d / "t.chrono"),
                          (["planningarena", d / "tool_list.json", "--tasks", d / "data.json", "--profiles",
                            d / "users"], d / "pa")]:
            code, err = run_import(argv, out)
            assert code == 0, (argv[0], err)
