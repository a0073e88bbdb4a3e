"""Reversible name mangling for PDDL.

Input: chronoplan names (case-sensitive, any characters: task names such as ``Roast-Chicken``, agent and
resource names, property values such as ``425`` or ``1/2``).  Output: PDDL names (case-insensitive, ASCII
letters, digits, ``-`` and ``_``, starting with a letter) and back.

A ``NameMap`` builds each name from a kind prefix and components joined by ``-``; a component is folded to
lowercase and every character outside ``[a-z0-9_-]`` becomes ``-`` (``slug``), so names stay readable
(``step-roast-chicken-3``).  Folding loses information (``Rice`` / ``rice``, ``1/2`` / ``1-2``), so the map
keeps the inverse: a name that is already taken by another key gets the first free suffix ``-2``, ``-3``...
in the order names are requested (the exporters request them in source order, so output is
deterministic); a name that would be a PDDL keyword or not start with a letter gets the prefix ``n-``.
``NameMap.lookup`` returns the key of any name it issued, case-insensitively.
"""
from __future__ import annotations

from collections.abc import Hashable
from typing import Optional

RESERVED = frozenset({
    "and", "or", "not", "imply", "forall", "exists", "when", "at", "over", "all", "start", "end", "either",
    "object", "number", "define", "domain", "problem", "increase", "decrease", "assign", "scale-up",
    "scale-down", "minimize", "maximize", "total-time", "total-cost", "duration", "preference", "always",
    "sometime", "within", "at-most-once", "sometime-after", "sometime-before", "always-within", "hold-during",
    "hold-after", "is-violated", "length", "requirements", "types", "constants", "predicates", "functions",
    "action", "durative-action", "objects", "init", "goal", "metric", "true", "false",
})


def slug(text) -> str:
    """One readable component: lowercase ASCII letters, digits, ``_`` and ``-``; anything else -> ``-``."""
    out = []
    for ch in str(text):
        c = ch.lower() if "A" <= ch <= "Z" else ch
        out.append(c if ("a" <= c <= "z") or ("0" <= c <= "9") or c in "-_" else "-")
    return "".join(out)


def value_code(value) -> str:
    """A component for a property value: booleans as true/false, numbers and strings through ``slug``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return slug(value)


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
        pieces = ([prefix] if prefix else []) + [slug(p) for p in parts]
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
