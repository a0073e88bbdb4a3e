"""The picture of a graded plan, independent of how it is drawn.

Input: built by ``runtime.chart_build`` (procedure schedules, kitchen runs) and
``validators.render_charts`` (tool plans).  Output: a frozen ``Chart`` -- rows of lanes holding bars on a
time axis (or a dependency-level axis), instants, vertical lines, dependency links, legend entries, notes,
and for kitchens a ``MapView`` with each agent's trajectory -- that ``runtime.render`` draws with matplotlib
(PNG, SVG) and ``runtime.render_html`` writes as a self-contained HTML page.  ``pack_lanes`` assigns
overlapping intervals to lanes; ``clipped`` bounds a chart's height (``MAX_LANES``).
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, replace
from typing import Optional

VIOLATION = "#d62728"          # red: reserved for violations, no other bar or line uses it
INK = "#222222"
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#17becf",
           "#bcbd22", "#8c6d31", "#7f7f7f", "#393b79")
MAX_CODES = 3                  # codes written next to one bar (the rest as "+N")


def colour(i: int) -> str:
    """The i-th colour of the palette (cycling)."""
    return PALETTE[i % len(PALETTE)]


class Fill(enum.Enum):
    """How a bar is filled: SOLID (the agent is busy), OPEN (autonomous: runs while the agent is free, drawn
    hatched and light), HELD (a resource held by a step), LEVEL (a tool-plan step at its dependency level);
    MARK is a legend entry for markers."""

    SOLID = "solid"
    OPEN = "open"
    HELD = "held"
    LEVEL = "level"
    MARK = "mark"               # legend only: a marker (a served order), not a bar


@dataclass(frozen=True)
class Row:
    """A labelled row of ``lanes`` stacked lanes (an agent, a resource, a tool-plan step)."""

    name: str
    lanes: int = 1
    group: str = ""             # "agent", "resource", "step": rows of one group are drawn together


@dataclass(frozen=True)
class Bar:
    """One interval in a lane; ``busy_end`` splits it into a SOLID part [start, busy_end) and an OPEN rest
    (None: the whole bar has ``fill``).  ``start == end`` is an instant, drawn as a tick."""

    row: int
    lane: int
    start: float
    end: float
    label: str                  # short text drawn on or beside the bar
    tip: str                    # the full description (tooltips, the SVG/HTML title)
    colour: str
    fill: Fill = Fill.SOLID
    busy_end: Optional[float] = None
    codes: tuple[str, ...] = ()  # violations of this action

    @property
    def code_text(self) -> str:
        shown = " ".join(self.codes[:MAX_CODES])
        return shown + (f" +{len(self.codes) - MAX_CODES}" if len(self.codes) > MAX_CODES else "")


@dataclass(frozen=True)
class Mark:
    """An instant: a served order, or a violation that no bar carries (row None: across every row)."""

    row: Optional[int]
    time: float
    label: str
    tip: str
    violation: bool = False


@dataclass(frozen=True)
class VLine:
    """A vertical line across the chart (the OCT, the scenario limit)."""

    time: float
    label: str
    colour: str = INK


@dataclass(frozen=True)
class ChartLegendEntry:
    """One entry of a chart's legend: a swatch (colour, fill) and its label."""

    label: str
    colour: str
    fill: Fill = Fill.SOLID


@dataclass(frozen=True)
class ChartStation:
    """A station drawn on a kitchen map: its cell, its letter and its name (the IR's is ``ir.Station``)."""

    x: int
    y: int
    letter: str
    name: str
    detail: str = ""          # what it holds or gives (a dispenser's ingredient), written under the letter


@dataclass(frozen=True)
class Path:
    """An agent's walk: the cells it stood on, in order (start first); ``marks``: (cell, code) where one of
    its violations happened."""

    agent: str
    colour: str
    cells: tuple[tuple[int, int], ...]
    marks: tuple[tuple[tuple[int, int], str], ...] = ()


