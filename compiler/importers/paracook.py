"""ParaCook map JSON (+ orders) -> one self-contained chronoplan file (physics, map, scenario).

Input: one ParaCook map file ``{"name", "width", "height", "agents": [{"name", "x", "y"}], "tiles": [{"x",
"y", "type": "station" | "obstacle", "name", "provides"?, "item"?, "kind"?}]}`` and the orders (dish names,
with or without a "category/" prefix, e.g. ``burger/burger_cheese``), from ``--orders`` or an "orders" list in
the JSON.  Output: ``{"<stem>.chrono": text}``: the bundled ParaCook physics and recipes
(domains/paracook/physics.chrono, without its ``domain`` line so every imported file is its own namespace),
the map as ASCII art whose legend keeps each station's ParaCook name (``"A" = dispenser(meat) as
dispenser1``), and ``scenario <stem>`` with the agents and orders.  Station kinds follow ParaCook's name
rules (first match of: table, dispenser, chopping_board, stove, serving_window, sink, plate_return, trash)
unless a tile gives an explicit "kind".  Errors (``ImportFormatError``) name the file, the tile and the rule.
"""
from __future__ import annotations

import importlib.resources
import re
from pathlib import Path
from typing import Any, Optional

from chronoplan.compiler.importers import ImportFormatError
from chronoplan.compiler.importers.common import Names, comment, read_json

KIND_RULES = ("table", "dispenser", "chopping_board", "stove", "serving_window", "sink", "plate_return", "trash")
CONTAINERS = ("plate", "pan", "pot")
SYMBOLS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!$%&*+-/:;<=>?@^_~'`|()[]{},"
MAX_SIDE = 1000


def physics_text() -> str:
    try:
        text = (importlib.resources.files("chronoplan.domains") / "paracook" / "physics.chrono").read_text("utf-8")
    except (FileNotFoundError, ModuleNotFoundError, OSError) as exc:
        raise ImportFormatError(f"the bundled ParaCook physics cannot be read: {exc}") from None
    return re.sub(r"(?m)^domain\s+\S+\s*$", "# (domain line removed: this file is its own namespace)", text, count=1)


def _recipes(physics: str) -> dict:
    """dish name -> category, read from the physics' recipe declarations."""
    return {m.group(1): m.group(2) for m in re.finditer(r"(?m)^recipe\s+(\w+)\s+in\s+(\w+)", physics)}


def _types(physics: str) -> set:
    out = set()
    for m in re.finditer(r"(?m)^type\s+(.*)$", physics):
        out.update(re.findall(r"(\w+)\s*<", m.group(1)))
    return out


def station_kind(name: str) -> Optional[str]:
    low = name.lower()
    for k in KIND_RULES:
        if k in low:
            return k
    return None


def _int(v: Any, where: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not v.is_integer()):
        raise ImportFormatError(f"{where}: expected an integer, got {v!r}")
    v = int(v)
    if not lo <= v <= hi:
        raise ImportFormatError(f"{where}: {v} is outside {lo}..{hi}")
    return v


def parse_orders(orders, recipes: dict, where: str) -> list:
    if isinstance(orders, str):
        orders = [o for o in re.split(r"[,\s]+", orders) if o]
    if not isinstance(orders, list) or not orders:
        raise ImportFormatError(f"{where}: give the orders with --orders dish1,dish2 (or an \"orders\" list)")
    out = []
    for o in orders:
        if not isinstance(o, str):
            raise ImportFormatError(f"{where}: an order must be a dish name, got {o!r}")
        cat, _, dish = o.rpartition("/")
        if dish not in recipes:
            raise ImportFormatError(f"{where}: unknown dish {o!r} (known: {', '.join(sorted(recipes))})")
        if cat and recipes[dish] != cat:
            raise ImportFormatError(f"{where}: dish {dish!r} is in category {recipes[dish]!r}, not {cat!r}")
        out.append(dish)
    return out


