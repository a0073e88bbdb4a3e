"""Hostile domain files (issue #17): every finding of the robustness review, pinned.

Input: crafted ``.chrono`` texts (huge maps, long lines, odd line breaks, long numbers, hostile imports,
undecodable bytes, planted parser caches).  Output: ``chronoplan check`` (and the other commands) answer
with located diagnostics ``FILE:LINE:COL: error[CODE]: message``, bounded output and the documented exit
status, never a traceback.  Sizes are asserted, not wall-clock times.
"""
import os
import re
import stat
from pathlib import Path

import pytest

from chronoplan.cli import main
from chronoplan.compiler import diagnostics as D
from chronoplan.compiler.driver import compile_paths

LOCATED = re.compile(r"^[^:\n]+:\d+:\d+: error\[[CW]\d{3}\]: ", re.M)


def check(capsys, monkeypatch, tmp_path, text, name="k.chrono", args=()):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    status = main(["check", *args, name])
    out = capsys.readouterr()
    return status, out.out, out.err


# 3. output linear in the input ------------------------------------------------------------------------------

def test_one_row_map_of_20000_cells_is_one_bounded_diagnostic(capsys, monkeypatch, tmp_path):
    status, out, err = check(capsys, monkeypatch, tmp_path, 'domain k\nmap m """\n' + "Z" * 20000 + '\n"""\n')
    assert status == 1
    assert err.count("error[") == 1
    assert "k.chrono:2:5: error[C111]: map 'm' is 20000 cells wide and 1 high; a map has at most 1000" in err
    assert len(err) < 2000                       # was 603 MB: 20,001 diagnostics each reprinting the row


def test_run_of_unknown_symbols_is_one_diagnostic(capsys, monkeypatch, tmp_path):
    status, out, err = check(capsys, monkeypatch, tmp_path, 'domain k\nmap m """\n' + "Z" * 1000 + '\n"""\n')
    assert status == 1
    assert err.count("error[C302]") == 1 and "1000 cells in a row" in err
    assert len(err) < 2000


def test_alternating_unknown_symbols_are_capped_per_map(capsys, monkeypatch, tmp_path):
    status, out, err = check(capsys, monkeypatch, tmp_path, 'domain k\nmap m """\n' + "ZY" * 500 + '\n"""\n')
    assert status == 1
    assert err.count("error[C302]") == 101 and "900 more runs of unknown symbols" in err
    assert len(err) < 101 * 400


def test_tall_map_is_refused(capsys, monkeypatch, tmp_path):
    status, out, err = check(capsys, monkeypatch, tmp_path, 'domain k\nmap m """\n' + ".\n" * 1001 + '"""\n')
    assert status == 1 and "error[C111]: map 'm' is 1 cells wide and 1001 high" in err


def test_number_of_printed_diagnostics_is_capped(capsys, monkeypatch, tmp_path):
    n = 3000
    text = "domain d\n" + "".join(f"const C{i} = U{i}\n" for i in range(n))
    status, out, err = check(capsys, monkeypatch, tmp_path, text)
    assert status == 1
    assert err.count("error[C101]") == D.MAX_SHOWN
    assert f"{n - D.MAX_SHOWN} more errors not shown" in err
    assert f"{n} errors" in out                  # the summary still counts them all
    assert len(err) < D.MAX_SHOWN * 300


def test_long_line_shows_a_window_with_the_caret_under_the_column(capsys, monkeypatch, tmp_path):
    text = "domain d\nconst X = " + "Q" * 2_000_000 + "\nconst Y = " + "1 + " * 50_000 + "W\n"
    status, out, err = check(capsys, monkeypatch, tmp_path, text)
    assert status == 1
    assert len(err) < 3000                       # was twice the line (message, source line, caret)
    assert "more characters)" in err             # the message quoting the 2 MB name is clipped
    col = 11 + 4 * 50_000
    assert f"k.chrono:3:{col}: error[C101]: undefined name 'W'" in err
    lines = err.splitlines()
    i = next(i for i, ln in enumerate(lines) if ln.startswith(f"k.chrono:3:{col}"))
    shown, caret = lines[i + 1], lines[i + 2]
    assert shown.startswith("  ...") and len(shown) <= D.SNIPPET_WIDTH + 10
    assert shown[caret.index("^")] == "W"


