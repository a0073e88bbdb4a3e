"""TDW-MAT episode (scene commands + metadata) -> one household scenario file (``chronoplan import tdw-mat``).

Input: the episode's scene-building commands ``<scene>_<layout>.json`` (a list of dicts; the ``add_object``
entries give name = model name, position {x, y, z} in metres, category, id), its metadata
``<scene>_<layout>_metadata.json`` (``object_room_list`` [[model_name, room], ...] in the order of the
add_object entries, "food"/"stuff" {"target", "container"} counts, agents' start positions "0", "1"), the
task (food | stuff), optionally the dataset's ``room_types.json`` (``{scene number: [[room type, ...] per
layout]}``: every room of each floorplan layout, Bedroom included) and the bed's room.  Output:
``{"<stem>_<task>.chrono": text}``: a household (rooms, doors, the task's containers as baskets of capacity 3,
the bed as a surface, the task's targets fixed in their rooms, TDW-MAT's look-around observe rules) and one
scenario (agents, every target on the bed, horizon 3000, syntax tdw, hands 2).  What the files lack is
estimated and reported through ``warn(file, item, message)``:

- rooms: the layout's room types from room_types.json (several rooms of one type are one room: the files place
  objects by type only), else only the rooms that hold objects; at most MAX_ROOMS;
- doors and their lengths: the files have no walls or doors; every pair of rooms is joined by a door whose
  length is the straight distance between the rooms' centroids (the mean x, z of the room's objects; a room
  without objects has no centroid: its doors have the mean length of the others).  The rooms are bounded
  (MAX_ROOMS), so the doors are too: the work and the output grow linearly with the objects;
- a room's entry point is its centroid; a basket's distance is from the centroid to its position; a target
  is loose in its room (the language has no spot inside a room: its computed distance is a comment);
- the bed is not in the files: in ``bed_room`` when given, else the room of type Bedroom (room_types.json, or a
  room holding objects named so), 2 m from the entry point;
- model names map to object names through ``NAME_MAP`` (facts of the benchmark's name_map.json), then the
  category (``CATEGORY_MAP`` or the category itself), then a known object name inside the model name;
- each agent starts in the room whose centroid is nearest its start position;
- TDW-MAT's 3000-frame budget becomes 3000 steps (a step is one high-level decision's unit of time).

Errors (``ImportFormatError``) name the file, the entry and the reason.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from chronoplan.compiler.importers import ImportFormatError
from chronoplan.compiler.importers.common import Names, comment, number, read_json

Warn = Callable[[str, str, str], None]

TASKS = {
    "food": (("bowl", "plate", "tea_tray"), ("bread", "burger", "loaf_bread", "apple", "banana", "orange")),
    "stuff": (("plastic_basket", "wicker_basket", "wood_basket"),
              ("iphone", "pen", "key", "ipod", "lighter", "purse", "calculator", "pencil_bucket", "mouse")),
}
NAME_MAP = {                    # model name -> object name (examples of TDW-MAT's name_map.json)
    "b04_bowl_smooth": "bowl",
    "teatray": "tea_tray",
    "basket_18inx18inx12iin_wicker": "wicker_basket",
    "f10_apple_iphone_4": "iphone",
}
CATEGORY_MAP = {                # TDW categories that are not object names as they are
    "tea tray": "tea_tray",
    "computer mouse": "mouse",
    "loaf bread": "loaf_bread",
    "pencil bucket": "pencil_bucket",
}
KNOWN = frozenset(n for conts, targets in TASKS.values() for n in conts + targets)
MAX_COORD = 10_000.0            # metres; anything larger is not a room of a home
MAX_OBJECTS = 100_000
MAX_ROOMS = 50                  # rooms of one episode (a TDW-MAT floorplan has at most 8); doors join every two
DEFAULT_DOOR = 5.0              # metres: a door of a room without objects when no other door has a length
BED_DISTANCE = 2.0
HORIZON = 3000
CAPACITY = 3
AGENT_NAMES = ("alice", "bob")


def object_name(model: str, category: Any) -> Optional[str]:
    """The TDW-MAT object name of a model (NAME_MAP, then the category, then a known name inside the model
    name; for the category "basket" the material in the model name), or None."""
    if model in NAME_MAP:
        return NAME_MAP[model]
    cat = category.strip().lower() if isinstance(category, str) else ""
    cat = CATEGORY_MAP.get(cat, cat.replace(" ", "_"))
    low = model.lower()
    if cat == "basket":
        for material in ("plastic", "wicker", "wood"):
            if material in low:
                return f"{material}_basket"
    if cat in KNOWN:
        return cat
    for name in sorted(KNOWN, key=len, reverse=True):     # loaf_bread before bread
        if name in low:
            return name
    return None


def _coord(v: Any, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ImportFormatError(f"{where}: expected a number, got {v!r}")
    try:
        f = float(v)
    except OverflowError:
        raise ImportFormatError(f"{where}: {v} is not a coordinate in metres (at most {MAX_COORD:g})") from None
    if not math.isfinite(f) or abs(f) > MAX_COORD:
        raise ImportFormatError(f"{where}: {v!r} is not a coordinate in metres (at most {MAX_COORD:g})")
    return f


def _position(p: Any, where: str) -> tuple[float, float]:
    """(x, z) of a position {x, y, z}: x and z are the horizontal axes."""
    if not isinstance(p, dict):
        raise ImportFormatError(f"{where}: expected a position {{\"x\", \"y\", \"z\"}}, got {p!r}"[:300])
    return _coord(p.get("x"), f"{where}.x"), _coord(p.get("z"), f"{where}.z")


def _metres(d: float, least: float = 0.1) -> str:
    return number(max(least, round(d, 1)))


def _objects(commands: Any, fname: str) -> list:
    if not isinstance(commands, list):
        raise ImportFormatError(f"{fname}: expected a list of scene commands (dicts with \"$type\")")
    out = []
    for i, c in enumerate(commands):
        if not isinstance(c, dict) or c.get("$type") != "add_object":
            continue
        at = f"{fname}: command {i} (add_object)"
        name = c.get("name")
        if not isinstance(name, str) or not name:
            raise ImportFormatError(f"{at}: \"name\" must be a model name")
        out.append((name, _position(c.get("position"), f"{at} {name}: position"), c.get("category"), at))
        if len(out) > MAX_OBJECTS:
            raise ImportFormatError(f"{fname}: more than {MAX_OBJECTS} add_object entries")
    if not out:
        raise ImportFormatError(f"{fname}: no add_object entries (is this a TDW-MAT episode file?)")
    return out


def _room_list(meta: dict, objects: list, mname: str) -> list:
    orl = meta.get("object_room_list")
    if not isinstance(orl, list):
        raise ImportFormatError(f"{mname}: \"object_room_list\" must be a list of [model_name, room]")
    if len(orl) != len(objects):
        raise ImportFormatError(f"{mname}: object_room_list has {len(orl)} entries but the episode has "
                                f"{len(objects)} add_object entries (they must be in the same order)")
    rooms = []
    for i, (entry, obj) in enumerate(zip(orl, objects)):
        at = f"{mname}: object_room_list[{i}]"
        if not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(e, str) and e for e in entry)):
            raise ImportFormatError(f"{at}: expected [model_name, room], got {entry!r}"[:300])
        if entry[0] != obj[0]:
            raise ImportFormatError(f"{at}: model {entry[0]!r} but add_object entry {i} is {obj[0]!r} "
                                    "(the lists must be in the same order)")
        rooms.append(entry[1])
    return rooms


@dataclass(frozen=True)
class Rooms:
    """The episode's rooms: ``order`` the source names (room types) in the order written, ``names`` source ->
    chronoplan name, ``centre`` the located rooms' centroids (x, z) (a room without objects has none)."""

    order: tuple
    names: dict
    centre: dict
    by_key: dict                                      # a room name in lower case, stripped -> its source name

    def of(self, room: str) -> str:
        """The source name of an object's room as object_room_list writes it."""
        return self.by_key[room.strip().lower()]


