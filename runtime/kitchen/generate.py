"""Seeded ParaCook-style instance generator: categories x order sizes x agent counts x map seeds -> .chrono.

Input: a compiled kitchen domain (default: the bundled domains/paracook/physics.chrono) and the grid of
configurations (categories, order sizes, agent counts, seeds; ParaCook's is 6 x 1-4 x 1-3 x {42, 84, 126,
128, 256} = 360).  Output: chronoplan source text: one file per (category, seed) holding its map and a
scenario per (order size, agent count), named ``<category>_s<seed>_o<k>_a<n>``, importing the physics.
``python -m chronoplan.runtime.kitchen.generate OUTDIR`` writes OUTDIR/physics.chrono and the instance files.

Maps (ParaCook's benchmark maps): 10x8, no border walls, 2 walls, 2 chopping boards, 4 tables (2 with a
plate), 1 serving window, 1 sink, 1 plate return, the category's stoves (sushi 2 with pots; burger 2 with
pans; pasta and burrito 2 with pans and 2 with pots; salad and sashimi none) and one dispenser per
ingredient its recipes use (salad 3, sashimi 2, sushi 4, burger 5, burrito 5, pasta 6).  Cells are drawn
with ``random.Random(f"paracook-map-{category}-{seed}")`` until the floor is connected and every station
has a floor neighbour; agents start on distinct floor cells of the same map (agent k is the same cell for
every agent count).  Orders: four dishes of the category drawn with replacement from
``random.Random(f"paracook-orders-{category}-{seed}")``; an order of size k is the first k, so orders grow
by prefix.  Everything is deterministic.
"""
from __future__ import annotations

import argparse
import random
import sys
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

CATEGORIES = ("burger", "burrito", "pasta", "salad", "sashimi", "sushi")
SEEDS = (42, 84, 126, 128, 256)
ORDER_SIZES = (1, 2, 3, 4)
AGENT_COUNTS = (1, 2, 3)
STOVES = {"sushi": ("pot", "pot"), "burger": ("pan", "pan"), "pasta": ("pan", "pan", "pot", "pot"),
          "burrito": ("pan", "pan", "pot", "pot"), "salad": (), "sashimi": ()}
DISPENSER_SYMBOLS = "123456789abcdefghijklmnopqrstuvwxyz"
PHYSICS = Path(__file__).resolve().parent.parent.parent / "domains" / "paracook" / "physics.chrono"


@dataclass(frozen=True)
class Layout:
    name: str
    width: int
    height: int
    rows: tuple            # strings of the art
    legend: tuple          # (symbol, legend text)
    agents: tuple          # start cells, in agent order


def category_recipes(project, category: str) -> list:
    return [r for r in project.recipes.values() if r.category == category]


def ingredients_of(project, category: str) -> list:
    """Ingredient kinds used by the category's recipes, in order of first use."""
    out = []
    for r in category_recipes(project, category):
        for ing in r.items:
            if ing.name not in out:
                out.append(ing.name)
    return out


def stations_for(project, category: str, scale: int = 1) -> list:
    """(symbol, legend, count) of the category's stations; ``scale`` multiplies every count (big maps)."""
    out = [("C", "chopping_board", 2 * scale), ("T", "table with plate", 2 * scale), ("t", "table", 2 * scale),
           ("S", "serving_window", scale), ("K", "sink", scale), ("R", "plate_return", scale)]
    stoves = STOVES.get(category, ())
    if stoves.count("pan"):
        out.append(("P", "stove with pan", stoves.count("pan") * scale))
    if stoves.count("pot"):
        out.append(("O", "stove with pot", stoves.count("pot") * scale))
    for sym, kind in zip(DISPENSER_SYMBOLS, ingredients_of(project, category)):
        out.append((sym, f"dispenser({kind})", scale))
    return out


def _connected(width, height, blocked: set) -> bool:
    floor = [(x, y) for y in range(height) for x in range(width) if (x, y) not in blocked]
    if not floor:
        return False
    seen = {floor[0]}
    q = deque([floor[0]])
    while q:
        x, y = q.popleft()
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if n not in seen and n not in blocked and 0 <= n[0] < width and 0 <= n[1] < height:
                seen.add(n)
                q.append(n)
    return len(seen) == len(floor)


