"""Drawing charts with matplotlib (PNG, SVG) and kitchens as text.

Input: a ``chart.Chart`` (``draw``), a ``chart.MapView`` (``draw_map``), a ``kitchen.world.World`` and
optionally a simulation state (``ascii_map``, ``map_png``), or a ``kitchen.engine.KitchenResult`` (``gantt_png``).
Output: ``draw`` writes a PNG or SVG file of a fixed width (``WIDTH_PX`` at ``DPI``) whose height follows
the number of lanes, and returns its (width, height) in pixels: title on top, the Gantt axes, then the legend
and the notes below the axes (they never cover a bar), then for kitchens the map with each agent's walk.
Text from plans is drawn as written, never as markup (``PLAIN_TEXT``: no mathtext, no LaTeX).
``ascii_map`` is text (walls '#', floor '.', one letter per station kind, agents as digits 1-9 in scenario
order, a legend of stations and what lies on them).  matplotlib is optional and imported only to draw
(``RenderUnavailable`` when it is missing).  The command is ``chronoplan render`` (chronoplan.commands.render).
"""
from __future__ import annotations

import math
import textwrap
from typing import Any, Optional

from chronoplan.runtime.chart import (
    INK,
    VIOLATION,
    Bar,
    Chart,
    ChartStation,
    Fill,
    MapView,
    Path,
    clipped,
    code_positions,
    map_mark_labels,
    mark_levels,
    next_starts,
    tick_marks,
)
from chronoplan.runtime.chart_build import kitchen_chart, kitchen_map, letter_kinds, station_letter
from chronoplan.runtime.kitchen.explain import describe_object

DPI = 100
WIDTH_PX = 1200
LANE_PX = 30                  # one lane: a bar (60%) and room above it for violation codes
TITLE_PX = 56
AXIS_PX = 52                  # tick labels and the axis label under the Gantt axes
LEGEND_ROW_PX = 22
NOTE_PX = 16
MAP_CELL_PX = 34
FONT = 8
INSTALL_HINT = "PNG and SVG output need matplotlib: pip install matplotlib (or pip install 'chronoplan[test]')"


class RenderUnavailable(RuntimeError):
    """matplotlib is not installed (pip install matplotlib)."""


# ------------------------------------------------------------------------------------------ text
def ascii_map(world, state=None, legend: bool = True) -> str:
    m = world.map
    grid = [["#" if (x, y) in m.walls else "." for x in range(m.width)] for y in range(m.height)]
    for s in m.stations:
        grid[s.y][s.x] = station_letter(world, s.kind)
    pos = state.pos if state is not None else world.start_pos
    for i, a in enumerate(world.agents):
        x, y = pos[a]
        grid[y][x] = str(i + 1) if i < 9 else "@"
    lines = ["".join(r) for r in grid]
    if legend:
        place = world.roles.get("placement")
        for s in m.stations:
            desc = f"{station_letter(world, s.kind)} {s.name} ({s.x},{s.y})" + (f" {s.arg}" if s.arg else "")
            if state is not None and place is not None:
                items = [describe_object(world, state, t[0]) for t in state.rels[place].by(1, s.name)]
                if items:
                    desc += ": " + ", ".join(items)
            elif s.item:
                desc += f" with {s.item}"
            lines.append("  " + desc)
        lines.append("  " + ", ".join(f"{i + 1} = {a}" for i, a in enumerate(world.agents[:9])))
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ matplotlib
# text from plans (tool names, actions, agents) is never markup: no mathtext ("$...$"), no LaTeX
PLAIN_TEXT: Any = {"text.parse_math": False, "text.usetex": False}


def matplotlib_available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise RenderUnavailable(INSTALL_HINT) from exc
    return plt


def _legend_rows(n: int, ncol: int) -> int:
    return math.ceil(n / ncol) if n else 0