def layout_rooms(data: Any, meta: dict, stem: str, rname: str, mname: str) -> tuple:
    """The room types of the episode's floorplan layout from room_types.json (``{scene number: [[room type,
    ...] per layout]}``): the scene from the metadata's floorplan_scene_name ("2a": scene "2"), else the
    episode file's name; the layout from floorplan_layout, else the file's name (``2a_0_1``: layout 0)."""
    m = re.fullmatch(r"([0-9]+)[A-Za-z]*_([0-9]+)(_.*)?", stem)
    scene_name, layout = meta.get("floorplan_scene_name"), meta.get("floorplan_layout")
    if scene_name is None and m is not None:
        scene_name = m.group(1)
    if layout is None and m is not None:
        layout = int(m.group(2))
    sm = re.fullmatch(r"([0-9]+)[A-Za-z]*", scene_name, re.ASCII) if isinstance(scene_name, str) else None
    if sm is None:
        raise ImportFormatError(f"{mname}: floorplan_scene_name must name a floorplan scene such as \"2a\" "
                                f"(needed to read {rname}), got {_clip(repr(scene_name))}")
    if isinstance(layout, bool) or not isinstance(layout, int) or not 0 <= layout < MAX_ROOMS:
        raise ImportFormatError(f"{mname}: floorplan_layout must be a layout number such as 0 (needed to read "
                                f"{rname}), got {_clip(repr(layout))}")
    if not isinstance(data, dict):
        raise ImportFormatError(f"{rname}: expected a JSON object {{scene number: [[room type, ...] per layout]}}")
    scene = str(int(sm.group(1)))
    layouts = data.get(scene)
    if not isinstance(layouts, list):
        known = ", ".join(_clip(str(k), 20) for k in list(data)[:20])
        raise ImportFormatError(f"{rname}: no scene \"{scene}\" (for {scene_name}; scenes: {known or 'none'})")
    if layout >= len(layouts):
        raise ImportFormatError(f"{rname}: scene \"{scene}\" has {len(layouts)} layouts, the metadata's "
                                f"floorplan_layout is {layout}")
    rooms = layouts[layout]
    at = f"{rname}: \"{scene}\"[{layout}]"
    if not isinstance(rooms, list) or not rooms or not all(isinstance(r, str) and r.strip() for r in rooms):
        raise ImportFormatError(f"{at}: expected a non-empty list of room names, got {_clip(repr(rooms))}")
    if len(rooms) > MAX_ROOMS:
        raise ImportFormatError(f"{at}: {len(rooms)} rooms, more than {MAX_ROOMS}")
    return tuple(rooms)


