"""Compatibility modes: grade like a benchmark's original evaluator instead of by chronoplan's rules.

Input: the value of ``chronoplan validate --compat NAME`` (or a ``Compat`` member) and, per plan, the
scenario it is graded against.
Output: ``Compat`` (the frozen registry: each member's name, one-line description and refusal; its scenario
family is the one whose registry entry lists the mode, ``validators.families.Family.compat``),
``parse_compat`` (text -> member, ``CompatError`` with the known names for anything else), ``refusal``
(why a mode cannot be used at all, or None) and ``family_error`` (the per-plan error for a scenario of
another family).

Modes:
- ``recipe2plan``: the original Recipe2Plan evaluator (WilliamZR/Recipe2Plan ``evaluation/``), quirks
  included, on step-level scenarios (``validators.compat.recipe2plan``).
- ``paracook``: the original ParaCook simulator's rules, on grid kitchens (passed to
  ``validators.kitchen.grade.grade_grid_plan`` as ``compat=Compat.PARACOOK``).
- ``timearena``: TimeArena's released code (github.com/ykzhang721/TimeArena), on one-agent step-level
  scenarios written as TimeArena commands: the plan (a command sequence, or a timed plan sent minute by minute)
  is played in the interactive environment with ``runtime.procedure.arena_rules.Rules.TIMEARENA``
  (``validators.compat.timearena``); docs/benchmarks/timearena.md, "--compat timearena".

A mode applied to a scenario of another family is an ``E012`` error in that plan's report (the CLI refuses
up front, exit status 2, when no scenario of the project, or the one given with ``--scenario``, belongs to
the mode's family).
"""
from __future__ import annotations

from enum import Enum
from typing import Optional, Union

from chronoplan.compiler.ir import Scenario
from chronoplan.validators.families import Family, compat_family, family_of
from chronoplan.validators.report import PlanError


class Compat(Enum):
    """A compatibility mode: (CLI name, one-line description, refusal or None); the family it grades is
    the registry's (``Family.compat`` lists the mode)."""

    RECIPE2PLAN = ("recipe2plan",
                   "the original Recipe2Plan evaluator's verdict, failing check, progress and efficiency, "
                   "quirks included",
                   None)
    PARACOOK = ("paracook", "the original ParaCook simulator's rules for grid-kitchen plans", None)
    TIMEARENA = ("timearena", "TimeArena's released environment and runner: the plan played command by command, "
                 "quirks included", None)

    def __init__(self, cli_name: str, description: str, refused: Optional[str]) -> None:
        self.cli_name = cli_name
        self.description = description
        self.refused = refused

    @property
    def family(self) -> Family:
        """The scenario family the mode grades (the registry entry that lists it)."""
        return compat_family(self.cli_name)

    def applies_to(self, scenario: Scenario) -> bool:
        """Whether the mode grades this scenario (its family's registry entry lists the mode)."""
        return self.cli_name in family_of(scenario).compat


class CompatError(ValueError):
    """An unknown compatibility mode name, or a mode that cannot be used (``refusal``)."""


def names() -> tuple[str, ...]:
    return tuple(m.cli_name for m in Compat)


def parse_compat(value: Union[str, Compat, None]) -> Optional[Compat]:
    """``--compat`` text (case-insensitive, surrounding spaces ignored) or a member -> the member; None stays
    None.  Raises ``CompatError`` naming the known modes for anything else."""
    if value is None or isinstance(value, Compat):
        return value
    if not isinstance(value, str):
        raise CompatError(f"a compatibility mode is a Compat member or its name, not a {type(value).__name__}")
    key = value.strip().lower()
    for mode in Compat:
        if mode.cli_name == key:
            return mode
    shown = value if len(value) <= 40 else value[:40] + "..."
    raise CompatError(f"unknown compatibility mode {shown!r}; known modes: {', '.join(names())}")


def refusal(mode: Optional[Compat]) -> Optional[str]:
    """Why ``mode`` cannot be used at all (None when it can)."""
    return None if mode is None else mode.refused


def usable(value: Union[str, Compat, None]) -> Optional[Compat]:
    """``parse_compat`` that also raises ``CompatError`` for a refused mode (the Python API's check)."""
    mode = parse_compat(value)
    why = refusal(mode)
    if why is not None and mode is not None:
        raise CompatError(f"--compat {mode.cli_name} is not available: {why}")
    return mode


def family_error(mode: Compat, scenario: Scenario) -> PlanError:
    """The error of a plan whose scenario is not of the mode's family."""
    return PlanError("E012", f"--compat {mode.cli_name} grades {mode.family.title}; scenario "
                     f"{scenario.name} is one of the {family_of(scenario).title}",
                     f"grade this plan without --compat {mode.cli_name}")


def help_text() -> str:
    """The ``--compat`` help line: every mode with its description."""
    return "grade like a benchmark's original evaluator: " + "; ".join(
        f"{m.cli_name} ({m.description})" for m in Compat)
