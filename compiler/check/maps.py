"""Grid maps: ASCII art + legend -> ``ir.GridMap``.

Input: ``map`` declarations.  Output: IR maps with walls and named stations ('#' wall, '.' floor, legend
symbols are stations named kind + counter in reading order: dispenser1, dispenser2 ...).  Diagnostics: map
not rectangular or empty (C301), more than MAX_MAP_SIDE rows or columns (C111), unknown symbol (C302, once
per run of equal symbols, at most MAX_SYMBOL_ERRORS per map), legend kind undefined (C101), station without
a walkable neighbour (C304).  Also ``bfs`` distances used by the checker and the runtime.
"""
from __future__ import annotations

import dataclasses
from collections import deque

from chronoplan.compiler import ir
from chronoplan.compiler.builtins import TYPES
from chronoplan.compiler.diagnostics import Span, name_hint

WALL, FLOOR = "#", "."
MAX_SYMBOL_ERRORS = 100      # C302 diagnostics per map; one more counts the rest
MAX_MAP_SIDE = 1000          # rows and columns of a map (C111)


def art_rows(art: str):
    """Dedent the art; return [(raw_line_index, column_offset, row_text)] for non-blank rows."""
    raw = art.split("\n")
    rows = [(i, line.rstrip()) for i, line in enumerate(raw) if line.strip()]
    if not rows:
        return []
    indent = min(len(t) - len(t.lstrip()) for _, t in rows)
    return [(i, indent, t[indent:]) for i, t in rows]


def cell_span(d, raw_index: int, offset: int, x: int):
    sp = d.art_span
    if sp is None:
        return d.name.span
    if raw_index == 0:
        return Span(sp.file, sp.line, sp.col + 3 + offset + x, sp.line, sp.col + 4 + offset + x)
    return Span(sp.file, sp.line + raw_index, offset + x + 1, sp.line + raw_index, offset + x + 2)


def neighbours(x: int, y: int):
    return ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))


def bfs(m: ir.GridMap, start) -> dict:
    """Shortest 4-neighbour walking distances from ``start`` over walkable tiles."""
    dist = {start: 0}
    q = deque([start])
    while q:
        cur = q.popleft()
        for nxt in neighbours(*cur):
            if nxt not in dist and m.walkable(*nxt):
                dist[nxt] = dist[cur] + 1
                q.append(nxt)
    return dist


def check_maps(ctx) -> None:
    known = set(ctx.types) | set(ctx.out("objects")) | set(ctx.out("resources"))
    for name, d in ctx.table("map").items():
        m = _map(ctx, d, known)
        if m is not None:
            ctx.out("maps")[name] = m


def _station_kinds(ctx) -> list:
    """The names a legend entry may use as its kind, for a hint: the station types and resources (every type when
    no ``station`` type is declared)."""
    kinds = [t for t in ctx.types if ctx.is_subtype(t, "station") and t != "station"] if "station" in ctx.types \
        else list(ctx.types)
    return kinds + [r for r in ctx.out("resources") if r not in kinds]


def _arguments(ctx, kind: str, known) -> list:
    """The names a legend entry's argument (``dispenser(bread)``) plausibly takes, for a hint: the types without
    subtypes that are not stations, and the declared objects; every known name for an unknown kind."""
    if kind not in known:
        return list(known)
    parents = {p for p in ctx.types.values() if p is not None}
    leaves = [t for t in ctx.types if t not in parents and t not in TYPES and not ctx.is_subtype(t, "station")]
    return leaves + list(ctx.out("objects"))


def _unknown_symbol(ctx, d, raw_i, off, t, x, bad) -> None:
    """C302 for the run of equal unknown symbols starting at column ``x`` (the first MAX_SYMBOL_ERRORS)."""
    if len(bad) >= MAX_SYMBOL_ERRORS:
        return
    ch, end = t[x], x + 1
    while end < len(t) and t[end] == ch:
        end += 1
    sp = cell_span(d, raw_i, off, x)
    if end - x > 1:
        sp = dataclasses.replace(sp, end_col=sp.col + end - x)
    ctx.error("C302", f"unknown map symbol {ch!r} (not '#', '.' or in the legend)"
              + (f", {end - x} cells in a row" if end - x > 1 else ""), sp)