def _rooms(objects: list, room_of: list, layout: Optional[tuple], names: Names, where: tuple,
           warn: Warn) -> Rooms:
    """The rooms: the layout's room types when given (an object's room must be one of them, compared without
    case), else the rooms that hold objects; at most MAX_ROOMS."""
    mname, rname = where
    order: dict = {}                                  # room key (lower case) -> source name
    if layout is not None:
        for r in layout:
            order.setdefault(r.strip().lower(), r.strip())
        repeated = sorted({r.strip() for r in layout if sum(x.strip().lower() == r.strip().lower()
                                                             for x in layout) > 1})
        if repeated:
            warn(rname, "rooms", f"the layout has several rooms of type {', '.join(repeated)}; the files place "
                 "objects by room type only, so each type is imported as one room")
    for i, r in enumerate(room_of):
        key = r.strip().lower()
        if key not in order:
            if layout is not None:
                raise ImportFormatError(f"{mname}: object_room_list[{i}]: room {_clip(repr(r))} is not a room "
                                        f"of the layout in {rname} ({', '.join(order.values())})")
            order[key] = r.strip() or r
        if len(order) > MAX_ROOMS:
            raise ImportFormatError(f"{mname}: more than {MAX_ROOMS} rooms (a TDW-MAT floorplan has at most 8): "
                                    "too many to join every two by a door")
    if layout is None:
        warn(mname, "rooms", "only the rooms that hold objects are known; --room-types room_types.json adds "
             "the layout's other rooms (the Bedroom among them)")
    sums: dict = {}
    for (_, (x, z), _, _), r in zip(objects, room_of):
        s = sums.setdefault(order[r.strip().lower()], [0.0, 0.0, 0])
        s[0] += x
        s[1] += z
        s[2] += 1
    rooms = tuple(order.values())
    return Rooms(rooms, {r: names.claim(r.lower(), "room") for r in rooms},
                 {r: (s[0] / s[2], s[1] / s[2]) for r, s in sums.items()}, order)


