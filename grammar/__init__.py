"""Paths of the chronoplan grammar files (input: none; output: ``GRAMMAR_PATH``)."""
from pathlib import Path

GRAMMAR_DIR = Path(__file__).resolve().parent
GRAMMAR_PATH = GRAMMAR_DIR / "chrono.lark"
