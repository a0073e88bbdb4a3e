"""Importers: benchmark data files -> chronoplan source text.

Input: a format name and source paths.  Output: ``{relative file name: text}`` from the format module's
``convert(sources)``; ``ImportFormatError`` (a clear, user-facing message) on missing files, bad JSON or
data of the wrong shape.  ``FORMATS`` is the registry used by ``chronoplan import``: each entry names the
module (imported only when used), whether OUT is a directory or a file, and a one-line description.  A format
module lives in the lowest layer whose readers it needs: the PlanningArena importer reads gold plans with the
tool-plan reader, so it is ``validators/tools/importer.py`` (named here, loaded only when used).
A format module exposes ``convert(sources: list[pathlib.Path]) -> dict[str, str]``.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass


class ImportFormatError(ValueError):
    """The input cannot be imported; the message says which file, where and why."""


@dataclass(frozen=True)
class Format:
    name: str
    module: str
    output: str          # "dir" (OUT is a directory) | "file" (OUT is one file)
    help: str


FORMATS = {
    "recipe2plan": Format("recipe2plan", "chronoplan.compiler.importers.recipe2plan", "dir",
                          "Recipe2Plan cooking.json -> OUT/{,easy/}{recipes,instances}.chrono"),
    "paracook": Format("paracook", "chronoplan.compiler.importers.paracook", "file",
                       "ParaCook map JSON (with --orders) -> OUT.chrono: physics, map and one scenario"),
    "pddl": Format("pddl", "chronoplan.compiler.importers.pddl", "file",
                   "PDDL DOMAIN PROBLEM -> OUT.chrono: one procedure scenario (docs/pddl.md, Importing PDDL)"),
    "planningarena": Format("planningarena", "chronoplan.validators.tools.importer", "dir",
                            "PlanningArena tool_list.json [--tasks data.json] [--profiles DIR] -> "
                            "OUT/tools.chrono, OUT/tasks.chrono"),
}


def load_format(name: str):
    """The converter module of format ``name`` (KeyError for an unknown format)."""
    return importlib.import_module(FORMATS[name].module)
