"""`chronoplan pddl` of a user's kitchen that imports the bundled physics (issue 28 item 18): the export's
warnings located in the installed physics.chrono are folded into one note; the user's own are printed as before,
the JSON summary lists every one, and exporting a bundled file itself shows them all."""
import json
from pathlib import Path

from chronoplan.cli import main

ROOT = Path(__file__).resolve().parent.parent
KITCHEN = ROOT / "domains" / "paracook" / "kitchen.chrono"


def user_kitchen(tmp_path) -> Path:
    text = KITCHEN.read_text().replace('import "physics.chrono"', 'import "paracook/physics.chrono"')
    path = tmp_path / "mine.chrono"
    path.write_text(text)
    return path


def test_bundled_warnings_are_one_note(tmp_path, capsys):
    src = user_kitchen(tmp_path)
    assert main(["pddl", str(src), "--scenario", "burger_s1_a2", "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "physics.chrono" not in err
    assert err.count("warning[") == 2 and err.count("mine.chrono:") == 2
    notes = [line for line in err.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1 and "6 more warnings (P011 x2, P013, P014, P016 x2)" in notes[0]
    assert main(["pddl", str(src), "--scenario", "burger_s1_a2", "-o", str(tmp_path / "out"),
                 "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert len(summary["diagnostics"]) == 8
    assert sum(d["file"].endswith("physics.chrono") for d in summary["diagnostics"]) == 6


def test_a_bundled_input_shows_every_warning(tmp_path, capsys):
    assert main(["pddl", str(KITCHEN), "--scenario", "burger_s1_a2", "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert err.count("warning[") == 8 and "physics.chrono:" in err and "more warnings" not in err