def make_layout(project, category: str, seed: int, *, width: int = 10, height: int = 8, walls: int = 2,
                agents: int = 3, scale: int = 1, name: Optional[str] = None) -> Layout:
    rng = random.Random(f"paracook-map-{category}-{seed}" + (f"-{width}x{height}-{scale}" if scale > 1 or
                                                             (width, height) != (10, 8) else ""))
    kinds = stations_for(project, category, scale)
    symbols = [sym for sym, _, n in kinds for _ in range(n)]
    cells = [(x, y) for y in range(height) for x in range(width)]
    for _ in range(10_000):
        chosen = rng.sample(cells, len(symbols) + walls)
        wall_cells, station_cells = set(chosen[:walls]), chosen[walls:]
        blocked = set(chosen)
        if not _connected(width, height, blocked):
            continue
        if not all(any(n not in blocked and 0 <= n[0] < width and 0 <= n[1] < height
                       for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))) for x, y in station_cells):
            continue
        floor = sorted(set(cells) - blocked)
        if len(floor) < agents:
            continue
        grid = [["."] * width for _ in range(height)]
        for x, y in wall_cells:
            grid[y][x] = "#"
        for (x, y), sym in zip(station_cells, symbols):
            grid[y][x] = sym
        starts = tuple(rng.sample(floor, agents))
        legend = tuple((sym, text) for sym, text, _ in kinds)
        return Layout(name or f"{category}_s{seed}", width, height, tuple("".join(r) for r in grid), legend, starts)
    raise RuntimeError(f"no connected layout found for {category} seed {seed}")


def make_orders(project, category: str, seed: int, n: int = 4) -> list:
    rng = random.Random(f"paracook-orders-{category}-{seed}")
    dishes = [r.name for r in category_recipes(project, category)]
    return [rng.choice(dishes) for _ in range(n)]


def map_text(layout: Layout) -> str:
    art = "\n".join("  " + r for r in layout.rows)
    legend = ", ".join(f"{sym} = {text}" if sym.isalpha() else f'"{sym}" = {text}' for sym, text in layout.legend)
    return f'map {layout.name} """\n{art}\n""" where {legend}\n'


def scenario_text(name: str, layout: Layout, n_agents: int, orders: list) -> str:
    agents = ", ".join(f"agent{i + 1} at ({x}, {y})" for i, (x, y) in enumerate(layout.agents[:n_agents]))
    return f"scenario {name} {{\n  map {layout.name}\n  agents {agents}\n  orders {', '.join(orders)}\n}}\n"


def instance_file(project, category: str, seed: int, *, orders=ORDER_SIZES, agents=AGENT_COUNTS,
                  physics: str = "physics.chrono") -> str:
    layout = make_layout(project, category, seed, agents=max(agents))
    dishes = make_orders(project, category, seed, max(orders))
    parts = [f"# Generated by chronoplan.runtime.kitchen.generate: category {category}, seed {seed}.\n"
             f"domain paracook\nimport \"{physics}\"\n", map_text(layout)]
    for k in orders:
        for n in agents:
            parts.append(scenario_text(f"{category}_s{seed}_o{k}_a{n}", layout, n, dishes[:k]))
    return "\n".join(parts)


def generate(project=None, *, categories=CATEGORIES, seeds=SEEDS, orders=ORDER_SIZES, agents=AGENT_COUNTS,
             physics_name: str = "physics.chrono") -> dict:
    """{file name: text}: the physics and one instance file per (category, seed)."""
    if project is None:
        from chronoplan.compiler.driver import load  # lazy: parser + checker (lark, networkx)
        project = load(PHYSICS)
    files = {physics_name: PHYSICS.read_text(encoding="utf-8")}
    for c in categories:
        for s in seeds:
            files[f"{c}_s{s}.chrono"] = instance_file(project, c, s, orders=orders, agents=agents,
                                                      physics=physics_name)
    return files


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m chronoplan.runtime.kitchen.generate",
                                description=__doc__.splitlines()[0])
    p.add_argument("outdir")
    p.add_argument("--categories", default=",".join(CATEGORIES))
    p.add_argument("--seeds", default=",".join(map(str, SEEDS)))
    p.add_argument("--orders", default="1,2,3,4", help="order sizes")
    p.add_argument("--agents", default="1,2,3", help="agent counts")
    a = p.parse_args(argv)
    try:
        cats = [c for c in a.categories.split(",") if c]
        bad = [c for c in cats if c not in CATEGORIES]
        if bad:
            p.error(f"unknown categories: {', '.join(bad)}")
        files = generate(categories=cats, seeds=[int(x) for x in a.seeds.split(",")],
                         orders=[int(x) for x in a.orders.split(",")], agents=[int(x) for x in a.agents.split(",")])
    except ValueError as exc:
        p.error(str(exc))
    out = Path(a.outdir)
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    n = sum(text.count("\nscenario ") for text in files.values())
    print(f"wrote {len(files)} files ({n} scenarios) to {out}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
