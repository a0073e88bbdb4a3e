"""A chart as one self-contained HTML page (inline SVG and CSS; no script, no network, no matplotlib).

Input: a ``chart.Chart``.  Output: ``html_page(chart)`` -> the page's text: the title, the Gantt chart as
inline SVG (row names on the left, one tooltip per bar, instant and violation marks, links, vertical
lines), the legend and the notes as HTML under it (never over a bar), and for kitchens the map with each
agent's walk as a second SVG.  Every text from the plan is escaped.
"""
from __future__ import annotations

from html import escape

from chronoplan.runtime.chart import (
    INK,
    VIOLATION,
    Bar,
    Chart,
    Fill,
    MapView,
    clipped,
    code_positions,
    next_starts,
    tick_marks,
)
from chronoplan.runtime.chart_build import letter_kinds

WIDTH = 1200
LANE = 30
BAR_TOP, BAR_H = 11, 18
AXIS = 44
TOP = 22
CELL = 34
CSS = """
body { font: 13px/1.4 system-ui, sans-serif; color: #222; margin: 16px; }
h1 { font-size: 17px; margin: 0 0 8px; }
h1.invalid { color: #d62728; }
svg text { font: 11px system-ui, sans-serif; }
svg .code { fill: #d62728; font-weight: bold; font-size: 10px; }
svg .row { font-size: 12px; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 22px; margin: 6px 0 12px; }
.legend span.key { display: inline-block; width: 26px; height: 12px; vertical-align: -2px; margin-right: 6px; }
.notes { font: 12px/1.5 ui-monospace, monospace; white-space: pre-wrap; }
.notes .error { color: #d62728; }
"""


def _x(t: float, lo: float, hi: float, left: int, width: int) -> float:
    return left + (t - lo) / (hi - lo) * width


def _key_style(colour: str, fill: Fill) -> str:
    if fill is Fill.OPEN:
        return f"background: repeating-linear-gradient(45deg, {colour}, {colour} 2px, {colour}40 2px, {colour}40 6px)"
    if fill is Fill.MARK:
        return f"width: 0; height: 0; border: 7px solid transparent; border-top: 10px solid {colour}; background: none"
    if fill is Fill.HELD:
        return f"background: radial-gradient({colour} 1px, {colour}55 1.5px) 0 0 / 4px 4px"
    return f"background: {colour}"


def _defs(chart: Chart) -> tuple[str, dict]:
    colours = sorted({b.colour for b in chart.bars})
    out = ['<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
           'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#777"/></marker>']
    for i, c in enumerate(colours):
        out.append(f'<pattern id="open{i}" width="6" height="6" patternUnits="userSpaceOnUse" '
                   f'patternTransform="rotate(45)"><rect width="6" height="6" fill="{c}" fill-opacity="0.25"/>'
                   f'<line x1="0" y1="0" x2="0" y2="6" stroke="{c}" stroke-width="2"/></pattern>')
        out.append(f'<pattern id="held{i}" width="5" height="5" patternUnits="userSpaceOnUse">'
                   f'<rect width="5" height="5" fill="{c}" fill-opacity="0.5"/><circle cx="2.5" cy="2.5" r="1" '
                   f'fill="{c}"/></pattern>')
    out.append("</defs>")
    return "".join(out), {c: i for i, c in enumerate(colours)}


