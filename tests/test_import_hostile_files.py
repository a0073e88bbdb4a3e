"""Every importer reads regular files only, bounded (issue 28 items 6 and 7; compiler/importers/common.py).

A FIFO as an input blocked every importer forever and /dev/zero was read until memory ran out (MemoryError,
exit 3); now each is a located exit-2 error, found with fstat on a descriptor opened with O_NONBLOCK before
anything is read.  The imports run as subprocesses with a timeout and a 2 GiB address-space limit, so that a
regression fails here instead of blocking the suite or exhausting the machine.  Recipe2Plan's LICENSE beside
the source is never followed out of the source's directory nor read when it is not a regular file.  Values
that the language cannot hold (a duration "٣ min", 100 digits, a step number "²") are located errors, and
converted text that would not compile is never written.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from chronoplan.cli import main
from chronoplan.commands import importer
from chronoplan.compiler.importers import ImportFormatError, common
from chronoplan.compiler.importers.common import MAX_BYTES, read_json, read_source

LIMIT_AS = 2 * 1024 ** 3
COOKING = [[{"recipe": "Toast", "steps": [{"step": 1, "text": "Slice.", "time": "2 min"},
                                          {"step": 2, "text": "Toast.", "time": "3 min", "prequisites": [1]}]}]]


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))


def run(*args, timeout=120):
    """``chronoplan import ...`` in a subprocess (timeout, memory limit); a block or a runaway read fails."""
    try:
        return subprocess.run([sys.executable, "-m", "chronoplan.cli", "import", *map(str, args)],
                              capture_output=True, text=True, timeout=timeout, preexec_fn=_limited)
    except subprocess.TimeoutExpired:
        pytest.fail(f"chronoplan import {' '.join(map(str, args))} blocked for {timeout} s")


SPECIAL_FILES = ("fifo", "zero", "dir", "huge")


def make(kind: str, path: Path) -> Path:
    """Put a file of ``kind`` (one of ``SPECIAL_FILES``: a FIFO, a link to /dev/zero, a directory, a sparse file
    over the size cap) at ``path`` (also used by tests/test_fuzz_importers.py)."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "dir":
        path.mkdir()
    elif kind == "huge":
        with open(path, "wb") as f:
            f.truncate(MAX_BYTES + 1)                 # sparse
    return path


MESSAGES = {"fifo": "is a named pipe (FIFO)", "zero": "is a character device", "dir": "is a directory",
            "huge": "larger than 64 MiB"}


def _inputs(tmp_path: Path, fmt: str, bad: Path) -> list:
    """The command line of ``fmt`` with ``bad`` as its main input (the others valid)."""
    good = tmp_path / "good.json"
    good.write_text(json.dumps({}))
    if fmt == "recipe2plan":
        return ["recipe2plan", bad, "-o", tmp_path / "out"]
    if fmt == "paracook":
        return ["paracook", bad, "-o", tmp_path / "out.chrono"]
    if fmt == "pddl":
        problem = tmp_path / "p.pddl"
        problem.write_text("(define (problem p) (:domain d) (:init) (:goal (and)))")
        return ["pddl", bad, problem, "-o", tmp_path / "out.chrono"]
    if fmt == "tdw-mat":
        return ["tdw-mat", good, "--metadata", bad, "--task", "food", "-o", tmp_path / "out.chrono"]
    return ["planningarena", bad, "-o", tmp_path / "out"]


@pytest.mark.parametrize("kind", ["fifo", "zero", "dir", "huge"])
@pytest.mark.parametrize("fmt", ["recipe2plan", "paracook", "pddl", "tdw-mat", "planningarena"])
def test_an_input_that_is_not_a_regular_file_is_a_located_error(tmp_path, fmt, kind):
    bad = make(kind, tmp_path / ("in.pddl" if fmt == "pddl" else "in.json"))
    r = run(*_inputs(tmp_path, fmt, bad))
    assert r.returncode == 2, r.stderr
    assert r.stderr == f"chronoplan import: error: {bad}: {r.stderr.split(f'{bad}: ', 1)[1]}"
    assert MESSAGES[kind] in r.stderr and "Traceback" not in r.stderr


