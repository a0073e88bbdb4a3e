"""Reversible name mangling for PDDL.

Input: chronoplan names (case-sensitive, any characters: task names such as ``Roast-Chicken``, agent and
resource names, property values such as ``425`` or ``1/2``).  Output: PDDL names (case-insensitive, letters,
digits, ``-`` and ``_``, starting with a letter) and back.

Component encoding (stateless, injective, decodable with ``decode``):
- lowercase ASCII letters, digits and ``-`` stay as they are;
- ``_`` becomes ``__``;
- an uppercase ASCII letter ``C`` becomes ``_c`` (PDDL folds case, so ``Rice`` and ``rice`` must differ);
- any other character becomes ``_`` + its decimal code point + ``_`` (``/`` -> ``_47_``).
Composite names (``s-Roast-Chicken-3``) join a kind prefix and encoded components with ``-``; they are
decoded through the ``NameMap`` that made them (a component may itself contain ``-``).  A name that would
clash with a PDDL keyword, start with a non-letter or collide with another name gets a deterministic prefix
or suffix; ``NameMap.lookup`` inverts every name it issued, case-insensitively.
"""
from __future__ import annotations

from typing import Hashable, Optional

RESERVED = frozenset({
    "and", "or", "not", "imply", "forall", "exists", "when", "at", "over", "all", "start", "end", "either",
    "object", "number", "define", "domain", "problem", "increase", "decrease", "assign", "scale-up",
    "scale-down", "minimize", "maximize", "total-time", "total-cost", "duration", "preference", "always",
    "sometime", "within", "at-most-once", "sometime-after", "sometime-before", "always-within", "hold-during",
    "hold-after", "is-violated", "length", "requirements", "types", "constants", "predicates", "functions",
    "action", "durative-action", "objects", "init", "goal", "metric", "true", "false",
})


def encode(text: str) -> str:
    """Encode one component (see the module docstring); the result contains no uppercase letters."""
    out = []
    for ch in str(text):
        if ("a" <= ch <= "z") or ("0" <= ch <= "9") or ch == "-":
            out.append(ch)
        elif ch == "_":
            out.append("__")
        elif "A" <= ch <= "Z":
            out.append("_" + ch.lower())
        else:
            out.append(f"_{ord(ch)}_")
    return "".join(out)


def decode(code: str) -> str:
    """Invert ``encode`` (case-insensitive input); raise ValueError on a malformed code."""
    code = code.lower()
    out = []
    i, n = 0, len(code)
    while i < n:
        ch = code[i]
        if ch != "_":
            out.append(ch)
            i += 1
            continue
        if i + 1 >= n:
            raise ValueError(f"dangling '_' in {code!r}")
        nxt = code[i + 1]
        if nxt == "_":
            out.append("_")
            i += 2
        elif "a" <= nxt <= "z":
            out.append(nxt.upper())
            i += 2
        elif nxt.isdigit():
            j = code.find("_", i + 1)
            if j < 0:
                raise ValueError(f"unterminated escape in {code!r}")
            out.append(chr(int(code[i + 1:j])))
            i = j + 1
        else:
            raise ValueError(f"bad escape '_{nxt}' in {code!r}")
    return "".join(out)


def value_code(value) -> str:
    """A component for a property value: numbers as ``425`` / ``-5`` / ``1_47_2``, booleans true/false."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return encode(str(value))


class NameMap:
    """Issues PDDL names for keys and remembers the inverse.

    ``name(key, prefix, *parts)`` returns the same name for the same key every time; two different keys
    never get the same name (case-insensitively).  ``lookup(name)`` returns the key."""

    def __init__(self) -> None:
        self._by_key: dict = {}
        self._by_name: dict = {}

    def name(self, key: Hashable, prefix: Optional[str], *parts) -> str:
        if key in self._by_key:
            return self._by_key[key]
        pieces = ([prefix] if prefix else []) + [encode(p) if not isinstance(p, int) else str(p) for p in parts]
        base = "-".join(pieces) or "x"
        if not base[0].isalpha() or base in RESERVED:
            base = "n-" + base
        cand, n = base, 1
        while cand in self._by_name:
            n += 1
            cand = f"{base}-{n}"
        self._by_key[key] = cand
        self._by_name[cand] = key
        return cand

    def get(self, key: Hashable) -> Optional[str]:
        return self._by_key.get(key)

    def lookup(self, name: str):
        """The key of a PDDL name (any case); KeyError when this map did not issue it."""
        return self._by_name[name.lower()]

    def items(self):
        return self._by_key.items()