@dataclass(frozen=True)
class MapView:
    """A grid kitchen: walls, stations (one letter per kind) and the agents' trajectories."""

    width: int
    height: int
    walls: tuple[tuple[int, int], ...]
    stations: tuple[ChartStation, ...]
    paths: tuple[Path, ...]
    title: str = ""


@dataclass(frozen=True)
class Chart:
    """Everything one picture shows.  ``clock``: seconds per time unit (tick labels as clock times) or None
    (plain numbers); ``ticks``: explicit (position, label) ticks (tool-plan levels) instead."""

    title: str
    rows: tuple[Row, ...]
    bars: tuple[Bar, ...]
    x_label: str
    marks: tuple[Mark, ...] = ()
    vlines: tuple[VLine, ...] = ()
    links: tuple[tuple[int, int], ...] = ()     # (bar index, bar index): the second depends on the first
    legend: tuple[ChartLegendEntry, ...] = ()
    notes: tuple[str, ...] = ()                 # text under the chart: violations not drawn, omissions
    clock: Optional[int] = None
    ticks: tuple[tuple[float, str], ...] = ()
    kitchen: Optional[MapView] = None
    valid: bool = True

    @property
    def lanes(self) -> int:
        return sum(r.lanes for r in self.rows)

    def lane_offsets(self) -> list[int]:
        """The index of each row's first lane, counting from the top."""
        out, n = [], 0
        for r in self.rows:
            out.append(n)
            n += r.lanes
        return out

    def span(self) -> tuple[float, float]:
        """The time range to show (at least one unit wide)."""
        xs = [b.start for b in self.bars] + [b.end for b in self.bars] + [m.time for m in self.marks] + \
            [v.time for v in self.vlines]
        lo, hi = (min(xs), max(xs)) if xs else (0.0, 1.0)
        lo = min(lo, 0.0)
        return lo, hi if hi > lo else lo + 1.0


def pack_lanes(intervals: list[tuple[float, float]]) -> tuple[list[int], int]:
    """Greedy lanes for intervals, in start order: overlapping intervals get different lanes (an interval may
    start where another ends).  Returns each interval's lane and the number of lanes (>= 1)."""
    order = sorted(range(len(intervals)), key=lambda i: (intervals[i][0], intervals[i][1]))
    ends: list[float] = []
    lanes = [0] * len(intervals)
    for i in order:
        start, end = intervals[i]
        for k, free_at in enumerate(ends):
            if free_at <= start:
                lanes[i], ends[k] = k, max(end, start)
                break
        else:
            lanes[i] = len(ends)
            ends.append(max(end, start))
    return lanes, max(1, len(ends))


CLOCK_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)
MAX_TICKS = 12


def clock_label(seconds: float) -> str:
    """``h:mm:ss`` (``-h:mm:ss`` before 0); fractions of a second are rounded."""
    s = int(round(seconds))
    sign, s = ("-", -s) if s < 0 else ("", s)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{sign}{h}:{m:02d}:{sec:02d}"