def test_tdw_mat_room_types_fifo(tmp_path):
    ep, md = tmp_path / "e.json", tmp_path / "m.json"
    ep.write_text(json.dumps([{"$type": "add_object", "name": "apple", "position": {"x": 0, "z": 0}}]))
    md.write_text(json.dumps({"object_room_list": [["apple", "Kitchen"]], "0": {"x": 0, "z": 0}}))
    rt = make("fifo", tmp_path / "room_types.json")
    r = run("tdw-mat", ep, "--metadata", md, "--task", "food", "--room-types", rt, "-o", tmp_path / "o.chrono")
    assert r.returncode == 2 and f"{rt}: is a named pipe (FIFO)" in r.stderr, r.stderr


def test_planningarena_profile_fifo(tmp_path):
    (tmp_path / "tools.json").write_text(json.dumps({"travel_tools": {"q": {"requiredParams": {}}}}))
    (tmp_path / "data.json").write_text(json.dumps([{"Scenario": "1_travel", "Task ID": 1, "User_ID": "User1",
                                                     "Query-en": "x"}]))
    (tmp_path / "users").mkdir()
    make("fifo", tmp_path / "users" / "user_1.json")
    r = run("planningarena", tmp_path / "tools.json", "--tasks", tmp_path / "data.json", "--profiles",
            tmp_path / "users", "-o", tmp_path / "out")
    assert r.returncode == 2 and "user_1.json: is a named pipe (FIFO)" in r.stderr, r.stderr


# ------------------------------------------------------------------ the shared reader itself
def test_reader_bounds_and_kinds(tmp_path):
    small = tmp_path / "small.json"
    small.write_text('\ufeff{"a": [1, 2.5]}')
    assert read_json(small) == {"a": [1, 2.5]}
    with pytest.raises(ImportFormatError, match=r"larger than 1 KiB \(the limit for a text\)"):
        small.write_text("x" * 1025)
        read_source(small, "a text", limit=1024)
    with pytest.raises(ImportFormatError, match="a symbolic link"):
        (tmp_path / "link").symlink_to(small)
        read_source(tmp_path / "link", "a text", follow=False)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(ImportFormatError, match="deep.json: invalid JSON: maximum recursion depth exceeded"):
        read_json(deep)
    big = tmp_path / "big.json"
    big.write_text('{"x":\n  [1, 1e400]}')
    with pytest.raises(ImportFormatError, match=r"big.json:2:7: invalid JSON: the number 1e400 is beyond"):
        read_json(big)


# ------------------------------------------------------------------ Recipe2Plan's LICENSE (item 6)
@pytest.fixture()
def cooking(tmp_path):
    src = tmp_path / "data" / "cooking.json"
    src.parent.mkdir()
    src.write_text(json.dumps(COOKING))
    return src


def _written(out: Path) -> str:
    return "".join(p.read_text() for p in sorted(out.rglob("*.chrono")))


@pytest.mark.parametrize("kind, why", [
    ("passwd", "is a link that leads out of the source's directory"),
    ("outside", "is a link that leads out of the source's directory"),
    ("fifo", "is a named pipe (FIFO)"),
    ("dir", "is a directory"),
    ("huge", "larger than 64 KiB"),
    ("loop", "is a broken or looping link"),
])
def test_a_licence_file_that_is_not_a_plain_file_inside_is_not_read(cooking, tmp_path, kind, why):
    lic = cooking.parent / "LICENSE"
    if kind == "passwd":
        lic.symlink_to("/etc/passwd")
    elif kind == "outside":
        secret = tmp_path / "secret_key"
        secret.write_text("PRIVATE KEY 1234")
        lic.symlink_to(secret)
    elif kind == "huge":
        lic.write_text("MIT\n" * 20_000)
    elif kind == "loop":
        lic.symlink_to("LICENSE")
    else:
        make(kind, lic)
    out = tmp_path / "out"
    r = run("recipe2plan", cooking, "-o", out)
    assert r.returncode == 0, r.stderr
    assert f"warning: {lic}: LICENSE: {lic}: the licence file {why}" in r.stderr or \
        f"warning: {lic}: LICENSE: {lic}: {why}" in r.stderr, r.stderr
    text = _written(out)
    assert "root:" not in text and "PRIVATE KEY" not in text
    assert "Copyright (c) 2025 Zirui Wu" in text                      # the bundled notice instead


