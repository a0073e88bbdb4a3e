"""Test helper: seeded mutants of Recipe2Plan plans, as reply text.

Input: a plan as plan.json entries ``[step, recipe, duration_s, start_s]``, its cooking.json instance (the
recipes) and a seed.  Output: ``mutants(entries, recipes, seed) -> [(kind, text)]``, one mutant per kind in
``KINDS`` that applies to the plan (a kind that finds nothing to change, e.g. no two actions at the same
start, gives none), and ``render`` (entries -> ``Step(step, recipe, HH:MM:SS, HH:MM:SS)`` text).
Deterministic: the same arguments always give the same mutants (``random.Random(f"{seed}:{kind}")``).
"""
from __future__ import annotations

import random
from collections.abc import Callable
from typing import Optional


def hms(secs) -> str:
    secs = int(secs)
    return f"{secs // 3600:02d}:{secs % 3600 // 60:02d}:{secs % 60:02d}"


def entry(e, fmt: Callable = hms, sep: str = ", ", head: str = "Step") -> str:
    s, r, d, st = e
    return f"{head}({s}{sep}{r}{sep}{fmt(d)}{sep}{fmt(st)})"


def render(entries, joiner: str = ", ") -> str:
    return joiner.join(entry(e) for e in entries)


def _steps(recipes, name):
    return next((r["steps"] for r in recipes if r["recipe"] == name), None)


def _spec(recipes, e):
    steps = _steps(recipes, e[1])
    return steps[e[0]] if steps is not None and 0 <= e[0] < len(steps) else None


def _pick(rng, entries, pred=lambda e: True) -> Optional[int]:
    idx = [i for i, e in enumerate(entries) if pred(e)]
    return rng.choice(idx) if idx else None


def _copy(entries):
    return [list(e) for e in entries]


# ------------------------------------------------------------------------------------ kinds
def shift_start(rng, es, recipes):
    i = _pick(rng, es)
    es = _copy(es)
    es[i][3] = max(0, es[i][3] + rng.choice([-300, -120, -60, -30, 30, 60, 120, 600]))
    return render(es)


def swap_equal_start(rng, es, recipes):
    pairs = [(i, j) for i in range(len(es)) for j in range(i + 1, len(es)) if es[i][3] == es[j][3]]
    if not pairs:
        return None
    i, j = rng.choice(pairs)
    es = _copy(es)
    es[i], es[j] = es[j], es[i]
    return render(es)


def drop(rng, es, recipes):
    es = _copy(es)
    del es[_pick(rng, es)]
    return render(es)


def duplicate(rng, es, recipes):
    es = _copy(es)
    i = _pick(rng, es)
    es.insert(rng.randrange(i, len(es) + 1), list(es[i]))
    return render(es)


def wrong_recipe(rng, es, recipes):
    es = _copy(es)
    i = _pick(rng, es)
    others = [r["recipe"] for r in recipes if r["recipe"] != es[i][1]] + ["Soup", es[i][1].lower()]
    es[i][1] = rng.choice(others)
    return render(es)


def wrong_step(rng, es, recipes):
    es = _copy(es)
    i = _pick(rng, es)
    n = len(_steps(recipes, es[i][1]))
    es[i][0] = rng.choice([k for k in range(n + 3) if k != es[i][0]])
    return render(es)


def duration_change(rng, es, recipes):
    es = _copy(es)
    i = _pick(rng, es)
    es[i][2] = max(0, es[i][2] + rng.choice([-120, -60, -30, 30, 60, 300]))
    return render(es)


