"""Regenerate the "Every code" table of docs/errors.md from the code registry (chronoplan.compiler.codes).

Input: docs/errors.md (or the path given).  Output: the same file with the block between the ``codes:begin`` and
``codes:end`` markers replaced by ``codes.index_markdown()``; tests/test_validate_errors_doc.py checks it.

Usage: python tools/gen_codes_doc.py [ERRORS_MD]
"""
from __future__ import annotations

import sys
from pathlib import Path

from chronoplan.compiler.codes import with_index

DEFAULT = Path(__file__).resolve().parent.parent / "docs" / "errors.md"


def main(argv: list) -> int:
    path = Path(argv[0]) if argv else DEFAULT
    path.write_text(with_index(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