def test_window_keeps_short_lines_and_tabs():
    assert D._window("abc", 2, 1) == ("abc", 2, 1)
    line = "x" * 500 + "Y" + "x" * 500
    shown, col, width = D._window(line, 501, 1)
    assert shown[col - 1] == "Y" and shown.startswith("...") and shown.endswith("...")


# 4. line numbers agree with lark (only "\n" ends a line) ----------------------------------------------------

@pytest.mark.parametrize("brk", ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_snippet_line_after_unicode_line_breaks(capsys, monkeypatch, tmp_path, brk):
    status, out, err = check(capsys, monkeypatch, tmp_path, f"domain d\n#{brk}x\nconst X = Y\n")
    assert "k.chrono:3:11: error[C101]" in err
    assert "  const X = Y\n            ^" in err


def test_snippet_with_crlf_line_ends(capsys, monkeypatch, tmp_path):
    status, out, err = check(capsys, monkeypatch, tmp_path, "domain d\r\n\r\nconst X = Y\r\n")
    assert "k.chrono:3:11: error[C101]" in err
    assert "  const X = Y\n            ^\n" in err


# 5. number literals are bounded ------------------------------------------------------------------------------

@pytest.mark.parametrize("literal", ["9" * 5000, "1." + "9" * 5000, "0." + "0" * 4400 + "1", "9" * 41])
def test_long_number_literal_is_a_located_diagnostic(capsys, monkeypatch, tmp_path, literal):
    status, out, err = check(capsys, monkeypatch, tmp_path, f"domain d\nconst X = {literal}\n")
    assert status == 1
    assert "k.chrono:2:11: error[C111]: number " in err and "has more than 40 digits" in err
    assert "Traceback" not in err and "internal error" not in err


@pytest.mark.parametrize("where", ["resource r capacity {n}\n", 'procedure P {{ step {n} "a" 1 min }}\n',
                                   "type t\ncontainer c capacity {n} accepts t\n"])
def test_long_integer_literal_in_every_position(capsys, monkeypatch, tmp_path, where):
    status, out, err = check(capsys, monkeypatch, tmp_path, "domain d\n" + where.format(n="7" * 5000))
    assert status == 1 and "error[C111]" in err and "internal error" not in err


@pytest.mark.parametrize("command", ["list", "schema", "solve", "play"])
def test_long_number_literal_in_other_commands(capsys, monkeypatch, tmp_path, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.chrono").write_text("domain d\nconst X = " + "9" * 5000 + "\n")
    status = main([command, "k.chrono"])
    err = capsys.readouterr().err
    assert status == 2 and "k.chrono:2:11: error[C111]" in err and "internal error" not in err


def test_non_ascii_digits_are_refused(capsys, monkeypatch, tmp_path):
    status, out, err = check(capsys, monkeypatch, tmp_path, "domain d\nconst X = \u0661\u0662\n")
    assert status == 1 and "k.chrono:2:11: error[C111]: number \u0661\u0662 uses non-ASCII digits" in err


# 1. the parser cache is private ------------------------------------------------------------------------------

@pytest.fixture
def fresh_parser(monkeypatch, tmp_path):
    """parser() rebuilt inside the test with the temporary directory and XDG_CACHE_HOME under tmp_path."""
    import tempfile

    from chronoplan.compiler import parse as P
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(shared))
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    P.parser.cache_clear()
    yield P, shared
    P.parser.cache_clear()


def _record_lark(monkeypatch, P):
    import lark
    calls, opened = [], []
    real_lark, real_open = P.Lark, lark.lark.FS.open

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return real_lark(*args, **kwargs)

    def spy_open(name, mode="r", **kw):
        opened.append(str(name))
        return real_open(name, mode, **kw)
    monkeypatch.setattr(P, "Lark", spy)
    monkeypatch.setattr(lark.lark.FS, "open", spy_open)
    return calls, opened


def test_parser_cache_is_a_private_file_never_the_temp_dir(fresh_parser, monkeypatch, tmp_path):
    P, shared = fresh_parser
    import getpass
    import sys
    planted = [shared / f".lark_cache_{getpass.getuser()}_{'0' * 64}_{sys.version_info[0]}_{sys.version_info[1]}.tmp"]
    for p in planted:
        p.write_bytes(b"not a pickle")
    calls, opened = _record_lark(monkeypatch, P)
    for _ in range(2):                           # first run writes the cache, second reads it
        P.parser.cache_clear()
        assert P.parser().parse("domain d\n") is not None
    private = tmp_path / "xdg" / "chronoplan"
    assert all(isinstance(c["cache"], str) and c["cache"].startswith(str(private) + os.sep) for c in calls)
    assert opened and all(o.startswith(str(private) + os.sep) for o in opened)
    assert not any(o.startswith(str(shared)) for o in opened)
    assert stat.S_IMODE(private.stat().st_mode) == 0o700
    assert os.listdir(shared) == [planted[0].name]


@pytest.mark.parametrize("bad", ["dir777", "dir750", "file666", "symlink"])
def test_parser_cache_refused_when_not_private(fresh_parser, monkeypatch, tmp_path, bad):
    P, shared = fresh_parser
    from chronoplan.compiler import parse_cache
    private = tmp_path / "xdg" / "chronoplan"
    if bad == "symlink":
        (tmp_path / "xdg").mkdir()
        other = tmp_path / "elsewhere"
        other.mkdir(mode=0o700)
        private.symlink_to(other)
    else:
        private.mkdir(parents=True)
        os.chmod(private, {"dir777": 0o777, "dir750": 0o750}.get(bad, 0o700))
    if bad == "file666":
        target = parse_cache.cache_file(P.GRAMMAR_PATH.read_text())
        open(target, "wb").write(b"planted")
        os.chmod(target, 0o666)
    calls, opened = _record_lark(monkeypatch, P)
    assert P.parser().parse("domain d\n") is not None
    assert calls == [dict(calls[0], cache=False)] and opened == []



# 2. imports name .chrono files only ------------------------------------------------------------------

@pytest.mark.parametrize("target, rule", [
    ("/etc/passwd", "must name a .chrono file"),
    ("../../../../../../../../etc/passwd", "must name a .chrono file"),
    ("notes.txt", "must name a .chrono file"),
    ("a\x00b.chrono", "control characters"),
    ("x" * 5000 + ".chrono", "at most 1000 characters"),
])
def test_import_rule_violations_are_located_and_not_read(capsys, monkeypatch, tmp_path, target, rule):
    (tmp_path / "notes.txt").write_text("SECRET-LINE that must not be quoted\n")
    status, out, err = check(capsys, monkeypatch, tmp_path, f'domain d\nimport "{target}"\n')
    assert status == 1
    assert "k.chrono:2:1: error[C108]: invalid import " in err and rule in err
    assert "SECRET" not in err and "root:" not in err and "internal error" not in err


def test_import_of_a_symlink_to_a_non_domain_file_is_refused(capsys, monkeypatch, tmp_path):
    (tmp_path / "secret.txt").write_text("SECRET-LINE\n")
    (tmp_path / "link.chrono").symlink_to(tmp_path / "secret.txt")
    status, out, err = check(capsys, monkeypatch, tmp_path, 'domain d\nimport "link.chrono"\n')
    assert status == 1 and "k.chrono:2:1: error[C108]" in err and "SECRET" not in err


@pytest.mark.parametrize("target", ["y" * 900 + ".chrono", "d/" * 300 + "x.chrono"])
def test_import_names_the_filesystem_refuses_are_not_found(capsys, monkeypatch, tmp_path, target):
    status, out, err = check(capsys, monkeypatch, tmp_path, f'domain d\nimport "{target}"\n')
    assert status == 1 and "k.chrono:2:1: error[C108]: import not found" in err and "internal error" not in err


def test_parent_relative_imports_still_work(tmp_path):
    (tmp_path / "gen").mkdir()
    (tmp_path / "common.chrono").write_text("domain d\nconst A = 1\n")
    (tmp_path / "gen" / "k.chrono").write_text('domain d\nimport "../common.chrono"\nconst B = A + 1\n')
    project, diags, sources = compile_paths(tmp_path / "gen" / "k.chrono")
    assert not [d for d in diags if d.is_error] and "B" in project.constants


def test_import_falls_back_to_the_bundled_domains(tmp_path):
    (tmp_path / "k.chrono").write_text('domain paracook\nimport "paracook/physics.chrono"\n')
    project, diags, sources = compile_paths(tmp_path / "k.chrono")
    assert not [d for d in diags if d.is_error]
    assert any(f.endswith("physics.chrono") for f in sources)


def test_import_search_path_order(tmp_path, monkeypatch):
    """Next to the file, then CHRONOPLAN_PATH (in order), then the bundled domains (#16 finding 8)."""
    lib1, lib2, work = tmp_path / "lib1", tmp_path / "lib2", tmp_path / "work"
    for d in (lib1 / "shared", lib2 / "shared", work):
        d.mkdir(parents=True)
    (lib1 / "shared" / "c.chrono").write_text("domain d\nconst FROM = 1\n")
    (lib2 / "shared" / "c.chrono").write_text("domain d\nconst FROM = 2\n")
    (work / "k.chrono").write_text('domain d\nimport "shared/c.chrono"\nconst X = FROM\n')
    monkeypatch.setenv("CHRONOPLAN_PATH", f"{tmp_path / 'missing'}:{lib2}:{lib1}")
    project, diags, sources = compile_paths(work / "k.chrono")
    assert not [d for d in diags if d.is_error]
    assert any(str(lib2) in f for f in sources) and not any(str(lib1) in f for f in sources)
    (work / "shared").mkdir()
    (work / "shared" / "c.chrono").write_text("domain d\nconst FROM = 3\n")
    project, diags, sources = compile_paths(work / "k.chrono")
    assert any(str(work / "shared") in f for f in sources)
    # the bundled domains come last: a CHRONOPLAN_PATH entry may shadow them
    (lib1 / "paracook").mkdir()
    (lib1 / "paracook" / "physics.chrono").write_text("domain paracook\nconst MINE = 1\n")
    (work / "p.chrono").write_text('domain paracook\nimport "paracook/physics.chrono"\n')
    monkeypatch.setenv("CHRONOPLAN_PATH", str(lib1))
    project, diags, sources = compile_paths(work / "p.chrono")
    assert "MINE" in project.constants


def test_a_failed_import_hides_its_follow_on_errors(capsys, monkeypatch, tmp_path):
    """#16 finding 8: a mistyped import gave C108 and a cascade of undefined names (a misleading C401)."""
    text = ('domain paracook\nimport "paracook/physic.chrono"\nmap small """\n  ..B\n""" where B = dispenser(bread)\n'
            'scenario s { map small  agents a1 at (0, 0)  orders burger_basic }\n')
    status, out, err = check(capsys, monkeypatch, tmp_path, text)
    assert status == 1 and "checked 1 file: 1 error," in out
    assert "error[C108]: import not found: paracook/physic.chrono" in err
    assert "note: 4 follow-on errors about undefined names are hidden until this import is fixed" in err
    assert "C101" not in err and "C401" not in err


def test_a_unitless_lag_is_pointed_at_and_its_procedure_hides_the_follow_on_c401(capsys, monkeypatch, tmp_path):
    """issue 28 item 19: C106 put its caret on step 0's duration, not on the unitless lag of step 2, and the
    scenario's C401 "names unknown procedure 'P' (it has errors)" was counted as a second error."""
    text = ('procedure P {\n  step 0 "Boil water." 10 min\n  step 1 "Add pasta." 2 min after 0\n'
            '  step 2 "Drain." 1 min within 5 of 1\n}\nscenario s { unit min procedures P }\n'
            'scenario t { unit min procedures P }\n')
    status, out, err = check(capsys, monkeypatch, tmp_path, text)
    assert status == 1 and "checked 1 file: 1 error, 0 warnings" in out
    assert re.findall(r":(\d+):(\d+): error\[(\w+)\]", err) == [("4", "32", "C106")]
    assert "this one has no time unit, 3 others have one" in err
    assert "2 follow-on errors about the scenarios that name procedure 'P' are hidden until this procedure is " \
           "fixed" in err and "C401" not in err
    unit_step = text.replace(" min\n", "\n").replace(" min after", " after").replace("1 min within 5",
                                                                                            "1 within 5 min")
    status, out, err = check(capsys, monkeypatch, tmp_path, unit_step)      # the lag is the one with a unit
    assert re.findall(r":(\d+):(\d+): error\[(\w+)\]", err) == [("4", "28", "C106")]
    assert "this one has a time unit, 3 others have none" in err
    status, out, err = check(capsys, monkeypatch, tmp_path, text.replace("procedures P }\nscenario t",
                                                                         "procedures Q }\nscenario t"))
    assert "error[C401]: scenario 's' names unknown procedure 'Q'" in err     # not a follow-on: still reported
    assert "1 follow-on error about the scenarios that name procedure 'P' is hidden" in err


BUNDLED_KITCHEN = Path(__file__).resolve().parent.parent / "domains" / "paracook" / "kitchen.chrono"


@pytest.mark.parametrize("root,old,new", [
    ("C302", "  ....B...M.", "  Z...B...M."),                  # an unknown map symbol
    ("C101", "C = chopping_board", "C = choping_board"),       # a misspelled station type in the legend
])
def test_a_broken_map_hides_its_follow_on_errors(capsys, monkeypatch, tmp_path, root, old, new):
    """#16 finding 8: a map with an error also gave 2x C401 "names unknown map 'small' (it has errors)" and
    3x C402 "agent positions need a map" (two scenarios, three agents); only the map's error remains, with
    the count of the others as a note."""
    text = BUNDLED_KITCHEN.read_text(encoding="utf-8")
    assert text.count(old) == 1 and 'import "physics.chrono"' in text
    text = text.replace(old, new).replace('import "physics.chrono"', 'import "paracook/physics.chrono"')
    status, out, err = check(capsys, monkeypatch, tmp_path, text)
    assert status == 1 and "checked 2 files: 1 error, 0 warnings" in out
    assert set(re.findall(r"error\[(\w+)\]", err)) == {root} and err.count("error[") == 1
    note = "note: 5 follow-on errors about the scenarios on map 'small' are hidden until this map is fixed"
    assert err.count(note) == 1 and "C401" not in err and "C402" not in err
    project, diags, _ = compile_paths(tmp_path / "k.chrono")
    errors = [d for d in diags if d.is_error]
    assert [d.code for d in errors] == [root] and errors[0].notes[-1] == note.removeprefix("note: ")
    assert not project.scenarios                 # the scenarios are still refused, only not reported twice


def test_a_map_error_outside_scenarios_is_unchanged_and_scenarios_without_a_map_still_get_c402(
        capsys, monkeypatch, tmp_path):
    """No note where nothing was hidden; an unknown map (not declared) and positions without a map are
    still reported."""
    text = BUNDLED_KITCHEN.read_text(encoding="utf-8").replace('import "physics.chrono"',
                                                               'import "paracook/physics.chrono"')
    broken = text.replace("  ....B...M.", "  Z...B...M.")
    status, out, err = check(capsys, monkeypatch, tmp_path, broken[:broken.index("scenario ")])
    assert set(re.findall(r"error\[(\w+)\]", err)) == {"C302"} and "follow-on" not in err
    status, out, err = check(capsys, monkeypatch, tmp_path, text.replace("map small\n  agents agent1 at (2, 1),",
                                                                         "map smal\n  agents agent1 at (2, 1),"))
    assert "error[C401]: scenario 'burger_s1_a2' names unknown map 'smal'" in err
    assert err.count("error[C402]: agent positions need a map") == 2 and "follow-on" not in err


def test_bundled_fallback_does_not_escape_the_domains_folder(capsys, monkeypatch, tmp_path):
    status, out, err = check(capsys, monkeypatch, tmp_path, 'domain d\nimport "../grammar/none.chrono"\n')
    assert status == 1 and "error[C108]: import not found" in err


# 7. unreadable files and missing paths ------------------------------------------------------------------------

def test_undecodable_file_is_located_at_the_first_bad_byte(capsys, monkeypatch, tmp_path):
    status, out, err = check(capsys, monkeypatch, tmp_path, "domain d\nconst \u00e9 = 1 # \xff\n".encode("utf-8")
                             .replace(b"\xc3\xbf", b"\xff"))
    assert status == 1
    assert "k.chrono:2:15: error[C004]: cannot read k.chrono: not UTF-8 text (byte 0xff at line 2, column 15)" in err


def test_missing_path_is_a_usage_error(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert main(["check", str(tmp_path / "nonexistent")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["check", "empty"]) == 2
    (tmp_path / "ok.chrono").write_text("domain d\n")
    assert main(["check", "ok.chrono", "x" * 5000]) == 2
    assert main(["check", "ok.chrono"]) == 0
    (tmp_path / "bad.chrono").write_text("domain d\nconst A = B\n")
    assert main(["check", "bad.chrono"]) == 1


# 6. counts the PDDL export unrolls are bounded ---------------------------------------------------------------

CAPACITY = """domain d
resource board capacity {board}
procedure P {{
  resource bowl capacity {bowl}
  step 0 "Cut." 1 min uses board
  step 1 "Mix." 1 min uses bowl
}}
scenario s {{ unit min agents a procedures P }}
"""


def test_huge_capacity_is_a_located_export_error(capsys, monkeypatch, tmp_path):
    from chronoplan.compiler.pddl.common import ExportError
    from chronoplan.validators.families import export_scenario
    status, out, err = check(capsys, monkeypatch, tmp_path, CAPACITY.format(board=1_000_000, bowl=5000))
    assert status == 0                           # the simulator and CP-SAT take any capacity
    project, diags, sources = compile_paths(tmp_path / "k.chrono")
    with pytest.raises(ExportError) as exc:
        export_scenario(project, "s")
    got = {(d.code, d.span.line, d.span.col) for d in exc.value.diagnostics}
    assert got == {("P020", 2, 1), ("P020", 4, 12)}
    assert main(["pddl", "k.chrono", "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "k.chrono:2:1: error[P020]: the capacity of resource board is 1000000" in err
    assert not (tmp_path / "out").exists()


def test_capacity_at_the_limit_exports(tmp_path):
    from chronoplan.validators.families import export_scenario
    (tmp_path / "k.chrono").write_text(CAPACITY.format(board=1000, bowl=2))
    project, diags, sources = compile_paths(tmp_path / "k.chrono")
    export = export_scenario(project, "s")
    assert export.problem_text().count("(slot-free slot-board-") == 1000


def test_huge_ingredient_count_is_a_kitchen_export_error(tmp_path):
    from pathlib import Path

    from chronoplan.compiler.pddl.common import ExportError
    from chronoplan.compiler.pddl.kitchen import export_kitchen
    kitchen = (Path(__file__).parent.parent / "domains" / "paracook" / "kitchen.chrono").read_text()
    kitchen = kitchen.replace('import "physics.chrono"', 'import "paracook/physics.chrono"\n'
                              "recipe huge in burger = plate[" + "9" * 30 + " * bread]")
    kitchen += "scenario hugeorder {\n  map small\n  agents a1 at (2, 1)\n  orders huge\n}\n"
    (tmp_path / "k.chrono").write_text(kitchen)
    project, diags, sources = compile_paths(tmp_path / "k.chrono")
    assert not [d for d in diags if d.is_error]
    with pytest.raises(ExportError) as exc:
        export_kitchen(project, "hugeorder")
    d, = exc.value.diagnostics
    assert d.code == "P020" and "the count of bread in recipe huge is 999" in d.message and d.span is not None


# 8. every limit is documented ---------------------------------------------------------------------------------

def test_limits_are_documented():
    from pathlib import Path

    from chronoplan.compiler import numparse, sources
    from chronoplan.compiler.check import maps
    from chronoplan.compiler.pddl import common
    doc = (Path(__file__).parent.parent / "docs" / "language.md").read_text()
    limits = doc.split("## Limits", 1)[1].split("\n## ", 1)[0]
    for value in (numparse.MAX_DIGITS, maps.MAX_MAP_SIDE, maps.MAX_SYMBOL_ERRORS, D.MAX_SHOWN,
                  D.SNIPPET_WIDTH, D.MAX_MESSAGE, common.MAX_UNROLLED, sources.MAX_IMPORT_CHARS,
                  sources.MAX_SOURCE_BYTES):
        assert f"{value:,}" in limits, value
    for code in ("C004", "C108", "C111", "C302", "P020"):
        assert code in limits, code
    assert "| C111 |" in doc and "P020" in (Path(__file__).parent.parent / "docs" / "pddl.md").read_text()


def test_absolute_imports_of_chrono_files_work(capsys, monkeypatch, tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "common.chrono").write_text("domain d\nconst A = 1\n")
    status, out, err = check(capsys, monkeypatch, tmp_path,
                             f'domain d\nimport "{(tmp_path / "lib" / "common.chrono").as_posix()}"\n')
    assert status == 0, err
