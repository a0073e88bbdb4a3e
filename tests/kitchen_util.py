"""Helpers for the kitchen tests: load the bundled generated instances once, run and grade ParaCook plans."""
from functools import cache
from pathlib import Path

import chronoplan
from chronoplan.runtime.kitchen.engine import KitchenSim
from chronoplan.runtime.kitchen.world import World
from chronoplan.validators.kitchen.grade import grade_grid_plan, world_for
from chronoplan.validators.kitchen.read import read_cook_plan

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "domains" / "paracook" / "generated"
KITCHEN = ROOT / "domains" / "paracook" / "kitchen.chrono"


@cache
def generated():
    return chronoplan.load(GENERATED)


@cache
def kitchen():
    return chronoplan.load(KITCHEN)


def grade(scenario, plan, project=None, **kw):
    return grade_grid_plan(project or generated(), scenario, {"plan": plan}, **kw)


def simulate(scenario, plan, project=None, first=False):
    """The simulator after the whole plan (for final-state checks)."""
    world, _ = world_for(project or generated(), scenario)
    sim = KitchenSim(world, first=first)
    read = read_cook_plan({"plan": plan})
    for agent, steps in read.steps.items():
        sim.add(agent, steps)
    sim.run()
    return sim


def on(sim, station):
    return sorted(t[0] for t in sim.st.rels["on"].by(1, station))


def inside(sim, container):
    return sorted(t[0] for t in sim.st.rels["inside"].by(1, container))


def held(sim, agent):
    return sorted(t[1] for t in sim.st.rels["holding"].by(0, agent))


def codes(report):
    return [(e.code, e.category, e.agent, e.index) for e in report.errors]


def M(x, y):
    return {"action": "MoveTo", "target": [x, y]}


def IN(station):
    return {"action": "Interact", "target": station}


def P(station):
    return {"action": "Process", "target": station}


def W(d):
    return {"action": "Wait", "duration": d}


F = {"action": "Finish"}


def world(scenario, project=None):
    return World(project or generated(), scenario)
