"""Hostile-input generators shared by tests/test_fuzz.py and bench/soak_hostile.py (issue #17).

Every generator takes a ``random.Random`` (hypothesis supplies one with ``st.randoms(use_true_random=False)``,
the soak script a seeded one), so the same mutations run in the property tests and in the 100,000-plan soak.
Input: valid plans of every kind (the bundled domains' plans and reference plans) and the bundled domain
texts.  Output: mutated values, JSON text, truncated/BOM/fenced/deeply nested text, bytes, and domain text
with tokens deleted, duplicated, swapped or numbers changed.
"""
from __future__ import annotations

import copy
import json
import math
import random
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "domains" / "recipes"
R2P_SCEN = "Roast-Chicken_Garlic-Potatoes"
KITCHEN_SCEN = "burger_s42_o1_a2"
VALID_SCHEDULE = json.loads((RECIPES / "plans" / "valid.json").read_text())
FAULTY_SCHEDULE = json.loads((RECIPES / "plans" / "faulty.json").read_text())


def _hms(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


# Recipe2Plan plan.json lists: [step, recipe, duration_s, start_s]; the text form: Step(step, Task, dur, start)
VALID_R2P_LIST = [[e["step"], e["task"], e["duration"], e["start"]] for e in VALID_SCHEDULE["schedule"]]
VALID_R2P_TEXT = ", ".join(f"Step({s}, {t}, {_hms(d)}, {_hms(b)})" for s, t, d, b in VALID_R2P_LIST)


def _M(x, y):
    return {"action": "MoveTo", "target": [x, y]}


def _I(station):
    return {"action": "Interact", "target": station}


# tests/test_kitchen_plans.py, BURGER_B: a valid two-agent plan for burger_s42_o1_a2 (OCT 47)
VALID_KITCHEN = {"plan": {
    "agent1": [_M(5, 6), _I("dispenser5"), _M(8, 1), _I("chopping_board2"), {"action": "Process",
               "target": "chopping_board2"}, _I("chopping_board2"), _M(4, 2), _I("stove1"), {"action": "Finish"}],
    "agent2": [_M(2, 4), _I("dispenser4"), _M(4, 5), _I("table4"), _I("table4"), _M(4, 2),
               {"action": "Wait", "duration": 26}, _I("stove1"), _M(4, 3), _I("serving_window1"),
               {"action": "Finish"}],
}}

# ------------------------------------------------------------------------------------ hostile values
DEEP_LIST: Any = []
for _ in range(200):
    DEEP_LIST = [DEEP_LIST]

JSON_HOSTILE = [math.nan, math.inf, -math.inf, 10 ** 30, 10 ** 400, -1, 0, -0.0, 2.5, 1e-300, 10 ** 12 + 1,
                "²", "１２", "٣", "1²", "", " ", "00:１0:00", "NaN", "Infinity", None, True, False, [], {}, [None],
                {"": None}, "x" * 5000, "\ufeff", "\x00", "\u2028", "\ud800", "Step(", "Step(1, ", "$1.x",
                "Roast-Chicken", "agent1", "agent9", "table2", [10 ** 20, -(10 ** 20)], DEEP_LIST]
PY_HOSTILE = [Decimal("NaN"), Decimal("-Infinity"), Decimal("1e999999"), Decimal("0.1"), Fraction(1, 3),
              complex(1, 0), {1, 2}, frozenset(), b"\xff\xfe", bytearray(b"{}"), (1, 2), object, range(3),
              10 ** 5000, float("nan")]


def hostile_value(rnd: random.Random, python: bool) -> Any:
    pool = JSON_HOSTILE + (PY_HOSTILE if python else [])
    v = rnd.choice(pool)
    return copy.deepcopy(v) if isinstance(v, (list, dict)) else v


def _mutate_number(rnd: random.Random, x: Any) -> Any:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return x
    ops = [lambda: -x, lambda: x * 10 ** rnd.randint(1, 40), lambda: x + 0.5, lambda: str(x), lambda: x / 3,
           lambda: 0, lambda: 2 ** 63, lambda: -(2 ** 63), lambda: float("nan"),
           lambda: str(x).translate(str.maketrans("0123456789", "０１２３４５６７８９"))]
    try:
        return rnd.choice(ops)()
    except (OverflowError, ValueError):          # a huge int: no float, no str()
        return -x


# ------------------------------------------------------------------------------------ value mutation
def _slots(value: Any, out: list, depth: int = 0) -> list:
    """(container, key) for every node below the root (bounded)."""
    if depth > 12 or len(out) > 400:
        return out
    if isinstance(value, dict):
        for k in list(value):
            out.append((value, k))
            _slots(value[k], out, depth + 1)
    elif isinstance(value, list):
        for i in range(len(value)):
            out.append((value, i))
            _slots(value[i], out, depth + 1)
    return out


def mutate_value(rnd: random.Random, value: Any, python: bool = False, max_ops: int = 4) -> Any:
    """A deep copy of ``value`` with 0..max_ops structural mutations (replace by a hostile value, delete,
    duplicate, swap, add a key, change a number, change a string's type)."""
    value = copy.deepcopy(value)
    for _ in range(rnd.randint(0, max_ops)):
        slots = _slots(value, [])
        if not slots:
            return hostile_value(rnd, python) if rnd.random() < 0.3 else value
        parent, key = rnd.choice(slots)
        op = rnd.randrange(7)
        if op == 0:
            parent[key] = hostile_value(rnd, python)
        elif op == 1:
            del parent[key]
        elif op == 2 and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif op == 3 and isinstance(parent, list) and len(parent) > 1:
            j = rnd.randrange(len(parent))
            parent[key], parent[j] = parent[j], parent[key]
        elif op == 4 and isinstance(parent, dict):
            parent[rnd.choice(["scenario", "agent", "extra", "", "²", "plan", "steps", "after", "start"])] = \
                hostile_value(rnd, python)
        elif op == 5:
            parent[key] = _mutate_number(rnd, parent[key])
        else:
            v = parent[key]
            parent[key] = [v] if rnd.random() < 0.5 else ({"v": v} if not isinstance(v, str) else v * 3)
    return value


# ------------------------------------------------------------------------------------ text mutation
def mutate_text(rnd: random.Random, text: str, max_ops: int = 3) -> str:
    """Character-level damage: delete/duplicate/replace a character or a slice, insert a hostile character."""
    for _ in range(rnd.randint(1, max_ops)):
        if not text:
            break
        i = rnd.randrange(len(text))
        j = min(len(text), i + rnd.randint(1, 12))
        op = rnd.randrange(4)
        if op == 0:
            text = text[:i] + text[j:]
        elif op == 1:
            text = text[:j] + text[i:j] + text[j:]
        elif op == 2:
            text = text[:i] + rnd.choice(["²", "１", "٣", "\ufeff", "\x00", "\u2028", "\\", '"', "NaN", "]", "}",
                                          "{", "[", ",", ":", "1" * 50, "-", "e999"]) + text[i:]
        else:
            text = text[:i] + rnd.choice("0123456789") + text[i + 1:]
    return text


def render(rnd: random.Random, value: Any, python_ok: bool = True) -> Any:
    """One representation of a plan value: the value itself, JSON text (plain, BOM, fenced, truncated, damaged,
    deeply nested), UTF-8 bytes (sometimes broken).  ``python_ok``: the value itself may be returned."""
    kinds = ["json", "json", "bom", "fence", "truncated", "damaged", "deep", "bytes"] + (["value"] * 3 if python_ok
                                                                                         else [])
    kind = rnd.choice(kinds)
    if kind == "value" or isinstance(value, str) and kind == "json":
        return value
    try:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=rnd.random() < 0.5)
    except (TypeError, ValueError, RecursionError):
        return value if python_ok else "{}"
    if kind == "bom":
        return "\ufeff" + text
    if kind == "fence":
        return "```json\n" + text + "\n```"
    if kind == "truncated":
        return text[:rnd.randrange(len(text) + 1)]
    if kind == "damaged":
        return mutate_text(rnd, text)
    if kind == "deep":
        d = rnd.choice([10, 900, 1100, 5000])
        return "[" * d + text + "]" * d if rnd.random() < 0.5 else '{"a":' * d + text + "}" * d
    if kind == "bytes":
        data = text.encode("utf-8", "surrogatepass")
        if data and rnd.random() < 0.5:
            i = rnd.randrange(len(data))
            data = data[:i] + rnd.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80"]) + data[i:]
        return data
    return text


