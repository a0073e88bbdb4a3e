"""Plan text -> decoded plan values, for every plan reader (schedules, Step text, kitchens, tool calls).

Input: the text of a plan file or of one LLM reply (str, or bytes read from a file), and whether the file is
JSON Lines.  Output: a list of ``Decoded`` entries, never empty and in input order: one entry for a single JSON
value or a Step(...) text, one per non-empty line for JSON Lines (a line that cannot be read is an entry with a
located error, so it never hides the other lines).  Never raises on bad input.

Reading rules (docs/errors.md, "Reading plans"): a UTF-8 byte-order mark is skipped; bytes that are not UTF-8
are an ``E002`` at their line and column; one surrounding Markdown code fence is removed; a JSON object that
repeats a key is graded with the last value (as Python's json does) and reported as ``E010``; JSON Lines lines
are separated by "\\n" only (U+2028 and friends are ordinary characters inside JSON strings).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any, Optional, Union

from chronoplan.compiler.numparse import plain_json
from chronoplan.validators.report import PlanError

MAX_TEXT = 50_000_000
BOM = "\ufeff"
_STEP = re.compile(r"step\s*\(", re.I)
# a timed PDDL plan line as planners and VAL write it, ``0.000: (unstack c a) [1.000]``: kept as text (a world
# plan), never searched for embedded JSON (its ``[1.000]`` is a duration, not a plan)
_TIMED_PDDL = re.compile(r"^\s*\d+(?:\.\d+)?\s*:\s*\([^()\n]*\)\s*\[\s*\d+(?:\.\d+)?\s*\]\s*$", re.M)
_BAD_BYTE = re.compile("[\udc80-\udcff]")


@dataclass(frozen=True)
class Decoded:
    """One plan read from text: its value, or the error that kept it from being read."""

    line: Optional[int]                     # 1-based line of a JSON Lines entry, None for a whole file
    value: Any = None
    error: Optional[PlanError] = None
    notes: tuple[PlanError, ...] = ()      # problems that do not stop grading (duplicate keys)


def text_of(data: Union[str, bytes, bytearray]) -> str:
    """Bytes -> str; bytes that are not UTF-8 become lone surrogates that ``decode`` reports with a location."""
    if isinstance(data, (bytes, bytearray)):
        return bytes(data).decode("utf-8", "surrogateescape")
    return data


def strip_fence(text: str) -> str:
    """Remove one surrounding Markdown code fence (```json ... ```), as LLMs often add."""
    return _fence(text)[0]


def _fence(text: str) -> tuple[str, int]:
    """(body, index of the body in ``text``) with one surrounding code fence removed."""
    body = text.strip()
    start = text.find(body[:1]) if body else 0
    if body.startswith("```") and body.endswith("```") and "\n" in body:
        inner = body[3:-3]
        if "\n" not in inner:
            return "", start
        head = inner.index("\n") + 1
        return inner[head:], start + 3 + head
    return text, 0


def _where(text: str, pos: int, line0: int = 0) -> str:
    line = text.count("\n", 0, pos) + 1 + line0
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {col}"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _decoder(constants: bool, repeated: list[str]) -> json.JSONDecoder:
    """A JSON decoder that notes repeated keys in ``repeated``; NaN and Infinity are read as floats (the readers
    report them, located) unless ``constants`` is False."""

    def pairs_hook(pairs: list) -> dict:
        d = dict(pairs)
        if len(d) != len(pairs):
            seen: set = set()
            for k, _ in pairs:
                if k in seen and k not in repeated:
                    repeated.append(k)
                seen.add(k)
        return d

    return json.JSONDecoder(object_pairs_hook=pairs_hook, parse_constant=None if constants else _no_constant)


def _repeated_notes(repeated: list[str]) -> tuple[PlanError, ...]:
    return tuple(PlanError("E010", f"the key {k[:60]!r} appears more than once in one object; the last "
                           "value is used", "write each key once") for k in repeated[:20])


def _loads(text: str, constants: bool = True) -> tuple[Any, tuple[PlanError, ...]]:
    """json.loads that notices repeated keys (raises ValueError / RecursionError like json.loads)."""
    repeated: list[str] = []
    value = _decoder(constants, repeated).decode(text)
    return value, _repeated_notes(repeated)


def _one(body: str, line: Optional[int], line0: int, constants: bool = True) -> Decoded:
    try:
        value, notes = _loads(body, constants)
        return Decoded(line, value, None, notes)
    except RecursionError:
        return Decoded(line, None, PlanError("E001", "the JSON is nested too deeply", "flatten the plan"))
    except json.JSONDecodeError as exc:
        at = _where(body, exc.pos, line0)
        return Decoded(line, None, PlanError("E001", f"invalid JSON at {at}: {exc.msg}",
                                             "write the plan as valid JSON"))
    except ValueError as exc:       # e.g. an integer over Python's digit limit
        return Decoded(line, None, PlanError("E001", f"invalid JSON: {str(exc)[:120]}",
                                             "write the plan as valid JSON"))


def _json_lines(body: str, line0: int) -> list[Decoded]:
    out = []
    for no, raw in enumerate(body.split("\n"), 1 + line0):
        line = raw.strip().lstrip(BOM).strip()
        if not line:
            continue
        bad = _BAD_BYTE.search(line)
        if bad is not None:
            out.append(Decoded(no, None, _not_utf8(raw, raw.find(bad.group()), no - 1)))
        else:
            out.append(_one(line, no, no - 1))
    return out or [Decoded(None, None, PlanError("E002", "the plan is empty", "write a plan"))]


def _not_utf8(text: str, pos: int, line0: int = 0) -> PlanError:
    byte = ord(text[pos]) - 0xDC00
    return PlanError("E002", f"the plan is not UTF-8 text: byte 0x{byte:02x} at {_where(text, pos, line0)}",
                     "save the plan as UTF-8")


def _first_line_is_json(body: str) -> bool:
    """JSON Lines without the .jsonl suffix: the first line is a whole JSON value and another line starts like
    one (a single JSON value followed by prose is an LLM reply, not JSON Lines)."""
    lines = [ln.strip() for ln in body.split("\n") if ln.strip()]
    first = lines[0] if lines else ""
    if len(lines) < 2 or first[0] not in "[{" or not any(ln[0] in "[{" for ln in lines[1:]):
        return False
    try:
        json.loads(first)
        return True
    except (ValueError, RecursionError):
        return False


# ------------------------------------------------------------------------------------ LLM replies
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.S | re.I)
_FENCED = re.compile(r"```[^\n`]*\n(.*?)```", re.S)
_OPEN = re.compile(r"[\[{]")
MAX_CANDIDATES = 16            # '{' / '[' positions tried when a reply has prose before its JSON
MAX_REPLY_SEARCH = 5_000_000   # characters searched for a plan inside prose


def _blank(text: str) -> str:
    """Spaces for every character but newlines, so that lines and columns of the rest stay where they were."""
    return re.sub(r"[^\n]", " ", text)


def drop_reasoning(text: str) -> tuple[str, bool]:
    """Text -> (text with ``<think>...</think>`` reasoning drafts blanked, whether there was one).  A closing
    ``</think>`` without an opening tag (chat templates that put the opening tag in the prompt) blanks all the
    text before it; an unclosed ``<think>`` blanks the rest of the reply."""
    if ">" not in text or "think>" not in text.lower():     # (no ">": no tag, without a lowercased copy)
        return text, False
    out = _THINK.sub(lambda m: _blank(m.group()), text)
    end = out.lower().rfind("</think>")
    if end >= 0:
        out = _blank(out[:end + 8]) + out[end + 8:]
    return out, out != text


_THOUGHT = PlanError("W002", "a <think> reasoning draft was ignored", "")


def _skipped(text: str, start: int, end: int) -> PlanError:
    before, after = text[:start].strip(), text[end:].strip()
    parts = [f"{len(before)} characters before it ({before[:40]!r})"] if before else []
    parts += [f"{len(after)} characters after it ({after[:40]!r})"] if after else []
    return PlanError("W001", f"the plan was read from inside the text: skipped {' and '.join(parts)}",
                     "reply with the plan alone to silence this warning")


def _embedded(text: str, constants: bool) -> Optional[Decoded]:
    """A reply with prose around its plan -> the plan (from the first fenced block holding JSON alone, else from
    the first ``{``/``[`` that starts a JSON object or array), with a ``W001`` note; None when there is none."""
    if len(text) > MAX_REPLY_SEARCH:
        return None
    fenced = [(m.start(), m.start(1), m.end(1), m.end()) for m in _FENCED.finditer(text)]
    bare = list(islice(((m.start(), m.start(), len(text), None) for m in _OPEN.finditer(text)), MAX_CANDIDATES))
    for outer_lo, lo, hi, outer_hi in fenced or bare:
        pos = lo + len(text[lo:hi]) - len(text[lo:hi].lstrip())
        if pos >= hi or text[pos] not in "[{":
            continue
        repeated: list[str] = []
        try:
            value, end = _decoder(constants, repeated).raw_decode(text[:hi], pos)
        except json.JSONDecodeError as exc:
            first = pos + 1 + len(text[pos + 1:pos + 200]) - len(text[pos + 1:pos + 200].lstrip())
            if outer_hi is None and exc.pos > first:    # broken JSON, not prose: never grade a piece of it
                return None
            continue
        except (ValueError, RecursionError):
            return None
        if outer_hi is not None and text[end:hi].strip():       # a fenced block must hold the JSON alone
            continue
        return Decoded(None, value, None, _repeated_notes(repeated) + (_skipped(text, outer_lo, outer_hi or end),))
    return None


def decode_line(data: Union[str, bytes, bytearray], no: int) -> Decoded:
    """Line ``no`` (1-based) of a JSON Lines file -> its plan (a located error when it cannot be read)."""
    entries = _json_lines(text_of(data), no - 1)
    return entries[0]


def decode(data: Union[str, bytes, bytearray], *, json_lines: bool = False, constants: bool = True) -> list[Decoded]:
    """Text -> the plans it holds: one JSON value, JSON Lines (forced by ``json_lines``), or Step text.
    ``constants=False`` refuses NaN and Infinity as syntax errors (tool plans: T001)."""
    text = text_of(data)
    if len(text) > MAX_TEXT:
        return [Decoded(None, None, PlanError("E013", f"the plan is {len(text)} characters long; at most "
                                              f"{MAX_TEXT}", "split the plan file"))]
    text = text[1:] if text.startswith(BOM) else text
    body, start = _fence(text)
    line0 = text.count("\n", 0, start)
    if not body.strip():
        return [Decoded(None, None, PlanError("E002", "the plan is empty", "write a plan"))]
    if json_lines:
        return _json_lines(body, line0)
    text, thought = drop_reasoning(text)
    if thought:
        body, start = _fence(text)
        line0 = text.count("\n", 0, start)
        if not body.strip():
            return [Decoded(None, None, PlanError("E002", "the reply holds only a <think> reasoning draft",
                                                  "end the reasoning with </think> and write the plan after it"))]
    notes = (_THOUGHT,) if thought else ()
    bad = None if text.isascii() else _BAD_BYTE.search(text)     # undecodable bytes are non-ASCII escapes
    stripped = body.strip()
    whole = None
    if stripped[0] in "[{":
        whole = _one(stripped, None, line0 + body.count("\n", 0, body.find(stripped[0])), constants)
        if whole.error is None and bad is None:
            return [replace(whole, notes=whole.notes + notes)]
        if _first_line_is_json(body):
            return _json_lines(body, line0)
    if bad is not None:
        return [Decoded(None, None, _not_utf8(text, bad.start()))]
    if _STEP.search(stripped) or _TIMED_PDDL.search(stripped):
        return [Decoded(None, stripped, None, notes)]
    found = _embedded(stripped, constants)
    if found is not None:
        return [replace(found, notes=found.notes + notes)]
    return [whole or Decoded(None, stripped, None, notes)]


@dataclass(frozen=True)
class Native:
    """A plan value known to be JSON-native (it came from ``json.loads`` or through ``plan_value`` already)."""

    value: Any


def plan_value(plan: Any, *, decoded: bool = False, constants: bool = True) -> Decoded:
    """One plan as any reader receives it -> its JSON-native value (or the error that keeps it from being read).

    Text and bytes are decoded (exactly one plan: several JSON Lines entries are an ``E010``); values built in
    Python are made JSON-native (``numparse.plain_json``: numpy and Decimal numbers, tuples) unless ``decoded``
    says they came from ``json.loads`` already.
    """
    if isinstance(plan, Native):
        return Decoded(None, plan.value)
    if isinstance(plan, (str, bytes, bytearray)):
        entries = decode(plan, constants=constants)
        if len(entries) > 1:
            return Decoded(None, None, PlanError("E010", f"the text holds {len(entries)} plans (JSON "
                                                 "Lines); grade them one by one", "use validate_many or the CLI"))
        return entries[0]
    return Decoded(None, plan if decoded else plain_json(plan))


PLAN_KEYS = ("schedule", "plan", "steps")
REPLY_KEYS = ("response", "completion")


def unwrap_reply(value: Any) -> Optional[Decoded]:
    """A log record holding a model's raw reply (``{"scenario": S, "response": "<reply text>"}``, as the original
    benchmarks' logs and RL rollouts store them) -> the plan read from that text; None for any other value."""
    if not isinstance(value, dict) or any(k in value for k in PLAN_KEYS):
        return None
    key = next((k for k in REPLY_KEYS if isinstance(value.get(k), str)), None)
    return None if key is None else plan_value(value[key])
