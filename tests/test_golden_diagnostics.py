"""Golden diagnostics: one input per diagnostic code, compared with its exact expected output.

Input: tests/golden/diagnostics/<CODE>_<what>.chrono.  Output: the stderr of ``chronoplan check`` must equal
the ``.out`` file beside it.  Regenerate with ``UPDATE_GOLDEN=1 pytest tests/test_golden_diagnostics.py``.
"""
import os
from pathlib import Path

import pytest

from chronoplan.cli import main
from chronoplan.compiler.diagnostics import CODES

GOLDEN = Path(__file__).parent / "golden" / "diagnostics"
CASES = sorted(GOLDEN.glob("*.chrono"))


def run_check(capsys, monkeypatch, path: Path):
    monkeypatch.chdir(path.parent)
    status = main(["check", path.name])
    out = capsys.readouterr()
    return status, out.err


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_golden(path, capsys, monkeypatch):
    status, err = run_check(capsys, monkeypatch, path)
    expected_file = path.with_suffix(".out")
    if os.environ.get("UPDATE_GOLDEN"):
        expected_file.write_text(err)
    assert err == expected_file.read_text()
    codes = path.stem.split("_")
    for code in [c for c in codes if c[:1] in "CW" and c[1:].isdigit()]:
        assert f"[{code}]" in err, f"{code} not reported for {path.name}"
    has_error = "error[" in err
    assert status == (1 if has_error else 0)


def test_every_code_has_a_golden_case():
    covered = set()
    for p in CASES:
        covered |= {c for c in p.stem.split("_") if c[:1] in "CW" and c[1:].isdigit()}
        covered |= {c.split("]")[0] for c in p.with_suffix(".out").read_text().split("[")[1:]}
    missing = sorted(set(CODES) - covered - {"C004"})
    assert not missing, f"codes without a golden case: {missing}"


def test_missing_file_is_reported(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status = main(["check", "nope.chrono"])
    err = capsys.readouterr().err
    assert status == 2                       # a usage error, not a compile error (issue #17 item 7)
    assert "error[C004]: no such file or directory: nope.chrono" in err


def test_unreadable_file_is_reported(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.chrono").write_bytes(b"const A = 1 \xff\xfe")
    status = main(["check", "bad.chrono"])
    assert status == 1
    assert "error[C004]: cannot read bad.chrono" in capsys.readouterr().err


def test_all_diagnostics_of_a_file_in_one_run(capsys, tmp_path, monkeypatch):
    src = tmp_path / "many.chrono"
    src.write_text('const A = B\nprocedure P { step 0 "x" 1 after 9 step 0 "y" 2 uses nothing }\n'
                   'scenario s { procedures P, Q }\n')
    status, err = run_check(capsys, monkeypatch, src)
    assert status == 1
    for code in ("C101", "C203", "C204", "C401"):
        assert f"[{code}]" in err


def test_keywords_are_whole_words():
    """A keyword glued to the word after it is not read as the keyword and a name (``constx`` was ``const x``);
    every alphabetic literal of the grammar gets the check, and a keyword followed by a symbol still reads."""
    from chronoplan.compiler.parse import keywords, parse, parser

    checked = parser().options.postlex.types
    lexed = {t.name for t in parser().terminals if t.pattern.type == "str" and t.pattern.value.isalpha()}
    assert checked == lexed
    assert {"const", "step", "when", "unit"} <= keywords()
    for text, word in (("constx = 1\n", "constx"), ("const_A = 1\n", "const_A"), ("const9 = 1\n", "const9"),
                       ("procedure P {\n  step1 \"Mix.\" 2 min\n}\n", "step1")):
        module, diags = parse("t.chrono", text)
        assert module is None and [d.code for d in diags] == ["C001"], text
        assert f"unexpected name '{word}'" in diags[0].message
    for text in ("const x = 1\n", "const constant = 1\n", "const\tx = 1\n",
                 "procedure P {\n  step 1 \"Mix.\" 2 min\n}\n", "procedure P{step 1 \"Mix.\" 2 min}\n"):
        module, diags = parse("t.chrono", text)
        assert module is not None and not diags, (text, diags)
