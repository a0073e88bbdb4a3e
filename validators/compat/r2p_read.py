"""Plans as the original Recipe2Plan evaluator reads them (``--compat recipe2plan``).

Input: a model's reply text and the scenario's ``compat.r2p_engine.Model``; or the timed actions that
chronoplan's own readers found in a JSON plan (the original reads only text).  Output: ``Parsed``: the
actions in the original's order (stable-sorted by start), how many entries it read and how many
``Step(``-like entries its pattern skipped, or the parse failure.  Never raises on bad input.

The original's reading (evaluation/evaluator.py, ``parse_actions``; result_summarizer.py):
- only the text after the last ``</think>`` counts; every ``"`` and ``'`` is removed;
- "<digits> min" becomes "<digits>:00", then "<digits> sec" "0:<digits>", then "<digits> hour"
  "<digits>:00:00" (so "0.5 min" becomes "0.5:00", which no entry accepts);
- an entry is exactly ``Step(<digits>, <name>, <time>, <time>)``: capital S, one comma and one space
  between fields, a name of word characters and hyphens, times of the form [H:]M:S with digits only (a
  bare number is no time); anything else is skipped silently.  Only when no such entry exists are the
  3-field entries ``Step(<digits>, <name>, <time>)`` read, with the step's whole duration (0 for an
  unknown recipe or step).  ``\\d`` and ``\\w`` are Unicode-aware, as in Python's ``re``;
- times are seconds as floats: H:M:S = 3600 H + 60 M + S, M:S = 60 M + S;
- a step number over Python's integer-string limit (4,300 digits) makes the whole parse fail.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from chronoplan.validators.compat.r2p_engine import Check, Model, Num, OAction

THINK_END = "</think>"
# The original's substitutions are r"(\d+) min" etc.  A match can only start where a run of digits starts
# (inside a run, \d+ ends where the run's own match would), so (?<!\d) finds the same matches while
# sparing the quadratic retries inside a long run of digits; tests/test_compat_recipe2plan.py compares both
# forms on random text.
_MIN = re.compile(r"(?<!\d)(\d+) min")
_SEC = re.compile(r"(?<!\d)(\d+) sec")
_HOUR = re.compile(r"(?<!\d)(\d+) hour")
_TIME = r"((?:\d+:)?\d+:\d+)"
_FULL = re.compile(r"Step\((\d+), ([\w-]+), " + _TIME + ", " + _TIME + r"\)")
_SHORT = re.compile(r"Step\((\d+), ([\w-]+), " + _TIME + r"\)")
_LENIENT = re.compile(r"step\s*\(", re.I)           # what chronoplan's own reader takes for an entry


@dataclass(frozen=True)
class Parsed:
    actions: tuple[OAction, ...] = ()        # the original's order
    entries: int = 0                        # entries read
    skipped: int = 0                        # Step(-like entries (any case, any spacing) not read
    failure: Optional[Check] = None         # PARSE or NO_ACTIONS
    detail: str = ""


def clock(text: str) -> float:
    """The original's time of a matched field: H:M:S or M:S (a single number would be minutes, but the
    entry pattern never passes one)."""
    parts = text.split(":")
    if len(parts) == 3:
        return 3600 * float(parts[0]) + 60 * float(parts[1]) + float(parts[2])
    if len(parts) == 2:
        return 60 * float(parts[0]) + float(parts[1])
    return 60 * float(parts[0])


def reply_part(text: str) -> str:
    """The part of a reply the original grades: after the last ``</think>``."""
    return text.split(THINK_END)[-1] if THINK_END in text else text


def normalise(text: str) -> str:
    """Quotes removed and the unit words rewritten, in the original's order."""
    text = text.replace('"', "").replace("'", "")
    if " min" in text:
        text = _MIN.sub(r"\1:00", text)
    if " sec" in text:
        text = _SEC.sub(r"0:\1", text)
    return _HOUR.sub(r"\1:00:00", text) if " hour" in text else text


def _whole_time(model: Model, recipe: str, step: int) -> int:
    steps = model.steps_of(recipe)
    return steps[step].time if steps is not None and step < len(steps) else 0


def read_text(text: str, model: Model) -> Parsed:
    """A reply -> the actions the original evaluator executes, in its order."""
    text = reply_part(text)
    like = sum(1 for _ in _LENIENT.finditer(text))
    body = normalise(text)
    names: dict = {}
    times: dict = {}                      # each distinct time text is converted once
    actions: list[OAction] = []

    def seconds(field: str) -> float:
        t = times.get(field)
        if t is None:
            t = times[field] = clock(field)
        return t

    try:
        for pos, m in enumerate(_FULL.finditer(body)):
            step, recipe, dur, start = m.groups("")
            actions.append(OAction(seconds(start), int(step), names.setdefault(recipe, recipe), seconds(dur), pos))
        if not actions:
            for pos, m in enumerate(_SHORT.finditer(body)):
                step_text, recipe_text, start = m.groups("")
                recipe, number = names.setdefault(recipe_text, recipe_text), int(step_text)
                actions.append(OAction(seconds(start), number, recipe, _whole_time(model, recipe, number), pos))
    except ValueError as exc:             # int() of a step number over the interpreter's digit limit
        return Parsed((), 0, 0, Check.PARSE, f"parsing the plan raised {type(exc).__name__}: {str(exc)[:120]}")
    return ordered(actions, like)


def ordered(actions: list[OAction], like: int = 0) -> Parsed:
    """Actions in written order -> ``Parsed`` with the original's stable sort by start."""
    n = len(actions)
    if not n:
        return Parsed((), 0, like, Check.NO_ACTIONS, "no entry matches the original evaluator's pattern "
                      "Step(<step>, <recipe>, <duration>, <start>)")
    actions.sort(key=_start)
    return Parsed(tuple(actions), n, max(0, like - n))


def _start(a: OAction) -> Num:
    return a.start
