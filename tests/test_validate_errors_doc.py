"""docs/errors.md lists exactly the codes of chronoplan.runtime.violations.CODES, with their categories."""
from __future__ import annotations

import re
from pathlib import Path

from chronoplan.runtime.violations import CODES
from chronoplan.validators.report import CATEGORIES


def test_errors_doc_matches_the_code_table():
    text = (Path(__file__).resolve().parents[1] / "docs" / "errors.md").read_text()
    rows = re.findall(r"^\| `(E\d{3})` \| `([a-z-]+)` \| (.+?) \|$", text, re.M)
    assert {(c, cat) for c, cat, _ in rows} == {(c, v[0]) for c, v in CODES.items()}
    assert all(title == CODES[c][1] for c, _, title in rows)


def test_codes_are_well_formed():
    for code, (category, _) in CODES.items():
        assert category in CATEGORIES
        block = {"syntax": "0", "schema": "0", "unknown-name": "1", "precondition": "2", "dependency": "3",
                 "agent-busy": "4", "resource-busy": "4", "duration": "5", "interrupt": "5",
                 "time-window": "6", "goal": "7", "repeat": "8"}[category]
        assert code[1] == block and (int(code[2:]) < 50 or code == "E090")   # E090: internal, every plan kind