def _number_label(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def tick_marks(chart: Chart) -> list[tuple[float, str]]:
    """The x-axis ticks: the chart's own, else round clock times (``clock``) or round numbers over its span,
    at most ``MAX_TICKS`` + 1 of them."""
    if chart.ticks:
        return list(chart.ticks)
    lo, hi = chart.span()
    if chart.clock:
        per = chart.clock
        step = next((s for s in CLOCK_STEPS if (hi - lo) * per / s <= MAX_TICKS), CLOCK_STEPS[-1]) / per
        label = lambda x: clock_label(x * per)          # noqa: E731
    else:
        step = 1.0
        while (hi - lo) / step > MAX_TICKS:
            for k in (2, 2.5, 2):
                step *= k
                if (hi - lo) / step <= MAX_TICKS:
                    break
        label = _number_label
    first = (lo // step) * step
    out, x = [], first
    while x <= hi + 1e-9 * max(1.0, abs(hi)):
        if x >= lo - 1e-9:
            out.append((x, label(x)))
        x += step
    return out


def code_positions(chart: Chart, px_per_unit: float, char_px: float) -> dict:
    """Where each bar's violation codes start (time units): at the bar's start, or just after the codes of the
    bar before it in the same lane when those would overlap."""
    out: dict = {}
    lanes: dict = {}
    for i, b in sorted(enumerate(chart.bars), key=lambda ib: (ib[1].start, ib[1].end)):
        if not b.codes:
            continue
        free = lanes.get((b.row, b.lane), -math.inf)
        x = max(b.start, free)
        out[i] = x
        lanes[(b.row, b.lane)] = x + (len(b.code_text) + 1) * char_px / px_per_unit
    return out


def next_starts(chart: Chart) -> dict:
    """For each bar, the start of the next bar in its lane (room for a label beside it)."""
    lanes: dict = {}
    for i, b in enumerate(chart.bars):
        lanes.setdefault((b.row, b.lane), []).append(i)
    out = {}
    for ids in lanes.values():
        ids.sort(key=lambda i: (chart.bars[i].start, chart.bars[i].end))
        for i, j in zip(ids, ids[1:]):
            out[i] = chart.bars[j].start
    return out


MARK_LEVELS = 3                # violation labels of one row stacked on at most this many levels


def mark_levels(chart: Chart, px_per_unit: float, char_px: float) -> dict:
    """For each violation mark, the level (0, 1, ...) its label is drawn on within its row: the lowest whose
    labels so far end before this one starts, so that marks at close times do not write over each other; when
    every level is taken, the one that frees first."""
    out: dict = {}
    ends: dict = {}
    for i, m in sorted(enumerate(chart.marks), key=lambda im: im[1].time):
        if not m.violation:
            continue
        row = ends.setdefault(m.row, [-math.inf] * MARK_LEVELS)
        x = m.time * px_per_unit
        level = next((k for k, end in enumerate(row) if end <= x), min(range(MARK_LEVELS), key=row.__getitem__))
        out[i] = level
        row[level] = x + (len(m.label) + 2) * char_px
    return out


def map_mark_labels(view: MapView) -> list:
    """(x, y, code, colour index) of every violation label on a kitchen map: at the cell's right, the labels of one
    cell (any agent's) stacked downwards instead of written over each other."""
    out = []
    seen: dict = {}
    for k, p in enumerate(view.paths):
        for (x, y), code in p.marks:
            n = seen.get((x, y), 0)
            seen[(x, y)] = n + 1
            out.append((x + 0.85, y + 0.2 + 0.32 * n, code, k))
    return out


MAX_LANES = 120                # lanes drawn; the rows past them are left out (with a note saying so)


def clipped(chart: Chart, max_lanes: int = MAX_LANES) -> Chart:
    """The chart with at most ``max_lanes`` lanes: whole rows from the top, their bars, marks and links, and a
    note naming how many rows were left out (the chart itself when it fits)."""
    if chart.lanes <= max_lanes:
        return chart
    keep, n = 0, 0
    while keep < len(chart.rows) and n + chart.rows[keep].lanes <= max_lanes:
        n += chart.rows[keep].lanes
        keep += 1
    keep = max(keep, 1)
    old = [i for i, b in enumerate(chart.bars) if b.row < keep]
    new_index = {i: k for k, i in enumerate(old)}
    rows = chart.rows[:keep]
    if rows[0].lanes > max_lanes:
        rows = (replace(rows[0], lanes=max_lanes),)
        old = [i for i in old if chart.bars[i].lane < max_lanes]
        new_index = {i: k for k, i in enumerate(old)}
    left = len(chart.rows) - keep
    note = (f"{left} more row{'s' * (left != 1)} not drawn" if left else "more lanes not drawn") + \
        f" (a picture shows at most {max_lanes} lanes)"
    return replace(chart, rows=rows, bars=tuple(chart.bars[i] for i in old),
                   marks=tuple(m for m in chart.marks if m.row is None or m.row < keep),
                   links=tuple((new_index[a], new_index[b]) for a, b in chart.links
                               if a in new_index and b in new_index),
                   notes=chart.notes + (note,))
