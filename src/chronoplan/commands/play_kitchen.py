"""``chronoplan play`` for grid kitchens (scenarios with orders on a map): a ParaCook episode line by line.

Input: a compiled project, a kitchen scenario, the play options, and lines from a terminal or a pipe.  Each
line is a batch for ``runtime.kitchen.env.KitchenEnv.step``:
- JSON: ``{"agent1": [actions], "agent2": action}``, ``{"plan": {...}}``, one action ``{"action": "MoveTo",
  "target": [3, 4]}`` or a list of actions (these two only when the scenario has one agent);
- text: ``agent1: MoveTo 3 4; Interact stove1; agent2: Wait 5`` -- actions separated by ``;``, an ``agent:``
  prefix switches agent (optional with one agent); action names are the domain's surface actions (any
  case), then their arguments: two integers for a cell (``MoveTo (3, 4)`` and ``MoveTo [3, 4]`` also
  work), a number, or a station name;
- commands: ``wait N`` (the world runs N > 0 time units without new actions; the clock stays <= 10^12),
  ``wait`` (until the next pending event, e.g. cooking done), ``look`` (the state text), ``state`` (the
  observation as JSON), ``plan`` (the equivalent ParaCook plan), ``help``, ``quit``.
Output: after each batch the errors it caused (code, category, agent, action index, message, hint) or OK,
then the state text; at the end a summary line, or with ``--json`` one JSON object (scenario, success,
time, batches, errors, unreadable lines, metrics, the equivalent plan).  Unreadable lines are reported
and skipped.  Exit status: 0 when every order was served, 1 otherwise, 2 when the scenario cannot be
simulated.  ``--max-refusals N`` (N > 0) ends the episode after N simulator errors in total.
"""
from __future__ import annotations

import json
import re
import sys
from fractions import Fraction
from typing import Any, Optional

from chronoplan.commands.common import command_lines
from chronoplan.validators.report import json_number

_AGENT_PREFIX = re.compile(r"^\s*([A-Za-z_][\w.\-]*)\s*:(.*)$", re.S)
_INT = re.compile(r"^[+-]?[0-9]{1,13}$")
_NUM = re.compile(r"^[+-]?([0-9]{1,13}(\.[0-9]{0,9})?|\.[0-9]{1,9})$")
MAX_LINE = 1_000_000
MAX_TIME = 10 ** 12


class LineError(ValueError):
    """A line that is neither a batch nor a command."""


def _plain(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, (int, float, Fraction)) and not isinstance(v, bool):
        return json_number(v)
    return v


def _reject_constant(name: str):
    raise LineError(f"{name} is not a number JSON allows")


def _number(tok: str):
    if _INT.match(tok):
        return int(tok)
    if _NUM.match(tok):
        return float(tok)
    return None