def _map(ctx, d, known):  # noqa: C901
    rows = art_rows(d.art)
    if not rows:
        ctx.error("C301", f"map '{d.name.name}' is empty", d.name.span)
        return None
    width = max(len(t) for _, _, t in rows)
    if width > MAX_MAP_SIDE or len(rows) > MAX_MAP_SIDE:
        ctx.error("C111", f"map '{d.name.name}' is {width} cells wide and {len(rows)} high; a map has at most "
                          f"{MAX_MAP_SIDE} rows and {MAX_MAP_SIDE} columns", d.name.span)
        return None
    ok = True
    for raw_i, off, t in rows:
        if len(t) != width:
            ctx.error("C301", f"map '{d.name.name}' is not rectangular: this row has {len(t)} cells, "
                              f"the widest has {width}", cell_span(d, raw_i, off, len(t) - 1 if t else 0))
            ok = False
    legend = {}
    for e in d.legend:
        if len(e.symbol) != 1 or e.symbol in (WALL, FLOOR) or e.symbol.isspace():
            ctx.error("C302", f"legend symbol must be one character other than '#', '.' and space, "
                              f"got {e.symbol!r}", e.span)
            ok = False
            continue
        if e.symbol in legend:
            ctx.error("C102", f"legend symbol {e.symbol!r} defined twice", e.span)
            ok = False
            continue
        if e.kind.name not in known:
            ctx.error("C101", f"undefined station kind '{e.kind.name}'", e.kind.span,
                      "declare it as a type or resource; "
                      + name_hint(e.kind.name, _station_kinds(ctx), "station kinds"))
            ok = False
        else:
            ctx.types_used.add(e.kind.name)
            ctx.used_names.add(e.kind.name)
        if e.arg is not None and e.arg.name not in known:
            what = f"{e.kind.name} contents" if e.kind.name in known else "names"
            ctx.error("C101", f"undefined name '{e.arg.name}' in legend", e.arg.span,
                      name_hint(e.arg.name, _arguments(ctx, e.kind.name, known), what))
            ok = False
        item = getattr(e, "item", None)
        if item is not None and item.name not in ctx.types:
            ctx.error("C101", f"undefined type '{item.name}' after 'with'", item.span,
                      "'with T' puts an object of type T on the station")
            ok = False
        elif item is not None:
            ctx.types_used.add(item.name)
        legend[e.symbol] = e
    walls, stations, counters, cells = set(), [], {}, {}
    used_symbols, bad = set(), []
    for y, (raw_i, off, t) in enumerate(rows):
        for x, ch in enumerate(t):
            if x and ch == t[x - 1] and ch not in legend and ch not in (WALL, FLOOR):
                continue                # reported with the first cell of its run
            if ch == WALL:
                walls.add((x, y))
            elif ch == FLOOR:
                continue
            elif ch in legend:
                e = legend[ch]
                explicit = getattr(e, "station_name", None)
                if explicit is not None:
                    if ch in used_symbols:
                        ctx.error("C102", f"legend symbol {ch!r} names one station ('as {explicit.name}') but "
                                          "occurs more than once", cell_span(d, raw_i, off, x))
                        ok = False
                    sname = explicit.name
                else:
                    counters[e.kind.name] = counters.get(e.kind.name, 0) + 1
                    sname = f"{e.kind.name}{counters[e.kind.name]}"
                used_symbols.add(ch)
                item = getattr(e, "item", None)
                stations.append(ir.Station(sname, e.kind.name, e.arg.name if e.arg else None, x, y,
                                           item.name if item is not None else None))
                cells[(x, y)] = cell_span(d, raw_i, off, x)
            else:
                _unknown_symbol(ctx, d, raw_i, off, t, x, bad)
                bad.append((x, y))
                ok = False
    if len(bad) > MAX_SYMBOL_ERRORS:
        ctx.error("C302", f"{len(bad) - MAX_SYMBOL_ERRORS} more runs of unknown symbols in map '{d.name.name}' "
                          "not reported", d.name.span)
    for sym, e in legend.items():
        if sym not in used_symbols:
            ctx.warn("W501", f"legend symbol {sym!r} does not occur in map '{d.name.name}'", e.span)
    names: dict = {}
    for st in stations:
        if st.name in names:
            ctx.error("C102", f"two stations named '{st.name}' in map '{d.name.name}'", cells[(st.x, st.y)],
                      f"the other is at ({names[st.name].x}, {names[st.name].y})")
            ok = False
        names.setdefault(st.name, st)
    if not ok:
        return None
    m = ir.GridMap(d.name.name, width, len(rows), tuple(t for _, _, t in rows), frozenset(walls),
                   tuple(stations), d.span)
    for s in stations:
        if not any(m.walkable(*n) for n in neighbours(s.x, s.y)):
            ctx.error("C304", f"station {s.name} at ({s.x}, {s.y}) has no walkable neighbour; no agent can "
                              "reach it", cells[(s.x, s.y)])
            ok = False
    return m if ok else None
