"""Importers: benchmark data files -> chronoplan source text.

Input: source paths.  Output: ``{relative file name: text}`` from a format module's ``convert(sources)``;
``ImportFormatError`` (a clear, user-facing message) on missing files, bad JSON or data of the wrong shape.
A format module exposes ``convert(sources: list[pathlib.Path]) -> dict[str, str]`` and lives in the lowest
layer whose readers it needs: ``recipe2plan``, ``paracook`` and ``pddl`` here, the PlanningArena importer
(which reads gold plans with the tool-plan reader) in ``validators/tools/importer.py``.  Which module serves
which format name is the command's table, ``chronoplan.commands.importer.FORMATS``, so that no layer names
a higher one.
"""
from __future__ import annotations


class ImportFormatError(ValueError):
    """The input cannot be imported; the message says which file, where and why."""