def test_a_licence_inside_the_directory_is_used(cooking, tmp_path):
    (cooking.parent / "COPYING").write_text("Our licence\nline two")
    (cooking.parent / "LICENSE").symlink_to("COPYING")
    out = tmp_path / "out"
    assert main(["import", "recipe2plan", str(cooking), "-o", str(out)]) == 0
    assert "# Our licence\n# line two" in (out / "recipes.chrono").read_text()
    assert common.read_beside(cooking, "NOTHING", "x") is None


# ------------------------------------------------------------------ values the language cannot hold (item 7)
@pytest.mark.parametrize("field, value, message", [
    ("time", "٣ min", "cannot read the duration '٣ min'"),
    ("time", "1" + "0" * 99 + " sec", "its number has more than 40 digits"),
    ("time", "1e400 min", "cannot read the duration '1e400 min'"),
    ("step", "²", "expected a step number (ASCII digits), got '²'"),
])
def test_recipe2plan_values_beyond_the_language_are_located_errors(tmp_path, capsys, field, value, message):
    data = json.loads(json.dumps(COOKING))
    data[0][0]["steps"][0][field] = value
    src = tmp_path / "cooking.json"
    src.write_text(json.dumps(data))
    assert main(["import", "recipe2plan", str(src), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"{src}: instance 0 recipe 0 (Toast) step 0" in err and message in err, err
    assert not (tmp_path / "out").exists()


def test_a_recipe_named_like_its_scenario_is_renamed(tmp_path, capsys):
    """A one-recipe instance's key is the recipe's name: the scenario may not take the procedure's name."""
    src = tmp_path / "cooking.json"
    src.write_text(json.dumps(COOKING))
    assert main(["import", "recipe2plan", str(src), "-o", str(tmp_path / "out")]) == 0
    assert "scenario Toast_2 {" in (tmp_path / "out" / "instances.chrono").read_text()


def test_text_that_does_not_compile_is_never_written(tmp_path, monkeypatch, capsys):
    """The last guard: whatever a converter returns is compiled before it is written."""
    src = tmp_path / "cooking.json"
    src.write_text(json.dumps(COOKING))
    fake = type("Fake", (), {"convert": staticmethod(lambda sources, **o: {"recipes.chrono": "step 1 ٣ min\n"})})
    monkeypatch.setattr(importer, "load_format", lambda name: fake)
    out = tmp_path / "out"
    assert main(["import", "recipe2plan", str(src), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("chronoplan import: error: the converted text does not compile, nothing was written: "
                          f"{out / 'recipes.chrono'}:1:1: error[C"), err
    assert not out.exists()


KITCHEN = {"width": 4, "height": 3, "agents": [{"name": "alice", "x": 1, "y": 1}],
           "tiles": [{"x": 0, "y": 0, "type": "station", "name": "dispenser_bread", "provides": "bread"},
                     {"x": 1, "y": 0, "type": "station", "name": "dispenser_meat", "provides": "meat"},
                     {"x": 2, "y": 0, "type": "station", "name": "stove1", "item": "pan"},
                     {"x": 3, "y": 0, "type": "station", "name": "table1", "item": "plate"},
                     {"x": 0, "y": 2, "type": "station", "name": "serving_window"}],
           "orders": ["burger_basic"]}


@pytest.mark.parametrize("fmt", ["recipe2plan", "paracook"])
def test_a_file_name_with_a_line_break_stays_in_its_comment(tmp_path, capsys, fmt):
    """The source's name is written into the header comment: a line break in it broke the comment (the rest
    of the name became code that did not compile)."""
    src = tmp_path / "my\nkitchen\u2028.json"
    src.write_text(json.dumps(COOKING if fmt == "recipe2plan" else KITCHEN))
    out = tmp_path / ("out" if fmt == "recipe2plan" else "out.chrono")
    assert main(["import", fmt, str(src), "-o", str(out)]) == 0, capsys.readouterr().err
    text = _written(out) if out.is_dir() else out.read_text()
    assert "my?kitchen?.json" in text
    assert main(["check", str(out)]) == 0
