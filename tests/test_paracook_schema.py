"""JSON Schemas of ParaCook plans (validators/kitchen/schema.py): valid draft 2020-12, real names and map
bounds, the scripted planner's plans conform, and agreement with the reader and the simulator's argument
checks on a corpus of valid and mutated plans."""
import copy
import dataclasses
import json
import math
import random

import pytest
from jsonschema import Draft202012Validator
from kitchen_util import GENERATED, KITCHEN, generated, kitchen

from chronoplan.cli import main
from chronoplan.runtime.kitchen import scripted
from chronoplan.runtime.kitchen.world import World
from chronoplan.validators.kitchen.grade import grade_grid_plan
from chronoplan.validators.kitchen.read import META_KEYS, read_cook_plan
from chronoplan.validators.kitchen.schema import NotAKitchen, paracook_plan_schema
from chronoplan.validators.schema import SchemaUnavailable, schema_for

# one scenario per category, with 1-3 agents, plus the hand-written kitchen
SAMPLE = [(generated, "burger_s42_o2_a2"), (generated, "sushi_s42_o1_a3"), (generated, "pasta_s42_o2_a1"),
          (generated, "sashimi_s42_o2_a2"), (generated, "salad_s42_o1_a3"), (generated, "burrito_s42_o1_a2"),
          (kitchen, "burger_s1_a2")]


def projects():
    return [(generated(), n) for n in generated().scenarios] + [(kitchen(), n) for n in kitchen().scenarios]


_PLANS: dict = {}


def planned(project, name):
    if name not in _PLANS:
        _PLANS[name] = scripted.plan(World(project, name))
    return _PLANS[name]


def is_json(value) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------- shape and names
def test_every_bundled_kitchen_has_a_valid_schema_with_its_names():
    for project, name in projects():
        scen = project.scenario(name)
        assert scen.kind.value == "grid"
        schema = schema_for(project, name)
        Draft202012Validator.check_schema(schema)
        json.dumps(schema, allow_nan=False)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        m = project.part(name).maps[scen.map]
        agents = [a.name for a in scen.agents]
        defs = schema["$defs"]
        assert list(defs["agents"]["properties"]) == agents
        assert defs["station"]["enum"] == [s.name for s in m.stations]
        cell = defs["cell"]["anyOf"][0]["prefixItems"]
        assert (cell[0]["maximum"], cell[1]["maximum"]) == (m.width - 1, m.height - 1)
        assert [b["properties"]["action"]["const"] for b in defs["action"]["anyOf"]] == \
            ["MoveTo", "Interact", "Process", "Wait", "Finish"]
        # the top level: {"plan": ...} with anything beside it, or the agents object (meta keys allowed)
        with_plan, bare = schema["anyOf"]
        assert with_plan["required"] == ["plan"] and "additionalProperties" not in with_plan
        assert bare["additionalProperties"] is False and set(META_KEYS) <= set(bare["properties"])


def test_bundled_valid_plans_conform_in_every_form():
    for k, (project, name) in enumerate(projects()):
        v = Draft202012Validator(paracook_plan_schema(project, name))
        plan = planned(project, name)
        rep = grade_grid_plan(project, name, {"plan": plan})
        assert rep.valid, (name, rep.to_text())
        others = ({"reasoning": "serve in order", "plan": plan, "notes": [1, 2]}, plan,
                  {"scenario": name, "CoT": "...", **plan}, {"plan": plan, "scenario": name})
        for form in ({"plan": plan}, others[k % len(others)]):      # each form on a quarter of the scenarios
            assert v.is_valid(form), name