# ------------------------------------------------------------------------------------ plans per kind
def step_text(rnd: random.Random) -> str:
    """Recipe2Plan text: the valid plan with hostile Step(...) entries, or token-damaged."""
    entries = re.findall(r"Step\([^)]*\)", VALID_R2P_TEXT)
    for _ in range(rnd.randint(0, 4)):
        op = rnd.randrange(5)
        if op == 0 and entries:
            del entries[rnd.randrange(len(entries))]
        elif op == 1 and entries:
            entries.insert(rnd.randrange(len(entries)), rnd.choice(entries))
        elif op == 2:
            fields = [rnd.choice(["0", "²", "１", "-1", "1" * 45, "3.5", "", "x", "99"]),
                      rnd.choice(["Roast-Chicken", "Garlic-Potatoes", "Nope", "", "'Roast-Chicken'", "Step("]),
                      rnd.choice(["00:10:00", "10 min", "00:１0:00", "NaN", "99:99:99", "1e9", "", "-5", "1" * 60,
                                  "10 parsecs"]),
                      rnd.choice(["00:00:00", "5", "１", "inf", "00:00:00:00", "1.5 hours", ""])]
            del fields[rnd.randrange(5):rnd.randrange(5)]
            entries.insert(rnd.randrange(len(entries) + 1), "Step(" + ", ".join(fields) + ")")
        elif op == 3 and entries:
            i = rnd.randrange(len(entries))
            entries[i] = mutate_text(rnd, entries[i], 2)
        elif op == 4 and len(entries) > 1:
            i, j = rnd.randrange(len(entries)), rnd.randrange(len(entries))
            entries[i], entries[j] = entries[j], entries[i]
    sep = rnd.choice([", ", "\n", " ", ",\n", "; "])
    text = sep.join(entries)
    return rnd.choice(["", "Plan:\n", "[", "\ufeff"]) + text + rnd.choice(["", "]", "\n", " Step("])


