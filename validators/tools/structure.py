"""Dependency graphs of tool plans: reachability and the PlanningArena structure classes.

Input: steps as ids in order plus direct edges ``(before, after)``.  Output: ancestor sets (bitsets over
positions, so a 5,000-step chain costs a few MB), and ``classify`` -> one of ``parallel``, ``chain``,
``one-to-many``, ``many-to-one``, ``many-to-many`` (a single step is ``chain``).  Definitions, on the
transitive reduction of the edges:

* parallel: no edges;  chain: one path through every step;
* one-to-many: one source, two or more sinks, every other step has exactly one predecessor (a fan-out tree);
* many-to-one: two or more sources, one sink, every other step has exactly one successor (a fan-in tree);
* many-to-many: any other DAG (for example a diamond, or layers of several steps feeding several steps).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Optional

STRUCTURES = ("parallel", "chain", "one-to-many", "many-to-one", "many-to-many")


def ancestors(n: int, preds: list) -> list[int]:
    """``preds[i]`` = positions ``j < i`` that step ``i`` directly depends on; bitset of all ancestors."""
    anc = [0] * n
    for i in range(n):
        acc = 0
        for j in preds[i]:
            if 0 <= j < i:
                acc |= anc[j] | (1 << j)
        anc[i] = acc
    return anc


def reaches(anc: list[int], a: int, b: int) -> bool:
    """Does position ``a`` come before position ``b`` through the dependency edges?"""
    return 0 <= a < len(anc) and 0 <= b < len(anc) and bool(anc[b] >> a & 1)


def closure(ids: Iterable[int], edges: Iterable[tuple[int, int]]) -> set[tuple[int, int]]:
    """The transitive closure of ``edges`` over ``ids`` (small graphs: reference plans)."""
    ids = list(dict.fromkeys(ids))
    succ: dict = {i: set() for i in ids}
    for a, b in edges:
        if a in succ and b in succ and a != b:
            succ[a].add(b)
    out: set = set()
    for start in ids:
        seen, stack = set(), list(succ[start])
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            stack.extend(succ[x])
        out.update((start, x) for x in seen)
    return out


def reduction(ids: Iterable[int], edges: Iterable[tuple[int, int]]) -> set[tuple[int, int]]:
    """The transitive reduction of an acyclic edge set."""
    ids = list(dict.fromkeys(ids))
    edges = {(a, b) for a, b in edges if a != b}
    clo = closure(ids, edges)
    return {(a, b) for a, b in edges
            if not any((a, c) in clo and (c, b) in clo for c in ids if c not in (a, b))}


def is_acyclic(ids: Iterable[int], edges: Iterable[tuple[int, int]]) -> bool:
    return not any(a == b for a, b in closure(ids, edges))


def classify(ids: Iterable[int], edges: Iterable[tuple[int, int]]) -> Optional[str]:
    """The structure class of a DAG (None when it has a cycle)."""
    ids = list(dict.fromkeys(ids))
    edges = list(edges)
    if not is_acyclic(ids, edges):
        return None
    red = reduction(ids, edges)
    if not red:
        return "parallel" if len(ids) > 1 else "chain"
    preds = {i: [a for a, b in red if b == i] for i in ids}
    succs = {i: [b for a, b in red if a == i] for i in ids}
    sources = [i for i in ids if not preds[i]]
    sinks = [i for i in ids if not succs[i]]
    if len(sources) == 1 and len(sinks) == 1 and all(len(preds[i]) <= 1 and len(succs[i]) <= 1 for i in ids):
        return "chain"
    if len(sources) == 1 and len(sinks) >= 2 and all(len(preds[i]) == 1 for i in ids if i not in sources):
        return "one-to-many"
    if len(sinks) == 1 and len(sources) >= 2 and all(len(succs[i]) == 1 for i in ids if i not in sinks):
        return "many-to-one"
    return "many-to-many"
