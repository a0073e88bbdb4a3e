"""Pictures of kitchens: an ASCII map, a PNG map and a Gantt chart of a validated plan.

Input: a ``kitchen_world.World`` (and optionally a simulation state), or a ``kitchen.KitchenResult``.
Output: ``ascii_map`` (text: walls '#', floor '.', one letter per station kind, agents as digits 1-9 in
scenario order, a legend of stations and what lies on them); ``map_png`` and ``gantt_png`` write PNG files
with matplotlib, an optional dependency imported only there (``RenderUnavailable`` when it is missing).
The Gantt chart has one row per agent, a bar per executed action coloured by its surface action (MoveTo,
Interact, Process, Wait), markers for served orders and a line at the OCT.

    python -m chronoplan.runtime.render FILE [--scenario S] [--plan PLAN.json] [--png MAP.png] [--gantt G.png]
"""
from __future__ import annotations

import argparse
import sys
from typing import Optional

KIND_LETTERS = {"table": "T", "dispenser": "D", "chopping_board": "C", "stove": "O", "serving_window": "W",
                "sink": "K", "plate_return": "R", "trash": "X"}
COLOURS = {"MoveTo": "#4e79a7", "Interact": "#f28e2b", "Process": "#e15759", "Wait": "#bab0ac"}


class RenderUnavailable(RuntimeError):
    """matplotlib is not installed (pip install matplotlib)."""


def _letter(world, kind: str) -> str:
    for k, letter in KIND_LETTERS.items():
        if world.isa_type(kind, k):
            return letter
    return kind[:1].upper() or "?"


def ascii_map(world, state=None, legend: bool = True) -> str:
    m = world.map
    grid = [["#" if (x, y) in m.walls else "." for x in range(m.width)] for y in range(m.height)]
    for s in m.stations:
        grid[s.y][s.x] = _letter(world, s.kind)
    pos = state.pos if state is not None else world.start_pos
    for i, a in enumerate(world.agents):
        x, y = pos[a]
        grid[y][x] = str(i + 1) if i < 9 else "@"
    lines = ["".join(r) for r in grid]
    if legend:
        place = world.roles.get("placement")
        for s in m.stations:
            desc = f"{_letter(world, s.kind)} {s.name} ({s.x},{s.y})" + (f" {s.arg}" if s.arg else "")
            if state is not None and place is not None:
                from chronoplan.runtime.kitchen_explain import describe_object
                items = [describe_object(world, state, t[0]) for t in state.rels[place].by(1, s.name)]
                if items:
                    desc += ": " + ", ".join(items)
            elif s.item:
                desc += f" with {s.item}"
            lines.append("  " + desc)
        lines.append("  " + ", ".join(f"{i + 1} = {a}" for i, a in enumerate(world.agents[:9])))
    return "\n".join(lines)


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:                                   # pragma: no cover - depends on the install
        raise RenderUnavailable("PNG output needs matplotlib (pip install matplotlib)") from exc
    return plt


def map_png(world, path, state=None) -> None:
    plt = _pyplot()
    m = world.map
    fig, ax = plt.subplots(figsize=(max(4, m.width * 0.6), max(3, m.height * 0.6)))
    for (x, y) in m.walls:
        ax.add_patch(plt.Rectangle((x, y), 1, 1, color="#333333"))
    for s in m.stations:
        ax.add_patch(plt.Rectangle((s.x, s.y), 1, 1, color="#d9c7a7", ec="#7f6a45"))
        ax.text(s.x + 0.5, s.y + 0.5, _letter(world, s.kind) + (f"\n{s.arg[:5]}" if s.arg else ""),
                ha="center", va="center", fontsize=7)
    pos = state.pos if state is not None else world.start_pos
    for i, a in enumerate(world.agents):
        x, y = pos[a]
        ax.add_patch(plt.Circle((x + 0.5, y + 0.5), 0.35, color="#59a14f"))
        ax.text(x + 0.5, y + 0.5, str(i + 1), ha="center", va="center", color="white", fontsize=8)
    ax.set_xlim(0, m.width)
    ax.set_ylim(m.height, 0)
    ax.set_aspect("equal")
    ax.set_xticks(range(m.width))
    ax.set_yticks(range(m.height))
    ax.grid(True, color="#dddddd", linewidth=0.5)
    ax.set_title(f"{world.scenario.name}")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)


def gantt_png(result, path, title: Optional[str] = None) -> None:
    plt = _pyplot()
    agents = list(result.world.agents)
    fig, ax = plt.subplots(figsize=(10, 1 + 0.6 * len(agents)))
    for row, a in enumerate(agents):
        for r in result.runs.get(a, ()):
            width = r.end - r.start
            colour = COLOURS.get(r.surface, "#76b7b2")
            if width > 0:
                ax.barh(row, float(width), left=float(r.start), color=colour, edgecolor="white", height=0.6)
            elif r.operator is not None:
                ax.plot([float(r.start)], [row], marker="|", color=colour, markersize=12)
    for dish, t, agent, _ in result.served:
        row = agents.index(agent) if agent in agents else 0
        ax.plot([float(t)], [row + 0.4], marker="v", color="black")
        ax.text(float(t), row + 0.45, dish, fontsize=7, ha="center", va="bottom")
    if result.oct is not None:
        ax.axvline(float(result.oct), color="black", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(agents)))
    ax.set_yticklabels(agents)
    ax.invert_yaxis()
    ax.set_xlabel("time")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLOURS.values()]
    ax.legend(handles, list(COLOURS), loc="upper right", fontsize=7, ncol=4)
    ax.set_title(title or f"{result.world.scenario.name}: OCT {result.oct}")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m chronoplan.runtime.render", description=__doc__.splitlines()[0])
    p.add_argument("file")
    p.add_argument("--scenario", "-s")
    p.add_argument("--plan", help="a ParaCook plan to execute first (the map then shows the final state)")
    p.add_argument("--png", help="write the map as PNG")
    p.add_argument("--gantt", help="write a Gantt chart of the plan as PNG")
    a = p.parse_args(argv)
    import chronoplan
    from chronoplan.runtime.kitchen import KitchenSim
    from chronoplan.runtime.kitchen_world import World
    project = chronoplan.load(a.file)
    world = World(project, project.scenario(a.scenario).name)
    state, result = None, None
    if a.plan:
        from pathlib import Path

        from chronoplan.validators.paracook_read import read_cook_plan
        read = read_cook_plan(Path(a.plan).read_text(encoding="utf-8"))
        sim = KitchenSim(world)
        for agent, steps in read.steps.items():
            if agent in sim.plan:
                sim.add(agent, steps)
        sim.run()
        state, result = sim.st, sim.result()
    print(ascii_map(world, state))
    try:
        if a.png:
            map_png(world, a.png, state)
        if a.gantt:
            if result is None:
                p.error("--gantt needs --plan")
            gantt_png(result, a.gantt)
    except RenderUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