def test_bad_station_agent_and_coordinate_are_rejected():
    project, name = generated(), "burger_s42_o1_a2"
    schema = paracook_plan_schema(project, name)
    plan = planned(project, name)
    v = Draft202012Validator(schema)

    def mutated(fn):
        p = copy.deepcopy(plan)
        fn(p)
        return p

    first_interact = next(i for i, a in enumerate(plan["agent1"]) if a["action"] == "Interact")
    first_move = next(i for i, a in enumerate(plan["agent1"]) if a["action"] == "MoveTo")
    bad = {
        "unknown station": mutated(lambda p: p["agent1"][first_interact].update(target="stove9")),
        "station of another map": mutated(lambda p: p["agent1"][first_interact].update(target="trash1")),
        "object, not station": mutated(lambda p: p["agent1"][first_interact].update(target="plate1")),
        "unknown agent": {**{"agent9" if k == "agent2" else k: x for k, x in plan.items()}},
        "x = width": mutated(lambda p: p["agent1"][first_move].update(target=[10, 3])),
        "y = height": mutated(lambda p: p["agent1"][first_move].update(target=[3, 8])),
        "negative x": mutated(lambda p: p["agent1"][first_move].update(target=[-1, 3])),
        "three coordinates": mutated(lambda p: p["agent1"][first_move].update(target=[1, 2, 3])),
        "fractional coordinate": mutated(lambda p: p["agent1"][first_move].update(target=[1.5, 2])),
        "unknown action": mutated(lambda p: p["agent1"].append({"action": "Teleport", "target": [1, 1]})),
        "negative wait": mutated(lambda p: p["agent2"].insert(0, {"action": "Wait", "duration": -2})),
        "missing target": mutated(lambda p: p["agent1"][first_move].pop("target")),
    }
    for why, p in bad.items():
        for form in ({"plan": p}, p):
            assert not v.is_valid(form), why
    for empty in ({}, {"plan": {}}, {"reasoning": "no plan"}, [], {"plan": []}, "plan"):
        assert not v.is_valid(empty), empty
    assert v.is_valid({"plan": {"agent1": []}})          # an empty list is a plan (unserved orders: E751)
    assert v.is_valid({"plan": {"agent2": [{"action": "MoveTo", "target": {"x": 3, "y": 1}}]}})
    assert v.is_valid({"agent1": [{"action": "MoveTo", "target": [3.0, 1.0]}, {"action": "Wait", "duration": 2.5}]})


def test_schema_command_and_dispatch(capsys):
    assert main(["schema", str(KITCHEN), "--scenario", "burger_s1_a1_slowcut", "--compact"]) == 0
    out = capsys.readouterr().out
    schema = json.loads(out)
    assert schema == paracook_plan_schema(kitchen(), "burger_s1_a1_slowcut")
    assert list(schema["$defs"]["agents"]["properties"]) == ["agent1"]
    assert main(["schema", str(GENERATED), "--scenario", "nope"]) == 2
    # a grid scenario without orders (the checker refuses one; built directly) has no ParaCook plans
    project = kitchen()
    scen = dataclasses.replace(project.scenario("burger_s1_a1_slowcut"), orders=())
    project = dataclasses.replace(project, scenarios={scen.name: scen}, parts={})
    with pytest.raises(SchemaUnavailable, match="not a grid kitchen"):
        schema_for(project, scen.name)
    with pytest.raises(NotAKitchen):
        paracook_plan_schema(project, scen.name)


# ---------------------------------------------------------------- agreement with the reader
GATE_CODES = {"E550"}                      # run-time errors the schema's bounds also exclude (negative Wait)
GATE_CATEGORIES = {"syntax", "schema", "unknown-name"}