def _map_px(view: Optional[MapView]) -> tuple[int, int]:
    """(width, height) of the map axes in pixels (0, 0 without a map)."""
    if view is None:
        return 0, 0
    cell = max(2, min(MAP_CELL_PX, 560 // max(1, view.height), 700 // max(1, view.width)))
    return cell * view.width, cell * view.height


def layout(chart: Chart) -> dict:
    """Pixel geometry of ``draw``'s figure: heights of its parts from the top, and the total."""
    chart = clipped(chart)
    ncol = 4
    g = {"title": TITLE_PX, "gantt": max(2, chart.lanes) * LANE_PX, "axis": AXIS_PX,
         "legend": LEGEND_ROW_PX * _legend_rows(len(chart.legend), ncol) + 10, "ncol": ncol}
    mw, mh = _map_px(chart.kitchen)
    g["map"] = mh + 40 if mh else 0
    g["map_width"] = mw
    g["notes"] = NOTE_PX * len(note_lines(chart)) + (14 if chart.notes else 0)
    g["height"] = g["title"] + g["gantt"] + g["axis"] + g["legend"] + g["map"] + g["notes"] + 12
    longest = max((len(r.name) for r in chart.rows), default=4)
    g["left"] = min(260, 24 + 6 * longest)
    return g


def draw(chart: Chart, path, fmt: Optional[str] = None) -> tuple[int, int]:
    """Write ``chart`` as PNG or SVG (``fmt``, else from the suffix); returns (width, height) in pixels."""
    plt = _pyplot()
    import matplotlib
    fmt = (fmt or str(path).rsplit(".", 1)[-1]).lower()
    chart = clipped(chart)
    g = layout(chart)
    width, height = WIDTH_PX, g["height"]
    with matplotlib.rc_context({**PLAIN_TEXT, "svg.fonttype": "none", "font.size": FONT, "hatch.linewidth": 0.8}):
        fig = plt.figure(figsize=(width / DPI, height / DPI), dpi=DPI)
        try:
            fig.text(0.5, 1 - 22 / height, chart.title, ha="center", va="center", fontsize=12, weight="bold",
                     color=INK if chart.valid else VIOLATION)
            top = g["title"]
            ax = fig.add_axes(_rect(g["left"], top, width - g["left"] - 40, g["gantt"], width, height))
            _gantt(ax, chart, plt, width - g["left"] - 40)
            top += g["gantt"] + g["axis"]
            _legend(fig, chart, plt, top, height, g["ncol"])
            top += g["legend"]
            if chart.kitchen is not None:
                mw, mh = _map_px(chart.kitchen)
                max_ = fig.add_axes(_rect(g["left"], top + 28, mw, mh, width, height))
                _map(max_, chart.kitchen, plt, legend_x=(g["left"] + mw + 24) / width)
                top += g["map"]
            for k, (line, error) in enumerate(note_lines(chart)):
                fig.text(12 / width, 1 - (top + 10 + NOTE_PX * k) / height, line, ha="left", va="top",
                         fontsize=FONT, color=VIOLATION if error else INK, family="monospace")
            fig.savefig(path, format=fmt, dpi=DPI)
        finally:
            plt.close(fig)
    return width, height


NOTE_CHARS = 172              # monospace characters in one line of notes


def note_lines(chart: Chart) -> list[tuple[str, bool]]:
    """The notes wrapped to the figure's width: (line, is it an error)."""
    out = []
    for note in chart.notes:
        error = note[:1] in ("E", "T")
        for line in textwrap.wrap(note, NOTE_CHARS, subsequent_indent="    ") or [""]:
            out.append((line, error))
    return out


def _rect(left: float, top: float, w: float, h: float, width: int, height: int) -> list:
    """An axes rectangle in figure fractions from pixel offsets measured from the top left."""
    return [left / width, 1 - (top + h) / height, w / width, h / height]


def _text_colour(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 0.6 else "white"


def _gantt(ax, chart: Chart, plt, axes_px: float) -> None:
    lo, hi = chart.span()
    pad = (hi - lo) * 0.01
    ax.set_xlim(lo - pad, hi + pad)
    lanes = max(1, chart.lanes)
    ax.set_ylim(lanes, 0)
    offsets = chart.lane_offsets()
    px_per_unit = axes_px / ((hi - lo) + 2 * pad)
    # rows: labels at their middle, light lines between rows, a darker one between groups
    ax.set_yticks([offsets[i] + r.lanes / 2 for i, r in enumerate(chart.rows)])
    ax.set_yticklabels([r.name for r in chart.rows])
    ax.tick_params(axis="y", length=0)
    for i, r in enumerate(chart.rows[1:], 1):
        same = r.group == chart.rows[i - 1].group
        ax.axhline(offsets[i], color="#cccccc" if same else "#666666", linewidth=0.6 if same else 1.0)
    ticks = tick_marks(chart)
    ax.set_xticks([t for t, _ in ticks])
    ax.set_xticklabels([s for _, s in ticks])
    ax.set_xlabel(chart.x_label)
    ax.grid(True, axis="x", color="#eeeeee", linewidth=0.6)
    ax.set_axisbelow(True)
    next_start = next_starts(chart)
    code_x = code_positions(chart, px_per_unit, (FONT - 1) * 0.68 * DPI / 72)
    for i, b in enumerate(chart.bars):
        y = offsets[b.row] + b.lane
        _bar(ax, b, y, plt, code_x.get(i, b.start))
        _bar_label(ax, b, y, px_per_unit, next_start.get(i))
    for src, dst in chart.links:
        a, b = chart.bars[src], chart.bars[dst]
        ax.annotate("", xy=(b.start, offsets[b.row] + b.lane + 0.65), xytext=(a.end, offsets[a.row] + a.lane + 0.65),
                    arrowprops=dict(arrowstyle="->", color="#777777", linewidth=0.8, shrinkA=0, shrinkB=1))
    levels = mark_levels(chart, px_per_unit, (FONT - 1) * 0.68 * DPI / 72)
    for i, m in enumerate(chart.marks):
        _mark(ax, m, offsets, chart, lanes, levels.get(i, 0))
    for v in chart.vlines:
        ax.axvline(v.time, color=v.colour, linestyle="--", linewidth=1.2)
        ax.text(v.time, 0, v.label, color=v.colour, ha="center", va="bottom", fontsize=FONT)


BAR_TOP, BAR_H = 0.35, 0.6     # a bar fills [lane + 0.35, lane + 0.95]; codes sit above it


def _bar(ax, b: Bar, y: float, plt, code_x: float) -> None:
    top = y + BAR_TOP
    if b.end <= b.start:
        ax.plot([b.start, b.start], [top, top + BAR_H], color=VIOLATION if b.codes else b.colour, linewidth=2.2,
                solid_capstyle="butt")
    else:
        w = b.end - b.start
        if b.fill is Fill.SOLID or b.fill is Fill.LEVEL:
            ax.add_patch(plt.Rectangle((b.start, top), w, BAR_H, facecolor=b.colour, edgecolor="white",
                                       linewidth=0.6))
        elif b.fill is Fill.OPEN:
            ax.add_patch(plt.Rectangle((b.start, top), w, BAR_H, facecolor=b.colour + "40", edgecolor=b.colour,
                                       hatch="////", linewidth=0.8))
            if b.busy_end is not None and b.busy_end > b.start:
                ax.add_patch(plt.Rectangle((b.start, top), b.busy_end - b.start, BAR_H, facecolor=b.colour,
                                           edgecolor="white", linewidth=0.6))
        else:
            ax.add_patch(plt.Rectangle((b.start, top), w, BAR_H, facecolor=b.colour + "80", edgecolor=b.colour,
                                       hatch="..", linewidth=0.8))
        if b.codes:
            ax.add_patch(plt.Rectangle((b.start, top), w, BAR_H, fill=False, edgecolor=VIOLATION, linewidth=2.0))
    if b.codes:
        ax.text(code_x, top - 0.03, b.code_text, color=VIOLATION, fontsize=FONT - 1, weight="bold",
                ha="left", va="bottom", clip_on=True)


def _bar_label(ax, b: Bar, y: float, px_per_unit: float, next_start: Optional[float]) -> None:
    if not b.label:
        return
    text_px = len(b.label) * FONT * 0.62 * DPI / 72
    width_px = (b.end - b.start) * px_per_unit
    mid = y + BAR_TOP + BAR_H / 2
    if text_px + 4 <= width_px:
        solid = (b.fill in (Fill.SOLID, Fill.LEVEL)
                 or (b.busy_end is not None and b.busy_end - b.start >= (b.end - b.start) / 2))
        ax.text((b.start + b.end) / 2, mid, b.label, ha="center", va="center", fontsize=FONT,
                color=_text_colour(b.colour) if solid else INK)
    elif next_start is None or (next_start - b.end) * px_per_unit >= text_px + 6:
        ax.text(b.end + 3 / px_per_unit, mid, b.label, ha="left", va="center", fontsize=FONT, color=INK)


def _mark(ax, m, offsets: list, chart: Chart, lanes: int, level: int = 0) -> None:
    if m.row is None:
        y0, y1 = 0, lanes
    else:
        y0 = offsets[m.row]
        y1 = y0 + chart.rows[m.row].lanes
    if m.violation:                      # labels of close marks on stacked levels (``mark_levels``)
        ax.plot([m.time, m.time], [y0 + 0.05, y1 - 0.05], color=VIOLATION, linewidth=1.6)
        ax.text(m.time, y0 + 0.3 + 0.28 * level * min(1.0, (y1 - y0)), " " + m.label, color=VIOLATION,
                fontsize=FONT - 1, weight="bold", ha="left", va="center")
    else:
        ax.plot([m.time], [y0 + 0.2], marker="v", color=INK, markersize=6)
        lo, hi = ax.get_xlim()
        right = m.time > lo + 0.85 * (hi - lo)
        ax.text(m.time, y0 + 0.2, m.label + " " if right else " " + m.label, fontsize=FONT - 1,
                ha="right" if right else "left", va="center", color=INK)


def _legend(fig, chart: Chart, plt, top: float, height: int, ncol: int) -> None:
    if not chart.legend:
        return
    from matplotlib.lines import Line2D
    handles = []
    for e in chart.legend:
        if e.fill is Fill.OPEN:
            handles.append(plt.Rectangle((0, 0), 1, 1, facecolor=e.colour + "40", edgecolor=e.colour, hatch="////"))
        elif e.fill is Fill.HELD:
            handles.append(plt.Rectangle((0, 0), 1, 1, facecolor=e.colour + "80", edgecolor=e.colour, hatch=".."))
        elif e.fill is Fill.MARK:
            handles.append(Line2D([], [], marker="v", color=e.colour, linestyle="none", markersize=7))
        else:
            handles.append(plt.Rectangle((0, 0), 1, 1, facecolor=e.colour))
    fig.legend(handles, [e.label for e in chart.legend], loc="upper center", ncol=ncol, frameon=False,
               bbox_to_anchor=(0.5, 1 - top / height), fontsize=FONT, handlelength=2.2, columnspacing=2.0)


def _map(ax, view: MapView, plt, legend_x: float) -> None:
    for (x, y) in view.walls:
        ax.add_patch(plt.Rectangle((x, y), 1, 1, color="#333333"))
    for s in view.stations:
        ax.add_patch(plt.Rectangle((s.x, s.y), 1, 1, facecolor="#d9c7a7", edgecolor="#7f6a45"))
        if s.detail:                     # a dispenser: its letter and what it gives
            ax.text(s.x + 0.5, s.y + 0.36, s.letter, ha="center", va="center", fontsize=FONT, weight="bold")
            ax.text(s.x + 0.5, s.y + 0.76, s.detail[:7], ha="center", va="center", fontsize=FONT - 3)
        else:
            ax.text(s.x + 0.5, s.y + 0.5, s.letter, ha="center", va="center", fontsize=FONT, weight="bold")
    n = max(1, len(view.paths))
    handles = []
    for k, p in enumerate(view.paths):
        off = (k - (n - 1) / 2) * min(0.12, 0.5 / n)
        xs = [x + 0.5 + off for x, _ in p.cells]
        ys = [y + 0.5 + off for _, y in p.cells]
        line, = ax.plot(xs, ys, color=p.colour, linewidth=2, alpha=0.85, solid_joinstyle="round")
        handles.append(line)
        ax.plot(xs[:1], ys[:1], marker="o", color=p.colour, markersize=13)
        ax.text(xs[0], ys[0], str(k + 1), ha="center", va="center", color="white", fontsize=FONT, weight="bold")
        if len(p.cells) > 1:
            ax.plot(xs[-1:], ys[-1:], marker="s", color=p.colour, markersize=8, markeredgecolor="white")
        for (x, y), _code in p.marks:
            ax.plot([x + 0.5], [y + 0.5], marker="x", color=VIOLATION, markersize=10, markeredgewidth=2.5)
    for x, y, code, _k in map_mark_labels(view):
        ax.text(x, y, code, color=VIOLATION, fontsize=FONT - 1, weight="bold")
    ax.set_xlim(0, view.width)
    ax.set_ylim(view.height, 0)
    ax.set_aspect("equal")
    ax.set_xticks(range(view.width))
    ax.set_yticks(range(view.height))
    ax.tick_params(labelsize=FONT - 1, length=0)
    ax.grid(True, color="#dddddd", linewidth=0.5)
    ax.set_axisbelow(True)
    ax.set_title(f"map of {view.title}: walks (circle = start, square = end)", fontsize=FONT + 1)
    labels = [f"{k + 1} = {p.agent}" for k, p in enumerate(view.paths)]
    letters = letter_kinds(view.stations)
    handles += [plt.Rectangle((0, 0), 1, 1, facecolor="#d9c7a7", edgecolor="#7f6a45") for _ in letters]
    labels += [f"{letter} = {kind}" for letter, kind in letters]
    ax.figure.legend(handles, labels, loc="upper left", bbox_to_anchor=(legend_x, ax.get_position().y1),
                     frameon=False, fontsize=FONT)


def draw_map(view: MapView, path, fmt: Optional[str] = None) -> tuple[int, int]:
    """Write a map alone as PNG or SVG; returns (width, height) in pixels."""
    plt = _pyplot()
    fmt = (fmt or str(path).rsplit(".", 1)[-1]).lower()
    import matplotlib
    mw, mh = _map_px(view)
    width, height = mw + 260, mh + 60
    with matplotlib.rc_context(PLAIN_TEXT):
        fig = plt.figure(figsize=(width / DPI, height / DPI), dpi=DPI)
        try:
            ax = fig.add_axes(_rect(30, 36, mw, mh, width, height))
            _map(ax, view, plt, legend_x=(mw + 50) / width)
            fig.savefig(path, format=fmt, dpi=DPI)
        finally:
            plt.close(fig)
    return width, height


# ------------------------------------------------------------------------------------------ kitchens
def map_png(world, path, state=None) -> None:
    """The kitchen's map with its agents where ``state`` puts them (at their start without one)."""
    pos = state.pos if state is not None else world.start_pos
    view = kitchen_map(world, {a: [(0, tuple(pos[a]))] for a in world.agents})
    draw_map(view, path, "png")


def gantt_png(result, path, title: Optional[str] = None) -> None:
    """A Gantt chart of a kitchen run (``kitchen.engine.KitchenResult``) with its errors, as PNG."""
    name = result.world.scenario.name
    chart = kitchen_chart(result, {}, {}, list(result.errors),
                          title or f"{name}: {'OCT ' + str(result.oct) if result.success else 'failed'}",
                          result.success)
    draw(chart, path, "png")


__all__ = ["Chart", "ChartStation", "Path", "RenderUnavailable", "ascii_map", "draw", "draw_map", "gantt_png", "layout",
           "map_png", "matplotlib_available"]


if __name__ == "__main__":  # pragma: no cover - the old entry point, kept only to name the command
    import sys
    print("python -m chronoplan.runtime.render is replaced by: chronoplan render FILE PLAN [--scenario S] "
          "-o OUT.png|OUT.svg|OUT.html", file=sys.stderr)
    sys.exit(2)