def convert_map(data: Any, stem: str, orders=None, where: str = "<map>") -> str:  # noqa: C901
    physics = physics_text()
    recipes, types = _recipes(physics), _types(physics)
    if not isinstance(data, dict):
        raise ImportFormatError(f"{where}: expected a JSON object with width, height, agents and tiles")
    w = _int(data.get("width"), f"{where}: width", 1, MAX_SIDE)
    h = _int(data.get("height"), f"{where}: height", 1, MAX_SIDE)
    tiles, agents = data.get("tiles"), data.get("agents")
    if not isinstance(tiles, list):
        raise ImportFormatError(f"{where}: \"tiles\" must be a list")
    if not isinstance(agents, list) or not agents:
        raise ImportFormatError(f"{where}: \"agents\" must be a non-empty list")
    grid = [["."] * w for _ in range(h)]
    legend, names = [], Names()
    symbols = iter(SYMBOLS)
    for i, t in enumerate(tiles):
        at = f"{where}: tiles[{i}]"
        if not isinstance(t, dict):
            raise ImportFormatError(f"{at}: expected an object")
        x, y = _int(t.get("x"), f"{at}.x", 0, w - 1), _int(t.get("y"), f"{at}.y", 0, h - 1)
        if grid[y][x] != ".":
            raise ImportFormatError(f"{at}: cell ({x}, {y}) is used twice")
        typ = t.get("type")
        if typ in ("obstacle", "wall"):
            grid[y][x] = "#"
            continue
        if typ != "station":
            raise ImportFormatError(f"{at}: unknown tile type {typ!r} (station or obstacle)")
        name = t.get("name")
        if not isinstance(name, str) or not name:
            raise ImportFormatError(f"{at}: a station needs a \"name\"")
        kind = t.get("kind") if isinstance(t.get("kind"), str) else station_kind(name)
        if kind not in KIND_RULES:
            raise ImportFormatError(f"{at}: cannot tell the kind of station {name!r} (its name contains none of "
                                    f"{', '.join(KIND_RULES)})")
        sname = names.claim(name, "station")
        if sname != name:
            raise ImportFormatError(f"{at}: station name {name!r} is not a valid name (letters, digits, _)")
        text = kind
        if kind == "dispenser":
            provides = t.get("provides")
            if not isinstance(provides, str) or provides not in types:
                raise ImportFormatError(f"{at}: dispenser {name!r} provides {provides!r}, not a known ingredient")
            text += f"({provides})"
        item = t.get("item")
        if item not in (None, "", "none"):
            if item not in CONTAINERS:
                raise ImportFormatError(f"{at}: station {name!r} holds {item!r}; initial items may only be "
                                        f"{', '.join(CONTAINERS)}")
            text += f" with {item}"
        try:
            sym = next(symbols)
        except StopIteration:
            raise ImportFormatError(f"{where}: more than {len(SYMBOLS)} stations") from None
        grid[y][x] = sym
        legend.append(f"{_quote_symbol(sym)} = {text} as {sname}")
    agent_items, seen = [], set()
    for i, a in enumerate(agents):
        at = f"{where}: agents[{i}]"
        if not isinstance(a, dict) or not isinstance(a.get("name"), str):
            raise ImportFormatError(f"{at}: expected {{\"name\", \"x\", \"y\"}}")
        x, y = _int(a.get("x"), f"{at}.x", 0, w - 1), _int(a.get("y"), f"{at}.y", 0, h - 1)
        if grid[y][x] != ".":
            raise ImportFormatError(f"{at}: agent {a['name']!r} starts at ({x}, {y}), which is not a floor tile")
        if a["name"] in seen or Names.sanitize(a["name"]) != a["name"]:
            raise ImportFormatError(f"{at}: invalid or duplicate agent name {a['name']!r}")
        seen.add(a["name"])
        agent_items.append(f"{a['name']} at ({x}, {y})")
    dishes = parse_orders(orders if orders is not None else data.get("orders"), recipes, where)
    scen = Names.sanitize(stem, "kitchen")
    art_name = f"{scen}_map"
    art = "\n".join("  " + "".join(r) for r in grid)
    return (f"# Imported from ParaCook map {comment(where)} by `chronoplan import paracook`.\n"
            f"# The ParaCook physics and recipes follow (domains/paracook/physics.chrono), then the map and scenario.\n"
            f"{physics}\n"
            f"map {art_name} \"\"\"\n{art}\n\"\"\" where " + ",\n    ".join(legend) + "\n\n"
            f"scenario {scen} {{\n  map {art_name}\n  agents {', '.join(agent_items)}\n"
            f"  orders {', '.join(dishes)}\n}}\n")


def _quote_symbol(sym: str) -> str:
    return '"' + sym.replace("\\", "\\\\").replace('"', '\\"') + '"'


def convert(sources: list, orders=None) -> dict:
    if len(sources) != 1:
        raise ImportFormatError(f"paracook takes one map file, got {len(sources)}")
    path = Path(sources[0])
    data = read_json(path)
    return {f"{path.stem}.chrono": convert_map(data, path.stem, orders, str(path))}