class Oracle:
    """What the reader and the simulator's per-action argument checks say about a plan.

    ``reads(plan)``: no reader error, no unknown agent, and no action whose own grading (alone, from the
    start, so that nothing before it can mask it) reports a syntax, schema or unknown-name error or E550.
    ``strict(plan)``: the four documented ways the schema is stricter (cells off the map, names that are not
    map stations, extra fields in an action, a "scenario" key naming another scenario)."""

    def __init__(self, project, name):
        self.project, self.name = project, name
        self.world = World(project, name)
        self.stations = {s.name for s in self.world.map.stations}
        self.cache: dict = {}

    def action_ok(self, agent, action) -> bool:
        key = (agent, json.dumps(action, sort_keys=True, default=repr))
        if key not in self.cache:
            rep = grade_grid_plan(self.project, self.name, {"plan": {agent: [action]}})
            self.cache[key] = not any(e.category in GATE_CATEGORIES or e.code in GATE_CODES for e in rep.errors)
        return self.cache[key]

    def reads(self, plan) -> bool:
        read = read_cook_plan(plan)
        if read.errors:
            return False
        for agent, steps in read.steps.items():
            if agent not in self.world.agents:
                return False
            for s in steps:
                if not self.action_ok(agent, {"action": s.action, **s.args}):
                    return False
        return True

    def strict(self, plan) -> bool:
        if isinstance(plan, dict) and "scenario" in plan and plan["scenario"] != self.name:
            return True
        read = read_cook_plan(plan)
        m = self.world.map
        for steps in read.steps.values():
            for s in steps:
                params = {p.name: p.type for p in self.world.surfaces[s.action].params[1:]}
                if set(s.args) - set(params):
                    return True
                for field, typ in params.items():
                    v = s.args[field]
                    if typ == "cell":
                        if isinstance(v, dict):
                            if set(v) - {"x", "y"}:
                                return True
                            v = [v["x"], v["y"]]
                        if not (0 <= v[0] < m.width and 0 <= v[1] < m.height):
                            return True
                    elif typ != "number" and v not in self.stations:
                        return True
        return False


def _mutants(plan, world, rng):
    """(label, plan) pairs: one mutation each, at a random action."""
    agents = list(plan)
    w, h = world.map.width, world.map.height
    stations = [s.name for s in world.map.stations]
    objects = [o for o in ("plate1", "pan1", "pot1") if o in world.initial_state().otype]

    def at(kind):
        spots = [(a, i) for a in agents for i, x in enumerate(plan[a]) if x["action"] == kind]
        return rng.choice(spots) if spots else None

    def edit(kind, label, fn):
        spot = at(kind)
        if spot is None:
            return
        p = copy.deepcopy(plan)
        a, i = spot
        res = fn(p[a][i])
        if res is not None:
            p[a][i] = res
        out.append((label, {"plan": p}) if rng.random() < 0.5 else (label + " (bare)", p))

    out = []
    x, y = rng.randrange(w), rng.randrange(h)
    for label, target in [("x=w", [w, y]), ("y=h", [x, h]), ("x<0", [-1, y]), ("y<0", [x, -3]),
                          ("float cell", [float(x), float(y)]), ("half", [x + 0.5, y]), ("bool", [True, y]),
                          ("string xy", f"{x},{y}"), ("string coord", [str(x), y]), ("3 coords", [x, y, 0]),
                          ("1 coord", [x]), ("xy object", {"x": x, "y": y}), ("x only", {"x": x}),
                          ("xyz object", {"x": x, "y": y, "z": 0}), ("huge", [10 ** 13, y]), ("nan", [math.nan, y]),
                          ("null", None), ("in map", [x, y])]:
        edit("MoveTo", "cell " + label, lambda a, t=target: a.update(target=t))
    for label, target in [("unknown", "stove9"), ("case", rng.choice(stations).upper()), ("int", 3),
                          ("null", None), ("list", [rng.choice(stations)]), ("agent", agents[0]),
                          ("other station", rng.choice(stations))] + [("object " + o, o) for o in objects]:
        edit("Interact", "station " + label, lambda a, t=target: a.update(target=t))
        edit("Process", "process " + label, lambda a, t=target: a.update(target=t))
    for label, d in [("negative", -1), ("zero", 0), ("fraction", 2.5), ("string", "5"), ("huge", 10 ** 13),
                     ("bool", True), ("nan", math.nan), ("inf", math.inf), ("null", None)]:
        edit("MoveTo", "wait " + label, lambda a, d=d: {"action": "Wait", "duration": d})
    for label, fn in [("lowercase", lambda a: a.update(action=a["action"].lower())),
                      ("unknown", lambda a: a.update(action="Teleport")), ("int", lambda a: a.update(action=3)),
                      ("missing", lambda a: a.pop("action")), ("no target", lambda a: a.pop("target")),
                      ("extra field", lambda a: a.update(note="go")), ("nan field", lambda a: a.update(speed=math.nan)),
                      ("string", lambda a: "MoveTo"), ("null", lambda a: None), ("list", lambda a: [a])]:
        edit(rng.choice(["MoveTo", "Interact"]), "action " + label, fn)
    edit("Finish", "finish with target", lambda a: a.update(target=stations[0]))
    p = copy.deepcopy(plan)
    p[agents[0]] = []
    out.append(("empty list", {"plan": p}))
    for label, body in [("unknown agent", {**plan, "agent9": []}), ("renamed agent", {"Agent1" if k == agents[0]
                        else k: v for k, v in plan.items()}), ("dict list", {agents[0]: {"0": plan[agents[0]][0]}}),
                        ("string list", {agents[0]: "MoveTo"}), ("null list", {agents[0]: None}),
                        ("one agent", {agents[-1]: plan[agents[-1]]})]:
        out.append(("plan " + label, {"plan": body}))
        out.append(("plan " + label + " (bare)", body))
    out += [("plan list", {"plan": [plan]}), ("plan string", {"plan": "x"}), ("plan empty", {"plan": {}}),
            ("top list", [plan]), ("top empty", {}), ("only meta", {"reasoning": "r", "graph": {}}),
            ("meta beside agents", {"reasoning": "r", "thoughts": [1], **plan}),
            ("plan and extras", {"plan": plan, "reasoning": "r", "agent9": 3}),
            ("meta inside plan", {"plan": {**plan, "reasoning": "r"}}),
            ("right scenario", {"plan": plan, "scenario": world.scenario.name}),
            ("other scenario", {"plan": plan, "scenario": "other"}),
            ("bare other scenario", {"scenario": "other", **plan}), ("number scenario", {"plan": plan, "scenario": 3})]
    return out


