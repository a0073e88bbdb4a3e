"""The CLI surface a new user touches first (#16 item 10): ``--version``, ``--format json`` on ``check`` and
``list``, pluralised summaries, scenario kinds from the IR."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import chronoplan
from chronoplan.cli import main

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ROOT / "domains" / "recipes"


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version(capsys, flag):
    assert main([flag]) == 0
    out = capsys.readouterr().out.strip()
    assert out == f"chronoplan {chronoplan.__version__}"


def test_check_json_reports_every_field_of_a_diagnostic(tmp_path, capsys):
    bad = tmp_path / "bad.chrono"
    bad.write_text('procedure P { step 0 "x" 1 min after 7 }\n')
    assert main(["check", str(bad), "--format", "json"]) == 1
    cap = capsys.readouterr()
    assert cap.err == ""
    out = json.loads(cap.out)
    assert out["ok"] is False and out["files"] == 1 and out["errors"] == 1
    d = out["diagnostics"][0]
    assert set(d) == {"code", "severity", "file", "line", "column", "end_line", "end_column", "message", "notes"}
    assert d["code"] == "C203" and d["severity"] == "error" and d["file"] == str(bad) and d["line"] == 1
    assert isinstance(d["column"], int) and isinstance(d["notes"], list)


def test_check_json_on_good_files_with_summary(capsys):
    assert main(["check", str(RECIPES), "--format", "json", "--summary"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and out["errors"] == 0 and out["diagnostics"] == []
    assert out["summary"]["declarations"]["scenario"] == 2
    assert out["summary"]["scenarios"] == {"procedure": ["Roast-Chicken_Garlic-Potatoes", "Roast-Chicken_two_cooks"]}


def test_check_json_on_a_missing_path_is_a_usage_error(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nope.chrono"), "--format", "json"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False and out["errors"] == 1 and "nope.chrono" in out["diagnostics"][0]["message"]


def test_summaries_are_pluralised(tmp_path, capsys):
    one = tmp_path / "one.chrono"
    one.write_text('app shop "A shop" {\n  tool buy(item: str)\n}\nscenario s { apps shop  query "buy tea" }\n')
    assert main(["check", str(one), "--summary"]) == 0
    out = capsys.readouterr().out
    assert "checked 1 file: 0 errors, 0 warnings (ok)" in out
    assert "1 app, 1 tool, 1 scenario\n" in out and "1 apps" not in out
    assert "tool-use scenarios: s" in out


def test_list_json(capsys):
    assert main(["list", str(RECIPES), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows == [{"name": "Roast-Chicken_Garlic-Potatoes", "kind": "procedures", "unit": "s"},
                    {"name": "Roast-Chicken_two_cooks", "kind": "procedures", "unit": "min"}]


def test_list_json_kinds_cover_every_family(capsys):
    assert main(["list", str(ROOT / "domains"), "--format", "json"]) == 0
    kinds = {r["kind"] for r in json.loads(capsys.readouterr().out)}
    from chronoplan.compiler.ir import ScenarioKind
    assert kinds == {k.value for k in ScenarioKind}


def test_reference_fields_must_be_returned_by_the_producing_tool(tmp_path, capsys):
    """#16 finding 3: a reference using ``$1.isbn`` of a tool that never returns ``isbn`` passed ``check``."""
    shop = tmp_path / "books.chrono"
    text = ('app books "Bookshop" {\n'
            '  tool searchBooks(title: str) -> (book_id: str, price: number)\n'
            '  tool buyBook(book_id: str)\n'
            '}\n'
            'scenario buy { apps books  query "Buy Dune"\n'
            '  reference {\n    1: searchBooks(title = "Dune")\n    2: buyBook(book_id = $1.FIELD) after 1\n  }\n}\n')
    shop.write_text(text.replace("FIELD", "isbn"))
    assert main(["check", str(shop)]) == 1
    err = capsys.readouterr().err
    assert "error[C403]: step 2 uses field 'isbn' of step 1, but 'searchBooks' returns only: book_id, price" in err
    assert "books.chrono:8:" in err
    shop.write_text(text.replace("FIELD", "book_id"))
    assert main(["check", str(shop)]) == 0
