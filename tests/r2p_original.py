"""Test helper: an executable re-statement of the original Recipe2Plan evaluator, in our own words.

Input: one cooking.json instance (a list of recipes), a plan as reply text, ``ignore_time_constraints``.
Output: ``evaluate(...) -> Result`` (ok, check, message, progress, end_step, executed history) and
``complete_speed(recipes, result, ref_plan)`` (the original's efficiency against a plan.json reference).

Kept close to the structure of WilliamZR/Recipe2Plan ``evaluation/`` (evaluator.py ``parse_actions`` and
``evaluate_execution``; environment.py ``execute_step`` and ``_check_constraint``; goal.py ``check_constraint``
and ``act``; physical_objects.py ``ObjectTracker``), including its quadratic scans over stored intervals, so
that it is an independent oracle for ``validators/compat/recipe2plan.py``, which is written differently
(incremental structures).  ``check`` names the failing check with a short word instead of the original's
message text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional


class Refused(Exception):
    """A failed check: ``check`` says which."""

    def __init__(self, check: str, message: str) -> None:
        super().__init__(message)
        self.check = check


def stamp(t: float) -> str:
    """The original formats times in its messages with int(); that raises on infinity."""
    return f"{int(t // 3600):02}:{int((t % 3600) // 60):02}:{int(t % 60):02}"


def seconds_of(text: Any) -> int:
    """The data's "10 min" / "30 sec" / "1 hour" -> whole seconds (first run of digits)."""
    if isinstance(text, (int, float)):
        return int(text)
    digits = re.search(r"\d+", text)
    if "min" in text:
        return int(digits.group()) * 60
    if "hour" in text:
        return int(digits.group()) * 3600
    if "sec" in text:
        return int(digits.group())
    return 0


def overlap(a, b) -> bool:
    (s1, e1), (s2, e2) = a, b
    if s1 == e1:
        return s2 < s1 < e2
    if s2 == e2:
        return s1 < s2 < e1
    return max(s1, s2) < min(e1, e2)


class Tracker:
    """One physical object: capacity 1, occupied intervals, properties (unset at first)."""

    def __init__(self, name: str, props=()) -> None:
        self.name = name
        self.props = {p: None for p in props}
        self.busy: list = []

    def check(self, time, start, arg) -> None:
        mine = (start, start + time)
        count = 0
        for iv in self.busy:
            if overlap(iv, mine):
                same_interval = iv == mine
                same_update = "update" in arg and all(self.props.get(k) == v for k, v in arg["update"].items())
                if same_interval and same_update:
                    continue
                count += 1
        if count >= 1:
            raise Refused("occupied", f"Object {self.name} is occupied")
        for key, need in arg.get("require", {}).items():
            have = self.props.get(key)
            if key != "volume" and have != need:
                raise Refused("property", f"{key} of {self.name} is {have}, needs {need}")
            if key == "volume" and (have is None or have < need):
                raise Refused("property", f"{self.name} volume {have} < {need}")

    def update(self, time, start, arg) -> None:
        self.busy.append((start, start + time))
        for k, v in arg.get("update", {}).items():
            self.props[k] = v
        if "volume" in arg.get("require", {}) and self.props.get("volume") is not None:
            self.props["volume"] -= arg["require"]["volume"]


