"""Test oracle: Recipe2Plan's rules as the paper states them, checked on a whole plan at once.

Input: one instance of cooking.json (a list of recipes) and a plan as chunks ``(step, recipe, duration_s,
start_s)``.  Output: ``check(...)`` -> the set of broken rule names (empty = valid).  Written independently
of chronoplan's simulator (no event queue, no shared code): every rule is a direct statement over the set of
chunks, so listing order cannot matter.  Rules (the paper's, with chronoplan's documented reading where the
paper is silent):

- every step of both recipes is executed; chunk lengths are positive; a non-interruptible step runs its full
  duration in one chunk; an interruptible step's chunks add up to its duration and do not overlap each other;
- a step starts (its first chunk) only after each prerequisite has finished (its last chunk's end);
- one cook: continuous chunks do not overlap, and no chunk starts strictly inside a continuous chunk
  ("you can not start another action while executing a continuous action");
- objects (oven, microwave, stove) have capacity 1: chunks using one object do not overlap;
- a step that requires an object property value finds it at its start: the value written by the setter
  that finished last at or before that start (``update`` takes effect when the setter finishes), else the
  initial value (temperature 0);
- a time constraint {"X": "L"} on step Y: start(Y) - end(X) <= L.
"""
from __future__ import annotations

import re
from fractions import Fraction


def seconds(text: str) -> int:
    m = re.fullmatch(r"\s*(\d+)\s*(sec|min|hour)s?\s*", text)
    return int(m.group(1)) * {"sec": 1, "min": 60, "hour": 3600}[m.group(2)]


def check(recipes: list, chunks: list, constrained: bool = True) -> set:  # noqa: C901
    steps = {(r["recipe"], s["step"]): s for r in recipes for s in r["steps"]}
    broken: set = set()
    by_step: dict = {}
    for step, recipe, dur, start in chunks:
        if (recipe, step) not in steps:
            broken.add("unknown step")
            continue
        if dur <= 0:
            broken.add("duration")
            continue
        if start < 0:
            broken.add("time")
        by_step.setdefault((recipe, step), []).append((Fraction(start), Fraction(dur)))
    first, end = {}, {}
    for key, s in steps.items():
        cs = sorted(by_step.get(key, []))
        if not cs:
            broken.add("missing step")
            continue
        total = Fraction(seconds(s["time"]))
        if not s["interrupt"] and (len(cs) != 1 or cs[0][1] != total):
            broken.add("interruption" if len(cs) > 1 or cs[0][1] < total else "duration")
        if s["interrupt"] and sum(d for _, d in cs) != total:
            broken.add("duration")
        if any(a + d > b for (a, d), (b, _) in zip(cs, cs[1:])):
            broken.add("repeated")
        first[key], end[key] = cs[0][0], cs[-1][0] + cs[-1][1]
    for key, s in steps.items():
        if key not in first:
            continue
        for p in s["prequisites"]:
            pk = (key[0], p)
            if pk in end and first[key] < end[pk]:
                broken.add("dependency")
        if constrained:
            for x, lag in s["time_constraint"].items():
                xk = (key[0], int(x))
                if xk in end and first[key] - end[xk] > seconds(lag):
                    broken.add("time constraint")
    flat = [(a, a + d, key) for key, cs in by_step.items() for a, d in cs]
    continuous = [(a, b) for a, b, key in flat if not steps[key]["parallel"]]
    for i, (a, b) in enumerate(continuous):
        if any(max(a, c) < min(b, d) for c, d in continuous[i + 1:]):
            broken.add("concurrency")
    if any(a < t < b for a, b in continuous for t, _, _ in flat):
        broken.add("concurrency")
    objects: dict = {}
    for a, b, key in flat:
        for obj in steps[key]["physical"]:
            objects.setdefault(obj, []).append((a, b))
    for ivs in objects.values():
        ivs.sort()
        if any(b > c for (_, b), (c, _) in zip(ivs, ivs[1:])):
            broken.add("object occupancy")
    for key, s in steps.items():
        if key not in first:
            continue
        for obj, arg in s["physical"].items():
            for prop, want in arg.get("require", {}).items():
                setters = [(end[k], t["physical"][obj]["update"][prop]) for k, t in steps.items()
                           if k in end and prop in t["physical"].get(obj, {}).get("update", {})
                           and end[k] <= first[key]]
                have = max(setters, key=lambda x: x[0])[1] if setters else 0
                if Fraction(str(have)) != Fraction(str(want)):
                    broken.add("object property")
    return broken
