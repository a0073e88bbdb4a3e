"""docs/benchmarks/paracook.md lists exactly the kitchen error codes of runtime.kitchen_codes.KCODES."""
import re
from pathlib import Path

from chronoplan.runtime.kitchen_codes import KCODES

DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks" / "paracook.md"


def test_code_table_matches():
    rows = re.findall(r"^\| `(E\d{3})` \| `([a-z-]+)` \| (.+?) \|$", DOC.read_text(), re.M)
    assert {c: (cat, text) for c, cat, text in rows} == KCODES


def test_every_code_is_in_a_contract_category():
    from chronoplan.validators.report import CATEGORIES
    assert all(cat in CATEGORIES for cat, _ in KCODES.values())