class Recipe:
    """One goal: per step the data, what is left, when its latest chunk ended, whether it is completed."""

    def __init__(self, name: str, steps: list, ignore_tc: bool) -> None:
        self.name = name
        self.data = steps
        self.ignore_tc = ignore_tc
        self.state = []
        for s in steps:
            tc = {k: seconds_of(v) for k, v in s["time_constraint"].items()} if s["time_constraint"] else {}
            self.state.append({"time": seconds_of(s["time"]), "left": seconds_of(s["time"]), "end": None,
                               "interrupt": s["interrupt"], "parallel": s["parallel"], "done": False,
                               "pre": s["prequisites"], "physical": s["physical"], "tc": tc})

    def check(self, k: int, time, start) -> None:
        st = self.state[k]
        for other, limit in st["tc"].items():
            if self.ignore_tc:
                continue
            partner = self.state[int(other)]
            if partner["end"] is not None and start - partner["end"] > limit:
                raise Refused("time_constraint", f"time constraint of step {k} in {self.name}")
        if time > st["left"]:
            if st["left"] == 0:
                raise Refused("already_done", f"step {k} in {self.name} already executed")
            if st["end"] and st["end"] < start:
                raise Refused("already_running", f"step {k} in {self.name} executing until {stamp(st['end'])}")
            raise Refused("too_long", f"step {k} in {self.name}: {time} > {st['left']}")
        if st["left"] != time and st["interrupt"] == 0:
            raise Refused("not_interruptible", f"step {k} in {self.name} must take {st['left']}")
        for p in st["pre"]:
            prev = self.state[p]
            finished = prev["end"] is not None and prev["end"] <= start
            if not (prev["done"] and finished):
                if not prev["done"]:
                    raise Refused("prereq_not_completed", f"step {p} in {self.name} not completed")
                raise Refused("prereq_not_finished", f"step {p} in {self.name} finishes {stamp(prev['end'])}")

    def act(self, k: int, time, start) -> None:
        st = self.state[k]
        st["left"] -= time
        if st["left"] <= 0:
            st["left"] = 0
            st["done"] = True
        st["end"] = time + start

    def counted(self) -> int:
        seen = set()
        for i, st in enumerate(self.state):
            if st["done"]:
                seen.add(i)
                seen.update(st["pre"])
        return len(seen)


class World:
    """The environment: goals, the clock, continuous intervals, objects, history and progress."""

    def __init__(self, recipes: list, ignore_tc: bool) -> None:
        self.goals = {r["recipe"]: Recipe(r["recipe"], r["steps"], ignore_tc) for r in recipes}
        self.clock = 0.0
        self.continuous: list = []
        self.objects = {"oven": Tracker("oven", ["temperature"]), "microwave": Tracker("microwave"),
                        "stove": Tracker("stove")}
        self.history: list = []
        self.progress: list = []

    def rate(self) -> float:
        done = sum(g.counted() for g in self.goals.values())
        total = sum(len(g.state) for g in self.goals.values())
        return done / total if total else 0.0

    def execute(self, action) -> None:
        k, name, time, start = action
        if name not in self.goals:
            raise Refused("unknown_recipe", f"{name} is not a goal")
        goal = self.goals[name]
        if k < 0 or k >= len(goal.state):
            raise Refused("unknown_step", f"no step {k} in {name}")
        self._check(k, name, time, start)
        goal.act(k, time, start)
        if not goal.data[k]["parallel"]:
            self.continuous.append((start, start + time))
            self.clock = start + time
        for obj, arg in goal.data[k]["physical"].items():
            if obj in self.objects:
                self.objects[obj].update(time, start, arg)
        self.history.append(action)
        self.progress.append(self.rate())

    def _check(self, k, name, time, start) -> None:
        goal = self.goals[name]
        if start < self.clock:
            raise Refused("past", f"now {stamp(self.clock)}, step {k} at {stamp(start)} is in the past")
        elif start > self.clock:
            self.clock = start
        if not goal.data[k]["parallel"]:
            for iv in self.continuous:
                if overlap(iv, (start, start + time)):
                    raise Refused("continuous_overlap", f"step {k} at {stamp(start)} overlaps a continuous one")
        for obj, arg in goal.data[k]["physical"].items():
            if obj in self.objects:
                try:
                    self.objects[obj].check(time, start, arg)
                except Refused as exc:
                    raise Refused(exc.check, f"step {k} at {stamp(start)}: {exc}") from None
        goal.check(k, time, start)