def gantt_svg(chart: Chart) -> str:
    lo, hi = chart.span()
    pad = (hi - lo) * 0.01
    lo, hi = lo - pad, hi + pad
    longest = max((len(r.name) for r in chart.rows), default=4)
    left = min(260, 24 + 7 * longest)
    width = WIDTH - left - 40
    lanes = max(2, chart.lanes)
    height = TOP + lanes * LANE + AXIS
    offsets = chart.lane_offsets()
    defs, pattern = _defs(chart)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="Gantt chart">', defs]
    bottom = TOP + lanes * LANE
    for pos, label in tick_marks(chart):
        x = _x(pos, lo, hi, left, width)
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{bottom}" stroke="#eee"/>'
                   f'<text x="{x:.1f}" y="{bottom + 15}" text-anchor="middle">{escape(label)}</text>')
    out.append(f'<text x="{left + width / 2:.1f}" y="{bottom + 34}" text-anchor="middle">'
               f'{escape(chart.x_label)}</text>')
    out.append(f'<rect x="{left}" y="{TOP}" width="{width}" height="{lanes * LANE}" fill="none" stroke="#999"/>')
    for i, r in enumerate(chart.rows):
        y = TOP + offsets[i] * LANE
        if i:
            same = r.group == chart.rows[i - 1].group
            out.append(f'<line x1="{left}" y1="{y}" x2="{left + width}" y2="{y}" '
                       f'stroke="{"#ccc" if same else "#666"}"/>')
        out.append(f'<text class="row" x="{left - 8}" y="{y + r.lanes * LANE / 2 + 4:.1f}" '
                   f'text-anchor="end">{escape(r.name)}</text>')
    code_x = code_positions(chart, width / (hi - lo), 6.5)
    after = next_starts(chart)
    for i, b in enumerate(chart.bars):
        x = _x(code_x.get(i, b.start), lo, hi, left, width)
        room = None if i not in after else _x(after[i], lo, hi, left, width) - _x(b.end, lo, hi, left, width)
        out.append(_bar(b, TOP + (offsets[b.row] + b.lane) * LANE, lo, hi, left, width, pattern, x, room))
    for src, dst in chart.links:
        a, b = chart.bars[src], chart.bars[dst]
        ya = TOP + (offsets[a.row] + a.lane) * LANE + BAR_TOP + BAR_H / 2
        yb = TOP + (offsets[b.row] + b.lane) * LANE + BAR_TOP + BAR_H / 2
        out.append(f'<line x1="{_x(a.end, lo, hi, left, width):.1f}" y1="{ya:.1f}" '
                   f'x2="{_x(b.start, lo, hi, left, width):.1f}" y2="{yb:.1f}" stroke="#777" '
                   f'marker-end="url(#arrow)"/>')
    for m in chart.marks:
        x = _x(m.time, lo, hi, left, width)
        y0 = TOP + (0 if m.row is None else offsets[m.row] * LANE)
        y1 = TOP + (lanes * LANE if m.row is None else (offsets[m.row] + chart.rows[m.row].lanes) * LANE)
        if m.violation:
            out.append(f'<g><title>{escape(m.tip)}</title><line x1="{x:.1f}" y1="{y0 + 2}" x2="{x:.1f}" '
                       f'y2="{y1 - 2}" stroke="{VIOLATION}" stroke-width="2"/>'
                       f'<text class="code" x="{x + 3:.1f}" y="{y0 + 10}">{escape(m.label)}</text></g>')
        else:
            right = x > left + 0.85 * width
            out.append(f'<g><title>{escape(m.tip)}</title><path d="M{x - 5:.1f},{y0 + 2} h10 l-5,7 z" '
                       f'fill="{INK}"/><text x="{x - 6 if right else x + 6:.1f}" y="{y0 + 9}" '
                       f'text-anchor="{"end" if right else "start"}">{escape(m.label)}</text></g>')
    for v in chart.vlines:
        x = _x(v.time, lo, hi, left, width)
        out.append(f'<line x1="{x:.1f}" y1="{TOP - 4}" x2="{x:.1f}" y2="{bottom}" stroke="{v.colour}" '
                   f'stroke-dasharray="5,3" stroke-width="1.5"/><text x="{x:.1f}" y="{TOP - 7}" '
                   f'text-anchor="middle" fill="{v.colour}">{escape(v.label)}</text>')
    out.append("</svg>")
    return "".join(out)


def _bar(b: Bar, y: float, lo: float, hi: float, left: int, width: int, pattern: dict, code_x: float,
         room) -> str:
    """One bar; ``room``: pixels free after it in its lane (None: the rest of the lane), for a label beside it."""
    x0, x1 = _x(b.start, lo, hi, left, width), _x(b.end, lo, hi, left, width)
    top = y + BAR_TOP
    parts = [f"<g><title>{escape(b.tip)}</title>"]
    if b.end <= b.start:
        parts.append(f'<line x1="{x0:.1f}" y1="{top}" x2="{x0:.1f}" y2="{top + BAR_H}" '
                     f'stroke="{VIOLATION if b.codes else b.colour}" stroke-width="2.5"/>')
    else:
        w = max(x1 - x0, 0.5)
        if b.fill is Fill.OPEN:
            fill = f"url(#open{pattern[b.colour]})"
        elif b.fill is Fill.HELD:
            fill = f"url(#held{pattern[b.colour]})"
        else:
            fill = b.colour
        edge = VIOLATION if b.codes else ("white" if b.fill in (Fill.SOLID, Fill.LEVEL) else b.colour)
        parts.append(f'<rect x="{x0:.1f}" y="{top}" width="{w:.1f}" height="{BAR_H}" fill="{fill}" '
                     f'stroke="{edge}" stroke-width="{2 if b.codes else 1}"/>')
        if b.fill is Fill.OPEN and b.busy_end is not None and b.busy_end > b.start:
            bw = _x(b.busy_end, lo, hi, left, width) - x0
            parts.append(f'<rect x="{x0:.1f}" y="{top}" width="{bw:.1f}" height="{BAR_H}" fill="{b.colour}"/>')
        text_px = len(b.label) * 6.5
        if b.label and (text_px + 4 <= w or room is None or room >= text_px + 6):
            fits = text_px + 4 <= w
            dark = b.fill in (Fill.SOLID, Fill.LEVEL)
            tx, anchor = ((x0 + x1) / 2, "middle") if fits else (x1 + 3, "start")
            colour = ("white" if _dark(b.colour) else INK) if fits and dark else INK
            parts.append(f'<text x="{tx:.1f}" y="{top + BAR_H / 2 + 4}" text-anchor="{anchor}" '
                         f'fill="{colour}">{escape(b.label)}</text>')
    if b.codes:
        parts.append(f'<text class="code" x="{code_x:.1f}" y="{top - 2}">{escape(b.code_text)}</text>')
    parts.append("</g>")
    return "".join(parts)


