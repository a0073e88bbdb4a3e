"""The exit-status table of docs/cli.md, command by command (#16 finding 10): every cell that is not "-" is run
here, every case here is a cell of the table, and 3/130/143 hold for every command."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
import r2pdata
from test_cpsat import TINY

from chronoplan import cli
from chronoplan.cli import main

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ROOT / "domains" / "recipes"
SCEN = "Roast-Chicken_Garlic-Potatoes"
ONE = 'procedure P {\n  step 0 "Stir." 1 min\n}\nscenario one { unit min  agents cook  procedures P }\n'


def table() -> dict:
    """{command: {status: description}} from the exit-status table of docs/cli.md."""
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    block = text[text.index("## Exit status"):]
    out: dict = {}
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"[a-z]+", cells[0]) and cells[0] != "command":
            out[cells[0]] = {code: what for code, what in zip((0, 1, 2), cells[1:]) if what != "-"}
    return out


def files(tmp: Path) -> dict:
    bad = tmp / "bad.chrono"
    bad.write_text("domain x {\n  bogus\n}\n")
    one, tiny, late = tmp / "one.chrono", tmp / "tiny.chrono", tmp / "late.chrono"
    one.write_text(ONE)
    tiny.write_text(TINY)
    late.write_text(TINY.replace("needs temperature = 200", "needs temperature = 300"))
    return {"bad": bad, "one": one, "tiny": tiny, "late": late, "out": tmp / "out"}


# (command, status) -> (argv, stdin); paths named {key} come from files()
CASES = {
    ("check", 0): (["check", str(RECIPES)], None),
    ("check", 1): (["check", "{bad}"], None),
    ("check", 2): (["check", "{out}/missing.chrono"], None),
    ("list", 0): (["list", str(RECIPES)], None),
    ("prompt", 0): (["prompt", str(RECIPES), "--scenario", SCEN], None),
    ("prompt", 2): (["prompt", str(RECIPES), "--scenario", "nope"], None),
    ("list", 2): (["list", "{bad}"], None),
    ("schema", 0): (["schema", str(RECIPES), "--scenario", SCEN], None),
    ("schema", 2): (["schema", str(RECIPES), "--scenario", "nope"], None),
    ("validate", 0): (["validate", str(RECIPES), str(RECIPES / "plans" / "valid.json")], None),
    ("validate", 1): (["validate", str(RECIPES), str(RECIPES / "plans" / "faulty.json"), "{out}/none.json"], None),
    ("validate", 2): (["validate", str(RECIPES), "{out}"], None),                # a folder without plans
    ("render", 0): (["render", str(RECIPES), str(RECIPES / "plans" / "faulty.json"), "-o", "{out}/f.html"], None),
    ("render", 2): (["render", "{bad}", str(RECIPES / "plans" / "faulty.json"), "-o", "{out}/g.html"], None),
    ("solve", 0): (["solve", "{tiny}", "--format", "json"], None),
    ("solve", 1): (["solve", "{late}", "--format", "json"], None),
    ("solve", 2): (["solve", "{tiny}", "--planner", "nope"], None),
    ("import", 0): (["import", "recipe2plan", str(r2pdata.DATA / "cooking.json"), "-o", "{out}/imported",
                     "--format", "json"], None),
    ("import", 2): (["import", "nope", "{tiny}", "-o", "{out}/x.chrono"], None),
    ("play", 0): (["play", "{one}"], "Stir.\n"),
    ("play", 1): (["play", "{one}"], "wait 5 min\n"),
    ("play", 2): (["play", "{one}", "--scenario", "nope"], ""),
    ("pddl", 0): (["pddl", str(RECIPES), "--scenario", SCEN, "-o", "{out}/pddl", "--format", "json"], None),
    ("pddl", 2): (["pddl", str(ROOT / "domains" / "tools" / "shopping.chrono"), "-o", "{out}/pddl2", "--format",
                   "json"], None),
}


def test_every_cell_of_the_table_has_a_case_and_every_case_a_cell():
    documented = {(cmd, code) for cmd, codes in table().items() for code in codes}
    assert documented == set(CASES)
    assert set(table()) == set(cli.COMMANDS)


@pytest.mark.parametrize("command,status", sorted(CASES))
def test_exit_status(tmp_path, monkeypatch, capsys, command, status):
    paths = {k: str(v) for k, v in files(tmp_path).items()}
    (tmp_path / "out").mkdir()
    argv, stdin = CASES[(command, status)]
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    got = main([a.format(**paths) for a in argv])
    out, err = capsys.readouterr()
    assert got == status, (argv, out[-2000:], err[-2000:])
    assert "Traceback" not in err
    if "--format" in argv and command in ("pddl", "import"):        # the JSON summary, also on failure
        summary = json.loads(out)
        assert summary["ok"] is (status == 0) and (summary["error"] is None) is (status == 0)
        assert summary["files"] and all(Path(f).is_file() for f in summary["files"]) if status == 0 else \
            summary["files"] == []


@pytest.mark.parametrize("command", sorted(cli.COMMANDS))
@pytest.mark.parametrize("raised,status", [(RuntimeError("boom"), 3), (KeyboardInterrupt(), 130),
                                           (cli.Terminated(), 143)])
def test_internal_errors_and_signals(monkeypatch, capsys, command, raised, status):
    def run(args):
        raise raised
    module = cli._load(command)
    monkeypatch.setattr(module, "run", run)
    argv = {"validate": ["x", "y"], "render": ["x", "y", "-o", "z.html"], "import": ["recipe2plan", "x", "-o", "y"],
            "pddl": ["x", "-o", "y"], "check": ["x"], "list": ["x"]}.get(command, ["x"])
    assert main([command, *argv]) == status
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip()


def test_a_command_module_that_does_not_import_is_an_internal_error(monkeypatch, capsys):
    """Command modules ship with chronoplan: a failing import is a bug (exit 3), never "not available"."""
    monkeypatch.setitem(cli.COMMANDS, "check", ("chronoplan.commands._no_such_module", "check files"))
    assert main(["check", str(RECIPES)]) == 3
    err = capsys.readouterr().err
    assert "chronoplan check: internal error: ModuleNotFoundError" in err and "not available" not in err
    assert "Traceback" not in err
