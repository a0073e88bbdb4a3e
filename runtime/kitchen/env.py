"""Interactive kitchen environment for closed-loop agents (ParaCook's MultiStepReAct protocol).

Input: a compiled ``kitchen.world.World``; then batches ``{agent: [ParaCook action, ...]}``.  Output:
``reset() -> observation``; ``step(batch) -> KitchenFeedback`` (the observation after the batch, the errors it
caused, the time, done/success); ``metrics()``; ``plan()`` -- the equivalent ParaCook plan (with the idle
gaps between batches written as Wait actions), which the batch validator grades identically.

Protocol: a batch's actions are appended to the agents' queues and start at the current time (an agent
that had finished earlier has waited until now).  The simulation then runs until every agent of the batch
has finished its actions; the clock stops at the last of them (cooking and returning plates continue in the
next batch).  An invalid action is reported and skipped, as in the batch validator; the episode goes on.
The episode is done when every order is served, when ``max_time`` is reached, or after ``max_errors``
errors (None: never).  Observations are JSON-ready: time, agents (cell, held item, busy until), station
contents (with states and container contents), cooking progress, orders served and pending, pending events.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from chronoplan.runtime.kitchen.engine import KitchenSim, KitchenStep
from chronoplan.runtime.kitchen.explain import describe_object
from chronoplan.runtime.kitchen.logic import num
from chronoplan.runtime.kitchen.metrics import bounds, run_metrics
from chronoplan.runtime.render import ascii_map
from chronoplan.runtime.violations import PlanError


def jnum(x: Any) -> Any:
    if isinstance(x, Fraction):
        return x.numerator if x.denominator == 1 else float(x)
    return x


@dataclass(frozen=True)
class KitchenFeedback:
    observation: dict
    errors: tuple = ()
    time: Any = 0
    done: bool = False
    success: bool = False

    def to_json(self) -> dict:
        return {"time": jnum(self.time), "done": self.done, "success": self.success,
                "errors": [error_json(e) for e in self.errors], "observation": self.observation}


def error_json(e: PlanError) -> dict:
    return {"code": e.code, "category": e.category.value, "agent": e.agent, "index": e.index, "time": jnum(e.time),
            "message": e.message, "hint": e.hint}


class KitchenEnv:
    def __init__(self, world, *, max_time=None, max_errors: Optional[int] = None) -> None:
        self.world = world
        self.max_time = max_time
        self.max_errors = max_errors
        self.reset()

    def reset(self) -> dict:
        self.sim = KitchenSim(self.world)
        self.actions: dict = {a: [] for a in self.world.agents}
        self.batches = 0
        self.extra_errors: list = []
        self._bounds: Optional[dict] = None
        return self.observation()

    # ------------------------------------------------------------------ stepping
    @property
    def done(self) -> bool:
        sim = self.sim
        if len(sim.served) == len(self.world.orders):
            return True
        if self.max_time is not None and sim.t >= self.max_time:
            return True
        return self.max_errors is not None and len(sim.errors) >= self.max_errors

    def step(self, batch: dict) -> KitchenFeedback:
        """Run one batch ``{agent: [action dicts]}``; unknown agents and malformed batches are errors."""
        sim = self.sim
        before = len(sim.errors)
        extra: list = []
        if not isinstance(batch, dict):
            extra.append(PlanError("E010", f"a batch is an object {{agent: [actions]}}, got {type(batch).__name__}",
                                   "send {\"agent1\": [{\"action\": \"MoveTo\", \"target\": [x, y]}]}", None,
                                   None, sim.t))
            batch = {}
        if self.done:
            return self._feedback(before, extra)
        self.batches += 1
        started = []
        for agent, actions in batch.items():
            if agent not in sim.plan:
                extra.append(PlanError("E151", f"unknown agent {agent!r}", f"agents: {', '.join(self.world.agents)}",
                                       agent=str(agent), time=sim.t))
                continue
            if not isinstance(actions, list):
                actions = [actions]
            steps = []
            gap = sim.t - sim.idle_since[agent] if sim.idle[agent] else 0
            if gap > 0 and actions:
                self.actions[agent].append({"action": "Wait", "duration": jnum(num(gap))})
            for a in actions:
                i = len(self.actions[agent])
                self.actions[agent].append(a)
                if isinstance(a, dict):
                    steps.append(KitchenStep(i, a.get("action"), {k: v for k, v in a.items() if k != "action"}))
                else:
                    extra.append(PlanError("E010", f"action #{i} of {agent} is not an object", "", i, agent, sim.t))
            if steps:
                sim.add(agent, steps)
                started.append(agent)
        for agent in started:
            sim.run_until_idle(agent)
        if self.max_time is not None and sim.t > self.max_time:
            sim.t = self.max_time
        return self._feedback(before, extra)

    def wait(self, duration) -> KitchenFeedback:
        """Let the world run for ``duration`` without new actions (cooking, plates coming back)."""
        before = len(self.sim.errors)
        self.sim.run(until=self.sim.t + duration)
        return self._feedback(before, [])

    def _feedback(self, before: int, extra: list) -> KitchenFeedback:
        sim = self.sim
        self.extra_errors += extra
        errors = tuple(extra) + tuple(sim.errors[before:])
        done = self.done
        return KitchenFeedback(self.observation(), errors, sim.t, done, len(sim.served) == len(self.world.orders))

    # ------------------------------------------------------------------ views
    def observation(self) -> dict:
        sim, w, st = self.sim, self.world, self.sim.st
        hold = w.roles.get("holding")
        place = w.roles.get("placement")
        agents = {}
        for a in w.agents:
            r = sim.running.get(a)
            agents[a] = {"cell": list(st.pos[a]),
                         "holding": [describe_object(w, st, t[1]) for t in st.rels[hold].by(0, a)] if hold else [],
                         "busy_until": jnum(r.end) if r is not None else None,
                         "finished": a in sim.finished}
        stations = {}
        for s in w.map.stations:
            items = [describe_object(w, st, t[0]) for t in st.rels[place].by(1, s.name)] if place else []
            stations[s.name] = {"kind": s.kind, "cell": [s.x, s.y], "items": items}
            if s.arg:
                stations[s.name]["provides"] = s.arg
        cooking = []
        for (proc, key), (progress, running) in sorted(sim.progress().items(), key=str):
            cooking.append({"process": proc, "objects": list(key), "progress": jnum(progress), "running": running})
        served = [{"dish": d, "time": jnum(t)} for d, t, _, _ in sim.served]
        pending = [d.name for d in w.orders[len(sim.served):]]
        events = [{"time": jnum(t), "event": what} for t, (what, _) in sim.pending_events()]
        return {"time": jnum(sim.t), "agents": agents, "stations": stations, "cooking": cooking,
                "served": served, "pending_orders": pending, "events": events}

    def text(self) -> str:
        obs = self.observation()
        lines = [f"t = {obs['time']}", ascii_map(self.world, self.sim.st)]
        for a, info in obs["agents"].items():
            lines.append(f"{a} at {tuple(info['cell'])} holding {', '.join(info['holding']) or 'nothing'}")
        for name, info in obs["stations"].items():
            if info["items"]:
                lines.append(f"{name}: {', '.join(info['items'])}")
        for c in obs["cooking"]:
            lines.append(f"{c['process']} {' '.join(c['objects'])}: {c['progress']} done"
                         + ("" if c["running"] else " (paused)"))
        lines.append(f"served {len(obs['served'])}/{len(self.world.orders)}; next: "
                     + (obs["pending_orders"][0] if obs["pending_orders"] else "-"))
        return "\n".join(lines)

    def plan(self) -> dict:
        """The actions submitted so far as one ParaCook plan (idle gaps between batches as Wait)."""
        return {"plan": {a: list(v) for a, v in self.actions.items()}}

    def metrics(self) -> dict:
        """The metrics of the equivalent plan (``plan()``: idle gaps between batches count as Wait)."""
        if self._bounds is None:
            self._bounds = bounds(self.world)
        replay = KitchenSim(self.world)
        for agent, actions in self.actions.items():
            replay.add(agent, [KitchenStep(i, a.get("action"), {k: v for k, v in a.items() if k != "action"})
                               for i, a in enumerate(actions) if isinstance(a, dict)])
        replay.run(until=self.sim.t)
        result = replay.result()
        if self.extra_errors:
            result.errors = list(self.extra_errors) + result.errors
            result.success = False
        return run_metrics(result, self._bounds)