def parse_time(text: str) -> float:
    parts = text.split(":")
    try:
        if len(parts) == 3:
            return 3600 * float(parts[0]) + 60 * float(parts[1]) + float(parts[2])
        if len(parts) == 2:
            return 60 * float(parts[0]) + float(parts[1])
        return 60 * float(parts[0])
    except ValueError:
        return 0.0


def parse(text: str, world: World) -> list:
    text = text.replace('"', "").replace("'", "")
    text = re.sub(r"(\d+) min", r"\1:00", text)
    text = re.sub(r"(\d+) sec", r"0:\1", text)
    text = re.sub(r"(\d+) hour", r"\1:00:00", text)
    t = r"((?:\d+:)?\d+:\d+)"
    out = [[int(a), b, parse_time(c), parse_time(d)]
           for a, b, c, d in re.findall(r"Step\((\d+), ([\w-]+), " + t + ", " + t + r"\)", text)]
    if not out:
        for a, b, c in re.findall(r"Step\((\d+), ([\w-]+), " + t + r"\)", text):
            try:
                whole = world.goals[b].state[int(a)]["time"]
            except (KeyError, IndexError):
                whole = 0
            out.append([int(a), b, whole, parse_time(c)])
    out.sort(key=lambda x: x[3])
    return out


@dataclass
class Result:
    ok: bool
    check: Optional[str]            # None when every action ran
    message: str
    progress: float
    end_step: int                   # actions executed before the failing one (all when ok)
    parsed: list = field(default_factory=list)
    world: Optional[World] = None

    @property
    def complete(self) -> bool:
        return all(g.counted() == len(g.state) for g in self.world.goals.values()) if self.world else False


def evaluate(recipes: list, plan_text: str, ignore_time_constraints: bool = False) -> Result:
    """The original's evaluate_execution and evaluate_progress on one reply.  ``recipes`` is read, never
    written (each ``Recipe`` keeps its own per-step state), so, as the released result_summarizer does, no
    copy of the instance is made per plan."""
    world = World(recipes, ignore_time_constraints)

    def prog() -> float:
        return max(world.progress) if world.progress else 0.0

    try:
        actions = parse(plan_text.split("</think>")[-1], world)
    except Exception as exc:   # noqa: BLE001 - the original reports any parse exception
        return Result(False, "parse", f"parse error: {exc}", 0.0, 0, [], world)
    if not actions:
        return Result(False, "no_actions", "no actions", 0.0, 0, [], world)
    for i, a in enumerate(actions):
        try:
            world.execute(tuple(a))
        except Refused as exc:
            return Result(False, exc.check, str(exc), prog(), i, actions, world)
        except Exception as exc:   # noqa: BLE001 - the original's "unexpected error"
            return Result(False, "crash", f"{type(exc).__name__}: {exc}", prog(), i, actions, world)
    return Result(True, None, "ok", prog(), len(actions), actions, world)


def complete_speed(result: Result, ref_plan: Optional[list]) -> float:
    """The original's evaluate_complete_speed (ref_plan: plan.json entries [step, recipe, duration, start])."""
    world = result.world
    try:
        ref = ref_plan[:len(world.history)]
        finish = max(s[3] + s[2] for s in ref)
        ref_time = sum([s[2] for s in ref]) - finish
        ref_par = 0
        for s in ref:
            if world.goals[s[1]].state[s[0]]["parallel"]:
                ref_par += s[2]
        ref_speed = ref_time / ref_par
    except Exception:   # noqa: BLE001 - the original's bare except
        ref_speed = 0
    try:
        finish = max(s[3] + s[2] for s in world.history)
    except ValueError:
        return 0
    total = sum([s[2] for s in world.history])
    saved = total - finish
    par = sum(st["time"] for g in world.goals.values() for st in g.state if st["parallel"] == 1 and st["done"])
    if saved < 0:
        saved = 0
    try:
        speed = saved / par / ref_speed
        speed = min(speed, 5 * saved / par)
    except Exception:   # noqa: BLE001
        speed = 0
    return speed
