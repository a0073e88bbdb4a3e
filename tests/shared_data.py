"""Where the source benchmarks' data lives for tests and bench scripts (read there, never copied into the project).

Input: path parts under the data folder, e.g. ``shared_data("timearena", "tasks.json")``.  Output: the Path under
the repository's sibling ``../shared/data`` when that folder exists, else under /work/shared/data (the
development machine's layout); the file itself may be missing, and callers skip or report that.
"""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_BASES = (ROOT.parent / "shared" / "data", Path("/work/shared/data"))


def shared_data(*parts: str) -> Path:
    """The first existing data folder joined with ``parts`` (the sibling folder when none exists)."""
    base = next((b for b in _BASES if b.is_dir()), _BASES[0])
    return base.joinpath(*parts)