class LineReader:
    """Turns input lines into batches ``{agent: [ParaCook action dicts]}``."""

    def __init__(self, agents, surfaces) -> None:
        self.agents = tuple(agents)
        self.surfaces = dict(surfaces)
        self.by_lower = {n.lower(): n for n in self.surfaces}

    def batch(self, line: str) -> dict:
        """The batch a line asks for; raises ``LineError`` with a readable message."""
        text = line.strip()
        if len(text) > MAX_LINE:
            raise LineError(f"the line has {len(text)} characters; at most {MAX_LINE}")
        if text[:1] in "{[":
            return self._json(text)
        return self._text(text)

    def _single(self, what: str) -> str:
        if len(self.agents) != 1:
            raise LineError(f"{what} needs an agent: the scenario has {len(self.agents)} "
                            f"({', '.join(self.agents)}); write {{\"{self.agents[0]}\": [...]}} or "
                            f"\"{self.agents[0]}: ...\"")
        return self.agents[0]

    def _json(self, text: str) -> dict:
        try:
            value = json.loads(text, parse_constant=_reject_constant)
        except RecursionError:
            raise LineError("the JSON is nested too deeply") from None
        except json.JSONDecodeError as exc:
            raise LineError(f"not JSON: {exc.msg} at column {exc.colno}") from None
        if isinstance(value, dict) and "plan" in value:
            value = value["plan"]
            if not isinstance(value, dict):
                raise LineError("\"plan\" must be an object {agent: [actions]}")
        if isinstance(value, list):
            return {self._single("a list of actions"): value}
        if "action" in value:
            return {self._single("an action"): [value]}
        return value

    def _text(self, text: str) -> dict:
        out: dict = {}
        agent: Optional[str] = None
        for part in text.split(";"):
            m = _AGENT_PREFIX.match(part)
            if m and m.group(1).lower() not in self.by_lower:
                agent, part = m.group(1), m.group(2)
                out.setdefault(agent, [])
            if not part.strip():
                continue
            if agent is None:
                agent = self._single(f"\"{part.strip()[:40]}\"")
                out.setdefault(agent, [])
            out[agent].append(self.action(part))
        if not out:
            raise LineError("no action on the line")
        return out

    def action(self, text: str) -> dict:
        """``MoveTo 3 4`` / ``Interact(stove1)`` / ``Wait 2.5`` -> a ParaCook action dict."""
        tokens = re.sub(r"[()\[\],{}\"']", " ", text).split()
        if not tokens:                              # only punctuation, e.g. "()" or "agent1: ,"
            raise LineError(f"no action in {text.strip()[:40]!r}: write e.g. MoveTo 3 4 or Interact(stove1)")
        name = self.by_lower.get(tokens[0].lower(), tokens[0])
        surface = self.surfaces.get(name)
        if surface is None:
            return {"action": name}                 # the environment reports the unknown action (E150)
        out: dict = {"action": name}
        rest = tokens[1:]
        usage = name + "".join(" X Y" if p.type == "cell" else " N" if p.type == "number" else f" <{p.type}>"
                               for p in surface.params[1:])
        for p in surface.params[1:]:
            if p.type == "cell":
                xy = [_number(t) for t in rest[:2]]
                if len(xy) < 2 or any(not isinstance(v, int) for v in xy):
                    raise LineError(f"{name} needs a cell: {usage}")
                out[p.name], rest = xy, rest[2:]
            elif p.type == "number":
                v = _number(rest[0]) if rest else None
                if v is None:
                    raise LineError(f"{name} needs a number: {usage}")
                out[p.name], rest = v, rest[1:]
            else:
                if not rest:
                    raise LineError(f"{name} needs a {p.type} name: {usage}")
                out[p.name], rest = rest[0], rest[1:]
        if rest:
            raise LineError(f"unexpected {' '.join(rest)[:40]!r} after {name}: {usage}")
        return out


def help_text(world, reader: LineReader) -> str:
    forms = []
    for name, s in reader.surfaces.items():
        forms.append(name + "".join(" X Y" if p.type == "cell" else " N" if p.type == "number" else f" <{p.type}>"
                                    for p in s.params[1:]))
    several = len(world.agents) > 1
    return ("Actions: " + "; ".join(forms) + ". A line: "
            + ("\"agent1: MoveTo 3 4; Interact stove1; agent2: Wait 2\"" if several else
               "\"MoveTo 3 4; Interact stove1\"")
            + " or JSON {\"" + world.agents[0] + "\": [{\"action\": \"MoveTo\", \"target\": [3, 4]}]}"
            + ("" if several else " (or one action / a list of actions)")
            + ". Commands: wait N, wait (to the next event), look, state, plan, help, quit. "
            "Agents: " + ", ".join(world.agents) + ".")


def _error_line(e) -> str:
    who = f"{e.agent} #{e.index}" if e.agent is not None and e.index is not None else (e.agent or "plan")
    t = json_number(e.time) if e.time is not None else "-"
    return f"  {e.code} {e.category} ({who}, t={t}): {e.message}" + (f" -- {e.hint}" if e.hint else "")


def _print_feedback(fb, env, out) -> None:
    if fb.errors:
        print(f"{len(fb.errors)} error(s):", file=out)
        for e in fb.errors:
            print(_error_line(e), file=out)
    else:
        print(f"OK (t = {json_number(fb.time)})", file=out)
    print(env.text(), file=out)