def _dark(hex_colour: str) -> bool:
    r, g, b = (int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b <= 0.6


def map_svg(view: MapView) -> str:
    cell = max(4, min(CELL, 1100 // max(1, view.width)))
    w, h = view.width * cell, view.height * cell
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w + 2}" height="{h + 2}" viewBox="-1 -1 {w + 2} '
           f'{h + 2}" role="img" aria-label="map">', f'<rect width="{w}" height="{h}" fill="white" stroke="#999"/>']
    for x in range(view.width + 1):
        out.append(f'<line x1="{x * cell}" y1="0" x2="{x * cell}" y2="{h}" stroke="#eee"/>')
    for y in range(view.height + 1):
        out.append(f'<line x1="0" y1="{y * cell}" x2="{w}" y2="{y * cell}" stroke="#eee"/>')
    for x, y in view.walls:
        out.append(f'<rect x="{x * cell}" y="{y * cell}" width="{cell}" height="{cell}" fill="#333"/>')
    for s in view.stations:
        out.append(f'<g><title>{escape(s.name)} ({s.x},{s.y})</title><rect x="{s.x * cell}" y="{s.y * cell}" '
                   f'width="{cell}" height="{cell}" fill="#d9c7a7" stroke="#7f6a45"/><text x="{(s.x + .5) * cell}" '
                   f'y="{(s.y + .5) * cell + (0 if s.detail else 4)}" text-anchor="middle" font-weight="bold">'
                   f'{escape(s.letter)}</text>' + (f'<text x="{(s.x + .5) * cell}" y="{(s.y + .85) * cell}" '
                   f'text-anchor="middle" font-size="8">{escape(s.detail[:7])}</text>' if s.detail else "") + '</g>')
    stacked: dict = {}                   # violation labels of one cell, stacked downwards (as in the PNG)
    n = max(1, len(view.paths))
    for k, p in enumerate(view.paths):
        off = (k - (n - 1) / 2) * min(4, 16 / n)
        pts = [((x + .5) * cell + off, (y + .5) * cell + off) for x, y in p.cells]
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        out.append(f'<g><title>{escape(p.agent)}: {len(p.cells) - 1} cells walked</title><polyline points="{line}" '
                   f'fill="none" stroke="{p.colour}" stroke-width="3" stroke-opacity="0.85" stroke-linejoin="round"/>'
                   f'<circle cx="{pts[0][0]:.1f}" cy="{pts[0][1]:.1f}" r="9" fill="{p.colour}"/>'
                   f'<text x="{pts[0][0]:.1f}" y="{pts[0][1] + 4:.1f}" text-anchor="middle" fill="white">'
                   f'{k + 1}</text>')
        if len(pts) > 1:
            out.append(f'<rect x="{pts[-1][0] - 5:.1f}" y="{pts[-1][1] - 5:.1f}" width="10" height="10" '
                       f'fill="{p.colour}" stroke="white"/>')
        out.append("</g>")
        for (x, y), code in p.marks:
            cx, cy = (x + .5) * cell, (y + .5) * cell
            level = stacked[(x, y)] = stacked.get((x, y), -1) + 1
            out.append(f'<g><title>{escape(p.agent)}: {escape(code)}</title><path d="M{cx - 6},{cy - 6} l12,12 '
                       f'M{cx + 6},{cy - 6} l-12,12" stroke="{VIOLATION}" stroke-width="3"/><text class="code" '
                       f'x="{cx + 8}" y="{cy - 6 + 11 * level}">{escape(code)}</text></g>')
    out.append("</svg>")
    return "".join(out)


def html_page(chart: Chart) -> str:
    chart = clipped(chart)
    legend = "".join(f'<span><span class="key" style="{_key_style(e.colour, e.fill)}"></span>{escape(e.label)}'
                     f"</span>" for e in chart.legend)
    notes = "".join(f'<div class="{"error" if n[:1] in "ET" else "more"}">{escape(n)}</div>' for n in chart.notes)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{escape(chart.title)}</title><style>{CSS}</style></head><body>",
             f'<h1 class="{"valid" if chart.valid else "invalid"}">{escape(chart.title)}</h1>',
             gantt_svg(chart), f'<div class="legend">{legend}</div>']
    if chart.kitchen is not None:
        view = chart.kitchen
        keys = "".join(f'<span><span class="key" style="background: {p.colour}"></span>{k + 1} = {escape(p.agent)}'
                       f"</span>" for k, p in enumerate(view.paths))
        letters = "".join(f"<span>{escape(letter)} = {escape(kind)}</span>"
                          for letter, kind in letter_kinds(view.stations))
        parts += [f"<h2>Map of {escape(view.title)}: each agent's walk (circle = start, square = end)</h2>",
                  map_svg(view), f'<div class="legend">{keys}</div><div class="legend">{letters}</div>']
    if chart.notes:
        parts.append(f'<div class="notes">{notes}</div>')
    parts.append("</body></html>\n")
    return "\n".join(parts)