def _bed_room(rooms: Rooms, bed_room: Optional[str], mname: str, rname: Optional[str]) -> str:
    listed = ", ".join(rooms.order)
    if bed_room is not None:
        match = [r for r in rooms.order if r.lower() == bed_room.strip().lower()]
        if not match:
            raise ImportFormatError(f"--bed-room: no room {bed_room!r} in {rname or mname} (rooms: {listed})")
        return match[0]
    match = [r for r in rooms.order if r.lower() == "bedroom"]
    if match:
        return match[0]
    if rname is not None:
        raise ImportFormatError(f"{rname}: the episode's layout has no Bedroom (rooms: {listed}); give the "
                                "bed's room with --bed-room ROOM")
    raise ImportFormatError(f"{mname}: the bed's room is not in the files and no room is named Bedroom "
                            f"(rooms: {listed}); give --room-types room_types.json (which names every room) "
                            "or --bed-room ROOM")


def _doors(rooms: Rooms) -> tuple[list, list]:
    """Door lines joining every two rooms (at most MAX_ROOMS rooms: a bounded number of doors) and the rooms
    without objects, whose doors have the mean length of the others (DEFAULT_DOOR when there are none)."""
    located = [r for r in rooms.order if r in rooms.centre]
    pairs, lengths = [], []
    for i, a in enumerate(rooms.order):
        for b in rooms.order[i + 1:]:
            if a in rooms.centre and b in rooms.centre:
                d = max(1.0, round(math.hypot(rooms.centre[a][0] - rooms.centre[b][0],
                                              rooms.centre[a][1] - rooms.centre[b][1]), 1))
                lengths.append(d)
            else:
                d = None
            pairs.append((a, b, d))
    fill = max(1.0, round(sum(lengths) / len(lengths), 1)) if lengths else DEFAULT_DOOR
    doors = [f"  door {rooms.names[a]} - {rooms.names[b]} {number(fill if d is None else d)} m" for a, b, d in pairs]
    return doors, [r for r in rooms.order if r not in located]


def _things(objects: list, room_of: list, rooms: Rooms, task: str, names: Names) -> tuple:
    """(baskets, things, per target type counts, unknown model names) of the task."""
    containers, targets = TASKS[task]
    baskets: list = []                               # (name, room, metres, object name, model)
    loose: list = []                                 # (object name, room, metres, model)
    unknown: list = []
    per_type: dict = {}
    for (model, (x, z), cat, _at), r in zip(objects, room_of):
        obj = object_name(model, cat)
        if obj is None:
            unknown.append(model)
            continue
        if obj not in containers and obj not in targets:
            continue                                 # the other task's objects
        room = rooms.of(r)
        cx, cz = rooms.centre[room]
        d = math.hypot(x - cx, z - cz)
        if obj in containers:
            baskets.append((names.claim(f"{obj}{sum(b[3] == obj for b in baskets) + 1}", "basket"),
                            rooms.names[room], d, obj, model))
        else:
            per_type[obj] = per_type.get(obj, 0) + 1
            loose.append((obj, rooms.names[room], d, model))
    for obj in targets:
        if obj in per_type:
            names.taken.add(obj)                     # a thing may not be named like a thing type
    seen: dict = {}
    things: list = []                                # (name, object name, room, metres, model)
    for obj, room, d, model in loose:
        seen[obj] = seen.get(obj, 0) + 1
        things.append((names.claim(f"{obj}{seen[obj]}", "thing"), obj, room, d, model))
    return baskets, things, per_type, unknown