def _wait(env, arg: str, out):
    """Let the world run (``wait N``, or to the next pending event); the feedback, or None."""
    if arg:
        d = _number(arg)
        if d is None or d <= 0:
            raise LineError(f"wait needs a positive number, got {arg[:20]!r}")
        if Fraction(str(d)) + Fraction(str(env.observation()["time"])) > MAX_TIME:
            raise LineError(f"wait {arg[:20]}: the clock would pass {MAX_TIME} (plans hold numbers up to 10^12)")
    else:
        obs = env.observation()
        if not obs["events"]:
            print("nothing is pending: give the agents actions", file=out)
            return None
        d = min(Fraction(str(e["time"])) for e in obs["events"]) - Fraction(str(obs["time"]))
        d = json_number(max(d, Fraction(0)))
    fb = env.wait(d)
    _print_feedback(fb, env, out)
    return fb


def episode(env, lines, out) -> dict:
    """Drive ``env`` with ``lines`` until the episode is done or the input ends; the run's counters."""
    world = env.world
    reader = LineReader(world.agents, world.surfaces)
    counts: dict[str, Any] = {"batches": 0, "unreadable": 0, "errors": []}
    print(f"scenario {world.scenario.name}: orders {', '.join(d.name for d in world.orders)}", file=out)
    print(help_text(world, reader), file=out)
    print(env.text(), file=out)
    for line in command_lines(lines, out, lambda: env.done):
        low = line.lower()
        words = low.split()
        try:
            if low == "look":
                print(env.text(), file=out)
            elif low == "state":
                print(json.dumps(_plain(env.observation())), file=out)
            elif low == "plan":
                print(json.dumps(_plain(env.plan())), file=out)
            elif low == "help":
                print(help_text(world, reader), file=out)
            elif words[0] == "wait" and len(words) <= 2 and ";" not in line and ":" not in line:
                fb = _wait(env, words[1] if len(words) == 2 else "", out)
                counts["errors"] += list(fb.errors) if fb is not None else []
            else:
                fb = env.step(reader.batch(line))
                counts["batches"] += 1
                counts["errors"] += list(fb.errors)
                _print_feedback(fb, env, out)
        except LineError as exc:
            counts["unreadable"] += 1
            print(f"Unreadable: {exc}", file=out)
    return counts


def run_kitchen(project, scenario: str, args) -> int:
    """``chronoplan play`` on a grid kitchen; ``args``: the play options (``json``, ``max_refusals``)."""
    from chronoplan.runtime.compiled import note_fallback
    from chronoplan.runtime.kitchen.env import KitchenEnv, error_json
    from chronoplan.runtime.kitchen.world import CompileFailure, World

    try:
        note_fallback()                          # once, only after a failed compile at install
        world = World(project, scenario)
    except CompileFailure as exc:
        print(f"chronoplan play: error: scenario {scenario} cannot be simulated: {exc}", file=sys.stderr)
        return 2
    max_errors = args.max_refusals if args.max_refusals and args.max_refusals > 0 else None
    env = KitchenEnv(world, max_time=world.limit, max_errors=max_errors)
    counts = episode(env, sys.stdin, sys.stdout)
    obs = env.observation()
    success = len(obs["served"]) == len(world.orders)
    m = env.metrics()
    if args.json:
        print(json.dumps(_plain({
            "scenario": scenario, "success": success, "time": obs["time"], "batches": counts["batches"],
            "served": len(obs["served"]), "orders": len(world.orders),
            "errors": [error_json(e) for e in counts["errors"]], "unreadable_lines": counts["unreadable"],
            "metrics": m, "plan": env.plan()["plan"]}), allow_nan=False))
    else:
        last = obs["served"][-1]["time"] if obs["served"] else None
        print(("success" if success else "not finished") + f": {len(obs['served'])}/{len(world.orders)} orders "
              "served, " + (f"the last at t={last}" if success else f"t={obs['time']}")
              + f", {len(counts['errors'])} error(s) in {counts['batches']} batch(es)"
              + (f", {counts['unreadable']} unreadable line(s)" if counts["unreadable"] else ""))
    return 0 if success else 1
