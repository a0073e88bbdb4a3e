"""Golden-file comparison shared by the tests: ``check_golden(path, text)`` asserts that ``text`` equals the
file's content; with ``UPDATE_GOLDEN=1`` in the environment it (re)writes the file first."""
import os
from pathlib import Path


def check_golden(path: Path, text: str) -> None:
    if os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path} differs (UPDATE_GOLDEN=1 to regenerate)"
