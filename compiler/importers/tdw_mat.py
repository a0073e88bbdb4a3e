"""TDW-MAT episode (scene commands + metadata) -> one household scenario file (``chronoplan import tdw-mat``).

Input: the episode's scene-building commands ``<scene>_<layout>.json`` (a list of dicts; the ``add_object``
entries give name = model name, position {x, y, z} in metres, category, id), its metadata
``<scene>_<layout>_metadata.json`` (``object_room_list`` [[model_name, room], ...] in the order of the
add_object entries, "food"/"stuff" {"target", "container"} counts, agents' start positions "0", "1"), the
task (food | stuff) and optionally the bed's room.  Output: ``{"<stem>_<task>.chrono": text}``: a household
(rooms, doors, the task's containers as baskets of capacity 3, the bed as a surface, the task's targets fixed
in their rooms, TDW-MAT's look-around observe rules) and one scenario (agents, every target on the bed,
horizon 3000, syntax tdw, hands 2).  What the files lack is estimated and reported through
``warn(file, item, message)``:

- doors and their lengths: the files have no walls or doors; every pair of rooms is joined by a door whose
  length is the straight distance between the rooms' centroids (the mean x, z of the room's objects);
- a room's entry point is its centroid; a basket's distance is from the centroid to its position; a target
  is loose in its room (the language has no spot inside a room: its computed distance is a comment);
- the bed is not in the files: ``bed_room`` (default a room named Bedroom) and 2 m from the entry point;
- model names map to object names through ``NAME_MAP`` (facts of the benchmark's name_map.json), then the
  category (``CATEGORY_MAP`` or the category itself), then a known object name inside the model name;
- each agent starts in the room whose centroid is nearest its start position;
- TDW-MAT's 3000-frame budget becomes 3000 steps (a step is one high-level decision's unit of time).

Errors (``ImportFormatError``) name the file, the entry and the reason.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

from chronoplan.compiler.importers import ImportFormatError
from chronoplan.compiler.importers.common import Names, number, read_json

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


def convert_episode(commands: Any, meta: Any, task: str, stem: str, fname: str, mname: str,  # noqa: C901
                    bed_room: Optional[str] = None, warn: Optional[Warn] = None) -> str:
    warn = warn or (lambda f, item, msg: None)
    if task not in TASKS:
        raise ImportFormatError(f"--task: expected food or stuff, got {task!r}")
    if not isinstance(meta, dict):
        raise ImportFormatError(f"{mname}: expected a JSON object with object_room_list, food, stuff, \"0\", \"1\"")
    objects = _objects(commands, fname)
    room_of = _room_list(meta, objects, mname)
    containers, targets = TASKS[task]
    names = Names()
    rooms: dict = {}                                  # source room name -> chronoplan name
    for r in room_of:
        if r not in rooms:
            rooms[r] = names.claim(r.lower(), "room")
    sums: dict = {r: [0.0, 0.0, 0] for r in rooms}
    for (_, (x, z), _, _), r in zip(objects, room_of):
        s = sums[r]
        s[0] += x
        s[1] += z
        s[2] += 1
    centre = {r: (s[0] / s[2], s[1] / s[2]) for r, s in sums.items()}
    # the bed
    if bed_room is None:
        match = [r for r in rooms if r.lower() == "bedroom"]
        if not match:
            raise ImportFormatError(f"{mname}: the bed's room is not in the files and no room is named Bedroom "
                                    f"(rooms: {', '.join(rooms)}); give it with --bed-room ROOM")
        bed_source = match[0]
    else:
        match = [r for r in rooms if r.lower() == bed_room.lower()]
        if not match:
            raise ImportFormatError(f"--bed-room: no room {bed_room!r} in {mname} (rooms: {', '.join(rooms)})")
        bed_source = match[0]
    bed = names.claim("bed", "bed")
    warn(mname, "bed", f"the bed's position is not in the files: placed in {rooms[bed_source]} "
         f"{BED_DISTANCE:g} m from its entry point (estimated)")
    # places and things
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
        cx, cz = centre[r]
        d = math.hypot(x - cx, z - cz)
        if obj in containers:
            baskets.append((names.claim(f"{obj}{sum(b[3] == obj for b in baskets) + 1}", "basket"),
                            rooms[r], d, obj, model))
        else:
            per_type[obj] = per_type.get(obj, 0) + 1
            loose.append((obj, rooms[r], d, model))
    for obj in targets:
        if obj in per_type:
            names.taken.add(obj)                     # a thing may not be named like a thing type
    seen: dict = {}
    things: list = []                                # (name, object name, room, metres, model)
    for obj, room, d, model in loose:
        seen[obj] = seen.get(obj, 0) + 1
        things.append((names.claim(f"{obj}{seen[obj]}", "thing"), obj, room, d, model))
    if unknown:
        shown = ", ".join(repr(m) for m in unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        warn(fname, "add_object", f"{len(unknown)} object(s) whose model name and category match no TDW-MAT "
             f"object are left out: {shown}")
    if not things:
        raise ImportFormatError(f"{fname}: no {task} targets ({', '.join(targets)}) among the add_object entries")
    counts = meta.get(task)
    if isinstance(counts, dict):
        for key, found in (("target", len(things)), ("container", len(baskets))):
            want = counts.get(key)
            if isinstance(want, int) and not isinstance(want, bool) and want != found:
                warn(mname, f"{task}.{key}", f"the metadata says {want}, the episode has {found}; "
                     f"imported {found}")
    else:
        warn(mname, task, f"no \"{task}\" counts in the metadata; the targets and containers are not cross-checked")
    if not baskets:
        warn(fname, "containers", f"no {task} containers ({', '.join(containers)}); the agents carry with their "
             "hands only")
    # agents
    agents = []
    for key, aname in zip(("0", "1"), AGENT_NAMES):
        if key not in meta:
            continue
        ax, az = _position(meta[key], f"{mname}: \"{key}\"")
        nearest = min(rooms, key=lambda r: (math.hypot(ax - centre[r][0], az - centre[r][1]), rooms[r]))
        agents.append(f"{aname} at {rooms[nearest]}")
    if not agents:
        raise ImportFormatError(f"{mname}: no agent start positions (keys \"0\" and \"1\" with {{x, y, z}})")
    warn(mname, "agents", "each agent starts in the room whose object centroid is nearest its start position "
         "(estimated)")
    # doors
    order = list(rooms)
    doors = []
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            d = math.hypot(centre[a][0] - centre[b][0], centre[a][1] - centre[b][1])
            doors.append(f"  door {rooms[a]} - {rooms[b]} {_metres(d, 1.0)} m")
    if len(order) > 1:
        warn(mname, "doors", "the files have no walls or doors: every two rooms are joined by a door as long as "
             "the straight distance between their centroids (mean x, z of their objects; at least 1 m)")
    warn(fname, "places", "a room's entry point is its centroid; basket distances are from there (estimated); "
         "a target is loose in its room (its distance from the entry point is a comment, not modelled)")
    warn(fname, "horizon", f"TDW-MAT's {HORIZON} frames are imported as horizon {HORIZON} steps")
    # text
    house = names.claim(Names.sanitize(stem, "episode").lower(), "episode")
    scen = names.claim(f"{house}_{task}", "episode")
    lines = [f"# Imported from the TDW-MAT episode {fname} and {mname} by `chronoplan import tdw-mat --task {task}`.",
             "# Estimated (the files lack them): doors and their lengths (straight distances between room",
             "# centroids), entry points (the centroids), the bed's room and distance, the agents' start rooms.",
             "# docs/benchmarks/pce.md (Importing TDW-MAT episodes) says how.",
             "",
             f"household {house} {{",
             f"  room {', '.join(rooms[r] for r in order)}"]
    lines += doors
    lines += ["", f"  surface {bed} in {rooms[bed_source]} {number(BED_DISTANCE)} m             "
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


def _comment(text: str) -> str:
    return "".join(ch if ch.isprintable() else "?" for ch in text)[:80]


def convert(sources: list, metadata: Optional[str] = None, task: Optional[str] = None,
            bed_room: Optional[str] = None, warn: Optional[Warn] = None) -> dict:
    if len(sources) != 1:
        raise ImportFormatError(f"tdw-mat takes one episode file (<scene>_<layout>.json), got {len(sources)}")
    if metadata is None:
        raise ImportFormatError("tdw-mat needs --metadata EPISODE_metadata.json")
    if task is None:
        raise ImportFormatError("tdw-mat needs --task food or --task stuff")
    path, mpath = Path(sources[0]), Path(metadata)
    commands, meta = read_json(path), read_json(mpath)
    stem = path.stem
    text = convert_episode(commands, meta, task, stem, str(path), str(mpath), bed_room, warn)
    return {f"{Names.sanitize(stem, 'episode').lower()}_{task}.chrono": text}
