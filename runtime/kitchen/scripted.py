"""A scripted reference planner for ParaCook-style kitchens (a baseline, not an optimiser).

Input: a ``kitchen.world.World`` whose domain follows ParaCook's physics (dispensers, chopping boards, stoves
with pans/pots, tables with plates, sink, plate return, serving window; MoveTo/Interact/Process/Wait).
Output: ``plan(world) -> {agent: [ParaCook JSON action, ...]}`` that serves every order.  Dishes are
prepared one at a time, dish i by agent i mod n (the others wait), so the plan is valid by construction;
each dish starts its cooked ingredients first and fills the plate while they cook.  The plan is built by
driving the simulator, so times and positions are the simulator's own.  Used by the benchmarks and to check
that generated instances are solvable.
"""
from __future__ import annotations

from chronoplan.runtime.kitchen.engine import KitchenSim, KitchenStep


class PlanningError(RuntimeError):
    """The scripted planner could not serve the orders on this map."""


class _Planner:
    def __init__(self, world) -> None:
        self.w = world
        self.sim = KitchenSim(world)
        self.st = self.sim.st
        self.out: dict[str, list] = {a: [] for a in world.agents}
        self.plan_end = {a: 0 for a in world.agents}
        self.on = world.roles["placement"]
        self.inside = world.roles["containment"]
        self.holding = world.roles["holding"]

    # ------------------------------------------------------------------ acting
    def act(self, agent: str, action: dict) -> None:
        sim = self.sim
        if sim.t > self.plan_end[agent]:
            gap = sim.t - self.plan_end[agent]
            self.out[agent].append({"action": "Wait", "duration": _json_num(gap)})
        i = len(self.out[agent])
        self.out[agent].append(action)
        sim.add(agent, [KitchenStep(i, action["action"], {k: v for k, v in action.items() if k != "action"})])
        n = len(sim.errors)
        sim.run_until_idle(agent)
        if len(sim.errors) > n:
            raise PlanningError(f"{agent} {action}: {sim.errors[n].message}")
        self.plan_end[agent] = sim.t

    def goto(self, agent: str, station: str) -> None:
        grid = self.w.grid
        here = self.st.pos[agent]
        if grid.is_adjacent(here, station):
            return
        best = None
        for c in grid.adjacent_cells(station):
            d = grid.dist(here, c)
            if d is not None and (best is None or d < best[0]):
                best = (d, c)
        if best is None:
            raise PlanningError(f"{agent} cannot reach {station}")
        self.act(agent, {"action": "MoveTo", "target": list(best[1])})

    def interact(self, agent: str, station: str) -> None:
        self.goto(agent, station)
        self.act(agent, {"action": "Interact", "target": station})

    def process(self, agent: str, station: str) -> None:
        self.goto(agent, station)
        self.act(agent, {"action": "Process", "target": station})

    def wait(self, agent: str, d) -> None:
        if d > 0:
            self.act(agent, {"action": "Wait", "duration": _json_num(d)})

    # ------------------------------------------------------------------ looking around
    def items_on(self, station: str) -> list:
        return [t[0] for t in self.st.rels[self.on].by(1, station)]

    def contents(self, obj: str) -> list:
        return [t[0] for t in self.st.rels[self.inside].by(1, obj)]

    def stations(self, kind: str) -> list:
        return [s.name for s in self.w.map.stations if self.w.isa_type(s.kind, kind)]

    def nearest(self, agent: str, names: list) -> str:
        here = self.st.pos[agent]
        scored = [(self.w.grid.dist_to_station(here, n), i, n) for i, n in enumerate(names)]
        scored = [x for x in scored if x[0] is not None]
        if not scored:
            raise PlanningError(f"no reachable station among {names}")
        return min(scored)[2]

    def dispenser(self, agent: str, kind: str) -> str:
        names = [s.name for s in self.w.map.stations if self.w.isa_type(s.kind, "dispenser") and s.arg == kind]
        if not names:
            raise PlanningError(f"no dispenser of {kind}")
        return self.nearest(agent, names)

    def free(self, agent: str, kind: str) -> str:
        names = [n for n in self.stations(kind) if not self.items_on(n)]
        if not names:
            raise PlanningError(f"no free {kind}")
        return self.nearest(agent, names)

    def clean_plate_table(self, agent: str):
        for n in self.stations("table"):
            for o in self.items_on(n):
                if self.st.isa(o, "plate") and self.st.get("clean", o) is True and not self.contents(o):
                    return n
        return None

    # ------------------------------------------------------------------ a dish
    def fetch(self, agent: str, kind: str, state) -> None:
        """Bring one ``kind`` to ``state`` ('chopped' or raw) and hold it."""
        self.interact(agent, self.dispenser(agent, kind))
        if state == "chopped":
            board = self.free(agent, "chopping_board")
            self.interact(agent, board)
            self.process(agent, board)
            self.interact(agent, board)

    def get_plate(self, agent: str) -> str:
        table = self.clean_plate_table(agent)
        if table is not None:
            return table
        ret = self.stations("plate_return")
        while not any(self.items_on(r) for r in ret):
            pending = [t for t, (what, _) in self.sim.pending_events() if what == "delay"]
            if not pending:
                raise PlanningError("no plate left and none coming back")
            self.goto(agent, self.nearest(agent, ret))
            self.wait(agent, pending[0] - self.sim.t)
            if self.sim.t < pending[0]:
                self.sim.run(until=pending[0])
        r = next(r for r in ret if self.items_on(r))
        self.interact(agent, r)
        sink = self.free(agent, "sink")
        self.interact(agent, sink)
        self.process(agent, sink)
        self.interact(agent, sink)
        table = self.free(agent, "table")
        self.interact(agent, table)
        return table

    def cookware_for(self, kind: str):
        """(cookware type, state the ingredient must be in when added) for a cooked ingredient."""
        for ctype, (accepts, _) in self.w.statics.containers.items():
            if ctype == "plate":
                continue
            for k, _attr, value in accepts:
                if self.w.isa_type(kind, k):
                    return ctype, value
        raise PlanningError(f"no cookware accepts {kind}")

    def stove_with(self, agent: str, ctype: str, used: list):
        cands = []
        for n in self.stations("stove"):
            for o in self.items_on(n):
                if self.st.isa(o, ctype) and not self.contents(o) and n not in used:
                    cands.append(n)
        if cands:
            return self.nearest(agent, cands)
        same = [n for n in used if any(self.st.isa(o, ctype) for o in self.items_on(n))]
        if same:
            return same[0]
        raise PlanningError(f"no stove with a {ctype}")

    def dish(self, agent: str, dish) -> None:
        cooked: list = []
        plain: list = []
        for kind, _attr, value, count in dish.items:
            for _ in range(count):
                (cooked if value == "cooked" else plain).append((kind, value))
        stoves: list = []
        for kind, _ in cooked:
            ctype, pre = self.cookware_for(kind)
            stove = self.stove_with(agent, ctype, stoves)
            self.fetch(agent, kind, pre)
            self.interact(agent, stove)
            if stove not in stoves:
                stoves.append(stove)
        table = self.get_plate(agent)
        for kind, value in plain:
            self.fetch(agent, kind, value)
            self.interact(agent, table)
        self.interact(agent, table)                    # pick up the plate
        for stove in stoves:
            self.goto(agent, stove)
            pan = next(o for o in self.items_on(stove) if self.contents(o))
            ready = [t for t, (what, key) in self.sim.pending_events() if what == "proc" and pan in key[1]]
            if ready:
                self.wait(agent, max(ready) - self.sim.t)
                self.sim.run(until=max(ready))
            self.interact(agent, stove)
        self.interact(agent, self.nearest(agent, self.stations("serving_window")))

    def run(self) -> dict:
        agents = self.w.agents
        for i, dish in enumerate(self.w.orders):
            self.dish(agents[i % len(agents)], dish)
        for a in agents:
            self.out[a].append({"action": "Finish"})
        return self.out


def _json_num(x):
    return int(x) if x == int(x) else float(x)


def plan(world) -> dict:
    """{agent: [actions]} serving every order of the world's scenario (raises PlanningError)."""
    return _Planner(world).run()