@pytest.mark.parametrize("getter,name", SAMPLE, ids=[n for _, n in SAMPLE])
def test_schema_agrees_with_reader_on_mutated_plans(getter, name):
    project = getter()
    schema = paracook_plan_schema(project, name)
    v = Draft202012Validator(schema)
    oracle = Oracle(project, name)
    plan = planned(project, name)
    rng = random.Random(f"paracook-schema-{name}")
    labels = {"accepted": set(), "rejected": set(), "stricter": set()}
    for _ in range(2):
        for label, p in _mutants(plan, oracle.world, rng):
            reads = oracle.reads(p)
            if not is_json(p):                   # NaN/Infinity: not JSON (a strict parser refuses the text),
                assert not reads, label          # so outside a JSON Schema's domain; the reader rejects them
                labels["rejected"].add(label.split(" (")[0])
                continue
            ok_schema = v.is_valid(p)
            strict = reads and oracle.strict(p)
            assert ok_schema == (reads and not strict), (label, ok_schema, reads, strict,
                                                         json.dumps(p, default=str)[:300])
            labels["stricter" if strict else "accepted" if ok_schema else "rejected"].add(label.split(" (")[0])
    # the corpus exercised both verdicts and each documented strictness
    assert {"cell float cell", "cell xy object", "wait zero", "wait fraction", "empty list", "plan one agent",
            "meta beside agents", "plan and extras", "station other station", "right scenario"} <= labels["accepted"]
    assert {"cell half", "cell bool", "cell 3 coords", "station unknown", "station case", "plan unknown agent",
            "plan renamed agent", "wait negative", "wait string", "wait nan", "action lowercase", "action no target",
            "plan empty", "top empty", "only meta", "meta inside plan", "action nan field"} <= labels["rejected"]
    assert {"cell x=w", "cell x<0", "cell xyz object", "action extra field", "other scenario",
            "finish with target", "station agent"} <= labels["stricter"]
    assert any(lab.startswith("station object") for lab in labels["stricter"]) or name == "burger_s1_a2"
