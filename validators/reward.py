"""Rewards for RL training: model completions -> one float per completion, graded by chronoplan.

Input: a project (or the paths of ``.chrono`` files), a ``Shaping``, and, per call, the completions in either
shape TRL's GRPOTrainer passes (strings, or chat-message lists whose last assistant message holds the reply)
plus the dataset columns as keyword lists (the scenario column names each completion's scenario; without it,
the project's only scenario or the ``"scenario"`` a completion names, as ``validate`` matches them, with one
``UserWarning`` per reward function that the column is missing).
Output: ``reward_function(...)`` returns ``fn(completions, **kwargs) -> list[float]`` with the signature TRL
expects; ``fn.last_reports`` keeps the reports of the last call for logging.  Never raises on a completion:
an unreadable reply, an unknown scenario or a grading crash scores ``invalid`` (0.0 by default).

Shapings (docs/runtime.md, "Rewards"):
- ``valid``: 1.0 for a valid plan, else 0.0;
- ``progress``: the fraction of the goal reached (steps done for procedures, orders served for kitchens,
  reference steps present for tool plans), for valid and invalid plans alike;
- ``makespan``: for a valid plan, optimum / makespan (1.0 at the optimum; ``optima`` maps scenarios to known
  optimal makespans, else the report's ``lower_bound`` is used, else 1.0); an invalid plan scores
  ``invalid``;
- ``schema``: 1.0 when the plan can be read and has the right shape (no ``syntax``/``schema`` error), whatever
  its semantics.
"""
from __future__ import annotations

import enum
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Optional, Union

from chronoplan.compiler import ir
from chronoplan.compiler.driver import load
from chronoplan.validators.grade import Grader, match_scenario
from chronoplan.validators.plan_text import plan_value, unwrap_reply
from chronoplan.validators.report import Report, error_report


class Shaping(enum.Enum):
    """How a report becomes a number (see the module docstring)."""

    VALID = "valid"
    PROGRESS = "progress"
    MAKESPAN = "makespan"
    SCHEMA = "schema"