def recipes_plan(rnd: random.Random, python: bool = False) -> Any:
    """One plan for the recipes scenario, any of its formats, valid or hostile."""
    kind = rnd.randrange(5)
    if kind == 0:
        return step_text(rnd)
    base = [VALID_SCHEDULE, FAULTY_SCHEDULE, VALID_SCHEDULE["schedule"], VALID_R2P_LIST][kind - 1]
    value = mutate_value(rnd, base, python)
    return render(rnd, value, python_ok=python) if rnd.random() < 0.7 else value


def kitchen_plan(rnd: random.Random, python: bool = False) -> Any:
    value = mutate_value(rnd, VALID_KITCHEN, python)
    return render(rnd, value, python_ok=python) if rnd.random() < 0.6 else value


def tool_plan(rnd: random.Random, ref: dict, arena: dict, python: bool = False) -> Any:
    value = mutate_value(rnd, arena if rnd.random() < 0.4 else ref, python)
    return render(rnd, value, python_ok=python) if rnd.random() < 0.6 else value


WORLDS = ROOT / "domains" / "planning"
WORLD_SCEN = "sussman"
VALID_WORLD = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]


def world_plan(rnd: random.Random, python: bool = False) -> Any:
    """One plan for the blocksworld world: PDDL plan text (damaged characters) or a JSON list (mutated values)."""
    if rnd.random() < 0.5:
        lines = [f"{i}.000: {s.upper() if rnd.random() < 0.3 else s} [1]" if rnd.random() < 0.3 else s
                 for i, s in enumerate(VALID_WORLD)]
        return mutate_text(rnd, "\n".join(lines)) if rnd.random() < 0.8 else "\n".join(lines)
    base = VALID_WORLD if rnd.random() < 0.5 else [{"action": s[1:-1].split()[0], "args": s[1:-1].split()[1:]}
                                                   for s in VALID_WORLD]
    value = mutate_value(rnd, base, python)
    return render(rnd, value, python_ok=python) if rnd.random() < 0.6 else value


def jsonl_line(rnd: random.Random, plan: Any) -> bytes:
    """One non-blank JSON Lines line (no newline inside) for a plan from the generators above."""
    if isinstance(plan, (bytes, bytearray)):
        data = bytes(plan)
    elif isinstance(plan, str):
        data = plan.encode("utf-8", "surrogatepass")
    else:
        try:
            data = json.dumps(plan).encode()
        except (TypeError, ValueError, RecursionError):
            data = b'{"not json": '
    data = data.replace(b"\n", b" ").replace(b"\r", b" ")
    return data if data.strip() else b"{}"


# ------------------------------------------------------------------------------------ domain text
_TOKEN = re.compile(r'"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*|\d+(?:\.\d+)?|[A-Za-z_][\w-]*|\s+|.', re.S)


def domain_tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def mutate_domain(rnd: random.Random, text: str, max_ops: int = 4) -> str:
    """Grammar-aware damage of a domain text: delete, duplicate or swap a token, change a number literal (up to
    5,000 digits), insert a token, a form feed / vertical tab / U+2028, or an import of a file that is not .chrono
    (each of those three was a compiler bug in the issue #17 review: traceback, line numbers, import)."""
    toks = domain_tokens(text)
    for _ in range(rnd.randint(1, max_ops)):
        real = [i for i, t in enumerate(toks) if not t.isspace()]
        if not real:
            break
        i = rnd.choice(real)
        op = rnd.randrange(5)
        if op == 0:
            del toks[i]
        elif op == 1:
            toks.insert(i, toks[i])
        elif op == 2:
            j = rnd.choice(real)
            toks[i], toks[j] = toks[j], toks[i]
        elif op == 3:
            nums = [k for k in real if toks[k][:1].isdigit()]
            k = rnd.choice(nums) if nums else i
            toks[k] = rnd.choice(["0", "-1", "1" * rnd.randint(1, 60), "00", "1.5", "²", "１", "1e9", "9" * 19,
                                  str(10 ** 12 + 1), "0.000000001", "7" * 5000])
        else:
            toks.insert(i, rnd.choice(["{", "}", "(", ")", ",", "step", "after", "within", "\ufeff", "²", "$",
                                       "procedure", "scenario", '"', '"""', "min", "\n", "::", "->", "@", "\f",
                                       "\v", "\u2028", "\x85", '\nimport "x.txt"\n', '\nimport "."\n']))
    return "".join(toks)