def _agents(meta: dict, rooms: Rooms, mname: str) -> list:
    agents = []
    for key, aname in zip(("0", "1"), AGENT_NAMES):
        if key not in meta:
            continue
        ax, az = _position(meta[key], f"{mname}: \"{key}\"")
        nearest = min(rooms.centre, key=lambda r: (math.hypot(ax - rooms.centre[r][0], az - rooms.centre[r][1]),
                                                   rooms.names[r]))
        agents.append(f"{aname} at {rooms.names[nearest]}")
    if not agents:
        raise ImportFormatError(f"{mname}: no agent start positions (keys \"0\" and \"1\" with {{x, y, z}})")
    return agents


def convert_episode(commands: Any, meta: Any, task: str, stem: str, fname: str, mname: str,
                    bed_room: Optional[str] = None, warn: Optional[Warn] = None,
                    room_types: Any = None, rname: Optional[str] = None) -> str:
    """The household scenario text of one episode (see the module docstring); ``room_types``: the decoded
    room_types.json (read from ``rname``) or None."""
    warn = warn or (lambda f, item, msg: None)
    if task not in TASKS:
        raise ImportFormatError(f"--task: expected food or stuff, got {task!r}")
    if not isinstance(meta, dict):
        raise ImportFormatError(f"{mname}: expected a JSON object with object_room_list, food, stuff, \"0\", \"1\"")
    objects = _objects(commands, fname)
    room_of = _room_list(meta, objects, mname)
    layout = None if room_types is None else layout_rooms(room_types, meta, stem, rname or "room_types", mname)
    names = Names()
    rooms = _rooms(objects, room_of, layout, names, (mname, rname or "room_types"), warn)
    bed_source = _bed_room(rooms, bed_room, mname, rname if layout is not None else None)
    bed = names.claim("bed", "bed")
    how = "its room named in --bed-room" if bed_room is not None else "the room of type Bedroom"
    warn(mname, "bed", f"the bed's position is not in the files: placed in {rooms.names[bed_source]} ({how}) "
         f"{BED_DISTANCE:g} m from its entry point (estimated)")
    baskets, things, per_type, unknown = _things(objects, room_of, rooms, task, names)
    _report(meta, task, (baskets, things, unknown), (fname, mname), warn)
    agents = _agents(meta, rooms, mname)
    warn(mname, "agents", "each agent starts in the room whose object centroid is nearest its start position "
         "(estimated)")
    doors, unlocated = _doors(rooms)
    if len(rooms.order) > 1:
        warn(mname, "doors", "the files have no walls or doors: every two rooms are joined by a door as long as "
             "the straight distance between their centroids (mean x, z of their objects; at least 1 m)" +
             (f"; rooms without objects ({', '.join(rooms.names[r] for r in unlocated)}) have no position: "
              "their doors have the mean length of the others" if unlocated else ""))
    warn(fname, "places", "a room's entry point is its centroid; basket distances are from there (estimated); "
         "a target is loose in its room (its distance from the entry point is a comment, not modelled)")
    warn(fname, "horizon", f"TDW-MAT's {HORIZON} frames are imported as horizon {HORIZON} steps")
    house = names.claim(Names.sanitize(stem, "episode").lower(), "episode")
    scen = names.claim(f"{house}_{task}", "episode")
    lines = [f"# Imported from the TDW-MAT episode {comment(fname)} and {comment(mname)} by "
             f"`chronoplan import tdw-mat --task {task}`.",
             "# Estimated (the files lack them): doors and their lengths (straight distances between room",
             "# centroids), entry points (the centroids), the bed's room and distance, the agents' start rooms.",
             "# docs/benchmarks/pce.md (Importing TDW-MAT episodes) says how.",
             "",
             f"household {house} {{",
             f"  room {', '.join(rooms.names[r] for r in rooms.order)}"]
    lines += doors
    lines += ["", f"  surface {bed} in {rooms.names[bed_source]} {number(BED_DISTANCE)} m             "
              "# the goal surface (estimated: not in the files)"]
    for bname, room, d, _obj, model in baskets:
        lines.append(f"  basket {bname} capacity {CAPACITY} in {room} {_metres(d)} m   # {_comment(model)}")
    lines.append("")
    for tname, obj, room, d, model in things:
        lines.append(f"  thing {tname}: {obj} in {room}   # {_comment(model)}, {number(round(d, 1))} m from the "
                     "entry point (not modelled)")
    lines += ["",
              "  hands 2",
              "  speed 1 m",
              "",
              "  observe {",
              "    see x: thing when same_room(self, x) and explored(self)",
              "    see b: basket when same_room(self, b) and explored(self)",
              "    see x: thing when exists(b: basket where holds(self, b) and inside(x, b))",
              "    see s: surface when same_room(self, s)",
              "    see a: agent when same_room(self, a)",
              "  }",
              "}",
              "",
              f"scenario {scen} {{",
              f"  household {house}",
              f"  agents {', '.join(agents)}",
              "  goal " + ", ".join(f"{n} on({obj}, {bed})" for obj, n in per_type.items()),
              f"  horizon {HORIZON}                                # TDW-MAT's {HORIZON} frames, as steps",
              "  messages 500 chars cost 1",
              "  syntax tdw",
              "}",
              ""]
    return "\n".join(lines)