def completion_text(completion: Any) -> Optional[str]:
    """A completion as TRL passes it -> the reply text: a string as it is; a list of chat messages -> the content
    of the last assistant message (content given as a string or as a list of ``{"type": "text"}`` parts)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        completion = [completion]
    if not isinstance(completion, Sequence):
        return None
    for message in reversed(completion):
        if isinstance(message, Mapping) and message.get("role", "assistant") == "assistant":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, Sequence):
                return "".join(p.get("text", "") for p in content if isinstance(p, Mapping)
                               and isinstance(p.get("text"), str))
            return None
    return None


def progress_of(report: Report) -> float:
    """The fraction of the goal a plan reached, from the metrics every plan kind reports (0.0 when none)."""
    m = report.metrics
    if isinstance(m.get("progress"), (int, float, Fraction)):
        return float(m["progress"])
    if isinstance(m.get("served"), int) and isinstance(m.get("orders"), int) and m["orders"] > 0:
        return m["served"] / m["orders"]
    if isinstance(m.get("missing_step_rate"), (int, float, Fraction)):
        return max(0.0, 1.0 - float(m["missing_step_rate"]))
    return 1.0 if report.valid else 0.0


def score(report: Report, shaping: Shaping, optimum: Any = None, invalid: float = 0.0) -> float:
    """One report -> its reward under ``shaping``."""
    if shaping is Shaping.SCHEMA:
        return 0.0 if any(e.category in ("syntax", "schema") for e in report.errors) else 1.0
    if shaping is Shaping.PROGRESS:
        return progress_of(report)
    if not report.valid:
        return invalid
    if shaping is Shaping.VALID:
        return 1.0
    makespan = report.metrics.get("makespan")
    bound = optimum if optimum is not None else report.metrics.get("lower_bound")
    if not isinstance(makespan, (int, float, Fraction)) or makespan <= 0 or bound is None:
        return 1.0
    return float(min(Fraction(1), Fraction(bound) / Fraction(makespan)))


def reward_function(source: Union[ir.Project, str, Sequence[str]], *, shaping: Union[Shaping, str] = "progress",
                    scenario_column: str = "scenario", scenario: Optional[str] = None,
                    optima: Optional[Mapping[str, Any]] = None, invalid: float = 0.0) -> Callable[..., list]:
    """Build a reward function for TRL-style trainers: ``fn(completions, **kwargs) -> list[float]``.

    ``source`` is a checked project or the path(s) of ``.chrono`` files; ``scenario`` fixes one scenario for
    every completion, else ``kwargs[scenario_column]`` names one per completion (a list, as TRL passes dataset
    columns), else (the column is missing: one ``UserWarning``) the only scenario or the ``"scenario"`` the
    completion names.  Raises ``ValueError``/``CompileError`` here, at build time, for a wrong shaping, domain or
    ``optima`` (``checked_optima``); the returned function never raises on completions."""

    project = source if isinstance(source, ir.Project) else load(*([source] if isinstance(source, str) else source))
    shape = shaping if isinstance(shaping, Shaping) else Shaping(shaping)
    if scenario is not None and scenario not in project.scenarios:
        raise ValueError(f"no scenario named {scenario!r}")
    grader = Grader(project)
    best = checked_optima(optima)
    warned: list = []

    def reward(completions: Sequence[Any], **kwargs: Any) -> list:
        names = kwargs.get(scenario_column)
        if scenario is None and names is None and len(project.scenarios) > 1 and not warned:
            warned.append(True)
            warnings.warn(f"chronoplan reward: no {scenario_column!r} column was passed; each completion is graded "
                          "against the scenario it names (its \"scenario\" key), else scores invalid", UserWarning,
                          stacklevel=2)
        reports = []
        for i, completion in enumerate(completions):
            text = completion_text(completion)
            target = scenario if scenario is not None else _nth(names, i) if names is not None \
                else _named_scenario(project, text)
            if text is None:
                rep = error_report(f"completion {i}", str(target or ""), "E010", "the completion is "
                                   "neither text nor a list of chat messages", "pass strings or message lists")
            elif not isinstance(target, str):
                rep = error_report(f"completion {i}", "", "E015", f"no scenario for completion {i} (the "
                                   f"{scenario_column!r} column is missing or not text, and the completion names "
                                   "none)", "pass scenario=... or the column")
            else:
                rep = grader.grade(target, text, name=f"completion {i}")
            reports.append(rep)
        reward.last_reports = reports  # type: ignore[attr-defined]
        return [score(r, shape, best.get(r.scenario), invalid) for r in reports]

    reward.__name__ = f"chronoplan_{shape.value}_reward"
    reward.last_reports = []  # type: ignore[attr-defined]
    return reward


def _named_scenario(project: ir.Project, text: Optional[str]) -> Optional[str]:
    """The scenario ``validate`` would match for a completion without a scenario column: the only one, else the
    ``"scenario"`` key of the plan the text holds (also inside a ``{"response": ...}`` reply), else None."""
    if len(project.scenarios) == 1 or text is None:
        return match_scenario(project, None, None, "")
    got = plan_value(text)
    inner = unwrap_reply(got.value) if got.error is None else None
    value = inner.value if inner is not None and isinstance(inner.value, dict) else got.value
    found = match_scenario(project, None, value, "")
    return found if found is not None else match_scenario(project, None, got.value, "")


def checked_optima(optima: Optional[Mapping[str, Any]]) -> dict:
    """``reward_function``'s ``optima`` checked when the function is built: a mapping of scenario names to
    positive finite makespans (int, float, Fraction; not bool); raises ValueError naming the first bad entry,
    so that a wrong value fails once, here, and never at each call."""
    if optima is None:
        return {}
    if not isinstance(optima, Mapping):
        raise ValueError(f"optima must map scenario names to optimal makespans, not a {type(optima).__name__}")
    out = {}
    for name, value in optima.items():
        if not isinstance(name, str):
            raise ValueError(f"optima: the key {name!r} is not a scenario name (a str)")
        ok = isinstance(value, (int, float, Fraction)) and not isinstance(value, bool)
        if not ok or not math.isfinite(value) or value <= 0:
            raise ValueError(f"optima[{name!r}] = {value!r}: an optimal makespan is a positive finite number")
        out[name] = value
    return out


def _nth(values: Any, i: int) -> Any:
    if isinstance(values, str):
        return values
    try:
        return values[i]
    except (TypeError, IndexError, KeyError):
        return None