def _split(rng, es, recipes, interruptible: bool, zero: bool = False):
    i = _pick(rng, es, lambda e: _spec(recipes, e) is not None and bool(_spec(recipes, e)["interrupt"]) ==
              interruptible and e[2] >= 60)
    if i is None:
        return None
    es = _copy(es)
    s, r, d, st = es[i]
    if zero:
        cut = rng.choice([0, d])                     # a 0-length chunk before or after the whole step
        parts = [[s, r, 0, st + cut], [s, r, d, st]] if cut == 0 else [[s, r, d, st], [s, r, 0, st + d]]
    else:
        first = rng.randrange(1, d // 30) * 30 if d >= 60 else d // 2
        gap = rng.choice([0, 0, 60])
        parts = [[s, r, first, st], [s, r, d - first, st + first + gap]]
    es[i:i + 1] = parts
    return render(es)


def split_interruptible(rng, es, recipes):
    return _split(rng, es, recipes, True)


def zero_chunk(rng, es, recipes):
    return _split(rng, es, recipes, True, zero=True) or _split(rng, es, recipes, False, zero=True)


def split_noninterruptible(rng, es, recipes):
    return _split(rng, es, recipes, False)


def _continuous(recipes):
    return lambda e: _spec(recipes, e) is not None and not _spec(recipes, e)["parallel"] and e[2] > 0


def overlap_continuous(rng, es, recipes):
    cont = [i for i, e in enumerate(es) if _continuous(recipes)(e)]
    if len(cont) < 2:
        return None
    i, j = rng.sample(cont, 2)
    es = _copy(es)
    es[i][3] = es[j][3] + rng.randrange(0, max(1, es[j][2] // 30)) * 30
    return render(es)


def overlap_resource(rng, es, recipes):
    uses = [(i, o) for i, e in enumerate(es) if _spec(recipes, e) for o in _spec(recipes, e)["physical"]]
    pairs = [(i, j) for i, o in uses for j, p in uses if i != j and o == p]
    if not pairs:
        return None
    i, j = rng.choice(pairs)
    es = _copy(es)
    es[i][3] = es[j][3] + rng.randrange(0, max(1, es[j][2] // 60)) * 60
    return render(es)


def break_lag(rng, es, recipes):
    i = _pick(rng, es, lambda e: _spec(recipes, e) is not None and bool(_spec(recipes, e)["time_constraint"]))
    if i is None:
        return None
    es = _copy(es)
    delay = rng.choice([180, 360, 900])
    t0 = es[i][3]
    for e in es:
        if e[3] >= t0 and (e is es[i] or rng.random() < 0.5):
            e[3] += delay
    return render(es)


def shift_tail(rng, es, recipes):
    es = _copy(es)
    t0 = es[_pick(rng, es)][3]
    delay = rng.choice([30, 60, 600])
    for e in es:
        if e[3] >= t0:
            e[3] += delay
    return render(es)


def spacing(rng, es, recipes):
    which = rng.choice(["one", "all"])
    sep = rng.choice([",", ",  ", " , ", ",\t"])
    k = rng.randrange(len(es))
    return ", ".join(entry(e, sep=sep if which == "all" or n == k else ", ") for n, e in enumerate(es))


def lowercase(rng, es, recipes):
    k = rng.randrange(len(es))
    head = rng.choice(["step", "STEP", "Step "])
    everywhere = rng.random() < 0.3
    return ", ".join(entry(e, head=head if everywhere or n == k else "Step") for n, e in enumerate(es))


def unit_words(rng, es, recipes):
    def words(secs):
        secs = int(secs)
        style = rng.choice(["min", "sec", "half", "mins", "hour"])
        if style == "half" and secs % 60 == 30:
            return f"{secs / 60} min"
        if style == "half":
            return f"{secs // 60}.0 min"
        if style == "mins":
            return f"{secs // 60} mins"
        if style == "hour" and secs % 3600 == 0 and secs:
            return f"{secs // 3600} hour"
        if style == "sec" or secs % 60:
            return f"{secs} sec"
        return f"{secs // 60} min"

    return ", ".join(entry(e, fmt=words) if rng.random() < 0.5 else entry(e) for e in es)


def three_arg(rng, es, recipes):
    if rng.random() < 0.5:
        return ", ".join(f"Step({s}, {r}, {hms(st)})" for s, r, _, st in es)
    k = rng.randrange(len(es))
    return ", ".join(f"Step({e[0]}, {e[1]}, {hms(e[3])})" if n == k else entry(e) for n, e in enumerate(es))


def bare_numbers(rng, es, recipes):
    k = rng.randrange(len(es))
    every = rng.random() < 0.5
    return ", ".join(entry(e, fmt=lambda x: f"{x // 60}") if every or n == k else entry(e) for n, e in enumerate(es))


def mm_ss(rng, es, recipes):
    return "\n".join(entry(e, fmt=lambda x: f"{int(x) // 60}:{int(x) % 60:02d}") for e in es)


def reorder(rng, es, recipes):
    es = _copy(es)
    if rng.random() < 0.5:
        es.reverse()
    else:
        rng.shuffle(es)
    return render(es, rng.choice([", ", "\n"]))


def overlong_chunk(rng, es, recipes):
    """A first chunk of an interruptible step, then a second one given the whole duration again."""
    i = _pick(rng, es, lambda e: _spec(recipes, e) is not None and _spec(recipes, e)["interrupt"] and e[2] >= 60)
    if i is None:
        return None
    es = _copy(es)
    s, r, d, st = es[i]
    es[i:i + 1] = [[s, r, 30, st], [s, r, d, st + rng.choice([30, 60, 120])]]
    return render(es)


def late_preheat(rng, es, recipes):
    """An action that sets an object property (a preheat) moved after the first action that needs it."""
    setters = [i for i, e in enumerate(es) if _spec(recipes, e) and any(
        a.get("update") for a in _spec(recipes, e)["physical"].values())]
    if not setters:
        return None
    i = rng.choice(setters)
    users = [j for j, e in enumerate(es) if _spec(recipes, e) and any(
        a.get("require") for a in _spec(recipes, e)["physical"].values())]
    es = _copy(es)
    es[i][3] = max([es[j][3] for j in users] + [es[i][3]]) + rng.choice([0, 60])
    return render(es)


def same_preheat(rng, es, recipes):
    """Two actions setting the same property to the same value over the same interval (one per recipe)."""
    def update(e):
        spec = _spec(recipes, e)
        return spec and tuple(sorted((o, tuple(sorted(a.get("update", {}).items())))
                                     for o, a in spec["physical"].items() if a.get("update")))
    ups = [(i, update(e)) for i, e in enumerate(es) if update(e)]
    pairs = [(i, j) for i, u in ups for j, v in ups if i < j and u == v and es[i][1] != es[j][1]
             and es[i][2] == es[j][2]]
    es = _copy(es)
    if pairs:                  # (no instance of the data has one: two recipes that preheat alike)
        i, j = rng.choice(pairs)
        es[j][3] = es[i][3]
    else:                      # the same recipe's preheat twice, over the same interval
        i = next((i for i, _ in ups), None)
        if i is None:
            return None
        es.insert(i + 1, list(es[i]))
    return render(es)


def huge(rng, es, recipes):
    """A 400-digit time (infinity as a float), or a step number over Python's 4,300-digit limit."""
    es = _copy(es)
    i = _pick(rng, es)
    style = rng.choice(["start", "duration", "late", "property"] * 4 + ["step"])   # "step": slow in the oracle
    needs = [j for j, e in enumerate(es) if _spec(recipes, e) and any(
        a.get("require") for a in _spec(recipes, e)["physical"].values())]
    if style == "property" and needs:  # needs an unset property at an infinite start: the original crashes
        j = rng.choice(needs)
        es[j] = es[j][:3] + ["inf"]
        es = [e for e in es if e is es[j] or not (_spec(recipes, e) and any(
            a.get("update") for a in _spec(recipes, e)["physical"].values()))]
        return ", ".join(f"Step({e[0]}, {e[1]}, {hms(e[2])}, {'9' * 400}:00)" if e[3] == "inf" else entry(e)
                         for e in es)
    if style == "step":
        body = [entry(e) for e in es]
        body[i] = f"Step({'7' * 4400}, {es[i][1]}, {hms(es[i][2])}, {hms(es[i][3])})"
        return ", ".join(body)
    big = "9" * 400
    text = [entry(e) for e in es]
    s, r, d, st = es[i]
    if style == "start":
        text[i] = f"Step({s}, {r}, {hms(d)}, {big}:00)"
    elif style == "duration":
        text[i] = f"Step({s}, {r}, {big}:00, {hms(st)})"
    else:                      # everything after an infinite start, then one more action at infinity
        text.append(f"Step({s}, {r}, {hms(d)}, {big}:00:00)")
    return ", ".join(text)


def decorated(rng, es, recipes):
    style = rng.choice(["quotes", "fence", "think", "prose"])
    if style == "quotes":
        return ", ".join(f"Step({s}, '{r}', '{hms(d)}', \"{hms(st)}\")" for s, r, d, st in es)
    if style == "fence":
        return "```\n" + render(es, "\n") + "\n```"
    if style == "think":
        junk = f"Step({es[0][0]}, {es[0][1]}, 00:00:01, 00:00:00)"
        return f"<think>draft: {junk}</think>\n" + render(es, "\n")
    return "Here is my plan:\n" + render(es, "\n") + "\nAll steps are scheduled."


KINDS: dict[str, Callable] = {f.__name__: f for f in (
    shift_start, swap_equal_start, drop, duplicate, wrong_recipe, wrong_step, duration_change,
    split_interruptible, zero_chunk, split_noninterruptible, overlap_continuous, overlap_resource, break_lag,
    shift_tail, spacing, lowercase, unit_words, three_arg, bare_numbers, mm_ss, reorder, decorated,
    overlong_chunk, late_preheat, same_preheat, huge)}


def mutants(entries, recipes, seed) -> list[tuple[str, str]]:
    """One mutant per applicable kind, in ``KINDS`` order."""
    out = []
    for kind, fn in KINDS.items():
        text = fn(random.Random(f"{seed}:{kind}"), entries, recipes)
        if text is not None:
            out.append((kind, text))
    return out