def _report(meta: dict, task: str, found: tuple, files: tuple, warn: Warn) -> None:
    """Warnings about left-out objects and counts that differ from the metadata; an error without targets."""
    baskets, things, unknown = found
    fname, mname = files
    containers, targets = TASKS[task]
    if unknown:
        shown = ", ".join(_clip(repr(m), 40) for m in unknown[:5]) + \
            (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        warn(fname, "add_object", f"{len(unknown)} object(s) whose model name and category match no TDW-MAT "
             f"object are left out: {shown}")
    if not things:
        raise ImportFormatError(f"{fname}: no {task} targets ({', '.join(targets)}) among the add_object entries")
    counts = meta.get(task)
    if isinstance(counts, dict):
        for key, n in (("target", len(things)), ("container", len(baskets))):
            want = counts.get(key)
            if isinstance(want, int) and not isinstance(want, bool) and want != n:
                warn(mname, f"{task}.{key}", f"the metadata says {_clip(str(want), 20)}, the episode has {n}; "
                     f"imported {n}")
    else:
        warn(mname, task, f"no \"{task}\" counts in the metadata; the targets and containers are not cross-checked")
    if not baskets:
        warn(fname, "containers", f"no {task} containers ({', '.join(containers)}); the agents carry with their "
             "hands only")


def _clip(text: str, limit: int = 60) -> str:
    text = comment(text, limit + 1)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _comment(text: str) -> str:
    return "".join(ch if ch.isprintable() else "?" for ch in text)[:80]


def convert(sources: list, metadata: Optional[str] = None, task: Optional[str] = None,
            room_types: Optional[str] = None, bed_room: Optional[str] = None, warn: Optional[Warn] = None) -> dict:
    """``[EPISODE.json]`` with the metadata, the task and optionally room_types.json and the bed's room ->
    ``{"<stem>_<task>.chrono": text}``."""
    if len(sources) != 1:
        raise ImportFormatError(f"tdw-mat takes one episode file (<scene>_<layout>.json), got {len(sources)}")
    if metadata is None:
        raise ImportFormatError("tdw-mat needs --metadata EPISODE_metadata.json")
    if task is None:
        raise ImportFormatError("tdw-mat needs --task food or --task stuff")
    path, mpath = Path(sources[0]), Path(metadata)
    commands, meta = read_json(path), read_json(mpath)
    rtypes = read_json(Path(room_types)) if room_types is not None else None
    stem = path.stem
    text = convert_episode(commands, meta, task, stem, str(path), str(mpath), bed_room, warn, rtypes,
                           None if room_types is None else str(room_types))
    return {f"{Names.sanitize(stem, 'episode').lower()}_{task}.chrono": text}
