"""Charts of simulated runs: procedure schedules and kitchen plans -> ``chart.Chart``.

Input: for procedures a ``ProcedureProblem`` and the ``procedure.sim.SimResult`` of a plan; for kitchens a
``kitchen.engine.KitchenResult``, the plan's steps per agent and each agent's cells over time (``kitchen_walk``
replays a plan and records them); for both the grader's errors (anything with ``code``, ``message``,
``agent``, ``index``, ``time``: ``runtime.violations.PlanError``) and the title.  Output: a ``Chart``.

Procedure charts have one row per agent (overlapping steps of one agent stacked in lanes; continuous
steps solid, autonomous ones hatched, "autonomous for k" solid for k then hatched; chunks of an
interruptible step numbered 1/n, 2/n) and one row per resource held.  Kitchen charts have one row per agent
(bars coloured by surface action, instants as ticks, served orders, a line at the OCT) and a map with each
agent's walk.  Every error whose plan index (and agent) names a bar marks that bar; one that names no
executed action is drawn at its time on its agent's row (across the chart without an agent); the errors
are also listed, capped, as notes.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any, Optional

from chronoplan.runtime.chart import (
    INK,
    VIOLATION,
    Bar,
    Chart,
    ChartLegendEntry,
    ChartStation,
    Fill,
    MapView,
    Mark,
    Path,
    Row,
    VLine,
    colour,
    pack_lanes,
)
from chronoplan.runtime.timefmt import clock as clock_text

MAX_NOTES = 12
KIND_LETTERS = {"table": "T", "dispenser": "D", "chopping_board": "C", "stove": "O", "serving_window": "W",
                "sink": "K", "plate_return": "R", "trash": "X"}
SURFACE_COLOURS = {"MoveTo": "#4e79a7", "Interact": "#f28e2b", "Process": "#59a14f", "Wait": "#bab0ac"}
GREY = "#9a9a9a"


def station_letter(world, kind: str) -> str:
    """The map letter of a station kind (its first letter when it is none of the known kinds)."""
    for k, letter in KIND_LETTERS.items():
        if world.isa_type(kind, k):
            return letter
    return kind[:1].upper() or "?"


def letter_kinds(stations) -> list[tuple[str, str]]:
    """(letter, station kind) for each letter on a map, in order of first use (the name for unknown kinds)."""
    kinds = {letter: kind for kind, letter in KIND_LETTERS.items()}
    seen: list = []
    for s in stations:
        pair = (s.letter, kinds.get(s.letter, s.name))
        if pair not in seen:
            seen.append(pair)
    return seen


def _f(x: Any) -> float:
    return float(x) if x is not None else 0.0


def error_line(e, unit) -> str:
    """One error as a note: ``E401 [#3 agent1 t=00:04:00]: message``."""
    where = [f"#{e.index}" if e.index is not None else "", e.agent or "",
             f"t={clock_text(Fraction(e.time), unit)}" if e.time is not None else ""]
    place = " ".join(w for w in where if w)
    return f"{e.code}{f' [{place}]' if place else ''}: {e.message}"


def notes_for(errors: Sequence, unit) -> tuple[str, ...]:
    lines = [error_line(e, unit) for e in errors[:MAX_NOTES]]
    if len(errors) > MAX_NOTES:
        lines.append(f"... and {len(errors) - MAX_NOTES} more (chronoplan validate lists them all)")
    return tuple(lines)


def unplaced_marks(errors: Iterable, placed: set, rows: dict, unit) -> list[Mark]:
    """Marks for errors with a time that no bar carries (at the agent's row, or across the chart)."""
    merged: dict = {}
    for e in errors:
        if id(e) in placed or e.time is None:
            continue
        key = (rows.get(e.agent), _f(e.time))
        merged.setdefault(key, []).append(e)
    return [Mark(row, t, " ".join(dict.fromkeys(e.code for e in es)), "\n".join(error_line(e, unit) for e in es),
                 violation=True) for (row, t), es in merged.items()]


def abbreviations(names: Sequence[str]) -> dict:
    """Short distinct names: the initials of each part (``Roast-Chicken`` -> ``RC``), a digit on clashes."""
    out: dict = {}
    used: set = set()
    for name in names:
        parts = [p for p in name.replace("_", "-").replace(" ", "-").split("-") if p]
        base = "".join(p[0].upper() for p in parts)[:4] or "T"
        short, k = base, 2
        while short in used:
            short, k = f"{base}{k}", k + 1
        used.add(short)
        out[name] = short
    return out


# ------------------------------------------------------------------------------------------ procedures
def procedure_chart(problem, sim, errors: Sequence, title: str, valid: bool) -> Chart:
    unit = problem.time_unit
    runs = sorted(sim.runs, key=lambda r: (r.start, r.index))
    abbr = abbreviations(problem.tasks)
    task_colour = {t: colour(i) for i, t in enumerate(problem.tasks)}
    by_index: dict = {}
    for e in errors:
        if e.index is not None:
            by_index.setdefault(e.index, []).append(e)
    chunks: dict = {}
    for r in runs:
        chunks.setdefault(r.key, []).append(r)
    agents = list(problem.agents) + sorted({r.agent for r in runs} - set(problem.agents))
    held = [res.name for res in problem.resources
            if any(res.name in _uses(problem, r.key) for r in runs)]
    rows: list[Row] = []
    bars: list[Bar] = []
    placed: set = set()
    for name in agents:
        mine = [r for r in runs if r.agent == name]
        lanes, n = pack_lanes([(_f(r.start), _f(r.end)) for r in mine])
        row = len(rows)
        rows.append(Row(name, n, "agent"))
        for r, lane in zip(mine, lanes):
            errs = by_index.get(r.index, [])
            placed.update(id(e) for e in errs)
            bars.append(_step_bar(problem, r, row, lane, chunks[r.key], abbr, task_colour, errs, unit))
    for res in held:
        mine = [r for r in runs if res in _uses(problem, r.key)]
        lanes, n = pack_lanes([(_f(r.start), _f(r.end)) for r in mine])
        row = len(rows)
        rows.append(Row(res, n, "resource"))
        for r, lane in zip(mine, lanes):
            errs = [e for e in by_index.get(r.index, []) if e.category in ("resource-busy", "precondition")]
            label = _step_label(r, chunks[r.key], abbr)
            bars.append(Bar(row, lane, _f(r.start), _f(r.end), label,
                            f"{res} held by {r.key[0]} step {r.key[1]}, {_when(r, unit)}", task_colour[r.key[0]],
                            Fill.HELD, None, tuple(e.code for e in errs)))
    rows_of = {a: i for i, a in enumerate(agents)}
    marks = unplaced_marks(errors, placed, rows_of, unit)
    vlines = []
    if problem.limit is not None and sim.makespan is not None and sim.makespan > problem.limit:
        vlines.append(VLine(_f(problem.limit), f"limit {clock_text(problem.limit, unit)}", VIOLATION))
    legend = [ChartLegendEntry(f"{abbr[t]} = {t}", task_colour[t]) for t in problem.tasks]
    legend += [ChartLegendEntry("agent busy (continuous)", GREY, Fill.SOLID),
               ChartLegendEntry("runs on its own (autonomous)", GREY, Fill.OPEN)]
    if held:
        legend.append(ChartLegendEntry("resource held", GREY, Fill.HELD))
    if errors:
        legend.append(ChartLegendEntry("violation", VIOLATION))
    x_label = "time (h:mm:ss)" if unit.seconds is not None else f"time ({unit.label}s)"
    return Chart(title, tuple(rows), tuple(bars), x_label, tuple(marks), tuple(vlines), (), tuple(legend),
                 notes_for(errors, unit), unit.seconds, (), None, valid)


def _uses(problem, key) -> tuple:
    step = problem.step(*key)
    return tuple(u.resource for u in step.uses) if step is not None else ()


def _step_label(r, chunks: list, abbr: dict) -> str:
    label = f"{abbr.get(r.key[0], r.key[0])}{r.key[1]}"
    if len(chunks) > 1:
        label += f" {chunks.index(r) + 1}/{len(chunks)}"
    return label


def _when(r, unit) -> str:
    return f"{clock_text(r.start, unit)}-{clock_text(r.end, unit)}"


def _step_bar(problem, r, row: int, lane: int, chunks: list, abbr: dict, task_colour: dict, errs: list,
              unit) -> Bar:
    step = problem.step(*r.key)
    text = step.text if step is not None else ""
    if r.busy >= r.duration:
        fill, busy_end, kind = Fill.SOLID, None, "continuous"
    else:
        fill, busy_end = Fill.OPEN, _f(r.start + r.busy)
        kind = "autonomous" if r.busy == 0 else f"autonomous after {clock_text(r.busy, unit)}"
    tip = f"{r.key[0]} step {r.key[1]}: {text} ({_when(r, unit)}, {kind}"
    if len(chunks) > 1:
        tip += f", chunk {chunks.index(r) + 1} of {len(chunks)}"
    uses = _uses(problem, r.key)
    tip += (f", uses {', '.join(uses)}" if uses else "") + f"; plan entry #{r.index})"
    tip += "".join(f"\n{error_line(e, unit)}" for e in errs)
    return Bar(row, lane, _f(r.start), _f(r.end), _step_label(r, chunks, abbr), tip, task_colour.get(r.key[0], INK),
               fill, busy_end, tuple(e.code for e in errs))


# ------------------------------------------------------------------------------------------ kitchens
def kitchen_walk(world, steps: dict, max_errors: Optional[int] = None) -> tuple:
    """Run a plan ``{agent: [kitchen.engine.KitchenStep]}`` (agents the scenario lacks are left out) and record every
    agent's cell after each instant where an action ends: (KitchenResult, {agent: [(time, cell)]})."""
    from chronoplan.runtime.kitchen.engine import KitchenSim  # lazy: the kitchen simulator, for kitchen charts only

    def fresh():
        sim = KitchenSim(world, max_errors=max_errors)
        for agent, todo in steps.items():
            if agent in sim.plan:
                sim.add(agent, todo)
        return sim

    first = fresh()
    first.run()
    times = sorted({r.end for rs in first.runs.values() for r in rs})
    sim = fresh()
    cells = {a: [(0, tuple(world.start_pos[a]))] for a in world.agents}
    for t in times:
        sim.run(until=t)
        for a in world.agents:
            here = tuple(sim.st.pos.get(a, cells[a][-1][1]))
            if here != cells[a][-1][1]:
                cells[a].append((t, here))
    sim.run()
    return sim.result(), cells


def _step_text(step) -> str:
    args = step.args if isinstance(step.args, dict) else {}
    for key in ("target", "duration"):
        v = args.get(key)
        if isinstance(v, list):
            return "(" + ",".join(str(x) for x in v) + ")"
        if v is not None:
            return str(v)[:12]
    return ""


def kitchen_chart(result, steps: dict, cells: dict, errors: Sequence, title: str, valid: bool) -> Chart:
    world = result.world
    unit = world.unit
    agents = list(world.agents)
    rows = tuple(Row(a, 1, "agent") for a in agents)
    rows_of = {a: i for i, a in enumerate(agents)}
    plan_steps = {a: {s.index: s for s in steps.get(a, ())} for a in agents}
    by_action: dict = {}
    for e in errors:
        if e.agent is not None and e.index is not None:
            by_action.setdefault((e.agent, e.index), []).append(e)
    surfaces = list(SURFACE_COLOURS)
    bars: list[Bar] = []
    placed: set = set()
    for a in agents:
        for r in result.runs.get(a, ()):
            if r.surface not in surfaces:
                surfaces.append(r.surface)
            step = plan_steps[a].get(r.index)
            arg = _step_text(step) if step is not None else ""
            errs = by_action.get((a, r.index), [])
            placed.update(id(e) for e in errs)
            tip = (f"{a} #{r.index}: {r.surface} {arg} ({r.operator or r.surface}, "
                   f"{clock_text(Fraction(r.start), unit)}-{clock_text(Fraction(r.end), unit)})")
            tip += "".join(f"\n{error_line(e, unit)}" for e in errs)
            bars.append(Bar(rows_of[a], 0, _f(r.start), _f(r.end), arg, tip, _surface_colour(r.surface, surfaces),
                            Fill.SOLID, None, tuple(e.code for e in errs)))
    marks = [Mark(rows_of.get(agent, 0), _f(t), dish, f"{dish} served by {agent} at {clock_text(Fraction(t), unit)}")
             for dish, t, agent, _ in result.served]
    marks += unplaced_marks(errors, placed, rows_of, unit)
    vlines = (VLine(_f(result.oct), f"OCT {clock_text(Fraction(result.oct), unit)}"),) if result.oct else ()
    legend = [ChartLegendEntry(s, _surface_colour(s, surfaces)) for s in surfaces]
    legend.append(ChartLegendEntry("order served", INK, Fill.MARK))
    if errors:
        legend.append(ChartLegendEntry("violation", VIOLATION))
    x_label = "time (h:mm:ss)" if unit.seconds is not None else f"time ({unit.label}s)"
    return Chart(title, rows, tuple(bars), x_label, tuple(marks), vlines, (), tuple(legend),
                 notes_for(errors, unit), unit.seconds, (), kitchen_map(world, cells, errors), valid)


def _surface_colour(surface: str, surfaces: list) -> str:
    return SURFACE_COLOURS.get(surface) or colour(surfaces.index(surface) + 4)


def kitchen_map(world, cells: Optional[dict] = None, errors: Sequence = ()) -> MapView:
    """The map with each agent's walk (floor paths between the cells it stood on) and its violations."""
    m = world.map
    stations = tuple(ChartStation(s.x, s.y, station_letter(world, s.kind), s.name, s.arg or "") for s in m.stations)
    cells = cells or {a: [(0, tuple(world.start_pos[a]))] for a in world.agents}
    paths = []
    for i, a in enumerate(world.agents):
        seen = cells.get(a) or [(0, tuple(world.start_pos[a]))]
        walk = [seen[0][1]]
        for (_, here), (_, there) in zip(seen, seen[1:]):
            walk += floor_path(world.grid, here, there)[1:]
        marks = tuple((_cell_at(seen, e.time), e.code) for e in errors if e.agent == a and e.time is not None)
        paths.append(Path(a, colour(i), tuple(walk), marks))
    return MapView(m.width, m.height, tuple(sorted(m.walls)), stations, tuple(paths), world.scenario.name)


def _cell_at(seen: list, t) -> tuple:
    here = seen[0][1]
    for when, cell in seen:
        if when > t:
            break
        here = cell
    return here


def floor_path(grid, a: tuple, b: tuple) -> list:
    """A shortest 4-neighbour path over floor cells from a to b (both included); [a, b] when there is none."""
    if a == b:
        return [a]
    prev: dict[tuple, Optional[tuple]] = {a: None}
    todo = deque([a])
    while todo:
        c = todo.popleft()
        if c == b:
            path = []
            cur: Optional[tuple] = c
            while cur is not None:
                path.append(cur)
                cur = prev[cur]
            return path[::-1]
        x, y = c
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if n not in prev and (n == b or grid.walkable(n)):
                prev[n] = c
                todo.append(n)
    return [a, b]
