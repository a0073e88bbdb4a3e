"""A small, safe parser for Python-literal tool calls such as ``Tool({'key': 'value', 'n': 3})``.

Input: untrusted text from an LLM plan (a PlanningArena ``Action`` string).  Output: a ``ToolCall`` (tool
name, positional values, keyword values) or a ``LiteralError`` naming the position and the problem.
Nothing is evaluated: no ``eval``, no ``ast.literal_eval``; the grammar is

    call    := NAME ('.' NAME)* [ '(' [args] ')' ]
    args    := arg (',' arg)* [',']          arg := NAME '=' value | value
    value   := dict | list | tuple | string+ | number | True | False | None | true | false | null
    dict    := '{' [value ':' value (',' value ':' value)* [',']] '}'

Strings take single, double or triple quotes, optional ``u``/``r`` prefixes, the usual backslash escapes,
and adjacent strings concatenate.  Numbers are ints or, with a fraction or exponent, exact
``fractions.Fraction`` values.  Limits: ``MAX_TEXT`` characters, ``MAX_DEPTH`` nesting, ``MAX_ITEMS``
values in all, ``MAX_DIGITS`` digits per number; exceeding one is a ``LiteralError``, never a crash.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

MAX_TEXT = 100_000
MAX_DEPTH = 40
MAX_ITEMS = 20_000
MAX_DIGITS = 400
_DIGITS = frozenset("0123456789")      # ASCII only: str.isdigit() also accepts "²" and "１"

_CONSTS = {"True": True, "False": False, "None": None, "true": True, "false": False, "null": None}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", "'": "'", '"': '"', "a": "\a",
            "b": "\b", "f": "\f", "v": "\v"}


class LiteralError(ValueError):
    """The text is not a literal tool call; ``pos`` is the 0-based character offset."""

    def __init__(self, message: str, pos: int) -> None:
        super().__init__(f"{message} at character {pos}")
        self.message = message
        self.pos = pos


@dataclass(frozen=True)
class ToolCall:
    """A tool call as written in a PlanningArena ``Action`` string: name, positional and keyword values."""

    name: str                                  # the full (possibly dotted) name
    positional: tuple                          # values
    keywords: tuple                            # (name, value) pairs in order


class _Parser:
    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise LiteralError("not a string", 0)
        if len(text) > MAX_TEXT:
            raise LiteralError(f"text longer than {MAX_TEXT} characters", MAX_TEXT)
        self.s = text
        self.i = 0
        self.items = 0

    # -- lexical helpers
    def ws(self) -> None:
        s, i = self.s, self.i
        while i < len(s) and s[i] in " \t\r\n":
            i += 1
        self.i = i

    def peek(self) -> str:
        self.ws()
        return self.s[self.i] if self.i < len(self.s) else ""

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            got = self.s[self.i] if self.i < len(self.s) else "end of text"
            raise LiteralError(f"expected {ch!r}, found {got!r}", self.i)
        self.i += 1

    def name(self) -> str:
        self.ws()
        s, start = self.s, self.i
        i = start
        if i >= len(s) or not (s[i].isalpha() or s[i] == "_"):
            raise LiteralError("expected a name", start)
        while i < len(s) and (s[i].isalnum() or s[i] in "_-"):
            i += 1
        self.i = i
        return s[start:i]

    def count(self) -> None:
        self.items += 1
        if self.items > MAX_ITEMS:
            raise LiteralError(f"more than {MAX_ITEMS} values", self.i)

    # -- values
    def value(self, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise LiteralError(f"nesting deeper than {MAX_DEPTH}", self.i)
        self.count()
        c = self.peek()
        if not c:
            raise LiteralError("unexpected end of text", self.i)
        if c == "{":
            return self.dict_(depth)
        if c in "[(":
            return self.seq(depth, "]" if c == "[" else ")")
        if c in "'\"" or (c in "uUrR" and self.s[self.i + 1:self.i + 2] in ("'", '"')):
            return self.strings()
        if c in _DIGITS or c in "-+.":
            return self.number()
        if c.isalpha() or c == "_":
            start = self.i
            word = self.name()
            if word in _CONSTS:
                return _CONSTS[word]
            raise LiteralError(f"{word!r} is not a literal (only strings, numbers, True, False, None, "
                               "lists and dicts are allowed)", start)
        raise LiteralError(f"unexpected {c!r}" if c else "unexpected end of text", self.i)

    def dict_(self, depth: int) -> dict:
        self.expect("{")
        out: dict = {}
        while self.peek() != "}":
            key_pos = self.i
            key = self.value(depth + 1)
            if isinstance(key, (dict, list)):
                raise LiteralError("a dict key must be a string, number, True, False or None", key_pos)
            self.expect(":")
            out[key] = self.value(depth + 1)
            if self.peek() != ",":
                break
            self.i += 1
        self.expect("}")
        return out

    def seq(self, depth: int, close: str) -> list:
        self.i += 1
        out = []
        while self.peek() != close:
            out.append(self.value(depth + 1))
            if self.peek() != ",":
                break
            self.i += 1
        self.expect(close)
        return out

    def strings(self) -> str:
        parts = [self.string()]
        while self.peek() in ("'", '"') or (self.peek() in ("u", "U", "r", "R")
                                            and self.s[self.i + 1:self.i + 2] in ("'", '"')):
            parts.append(self.string())
        return "".join(parts)

    def string(self) -> str:
        s = self.s
        raw = False
        if s[self.i] in "uUrR":
            raw = s[self.i] in "rR"
            self.i += 1
        q = s[self.i]
        start = self.i
        quote = q * 3 if s.startswith(q * 3, self.i) else q
        self.i += len(quote)
        out: list = []
        while True:
            if self.i >= len(s):
                raise LiteralError("unterminated string", start)
            if s.startswith(quote, self.i):
                self.i += len(quote)
                return "".join(out)
            c = s[self.i]
            if c == "\n" and len(quote) == 1:
                raise LiteralError("line break inside a string", self.i)
            if c == "\\" and self.i + 1 < len(s):
                nxt = s[self.i + 1]
                if raw:
                    out.append(c + nxt)
                    self.i += 2
                    continue
                if nxt in _ESCAPES:
                    out.append(_ESCAPES[nxt])
                    self.i += 2
                elif nxt == "\n":
                    self.i += 2
                elif nxt in "xuU":
                    width = {"x": 2, "u": 4, "U": 8}[nxt]
                    digits = s[self.i + 2:self.i + 2 + width]
                    if len(digits) != width or any(d not in "0123456789abcdefABCDEF" for d in digits):
                        raise LiteralError(f"bad \\{nxt} escape", self.i)
                    code = int(digits, 16)
                    if code > 0x10FFFF:
                        raise LiteralError("escape outside Unicode", self.i)
                    out.append(chr(code))
                    self.i += 2 + width
                else:
                    out.append(c + nxt)
                    self.i += 2
                continue
            out.append(c)
            self.i += 1

    def number(self) -> Any:
        s, start = self.s, self.i
        i = start
        if i < len(s) and s[i] in "+-":
            i += 1
        j = i
        while j < len(s) and (s[j] in _DIGITS or s[j] in "._eE" or (s[j] in "+-" and s[j - 1] in "eE")):
            j += 1
        body = s[i:j].replace("_", "")
        self.i = j
        if not body or sum(ch in _DIGITS for ch in body) > MAX_DIGITS:
            raise LiteralError("bad or oversized number", start)
        if body.isdigit() and not (len(body) > 1 and body[0] == "0"):
            value: Any = int(body)
        else:
            if "e" in body.lower() and abs(_exponent(body)) > MAX_DIGITS:
                raise LiteralError("number exponent too large", start)
            try:
                value = Fraction(body)
            except (ValueError, ZeroDivisionError):
                raise LiteralError(f"bad number {s[start:j]!r}", start) from None
            if value.denominator == 1 and "." not in body and "e" not in body.lower():
                value = int(value)
        return -value if s[start] == "-" else value

    # -- calls
    def call(self) -> ToolCall:
        parts = [self.name()]
        while self.peek() == ".":
            self.i += 1
            parts.append(self.name())
        name = ".".join(parts)
        positional: list = []
        keywords: list = []
        if self.peek() == "(":
            self.i += 1
            while self.peek() != ")":
                save = self.i
                kw = None
                if self.peek().isalpha() or self.peek() == "_":
                    word = self.name()
                    if self.peek() == "=" and self.s[self.i + 1:self.i + 2] != "=":
                        self.i += 1
                        kw = word
                    else:
                        self.i = save
                v = self.value(1)
                if kw is None:
                    if keywords:
                        raise LiteralError("positional argument after keyword argument", save)
                    positional.append(v)
                else:
                    if any(k == kw for k, _ in keywords):
                        raise LiteralError(f"keyword argument {kw!r} repeated", save)
                    keywords.append((kw, v))
                if self.peek() != ",":
                    break
                self.i += 1
            self.expect(")")
        self.ws()
        if self.i != len(self.s):
            raise LiteralError(f"unexpected text after the call: {self.s[self.i:self.i + 20]!r}", self.i)
        return ToolCall(name, tuple(positional), tuple(keywords))


def _exponent(body: str) -> int:
    tail = body.lower().split("e", 1)[1]
    try:
        return int(tail[:MAX_DIGITS]) if tail.lstrip("+-") and set(tail.lstrip("+-")) <= _DIGITS else 0
    except ValueError:
        return 0


def parse_literal(text: str) -> Any:
    """Parse one literal value (dict, list, string, number, True/False/None); raise LiteralError."""
    p = _Parser(text)
    v = p.value(0)
    p.ws()
    if p.i != len(p.s):
        raise LiteralError("unexpected text after the value", p.i)
    return v


def parse_call(text: str) -> ToolCall:
    """Parse ``Name({...})``, ``Name(key=value, ...)``, ``Name(value, ...)`` or a bare ``Name``."""
    return _Parser(text).call()
